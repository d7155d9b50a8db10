#!/bin/sh
# Builds the benchmark in Release, runs it, runs the Python transcription of seed 003 over the
# same 1,000,000 configurations, and prints the figures and their ratios, measured in one run.
#     tests/bench/compare.sh            (needs libbenchmark-dev and python3)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-release"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRIDGELINE_CLANG_CHECK=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target ridgeline_bench >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
RIDGELINE_DATA_DIR="$root/data" "$build/bin/ridgeline_bench" --benchmark_format=json --benchmark_out="$out/bench.json" \
    --benchmark_out_format=json --benchmark_repetitions=3 --benchmark_report_aggregates_only=true >/dev/null
RIDGELINE_DATA_DIR="$root/data" "$build/bin/ridgeline_bench" --export-sweep="$out/sweep.json" 2>/dev/null || true
python3 - "$out/bench.json" "$out/sweep.json" "$root" <<'PY'
import json, subprocess, sys, platform
bench = {b["run_name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name") == "median"}
def ms(name):
    b = bench[name]
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    return b["real_time"] * scale
py = json.loads(subprocess.check_output([sys.executable, sys.argv[3] + "/tests/bench/seed003_sweep.py", sys.argv[2]]))
full = bench["decode_step_full"]["items_per_second"]
fast = bench["decode_step_from_cost"]["items_per_second"]
api, bare, python = ms("sweep_public_api"), ms("sweep_bare_loop"), py["seconds"] * 1e3
print(f"machine: {platform.processor() or platform.machine()}, {platform.python_implementation()} {platform.python_version()}")
print(f"decode_step, full (derive + fill):   {full / 1e6:8.1f} M evaluations/s on one core")
print(f"step_times from a StepCost:          {fast / 1e6:8.1f} M evaluations/s on one core")
print(f"1,000,000-config sweep, public API:  {api:8.2f} ms")
print(f"same sweep, bare loop of doubles:    {bare:8.2f} ms   (API / bare = {api / bare:.2f}x)")
print(f"same sweep, seed 003 in Python:      {python:8.0f} ms   (Python / API = {python / api:,.0f}x)")
print(f"load every preset in data/:          {ms('load_every_preset'):8.2f} ms")
serve = bench["serve_one"]["items_per_second"]
print(f"serve(), one plan candidate:         {serve / 1e3:8.1f} k evaluations/s on one core")
for name in ("llama_3_1_70b", "qwen3_30b_a3b"):
    b = bench[f"plan_default_search/{name}"]
    print(f"default plan search, {name:14} {ms(f'plan_default_search/{name}'):8.1f} ms   ({b['evaluations']:,.0f} evaluations)")
floor = bench["plan_bare_floor/20000"]["items_per_second"]
print(f"bare roofline step (the floor):      {floor / 1e6:8.1f} M steps/s   (serve() costs {floor / serve:,.0f} of them)")
PY
