#!/usr/bin/env bash
# Generate the SDKs from the committed OpenAPI document and check they are usable:
#   - a Python client (openapi-python-client, a dev dependency in uv.lock) in
#     $SDK_PYTHON_OUT (default sdk/python, gitignored);
#   - a Python client from openapi-generator's python generator on its default flags
#     (openapi-generator-cli, a dev dependency; it runs on java) in
#     $SDK_OPENAPI_GENERATOR_OUT (default sdk/openapi-generator-python, gitignored);
#   - TypeScript types (openapi-typescript, pinned in sdk/typescript/package-lock.json)
#     in sdk/typescript/generated/types.ts (gitignored), then `tsc --strict` over
#     sdk/typescript/check.ts, which uses the round union, Problem and nullable fields;
#   - two TypeScript clients, each on its generator's default flags: @hey-api/openapi-ts
#     (pinned there too) in sdk/typescript/generated/hey-api, and openapi-generator's
#     typescript-fetch (a dev dependency, run on java) in generated/typescript-fetch;
#     then `tsc --strict` over both and over play.ts and roundtrip.ts, which use them.
# Nothing generated is committed. Needs `make install` (for .venv), Node/npm and java.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

SPEC="$ROOT/openapi/openapi.json"
PYTHON_OUT="${SDK_PYTHON_OUT:-$ROOT/sdk/python}"
OPENAPI_GENERATOR_OUT="${SDK_OPENAPI_GENERATOR_OUT:-$ROOT/sdk/openapi-generator-python}"

echo "==> Python client -> $PYTHON_OUT"
generator_log=$(mktemp)
trap 'rm -f "$generator_log"' EXIT
"$ROOT/.venv/bin/openapi-python-client" generate \
  --path "$SPEC" \
  --config "$ROOT/sdk/python-config.yaml" \
  --output-path "$PYTHON_OUT" \
  --overwrite 2>&1 | tee "$generator_log"
# openapi-python-client exits 0 when it had to leave parts of the schema out.
if grep -qi "warning" "$generator_log"; then
  echo "openapi-python-client reported warnings: parts of the client are missing" >&2
  exit 1
fi
"$ROOT/.venv/bin/python" -c \
  "import sys; sys.path.insert(0, sys.argv[1]); import squarescores_client.api, squarescores_client.models" \
  "$PYTHON_OUT"

echo "==> Python client (openapi-generator) -> $OPENAPI_GENERATOR_OUT"
if ! command -v java >/dev/null 2>&1; then
  echo "java is required to run openapi-generator" >&2
  exit 1
fi
rm -rf "$OPENAPI_GENERATOR_OUT"  # a fresh tree, as --overwrite gives the client above
"$ROOT/.venv/bin/openapi-generator-cli" generate -g python -i "$SPEC" -o "$OPENAPI_GENERATOR_OUT" \
  2>&1 | tee "$generator_log"
# It exits 0 whatever it warns of. Two warnings leave nothing out: 3.1 support is
# called beta, and a nullable reference logs a schema name it looked up as null.
if grep " WARN \| ERROR " "$generator_log" \
  | grep -v "OpenAPI 3.1 support is still in beta\|Failed to get the schema name: null"; then
  echo "openapi-generator reported the warnings above: parts of the client may be missing" >&2
  exit 1
fi
"$ROOT/.venv/bin/python" -c \
  "import sys; sys.path.insert(0, sys.argv[1]); import openapi_client.api, openapi_client.models" \
  "$OPENAPI_GENERATOR_OUT"

echo "==> TypeScript types and clients -> sdk/typescript/generated/"
if ! command -v npm >/dev/null 2>&1; then
  echo "npm is required to generate the TypeScript types" >&2
  exit 1
fi
cd "$ROOT/sdk/typescript"
npm ci --no-audit --no-fund --loglevel=error
# Each generator on its default flags, as a newcomer runs it.
npx --no-install openapi-typescript "$SPEC" -o generated/types.ts
rm -rf generated/hey-api generated/typescript-fetch  # no file left from an older document
npx --no-install openapi-ts -i "$SPEC" -o generated/hey-api
"$ROOT/.venv/bin/openapi-generator-cli" generate -g typescript-fetch -i "$SPEC" \
  -o generated/typescript-fetch 2>&1 | tee "$generator_log"
# As for its python client: only the beta warning leaves nothing out.
if grep " WARN \| ERROR " "$generator_log" | grep -v "OpenAPI 3.1 support is still in beta"; then
  echo "openapi-generator reported the warnings above: parts of the client may be missing" >&2
  exit 1
fi
npx --no-install tsc --noEmit --strict  # check.ts against generated/types.ts
# Both clients, play.ts and roundtrip.ts: strict, but without check.ts's
# exactOptionalPropertyTypes, under which hey-api's own client code does not compile.
npx --no-install tsc --noEmit -p tsconfig.clients.json
echo "==> SDKs generated and type-checked"
