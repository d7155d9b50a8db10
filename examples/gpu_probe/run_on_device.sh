#!/bin/sh
# The device run for issue 7, prepared to fit a 15-minute lease: build the probe for Hopper,
# then sweep Llama-3.1-8B and Qwen3-32B over B in 1..512 and n in {0, 512, 4k, 32k}. Writes
# OUT/<model>-h200.json (measurements schema) and .csv (measured vs ideal vs calibrated).
#     examples/gpu_probe/run_on_device.sh [OUT]      (OUT defaults to $OUT, then ./probe-out)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-./probe-out}}
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH" RIDGELINE_DATA_DIR="$root/data"
cmake -S "$root" -B "$root/build-probe" -DRIDGELINE_GPU_PROBE=ON -DRIDGELINE_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$root/build-probe" --target gpu_probe -j"$(nproc)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$out/nvidia-smi.csv"
for model in llama-3.1-8b qwen3-32b; do
    timeout 300 "$root/build-probe/bin/gpu_probe" --model "$model" --hardware h200 --batch 1..512x2 \
        --context 0,512,4096,32768 --repeats 10 --out "$out" 2>&1 | tee "$out/$model.log"
done
