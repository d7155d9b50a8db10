"""Seed 003's decode_budget and ridge_batch, transcribed to plain Python with its KV slip fixed
(2 * layers * kv_heads * head_dim * dtype, not * 2 * dtype), over the same 1,000,000
configurations as tests/bench/bench.cpp. Prints the seconds the sweep took.

    python3 tests/bench/seed003_sweep.py PARAMS_JSON
PARAMS_JSON (written by compare.sh from the presets): models' P and KV geometry, devices' rates.
"""
import json
import sys
import time


def kv_per_token(layers, kv_heads, head_dim, dtype=2):
    return 2 * layers * kv_heads * head_dim * dtype  # K and V (the seed prints one more * 2)


def decode_budget(P, layers, kv_heads, head_dim, n, wdtype, bw):
    b = P * wdtype + kv_per_token(layers, kv_heads, head_dim) * n
    step = b / bw
    return b, step, 1 / step


def ridge_batch(P, layers, kv_heads, head_dim, n, wdtype, bw, flops):
    t_w = P * wdtype / bw
    t_k = kv_per_token(layers, kv_heads, head_dim) * n / bw
    t_c = 2 * P / flops
    return t_w / (t_c - t_k) if t_c > t_k else float('inf')


def main():
    spec = json.load(open(sys.argv[1]))
    batches = [1 + 20 * i for i in range(50)]
    contexts = [600 * j for j in range(50)]
    start = time.perf_counter()
    total = 0.0
    count = 0
    for m in spec["models"]:
        for d in spec["devices"]:
            for wdtype in spec["weight_bytes"]:
                for n in contexts:
                    r = ridge_batch(m["P"], m["layers"], m["kv_heads"], m["head_dim"], n, wdtype, d["bw"], d["flops"])
                    total += r if r != float('inf') else 0.0
                    for b in batches:
                        # decode_budget is batch 1 in the seed; the batch enters as B sequences' KV and B x 2P FLOPs
                        bytes_, step, _ = decode_budget(m["P"], m["layers"], m["kv_heads"], m["head_dim"], n * b, wdtype, d["bw"])
                        step = max(step, b * 2 * m["P"] / d["flops"])
                        total += 1 / step
                        count += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({"configurations": count, "seconds": elapsed, "checksum": total}))


if __name__ == "__main__":
    main()
