#!/bin/sh
# Installs the Debian packages ridgeline's build and tests need, if any is missing.
# Run as root on Debian 12 or later (or with sudo).
set -eu
packages="cmake g++ make libfmt-dev nlohmann-json3-dev catch2 libcli11-dev clang libclang-rt-14-dev libbenchmark-dev"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "ridgeline: installing$missing" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
