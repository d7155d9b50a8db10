"""The 1,000,000-configuration sweep of tests/bench/sweep.hpp (50 batches x 50 contexts x 10 dense
models x 10 devices x 4 weight formats) from Python, in one call to the module's vectorised
ridgeline.decode_sweep: tok/s alone (what seed 003's formulas in plain Python and the C++ sweeps
produce; bench.cpp's sweep_decode/tokens_per_s makes the same call from C++), every result of a
decode row (sweep_decode/columns from C++), then whole decode rows (the inputs echoed too).
Prints the median seconds of each as JSON; tests/bench/compare.sh sets them beside the C++
sweeps and seed 003's formulas in plain Python.

    PYTHONPATH=build-release/python python3 tests/bench/python_sweep.py
"""
import json
import statistics
import time

import numpy as np

import ridgeline

# tests/bench/sweep.hpp's grid.
MODELS = ["llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.3-70b", "qwen3-8b",
          "qwen3-32b", "mistral-7b-v0.1"]
DEVICES = ["h100-sxm", "h100-pcie", "h100-nvl", "h200", "b200", "gb200", "a100-80gb", "l40s", "mi300x", "mi325x"]
WEIGHTS = ["bf16", "fp8", "int4", "int4/g128"]  # 2, 1, 0.5 and 0.53125 bytes a weight, as sweep.hpp
BATCHES = np.array([1 + 20 * i for i in range(50)])
CONTEXTS = np.array([600 * j for j in range(50)])
RESULTS = ["weight_bytes", "kv_bytes", "bytes_per_step", "step_time_s", "tokens_per_s", "total_tokens_per_s", "bound",
           "arithmetic_intensity_flop_per_byte", "communication_time_s", "memory_per_device_bytes", "memory_budget_bytes", "fits"]


def timed(columns, repeats=9):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        sweep = ridgeline.decode_sweep(MODELS, DEVICES, BATCHES, CONTEXTS, weights=WEIGHTS, columns=columns,
                                       # the grid reaches 29,400 tokens, past Llama 2's 4,096; a raised limit
                                       # is at least each model's own (Llama 3.1's 131,072)
                                       max_context=131072)
        times.append(time.perf_counter() - start)
        count = len(next(iter(sweep.values())))
        del sweep
    return statistics.median(times), count


def main():
    # Presets parsed once, as bench.cpp's are.
    global MODELS, DEVICES
    MODELS = [ridgeline.load_model(m) for m in MODELS]
    DEVICES = [ridgeline.load_hardware(d) for d in DEVICES]
    tokens, count = timed(["tokens_per_s"])
    results, _ = timed(RESULTS)
    rows, _ = timed(None)
    print(json.dumps({"configurations": count, "tokens_per_s_seconds": tokens, "results_seconds": results, "rows_seconds": rows}))


if __name__ == "__main__":
    main()
