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
# Debian 12's Emscripten (3.1.6) ships libc++ 13, whose std::string and std::vector are not yet
# usable in constexpr functions (libc++ 15 and later are). Three core functions hold such a
# local or return one: with that libc++, compile a copy of the headers in which those three are
# plain inline functions. They are never constant-evaluated, so the numbers are the same; the
# library itself is not changed. With a newer libc++ the headers are used as they are.
headers="$root/include"
probe="$out/constexpr-string-probe.cpp"
printf '#include <string>\n#include <vector>\nconstexpr int f() { std::string s = "ab"; std::vector<int> v(2); return int(s.size() + v.size()); }\nstatic_assert(f() == 4);\n' >"$probe"
if ! em++ -std=c++20 -fsyntax-only "$probe" 2>/dev/null; then
    headers="$out/include-libcxx13"
    rm -rf "$headers"
    cp -R "$root/include" "$headers"
    sed -i 's/\[\[nodiscard\]\] constexpr std::string tensor_split_problem(/[[nodiscard]] std::string tensor_split_problem(/' \
        "$headers/ridgeline/layers.hpp"
    sed -i 's/^constexpr void validate(const Deployment& d, const Model& m)/inline void validate(const Deployment\& d, const Model\& m)/' \
        "$headers/ridgeline/deployment.hpp"
    sed -i 's/^constexpr double expected_busiest_group_experts(/inline double expected_busiest_group_experts(/' \
        "$headers/ridgeline/step_cost.hpp"
fi
em++ -std=c++20 -O2 -fexceptions -I"$headers" -I"$out/include" -DRIDGELINE_SOURCE_DATA_DIR='"/data"' \
    "$root/examples/web/web.cpp" -o "$out/ridgeline.js" \
    -sEXPORTED_FUNCTIONS=_ridgeline_presets,_ridgeline_evaluate -sEXPORTED_RUNTIME_METHODS=ccall \
    -sALLOW_MEMORY_GROWTH=1 -sSINGLE_FILE=1 -sENVIRONMENT=web \
    --embed-file "$root/data@/data"
cp "$root/examples/web/index.html" "$out/index.html"
echo "built $out/index.html"
