"""The README's Python example: one decode step, a sweep over devices, formats, TP degrees and
batches in one call, a diagnosis with the value types, and an error.

    PYTHONPATH=build/python python3 examples/python/quickstart.py
"""
import numpy as np

import ridgeline

row = ridgeline.decode("llama-3.1-8b", "h100-sxm", batch=64, context=4096)
print(f"{row['model']} on {row['hardware']}, batch 64 at 4k: {row['step_time_s'] * 1e3:.2f} ms a step, "
      f"{row['total_tokens_per_s']:.0f} tok/s, {row['bound']}-bound")

# Llama-3.1-70B at 8k tokens of context: 2 devices x 2 formats x 2 TP degrees x 256 batches.
sweep = ridgeline.decode_sweep("llama-3.1-70b", ["h100-sxm", "h200"], np.arange(1, 257), [8192], weights=["bf16", "fp8"], tp=[2, 4])
ok = sweep["fits"] & (sweep["step_time_s"] <= 0.030)
best = np.flatnonzero(ok)[np.argmax(sweep["total_tokens_per_s"][ok])]
print(f"{ok.sum()} of {ok.size} points fit and keep TPOT <= 30 ms; the most tok/s: {sweep['hardware'][best]} "
      f"tp {sweep['tp'][best]} {sweep['weights'][best]} batch {sweep['batch'][best]}, {sweep['total_tokens_per_s'][best]:.0f} tok/s")

d = ridgeline.diagnose("llama-3.1-70b", ridgeline.Deployment("h200", tp=4), workload=ridgeline.Workload(32, 8192, weights="fp8"),
                       measured_tokens_per_s=40)
print(f"40 tok/s measured there at batch 32: {d['verdict']}, {d['fraction_of_ceiling']:.0%} of its ceiling")

try:
    ridgeline.decode("llama-3.1-8b", "h100-sxm", context=200000)
except ridgeline.Error as e:
    print(f"ridgeline.Error: {e}")
