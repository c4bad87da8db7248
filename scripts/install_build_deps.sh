#!/usr/bin/env bash
# What `uv sync` needs to build the one dependency without wheels, PyICU: ICU's
# headers, pkg-config and a C++ compiler. Debian's packages, through apt-get, as root;
# as another user it says what to install.
set -euo pipefail

if pkg-config --exists icu-uc icu-i18n 2>/dev/null && command -v g++ >/dev/null; then
  exit 0
fi
packages=(libicu-dev pkg-config g++)
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "PyICU needs ICU's headers, pkg-config and g++: install ${packages[*]}" \
    "(e.g. sudo apt-get install ${packages[*]}), then run make again" >&2
  exit 1
fi
echo "installing ${packages[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
