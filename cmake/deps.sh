#!/bin/sh
# Installs the Debian packages ridgeline needs, if any is missing. Run as root on Debian 12 or
# later. Plain: what configuring and building the library, its tests, the examples and the CLI
# needs. With --tests: also what the whole test suite runs (clang and its runtime for the
# sanitizer and fuzzing build, Google Benchmark, Emscripten, Chromium and npm for the
# browser page's test, and Python with pybind11, numpy and pytest for the Python module's
# tests: about 1.2 GB more).
set -eu
packages="cmake g++ make libfmt-dev nlohmann-json3-dev libcli11-dev catch2"
if [ "${1:-}" = "--tests" ]; then
    packages="$packages clang libclang-rt-14-dev libbenchmark-dev emscripten chromium python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest"
fi
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ "${1:-}" = "--tests" ]; then
    command -v npm >/dev/null 2>&1 || missing="$missing npm"
fi
[ -z "$missing" ] && exit 0
echo "ridgeline: installing$missing" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
