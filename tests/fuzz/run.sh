#!/bin/sh
# Runs every fuzz target for longer than CTest does (15 s each):
#     tests/fuzz/run.sh [seconds per target] [target...]
# Seconds default to 600; targets to all of them (hardware model measurements setting args).
# Builds them with clang into build-fuzz/ first (needs clang and libclang-rt-14-dev), seeds each
# from data/, tests/data/bad and tests/fuzz/regressions/<target>/, and keeps what it learns in
# build-fuzz/corpus_<target>. A failing input lands in build-fuzz/ as crash-*: keep it under
# tests/fuzz/regressions/<target>/. Exits non-zero if any target failed.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-600}
case $seconds in '' | *[!0-9]*) echo "usage: $0 [seconds per target] [target...]" >&2; exit 2 ;; esac
[ $# -gt 0 ] && shift
targets=${*:-hardware model measurements setting args}
jobs=${RIDGELINE_FUZZ_JOBS:-2}
cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_CXX_COMPILER=clang++ -DRIDGELINE_FUZZ=ON -DRIDGELINE_CLANG_CHECK=OFF \
      -DRIDGELINE_BUILD_EXAMPLES=OFF -DRIDGELINE_INSTALL=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
for target in $targets; do
    cmake --build "$root/build-fuzz" -j"$jobs" --target "fuzz_$target"
done
regressions="$root/tests/fuzz/regressions"
failed=""
for target in $targets; do
    case $target in
        hardware) seeds="$root/data/hardware $root/tests/data/bad" ;;
        model) seeds="$root/data/models $root/data/drafts $root/tests/data/bad" ;;
        measurements) seeds="$root/data/measurements" ;;
        setting | args) seeds="" ;;
        *) echo "unknown target: $target" >&2; exit 2 ;;
    esac
    mkdir -p "$root/build-fuzz/corpus_$target"
    echo "fuzzing $target for $seconds s"
    # shellcheck disable=SC2086  # the seed lists split on spaces
    RIDGELINE_DATA_DIR="$root/data" "$root/build-fuzz/bin/fuzz_$target" -max_total_time="$seconds" -max_len=8192 \
        -artifact_prefix="$root/build-fuzz/" "$root/build-fuzz/corpus_$target" $seeds "$regressions/$target" ||
        failed="$failed $target"
done
if [ -n "$failed" ]; then
    echo "failed:$failed (inputs in $root/build-fuzz/crash-*)" >&2
    exit 1
fi
