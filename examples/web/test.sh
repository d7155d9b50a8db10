#!/bin/sh
# Builds the page, installs playwright-core from the npm registry (once, into the build tree; no
# browser download: it drives Debian's /usr/bin/chromium) and runs test.mjs.
#     examples/web/test.sh BUILD_DIR CLI
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
cli=$2
"$root/examples/web/build.sh" "$build/web" >/dev/null
mkdir -p "$build/web-test"
if [ ! -d "$build/web-test/node_modules/playwright-core" ]; then
    mkdir -p "$build/web-test"
    npm install --prefix "$build/web-test" --no-audit --no-fund --silent playwright-core@1.65.1 >/dev/null
fi
cp "$root/examples/web/test.mjs" "$build/web-test/test.mjs"
# The CLI's build type, printed beside its time (a Debug CLI is not the native speed).
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
RIDGELINE_BUILD_TYPE="${build_type:-unknown} build" RIDGELINE_DATA_DIR="$root/data" node "$build/web-test/test.mjs" "$build/web" "$cli" "$build/web/screenshot.png"
