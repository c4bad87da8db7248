#!/usr/bin/env bash
# The tools the test suite drives from outside Python, installed when missing:
# curl and jq (the README walkthrough), wrk (the benchmark smoke test), npm (SDK
# types, Spectral, the vendored QR library's check), chromium (the web page and
# /docs in a headless browser), java (openapi-generator, whose jar comes with
# the openapi-generator-cli dev dependency) and nginx (docs/operations.md's site, in
# front of the app). Debian's packages, through apt-get, as root.
set -euo pipefail

missing=()
for tool in curl jq wrk npm chromium; do command -v "$tool" >/dev/null || missing+=("$tool"); done
command -v java >/dev/null || missing+=(default-jre-headless)
# In /usr/sbin, which another user's PATH may leave out.
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "missing: ${missing[*]} (install them, e.g. sudo apt-get install ${missing[*]});" \
    "the tests that need them are skipped, and fail under CI" >&2
  exit 0
fi
echo "installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
