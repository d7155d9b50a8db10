#!/bin/sh
# Runs each fuzz target for longer than CTest does: tests/fuzz/run.sh [seconds per target]
# Builds them with clang into build-fuzz/ first. Needs clang and libclang-rt-14-dev.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-600}
cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_CXX_COMPILER=clang++ -DRIDGELINE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build-fuzz" -j"$(nproc)" --target fuzz_hardware fuzz_model fuzz_measurements
for target in hardware model measurements; do
    case $target in
        hardware) seeds="$root/data/hardware $root/tests/data/bad" ;;
        model) seeds="$root/data/models $root/tests/data/bad" ;;
        measurements) seeds="$root/data/measurements" ;;
    esac
    mkdir -p "$root/build-fuzz/corpus_$target"
    echo "fuzzing the $target loader for $seconds s"
    "$root/build-fuzz/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=8192 "$root/build-fuzz/corpus_$target" $seeds
done
