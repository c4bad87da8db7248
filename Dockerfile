# syntax=docker/dockerfile:1
# SquareScores API image.
#
#   docker build -t squarescores .
#   docker run -p 8000:8000 -v squarescores-data:/data squarescores
#
# See docs/operations.md for configuration and PostgreSQL.

# --- builder: resolve the locked dependencies into /app/.venv -------------------
FROM python:3.11-slim-bookworm AS builder

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_PYTHON=/usr/local/bin/python3.11 \
    UV_PROJECT_ENVIRONMENT=/app/.venv

RUN pip install uv==0.13.9

# PyICU is built here, against Debian's ICU (the runtime stage has its library).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends g++ pkg-config libicu-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first, from the lockfile alone, so this layer is rebuilt only
# when pyproject.toml or uv.lock change.
COPY pyproject.toml uv.lock ./
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-dev --no-install-project

# Then the application (the project is `package = false`: nothing to install).
COPY alembic.ini ./
COPY migrations/ ./migrations/
COPY app/ ./app/
RUN /app/.venv/bin/python -m compileall -q app migrations

# --- runtime ---------------------------------------------------------------------
FROM python:3.11-slim-bookworm AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    VIRTUAL_ENV=/app/.venv \
    PATH=/app/.venv/bin:$PATH \
    DATABASE_URL=sqlite:////data/squarescores.db \
    WEB_CONCURRENCY=1 \
    RUN_MIGRATIONS=1

# ICU's library, which PyICU was built against in the builder (the same Debian release).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libicu72 \
    && rm -rf /var/lib/apt/lists/*

# A fixed, unprivileged uid/gid, so volume ownership is predictable.
RUN groupadd --system --gid 10001 squarescores \
    && useradd --system --uid 10001 --gid 10001 --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin squarescores \
    && mkdir -p /data \
    && chown 10001:10001 /data

WORKDIR /app

# Code and dependencies stay owned by root: the service cannot modify them.
COPY --from=builder /app/.venv /app/.venv
COPY --from=builder /app/alembic.ini /app/alembic.ini
COPY --from=builder /app/migrations /app/migrations
COPY --from=builder /app/app /app/app
COPY --chmod=0755 docker/entrypoint.sh /app/docker/entrypoint.sh

VOLUME ["/data"]
USER 10001:10001
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

ENTRYPOINT ["/app/docker/entrypoint.sh"]
