// Every preset in data/ loads, validates, round-trips and cites its sources; bad files give the
// documented error naming the file, the JSON path, the value and what was expected.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

using namespace ridgeline;
namespace fs = std::filesystem;

TEST_CASE("presets: the catalogue holds what the core issue names", "[presets]") {
    const auto hw = list_presets(PresetKind::hardware);
    // The core issue's six and the catalogue issue's list.
    for (const char* name : {"h100-sxm", "h100-pcie", "h100-nvl", "h200", "b200", "a100-40gb", "a100-80gb", "a10", "l4",
                             "l40s", "v100", "rtx-4090", "mi300x", "mi325x", "tpu-v5e", "tpu-v5p"})
        CHECK(std::find(hw.begin(), hw.end(), name) != hw.end());
    const auto models = list_presets(PresetKind::model);
    for (const char* name : {"llama-3.1-8b", "qwen3-32b", "llama-3.3-70b", "llama-2-7b", "llama-2-13b"})
        CHECK(std::find(models.begin(), models.end(), name) != models.end());
}

TEST_CASE("presets: every hardware preset loads, round-trips, and cites each figure", "[presets]") {
    for (const auto& name : list_presets(PresetKind::hardware)) {
        INFO("data/hardware/" << name << ".json");
        const Hardware h = load_hardware(name);
        CHECK(hardware_from_json(nlohmann::json(h)) == h);
        CHECK(h.memory_capacity > Bytes{});
        bool any_peak = false;
        for (Numeric n : all_numerics) any_peak = any_peak || h.peak_for(n).has_value();
        CHECK(any_peak);
        const auto j = read_json_file(data_directory() / "hardware" / (name + ".json"));
        REQUIRE(j.contains("source"));
        for (const auto& item : j.items())
            if (item.key() != "name" && item.key() != "source") CHECK(j.at("source").contains(item.key()));
    }
}

TEST_CASE("presets: every model preset loads, round-trips, and cites its config.json", "[presets]") {
    for (const auto& name : list_presets(PresetKind::model)) {
        INFO("data/models/" << name << ".json");
        const Model m = load_model(name);
        CHECK(m.name.view() == name);
        CHECK(model_from_config(nlohmann::json(m)) == m);
        const auto j = read_json_file(data_directory() / "models" / (name + ".json"));
        REQUIRE(j.contains("ridgeline"));
        CHECK(j.at("ridgeline").contains("source"));
        CHECK(derived_parameters(m).total() > 0);
    }
}

TEST_CASE("presets: a name or a path, and unknown names list the presets", "[presets][errors]") {
    CHECK(load_hardware("data/hardware/h100-sxm.json") == load_hardware("h100-sxm"));
    CHECK(load_model("data/models/qwen3-32b.json") == load_model("qwen3-32b"));
    CHECK_THROWS_WITH(load_hardware("h100"),
                      "hardware preset: got \"h100\", expected one of (closest first): h100-nvl, h100-pcie, h100-sxm, h200, v100, a10, b200, "
                      "gb200, l40s, l4, mi300x, mi250x, a100-40gb, a100-80gb, mi325x, rtx-4090, tpu-v5e, tpu-v5p");
    CHECK_THROWS_WITH(load_model("llama-3.1-7b"), Catch::StartsWith("model preset: got \"llama-3.1-7b\", expected one of (closest first): llama-3.1-70b, llama-3.1-8b, "));
    CHECK_THROWS_WITH(load_model("tests/data/bad/no-such-file.json"),
                      "tests/data/bad/no-such-file.json: got a file that cannot be opened, expected a readable JSON file");
}

TEST_CASE("presets: RIDGELINE_DATA_DIR must name a directory", "[presets][errors]") {
    const std::string saved = std::getenv("RIDGELINE_DATA_DIR") ? std::getenv("RIDGELINE_DATA_DIR") : "";
    ::setenv("RIDGELINE_DATA_DIR", "tests/data/nowhere", 1);
    CHECK_THROWS_WITH(list_presets(PresetKind::model),
                      "RIDGELINE_DATA_DIR: got tests/data/nowhere, expected a directory holding hardware/ and models/");
    if (saved.empty()) ::unsetenv("RIDGELINE_DATA_DIR");
    else ::setenv("RIDGELINE_DATA_DIR", saved.c_str(), 1);
}

TEST_CASE("presets: bad hardware files name file, path, value and expectation", "[presets][errors]") {
    const auto bad = [](const char* stem) { return std::string("tests/data/bad/") + stem + ".json"; };
    CHECK_THROWS_WITH(load_hardware(bad("hw-missing-bandwidth")),
                      "tests/data/bad/hw-missing-bandwidth.json: /memory_bandwidth_GB_per_s: got nothing (the key is missing), expected a positive, finite number");
    CHECK_THROWS_WITH(load_hardware(bad("hw-unknown-key")),
                      "tests/data/bad/hw-unknown-key.json: /memory_bandwidth_TB_per_s: got an unknown key, expected one of: name, memory_capacity_GB, memory_bandwidth_GB_per_s, dense_TFLOP_per_s, interconnect_GB_per_s, "
                      "memory_reported_MiB, scale_up_domain, scale_up_latency_us, scale_out_GB_per_s, scale_out_latency_us, source");
    CHECK_THROWS_WITH(load_hardware(bad("hw-string-capacity")),
                      "tests/data/bad/hw-string-capacity.json: /memory_capacity_GB: got \"80\" (a string), expected a positive, finite number");
    CHECK_THROWS_WITH(load_hardware(bad("hw-zero-bandwidth")),
                      "tests/data/bad/hw-zero-bandwidth.json: /memory_bandwidth_GB_per_s: got 0, expected a positive, finite number");
    CHECK_THROWS_WITH(load_hardware(bad("hw-negative-peak")),
                      "tests/data/bad/hw-negative-peak.json: /dense_TFLOP_per_s/bf16: got -1, expected a positive, finite number");
    CHECK_THROWS_WITH(load_hardware(bad("hw-unknown-format")),
                      "tests/data/bad/hw-unknown-format.json: /dense_TFLOP_per_s/bf17: got an unknown format, expected one of: fp32, bf16, fp16, fp8, int8, int4, fp4");
    CHECK_THROWS_WITH(load_hardware(bad("hw-source-unknown")),
                      "tests/data/bad/hw-source-unknown.json: /source/interconnect_GB_per_s: got a source for a figure the file does not give, expected sources only for figures present");
    CHECK_THROWS_WITH(load_hardware(bad("hw-huge")),
                      "tests/data/bad/hw-huge.json: got text that is not JSON ([json.exception.out_of_range.406] number overflow parsing '1e999'), expected a JSON document");
    CHECK_THROWS_WITH(load_hardware(bad("not-json")),
                      Catch::StartsWith("tests/data/bad/not-json.json: got text that is not JSON ([json.exception.parse_error.101] parse error at line 2, column 1"));
}

TEST_CASE("presets: bad config.json files name file, path, value and expectation", "[presets][errors]") {
    const auto bad = [](const char* stem) { return std::string("tests/data/bad/") + stem + ".json"; };
    CHECK_THROWS_WITH(load_model(bad("model-missing-layers")),
                      "tests/data/bad/model-missing-layers.json: /num_hidden_layers: got nothing (the key is missing), expected a positive integer (model_type llama needs it)");
    CHECK_THROWS_WITH(load_model(bad("model-kv-not-dividing")),
                      "tests/data/bad/model-kv-not-dividing.json: /num_key_value_heads: got 6, expected a divisor of num_attention_heads (32)");
    CHECK_THROWS_WITH(load_model(bad("model-negative-hidden")),
                      "tests/data/bad/model-negative-hidden.json: /hidden_size: got -4096, expected a positive integer");
    CHECK_THROWS_WITH(load_model(bad("model-float-layers")),
                      "tests/data/bad/model-float-layers.json: /num_hidden_layers: got 32.5, expected a positive integer");
    CHECK_THROWS_WITH(load_model(bad("model-unknown-family")),
                      "tests/data/bad/model-unknown-family.json: /model_type: got \"falcon\" (a string), expected a supported model_type, one of: llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gpt_oss, ridgeline");
    CHECK_THROWS_WITH(load_model(bad("model-zero-experts")),
                      "tests/data/bad/model-zero-experts.json: /num_local_experts: got 0, expected a positive integer (a mixture of experts needs experts)");
    CHECK_THROWS_WITH(load_model(bad("model-topk-above-experts")),
                      "tests/data/bad/model-topk-above-experts.json: /num_experts_per_tok: got 10, expected at most num_local_experts (8)");
    CHECK_THROWS_WITH(load_model(bad("model-mla-missing-kv-lora")),
                      "tests/data/bad/model-mla-missing-kv-lora.json: /kv_lora_rank: got nothing (the key is missing), expected a positive integer (model_type deepseek_v3 needs it)");
    CHECK_THROWS_WITH(load_model(bad("model-moe-string-experts")),
                      "tests/data/bad/model-moe-string-experts.json: /num_experts: got \"128\" (a string), expected a positive integer");
    CHECK_THROWS_WITH(load_model(bad("model-negative-moe-intermediate")),
                      "tests/data/bad/model-negative-moe-intermediate.json: /moe_intermediate_size: got -768, expected a positive integer");
    CHECK_THROWS_WITH(load_model(bad("model-gpt-oss-layer-types")),
                      "tests/data/bad/model-gpt-oss-layer-types.json: /layer_types/1: got \"global_attention\" (a string), expected \"sliding_attention\" or \"full_attention\"");
    CHECK_THROWS_WITH(load_model(bad("model-gpt-oss-layer-count")),
                      "tests/data/bad/model-gpt-oss-layer-count.json: /layer_types: got an array, expected an array of 4 layer types, one per layer");
    CHECK_THROWS_WITH(load_model(bad("model-mlp-bias")),
                      "tests/data/bad/model-mlp-bias.json: /mlp_bias: got true (a boolean), expected false: MLP biases are not modelled");
    CHECK_THROWS_WITH(load_model(bad("model-own-unknown-key")),
                      "tests/data/bad/model-own-unknown-key.json: /layer_groups/0/ffn/experts_per_tok: got an unknown key, expected one of: kind, experts, experts_per_token, expert_intermediate, shared_experts, shared_intermediate, router_bias, expert_bias");
    CHECK_THROWS_WITH(load_model(bad("model-ridgeline-unknown")),
                      "tests/data/bad/model-ridgeline-unknown.json: /ridgeline/sources: got an unknown key, expected one of: source, name, parameters, parameters_source");
    CHECK_THROWS_WITH(load_model(bad("model-parameters-unsourced")),
                      "tests/data/bad/model-parameters-unsourced.json: /ridgeline/parameters_source: got nothing (the key is missing), expected a non-empty string citing the published count");
}

TEST_CASE("presets: from_json/to_json follow nlohmann's ADL convention", "[presets]") {
    const Hardware h = load_hardware("h200");
    const nlohmann::json j = h;
    CHECK(j.at("memory_bandwidth_GB_per_s") == 4800);
    CHECK(j.get<Hardware>() == h);
    const Model m = load_model("llama-2-13b");
    const nlohmann::json jm = m;
    CHECK(jm.at("layer_groups").at(0).at("attention").at("kv_heads") == 40);
    CHECK(jm.get<Model>() == m);
    for (const char* name : {"deepseek-v3", "gpt-oss-120b", "qwen3-30b-a3b", "mistral-7b-v0.1"}) {
        INFO(name);
        const Model x = load_model(name);
        CHECK(nlohmann::json(x).get<Model>() == x);
    }
}

TEST_CASE("presets: hardware figures match ../shared/facts/hardware.md, typed in again here", "[presets]") {
    struct Row {
        const char* name;
        double capacity_GB, bandwidth_GB_per_s, bf16_or_fp16_TFLOPs, fp8_TFLOPs;  // fp8 0: none
    };
    // Columns: Memory (usable), Mem BW, BF16/FP16 dense, FP8 dense, from the facts table.
    const Row rows[] = {
        {"h100-sxm", 80, 3350, 989, 1979},       {"h100-pcie", 80, 2000, 756, 1513}, {"h100-nvl", 94, 3900, 835.5, 1670.5},
        {"h200", 141, 4800, 989, 1979},          {"b200", 180, 8000, 2250, 4500},    {"gb200", 186, 8000, 2500, 5000},
        {"a100-40gb", 40, 1555, 312, 0},         {"a100-80gb", 80, 2039, 312, 0},    {"a10", 24, 600, 125, 0},
        {"l4", 24, 300, 121, 242.5},             {"l40s", 48, 864, 362.05, 733},     {"v100", 32, 900, 125, 0},
        {"rtx-4090", 24, 1008, 165.2, 330.3},    {"mi300x", 192, 5300, 1307.4, 2614.9},
        {"mi325x", 256, 6000, 1307.4, 2614.9},   {"tpu-v5e", 16, 819, 197, 0},       {"tpu-v5p", 95, 2765, 459, 0},
        {"mi250x", 64, 1638.4, 191.5, 0},  // one GCD
    };
    for (const Row& r : rows) {
        INFO(r.name);
        const Hardware h = load_hardware(r.name);
        CHECK(h.memory_capacity.in(GB) == Approx(r.capacity_GB).epsilon(1e-12));
        CHECK(h.memory_bandwidth.in(GB_per_s) == Approx(r.bandwidth_GB_per_s).epsilon(1e-12));
        const auto dense = h.peak_for(Numeric::bf16) ? h.peak_for(Numeric::bf16) : h.peak_for(Numeric::fp16);
        REQUIRE(dense.has_value());
        CHECK(dense->in(TFLOP_per_s) == Approx(r.bf16_or_fp16_TFLOPs).epsilon(1e-12));
        if (r.fp8_TFLOPs > 0) CHECK(h.peak_for(Numeric::fp8)->in(TFLOP_per_s) == Approx(r.fp8_TFLOPs).epsilon(1e-12));
        else CHECK_FALSE(h.peak_for(Numeric::fp8).has_value());  // absent, not zero
    }
}
