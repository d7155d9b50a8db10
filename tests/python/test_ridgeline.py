"""The Python module against the library's other faces: the CLI's JSON (bit for bit), the seed
documents' figures, the library's error messages, and the vectorised sweep against the scalar
calls. Run by CTest with PYTHONPATH at the built module, RIDGELINE_DATA_DIR at data/ and
RIDGELINE_CLI at the CLI (tests/CMakeLists.txt)."""
import json
import os
import subprocess
import time

import pytest

import ridgeline

CLI = os.environ.get("RIDGELINE_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="RIDGELINE_CLI is not set (CTest sets it)")


def cli_json(*args):
    out = subprocess.run([CLI, *args, "--format", "json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def cli_error(*args):
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    assert r.returncode != 0
    assert r.stderr.startswith("ridgeline: ")
    return r.stderr[len("ridgeline: "):].rstrip("\n")


def same_row(ours, theirs):
    """Equal values, equal types (an int stays an int) and the same keys in the same order."""
    assert list(ours) == list(theirs)
    for key in theirs:
        assert ours[key] == theirs[key], key
        assert type(ours[key]) is type(theirs[key]), key


# ---------------------------------------------------------------------------------------------
# Seed 003 through Python (tests/unit/test_seeds.cpp has the sources)
# ---------------------------------------------------------------------------------------------

def seed003(preset, params):
    # Seed 003's models: the presets' architectures with its rounded parameter counts (NOTES.md:
    # "Llama-3.1-8B 8.03e9, Qwen3-32B 32.8e9, Llama-3.3-70B 70.6e9"), at a 128k context.
    return ridgeline.load_model(preset).with_parameters(params).with_max_context(131072)


def test_seed003_h100_preset():
    # Seed 003 script: "BW = 3.35e12", "F = 989e12"; "ridge_AI = 295.2".
    h = ridgeline.load_hardware("h100-sxm")
    assert h.memory_bandwidth_bytes_per_s == 3.35e12
    assert h.dense_flop_per_s("bf16") == 989e12
    assert h.dense_flop_per_s("bf16") / h.memory_bandwidth_bytes_per_s == pytest.approx(295.2, abs=0.05)


@pytest.mark.parametrize("preset,params,weights_gb,kv_kib,at4k,at32k,at128k", [
    # Seed 003, table "model weights KV per token 4k 32k 128k tok/s".
    ("llama-3.1-8b", 8.03e9, 16.06, 128, 201.8, 164.6, 100.8),
    ("qwen3-32b", 32.8e9, 65.60, 256, 50.2, 45.2, 33.5),
    ("llama-3.3-70b", 70.6e9, 141.20, 320, 23.5, 22.0, 18.2),
])
def test_seed003_batch1_table(preset, params, weights_gb, kv_kib, at4k, at32k, at128k):
    m = seed003(preset, params)
    assert m.parameter_count * 2 / 1e9 == pytest.approx(weights_gb, abs=0.005)
    assert m.kv_bytes_per_token("bf16") / 1024 == kv_kib
    for context, expected in ((4096, at4k), (32768, at32k), (131072, at128k)):
        row = ridgeline.decode(m, "h100-sxm", batch=1, context=context, assumptions="seed_003")
        assert row["assumptions"] == "seed_003"
        assert row["tokens_per_s"] == pytest.approx(expected, abs=0.05)


def test_seed003_n_star_and_ridge():
    # "That gives 415 tokens for Llama-3.1-8B, 848 for Qwen3-32B, and 1,460 for Llama-3.3-70B"
    for preset, params, n_star in (("llama-3.1-8b", 8.03e9, 415), ("qwen3-32b", 32.8e9, 848), ("llama-3.3-70b", 70.6e9, 1460)):
        assert ridgeline.ridge(seed003(preset, params), "h100-sxm", assumptions="seed_003")["n_star_tokens"] == pytest.approx(n_star, abs=0.5)
    # Qwen3-32B: "context / ridge batch: 0 295, 128 348, 512 746, 848 never"
    q = seed003("qwen3-32b", 32.8e9)
    for context, batch in ((0, 295), (128, 348), (512, 746)):
        assert ridgeline.ridge(q, "h100-sxm", context=context, assumptions="seed_003")["ridge_batch"] == pytest.approx(batch, abs=0.5)
    assert ridgeline.ridge(q, "h100-sxm", context=848, assumptions="seed_003")["ridge_batch"] is None


def test_seed003_llama_8b_at_4k_bytes():
    # Seed 003: Llama-3.1-8B reads 16.06 GB of weights (every parameter) and 128 KiB of KV a token.
    row = ridgeline.decode(seed003("llama-3.1-8b", 8.03e9), "h100-sxm", batch=1, context=4096, assumptions="seed_003")
    assert row["weight_bytes"] == pytest.approx(16.06e9)
    assert row["kv_bytes"] == 4096 * 128 * 1024
    assert row["step_time_s"] == pytest.approx((16.06e9 + 4096 * 131072) / 3.35e12)


# ---------------------------------------------------------------------------------------------
# The CLI's --format json, bit for bit, on a grid of settings
# ---------------------------------------------------------------------------------------------

@needs_cli
@pytest.mark.parametrize("model,extra,kwargs", [
    ("llama-3.1-8b", [], {}),
    ("llama-3.1-8b", ["--weights", "fp8"], {"weights": "fp8"}),
    ("qwen3-30b-a3b", ["--ep", "2"], {"ep": 2}),
    ("llama-3.1-70b", ["--kv", "fp8", "--assumptions", "seed_003", "--efficiency", "0.8", "--memory-fraction", "0.85", "--pp", "2"],
     {"kv": "fp8", "assumptions": "seed_003", "efficiency": 0.8, "memory_fraction": 0.85, "pp": 2}),
])
def test_decode_equals_cli(model, extra, kwargs):
    rows = cli_json("decode", "-m", model, "-H", "h100-sxm,h200", "--tp", "2,4", "-b", "1,64,300", "-c", "0,4096,32768", *extra)
    assert len(rows) == 2 * 2 * 3 * 3
    for row in rows:
        args = dict(kwargs, tp=row["tp"])
        same_row(ridgeline.decode(model, row["hardware"], row["batch"], row["context_tokens"], **args), row)


@needs_cli
@pytest.mark.parametrize("model,hardware,extra,kwargs", [
    ("llama-3.1-8b", "h100-sxm", [], {}),
    ("qwen3-32b", "h200", ["--tp", "2", "--assumptions", "seed_003"], {"tp": 2, "assumptions": "seed_003"}),
    ("deepseek-v3", "h200", ["--tp", "8", "--weights", "fp8"], {"tp": 8, "weights": "fp8"}),
])
def test_ridge_equals_cli(model, hardware, extra, kwargs):
    rows = cli_json("ridge", "-m", model, "-H", hardware, "-c", "0,128,512,848,4096", *extra)
    for row in rows:
        same_row(ridgeline.ridge(model, hardware, row["context_tokens"], **kwargs), row)


@needs_cli
@pytest.mark.parametrize("model,extra,kwargs", [
    ("llama-3.1-70b", [], {}),
    ("gpt-oss-120b", ["--reserve-gib", "2", "--kv", "fp8"], {"runtime_reserve_bytes": 2 * 2**30, "kv": "fp8"}),
])
def test_capacity_equals_cli(model, extra, kwargs):
    rows = cli_json("capacity", "-m", model, "-H", "h100-sxm,h200", "--tp", "1,4", "-c", "0,4096,32768", "-b", "1,16", *extra)
    assert len(rows) == 2 * 2 * 3 * 2
    for row in rows:
        same_row(ridgeline.capacity(model, row["hardware"], row["batch"], row["context_tokens"], tp=row["tp"], **kwargs), row)


@needs_cli
def test_generate_equals_cli():
    for chunk in (0, 1024):
        rows = cli_json("generate", "-m", "llama-3.1-8b", "-H", "h100-sxm,h200", "--tp", "1,2", "--prompt", "4096", "--new", "64",
                        "--chunk", str(chunk), "-b", "1,32")
        assert len(rows) == 8
        for row in rows:
            same_row(ridgeline.generate("llama-3.1-8b", row["hardware"], row["batch"], prompt=4096, new_tokens=64, chunk=chunk,
                                        tp=row["tp"]), row)


@needs_cli
def test_plan_equals_cli():
    theirs = cli_json("plan", "-m", "llama-3.1-70b", "-H", "h100-sxm,h200", "--prompt", "8192", "--cached-prompt", "7936",
                      "--output", "512", "--users", "64", "--tpot-ms", "30", "--price", "h100-sxm=2.50,h200=3.50",
                      "--max-devices", "16", "--top", "10")
    # 30 * 1e-3: the CLI's ms(30), the same double.
    ours = ridgeline.plan("llama-3.1-70b", hardware=["h100-sxm", "h200"], prompt=8192, cached_prompt=7936, output=512, users=64,
                          tpot_s=30 * 1e-3, prices={"h100-sxm": 2.50, "h200": 3.50}, max_devices=16, top=10)
    assert ours == theirs
    assert list(ours) == list(theirs) == ["model", "verdict", "evaluated", "plans", "pareto"]
    assert len(ours["plans"]) == 10
    for a, b in zip(ours["plans"] + ours["pareto"], theirs["plans"] + theirs["pareto"]):
        same_row(a, b)


@needs_cli
def test_plan_by_rate_equals_cli():
    theirs = cli_json("plan", "-m", "qwen3-30b-a3b", "-H", "h100-sxm", "--rate", "2", "--ttft-ms", "500", "--mode", "agg",
                      "--weights", "fp8", "--top", "5")
    ours = ridgeline.plan("qwen3-30b-a3b", hardware="h100-sxm", requests_per_s=2.0, ttft_s=500 * 1e-3, mode="agg", weights=["fp8"],
                          top=5)
    assert ours == theirs


# ---------------------------------------------------------------------------------------------
# Errors: ridgeline.Error, a ValueError carrying the C++ error's parts; no NaN
# ---------------------------------------------------------------------------------------------

def test_batch_zero_is_the_library_error():
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", batch=0, context=4096)
    assert isinstance(e.value, ValueError)
    assert str(e.value) == "batch: got 0, expected an integer from 1 to 2^40"  # workload.hpp's validate
    assert (e.value.file, e.value.path, e.value.value, e.value.expected) == ("", "batch", "0", "an integer from 1 to 2^40")


@needs_cli
def test_unknown_preset_says_what_the_cli_says():
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.load_model("no-such-model")
    assert str(e.value) == cli_error("decode", "-m", "no-such-model")
    assert e.value.value == '"no-such-model"'
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "no-such-device")
    assert str(e.value) == cli_error("decode", "-m", "llama-3.1-8b", "-H", "no-such-device")


def test_context_past_the_model_and_bad_degrees():
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", context=200000)
    assert e.value.path == "context" and e.value.value == "200000"
    assert "max_position_embeddings (131072)" in e.value.expected
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("qwen3-30b-a3b", "h100-sxm", tp=2, ep=4)
    assert str(e.value) == "expert-parallel degree: got 4, expected a divisor of the tensor-parallel degree (2)"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", efficiency=float("nan"))
    assert e.value.path == "efficiency (bandwidth)"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", weights="int3")
    assert (e.value.path, e.value.value) == ("weights", "int3")
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.plan("llama-3.1-8b", hardware="h100-sxm")
    assert e.value.expected == "exactly one of users and requests_per_s"


def test_bad_file_names_file_and_path(tmp_path):
    bad = tmp_path / "device.json"
    bad.write_text('{"name": "x", "memory_gb": "eighty"}')
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.load_hardware(str(bad))
    assert e.value.file == str(bad)
    assert str(e.value).startswith(str(bad) + ": ")


def test_python_type_errors():
    with pytest.raises(TypeError, match="unexpected keyword argument 'tensor'"):
        ridgeline.decode("llama-3.1-8b", "h100-sxm", tensor=2)
    with pytest.raises(TypeError):
        ridgeline.decode("llama-3.1-8b", "h100-sxm", tp=2.5)
    with pytest.raises(TypeError):
        ridgeline.decode("llama-3.1-8b", 42)


# ---------------------------------------------------------------------------------------------
# The vectorised sweep against the scalar calls
# ---------------------------------------------------------------------------------------------

SWEEP_KEYS = ["batch", "context_tokens", "weight_bytes", "kv_bytes", "bytes_per_step", "step_time_s", "tokens_per_s",
              "total_tokens_per_s", "bound", "arithmetic_intensity_flop_per_byte", "communication_time_s",
              "memory_per_device_bytes", "memory_budget_bytes", "fits"]


def check_sample(sweep, model, hardware, nb, nc, rng, samples, **kwargs):
    assert list(sweep) == SWEEP_KEYS
    for key in SWEEP_KEYS:
        assert sweep[key].shape == (nb * nc,)
    np = pytest.importorskip("numpy")
    for key in SWEEP_KEYS:
        if sweep[key].dtype.kind == "f":
            assert np.isfinite(sweep[key]).all(), key
    for i in rng.choice(nb * nc, size=samples, replace=False):
        row = ridgeline.decode(model, hardware, int(sweep["batch"][i]), int(sweep["context_tokens"][i]), **kwargs)
        for key in SWEEP_KEYS:
            assert sweep[key][i] == row[key], (key, i)  # exactly: the same arithmetic


def test_million_point_sweep_matches_scalar_decode():
    np = pytest.importorskip("numpy")
    batches = np.arange(1, 1001)
    contexts = np.linspace(0, 131072, 1000).astype(np.int64)
    start = time.perf_counter()
    sweep = ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", batches, contexts)
    elapsed = time.perf_counter() - start
    print(f"decode_sweep: {batches.size * contexts.size} points in {elapsed:.3f} s")
    assert sweep["batch"][1001] == 2 and sweep["context_tokens"][1001] == contexts[1]  # batch-major
    check_sample(sweep, "llama-3.1-8b", "h100-sxm", 1000, 1000, np.random.default_rng(16), 100)


def test_sweep_with_experts_links_and_pipeline_matches_scalar_decode():
    np = pytest.importorskip("numpy")
    kwargs = {"tp": 4, "ep": 2, "pp": 2, "dp": 3, "weights": "fp8", "overhead_s": 20e-6, "efficiency": 0.7}
    batches = np.array([1, 2, 3, 7, 64, 100, 512, 4096])
    contexts = np.array([0, 1, 1000, 4096, 40000])
    sweep = ridgeline.decode_sweep("qwen3-30b-a3b", "h200", batches, contexts, **kwargs)
    check_sample(sweep, "qwen3-30b-a3b", "h200", 8, 5, np.random.default_rng(3), 40, **kwargs)
    assert (sweep["communication_time_s"] > 0).all()


def test_sweep_refuses_bad_points_with_the_library_error():
    np = pytest.importorskip("numpy")
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", np.array([1, 0, 4]), np.array([0]))
    assert str(e.value) == "batch: got 0, expected an integer from 1 to 2^40"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [0, 200000])
    assert e.value.path == "context"
    with pytest.raises(TypeError):
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", np.array([1.5]), np.array([0]))
    empty = ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", np.array([], dtype=np.int64), np.array([0]))
    assert empty["step_time_s"].shape == (0,)
