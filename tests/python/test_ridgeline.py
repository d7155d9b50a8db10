"""The Python module against the library's other faces: the CLI's JSON (bit for bit, for every
subcommand the CLI has), the seed documents' figures, hand calculations for the answers the CLI
has no subcommand for, the library's error messages, and the vectorised sweep against the scalar
calls and the CLI. Run by CTest with PYTHONPATH at the built module, RIDGELINE_DATA_DIR at data/
and RIDGELINE_CLI at the CLI (tests/CMakeLists.txt)."""
import json
import os
import pathlib
import shutil
import subprocess
import time

import pytest

import ridgeline

CLI = os.environ.get("RIDGELINE_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="RIDGELINE_CLI is not set (CTest sets it)")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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


# The inputs every row of decode, ridge, capacity, generate and operators echoes (rows.hpp).
INPUTS = 19


def same_rows(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        same_row(a, b)


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
        assert ridgeline.n_star(seed003(preset, params), "h100-sxm", assumptions="seed_003") == pytest.approx(n_star, abs=0.5)
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


def test_seed001_diagnosis_of_70_tok_s():
    # Seed 001: "Llama-3.3-70B ... 70 tok/s at batch 1" on one H100; seed 003's ceiling at 4k is
    # 23.5 tok/s (its table), so 70 is about 3x above it: the setting is not what ran.
    d = ridgeline.diagnose("llama-3.3-70b", "h100-sxm", batch=1, context=4096, measured_tokens_per_s=70, assumptions="seed_003")
    assert d["verdict"] == "above the ceiling"
    assert d["fraction_of_ceiling"] == pytest.approx(70 / 23.5, rel=0.01)


# ---------------------------------------------------------------------------------------------
# The CLI's --format json, bit for bit, on a grid of settings, for every subcommand
# ---------------------------------------------------------------------------------------------

@needs_cli
@pytest.mark.parametrize("model,extra,kwargs", [
    ("llama-3.1-8b", [], {}),
    ("llama-3.1-8b", ["--weights", "fp8"], {"weights": "fp8"}),
    ("qwen3-30b-a3b", ["--ep", "2"], {"ep": 2}),
    ("qwen3-30b-a3b", ["--ep", "2", "--attention-dp", "tp"], {"ep": 2, "attention_dp": "tp"}),
    ("llama-3.1-70b", ["--kv", "fp8", "--assumptions", "seed_003", "--efficiency", "0.8", "--memory-fraction", "0.85", "--pp", "2"],
     {"kv": "fp8", "assumptions": "seed_003", "efficiency": 0.8, "memory_fraction": 0.85, "pp": 2}),
    ("llama-3.1-8b", ["--weights", "int4/g128", "--lm-head", "fp8"], {"weights": "int4/g128", "lm_head": "fp8"}),
    ("qwen3-30b-a3b", ["--weights", "int4", "--router-and-norms", "fp32"], {"weights": "int4", "router_and_norms": "fp32"}),
    ("gpt-oss-120b", ["--overhead-us", "20", "--link-latency-us", "3", "--accounting", "every", "--attention-flops", "off"],
     {"overhead_s": 20 * 1e-6, "link_latency_s": 3 * 1e-6, "accounting": "every", "attention_flops": False}),
])
def test_decode_equals_cli(model, extra, kwargs):
    rows = cli_json("decode", "-m", model, "-H", "h100-sxm,h200", "--tp", "2,4", "-b", "1,64,300", "-c", "0,4096,32768", *extra)
    assert len(rows) == 2 * 2 * 3 * 3
    for row in rows:
        args = dict(kwargs, tp=row["tp"])
        same_row(ridgeline.decode(model, row["hardware"], row["batch"], row["context_tokens"], **args), row)


def test_weights_keep_the_checkpoint_embeddings_and_head():
    # weights= sets the linear layers; Llama-3.1-8B's BF16 tables and norms stay, as an AWQ or GPTQ
    # checkpoint keeps them. The layers, (1,342,177,280 + 5,637,144,576) x 4.125 / 8 B, the 266,240
    # norms at 2 B, one 4,096 x 2 B input row and the 525,336,576 x 2 B head: 4,649,926,656 B a step
    # (the same hand calculation as the CLI's case in tests/cli/CMakeLists.txt).
    row = ridgeline.decode("llama-3.1-8b", "h100-sxm", weights="int4/g128")
    assert (row["embeddings"], row["lm_head"], row["formats_source"]) == ("bf16", "bf16", "--weights")
    assert row["weight_bytes"] == 4_649_926_656
    # lm_head= beside it sets the head: 525,336,576 x 4.125 / 8 = 270,876,672 B instead.
    head = ridgeline.decode("llama-3.1-8b", "h100-sxm", weights="int4/g128", lm_head="int4/g128")
    assert head["weight_bytes"] == 4_649_926_656 - 1_050_673_152 + 270_876_672
    # router_and_norms= sets the 266,240 norms: 2 bytes more each in fp32.
    norms = ridgeline.decode("llama-3.1-8b", "h100-sxm", weights="int4/g128", router_and_norms="fp32")
    assert norms["router_and_norms"] == "fp32"
    assert norms["weight_bytes"] == 4_649_926_656 + 532_480
    assert ridgeline.Workload(router_and_norms="fp32").router_and_norms == "fp32"
    assert ridgeline.Workload().router_and_norms is None


@needs_cli
def test_a_config_json_equals_cli(tmp_path):
    # A Hub config.json by path, and a checkpoint directory holding one: the CLI's rows.
    config = os.path.join(ROOT, "tests/data/hub/glm-4.7-fp8-partial.json")
    checkpoint = tmp_path / "GLM-4.7-FP8"
    checkpoint.mkdir()
    (checkpoint / "config.json").write_text(open(config).read())
    for path in (config, str(checkpoint)):
        rows = cli_json("decode", "-m", path, "-H", "h200", "--tp", "8", "-b", "1,32", "-c", "4096")
        for row in rows:
            same_row(ridgeline.decode(path, "h200", row["batch"], 4096, tp=8), row)
        same_row(ridgeline.decode(ridgeline.load_model(path), "h200", 1, 4096, tp=8), rows[0])


@needs_cli
def test_hf_quant_config_beside_config_json_equals_cli():
    # NVIDIA's FP8 Llama-3.1-70B: its format is in hf_quant_config.json beside config.json.
    path = os.path.join(ROOT, "tests/data/hub/llama-3.1-70b-instruct-fp8")
    row = cli_json("decode", "-m", path, "-H", "h100-sxm", "--tp", "2", "-c", "4096")[0]
    assert row["weights"] == "fp8"
    assert "hf_quant_config.json FP8" in row["formats_source"]
    same_row(ridgeline.decode(path, "h100-sxm", 1, 4096, tp=2), row)


@needs_cli
def test_diagnose_rounding_equals_cli():
    # A figure at the ceiling within its last digit is at it, in Python as in the CLI (Qwen3-32B
    # at 4k under seed_003: 50.30182 tok/s by hand, tests/cli/CMakeLists.txt).
    for figure in ("50.302", "50.31"):
        row = cli_json("diagnose", "-m", "qwen3-32b", "-c", "4096", "--assumptions", "seed_003", "--measured-tok-s", figure)
        got = ridgeline.diagnose("qwen3-32b", "h100-sxm", 1, 4096, measured_tokens_per_s=float(figure), assumptions="seed_003")
        assert (got["verdict"], got["reading"]) == (row["verdict"], row["reading"])
    assert row["verdict"] == "above the ceiling"


@needs_cli
def test_attention_format_equals_cli():
    # attention= keeps the attention's projections apart from weights=, as --attention does.
    row = cli_json("decode", "-m", "llama-3.1-8b", "--weights", "nvfp4", "--attention", "bf16", "-c", "4096")[0]
    assert (row["weights"], row["attention"]) == ("nvfp4", "bf16")
    same_row(ridgeline.decode("llama-3.1-8b", "h100-sxm", 1, 4096, weights="nvfp4", attention="bf16"), row)
    assert ridgeline.Workload(attention="fp8").attention == "fp8"


@needs_cli
def test_value_types_give_the_keyword_rows():
    # The same setting as Workload, Deployment and Assumptions objects: the same CLI row.
    row = cli_json("decode", "-m", "llama-3.1-70b", "-H", "h200", "--tp", "4", "--dp", "2", "-b", "32", "-c", "8192", "--weights", "fp8",
                   "--kv", "fp8", "--efficiency", "0.9", "--assumptions", "seed_003", "--memory-fraction", "0.8")[0]
    a = ridgeline.Assumptions("seed_003", memory_fraction=0.8)
    assert (a.name, a.memory_fraction, a.accounting) == ("custom", 0.8, "every_parameter")
    # A link whose preset gives no latency is charged NCCL's network ring step, 2.7 us
    # (NVIDIA/nccl@5067397c src/graph/tuning.cc, NET Ring/LL); seed 003 charged links none.
    assert ridgeline.Assumptions().fallback_link_latency_s == pytest.approx(2.7e-6, rel=1e-12)
    assert a.fallback_link_latency_s == 0
    w = ridgeline.Workload(32, 8192, weights="fp8", kv="fp8", efficiency=0.9, assumptions=a)
    d = ridgeline.Deployment("h200", tp=4, dp=2)
    assert (w.batch, w.context, w.weights, w.kv, d.tp, d.dp, d.devices) == (32, 8192, "fp8", "fp8", 4, 2, 8)
    same_row(ridgeline.decode("llama-3.1-70b", d, workload=w), row)
    same_row(ridgeline.decode(ridgeline.load_model("llama-3.1-70b"), d, workload=w), row)
    same_row(ridgeline.decode("llama-3.1-70b", ridgeline.Deployment(ridgeline.load_hardware("h200"), tp=4, dp=2), 32, 8192, weights="fp8",
                              kv="fp8", efficiency=0.9, assumptions="seed_003", memory_fraction=0.8), row)


@needs_cli
@pytest.mark.parametrize("model,hardware,extra,kwargs", [
    ("llama-3.1-8b", "h100-sxm", [], {}),
    ("qwen3-32b", "h200", ["--tp", "2", "--assumptions", "seed_003"], {"tp": 2, "assumptions": "seed_003"}),
    ("deepseek-v3", "h200", ["--tp", "8", "--weights", "fp8"], {"tp": 8, "weights": "fp8"}),
    ("qwen3-32b", "h100-sxm", ["--max-context", "131072"], {"max_context": 131072}),
])
def test_ridge_equals_cli(model, hardware, extra, kwargs):
    rows = cli_json("ridge", "-m", model, "-H", hardware, "-c", "0,128,512,848,4096,100000" if kwargs.get("max_context") else "0,128,512,848,4096",
                    *extra)
    for row in rows:
        same_row(ridgeline.ridge(model, hardware, row["context_tokens"], **kwargs), row)


@needs_cli
@pytest.mark.parametrize("model,extra,kwargs", [
    ("llama-3.1-70b", [], {}),
    ("gpt-oss-120b", ["--reserve-gib", "2", "--kv", "fp8"], {"runtime_reserve_bytes": 2 * 2**30, "kv": "fp8"}),
    ("qwen3-next-80b-a3b", ["--dp", "2"], {"dp": 2}),
    ("qwen3-30b-a3b", ["--attention-dp", "tp"], {"attention_dp": "tp"}),
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
@pytest.mark.parametrize("model,hardware,batch,context,measured,extra,kwargs", [
    # Near the ceiling, below it, above it (seed 001's 70 tok/s), by rate and by time per token.
    ("llama-3.1-8b", "h100-sxm", 1, 4096, ["--measured-tok-s", "210"], [], {"measured_tokens_per_s": 210.0}),
    ("llama-3.1-8b", "h100-sxm", 1, 4096, ["--measured-tok-s", "150"], [], {"measured_tokens_per_s": 150.0}),
    ("llama-3.3-70b", "h100-sxm", 1, 4096, ["--measured-tok-s", "70"], ["--assumptions", "seed_003"],
     {"measured_tokens_per_s": 70.0, "assumptions": "seed_003"}),
    ("qwen3-32b", "h100-sxm", 1, 4096, ["--measured-tpot-ms", "33.333"], ["--assumptions", "seed_003"],
     {"measured_tpot_s": 33.333 * 1e-3, "assumptions": "seed_003"}),
    ("llama-3.1-70b", "h200", 16, 8192, ["--measured-tpot-ms", "9", "--draft-tokens", "6"], ["--tp", "4", "--weights", "fp8"],
     {"measured_tpot_s": 9 * 1e-3, "draft_tokens": 6, "tp": 4, "weights": "fp8"}),
    ("qwen3-30b-a3b", "h200", 64, 2048, ["--measured-tok-s", "1000"], ["--tp", "2", "--ep", "2"],
     {"measured_tokens_per_s": 1000.0, "tp": 2, "ep": 2}),
    # 5,000 tok/s of Llama-3.1-70B at batch 1 on one H100, 207 times its 24.1 tok/s ceiling: two
    # levers have no value, and each says why (min_devices_why, min_acceptance_why).
    ("llama-3.1-70b", "h100-sxm", 1, 0, ["--measured-tok-s", "5000"], [], {"measured_tokens_per_s": 5000.0}),
])
def test_diagnose_equals_cli(model, hardware, batch, context, measured, extra, kwargs):
    theirs = cli_json("diagnose", "-m", model, "-H", hardware, "-b", str(batch), "-c", str(context), *measured, *extra)
    ours = ridgeline.diagnose(model, hardware, batch, context, **kwargs)
    same_row(ours, theirs)
    # Each lever with no value says why, as the CLI's JSON does.
    for key in ("max_bits_per_weight", "min_devices", "min_acceptance"):
        assert (key in ours and ours[key] is None) == (key + "_why" in ours)
        assert (key + "_why" in ours) == (key + "_why" in theirs)


def test_diagnose_says_why_a_lever_has_no_value():
    # As the CLI's case "diagnose's JSON says why a lever has no value": more than g + 1 = 5
    # tokens a step is past what four drafts give, and no split's links are that fast.
    r = ridgeline.diagnose("llama-3.1-70b", "h100-sxm", 1, 0, measured_tokens_per_s=5000.0)
    assert r["min_devices"] is None
    assert r["min_devices_why"] == "no tensor-parallel degree up to 1,024 is that fast and fits: its links' time grows with the degree"
    assert r["min_acceptance"] is None
    assert r["min_acceptance_why"] == "more than g + 1 tokens a step"


@needs_cli
@pytest.mark.parametrize("model,hardware,calibration,batch,context,extra,kwargs", [
    ("llama-3.1-8b", "h100-sxm", "tensorrt-llm-h100-sxm", 64, 4096, [], {}),
    ("llama-2-7b", "a100-80gb", "torchao-a100-80gb", 1, 5, [], {}),
    ("llama-3.1-70b", "h200", "sglang-h200", 8, 2048, ["--tp", "4", "--weights", "fp8"], {"tp": 4, "weights": "fp8"}),
    # A calibration fitted on another device: the same record (the note is the table's only).
    ("qwen3-8b", "h100-sxm", "vllm-a100-80gb", 32, 1024, [], {}),
])
def test_predict_equals_cli(model, hardware, calibration, batch, context, extra, kwargs):
    theirs = cli_json("predict", "-m", model, "-H", hardware, "-b", str(batch), "-c", str(context), "--calibration", calibration, *extra)
    same_row(ridgeline.predict(model, hardware, batch, context, calibration=calibration, **kwargs), theirs)


@needs_cli
def test_predict_without_hardware_is_on_the_calibrations_device():
    # As the CLI without -H: torchao's preset was fitted on the A100 80GB.
    theirs = cli_json("predict", "-m", "llama-2-7b", "-b", "1", "-c", "5", "--calibration", "torchao-a100-80gb")
    ours = ridgeline.predict("llama-2-7b", batch=1, context=5, calibration="torchao-a100-80gb")
    assert ours["hardware"] == "a100-80gb"
    same_row(ours, theirs)


def test_diagnose_names_a_misspelt_measurement():
    # The CLI's flag name, not a keyword: a TypeError naming it, not "got none" for the other two.
    with pytest.raises(TypeError, match="unexpected keyword argument 'measured_tpot_ms'"):
        ridgeline.diagnose("llama-3.1-8b", "h100-sxm", 1, 4096, measured_tpot_ms=10)


def test_plan_times_are_each_devices_terms():
    # A calibration's terms, as its preset file holds them (an absent term is 0).
    preset = json.loads((pathlib.Path(os.environ["RIDGELINE_DATA_DIR"]) / "efficiency" / "vllm-h100-sxm.json").read_text())
    times = ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], users=16, calibration="vllm-h100-sxm")["times"]
    assert [t["hardware"] for t in times] == ["h100-sxm"] and times[0]["source"].startswith("vLLM on h100-sxm")
    for key in ("bandwidth_efficiency", "compute_efficiency", "overhead_s", "per_layer_s", "per_moe_layer_s", "per_sequence_s",
                "per_message_s"):
        assert times[0][key] == (preset.get(key) or 0.0), key
    assert times[0]["kv_per_query_head"] is preset["kv_per_query_head"]
    assert times[0]["activation_traffic"] is preset["activation_traffic"]
    # Without one, each device's are the request's own: the ceilings, with no source.
    times = ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm", "h200"], users=16)["times"]
    assert times == [{"hardware": h, "source": None, "bandwidth_efficiency": 1.0, "compute_efficiency": 1.0, "overhead_s": 0.0,
                      "per_layer_s": 0.0, "per_moe_layer_s": 0.0, "per_sequence_s": 0.0, "per_message_s": 0.0, "kv_per_query_head": False,
                      "activation_traffic": False}
                     for h in ("h100-sxm", "h200")]


@needs_cli
def test_predict_takes_the_preset_calibrate_returns(tmp_path):
    # calibrate()'s 'preset' is what `calibrate --save` writes: predict reads it as the CLI reads the file.
    saved = tmp_path / "fit.json"
    cli_json("calibrate", "--measurements", "gpt-fast", "--save", str(saved))
    preset = ridgeline.calibrate("gpt-fast")["preset"]
    theirs = cli_json("predict", "-m", "llama-2-7b", "-H", "a100-80gb", "-b", "1", "-c", "512", "--calibration", str(saved))
    same_row(ridgeline.predict("llama-2-7b", "a100-80gb", 1, 512, calibration=preset), theirs)
    # A bad term is refused at its JSON path, as the CLI refuses the same file (named "calibration").
    bad = dict(preset, bandwidth_efficiency=2)
    saved.write_text(json.dumps(bad))
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.predict("llama-2-7b", "a100-80gb", 1, 512, calibration=bad)
    assert str(e.value).replace("calibration: ", str(saved) + ": ", 1) == cli_error(
        "predict", "-m", "llama-2-7b", "-H", "a100-80gb", "--calibration", str(saved))
    with pytest.raises(ridgeline.Error, match="^calibration: got a dict JSON cannot hold"):
        ridgeline.predict("llama-2-7b", "a100-80gb", 1, 512, calibration=dict(preset, overhead_s=float("nan")))
    with pytest.raises(TypeError, match="calibration must be a preset name or path"):
        ridgeline.predict("llama-2-7b", "a100-80gb", 1, 512, calibration=3)


@needs_cli
@pytest.mark.parametrize("extra,kwargs", [
    ([], {}),
    (["--model", "llama-2-7b", "--where", "weights=int8"], {"model": "llama-2-7b", "where": {"weights": "int8"}}),
    (["--per-layer"], {"per_layer": True}),
    (["--per-moe-layer"], {"per_moe_layer": True}),
    (["--per-sequence"], {"per_sequence": True}),
    (["--per-message"], {"per_message": True}),
    (["--hold-compute"], {"hold_compute": True}),
])
def test_calibrate_equals_cli_on_gpt_fast(tmp_path, extra, kwargs):
    saved = tmp_path / "fit.json"
    theirs = cli_json("calibrate", "--measurements", "gpt-fast", "--save", str(saved), *extra)
    ours = ridgeline.calibrate("gpt-fast", **kwargs)
    assert list(ours) == ["rows", "preset", "devices_passed_over", "set_aside", "flagged"]
    assert list(theirs) == list(ours)  # the CLI's JSON is the same object
    assert ours["set_aside"] == theirs["set_aside"] == [] and ours["flagged"] == theirs["flagged"] == []
    # gpt-fast.json's last row is on an MI250X; unasked, the fit is the first row's A100 (a
    # filter to Llama-2-7B int8 leaves none on it).
    passed_over = [] if "model" in kwargs else ["mi250x"]
    assert ours["devices_passed_over"] == theirs["devices_passed_over"] == passed_over
    same_rows(ours["rows"], theirs["rows"])
    preset = json.loads(saved.read_text())
    assert ours["preset"] == preset == theirs["preset"]
    same_row(ours["preset"], preset)


@needs_cli
def test_calibrate_equals_cli_on_published_rows(tmp_path):
    for engine, hardware, where in (("TensorRT-LLM", "h100-sxm", []), ("vLLM", "", ["tp=1"]), ("llama.cpp", "rtx-4090", [])):
        saved = tmp_path / "fit.json"
        args = ["calibrate", "--measurements", "published", "--engine", engine, "--save", str(saved)]
        args += ["-H", hardware] if hardware else []
        for w in where:
            args += ["--where", w]
        theirs = cli_json(*args)
        ours = ridgeline.calibrate("published", engine=engine, hardware=hardware or None, where=where)
        same_rows(ours["rows"], theirs["rows"])
        assert ours["preset"] == json.loads(saved.read_text()) == theirs["preset"]
    # A file by path, with a row faster than its ceiling set aside (fitted: false).
    bad = os.path.join(ROOT, "tests/data/bad/measurements-faster-than-ceiling.json")
    ours = ridgeline.calibrate(bad)
    theirs = cli_json("calibrate", "--measurements", bad)
    same_rows(ours["rows"], theirs["rows"])
    assert not all(r["fitted"] for r in ours["rows"])
    # Each row set aside, and why, as the table's "set aside" lines say it.
    assert ours["set_aside"] == theirs["set_aside"]
    assert len(ours["set_aside"]) == sum(not r["fitted"] for r in ours["rows"])
    assert all(x.startswith("/measurements/") and "faster than" in x for x in ours["set_aside"])
    # A row the file flags is never fitted, and said.
    flagged = ridgeline.calibrate("published", engine="TensorRT-LLM", hardware="h200")["flagged"]
    assert flagged == cli_json("calibrate", "--measurements", "published", "--engine", "TensorRT-LLM", "-H", "h200")["flagged"]
    assert len(flagged) >= 1 and flagged[0].startswith("/measurements/")


def test_calibrate_past_500_rows_says_why_leave_one_out_is_missing():
    out = ridgeline.calibrate(os.path.join(ROOT, "tests/data/measurements-501-rows.json"))
    assert out["preset"]["leave_one_out"] == {"median": None, "worst": None}
    assert out["leave_one_out_not_run"] == "not run: 501 rows, over 500 (one fit per row; filter the rows to have it)"
    assert "leave_one_out_not_run" not in ridgeline.calibrate("gpt-fast")


@needs_cli
def test_calibrate_holds_a_compute_efficiency_that_does_not_pay_as_the_cli_does():
    # TensorRT-LLM's six L40S rows with their activations on chip: free, the compute efficiency
    # is short of Akaike's penalty (exp(-1/6) = 0.85 of the held fit's rms error), so it is held;
    # fit_compute=True fits it. (Through memory, the default, it stays at 100% free: tests/cli.)
    for extra, kwargs in (([], {}), (["--fit-compute"], {"fit_compute": True}), (["--activations-on-chip"], {"activations_on_chip": True})):
        theirs = cli_json("calibrate", "--measurements", "published", "--engine", "TensorRT-LLM", "-H", "l40s", *extra)
        ours = ridgeline.calibrate("published", engine="TensorRT-LLM", hardware="l40s", **kwargs)
        assert ours["preset"] == theirs["preset"]
    assert ridgeline.calibrate("published", engine="TensorRT-LLM", hardware="l40s")["preset"]["activation_traffic"] is True
    held = ridgeline.calibrate("published", engine="TensorRT-LLM", hardware="l40s", activations_on_chip=True)["preset"]
    assert held["activation_traffic"] is False
    assert held["compute_efficiency"] == 1.0 and held["compute_term"] and held["compute_pays"]
    assert held["compute_basis"].startswith("held: fitted, ")
    free = ridgeline.calibrate("published", engine="TensorRT-LLM", hardware="l40s", fit_compute=True, activations_on_chip=True)["preset"]
    assert free["compute_efficiency"] < 1.0 and free["compute_term"] and "compute_pays" not in free and "compute_basis" not in free
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.calibrate("published", engine="TensorRT-LLM", hardware="l40s", fit_compute=True, hold_compute=True)
    assert str(e.value) == "fit_compute: got True, expected not with hold_compute=True (one holds the compute efficiency, the other fits it)"


@needs_cli
def test_plan_takes_calibrations_as_the_cli_does():
    theirs = cli_json("plan", "-m", "llama-3.1-8b", "--calibration", "vllm-h100-sxm,vllm-h200", "--users", "16", "--top", "5")
    ours = ridgeline.plan("llama-3.1-8b", calibration=["vllm-h100-sxm", "vllm-h200"], users=16, top=5)
    assert ours == theirs
    # A calibration of 50% of the bandwidth, 80% of the FLOPs and 3 ms a step gives the plans
    # those terms given to the request give, row for row.
    terms = os.path.join(ROOT, "tests/data/efficiency-h100-test-terms.json")
    calibrated = ridgeline.plan("llama-3.1-8b", calibration=pathlib.Path(terms), users=16, top=50)
    stated = ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", efficiency=0.5, compute_efficiency=0.8, overhead_s=0.003, users=16, top=50)
    assert calibrated["plans"] == stated["plans"] and calibrated["plans"]
    for kwargs, expected in [
        (dict(calibration="vllm-h1000"), "calibration: got \"vllm-h1000\", expected an efficiency preset (closest first: "),
        (dict(calibration="vllm-h100-sxm", hardware="h200"),
         "calibration: got 'vllm-h100-sxm', expected one for each device of hardware and no other "
         "(vllm-h100-sxm is fitted on h100-sxm, not a device of hardware: 'h200')"),
        (dict(calibration="vllm-h100-sxm", efficiency=0.5),
         "calibration: got 'vllm-h100-sxm', expected no efficiency, compute_efficiency or overhead_s beside it (it gives each device's times)"),
        (dict(calibration=["vllm-h100-sxm", "tensorrt-llm-h100-sxm"]),
         "calibration: got ['vllm-h100-sxm', 'tensorrt-llm-h100-sxm'], expected one calibration a device "
         "(vllm-h100-sxm and tensorrt-llm-h100-sxm are both fitted on h100-sxm)"),
    ]:
        with pytest.raises(ridgeline.Error) as e:
            ridgeline.plan("llama-3.1-8b", users=16, **kwargs)
        assert str(e.value).startswith(expected) if expected.endswith(": ") else str(e.value) == expected


@needs_cli
def test_the_shipped_efficiency_preset_is_what_calibrate_makes():
    # data/efficiency/tensorrt-llm-h100-sxm.json was written by `calibrate --save` (with
    # --per-message and --hold-compute, as the preset records): the module's preset for the same
    # filters is that file.
    with open(os.path.join(ROOT, "data/efficiency/tensorrt-llm-h100-sxm.json")) as f:
        shipped = json.load(f)
    assert shipped["per_message_term"] and not shipped["per_layer_term"] and not shipped["compute_term"]
    ours = ridgeline.calibrate("published", engine="TensorRT-LLM", hardware="h100-sxm", per_message=True, hold_compute=True)["preset"]
    assert ours == shipped


@needs_cli
@pytest.mark.parametrize("target", ["h100-sxm", "mi300x", "deepseek-v3", "gpt-oss-120b", "qwen3-next-80b-a3b",
                                    "data/hardware/h200.json", "data/models/llama-3.1-8b.json"])
def test_show_equals_cli(target):
    theirs = cli_json("show", target)
    ours = ridgeline.show(os.path.join(ROOT, target) if target.startswith("data/") else target)
    if target.startswith("data/models"):
        # A file's model is named by the file's path, which differs here; the rest is the same.
        assert ours.pop("name").endswith(theirs.pop("name"))
    same_row(ours, theirs)


@needs_cli
def test_model_and_list_equal_cli():
    for model in ("gpt-oss-120b", "llama-3.1-8b", "deepseek-v3"):
        same_rows(ridgeline.model_formats(model), cli_json("model", "-m", model))
    names = {"hardware": ridgeline.list_hardware(), "models": ridgeline.list_models(), "efficiency": ridgeline.list_efficiency(),
             "drafts": ridgeline.list_drafts()}
    for kind in ("hardware", "models", "drafts", "efficiency"):
        same_rows(ridgeline.list_presets(kind), cli_json("list", kind))
        assert [r["name"] for r in ridgeline.list_presets(kind)] == names[kind]


@needs_cli
def test_plan_equals_cli():
    theirs = cli_json("plan", "-m", "llama-3.1-70b", "-H", "h100-sxm,h200", "--prompt", "8192", "--cached-prompt", "7936",
                      "--output", "512", "--users", "64", "--tpot-ms", "30", "--price", "h100-sxm=2.50,h200=3.50",
                      "--max-devices", "16", "--top", "10")
    # 30 * 1e-3: the CLI's ms(30), the same double.
    ours = ridgeline.plan("llama-3.1-70b", hardware=["h100-sxm", "h200"], prompt=8192, cached_prompt=7936, output=512, users=64,
                          tpot_s=30 * 1e-3, prices={"h100-sxm": 2.50, "h200": 3.50}, max_devices=16, top=10)
    assert ours == theirs
    assert list(ours) == list(theirs) == ["model", "verdict", "evaluated", "assumptions", "notes", "times", "plans", "pareto"]
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


@needs_cli
def test_plan_with_prefill_apart_equals_cli():
    theirs = cli_json("plan", "-m", "llama-3.1-8b", "-H", "h100-sxm", "--users", "8", "--mode", "apart", "--top", "3")
    ours = ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", users=8, mode="apart", top=3)
    assert ours == theirs
    assert {row["mode"] for row in ours["plans"]} == {"prefill-apart"}
    assert ours["verdict"].endswith("(the only mode searched)")


@needs_cli
def test_plan_with_an_itl_target_equals_cli():
    theirs = cli_json("plan", "-m", "llama-3.1-8b", "-H", "h100-sxm", "--users", "2", "--prompt", "100000", "--output", "10",
                      "--mode", "apart", "--weights", "bf16", "--itl-ms", "500", "--top", "3")
    ours = ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", users=2, prompt=100000, output=10, mode="apart", weights=["bf16"],
                          itl_s=500 * 1e-3, top=3)
    assert ours == theirs
    # One replica would make a user wait for the other's whole 4-second prefill (test_plan.cpp).
    assert ours["plans"][0]["replicas"] == 2
    assert ours["plans"][0]["max_itl_s"] < 0.5
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", users=2, output=1, itl_s=0.5)
    assert (e.value.path, e.value.value) == ("itl_s", "0.5")  # in seconds, as given


@needs_cli
def test_plan_with_efficiencies_equals_cli():
    theirs = cli_json("plan", "-m", "llama-3.1-8b", "-H", "h100-sxm", "--users", "8", "--efficiency", "0.8",
                      "--compute-efficiency", "0.5", "--top", "3")
    ours = ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", users=8, efficiency=0.8, compute_efficiency=0.5, top=3)
    assert ours == theirs
    assert "times: at 0.80 of peak bandwidth, 0.50 of peak FLOPs and 0.0 us a step" in ours["assumptions"]
    with pytest.raises(ridgeline.Error, match=r"^compute_efficiency: got 2, expected a fraction in \[1e-6, 1\]$"):
        ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", users=8, compute_efficiency=2)


@needs_cli
def test_plan_with_a_list_of_modes_equals_cli():
    theirs = cli_json("plan", "-m", "llama-3.1-8b", "-H", "h100-sxm", "--users", "8", "--mode", "agg,apart", "--top", "4")
    ours = ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", users=8, mode="agg,apart", top=4)
    assert ours == theirs
    assert {row["mode"] for row in ours["plans"]} == {"aggregated", "prefill-apart"}
    # Each mode's, the formats' (plan tries fp8 beside the checkpoint by default), what the times are.
    assert [a.split(":")[0] for a in ours["assumptions"]] == ["aggregated", "prefill-apart", "weights", "times"]
    assert ours["assumptions"][-1] == "times: ceilings (peak bandwidth and FLOPs, no overhead a step)"
    assert ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", users=8, mode=["agg", "apart"], top=4) == ours
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", users=8, mode="agg,fast")
    assert (e.value.path, e.value.value, e.value.expected) == ("mode", "agg,fast", "agg, apart, disagg or both, comma-separated")


# ---------------------------------------------------------------------------------------------
# prefill and speculative decoding (no CLI subcommand: hand calculations, and the CLI's rows for
# the parts they share), and operators
# ---------------------------------------------------------------------------------------------

# Llama-3.1-8B (data/models/llama-3.1-8b.json): 32 layers, hidden 4096, 32 query heads and 8 KV
# heads of 128, MLP 14336, vocabulary 128256, untied. Parameters a token runs through, each
# charged 2 FLOPs: per layer q and o 4096 x 4096, k and v 4096 x 1024, gate, up and down
# 3 x 4096 x 14336, and two norms of 4096, so 32 x 218,112,000 = 6,979,584,000; the final norm
# 4096; the LM head 4096 x 128256 = 525,336,576; in all 7,504,924,672 (the 8,030,261,248 of the
# model less the input embedding table, a lookup, which the physical assumptions do not charge).
LLAMA_8B_CHARGED = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 4096 + 4096 * 128256


def test_prefill_llama_8b_by_hand():
    row = ridgeline.prefill("llama-3.1-8b", "h100-sxm", prompt=4096)
    # Weights: 2 FLOPs per charged parameter per token. Attention: query i sees i + 1 tokens, so
    # 4096 x 4097 / 2 query-key pairs, each 2 x 128 FLOPs for q.k and 2 x 128 for p.v in each of
    # 32 heads of 32 layers.
    pairs = 4096 * 4097 // 2
    attention = pairs * (2 * 128 + 2 * 128) * 32 * 32
    assert row["attention_score_flops"] == attention
    assert LLAMA_8B_CHARGED == 8_030_261_248 - 128256 * 4096
    # The LM head runs only for the last token, which the prompt samples (as engines run it).
    head = 4096 * 128256
    flops = 2 * (LLAMA_8B_CHARGED - head) * 4096 + 2 * head + attention
    assert row["flops"] == pytest.approx(flops, rel=1e-12)
    # Compute-bound: the time is the FLOPs at the H100's 989 TFLOP/s (seed 003's F).
    assert row["bound"] == "compute"
    assert row["time_to_first_token_s"] == pytest.approx(flops / 989e12, rel=1e-12)
    assert (row["prompt_tokens"], row["chunks"], row["chunk_tokens"], row["cached_prompt_tokens"]) == (4096, 1, 4096, 0)


@needs_cli
def test_prefill_is_generates_first_token():
    # generate's TTFT is the prefill's time: the CLI's row against the module's prefill.
    for chunk in (0, 512):
        theirs = cli_json("generate", "-m", "qwen3-32b", "-H", "h200", "--tp", "2", "--prompt", "8192", "--new", "1", "--chunk", str(chunk),
                          "-b", "4")[0]
        ours = ridgeline.prefill("qwen3-32b", "h200", prompt=8192, batch=4, chunk=chunk, tp=2)
        assert ours["time_to_first_token_s"] == theirs["time_to_first_token_s"]
        same_row({k: ours[k] for k in list(ours)[:INPUTS]}, {k: theirs[k] for k in list(theirs)[:INPUTS]})  # the inputs echoed


def test_speculative_by_hand():
    # Four drafts accepted each with probability 0.8: 1 + 0.8 + 0.8^2 + 0.8^3 + 0.8^4 = 3.3616
    # tokens per verification.
    row = ridgeline.speculative("llama-3.1-70b", "h200", batch=1, context=4096, draft_tokens=4, acceptance=0.8, tp=2)
    assert row["expected_tokens_per_verification"] == pytest.approx(3.3616, abs=1e-12)
    # The plain step is decode's (the CLI's row, tests above); a free draft costs nothing.
    plain = ridgeline.decode("llama-3.1-70b", "h200", 1, 4096, tp=2)
    assert row["plain_step_time_s"] == plain["step_time_s"]
    assert row["draft_time_s"] == 0 and row["draft_model"] is None
    # Memory-bound at batch 1: verifying 5 tokens reads what one does, so the speedup is nearly 3.3616.
    assert 3.0 < row["speedup"] <= 3.3616
    # A draft model runs 4 steps split as the target is (vLLM's default draft degree): 4 of its
    # own decode steps at TP 2; draft_tp=1 puts it on one device.
    drafted = ridgeline.speculative("llama-3.1-70b", "h200", batch=1, context=4096, draft="llama-3.1-8b", tp=2)
    assert drafted["draft_model"] == "llama-3.1-8b" and drafted["draft_tp"] == 2
    assert drafted["draft_time_s"] == pytest.approx(4 * ridgeline.decode("llama-3.1-8b", "h200", 1, 4096, tp=2)["step_time_s"], rel=1e-12)
    alone = ridgeline.speculative("llama-3.1-70b", "h200", batch=1, context=4096, draft="llama-3.1-8b", tp=2, draft_tp=1)
    assert alone["draft_tp"] == 1
    assert alone["draft_time_s"] == pytest.approx(4 * ridgeline.decode("llama-3.1-8b", "h200", 1, 4096)["step_time_s"], rel=1e-12)
    # The draft's memory is the target's too: on one device, all of Llama-3.1-8B's 8,030,261,248
    # bf16 parameters and its cache of 4,096 + 3 tokens at 131,072 B a token (32 layers x 8 KV
    # heads x 128 x K and V x 2 B; its config.json).
    assert alone["memory_per_device_bytes"] - row["memory_per_device_bytes"] == pytest.approx(
        2 * 8_030_261_248 + 4_099 * 131_072, rel=1e-12)
    assert row["draft_tp"] is None


@needs_cli
def test_speculative_cli_equals_python():
    for extra, kwargs in (([], {}), (["--draft", "llama-3.1-8b"], {"draft": "llama-3.1-8b"}),
                          (["--draft", "llama-3.1-8b", "--draft-tp", "1"], {"draft": "llama-3.1-8b", "draft_tp": 1})):
        theirs = cli_json("speculative", "-m", "llama-3.1-70b", "-H", "h200", "--tp", "2", "-b", "1", "-c", "4096", *extra)
        assert len(theirs) == 1
        same_row(ridgeline.speculative("llama-3.1-70b", "h200", batch=1, context=4096, tp=2, **kwargs), theirs[0])
    # MTP drafting: DeepSeek-V3's own module, the CLI's row; a model without modules refused alike.
    theirs = cli_json("speculative", "-m", "deepseek-v3", "-H", "h200", "--tp", "8", "-b", "64", "-c", "4096", "--draft", "mtp")
    ours = ridgeline.speculative("deepseek-v3", "h200", batch=64, context=4096, tp=8, draft="mtp")
    same_row(ours, theirs[0])
    assert ours["draft_model"] == "mtp" and ours["draft_tp"] == 8 and ours["draft_time_s"] > 0
    # The target's degree named outright is the same split, as the CLI's --draft-tp 8 reads it.
    theirs = cli_json("speculative", "-m", "deepseek-v3", "-H", "h200", "--tp", "8", "-b", "64", "-c", "4096", "--draft", "mtp",
                      "--draft-tp", "8")
    same_row(ridgeline.speculative("deepseek-v3", "h200", batch=64, context=4096, tp=8, draft="mtp", draft_tp=8), theirs[0])
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.speculative("llama-3.1-70b", "h200", 1, 0, draft="mtp")
    assert "--" + str(e.value) == cli_error("speculative", "-m", "llama-3.1-70b", "--draft", "mtp")
    assert e.value.path == "draft"
    # An EAGLE-3 head, by preset name or by its config.json's path: the CLI's row; refused alike.
    for head in ("eagle3-llama-3.1-8b", pathlib.Path(os.environ["RIDGELINE_DATA_DIR"]) / "drafts" / "eagle3-llama-3.1-8b.json"):
        theirs = cli_json("speculative", "-m", "llama-3.1-8b", "-H", "h100-sxm", "--tp", "2", "-b", "8", "-c", "4096", "--draft",
                          str(head), "--draft-tokens", "5")
        ours = ridgeline.speculative("llama-3.1-8b", "h100-sxm", batch=8, context=4096, tp=2, draft=head, draft_tokens=5)
        same_row(ours, theirs[0])
        assert ours["draft_model"] == "eagle3-llama-3.1-8b" and ours["draft_tp"] == 2 and ours["draft_time_s"] > 0
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.speculative("llama-3.1-8b", "h200", 1, 0, draft="eagle3-llama-3-70b")
    assert "--" + str(e.value) == cli_error("speculative", "-m", "llama-3.1-8b", "--draft", "eagle3-llama-3-70b")
    assert e.value.path == "draft"
    # A tree (SGLang's topk and num_draft_tokens) with its mean accepted tokens: the CLI's row, and
    # a tree without them refused alike, by the keyword's name.
    theirs = cli_json("speculative", "-m", "llama-3.1-8b", "-H", "h100-sxm", "-b", "8", "-c", "4096", "--draft", "eagle3-llama-3.1-8b",
                      "--draft-tokens", "5", "--tree-width", "8", "--verify-tokens", "32", "--accept-length", "4.5")
    ours = ridgeline.speculative("llama-3.1-8b", "h100-sxm", batch=8, context=4096, draft="eagle3-llama-3.1-8b", draft_tokens=5,
                                 tree_width=8, verify_tokens=32, accept_length=4.5)
    same_row(ours, theirs[0])
    assert (ours["tree_width"], ours["verified_tokens"], ours["acceptance"], ours["expected_tokens_per_verification"]) == (8, 32, None, 4.5)
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.speculative("llama-3.1-8b", "h200", 1, 0, tree_width=8, verify_tokens=32)
    assert e.value.path == "accept_length"
    assert "--accept-length" + str(e.value)[len("accept_length"):] == cli_error(
        "speculative", "-m", "llama-3.1-8b", "-H", "h200", "--tree-width", "8", "--verify-tokens", "32")
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.speculative("llama-3.1-8b", "h200", 1, 0, acceptance=0.7, accept_length=3)
    assert e.value.path == "accept_length"
    assert str(e.value).replace("accept_length", "--accept-length").replace(" acceptance:", " --acceptance:").replace(
        "got 3,", 'got "3",') == cli_error("speculative", "-m", "llama-3.1-8b", "--acceptance", "0.7", "--accept-length", "3")


@needs_cli
@pytest.mark.parametrize("model,extra,kwargs", [
    ("llama-3.1-8b", [], {}),
    ("qwen3-30b-a3b", ["--tp", "2", "--ep", "2"], {"tp": 2, "ep": 2}),
    ("deepseek-v3", ["--tp", "8", "--weights", "fp8"], {"tp": 8, "weights": "fp8"}),
    ("gpt-oss-120b", ["--kv", "fp8", "--attention-flops", "off"], {"kv": "fp8", "attention_flops": False}),
])
def test_operators_equal_cli(model, extra, kwargs):
    theirs = cli_json("operators", "-m", model, "-H", "h200", "-b", "1,16", "-c", "0,4096", *extra)
    ours = [row for b in (1, 16) for n in (0, 4096) for row in ridgeline.operators(model, "h200", b, n, **kwargs)]
    same_rows(ours, theirs)


def test_operators_add_up_to_the_step():
    # operators.hpp: the operators' bytes add up to the step's exactly (per device; decode's
    # bytes_per_step counts the tp x pp devices). Under expert parallelism the operators are the
    # busiest device's, and bytes_per_step the total, each device its mean share (decode.hpp).
    for model, kwargs in (("llama-3.1-8b", {}), ("qwen3-30b-a3b", {"tp": 2, "ep": 2}), ("deepseek-v3", {"tp": 8, "weights": "fp8"})):
        ops = ridgeline.operators(model, "h200", batch=16, context=4096, **kwargs)
        step = ridgeline.decode(model, "h200", 16, 4096, **kwargs)
        devices = step["tp"] * step["pp"]
        if "ep" in kwargs:
            assert sum(o["bytes"] for o in ops) > step["bytes_per_step"] / devices * (1 + 1e-3)
        else:
            assert sum(o["bytes"] for o in ops) == pytest.approx(step["bytes_per_step"] / devices, rel=1e-12)
        # Each operator's own roofline time: together at least the step's roofline, which is the
        # step's time less its links (one stage, no overhead).
        assert sum(o["time_s"] for o in ops) >= (step["step_time_s"] - step["communication_time_s"]) * (1 - 1e-12)
        assert all(list(o)[:INPUTS + 2] == list(step)[:INPUTS + 2] for o in ops)  # the inputs, batch and context echoed
    names = [o["operator"] for o in ridgeline.operators("llama-3.1-8b", "h100-sxm")]
    assert names[0] == "embeddings (rows)" and names[-1] == "lm_head"


# ---------------------------------------------------------------------------------------------
# Errors: ridgeline.Error, a ValueError carrying the C++ error's parts; no NaN
# ---------------------------------------------------------------------------------------------

def test_batch_zero_is_the_library_error():
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", batch=0, context=4096)
    assert isinstance(e.value, ValueError)
    assert str(e.value) == "batch: got 0, expected an integer from 1 to 2^40"  # workload.hpp's validate
    assert (e.value.file, e.value.path, e.value.value, e.value.expected) == ("", "batch", "0", "an integer from 1 to 2^40")


def in_flag_terms(message, flag):
    """The library's "model preset: got X, expected one of (closest first): LIST" as the CLI words
    it, named by its flag: "--model: got X, expected a model preset (closest first: LIST) or a JSON file"."""
    kind, rest = message.split(": got ", 1)
    got, names = rest.split(", expected one of (closest first): ", 1)
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{flag}: got {got}, expected {article} {kind} (closest first: {names}) or a JSON file"


@needs_cli
def test_unknown_preset_says_what_the_cli_says():
    # Python names no flag: the library's message, which the CLI words with the flag it came from.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.load_model("no-such-model")
    assert in_flag_terms(str(e.value), "--model") == cli_error("decode", "-m", "no-such-model")
    assert e.value.value == '"no-such-model"'
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "no-such-device")
    assert in_flag_terms(str(e.value), "--hardware") == cli_error("decode", "-m", "llama-3.1-8b", "-H", "no-such-device")
    # A keyword whose preset kind does not name it (a draft is a model preset) is named itself, in
    # the CLI's words for its flag.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.predict("llama-3.1-8b", "h100-sxm", calibration="no-such-engine")
    assert "--" + str(e.value) == cli_error("predict", "-m", "llama-3.1-8b", "--calibration", "no-such-engine")
    assert e.value.path == "calibration" and e.value.value == '"no-such-engine"'
    assert e.value.expected.startswith("an efficiency preset (closest first: ")
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.speculative("llama-3.1-70b", "h100-sxm", 1, 0, draft="no-such-model")
    assert "--" + str(e.value) == cli_error("speculative", "-m", "llama-3.1-70b", "--draft", "no-such-model")
    assert e.value.path == "draft" and e.value.expected.startswith("a model or draft-head preset (closest first: ")
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.calibrate("no-such-set")
    assert "--" + str(e.value) == cli_error("calibrate", "--measurements", "no-such-set")
    assert e.value.path == "measurements" and e.value.expected.startswith("a measurement set (closest first: ")


@needs_cli
def test_v100_computes_in_fp16_unless_asked():
    # vLLM casts a bf16 checkpoint to fp16 below compute capability 8.0 (hardware.hpp cites it).
    # Batch 1, context 0: Llama-3.1-8B's 8,030,261,248 parameters less its 128,256 x 4,096 input
    # table in 2 bytes, plus one 8,192 B row, over the V100's 900 GB/s.
    row = ridgeline.decode("llama-3.1-8b", "v100")
    assert row["compute"] == "fp16"
    assert row["formats_source"] == ("the checkpoint: torch_dtype bfloat16; compute fp16 "
                                     "(NVIDIA V100 SXM2 32GB has no bf16 peak: engines run 16-bit models in fp16 there)")
    assert row["step_time_s"] == pytest.approx(((8_030_261_248 - 128_256 * 4_096) * 2 + 8_192) / 900e9, rel=1e-12)
    same_row(row, cli_json("decode", "-m", "llama-3.1-8b", "-H", "v100")[0])
    np = pytest.importorskip("numpy")
    same_row(sweep_row(ridgeline.decode_sweep("llama-3.1-8b", "v100", [1], [0]), 0), row)
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "v100", compute="bf16")
    assert e.value.value == "bf16"
    # A Workload says None where no compute format was given, as it does for weights.
    assert ridgeline.Workload().compute is None and ridgeline.Workload(compute="fp8").compute == "fp8"
    assert ridgeline.decode("llama-3.1-8b", "v100", workload=ridgeline.Workload())["compute"] == "fp16"


def test_context_past_the_model_and_bad_degrees():
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", context=200000)
    assert e.value.path == "context" and e.value.value == "200000"
    assert "max_position_embeddings (131072)" in e.value.expected
    assert e.value.expected.endswith("raise it with max_context= or Model.with_max_context where the model allows more")
    assert ridgeline.decode("llama-3.1-8b", "h100-sxm", context=200000, max_context=262144)["context_tokens"] == 200000
    # max_context= raises the limit, as --max-context does; below the model's own 131072 it is refused
    # in both, for one setting and for a sweep.
    for call in (lambda: ridgeline.decode("llama-3.1-8b", "h100-sxm", context=100, max_context=50),
                 lambda: ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [100], max_context=50)):
        with pytest.raises(ridgeline.Error) as e:
            call()
        assert e.value.path == "max_context" and e.value.value == "50"
        assert e.value.expected == ("at least the limit of model 'llama-3.1-8b' itself, 131072 tokens (max_position_embeddings): "
                                    "max_context= raises it")
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("qwen3-30b-a3b", "h100-sxm", tp=2, ep=4)
    # Named by the keyword the caller typed, not the library's words for it.
    assert str(e.value) == "ep: got 4, expected a divisor of tp (2)"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.Deployment("h100-sxm", tp=2, ep=4)
    assert e.value.path == "ep"
    # A format for experts a dense model does not have is refused, as the CLI's --experts is.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", experts="fp8")
    assert str(e.value) == "experts: got fp8, expected no experts format: model 'llama-3.1-8b' has no routed experts"
    oss = ridgeline.decode("gpt-oss-20b", "h100-sxm", experts="fp8")
    assert (oss["weights"], oss["experts"]) == ("bf16", "fp8")
    assert oss["formats_source"].endswith("; --experts fp8")
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("gemma-2-9b", "h100-sxm", lm_head="fp8")
    assert str(e.value) == "lm_head: got fp8, expected no lm_head format: model 'gemma-2-9b' ties its LM head to the input table (use embeddings=)"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", efficiency=float("nan"))
    assert e.value.path == "efficiency"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", weights="int3")
    assert (e.value.path, e.value.value) == ("weights", "int3")
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.plan("llama-3.1-8b", hardware="h100-sxm")
    assert e.value.expected == "exactly one of users and requests_per_s"


def test_a_bool_is_no_count_for_arguments_in_the_signature():
    for call in (lambda: ridgeline.generate("llama-3.1-8b", "h100-sxm", prompt=True),
                 lambda: ridgeline.prefill("llama-3.1-8b", "h100-sxm", prompt=128, chunk=True),
                 lambda: ridgeline.speculative("llama-3.1-8b", "h100-sxm", acceptance="x")):
        with pytest.raises(TypeError):
            call()


def test_bad_inputs_of_every_answer():
    cases = [
        (lambda: ridgeline.diagnose("llama-3.1-8b", "h100-sxm"), "measured_tokens_per_s", "exactly one of measured_tokens_per_s and measured_tpot_s"),
        (lambda: ridgeline.diagnose("llama-3.1-8b", "h100-sxm", measured_tokens_per_s=-3), "measured_tokens_per_s", "a rate in tokens/s from 1e-6 to 1e9"),
        (lambda: ridgeline.diagnose("llama-3.1-8b", "h100-sxm", measured_tokens_per_s=1e300), "measured_tokens_per_s", "a rate in tokens/s from 1e-6 to 1e9"),
        (lambda: ridgeline.diagnose("llama-3.1-8b", "h100-sxm", measured_tpot_s=0.0), "measured_tpot_s", "a time in seconds from 1e-9 to 1e6"),
        (lambda: ridgeline.diagnose("llama-3.1-8b", "h100-sxm", measured_tpot_s=1e-320), "measured_tpot_s", "a time in seconds from 1e-9 to 1e6"),
        (lambda: ridgeline.capacity("llama-3.1-8b", "h100-sxm", batch=8, context=-1), "context", "an integer from 0 to 2^40 tokens (0: no largest batch asked)"),
        (lambda: ridgeline.speculative("llama-3.1-8b", "h100-sxm", acceptance=1.5), "acceptance", "a probability in [0, 1]"),
        (lambda: ridgeline.speculative("llama-3.1-8b", "h100-sxm", draft_tokens=0), "draft_tokens", "an integer from 1 to 1024"),
        (lambda: ridgeline.speculative("llama-3.1-8b", "h100-sxm", tree_width=0), "tree_width", "an integer from 1 to 1024"),
        (lambda: ridgeline.speculative("llama-3.1-8b", "h100-sxm", accept_length=2000), "accept_length", "a mean number of tokens from 1 to 1025"),
        (lambda: ridgeline.speculative("llama-3.1-8b", "h100-sxm", verify_tokens=-1), "verify_tokens", "an integer from 0 to 1025"),
        (lambda: ridgeline.speculative("llama-3.1-8b", "h100-sxm", accept_length=0), "accept_length", "a mean number of tokens from 1 to 1025"),
        (lambda: ridgeline.speculative("llama-3.1-8b", "h100-sxm", verify_tokens=7), "verify_tokens",
         "0 or the draft tokens + 1 (5) with a chain (tree width 1)"),
        (lambda: ridgeline.prefill("llama-3.1-8b", "h100-sxm", prompt=100, cached=100), "cached", "an integer from 0 to the prompt less one (99)"),
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], users=1, cached_prompt=-1), "cached_prompt", None),
        (lambda: ridgeline.prefill("llama-3.1-8b", "h100-sxm", prompt=0), "prompt", "an integer from 1 to 2^40 tokens"),
        (lambda: ridgeline.generate("llama-3.1-8b", "h100-sxm", chunk=-1), "chunk", "an integer from 0 to 100000000"),
        (lambda: ridgeline.capacity("llama-3.1-8b", "h100-sxm", memory_fraction=0.0), "memory_fraction", "a fraction in [1e-6, 1]"),
        (lambda: ridgeline.capacity("llama-3.1-8b", "h100-sxm", memory_fraction=5e-7), "memory_fraction", "a fraction in [1e-6, 1]"),
        (lambda: ridgeline.Workload(assumptions="seed_004"), "assumptions", "physical or seed_003"),
        # Times and sizes are refused in the keyword's own unit, by its name; a negative link
        # latency once left plan nothing to search ("no plan").
        (lambda: ridgeline.decode("llama-3.1-8b", "h100-sxm", overhead_s=-1), "overhead_s", "a time in seconds: 0, or from 1e-12 to 1000"),
        (lambda: ridgeline.decode("llama-3.1-70b", "h100-sxm", tp=2, link_latency_s=2), "link_latency_s",
         "a time in seconds: 0, or from 1e-12 to 1"),
        (lambda: ridgeline.plan("llama-3.1-70b", hardware=["h100-sxm"], users=1, tpot_s=0.1, prompt=100, output=10, link_latency_s=-1),
         "link_latency_s", "a time in seconds: 0, or from 1e-12 to 1"),
        (lambda: ridgeline.capacity("llama-3.1-8b", "h100-sxm", runtime_reserve_bytes=-1), "runtime_reserve_bytes",
         "a size in bytes: 0, or from 1073.741824 (1e-6 GiB) to 966367641600000 (900,000 GiB)"),
        (lambda: ridgeline.load_model("llama-3.1-8b").with_parameters(1e-300), "count", "a count from 1 to below 1e16"),
        (lambda: ridgeline.load_model("llama-3.1-8b").with_parameters(1e300), "count", "a count from 1 to below 1e16"),
        (lambda: ridgeline.load_model("llama-3.1-8b").with_parameters(True), "count", "a count from 1 to below 1e16"),
        (lambda: ridgeline.load_model("llama-3.1-8b").with_parameters(10**400), "count", "a number within a double's range (about 1.8e308)"),
        (lambda: ridgeline.decode("llama-3.1-8b", "h100-sxm", batch=2**63), "batch", "an integer within 64 bits (from -2^63 to 2^63 - 1)"),
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], users=4, tpot_s=0.05, prompt=2**63), "prompt",
         "an integer within 64 bits (from -2^63 to 2^63 - 1)"),
        # Arguments with a place in the signature are read as keywords are.
        (lambda: ridgeline.prefill("llama-3.1-8b", "h100-sxm", prompt=2**64), "prompt", "an integer within 64 bits (from -2^63 to 2^63 - 1)"),
        (lambda: ridgeline.Workload(batch=2**64), "batch", "an integer within 64 bits (from -2^63 to 2^63 - 1)"),
        (lambda: ridgeline.load_model("llama-3.1-8b").with_max_context(2**64), "tokens", "an integer within 64 bits (from -2^63 to 2^63 - 1)"),
        (lambda: ridgeline.Assumptions(accounting="some"), "accounting", "read or every"),
        (lambda: ridgeline.calibrate("gpt-fast", where={"colour": "red"}), "where",
         "one of engine, engine_version, date, model, hardware, weights, tp, batch"),
        (lambda: ridgeline.calibrate("gpt-fast", where=["weights"]), "where", "KEY=VALUE, e.g. weights=bf16"),
        (lambda: ridgeline.calibrate("gpt-fast", where={"tp": "3"}), "tp", "a value some row of gpt-fast has: 1, 2, 4, 8"),
        (lambda: ridgeline.list_presets("gpus"), "kind", "hardware, models, drafts or efficiency"),
        (lambda: ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [0], columns=["tok_s"]), "columns", None),
        (lambda: ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [0], tp=[1, 2, 0]), "tp", None),
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], users=4, max_devices=0), "max_devices", "an integer from 1 to 65536"),
        # The whole number given, as --users says it, not rounded to 4.611686e+18.
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], users=2**62), "users", "an integer from 1 to 1000000000"),
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], requests_per_s=-1), "requests_per_s", None),
        (lambda: ridgeline.speculative("llama-3.1-8b", "h100-sxm", draft_tp=1), "draft_tp",
         "no draft_tp without draft (a free draft runs on no device)"),
        # A target in seconds is refused in seconds (it once read "-1000 ms").
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], users=4, tpot_s=-1), "tpot_s", "a time in seconds from 1e-6 to 1e6"),
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], users=4, ttft_s=float("inf")), "ttft_s", "a time in seconds from 1e-6 to 1e6"),
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], users=4, itl_s=0.0), "itl_s", "a time in seconds from 1e-6 to 1e6"),
        # A preset and its own file are one device, as the CLI's -H refuses them, in its words.
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=[os.path.join(ROOT, "data/hardware/h200.json"),
                                                          os.path.join(ROOT, "data/hardware/../hardware/h200.json")], users=4), "hardware",
         "each value once (" + os.path.join(ROOT, "data/hardware/h200.json") + " and " +
         os.path.join(ROOT, "data/hardware/../hardware/h200.json") + " are the same file)"),
        (lambda: ridgeline.diagnose("llama-3.1-8b", "h200", measured_tokens_per_s=100, efficiency=0.3), "efficiency",
         "none: diagnose measures the gap to the ceiling (predict with a calibration estimates)"),
        # 10,000 x 10,000 points is within the point cap; with every column it is some 3e9 values.
        (lambda: ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", list(range(1, 10001)), list(range(10000))),
         "settings x batches x contexts x columns", "at most 400,000,000 values (about 3.2 GB; ask for fewer columns= or points)"),
        # predict takes its efficiency and times from the calibration: given here they were ignored.
        (lambda: ridgeline.predict("llama-3.1-8b", "h100-sxm", calibration="tensorrt-llm-h100-sxm", efficiency=0.5), "efficiency",
         "none: predict takes it from the calibration"),
        # A name twice, as the CLI's `plan -H h200,h200` and `--weights fp8,fp8` say it.
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h200", "h200"], users=4), "hardware", "each value once (h200 is listed twice)"),
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h200"], weights=["fp8", "fp8"], users=4), "weights",
         "each value once (fp8 is listed twice)"),
        # The library's words for the list said as the keyword.
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=[], users=4), "hardware", "at least one candidate device"),
        (lambda: ridgeline.plan("llama-3.1-8b", hardware=["h200"], weights=[], users=4), "weights", "at least one format, or the checkpoint's"),
        (lambda: ridgeline.decode("llama-3.1-8b", "rtx-4090", tp=2, link_bandwidth_bytes_per_s=0), "link_bandwidth_bytes_per_s",
         "a bandwidth in bytes per second from 1e6 to 1e17"),
        # A card whose preset has no link says which keyword gives one.
        (lambda: ridgeline.decode("llama-3.1-8b", "rtx-4090", tp=2), "hardware 'NVIDIA GeForce RTX 4090' interconnect_GB_per_s",
         "the figure in the preset (or give one with link_bandwidth_bytes_per_s=, e.g. 64e9 for PCIe 4.0 x16, 100e9 for a 400 Gb/s NIC) for a split over several devices"),
    ]
    for call, path, expected in cases:
        with pytest.raises(ridgeline.Error) as e:
            call()
        assert e.value.path == path
        if expected is not None:
            assert e.value.expected == expected
        assert str(e.value) == f"{e.value.path}: got {e.value.value}, expected {e.value.expected}"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.calibrate("gpt-fast", engine="nobody")
    assert e.value.path == "engine" and e.value.expected == "a value some row of gpt-fast has: (none stated)"
    # Each filter alone leaves rows (the 405B ran on A100s, the MI250X ran the 7B): together none.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.calibrate("gpt-fast", model="llama-3.1-405b", hardware="mi250x")
    assert e.value.file == "gpt-fast" and e.value.expected == "filters that leave at least one measurement"


def test_links_given_and_plan_levers():
    # A link given to a PCIe card: 64 GB/s both ways is 32 GB/s each way; the step at TP 2 then
    # costs links, and the Deployment carries the figure.
    d = ridgeline.Deployment("rtx-4090", tp=2, link_bandwidth_bytes_per_s=64e9)
    assert d.link_bandwidth_bytes_per_s == 64e9
    split = ridgeline.decode("llama-3.1-8b", d, 1, 1024)
    assert split["communication_time_s"] > 0
    assert split == ridgeline.decode("llama-3.1-8b", "rtx-4090", 1, 1024, tp=2, link_bandwidth_bytes_per_s=64e9)
    # plan's max_context= raises the model's limit as --max-context does (Llama-3.1-70B: 131,072).
    long = ridgeline.plan("llama-3.1-70b", hardware=["h200"], prompt=131072, output=512, users=1, max_context=262144)
    assert "verdict" in long
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.plan("llama-3.1-70b", hardware=["h200"], prompt=131072, output=512, users=1)
    assert e.value.path == "prompt + output"
    # A device that gives no plan says why.
    none = ridgeline.plan("llama-3.1-70b", hardware=["rtx-4090"], weights=["int4"], users=4)
    assert none["notes"] == ["rtx-4090: no deployment tried holds the model and a request of 1280 tokens on one device, and its "
                             "preset has no link to split over (give the link's bandwidth)"]
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError):
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", np.ones((2, 2), dtype=int), [0])
    # An unsigned batch past 2^63 - 1 once wrapped to a negative one.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", np.array([2**63], dtype=np.uint64), [0])
    assert (e.value.path, e.value.value) == ("batches", "9223372036854775808")


def test_bad_file_names_file_and_path(tmp_path):
    bad = tmp_path / "device.json"
    bad.write_text('{"name": "x", "memory_gb": "eighty"}')
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.load_hardware(str(bad))
    assert e.value.file == str(bad)
    assert str(e.value).startswith(str(bad) + ": ")
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.calibrate(os.path.join(ROOT, "tests/data/bad/measurements-bad-row.json"))
    assert e.value.file.endswith("measurements-bad-row.json") and e.value.path.startswith("/measurements/")


def test_paths_as_os_pathlike_and_any_file_name(tmp_path):
    # A pathlib.Path is a file name, as a str is; a name that is not UTF-8 (here Latin-1's
    # "caf\xe9") opens as the file system lists it (os.fsencode), as the CLI opens it.
    config = os.path.join(ROOT, "tests/data/hub/glm-4.7-fp8-partial.json")
    by_str = ridgeline.decode(config, "h200", tp=8)
    assert ridgeline.decode(pathlib.Path(config), "h200", tp=8) == by_str
    assert ridgeline.load_model(pathlib.Path(config)).total_params == ridgeline.load_model(config).total_params
    latin = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.json")
    shutil.copy(config, latin)
    assert ridgeline.decode(latin, "h200", tp=8)["bytes_per_step"] == by_str["bytes_per_step"]
    device = os.path.join(ROOT, "data/hardware/h200.json")
    assert ridgeline.load_hardware(pathlib.Path(device)).device == ridgeline.load_hardware("h200").device
    assert ridgeline.decode(config, pathlib.Path(device), tp=8)["step_time_s"] == by_str["step_time_s"]
    # calibrate's measurements and predict's calibration too.
    rows = os.path.join(ROOT, "data/measurements/gpt-fast.json")
    assert ridgeline.calibrate(pathlib.Path(rows)) == ridgeline.calibrate(rows)
    preset = os.path.join(ROOT, "data/efficiency/tensorrt-llm-h100-sxm.json")
    assert ridgeline.predict("llama-3.1-8b", "h100-sxm", calibration=pathlib.Path(preset)) == \
        ridgeline.predict("llama-3.1-8b", "h100-sxm", calibration=preset)
    with pytest.raises(TypeError, match=r"^calibrate\(\): measurements must be .* \(str or os.PathLike\), got 3 \(int\)$"):
        ridgeline.calibrate(3)
    # plan's candidates too, alone or in a list.
    by_name = ridgeline.plan("llama-3.1-8b", hardware=["h200"], users=4)["plans"][0]
    for given in (pathlib.Path(device), [pathlib.Path(device)]):
        assert ridgeline.plan("llama-3.1-8b", hardware=given, users=4)["plans"][0]["tpot_s"] == by_name["tpot_s"]
    with pytest.raises(TypeError, match=r"^plan\(\): hardware must be a preset name or path \(str or os.PathLike\) or a list of them$"):
        ridgeline.plan("llama-3.1-8b", hardware=[3], users=4)
    # A file that is not there, under a name that is not UTF-8: the library's error, which
    # writes a byte that is not UTF-8 as its escape.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.load_hardware(os.fsdecode(bytes(tmp_path) + b"/gone\xff.json"))
    assert str(e.value).endswith("/gone\\xFF.json: got no such file, expected a readable JSON file")
    # A lone surrogate in a format name is refused by value, shown as its escape.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", weights="\udcff")
    assert (e.value.path, e.value.value) == ("weights", "\\udcff")
    with pytest.raises(TypeError, match="os.PathLike"):
        ridgeline.load_model(42)


def test_python_type_errors():
    with pytest.raises(TypeError, match="unexpected keyword argument 'tensor'"):
        ridgeline.decode("llama-3.1-8b", "h100-sxm", tensor=2)
    with pytest.raises(TypeError):
        ridgeline.decode("llama-3.1-8b", "h100-sxm", tp=2.5)
    with pytest.raises(TypeError):
        ridgeline.decode("llama-3.1-8b", 42)
    with pytest.raises(TypeError, match="not both"):
        ridgeline.decode("llama-3.1-8b", ridgeline.Deployment("h100-sxm", tp=2), tp=4)
    with pytest.raises(TypeError, match="not both"):
        ridgeline.decode("llama-3.1-8b", "h100-sxm", workload=ridgeline.Workload(), kv="fp8")
    with pytest.raises(TypeError, match="calibration"):
        ridgeline.predict("llama-3.1-8b", "h100-sxm")


# ---------------------------------------------------------------------------------------------
# The vectorised sweep against the scalar calls and the CLI
# ---------------------------------------------------------------------------------------------

DECODE_KEYS = ["hardware", "model", "weights", "kv", "compute", "tp", "pp", "ep", "dp", "attention_dp", "assumptions", "accounting", "attention_flops",
               "embedding_lookup_flops", "prompt_logits", "memory_fraction", "runtime_reserve_bytes", "experts", "attention", "embeddings", "lm_head", "router_and_norms", "formats_source", "batch",
               "context_tokens", "weight_bytes", "kv_bytes", "activation_bytes", "bytes_per_step", "bytes_per_device", "step_time_s", "tokens_per_s", "total_tokens_per_s", "bound",
               "arithmetic_intensity_flop_per_byte", "communication_time_s", "memory_per_device_bytes", "memory_budget_bytes", "fits"]


def sweep_row(sweep, i):
    """Point i of a sweep as a row of Python values (what json.loads gives for the CLI's)."""
    return {key: sweep[key][i].item() if hasattr(sweep[key][i], "item") else sweep[key][i] for key in sweep}


def check_sample(sweep, model, hardware, n, rng, samples, **kwargs):
    np = pytest.importorskip("numpy")
    assert list(sweep) == DECODE_KEYS
    for key in DECODE_KEYS:
        assert sweep[key].shape == (n,)
        if sweep[key].dtype.kind == "f":
            assert np.isfinite(sweep[key]).all(), key
    for i in rng.choice(n, size=samples, replace=False):
        row = ridgeline.decode(model, hardware, int(sweep["batch"][i]), int(sweep["context_tokens"][i]), **kwargs)
        same_row(sweep_row(sweep, i), row)  # exactly: the same arithmetic


def test_million_point_sweep_matches_scalar_decode():
    np = pytest.importorskip("numpy")
    batches = np.arange(1, 1001)
    contexts = np.linspace(0, 131072, 1000).astype(np.int64)
    start = time.perf_counter()
    sweep = ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", batches, contexts)
    elapsed = time.perf_counter() - start
    print(f"decode_sweep: {batches.size * contexts.size} points in {elapsed:.3f} s")
    assert sweep["batch"][1001] == 2 and sweep["context_tokens"][1001] == contexts[1]  # batch-major
    check_sample(sweep, "llama-3.1-8b", "h100-sxm", 1000 * 1000, np.random.default_rng(16), 100)


def test_sweep_with_experts_links_and_pipeline_matches_scalar_decode():
    np = pytest.importorskip("numpy")
    kwargs = {"tp": 4, "ep": 2, "pp": 2, "dp": 3, "weights": "fp8", "overhead_s": 20e-6, "efficiency": 0.7}
    batches = np.array([1, 2, 3, 7, 64, 100, 512, 4096])
    contexts = np.array([0, 1, 1000, 4096, 40000])
    sweep = ridgeline.decode_sweep("qwen3-30b-a3b", "h200", batches, contexts, **kwargs)
    check_sample(sweep, "qwen3-30b-a3b", "h200", 8 * 5, np.random.default_rng(3), 40, **kwargs)
    assert (sweep["communication_time_s"] > 0).all()


@needs_cli
@pytest.mark.parametrize("model,cli_args,kwargs", [
    # Lists of devices, formats and degrees: one setting per combination, in the CLI's order.
    ("llama-3.1-70b", ["-H", "h100-sxm,h200", "--weights", "bf16,fp8", "--tp", "1,2,4"],
     {"hardware": ["h100-sxm", "h200"], "weights": ["bf16", "fp8"], "tp": [1, 2, 4]}),
    ("qwen3-30b-a3b", ["-H", "b200", "--tp", "2,4", "--pp", "1,2", "--ep", "1,2", "--dp", "2", "--kv", "fp8"],
     {"hardware": "b200", "tp": [2, 4], "pp": [1, 2], "ep": [1, 2], "dp": 2, "kv": "fp8"}),
    ("qwen3-30b-a3b", ["-H", "h200", "--tp", "2,4", "--ep", "2", "--attention-dp", "tp"],
     {"hardware": "h200", "tp": [2, 4], "ep": 2, "attention_dp": "tp"}),
    ("gpt-oss-120b", ["-H", "h100-sxm,mi300x"], {"hardware": ["h100-sxm", "mi300x"]}),
])
def test_sweep_over_lists_equals_cli(model, cli_args, kwargs):
    np = pytest.importorskip("numpy")
    theirs = cli_json("decode", "-m", model, *cli_args, "-b", "1,64,300", "-c", "0,4096,32768")
    hardware = kwargs.pop("hardware")
    sweep = ridgeline.decode_sweep(model, hardware, np.array([1, 64, 300]), [0, 4096, 32768], **kwargs)
    assert list(sweep) == DECODE_KEYS
    assert len(sweep["batch"]) == len(theirs)
    for i, row in enumerate(theirs):
        same_row(sweep_row(sweep, i), row)


def test_sweep_of_value_types_and_columns():
    np = pytest.importorskip("numpy")
    w = ridgeline.Workload(weights="fp8", efficiency=0.8)
    deployments = [ridgeline.Deployment("h100-sxm", tp=2), ridgeline.Deployment("h200", tp=4, pp=2)]
    sweep = ridgeline.decode_sweep(["llama-3.1-70b", ridgeline.load_model("qwen3-32b")], deployments, [1, 8], [0, 8192], workload=w,
                                   columns=["model", "hardware", "tp", "pp", "batch", "context_tokens", "step_time_s", "bound"])
    assert list(sweep) == ["model", "hardware", "tp", "pp", "batch", "context_tokens", "step_time_s", "bound"]
    assert list(sweep["model"][::4]) == ["llama-3.1-70b", "llama-3.1-70b", "qwen3-32b", "qwen3-32b"]
    assert list(sweep["hardware"][::4]) == ["h100-sxm", "h200", "h100-sxm", "h200"]
    for i in range(len(sweep["batch"])):
        d = deployments[(i // 4) % 2]
        row = ridgeline.decode(sweep["model"][i], d, int(sweep["batch"][i]), int(sweep["context_tokens"][i]), workload=w)
        assert (sweep["step_time_s"][i], sweep["bound"][i], int(sweep["tp"][i])) == (row["step_time_s"], row["bound"], row["tp"])
    # weights="checkpoint" is the default said out loud, in a sweep's list too.
    assert ridgeline.decode("gpt-oss-120b", "h100-sxm", 1, 0, weights="checkpoint") == ridgeline.decode("gpt-oss-120b", "h100-sxm", 1, 0)
    both = ridgeline.decode_sweep("gpt-oss-120b", "h100-sxm", [1], [0], weights=["checkpoint", "fp8"], columns=["step_time_s"])
    assert both["step_time_s"][0] == ridgeline.decode("gpt-oss-120b", "h100-sxm", 1, 0)["step_time_s"]
    # A split too wide for its link: Llama-2-7B at TP 32 crosses H100s' scale-out network twice a
    # layer (milliseconds of ring steps against 0.15 ms of weights); the sweep says "links" as decode does.
    wide = ridgeline.decode_sweep("llama-2-7b", ridgeline.Deployment("h100-sxm", tp=32), [1, 64], [4096], columns=["bound"])
    assert list(wide["bound"]) == ["links", "links"]
    assert ridgeline.decode("llama-2-7b", ridgeline.Deployment("h100-sxm", tp=32), 1, 4096)["bound"] == "links"
    # pandas.DataFrame takes the dict as it is: equal-length 1-D arrays under the keys.
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(sweep)
    assert list(frame.columns) == list(sweep) and len(frame) == 16


def test_sweep_refuses_bad_points_with_the_library_error():
    np = pytest.importorskip("numpy")
    # An empty list names the argument it was given for.
    for key in ("tp", "weights"):
        with pytest.raises(ridgeline.Error) as e:
            ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [0], **{key: []})
        assert str(e.value) == key + ": got an empty list, expected at least one value"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode_sweep("llama-3.1-8b", [], [1], [0])
    assert e.value.path == "hardware"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", np.array([1, 0, 4]), np.array([0]))
    assert str(e.value) == "batch: got 0, expected an integer from 1 to 2^40"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [0, 200000])
    assert e.value.path == "context"
    with pytest.raises(TypeError):
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", np.array([1.5]), np.array([0]))
    with pytest.raises(TypeError):
        ridgeline.decode_sweep("llama-3.1-8b", ["h100-sxm", ridgeline.Deployment("h200")], [1], [0])
    empty = ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", np.array([], dtype=np.int64), np.array([0]))
    assert empty["step_time_s"].shape == (0,)


def test_sweep_lists_name_each_value_once_as_the_cli_lists_do():
    # `ridgeline decode -m llama-3.1-8b --tp 1,1` says "expected each value once (1 is listed
    # twice)": a repeat only prints the same rows twice. The sweep's lists say it the same way.
    np = pytest.importorskip("numpy")
    cases = [
        (dict(tp=[1, 2, 1]), "tp: got [1, 2, 1], expected each value once (1 is listed twice)"),
        (dict(weights=["fp8", "bf16", "fp8"]), "weights: got ['fp8', 'bf16', 'fp8'], expected each value once (fp8 is listed twice)"),
        (dict(weights=["checkpoint", "checkpoint"]),
         "weights: got ['checkpoint', 'checkpoint'], expected each value once (checkpoint is listed twice)"),
        (dict(hardware=["h200", "h100-sxm", "h200"]),
         "hardware: got ['h200', 'h100-sxm', 'h200'], expected each value once (h200 is listed twice)"),
        (dict(model=["llama-3.1-8b", "llama-3.1-8b"]),
         "model: got ['llama-3.1-8b', 'llama-3.1-8b'], expected each value once (llama-3.1-8b is listed twice)"),
        (dict(batches=np.array([1, 8, 8])), "batches: got array([1, 8, 8]), expected each value once (8 is listed twice)"),
        (dict(contexts=[0, 0]), "contexts: got [0, 0], expected each value once (0 is listed twice)"),
    ]
    for change, message in cases:
        args = dict(model="llama-3.1-8b", hardware="h100-sxm", batches=[1], contexts=[0])
        args.update(change)
        with pytest.raises(ridgeline.Error) as e:
            ridgeline.decode_sweep(args.pop("model"), args.pop("hardware"), args.pop("batches"), args.pop("contexts"), **args)
        assert str(e.value) == message
    # Two names of one file, as the CLI's -H h100-sxm,data/hardware/h100-sxm.json.
    path = str(pathlib.Path(os.environ["RIDGELINE_DATA_DIR"]) / "hardware" / "h100-sxm.json")
    with pytest.raises(ridgeline.Error, match=r"^hardware: got \[.*\], expected each value once \(h100-sxm and .*h100-sxm\.json are the same file\)$"):
        ridgeline.decode_sweep("llama-3.1-8b", ["h100-sxm", path], [1], [0])
    # A path names its file as a str does (pathlib.Path, as os.fspath reads it).
    with pytest.raises(ridgeline.Error, match=r"^hardware: got \[.*\], expected each value once \(h100-sxm and .*h100-sxm\.json are the same file\)$"):
        ridgeline.decode_sweep("llama-3.1-8b", ["h100-sxm", pathlib.Path(path)], [1], [0])
    # Two weights that store the model alike only repeat rows: Llama-3.1-8B's checkpoint is
    # bf16 (its config.json's torch_dtype), so "checkpoint" is "bf16" there, as the CLI's
    # --weights bf16,checkpoint is refused.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [0], weights=["bf16", "checkpoint"])
    assert str(e.value) == "weights: got ['bf16', 'checkpoint'], expected each value once (bf16 and checkpoint store llama-3.1-8b alike: bf16)"
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode_sweep(["llama-3.1-8b", "qwen3-8b"], "h100-sxm", [1], [0], weights=["bf16", "checkpoint"])
    assert str(e.value) == ("weights: got ['bf16', 'checkpoint'], expected each value once "
                            "(bf16 and checkpoint store each of the 2 models alike)")
    # Where they differ for one model of several, that model's rows differ: gpt-oss-20b's
    # checkpoint holds its experts in MXFP4 (its quantization_config), so bf16 is another storage.
    mixed = ridgeline.decode_sweep(["llama-3.1-8b", "gpt-oss-20b"], "h100-sxm", [1], [0], weights=["bf16", "checkpoint"])
    assert len(mixed["weights"]) == 4
    # Two spellings of two formats are two values.
    assert len(ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [0], weights=["fp4", "nvfp4"])["weights"]) == 2


def test_attention_dp_takes_ranks_or_tp_and_refuses_zero():
    # 0 is not "tp": refused as the CLI's --attention-dp refuses it.
    with pytest.raises(ridgeline.Error, match=r"attention_dp: got 0, expected an integer from 1 to 1024, or 'tp'"):
        ridgeline.decode("qwen3-30b-a3b", "h200", 8, 4096, tp=4, attention_dp=0)
    # A str that is not 'tp' is the right type with a wrong value: a ridgeline.Error.
    with pytest.raises(ridgeline.Error, match=r"^attention_dp: got all, expected an integer from 1 to 1024, or 'tp'"):
        ridgeline.decode("qwen3-30b-a3b", "h200", 8, 4096, tp=4, attention_dp="all")
    assert ridgeline.Deployment("h200", tp=4, attention_dp="tp").attention_dp == 4
    assert repr(ridgeline.Deployment("h200", tp=4, attention_dp=2)).endswith("attention_dp 2>")


def test_degrees_are_bounded_as_the_cli_bounds_them():
    # The CLI's --tp, --pp and --ep take 1 to 1024 (`ridgeline decode --tp 2000`: "expected degrees
    # from 1 to 1024"); the module refuses the same values, in every function that takes them.
    for key in ("tp", "pp", "ep"):
        with pytest.raises(ridgeline.Error, match=rf"^{key}: got 2000, expected an integer from 1 to 1024$"):
            ridgeline.decode("llama-3.1-8b", "h100-sxm", 1, 0, **{key: 2000})
        with pytest.raises(ridgeline.Error, match=rf"^{key}: got 0, expected an integer from 1 to 1024$"):
            ridgeline.Deployment("h100-sxm", **{key: 0})
    with pytest.raises(ridgeline.Error, match=r"^tp: got 1025, expected an integer from 1 to 1024$"):
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [0], tp=[1, 1025])
    with pytest.raises(ridgeline.Error, match=r"^draft_tp: got 1025, expected an integer from 0 to 1024$"):
        ridgeline.speculative("llama-3.1-70b", "h100-sxm", 1, 0, draft="llama-3.1-8b", draft_tp=1025)
    # 1024 itself is in range (it fails later, on the model: 8 KV heads cannot be split 1024 ways).
    assert ridgeline.Deployment("h100-sxm", tp=1024).tp == 1024


def test_type_errors_say_the_value_and_its_type():
    # A wrong type names the function, the keyword, the value and its type; whole users only, as --users.
    with pytest.raises(TypeError, match=r"^decode\(\): weights must be a str, got \['fp8'\] \(list\)$"):
        ridgeline.decode("llama-3.1-8b", "h100-sxm", weights=["fp8"])
    with pytest.raises(TypeError, match=r"^decode\(\): attention_flops must be a bool, got 1 \(int\)$"):
        ridgeline.decode("llama-3.1-8b", "h100-sxm", attention_flops=1)
    # An empty text is shown as "", as the CLI quotes it.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode("llama-3.1-8b", "h100-sxm", weights="")
    assert str(e.value).startswith('weights: got "", expected a format')
    # Assumptions compare unequal to other types, as Python's own values do.
    assert (ridgeline.Assumptions() == None) is False  # noqa: E711
    assert ridgeline.Assumptions() in [None, ridgeline.Assumptions()]
    assert ridgeline.Assumptions() != 5
    with pytest.raises(TypeError, match=r"^decode\(\): batch must be an integer, got 1\.5 \(float\)$"):
        ridgeline.decode("llama-2-7b", "h100-sxm", batch=1.5)
    with pytest.raises(TypeError, match=r"^plan\(\): users must be an integer, got 1\.5 \(float\)$"):
        ridgeline.plan("llama-3.1-8b", hardware="h100-sxm", users=1.5, tpot_s=0.03)
    # A declared count below Llama-3.1-8B's embedding table and LM head (2 x 128,256 x 4,096 =
    # 1,050,673,152) is refused where it is declared, not on use.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.load_model("llama-3.1-8b").with_parameters(1000)
    assert (e.value.path, e.value.value, e.value.expected) == ("count", "1000", "at least the embedding table and LM head's 1050673152 parameters")
    assert ridgeline.load_model("llama-3.1-8b").with_parameters(1_050_673_152).parameter_count == 1_050_673_152
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.load_model("llama-3.1-8b").with_max_context(0)
    assert (e.value.path, e.value.value, e.value.expected) == ("tokens", "0", "an integer from 1 to 2^40")
    with pytest.raises(TypeError, match=r"^with_max_context\(\): tokens must be an integer, got None \(NoneType\)$"):
        ridgeline.load_model("llama-3.1-8b").with_max_context(None)


@needs_cli
def test_calibrate_where_takes_whole_numbers():
    # {'tp': 1} filters as {'tp': '1'} and as the CLI's --where tp=1.
    assert ridgeline.calibrate("gpt-fast", where={"tp": 1}) == ridgeline.calibrate("gpt-fast", where={"tp": "1"})
    same_rows(ridgeline.calibrate("gpt-fast", where={"tp": 1})["rows"], cli_json("calibrate", "--measurements", "gpt-fast", "--where", "tp=1")["rows"])


def test_show_takes_paths_and_classes_take_names():
    # show() takes what every other function takes: a name or a path, str or os.PathLike.
    path = pathlib.Path(os.environ["RIDGELINE_DATA_DIR"]) / "hardware" / "h200.json"
    assert ridgeline.show(path) == ridgeline.show("h200")
    with pytest.raises(TypeError, match=r"^show\(\): target must be a preset name or a file \(str or os.PathLike\), got None \(NoneType\)$"):
        ridgeline.show(None)
    # Hardware(NAME) and Model(NAME) are load_hardware and load_model.
    assert ridgeline.Hardware("h200").device == ridgeline.load_hardware("h200").device
    assert ridgeline.Model("llama-3.1-8b").name == "llama-3.1-8b"


def test_repeated_columns_and_filters_are_refused():
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.decode_sweep("llama-3.1-8b", "h100-sxm", [1], [0], columns=["batch", "batch"])
    assert str(e.value) == "columns: got ['batch', 'batch'], expected each value once (batch is listed twice)"
    # As the CLI's --where tp=1 --where tp=1.
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.calibrate("published", where=["tp=1", "tp=1"])
    assert str(e.value) == "where: got tp=1, expected each filter once (tp=1 is given twice)"


def test_generate_and_prefill_refuse_a_workloads_context():
    # They start from their prompt; a review found Workload(8, 4096)'s context dropped unsaid.
    for function in (ridgeline.generate, ridgeline.prefill):
        name = function.__name__
        with pytest.raises(ridgeline.Error) as e:
            function("llama-3.1-8b", "h100-sxm", prompt=1024, workload=ridgeline.Workload(8, 4096))
        assert str(e.value) == (f"workload.context: got 4096, expected 0: {name} starts from its prompt "
                                "(give prompt=, and cached= for a prefix)")
    # Its batch is still taken.
    assert ridgeline.generate("llama-3.1-8b", "h100-sxm", prompt=1024, workload=ridgeline.Workload(8))["batch"] == 8


def test_plan_rates_have_the_clis_bounds():
    with pytest.raises(ridgeline.Error) as e:
        ridgeline.plan("llama-3.1-8b", hardware=["h100-sxm"], requests_per_s=1e-300)
    assert str(e.value) == "requests_per_s: got 1e-300, expected requests per second from 1e-6 to 1e9"
