// Every preset in data/ loads, validates, round-trips and cites its sources; bad files give the
// documented error naming the file, the JSON path, the value and what was expected.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

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
    // Issue 13 item 6, "Devices of 2026" (the A10G is left out: no published tensor figure).
    for (const char* name : {"b300", "gb300", "mi355x", "h20", "rtx-5090", "rtx-3090", "l20", "gaudi-3", "tpu-v6e",
                             "tpu-v7"})
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
        // Every device computes a 16-bit model in the format chosen for it when none is asked
        // for: bf16, but on the V100, whose datasheet gives fp16 alone.
        CHECK(h.peak_for(default_compute(h)).has_value());
        CHECK((default_compute(h) == Numeric::fp16) == (name == "v100"));
        const auto j = read_json_file(data_directory() / "hardware" / (name + ".json"));
        REQUIRE(j.contains("source"));
        for (const auto& item : j.items())
            if (item.key() != "name" && item.key() != "source") CHECK(j.at("source").contains(item.key()));
    }
}

TEST_CASE("presets: the own form keeps the layer order, and says which group the last layer is in", "[presets][mtp]") {
    // Gemma 3 27B: 62 layers, every sixth global (its config.json's layer_types end "full,
    // sliding, sliding"): ten runs of 5 sliding and 1 full, then 2 sliding, 21 entries written
    // in layer order, so the last entry is the last layer's and no key is needed.
    const Model gemma = load_model("gemma-3-27b");
    nlohmann::json j = gemma;
    CHECK_FALSE(j.contains("last_layer_group"));
    REQUIRE(j.at("layer_groups").size() == 21);
    CHECK(j.at("layer_groups")[20].at("count") == 2);
    CHECK(gemma.groups[0].spec.window > 0);
    CHECK(gemma.last_layer_group() == 0);
    CHECK(model_from_config(j) == gemma);
    CHECK_FALSE(nlohmann::json(load_model("deepseek-v3")).contains("last_layer_group"));
    j["last_layer_group"] = std::int64_t{20};  // as signed as a file's 20 may be read
    CHECK(model_from_config(j) == gemma);
    for (const nlohmann::json& past : {nlohmann::json(21), nlohmann::json(21u), nlohmann::json(-1)}) {
        j["last_layer_group"] = past;
        CHECK_THROWS_WITH(model_from_config(j, "own.json"), "own.json: /last_layer_group: got " + past.dump() +
                                                                ", expected an index into layer_groups, an integer from 0 to 20");
    }
    // Entries that merge count as written: entry 1 is the first full run, the second group.
    j["last_layer_group"] = 1;
    CHECK(model_from_config(j).last_layer_group() == 1);
    j["last_layer_group"] = 2;
    CHECK(model_from_config(j).last_layer_group() == 0);
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
                      "b300, h20, gb200, gb300, l20, l40s, l4, mi300x, mi250x, a100-40gb, a100-80gb, mi325x, mi355x, rtx-3090, "
                      "rtx-4090, rtx-5090, tpu-v7, gaudi-3, tpu-v5e, tpu-v5p, tpu-v6e, a100-80gb-pcie");
    // A name the typed text holds comes next: a datasheet's full name finds its preset first.
    CHECK_THROWS_WITH(load_hardware("V100-SXM2-32GB"),
                      Catch::StartsWith("hardware preset: got \"V100-SXM2-32GB\", expected one of (closest first): v100, "));
    // Of two names it holds, the one nearer the whole text comes first: gb200 (6 edits from
    // "gb200-nvl72") before b200 (7).
    CHECK_THROWS_WITH(load_hardware("gb200-nvl72"),
                      Catch::StartsWith("hardware preset: got \"gb200-nvl72\", expected one of (closest first): gb200, b200, "));
    CHECK_THROWS_WITH(load_model("llama-3.1-7b"), Catch::StartsWith("model preset: got \"llama-3.1-7b\", expected one of (closest first): llama-3.1-70b, llama-3.1-8b, "));
    CHECK_THROWS_WITH(load_model("tests/data/bad/no-such-file.json"),
                      "tests/data/bad/no-such-file.json: got no such file, expected a readable JSON file");
    // Efficiency presets and measurement sets are named the same way: an engine's name alone lists
    // its devices first (names it begins), then the rest by edit distance.
    CHECK(load_efficiency("data/efficiency/vllm-h200.json").fit.bandwidth_efficiency == load_efficiency("vllm-h200").fit.bandwidth_efficiency);
    CHECK_THROWS_WITH(load_efficiency("vllm"),
                      Catch::StartsWith("efficiency preset: got \"vllm\", expected one of (closest first): vllm-a100-80gb, vllm-h100-sxm, "
                                        "vllm-h200, vllm-mi300x, "));
    CHECK_THROWS_WITH(load_measurements("publishd"),
                      "measurement set: got \"publishd\", expected one of (closest first): published, gpt-fast");
    // Each of the two file kinds, given for the other, says what it is rather than its first unknown key.
    CHECK_THROWS_WITH(load_efficiency("data/measurements/gpt-fast.json"),
                      "data/measurements/gpt-fast.json: /measurements: got an array of rows (this is a measurement set), expected an "
                      "efficiency preset: a fit's terms, as calibrate --save writes from a measurement set");
    CHECK_THROWS_WITH(load_measurements("data/efficiency/vllm-h200.json"),
                      "data/efficiency/vllm-h200.json: /measurements: got a name (this is an efficiency preset, fitted from that set), "
                      "expected an array of measurements (predict --calibration reads an efficiency preset)");
}

TEST_CASE("presets: RIDGELINE_DATA_DIR must name a directory", "[presets][errors]") {
    const std::string saved = std::getenv("RIDGELINE_DATA_DIR") ? std::getenv("RIDGELINE_DATA_DIR") : "";
    ::setenv("RIDGELINE_DATA_DIR", "tests/data/nowhere", 1);
    CHECK_THROWS_WITH(list_presets(PresetKind::model),
                      "RIDGELINE_DATA_DIR: got tests/data/nowhere, expected a directory holding hardware/ and models/");
    // A directory without the folder asked for: said so, not an empty list of names.
    ::setenv("RIDGELINE_DATA_DIR", "tests/data/bad", 1);
    CHECK_THROWS_WITH(load_hardware("h100-sxm"),
                      "hardware preset: got \"h100-sxm\", expected a preset in tests/data/bad/hardware, which has none (is the data directory right?)");
    if (saved.empty()) ::unsetenv("RIDGELINE_DATA_DIR");
    else ::setenv("RIDGELINE_DATA_DIR", saved.c_str(), 1);
}

TEST_CASE("presets: bad hardware files name file, path, value and expectation", "[presets][errors]") {
    const auto bad = [](const char* stem) { return std::string("tests/data/bad/") + stem + ".json"; };
    CHECK_THROWS_WITH(load_hardware(bad("hw-missing-bandwidth")),
                      "tests/data/bad/hw-missing-bandwidth.json: /memory_bandwidth_GB_per_s: got nothing (the key is missing), expected a number from 0.001 to below 1e9 (in the key's unit)");
    CHECK_THROWS_WITH(load_hardware(bad("hw-unknown-key")),
                      "tests/data/bad/hw-unknown-key.json: /memory_bandwidth_TB_per_s: got an unknown key, expected one of: name, memory_capacity_GB, memory_bandwidth_GB_per_s, dense_TFLOP_per_s, interconnect_GB_per_s, "
                      "memory_reported_MiB, scale_up_domain, scale_up_topology, scale_up_latency_us, scale_out_GB_per_s, scale_out_latency_us, "
                      "measured_bandwidth_GB_per_s, cuda_compute_capability, source");
    CHECK_THROWS_WITH(load_hardware(bad("hw-unknown-topology")),
                      "tests/data/bad/hw-unknown-topology.json: /scale_up_topology: got \"ring\" (a string), expected \"switch\" (any group gets the whole link) "
                      "or \"mesh\" (each pair of the domain joined directly)");
    CHECK_THROWS_WITH(load_hardware(bad("hw-mesh-one-device")),
                      "tests/data/bad/hw-mesh-one-device.json: /scale_up_topology: got \"mesh\" (a string), expected \"switch\" or no topology: "
                      "a mesh joins a scale_up_domain of 2 or more devices (the file gives 1)");
    // A link that joins no stated number of devices: a review's copy of the README's old example,
    // which split over the scale-out network and ignored the 900 GB/s without a word.
    CHECK_THROWS_WITH(load_hardware(bad("hw-link-without-domain")),
                      "tests/data/bad/hw-link-without-domain.json: /scale_up_domain: got nothing (the key is missing), expected the number of "
                      "devices interconnect_GB_per_s joins, 1 to 100000 (8 on an HGX H100 board, 72 in a GB200 NVL72)");
    CHECK_THROWS_WITH(load_hardware(bad("hw-mesh-without-link")),
                      "tests/data/bad/hw-mesh-without-link.json: /scale_up_topology: got \"mesh\" (a string), expected \"switch\" or no topology: a mesh "
                      "splits interconnect_GB_per_s, which the file does not give");
    CHECK_THROWS_WITH(load_hardware(bad("hw-string-capacity")),
                      "tests/data/bad/hw-string-capacity.json: /memory_capacity_GB: got \"80\" (a string), expected a number from 0.001 to below 1e9 (in the key's unit)");
    CHECK_THROWS_WITH(load_hardware(bad("hw-zero-bandwidth")),
                      "tests/data/bad/hw-zero-bandwidth.json: /memory_bandwidth_GB_per_s: got 0, expected a number from 0.001 to below 1e9 (in the key's unit)");
    CHECK_THROWS_WITH(load_hardware(bad("hw-negative-peak")),
                      "tests/data/bad/hw-negative-peak.json: /dense_TFLOP_per_s/bf16: got -1, expected a number from 0.001 to below 1e9 (in the key's unit)");
    CHECK_THROWS_WITH(load_hardware(bad("hw-unknown-format")),
                      "tests/data/bad/hw-unknown-format.json: /dense_TFLOP_per_s/bf17: got an unknown format, expected one of: fp32, bf16, fp16, fp8, int8, int4, fp4");
    CHECK_THROWS_WITH(load_hardware(bad("hw-source-unknown")),
                      "tests/data/bad/hw-source-unknown.json: /source/interconnect_GB_per_s: got a source for a figure the file does not give, expected sources only for figures present");
    CHECK_THROWS_WITH(load_hardware(bad("hw-huge")),
                      "tests/data/bad/hw-huge.json: /memory_capacity_GB: got 1e999 (beyond the range a double holds), expected a finite number");
    // In an array, the element's index (nlohmann's own message has no path).
    CHECK_THROWS_WITH(parse_json_text(R"({"a": [1, {"b": [2, -1e400]}]})", "n.json"),
                      "n.json: /a/1/b/1: got -1e400 (beyond the range a double holds), expected a finite number");
    CHECK_THROWS_WITH(load_hardware(bad("not-json")),
                      Catch::StartsWith("tests/data/bad/not-json.json: got text that is not JSON ([json.exception.parse_error.101] parse error at line 2, column 1"));
}

TEST_CASE("presets: a model with no position limit says so, until a front end sets one", "[presets]") {
    // A copy of Llama-3.1-8B's config.json without max_position_embeddings.
    const LoadedModel loaded = load_model_with_formats("tests/data/model-no-positions.json");
    CHECK(loaded.model.max_context == 0);
    CHECK(loaded.notes == "no max_position_embeddings: contexts are not limited");
    // --max-context (the CLI) sets one: the note goes, and only it.
    CHECK(without_position_note(loaded.notes).empty());
    CHECK(without_position_note("model_type x read as llama; no max_position_embeddings: contexts are not limited") ==
          "model_type x read as llama");
    CHECK(without_position_note("model_type x read as llama") == "model_type x read as llama");
    CHECK(load_model_with_formats("llama-3.1-8b").notes.empty());
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
                      "tests/data/bad/model-unknown-family.json: /model_type: got \"falcon\" (a string), expected a supported model_type, one of: llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, "
                      "qwen3_vl_text, qwen3_vl_moe_text, mimo, deepseek_v2, deepseek_v3, deepseek_v32, gpt_oss, gptj, gemma2, gemma3_text, gemma4_text, "
                      "phi3, phimoe, llama4_text, glm4_moe, qwen3_next, qwen3_5_text, qwen3_5_moe_text, granitemoe, nemotron-nas, granitemoehybrid, "
                      "nemotron_h, minimax_m2, glm_moe_dsa, ridgeline; or a wrapper whose "
                      "text_config has one; or architectures naming one of their classes");
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
    // mlp_bias is modelled now (LlamaMLP: gate and up carry intermediate biases, down a hidden one).
    CHECK(derived_parameters(load_model("tests/data/model-mlp-bias.json")).dense_mlp ==
          32 * (3 * 4096.0 * 14336 + 2 * 14336 + 4096));
    CHECK_THROWS_WITH(load_model(bad("model-own-unknown-key")),
                      "tests/data/bad/model-own-unknown-key.json: /layer_groups/0/ffn/experts_per_tok: got an unknown key, expected one of: kind, experts, experts_per_token, expert_intermediate, shared_experts, shared_intermediate, router_bias, expert_bias, shared_gate, ungated, latent");
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
        {"a100-80gb-pcie", 80, 1935, 312, 0},  // the facts table's "A100 80GB PCIe" row
        {"l4", 24, 300, 121, 242.5},             {"l40s", 48, 864, 362.05, 733},     {"v100", 32, 900, 125, 0},
        {"rtx-4090", 24, 1008, 165.2, 330.3},    {"mi300x", 192, 5300, 1307.4, 2614.9},
        {"mi325x", 256, 6000, 1307.4, 2614.9},   {"tpu-v5e", 16, 819, 197, 0},       {"tpu-v5p", 95, 2765, 459, 0},
        {"mi250x", 64, 1638.4, 191.5, 0},  // one GCD
        // Issue 13 item 6, "Devices of 2026", typed in again from each source:
        // b300: Blackwell Ultra datasheet HGX B300 column 270 GB | 7.7 TB/s; HGX page 36 / 72 PFLOPS sparse over 8 GPUs.
        {"b300", 270, 7700, 2250, 4500},
        // gb300: Blackwell Ultra datasheet GB300 column 279 GB, 8 TB/s; GB300 NVL72 page 360 / 720 PFLOPS sparse over 72.
        {"gb300", 279, 8000, 2500, 5000},
        // mi355x: AMD MI355X page 288 GB HBM3E, 8 TB/s, FP16 2.5 PF, OCP-FP8 5 PF dense.
        {"mi355x", 288, 8000, 2500, 5000},
        // h20: secondary sources quoting NVIDIA's H20 sheet: 96 GB, 4.0 TB/s, FP16 148, FP8 296.
        {"h20", 96, 4000, 148, 296},
        // rtx-5090: 32 GB GDDR7, 1,792 GB/s; 838.4 sparse FP16-accumulate / 2 / 2 for FP32 accumulate; FP8 likewise.
        {"rtx-5090", 32, 1792, 209.5, 419.2},
        // rtx-3090: GA102 whitepaper 24 GB, 936 GB/s, 71 with FP32 accumulate; no FP8 on Ampere.
        {"rtx-3090", 24, 936, 71, 0},
        // l20: 48 GB GDDR6, 864 GB/s, FP16 119.5 dense; no FP8 figure found.
        {"l20", 48, 864, 119.5, 0},
        // gaudi-3: Intel Gaudi 3 white paper 128 GB HBM2e, 3.7 TB/s, BF16 = FP8 = 1,835.
        {"gaudi-3", 128, 3700, 1835, 1835},
        // tpu-v6e: Cloud TPU v6e docs 32 GB, 1638 GBps, 918 BF16; the TPU7x page's FP8 row: 918.
        {"tpu-v6e", 32, 1638, 918, 918},
        // tpu-v7: Cloud TPU7x docs 192 GiB (read as GB), ~7.37 TB/s, 2307 BF16, 4614 FP8.
        {"tpu-v7", 192, 7370, 2307, 4614},
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

TEST_CASE("presets: the 2026 devices' FP4 and INT8 peaks, typed in again, and what is left out", "[presets]") {
    struct Peak {
        const char* name;
        double fp4_TFLOPs, int8_TOPs;  // 0: the preset must not give it
    };
    const Peak rows[] = {
        {"b300", 14000, 0},      // Blackwell Ultra datasheet "18 | 14 PFLOPS"; INT8 not settled, left out
        {"gb300", 15000, 0},     // GB300 NVL72 page 1,080 PFLOPS dense / 72; INT8 left out
        {"mi355x", 10100, 5000}, // AMD: MXFP4 10.1 PF, INT8 5 POPS dense
        {"h20", 0, 296},         // Hopper: no FP4; INT8 296 TOPS
        {"rtx-5090", 1676, 838.4}, // 3,352 AI TOPS sparse / 2; INT8 838.4 dense
        {"rtx-3090", 0, 0},      // INT8 not confirmed
        {"l20", 0, 239},         // INT8 239 TOPS
        {"gaudi-3", 0, 0},       // not published
        {"tpu-v6e", 0, 1836},    // Cloud TPU v6e docs 1836 TOPs
        {"tpu-v7", 0, 0},        // not published
    };
    for (const Peak& r : rows) {
        INFO(r.name);
        const Hardware h = load_hardware(r.name);
        if (r.fp4_TFLOPs > 0) CHECK(h.peak_for(Numeric::fp4)->in(TFLOP_per_s) == Approx(r.fp4_TFLOPs).epsilon(1e-12));
        else CHECK_FALSE(h.peak_for(Numeric::fp4).has_value());
        if (r.int8_TOPs > 0) CHECK(h.peak_for(Numeric::int8)->in(TFLOP_per_s) == Approx(r.int8_TOPs).epsilon(1e-12));
        else CHECK_FALSE(h.peak_for(Numeric::int8).has_value());
    }
    // The A10G has no published tensor figure (../shared/facts/hardware.md), so it is not a preset.
    const auto hw = list_presets(PresetKind::hardware);
    CHECK(std::find(hw.begin(), hw.end(), "a10g") == hw.end());
}

// Issue 12, "every input, however hostile": the loaders' limits. Each expected message is the
// documented form "<file>: <JSON pointer>: got <value>, expected <what>"; the values are the
// fixtures' own text (nlohmann prints 1e12 as 1000000000000.0, 2e6 as 2000000.0, 1e-5 as 1e-05).

namespace {
std::string bad_file(const char* stem) { return std::string("tests/data/bad/") + stem + ".json"; }

// A fresh directory of its own under the system's temporary directory, removed at the end.
struct TempDir {
    fs::path path = fs::temp_directory_path() / ("ridgeline-presets-" + std::to_string(::getpid()));
    TempDir() {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};
}  // namespace

TEST_CASE("presets: a key given twice in one object is refused, naming both", "[presets][errors]") {
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-duplicate-key")),
                      "tests/data/bad/hw-duplicate-key.json: /memory_bandwidth_GB_per_s: got a second memory_bandwidth_GB_per_s "
                      "(the key appears twice in the same object, as members 3 and 4), expected each key once");
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-duplicate-peak")),
                      "tests/data/bad/hw-duplicate-peak.json: /dense_TFLOP_per_s/bf16: got a second bf16 "
                      "(the key appears twice in the same object, as members 1 and 3), expected each key once");
    CHECK_THROWS_WITH(load_model(bad_file("model-duplicate-key")),
                      "tests/data/bad/model-duplicate-key.json: /hidden_size: got a second hidden_size "
                      "(the key appears twice in the same object, as members 3 and 8), expected each key once");
    CHECK_THROWS_WITH(load_measurements(bad_file("measurements-duplicate-key")),
                      "tests/data/bad/measurements-duplicate-key.json: /measurements/1/tokens_per_s: got a second tokens_per_s "
                      "(the key appears twice in the same object, as members 3 and 5), expected each key once");
    // In text: inside arrays the pointer counts elements, and keys are escaped per RFC 6901.
    CHECK_THROWS_WITH(parse_json_text(R"({"a": [1, {"b": [{}, [], {"c/d": 1, "e": 2, "c/d": 3}]}]})", "t.json"),
                      "t.json: /a/1/b/2/c~1d: got a second c/d (the key appears twice in the same object, as members 1 and 3), "
                      "expected each key once");
    // The same key in two different objects is fine.
    CHECK(parse_json_text(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]})", "t.json").size() == 3);
    // Nesting is refused past 1,000 levels, before a document is built (33 million '[' took 83 s
    // and 5.8 GB to reach nlohmann's own error); 1,000 levels are read.
    CHECK(parse_json_text(std::string(1000, '[') + std::string(1000, ']'), "t.json").is_array());
    CHECK_THROWS_WITH(parse_json_text(std::string(1001, '['), "t.json"),
                      "t.json: got values nested deeper than 1000 levels, expected JSON nested at most 1000 deep");
    // Syntax errors after a duplicate-free prefix still read as nlohmann words them.
    CHECK_THROWS_WITH(parse_json_text(R"({"a": 1, "b": })", "t.json"),
                      Catch::StartsWith("t.json: got text that is not JSON ([json.exception.parse_error.101] parse error at line 1, column 15"));
}

TEST_CASE("presets: tiny, subnormal and out-of-range figures are refused with their range", "[presets][errors]") {
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-subnormal-bandwidth")),
                      "tests/data/bad/hw-subnormal-bandwidth.json: /memory_bandwidth_GB_per_s: got 5e-324, expected a number from 0.001 to below 1e9 (in the key's unit)");
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-tiny-peak")),
                      "tests/data/bad/hw-tiny-peak.json: /dense_TFLOP_per_s/bf16: got 0.0009, expected a number from 0.001 to below 1e9 (in the key's unit)");
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-tiny-memory-reported")),
                      "tests/data/bad/hw-tiny-memory-reported.json: /memory_reported_MiB: got 1e-300, expected a number from 0.001 to below 1e9 (in the key's unit)");
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-tiny-scale-out")),
                      "tests/data/bad/hw-tiny-scale-out.json: /scale_out_GB_per_s: got 1e-05, expected a number from 0.001 to below 1e9 (in the key's unit)");
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-negative-latency")),
                      "tests/data/bad/hw-negative-latency.json: /scale_up_latency_us: got -1, expected 0, or a number of microseconds from 0.001 to 1e6");
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-latency-too-long")),
                      "tests/data/bad/hw-latency-too-long.json: /scale_out_latency_us: got 2000000.0, expected 0, or a number of microseconds from 0.001 to 1e6");
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-subnanosecond-latency")),
                      "tests/data/bad/hw-subnanosecond-latency.json: /scale_up_latency_us: got 1e-07, expected 0, or a number of microseconds from 0.001 to 1e6");
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-zero-domain")),
                      "tests/data/bad/hw-zero-domain.json: /scale_up_domain: got 0, expected a positive integer");
    CHECK_THROWS_WITH(load_hardware(bad_file("hw-name-control")),
                      "tests/data/bad/hw-name-control.json: /name: got \"h100\\nsxm\" (a string), expected a name without control characters");
    CHECK_THROWS_WITH(load_model(bad_file("model-parameters-half")),
                      "tests/data/bad/model-parameters-half.json: /ridgeline/parameters: got 0.5, expected a count from 1 to below 1e16");
    // A count far from the shape's, by hand for Llama-3.1-8B's: 32 layers of 4096 x (4096 + 2 x 1024
    // + 4096) attention and 3 x 4096 x 14336 MLP, 2 x 128,256 x 4,096 tables, 65 norms of 4,096:
    // 8,030,261,248 (Meta's "8B").
    CHECK_THROWS_WITH(load_model(bad_file("model-parameters-other-model")),
                      "tests/data/bad/model-parameters-other-model.json: /ridgeline/parameters: got 1100000000.0, expected a count within a "
                      "factor of 1.5 of the 8030261248 parameters the config's architecture has (a published count rounds it)");
    CHECK_THROWS_WITH(load_measurements(bad_file("measurements-tiny-tpot")),
                      "tests/data/bad/measurements-tiny-tpot.json: /measurements/3/tpot_ms: got 1e-300, expected a number from 0.001 to below 1e9 (in the key's unit)");

    // The edges themselves load: 0.001 of the unit, a latency of exactly 0 and exactly 1e6 us.
    const auto hw = [](const char* extra) {
        return nlohmann::json::parse(std::string(R"({"name": "x", "memory_capacity_GB": 0.001, "memory_bandwidth_GB_per_s": 0.001,
                                                     "dense_TFLOP_per_s": {"bf16": 0.001})") + extra + "}");
    };
    const Hardware edge = hardware_from_json(hw(R"(, "scale_up_latency_us": 0, "scale_out_latency_us": 1e6)"), "e.json");
    CHECK(edge.memory_bandwidth.in(GB_per_s) == 0.001);
    CHECK(edge.scale_up_latency->in(us) == 0);
    CHECK(edge.scale_out_latency->in(us) == 1e6);
    // An A100 80GB's figures with one more key, "key": value.
    const auto a100 = [](const std::string& key, const char* value) {
        return nlohmann::json::parse(std::string(R"({"name": "x", "memory_capacity_GB": 80, "memory_bandwidth_GB_per_s": 2039,
                                                     "dense_TFLOP_per_s": {"bf16": 312}, ")") + key + "\": " + value + "}");
    };
    // A measured bandwidth loads up to the peak and is refused past it: no read beats the pins.
    const auto peak = [&](const char* measured) { return a100("measured_bandwidth_GB_per_s", measured); };
    CHECK(hardware_from_json(peak("2039"), "m.json").measured_bandwidth->in(GB_per_s) == 2039);
    CHECK_THROWS_WITH(hardware_from_json(peak("2040"), "m.json"),
                      "m.json: /measured_bandwidth_GB_per_s: got 2040, expected a measured bandwidth at most the peak memory_bandwidth_GB_per_s (2039)");
    CHECK_THROWS_WITH(hardware_from_json(peak("0"), "m.json"),
                      "m.json: /measured_bandwidth_GB_per_s: got 0, expected a number from 0.001 to below 1e9 (in the key's unit)");
    // A CUDA compute capability: what the CUDA GPUs table gives (8.0 for an A100), read back in
    // the file's form; none on a device that is not NVIDIA's.
    const auto capability = [&](const char* v) { return a100("cuda_compute_capability", v); };
    CHECK(*hardware_from_json(capability("8.0"), "c.json").cuda_capability == 8.0);
    CHECK(nlohmann::json(hardware_from_json(capability("8.6"), "c.json"))["cuda_compute_capability"] == 8.6);
    CHECK(*load_hardware("v100").cuda_capability == 7.0);
    CHECK_FALSE(load_hardware("mi250x").cuda_capability);
    // A device built in code is held to the same bounds.
    Hardware coded = load_hardware("a100-80gb");
    coded.cuda_capability = 80;
    CHECK_THROWS_WITH(validate(coded), "hardware 'NVIDIA A100 SXM4 80GB' cuda_capability: got 80, expected a CUDA compute capability from 1 "
                                       "to 20, e.g. 8.0 for an A100");
    CHECK_THROWS_WITH(hardware_from_json(capability("80"), "c.json"),
                      "c.json: /cuda_compute_capability: got 80, expected a CUDA compute capability from 1 to 20, e.g. 8.0 for an A100");
    CHECK_THROWS_WITH(hardware_from_json(capability("\"8.0\""), "c.json"),
                      "c.json: /cuda_compute_capability: got \"8.0\" (a string), expected a CUDA compute capability from 1 to 20, e.g. 8.0 for an A100");
    CHECK_FALSE(load_hardware("l40s").measured_bandwidth);  // no published figure found: a one-row fit holds 100%
    CHECK(load_hardware("rtx-4090").measured_bandwidth->in(GB_per_s) == 921.9);
    // A report past the device's memory is refused: 80 GB is at most 81,920 MiB (an A100 80GB
    // reports exactly that, nvidia-smi; an H100 81,559).
    const auto reported = [&](const char* mib) { return a100("memory_reported_MiB", mib); };
    CHECK(hardware_from_json(reported("81920"), "r.json").memory_reported->in(MiB) == 81920);
    CHECK_THROWS_WITH(hardware_from_json(reported("1e7"), "r.json"),
                      "r.json: /memory_reported_MiB: got 10000000.0, expected at most memory_capacity_GB read as GiB (81920 MiB)");
    // Nor far below it: ECC on GDDR keeps back 1/16 (the L40S's 48 GB reports 46,068 MiB, 0.94 of
    // it), so under 0.9 x 80e9 / 2^20 = 68,664.6 MiB is a typo, not a device.
    CHECK(load_hardware("l40s").memory_reported->in(MiB) == 46068);
    // Gaudi 3's "128 GB" is 128 GiB: hl-smi reports 131,072 MiB on each HL-325L (the preset's source).
    CHECK(load_hardware("gaudi-3").memory_reported->in(MiB) == 131072);
    CHECK(hardware_from_json(reported("68665"), "r.json").memory_reported->in(MiB) == 68665);
    CHECK_THROWS_WITH(hardware_from_json(reported("1"), "r.json"),
                      "r.json: /memory_reported_MiB: got 1, expected at least 0.9 of memory_capacity_GB (68665 MiB): a device reports nearly all it holds");
    CHECK_THROWS_WITH(hardware_from_json(hw(R"(, "memory_reported_MiB": 1e9)"), "e.json"),
                      "e.json: /memory_reported_MiB: got 1000000000.0, expected a number from 0.001 to below 1e9 (in the key's unit)");
    // A declared count of 1e16 does not load.
    const auto own = [](const char* parameters) {
        return nlohmann::json::parse(std::string(R"({"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 8,
            "num_attention_heads": 1, "intermediate_size": 8, "vocab_size": 8, "ridgeline": {"parameters": )") +
                                     parameters + R"(, "parameters_source": "test"}})");
    };
    // The file's bound is 1, but a count below the model's 8 x 8 embedding table and its untied
    // 8 x 8 LM head, 128 parameters, leaves its layers a negative share: refused.
    CHECK_THROWS_WITH(model_from_config(own("1"), "p.json"),
                      "p.json: model 'model' declared parameters: got 1, expected at least the embedding table and LM head's 128 parameters");
    // That bound holds a hand-built model; a config.json's count is held near its own shape's, 600
    // here by hand (the two 64-parameter tables, q, k, v and o of 8 x 8, a gated MLP of 3 x 8 x 8,
    // two norms of 8 and the final one).
    Model at_bound = model_from_config(own("600"), "p.json");
    at_bound.with_parameters(128);
    CHECK_NOTHROW(validate(at_bound));
    CHECK_THROWS_WITH(model_from_config(own("128"), "p.json"),
                      "p.json: /ridgeline/parameters: got 128, expected a count within a factor of 1.5 of the 600 parameters the config's "
                      "architecture has (a published count rounds it)");
    CHECK_THROWS_WITH(model_from_config(own("1e16"), "p.json"),
                      "p.json: /ridgeline/parameters: got 1e+16, expected a count from 1 to below 1e16");
}

TEST_CASE("presets: only regular files of at most 64 MiB are read, under any file name", "[presets][errors]") {
    TempDir tmp;
    // A FIFO with no writer would block an open() forever: it must be refused before that.
    const fs::path fifo = tmp.path / "gpu.json";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THROWS_WITH(load_hardware(fifo.string()), fifo.string() + ": got a FIFO, not a regular file, expected a regular JSON file");
    // /dev/zero never ends.
    CHECK_THROWS_WITH(load_model("/dev/zero"), "/dev/zero: got a character device, not a regular file, expected a regular JSON file");
    CHECK_THROWS_WITH(load_measurements("tests/data/bad"), "tests/data/bad: got a directory, not a regular file, expected a regular JSON file");
    // Only a model's directory means its config.json: an efficiency preset's is refused as one.
    CHECK_THROWS_WITH(load_efficiency("tests/data/bad"), "tests/data/bad: got a directory, not a regular file, expected a regular JSON file");

    // One byte over 64 MiB (64 x 1,048,576 = 67,108,864 bytes), sparse: refused before reading.
    const fs::path big = tmp.path / "big.json";
    std::ofstream{big}.put(' ');
    fs::resize_file(big, 67108864 + 1);
    CHECK_THROWS_WITH(read_json_file(big), big.string() + ": got a file of 67108865 bytes, expected a JSON file of at most 64 MiB (67108864 bytes)");

    // A name that is not UTF-8, with a control character: printed as \xNN, so the message can be
    // written into JSON without nlohmann's type_error.316.
    const std::string odd = "tests/data/bad/\xff\x01odd.json";
    try {
        (void)load_hardware(odd);
        FAIL("no error");
    } catch (const ridgeline::error& e) {
        CHECK(std::string(e.what()) == "tests/data/bad/\\xFF\\x01odd.json: got no such file, expected a readable JSON file");
        CHECK_NOTHROW(nlohmann::json{{"error", e.what()}}.dump());
    }
    // A model named after such a file gets a printable name too.
    const fs::path odd_model = tmp.path / "\xfe\x7f.json";
    {
        std::ofstream out{odd_model};
        out << R"({"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 8, "num_attention_heads": 1,
                   "intermediate_size": 8, "vocab_size": 8})";
    }
    const Model m = load_model(odd_model.string());
    CHECK(m.name.view() == "\\xFE\\x7F");
    CHECK_NOTHROW(nlohmann::json(m).dump());
    // Bytes that are not UTF-8 inside the text are nlohmann's parse error, quoted printably.
    CHECK_THROWS_WITH(parse_json_text("{\"a\": \"\xff\"}", "u.json"),
                      "u.json: got text that is not JSON ([json.exception.parse_error.101] parse error at line 1, column 8: syntax error "
                      "while parsing value - invalid string: ill-formed UTF-8 byte; last read: '\"\\xFF'), expected a JSON document");
}

TEST_CASE("presets: a config.json without model_type, and a file name too long for a model name", "[presets][errors]") {
    const std::string families = "llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, qwen3_vl_text, qwen3_vl_moe_text, mimo, "
                                 "deepseek_v2, deepseek_v3, deepseek_v32, gpt_oss, gptj, gemma2, gemma3_text, gemma4_text, phi3, phimoe, "
                                 "llama4_text, glm4_moe, qwen3_next, qwen3_5_text, qwen3_5_moe_text, granitemoe, nemotron-nas, "
                                 "granitemoehybrid, nemotron_h, minimax_m2, glm_moe_dsa, ridgeline";
    CHECK_THROWS_WITH(load_model(bad_file("model-no-model-type")),
                      "tests/data/bad/model-no-model-type.json: /model_type: got nothing (the key is missing), expected one of: " + families);
    // Where a caller guesses hardware for a file without model_type (the CLI's show), the same.
    CHECK_THROWS_WITH(load_hardware(bad_file("model-no-model-type")),
                      "tests/data/bad/model-no-model-type.json: /model_type: got nothing (the key is missing), expected one of: " + families +
                          " (the file has hidden_size, so it is a model's config.json, not a hardware file)");
    // A whole config.json given for a device is named by its model_type, not called one without it.
    CHECK_THROWS_WITH(load_hardware("data/models/llama-3.1-8b.json"),
                      "data/models/llama-3.1-8b.json: /model_type: got \"llama\" (a string), expected no model_type in a hardware file: "
                      "this is a model's config.json, and a hardware file has name, memory_capacity_GB, memory_bandwidth_GB_per_s and "
                      "dense_TFLOP_per_s");
    // The stem is 64 characters; a model name holds 63. The file has no "ridgeline" object.
    const std::string stem = "model-whose-file-name-stem-is-sixty-four-characters-long-abcdefg";
    REQUIRE(stem.size() == 64);
    CHECK_THROWS_WITH(load_model("tests/data/bad/" + stem + ".json"),
                      "tests/data/bad/" + stem + ".json: got a file name whose stem \"" + stem +
                          "\" has 64 characters, too long for a model name, expected a stem of at most 63 characters, "
                          "or a \"ridgeline\": {\"name\": ...} in the file");
    // A name in the file lifts the limit on the stem.
    auto j = read_json_file("tests/data/bad/" + stem + ".json");
    j["ridgeline"] = {{"name", "short"}};
    CHECK(model_from_config(j, "tests/data/bad/" + stem + ".json", stem).name.view() == "short");
}

TEST_CASE("presets: layer-index lists and layer counts in config.json are checked for range", "[presets][errors]") {
    // The qwen3_moe fixtures have num_hidden_layers 4: indices 0 to 3.
    CHECK_THROWS_WITH(load_model(bad_file("model-mlp-only-negative")),
                      "tests/data/bad/model-mlp-only-negative.json: /mlp_only_layers/1: got -1, expected a layer index from 0 to 3 (num_hidden_layers is 4)");
    CHECK_THROWS_WITH(load_model(bad_file("model-mlp-only-float")),
                      "tests/data/bad/model-mlp-only-float.json: /mlp_only_layers/0: got 1000000000000.0, expected a layer index from 0 to 3 (num_hidden_layers is 4)");
    CHECK_THROWS_WITH(load_model(bad_file("model-mlp-only-huge")),
                      "tests/data/bad/model-mlp-only-huge.json: /mlp_only_layers/0: got 1000000000000, expected a layer index from 0 to 3 (num_hidden_layers is 4)");
    CHECK_THROWS_WITH(load_model(bad_file("model-mlp-only-past-end")),
                      "tests/data/bad/model-mlp-only-past-end.json: /mlp_only_layers/0: got 4, expected a layer index from 0 to 3 (num_hidden_layers is 4)");
    CHECK_THROWS_WITH(load_model(bad_file("model-sparse-step-past-layers")),
                      "tests/data/bad/model-sparse-step-past-layers.json: /decoder_sparse_step: got 5, expected a positive integer of at most num_hidden_layers (4)");
    CHECK_THROWS_WITH(load_model(bad_file("model-first-dense-past-layers")),
                      "tests/data/bad/model-first-dense-past-layers.json: /first_k_dense_replace: got 5, expected at most num_hidden_layers (4)");
    CHECK_THROWS_WITH(load_model(bad_file("model-gpt-oss-mlp-bias")),
                      "tests/data/bad/model-gpt-oss-mlp-bias.json: /mlp_bias: got true (a boolean), expected no mlp_bias key: gpt_oss has none (its experts always have biases)");
    // In range, the listed layers are dense: layers 0 and 3 of 4 leave two MoE layers.
    auto j = read_json_file(bad_file("model-mlp-only-past-end"));
    j["mlp_only_layers"] = {0, 3};
    const Model m = model_from_config(j, "q.json");
    std::int64_t dense = 0, moe = 0;
    for (const auto& g : m) (std::holds_alternative<DenseMlp>(g.spec.ffn) ? dense : moe) += g.count;
    CHECK(dense == 2);
    CHECK(moe == 2);
}

TEST_CASE("presets: measurement errors name the file and the row", "[presets][errors]") {
    CHECK_THROWS_WITH(load_measurements(bad_file("measurements-bad-row")),
                      "tests/data/bad/measurements-bad-row.json: /measurements/1/weights: got \"int3\" (a string), expected a format name: "
                      "fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or e.g. int4/g128");
    CHECK_THROWS_WITH(load_measurements(bad_file("measurements-tiny-tpot")),
                      Catch::StartsWith("tests/data/bad/measurements-tiny-tpot.json: /measurements/3/tpot_ms: "));
    // A format for a part the model lacks would be carried and never read.
    CHECK_THROWS_WITH(load_measurements(bad_file("measurements-experts-dense")),
                      "tests/data/bad/measurements-experts-dense.json: /measurements/1/experts: got int4, expected no experts: model "
                      "'llama-2-7b' has no routed experts");
    CHECK_THROWS_WITH(load_measurements(bad_file("measurements-lm-head-tied")),
                      "tests/data/bad/measurements-lm-head-tied.json: /measurements/0/lm_head: got fp8, expected no lm_head: model "
                      "'gemma-2-9b' ties its LM head to the input table (give embeddings)");
    // A preset the catalogue lacks is the row's error, before calibrate or a table sees it.
    CHECK_THROWS_WITH(load_measurements(bad_file("measurements-unknown-model")),
                      Catch::StartsWith("tests/data/bad/measurements-unknown-model.json: /measurements/1/model: got \"llama-2-7c\", "
                                        "expected one of (closest first): llama-2-7b, "));
}
