#!/bin/sh
# The compile-time cost of #include <ridgeline/ridgeline.hpp>: a translation unit using the core,
# against one that includes only the standard headers the core itself includes. Median of 9.
#     tests/bench/include_cost.sh [compiler]        (default g++)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cxx=${1:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/core.cpp" <<'CPP'
#include <ridgeline/ridgeline.hpp>
int main() {
    using namespace ridgeline;
    Hardware h{"h", GB(80), TB_per_s(3.35)};
    h.with_peak(Numeric::bf16, TFLOP_per_s(989));
    return decode_step(h, dense_model("m", 32, 4096, 32, 8, 128, 14336, 128256), Workload{}).bound == Bound::memory ? 0 : 1;
}
CPP
cat > "$work/std.cpp" <<'CPP'
#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
int main() { return 0; }
CPP
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# CPU seconds (user + system) of the compiler, from the shell's own accounting: steadier than
# wall time on a shared machine.
measure() {
    for i in 1 2 3 4 5 6 7 8 9; do
        sh -c "$cxx -std=c++20 -O0 -I'$root/include' -fsyntax-only '$1'; times" | tail -1 |
            awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
    done | median
}
core=$(measure "$work/core.cpp")
std=$(measure "$work/std.cpp")
echo "compiler: $($cxx --version | head -1)"
printf 'standard headers alone:             %.3f s\n' "$std"
printf 'ridgeline.hpp and one decode_step:  %.3f s\n' "$core"
printf "ridgeline's own cost:               %.3f s (the core includes neither fmt nor nlohmann_json)\n" "$(echo "$core - $std" | bc)"
