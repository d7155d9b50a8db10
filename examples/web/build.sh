#!/bin/sh
# Builds the page with Emscripten into OUT (default build/web): index.html and ridgeline.js,
# the WebAssembly and the presets of data/ inside it (one file, so it also works from file://).
# Needs Debian's emscripten (apt-get install emscripten).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-"$root/build/web"}
mkdir -p "$out"
# Emscripten's JS optimiser needs Debian's node-acorn, which a Node.js from outside Debian misses.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
# nlohmann_json is header-only: give em++ its headers alone, not the rest of /usr/include.
mkdir -p "$out/include"
ln -sfn /usr/include/nlohmann "$out/include/nlohmann"
em++ -std=c++20 -O2 -fexceptions -I"$root/include" -I"$out/include" -DRIDGELINE_SOURCE_DATA_DIR='"/data"' \
    "$root/examples/web/web.cpp" -o "$out/ridgeline.js" \
    -sEXPORTED_FUNCTIONS=_ridgeline_presets,_ridgeline_evaluate,_ridgeline_plan -sEXPORTED_RUNTIME_METHODS=ccall \
    -sALLOW_MEMORY_GROWTH=1 -sSINGLE_FILE=1 -sENVIRONMENT=web \
    --embed-file "$root/data@/data"
cp "$root/examples/web/index.html" "$out/index.html"
echo "built $out/index.html"
