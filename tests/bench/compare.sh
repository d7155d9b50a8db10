#!/bin/sh
# Builds the benchmark and the Python module in Release, runs the benchmark, runs the same
# 1,000,000 configurations through the module's vectorised decode_sweep and through the Python
# transcription of seed 003, and prints the figures and their ratios, measured in one run.
#     tests/bench/compare.sh            (needs libbenchmark-dev, python3, and for the module's
#                                        figures pybind11-dev and python3-numpy)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-release"
python=/usr/bin/python3  # Debian's, whose numpy the module is built against
[ -x "$python" ] || python=python3
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRIDGELINE_CLANG_CHECK=OFF -DPython_EXECUTABLE="$python" >/dev/null
cmake --build "$build" -j"$(nproc)" --target ridgeline_bench >/dev/null
module=0
if cmake --build "$build" -j"$(nproc)" --target ridgeline_python >/dev/null 2>&1; then module=1; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
RIDGELINE_DATA_DIR="$root/data" "$build/bin/ridgeline_bench" --benchmark_format=json --benchmark_out="$out/bench.json" \
    --benchmark_out_format=json --benchmark_repetitions=3 --benchmark_report_aggregates_only=true >/dev/null
RIDGELINE_DATA_DIR="$root/data" "$build/bin/ridgeline_bench" --export-sweep="$out/sweep.json" 2>/dev/null || true
if [ "$module" = 1 ]; then
    RIDGELINE_DATA_DIR="$root/data" PYTHONPATH="$build/python" "$python" "$root/tests/bench/python_sweep.py" >"$out/module.json"
else
    echo '{}' >"$out/module.json"
fi
"$python" - "$out/bench.json" "$out/sweep.json" "$root" "$out/module.json" <<'PY'
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
tokens, columns = ms("sweep_decode/tokens_per_s"), ms("sweep_decode/columns")
print(f"same sweep, decode_sweep, tok/s:     {tokens:8.2f} ms   (decode_step's whole arithmetic per point, into a fresh array)")
print(f"same sweep, decode_sweep, every result column: {columns:6.2f} ms")
module = json.load(open(sys.argv[4]))
if module:
    t, results, rows = (module[k] * 1e3 for k in ("tokens_per_s_seconds", "results_seconds", "rows_seconds"))
    print(f"from Python, ridgeline.decode_sweep, tok/s:  {t:6.2f} ms   (Python / C++ decode_sweep = {t / tokens:.2f}x,"
          f" Python / C++ public API = {t / api:.2f}x, target: within 3x; plain Python / this = {python / t:,.0f}x, target: 100x)")
    print(f"  every result column:                       {results:6.2f} ms   (Python / C++ = {results / columns:.2f}x;"
          f" plain Python / this = {python / results:,.0f}x)")
    print(f"  whole decode rows (the inputs echoed too): {rows:6.2f} ms   (plain Python / this = {python / rows:,.0f}x)")
else:
    print("  (the Python module was not built: no pybind11 or numpy)")
print(f"load every preset in data/:          {ms('load_every_preset'):8.2f} ms")
serve = bench["serve_one"]["items_per_second"]
print(f"serve(), one plan candidate:         {serve / 1e3:8.1f} k evaluations/s on one core")
for name in ("llama_3_1_70b", "qwen3_30b_a3b"):
    b = bench[f"plan_default_search/{name}"]
    print(f"default plan search, {name:14} {ms(f'plan_default_search/{name}'):8.1f} ms   ({b['evaluations']:,.0f} evaluations)")
floor = bench["plan_bare_floor/20000"]["items_per_second"]
print(f"bare roofline step (the floor):      {floor / 1e6:8.1f} M steps/s   (serve() costs {floor / serve:,.0f} of them)")
PY
