# Two commands set up a fresh machine (Python 3.11+; PyICU's build needs ICU's headers,
# which install_build_deps.sh installs with apt-get when run as root):
#   make run    install, migrate the SQLite database, serve the API on :8000
#   make test   install and run the whole test suite
PYTHON ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 1

.PHONY: install run migrate test lint format openapi

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

install: $(UV)  ## Install the locked dependencies into .venv (PyICU builds against the system's ICU)
	bash scripts/install_build_deps.sh
	$(UV) sync --frozen --python $(PYTHON) --quiet

migrate: install  ## Migrate the database DATABASE_URL names (default: ./squarescores.db)
	$(VENV)/bin/alembic upgrade head

run: migrate  ## Serve the API on http://$(HOST):$(PORT)
	$(VENV)/bin/uvicorn app.main:app --http app.serving:HttpToolsProtocol --timeout-graceful-shutdown 3 --no-proxy-headers --host $(HOST) --port $(PORT) --workers $(WORKERS)

test: install  ## Run the whole test suite (SQLite and PostgreSQL); installs the tools it drives
	bash scripts/install_test_tools.sh
	$(VENV)/bin/python -m pytest

lint: install  ## ruff (lint + format check) and mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy app

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

openapi: install  ## Regenerate openapi/openapi.json from the app
	$(VENV)/bin/python -m scripts.export_openapi

.PHONY: vectors
vectors: install  ## Regenerate docs/vectors/scoring-vectors.json from the game modules
	$(VENV)/bin/python -m scripts.export_vectors

.PHONY: screenshots
screenshots: install  ## Refresh docs/screenshots/ (a test run writes them to build/screenshots/)
	bash scripts/install_test_tools.sh
	SCREENSHOTS_DIR=docs/screenshots $(VENV)/bin/python -m pytest -q tests/browser/test_table_extras.py

.PHONY: sdk
sdk: install  ## Generate the Python clients (openapi-python-client, openapi-generator) and TypeScript types from openapi/openapi.json, and check them
	bash scripts/generate_sdks.sh

# --- contract and artifact checks --------------------------------------------------
# Spectral is pinned in tools/lint/package-lock.json; `npm ci` runs again only when
# the manifest or the lockfile changes. --ignore-scripts: Spectral needs no install
# scripts (the only one in the tree is a telemetry ping).
LINT_NODE_STAMP := tools/lint/node_modules/.installed
COMPAT_BASE ?=

.PHONY: lint-openapi lint-docker compat

$(LINT_NODE_STAMP): tools/lint/package.json tools/lint/package-lock.json
	cd tools/lint && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

lint-openapi: $(LINT_NODE_STAMP)  ## Lint openapi/openapi.json with Spectral (.spectral.yaml) and Redocly (tools/lint/redocly.yaml)
	npx --no --prefix tools/lint spectral lint openapi/openapi.json --fail-severity=error
	cd tools/lint && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
	  npx --no redocly lint --config redocly.yaml ../../openapi/openapi.json

lint-docker: install  ## Lint the Dockerfile with hadolint
	$(VENV)/bin/hadolint Dockerfile

compat: install  ## Fail on an unacknowledged breaking change to openapi/openapi.json (COMPAT_BASE=ref, default HEAD~1)
	$(VENV)/bin/python scripts/openapi_compat.py $(if $(COMPAT_BASE),--base $(COMPAT_BASE))

# --- Lighthouse ----------------------------------------------------------------------
# Lighthouse's mobile preset on the start page and a player's table opened from a join
# link, against a server the script starts (SQLite, a temporary database); see
# docs/web.md, "Lighthouse". Lighthouse is pinned in tools/lighthouse/package-lock.json
# and drives Debian's Chromium (CHROME_PATH, default /usr/bin/chromium), installed by
# scripts/install_test_tools.sh when missing. Reports go to build/lighthouse/.
LIGHTHOUSE_NODE_STAMP := tools/lighthouse/node_modules/.installed
LIGHTHOUSE_ARGS ?=

$(LIGHTHOUSE_NODE_STAMP): tools/lighthouse/package.json tools/lighthouse/package-lock.json
	cd tools/lighthouse && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: lighthouse
lighthouse: install  ## Lighthouse (mobile) on the start page and a player's table (LIGHTHOUSE_ARGS="--runs 5")
	bash scripts/install_test_tools.sh
	$(MAKE) --no-print-directory $(LIGHTHOUSE_NODE_STAMP)
	$(VENV)/bin/python scripts/lighthouse.py $(LIGHTHOUSE_ARGS)

# --- load benchmark ----------------------------------------------------------------
# Real uvicorn servers on SQLite and PostgreSQL, driven by wrk; see docs/performance.md.
# wrk is Debian's package: installed here when it is missing and we run as root.
BENCH_ARGS ?=

.PHONY: bench
bench: install  ## Load-test real servers with wrk (BENCH_ARGS="--db sqlite --workers 2 --quick ...")
	@command -v wrk >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" -eq 0 ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y wrk \
	      || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y wrk; }; \
	  else \
	    echo "wrk is missing: install it with 'sudo apt-get install -y wrk', then run make bench again" >&2; \
	    exit 1; \
	  fi; }
	$(VENV)/bin/python scripts/bench.py $(BENCH_ARGS)

# The live streams (SSE) under load: fan-out latency, memory per stream, req/s with streams
# open (issue #13); writes bench/results/live-latest.json. wrk is used when installed.
BENCH_LIVE_ARGS ?=

.PHONY: bench-live
bench-live: install  ## Load-test the live streams (BENCH_LIVE_ARGS="--db sqlite --quick ...")
	$(VENV)/bin/python scripts/bench_live.py $(BENCH_LIVE_ARGS)
