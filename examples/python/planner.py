"""Which deployment should I rent? The planner question, from Python.

Llama-3.1-70B serving 64 users in a conversation (8,192 tokens of context, of which 7,936 are
cached from the earlier turns, 512 tokens out) at a TPOT of at most 30 ms, on H100 or H200 at
2.50 and 3.50 an hour, with BF16 or FP8 weights: the planner's best plans by cost per million
output tokens, then how tokens/s per user trades against the cost of a token (the Pareto front),
and what the winning plan's step looks like as the batch grows (a vectorised sweep).

    PYTHONPATH=build/python python3 examples/python/planner.py [--plot FILE]

With --plot and matplotlib installed, the Pareto front and the sweep are drawn into FILE
(skipped, with a note on stderr, without matplotlib). Ideal ceilings, BF16 KV cache, 0.9 of each
device's memory less 1 GiB. The numbers are the C++ planner's (`ridgeline plan`), not a second
implementation.
"""
import argparse
import sys

import ridgeline


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", metavar="FILE", help="draw the Pareto front and the batch sweep here (needs matplotlib)")
    parser.add_argument("--model", default="llama-3.1-70b")
    args = parser.parse_args()

    prices = {"h100-sxm": 2.50, "h200": 3.50}
    result = ridgeline.plan(args.model, hardware=list(prices), prompt=8192, cached_prompt=7936, output=512,
                            users=64, tpot_s=0.030, prices=prices, max_devices=16, top=5)

    print(f"{result['model']}: 64 users, prompt 8192 (7936 cached), 512 out, TPOT <= 30 ms; "
          f"{result['evaluated']} serving evaluations")
    print(f"  {'hardware':<10}{'devices':>8}{'tp':>4}{'pp':>4}{'weights':>8}{'mode':>15}{'batch':>7}"
          f"{'TPOT':>11}{'max ITL':>11}{'TTFT':>11}{'tok/s/dev':>11}{'per M tok':>11}")
    for p in result["plans"]:
        print(f"  {p['hardware']:<10}{p['devices']:>8}{p['tp']:>4}{p['pp']:>4}{p['weights']:>8}{p['mode']:>15}"
              f"{p['batch']:>7}{p['tpot_s'] * 1e3:>8.2f} ms{p['max_itl_s'] * 1e3:>8.2f} ms{p['ttft_s'] * 1e3:>8.2f} ms"
              f"{p['tokens_per_s_per_device']:>11.1f}{p['cost_per_million_tokens']:>11.3f}")
    print(f"  {result['verdict']}")

    # Priced, the front weighs what a token costs: an H200 reads more tokens a device, at a higher price.
    print("Pareto front (tokens/s per user against cost per million tokens), first 5:")
    for p in result["pareto"]:
        print(f"  {p['hardware']:<10} x{p['devices']:<3} tp {p['tp']} {p['weights']:<5} batch {p['batch']:>4}: "
              f"{p['tokens_per_s_per_user']:7.1f} tok/s/user {p['cost_per_million_tokens']:7.3f} per M tok "
              f"({p['tokens_per_s_per_device']:.1f} tok/s/device)")

    # The winner's decode step over batches 1..256 at the conversation's context, in one call.
    best = result["plans"][0]
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    sweep = ridgeline.decode_sweep(args.model, best["hardware"], batches, [8192 + 512], tp=best["tp"], pp=best["pp"],
                                   weights=best["weights"])
    print(f"{best['hardware']} x{best['devices']} (tp {best['tp']}, {best['weights']}) at 8704 tokens of context:")
    for b, t, total, fits in zip(sweep["batch"], sweep["step_time_s"], sweep["total_tokens_per_s"], sweep["fits"]):
        print(f"  batch {b:>4}: TPOT {t * 1e3:6.2f} ms, {total:8.1f} tok/s{'' if fits else '  (does not fit)'}")

    if args.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("planner.py: matplotlib is not installed: no plot", file=sys.stderr)
            return
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
        front = ridgeline.plan(args.model, hardware=list(prices), prompt=8192, cached_prompt=7936, output=512,
                               users=64, tpot_s=0.030, prices=prices, max_devices=16, top=1000)["pareto"]
        left.plot([p["tokens_per_s_per_user"] for p in front], [p["cost_per_million_tokens"] for p in front], "o-")
        left.set_xlabel("tokens/s per user")
        left.set_ylabel("cost per million output tokens")
        left.set_title("Pareto front")
        right.plot(sweep["batch"], sweep["step_time_s"] * 1e3, "o-")
        right.axhline(30, linestyle="--")
        right.set_xscale("log", base=2)
        right.set_xlabel("batch")
        right.set_ylabel("TPOT, ms")
        right.set_title(f"{best['hardware']} x{best['devices']}, {best['weights']}")
        fig.tight_layout()
        fig.savefig(args.plot)
        print(f"planner.py: wrote {args.plot}", file=sys.stderr)


if __name__ == "__main__":
    main()
