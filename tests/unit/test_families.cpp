// The families of 2025-26, each imported from the Hub's own config.json (tests/data/hub/, every
// file's source in tests/data/hub/SOURCES.md): totals against the publisher's printed figure,
// KV (or recurrent state) bytes by hand from the config's own sizes, a decode step, and the
// transformers default for each key a file may leave out.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

using namespace ridgeline;

namespace {
nlohmann::json hub(const std::string& file) { return read_json_file("tests/data/hub/" + file); }
Model hub_model(const std::string& file) { return load_model("tests/data/hub/" + file); }
void write_fixture(const std::filesystem::path& file, const nlohmann::json& j) { std::ofstream(file) << j.dump(); }
// The language model's keys: the file itself, or its text_config.
Model config_without(nlohmann::json j, std::initializer_list<const char*> keys, bool in_text = false) {
    for (const char* k : keys) (in_text ? j["text_config"] : j).erase(k);
    return model_from_config(j, "test.json");
}
Model with(nlohmann::json j, const char* key, const nlohmann::json& value, bool in_text = false) {
    (in_text ? j["text_config"] : j)[key] = value;
    return model_from_config(j, "test.json");
}
std::int64_t layers_where(const Model& m, bool (*pick)(const LayerSpec&)) {
    std::int64_t n = 0;
    for (const auto& g : m)
        if (pick(g.spec)) n += g.count;
    return n;
}
template <class Kind>
const Kind& first(const Model& m) {
    for (const auto& g : m)
        if (const auto* k = std::get_if<Kind>(&g.spec.attention)) return *k;
    throw std::logic_error("no such attention kind");
}
// A decode step that runs and gives a finite, positive time.
void decodes(const Model& m, const char* hardware = "h200", std::int64_t tp = 1) {
    Workload w;
    w.batch = 8;
    w.context = 4096;
    const DecodeStep s = decode_step(Deployment{load_hardware(hardware), Parallelism{.tensor = tp}}, m, w);
    CHECK(std::isfinite(s.step_time.in(ms)));
    CHECK(s.step_time > Seconds{});
}
// The same layers in the same order, and the same sizes (names aside: a file's stem names one).
bool same_layers(const Model& a, const Model& b) {
    Model renamed = b;
    renamed.name = a.name;
    return renamed == a;
}
// Active parameters less the input table (and the LM head too, where a publisher leaves both out).
double active_without_tables(const Model& m, bool lm_head_too) {
    const ParameterBreakdown a = active_parameters(m);
    return a.total() - a.embeddings - (lm_head_too ? a.lm_head : 0.0);
}
}  // namespace

TEST_CASE("gemma2: 2B, 9B and 27B from their config.json", "[families][gemma]") {
    // Google's Gemma 2 report (SOURCES.md): 2.6B, 9.24B and 27.2B parameters.
    const Model g2 = hub_model("gemma-2-2b-from-mlc-llm.json"), g9 = hub_model("gemma-2-9b-from-mlc-llm.json"),
                g27 = hub_model("gemma-2-27b-from-mlc-llm.json");
    CHECK(derived_parameters(g2).total() / 1e9 == Approx(2.6).margin(0.05));
    CHECK(derived_parameters(g9).total() / 1e9 == Approx(9.24).margin(0.005));
    CHECK(derived_parameters(g27).total() / 1e9 == Approx(27.2).margin(0.05));
    CHECK(g9.tied_embeddings);
    // gemma-2-9b: 42 layers, 8 KV heads x 256 (head_dim): 2 x 8 x 256 = 4,096 elements a layer,
    // 2 bytes each in BF16.
    CHECK(kv_bytes_per_token(g9, formats::bf16).in(bytes) == 42 * 4096 * 2.0);
    // Every other layer (0, 2, ...) slides over 4,096 tokens: at 16k, 21 read 4,096 and 21 all.
    CHECK(kv_bytes_read(g9, formats::bf16, 16384).in(bytes) == (21 * 4096.0 + 21 * 16384.0) * 4096 * 2);
    // Four norms a layer (input, post-attention, pre- and post-feedforward) and the final one.
    CHECK(derived_parameters(g9).norms == (42 * 4 + 1) * 3584.0);
    decodes(g9);
}

TEST_CASE("gemma3: 1B (gemma3_text) and the 12B and 27B wrappers read as their language model", "[families][gemma]") {
    const Model g1 = hub_model("gemma-3-1b-it-from-mlc-llm.json");
    // Google: "1 billion, 4 billion, 12 billion, and 27 billion parameters" (SOURCES.md).
    CHECK(derived_parameters(g1).total() / 1e9 == Approx(1.0).margin(0.05));
    // 26 layers, one KV head of 256: 512 elements a layer.
    CHECK(kv_bytes_per_token(g1, formats::bf16).in(bytes) == 26 * 512 * 2.0);
    // sliding_window 512 on five layers in six: layers 5, 11, 17 and 23 are global.
    CHECK(layers_where(g1, [](const LayerSpec& s) { return s.window == 512; }) == 22);
    CHECK(first<Gqa>(g1).qk_norm);

    const LoadedModel g27 = load_model_with_formats("tests/data/hub/gemma-3-27b-it-resaved-from-nxdi.json");
    // The language model alone; with the 0.41 B vision tower, Google's "27 billion".
    CHECK(derived_parameters(g27.model).total() / 1e9 == Approx(27).margin(0.5));
    CHECK(g27.notes ==
          "language model read from text_config (model_type gemma3_text) of a gemma3 checkpoint; vision tower: 27 layers of "
          "width 1152 (MLP 4304), about 0.41 B parameters, not counted");
    // 62 layers, 16 KV heads x 128.
    CHECK(kv_bytes_per_token(g27.model, formats::bf16).in(bytes) == 62 * 2 * 16 * 128 * 2.0);
    const Model g12 = hub_model("gemma-3-12b-resaved-from-diffsynth.json");
    CHECK(derived_parameters(g12).total() / 1e9 == Approx(12.0).margin(0.5));  // "12 billion", with the 0.41 B tower
    decodes(g27.model);
}

TEST_CASE("phi3: Phi-3-mini, Phi-3-medium, Phi-3.5-mini, Phi-4-mini and Phi-4", "[families][phi]") {
    // Microsoft: Phi-3-mini 3.8B, Phi-3-medium 14B, Phi-3.5-mini 3.8B, Phi-4-mini 3.8B, Phi-4 14.7B.
    CHECK(derived_parameters(hub_model("phi-3-mini-4k-instruct-from-tensorrt-llm.json")).total() / 1e9 == Approx(3.8).margin(0.05));
    CHECK(derived_parameters(hub_model("phi-3-medium-4k-instruct-from-onnx-tool.json")).total() / 1e9 == Approx(14).margin(0.5));
    CHECK(derived_parameters(hub_model("phi-3.5-mini-instruct-from-mlc-llm.json")).total() / 1e9 == Approx(3.8).margin(0.05));
    CHECK(derived_parameters(hub_model("phi-4-mini-instruct-from-mlc-llm.json")).total() / 1e9 == Approx(3.8).margin(0.05));
    const Model phi4 = hub_model("phi-4.json");
    CHECK(derived_parameters(phi4).total() / 1e9 == Approx(14.7).margin(0.05));
    // 40 layers, 10 KV heads x 128 (5120 / 40).
    CHECK(kv_bytes_per_token(phi4, formats::bf16).in(bytes) == 40 * 2 * 10 * 128 * 2.0);
    // Phi-3-mini: sliding_window 2047 on every layer, as Phi3Attention applies it.
    const Model mini = hub_model("phi-3-mini-4k-instruct-from-tensorrt-llm.json");
    CHECK(layers_where(mini, [](const LayerSpec& s) { return s.window == 2047; }) == 32);
    decodes(phi4);
}

TEST_CASE("llama4: Scout and Maverick, chunked local layers and NoPE global ones", "[families][llama4]") {
    const Model scout = hub_model("llama-4-scout-17b-16e-instruct-partial.json");
    const Model maverick = hub_model("llama-4-maverick-17b-128e-instruct-partial.json");
    // Meta: "17B active parameters out of ~109B total" (Scout), "~400B total" (Maverick), both
    // counting the vision tower, which the text_config files here leave out (about 1 B).
    // Scout's language model by hand: attention 48 x (2 x 5120^2 + 2 x 5120 x 1024), experts and
    // the shared one below, router 48 x 5120 x 16, norms (2 x 48 + 1) x 5120, and the two tables
    // 2 x 202048 x 5120: 107.8 B, the rest of Meta's 109 B being the vision tower.
    const double scout_total = 48 * (2 * 5120.0 * 5120 + 2 * 5120.0 * 1024) + 48 * 17 * 3 * 5120.0 * 8192 +
                               48 * 5120.0 * 16 + 97 * 5120.0 + 2 * 202048.0 * 5120;
    CHECK(derived_parameters(scout).total() == Approx(scout_total).epsilon(1e-12));
    CHECK(derived_parameters(scout).total() / 1e9 == Approx(109).margin(1.5));
    CHECK(derived_parameters(maverick).total() / 1e9 == Approx(400).margin(1));
    CHECK(active_parameters(scout).total() / 1e9 == Approx(17).margin(0.5));
    CHECK(active_parameters(maverick).total() / 1e9 == Approx(17).margin(0.5));
    // By hand for Scout (hidden 5120, 48 layers, 16 experts of 8192, one shared of 8192):
    //   experts 48 x 16 x 3 x 5120 x 8192, shared 48 x 3 x 5120 x 8192.
    CHECK(derived_parameters(scout).experts == 48 * 16 * 3 * 5120.0 * 8192);
    CHECK(derived_parameters(scout).shared_experts == 48 * 3 * 5120.0 * 8192);
    // Maverick interleaves: 24 MoE layers and 24 dense ones of intermediate_size_mlp 16384.
    CHECK(derived_parameters(maverick).dense_mlp == 24 * 3 * 5120.0 * 16384);
    // Three layers in four attend within 8,192-token chunks; every fourth (NoPE) to everything.
    CHECK(layers_where(scout, [](const LayerSpec& s) { return s.chunked && s.window == 8192; }) == 36);
    // K and V of 8 KV heads x 128 = 2,048 elements a layer. At 32k (four whole chunks) the 36
    // chunked layers start a new chunk and read none of their cache; the 12 NoPE layers read all.
    CHECK(kv_bytes_read(scout, formats::bf16, 32768).in(bytes) == (36 * 0.0 + 12 * 32768.0) * 2048 * 2);
    decodes(scout, "h200", 8);
}

TEST_CASE("llama4: a chunked layer reads the tokens since its chunk began and keeps at most a chunk", "[families][llama4]") {
    // Llama-4-Scout's text_config (tests/data/hub/llama-4-scout-17b-16e-instruct-partial.json):
    // 48 layers, attention_chunk_size 8192, no_rope_layer_interval absent (4: 36 chunked RoPE
    // layers, 12 global NoPE ones), 40 query heads and 8 KV heads of head_dim 128. A layer's K and
    // V are 2 x 8 x 128 = 2,048 elements a token, 4,096 bytes in bf16; its attention scores and
    // weighted values cost 4 x 40 x 128 = 20,480 FLOPs per token attended (reach.hpp: at context n
    // a chunked layer reads the n mod 8192 cached tokens of its own chunk).
    const Model scout = hub_model("llama-4-scout-17b-16e-instruct-partial.json");
    const double per_token = 2 * 8 * 128 * 2.0, flops_per_token = 4 * 40 * 128.0;
    struct Point {
        std::int64_t n;
        double chunked_reads;  // n mod 8192, by hand
    };
    for (const Point p : {Point{8191, 8191}, Point{8192, 0}, Point{8193, 1}, Point{20000, 20000 - 2 * 8192}}) {
        INFO("context " << p.n);
        const double tokens = 36 * p.chunked_reads + 12 * static_cast<double>(p.n);
        Workload w;
        w.context = p.n;
        const DecodeStep d = decode_step(load_hardware("h200"), scout, w);
        CHECK(d.kv_bytes.in(bytes) == tokens * per_token);
        CHECK(d.attention_flops.in(flop) == Approx(tokens * flops_per_token).epsilon(1e-12));
        // Tensor parallelism splits it as GQA: at TP 8 each device holds and reads one KV head of 8.
        CHECK(step_cost(scout, w, Parallelism{.tensor = 8}).kv_bytes(static_cast<double>(p.n)).in(bytes) ==
              tokens * per_token / 8);
    }
    // By hand: 8191 -> 48 x 8191 = 393,168 layer-tokens (1.61 GB); 8192 -> 12 x 8192 = 98,304
    // (0.40 GB); 20000 -> 36 x 3,616 + 12 x 20,000 = 370,176 (1.52 GB), where the window reading
    // said 36 x 8,192 + 240,000 = 534,912 (2.19 GB).
    CHECK(kv_bytes_read(scout, formats::bf16, 20000).in(bytes) == 370176 * per_token);
    // Memory keeps the bound a sequence reaches: min(n, 8192) in a chunked layer.
    CHECK(kv_per_sequence_per_device(scout, formats::bf16, 8191).in(bytes) == 48 * 8191 * per_token);
    CHECK(kv_per_sequence_per_device(scout, formats::bf16, 20000).in(bytes) == (36 * 8192 + 12 * 20000) * per_token);
    // Prefill of 20,000 tokens: query j of a chunked layer sees (j mod 8192) + 1 tokens, so two
    // whole chunks of 8192 x 8193 / 2 pairs and a last one of 3616 x 3617 / 2; a NoPE layer
    // 20000 x 20001 / 2. The sum does not depend on how the prompt is chunked.
    const double chunked_pairs = 2 * (8192.0 * 8193 / 2) + 3616.0 * 3617 / 2, full_pairs = 20000.0 * 20001 / 2;
    const double attention = flops_per_token * (36 * chunked_pairs + 12 * full_pairs);
    CHECK(prefill(load_hardware("h200"), scout, Workload{}, 20000).attention_flops.in(flop) == Approx(attention).epsilon(1e-12));
    CHECK(prefill(load_hardware("h200"), scout, Workload{}, 20000, 3000).attention_flops.in(flop) ==
          Approx(attention).epsilon(1e-12));
    // The model table says chunked, not window.
    for (const auto& g : scout)
        if (g.spec.chunked) CHECK(g.spec.reach().describe() == "chunked 8192 (aligned chunks)");
}

TEST_CASE("deepseek_v32: the indexer reads its keys over the context, the main cache its top-k", "[families][deepseek]") {
    const Model m = hub_model("deepseek-v3.2.json");
    const Mla& a = first<Mla>(m);
    CHECK(a.index_heads == 64);
    CHECK(a.index_head_dim == 128);
    CHECK(a.index_topk == 2048);
    // The indexer per layer: wq_b 1536 x 64 x 128, wk 7168 x 128, k_norm 2 x 128, weights_proj 7168 x 64.
    const double indexer = 1536.0 * 64 * 128 + 7168.0 * 128 + 256 + 7168.0 * 64;
    const Model v3 = load_model("deepseek-v3");  // the same model without the indexer
    CHECK(derived_parameters(m).attention - derived_parameters(v3).attention == Approx(61 * indexer).epsilon(1e-12));
    // DeepSeek: "671 billion total parameters ... activating only 37 billion" for V3, which V3.2
    // keeps, plus the indexer's 0.85 B.
    CHECK(derived_parameters(m).total() / 1e9 == Approx(671 + 61 * indexer / 1e9).margin(1));
    // Kept per token and layer: the latent 512 and its rope key 64 in the KV format, and the
    // indexer's key as DeepSeek's reference stores it (inference/model.py of DeepSeek-V3.2-Exp,
    // family_deepseek.hpp): 128 fp8 bytes and one fp32 scale per 128 elements, 128 + 4 = 132 B,
    // whatever the KV format. bf16: 576 x 2 + 132 = 1,284 B a layer, 78,324 B over 61 layers.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 61 * (576 * 2 + (128 + 4)));
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 78324);
    // fp8: FlashMLA's "FP8 with scale", the one FP8 layout its sparse decode kernels read: "each
    // token's KV cache is 656 Bytes": 512 float8_e4m3 values, 4 float32 scales, 64 bfloat16 rope
    // values (deepseek-ai/FlashMLA@066b5ba6f63d9d0840eac008fe58a1f70acfac78 README.md), not 576 x 1 B.
    // 656 + 132 = 788 B a layer.
    CHECK(kv_bytes_per_token(m, formats::fp8).in(bytes) == 61 * (656 + 132));
    CHECK(kv_bytes_read(m, formats::fp8, 100000).in(bytes) == 61 * (656 * 2048.0 + 132 * 100000.0));
    CHECK(kv_per_sequence_per_device(m, formats::fp8, 100000, Parallelism{.tensor = 8}).in(bytes) == 61 * 788 * 100000.0);
    // Dense MLA (V3) keeps its FP8 cache as 576 one-byte values (one scale a tensor).
    CHECK(kv_bytes_per_token(load_model("deepseek-v3"), formats::fp8).in(bytes) == 61 * 576);
    // Read at 100k: the latent and rope key of the 2,048 chosen tokens, the indexer keys of all.
    CHECK(kv_bytes_read(m, formats::bf16, 100000).in(bytes) == 61 * (576 * 2 * 2048.0 + 132 * 100000.0));
    Workload at_100k;
    at_100k.context = 100000;
    CHECK(step_cost(m, at_100k, Parallelism{.tensor = 8}).kv_bytes(100000).in(bytes) ==
          61 * (576 * 2 * 2048.0 + 132 * 100000.0));  // MLA and the indexer: every device caches all
    // Memory keeps everything.
    CHECK(kv_per_sequence_per_device(m, formats::bf16, 100000).in(bytes) == 61 * 1284 * 100000.0);
    // Costed in the KV format instead when the model says so: 128 bf16 elements, 256 B.
    Model in_kv = m;
    for (std::size_t i = 0; i < in_kv.group_count; ++i) std::get<Mla>(in_kv.groups[i].spec.attention).index_key_format.reset();
    CHECK(kv_bytes_per_token(in_kv, formats::bf16).in(bytes) == 61 * (512 + 64 + 128) * 2.0);
    CHECK(a.describe() == "MLA 128 heads, latent 512 + rope 64, indexer 64 x 128 top-2048, its keys in fp8/g128/s32, 132 B a token; "
                          "an fp8 KV cache is 656 B a token (the latent's scales beside it, the rope key in bf16)");
    // ridgeline's own form writes the key format and reads it back.
    nlohmann::json own = m;
    CHECK(own["layer_groups"][0]["attention"]["index_key_format"] == "fp8/g128/s32");
    CHECK(model_from_config(own) == m);
    own["layer_groups"][0]["attention"]["index_key_format"] = "fp9";
    CHECK_THROWS_WITH(model_from_config(own, "own.json"),
                      Catch::Contains("/layer_groups/0/attention/index_key_format") && Catch::Contains("fp8/g128/s32"));
    // Indexer FLOPs per cached token and layer: 2 x 64 heads x 128.
    CHECK(attention_flops_per_token(m, 100000).in(flop) ==
          Approx(61 * (278528.0 * 2048 + 2 * 64 * 128 * 100000.0)).epsilon(1e-12));
    decodes(m, "h200", 8);
}

TEST_CASE("deepseek: group-limited routing is checked", "[families][deepseek][errors]") {
    // deepseek-ai/DeepSeek-V3.2's config.json: 256 routed experts in n_group 8 groups of 32, each
    // token's 8 drawn from its topk_group 4 best groups.
    const nlohmann::json j = hub("deepseek-v3.2.json");
    const Model file = model_from_config(j, "test.json");
    // Null (a config without group-limited routing) is read, not refused.
    CHECK_NOTHROW(with(j, "n_group", nullptr));
    CHECK_NOTHROW(with(j, "topk_group", nullptr));
    CHECK_THROWS_WITH(with(j, "n_group", 7), "test.json: /n_group: got 7, expected a divisor of n_routed_experts (256)");
    CHECK_THROWS_WITH(with(j, "topk_group", 9), "test.json: /topk_group: got 9, expected at most n_group (8)");
    // 128 groups of 2 experts: 3 groups hold 6 of the 8 a token takes, 4 hold them all.
    nlohmann::json narrow = j;
    narrow["n_group"] = 128;
    CHECK_THROWS_WITH(with(narrow, "topk_group", 3),
                      "test.json: /topk_group: got 3, expected groups enough to hold num_experts_per_tok (8 experts, 2 a "
                      "group: at least 4)");
    CHECK(with(narrow, "topk_group", 4) == file);
}

TEST_CASE("kimi_k2: a DeepseekV3ForCausalLM under another model_type is read as deepseek_v3, and says so", "[families][deepseek]") {
    const LoadedModel k = load_model_with_formats("tests/data/hub/kimi-k2-instruct.json");
    CHECK(k.notes == "model_type kimi_k2 read as deepseek_v3 (architectures names DeepseekV3ForCausalLM)");
    // Moonshot: "Total Parameters 1T, Activated Parameters 32B".
    CHECK(derived_parameters(k.model).total() / 1e12 == Approx(1.0).margin(0.05));
    CHECK(active_without_tables(k.model, false) / 1e9 == Approx(32).margin(0.5));
    CHECK(k.model.mtp_layers == 0);  // num_nextn_predict_layers 0
    CHECK(kv_bytes_per_token(k.model, formats::bf16).in(bytes) == 61 * 576 * 2.0);
}

TEST_CASE("qwen3_next: Gated DeltaNet layers keep a fixed state, read and written each step", "[families][qwen3_next]") {
    const Model m = hub_model("qwen3-next-80b-a3b-thinking.json");
    // Qwen: "80 billion total parameters, of which only 3 billion are activated" (A3B: 3.25 B
    // without the two embedding tables, a coarse figure).
    CHECK(derived_parameters(m).total() / 1e9 == Approx(80).margin(0.5));
    CHECK(active_without_tables(m, true) / 1e9 == Approx(3).margin(0.5));
    // One full-attention layer in four: 12 layers with 2 KV heads x 256.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 12 * 2 * 2 * 256 * 2.0);
    // 36 DeltaNet layers, each a 32 x 128 x 128 state and a conv state of (2 x 16 x 128 + 32 x 128) x 3.
    const double state = 36 * (32 * 128.0 * 128 + (2 * 16 * 128 + 32 * 128) * 3.0) * 2;
    CHECK(state_bytes_per_sequence(m).in(bytes) == state);
    CHECK(kv_per_sequence_per_device(m, formats::bf16, 1000).in(bytes) == 1000 * 12 * 1024 * 2.0 + state);
    // DeltaNet parameters of one layer (hidden 2048): in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096),
    // in_proj_ba 2048 x 64, conv1d 8192 x 4, dt_bias and A_log 2 x 32, the gated norm 128,
    // out_proj 4096 x 2048.
    const GatedDeltaNet& d = first<GatedDeltaNet>(m);
    CHECK(kind_parameters(d, 2048) ==
          2048.0 * 12288 + 2048.0 * 64 + 8192.0 * 4 + 64 + 128 + 4096.0 * 2048);
    // A step reads and writes the state: at TP 2 each device holds half.
    Workload w;
    w.batch = 4;
    w.context = 1000;
    const StepCost one = step_cost(m, w), two = step_cost(m, w, Parallelism{.tensor = 2});
    CHECK(one.state_bytes.in(bytes) == 2 * state);
    CHECK(two.state_bytes.in(bytes) == state);
    // Verifying 4 drafts, each sequence keeps a state for each of the 5 positions (vLLM's
    // MambaSpec: 1 + num_speculative_blocks pages) and the pass writes all 5 after reading one.
    Workload verify = w;
    verify.tokens_per_sequence = 5;
    CHECK(step_cost(m, verify).state_bytes.in(bytes) == 6 * state);
    const Deployment h200{load_hardware("h200")};
    CHECK(memory_use(h200, m, verify).kv.in(bytes) == 4 * (1004 * 12 * 1024 * 2.0 + 5 * state));
    CHECK(memory_use(h200, m, w).kv.in(bytes) == 4 * (1000 * 12 * 1024 * 2.0 + state));
    // An FP8 KV cache halves the 12 attention layers' cache, not the DeltaNet state: vLLM keeps
    // that in mamba_cache_dtype, whose "auto" is the model's dtype (vllm/config/cache.py,
    // vllm-project/vllm@c1d86421; gated_delta_net_state_dtype in mamba_utils.py @02d71083).
    Workload fp8 = w;
    fp8.precision.kv = formats::fp8;
    CHECK(memory_use(h200, m, fp8).kv.in(bytes) == 4 * (1000 * 12 * 1024 * 1.0 + state));
    CHECK(step_cost(m, fp8).state_bytes.in(bytes) == 2 * state);
    CHECK(first<Gqa>(m).output_gate);
    decodes(m, "h200", 2);
    // Its config declares no MTP module; the checkpoint has one (mtp.*), which vLLM builds where
    // the key is absent (qwen3_next_mtp.py: getattr(config, "num_nextn_predict_layers", 1)): a
    // full-attention MoE layer (llama.cpp's GGUF of it lists blk.48.attn_q 2048 x 8192, the output
    // gate doubling q) behind fc and two norms. By hand: attention 2048 x 8192 + 2 x 2048 x 512 +
    // 4096 x 2048 + q/k norms 2 x 256 = 27,263,488; experts 512 x 3 x 2048 x 512 + router
    // 2048 x 512 + shared expert 3 x 2048 x 512 + its gate 2048 = 1,614,809,088; the layer's two
    // norms and the final one 3 x 2048; fc 2 x 2048 x 2048 and its two norms 2 x 2048.
    CHECK(m.mtp_layers == 1);
    CHECK(mtp_parameters(m) == 27263488.0 + 1614809088.0 + 3 * 2048.0 + 2 * 2048.0 * 2048 + 2 * 2048.0);
    CHECK(with(hub("qwen3-next-80b-a3b-thinking.json"), "num_nextn_predict_layers", 0).mtp_layers == 0);
}

TEST_CASE("nemotron-nas: a block per layer, skipped attention, widths from ffn_mult", "[families][nemotron]") {
    const Model m = hub_model("llama-3_3-nemotron-super-49b-v1.json");
    // By hand from the 80 block_configs (hidden 8192, 64 heads of 128, n_heads_in_group 8 -> 8 KV
    // heads): 49 layers with attention, 31 without; MLP widths int(2 x mult x 8192 / 3) rounded up
    // to 256: 5.25 -> 28672 (49 layers), 2.625 -> 14336 (6), 1.3125 -> 7168 (10), 1.0 -> 5632
    // (8), 0.5 -> 2816 (6), 3.28125 -> 17920 (1).
    const double attention = 49 * (2 * 8192.0 * 8192 + 2 * 8192.0 * 1024);
    const double mlp = 3 * 8192.0 * (49 * 28672.0 + 6 * 14336 + 10 * 7168 + 8 * 5632 + 6 * 2816 + 17920);
    const double norms = (49 + 80 + 1) * 8192.0, embeddings = 2 * 128256.0 * 8192;
    CHECK(derived_parameters(m).attention == attention);
    CHECK(derived_parameters(m).dense_mlp == mlp);
    CHECK(derived_parameters(m).norms == norms);
    CHECK(derived_parameters(m).total() == Approx(attention + mlp + norms + embeddings).epsilon(1e-15));
    // NVIDIA's card: "Llama-3.3-Nemotron-Super-49B-v1 ... 49B"; the count is 49.87 B.
    CHECK(derived_parameters(m).total() / 1e9 == Approx(49.9).margin(0.05));
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 49 * 2 * 8 * 128 * 2.0);
    // At TP 2 only the 49 attention blocks and the 80 MLPs end in an all-reduce, 2 ring steps each:
    // 258 messages, not 2 x 80 x 2 = 320 (the 31 skipped attention blocks have nothing to reduce).
    Workload w;
    w.batch = 1;
    w.context = 1000;
    CHECK(decode_step(Deployment{load_hardware("h100-sxm"), Parallelism{.tensor = 2}}, m, w).links.messages == (49 + 80) * 2);
    CHECK(json_detail::nemotron_nas::intermediate_from_mult(1.0, 8192) == 5632);  // 5461 rounded up
    CHECK(json_detail::nemotron_nas::intermediate_from_mult(0.5, 8192) == 2816);  // 2730 rounded up
    decodes(m, "h100-sxm", 4);
}

TEST_CASE("nemotron-nas: Llama-3.1-Nemotron-Ultra-253B, the second size", "[families][nemotron]") {
    const Model m = hub_model("llama-3_1-nemotron-ultra-253b-v1-from-nemo.json");
    // By hand from the 162 block_configs (hidden 16384, 128 heads of 128, n_heads_in_group 16 ->
    // 8 KV heads): 64 layers with attention, 98 without; 81 MLPs, 81 skipped. Widths
    // int(2 x mult x 16384 / 3) rounded up to 256: 0.4875 -> 5324 -> 5376 (1 layer), 0.975 ->
    // 10752 (1), 1.4625 -> 16128 (6), 1.95 -> 21504 (10), 2.4375 -> 26624 (19), 2.925 -> 32000 (2),
    // 3.4125 -> 37376 (4), 4.875 -> 53248 (34), and four wide ones: 27.5625 -> 301056,
    // 31.40625 -> 343040, 36.5625 -> 399360, 39.0 -> 425984.
    const double attention = 64 * (2 * 16384.0 * 16384 + 2 * 16384.0 * 1024);
    const double widths = 5376.0 + 10752 + 6 * 16128 + 10 * 21504 + 19 * 26624 + 2 * 32000 + 4 * 37376 + 34 * 53248 +
                          301056 + 343040 + 399360 + 425984;
    const double mlp = 3 * 16384.0 * widths;
    const double norms = (64 + 81 + 1) * 16384.0, embeddings = 2 * 128256.0 * 16384;
    CHECK(derived_parameters(m).attention == attention);
    CHECK(derived_parameters(m).dense_mlp == mlp);
    CHECK(derived_parameters(m).norms == norms);
    CHECK(derived_parameters(m).total() == Approx(attention + mlp + norms + embeddings).epsilon(1e-15));
    // NVIDIA names it 253B (SOURCES.md); the count is 253.40 B.
    CHECK(derived_parameters(m).total() / 1e9 == Approx(253).margin(0.5));
    CHECK(json_detail::nemotron_nas::intermediate_from_mult(0.4875, 16384) == 5376);
    CHECK(json_detail::nemotron_nas::intermediate_from_mult(39.0, 16384) == 425984);  // 2 x 39 x 16384 / 3 exactly
    // 64 attention layers, 8 KV heads x 128, BF16.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 64 * 2 * 8 * 128 * 2.0);
    // At TP 8 the 64 attention blocks and 81 MLPs end in an all-reduce, 2 x 7 ring steps each.
    Workload w;
    w.batch = 1;
    w.context = 1000;
    CHECK(decode_step(Deployment{load_hardware("h200"), Parallelism{.tensor = 8}}, m, w).links.messages == (64 + 81) * 2 * 7);
    decodes(m, "h200", 8);
}

// ---------------------------------------------------------------------------------------------
// Nemotron-H: each block one mixer alone (M Mamba-2, * attention, - a ReLU^2 MLP without a gate)
// ---------------------------------------------------------------------------------------------

namespace {
bool is_mamba(const LayerSpec& s) { return std::holds_alternative<Mamba2>(s.attention) && std::holds_alternative<NoFfn>(s.ffn); }
bool is_attention(const LayerSpec& s) { return std::holds_alternative<Gqa>(s.attention) && std::holds_alternative<NoFfn>(s.ffn); }
bool is_mlp(const LayerSpec& s) { return std::holds_alternative<NoAttention>(s.attention) && std::holds_alternative<NonGatedMlp>(s.ffn); }
}  // namespace

TEST_CASE("nemotron_h: Nemotron-H-56B, Mamba-2, attention and ungated MLP blocks, one mixer each", "[families][nemotron_h][mamba2]") {
    const Model m = hub_model("nemotron-h-56b-base-8k.json");  // its time_step_limit holds Python's bare Infinity
    // hybrid_override_pattern: 54 M, 10 *, 54 - (NVIDIA: "54 Mamba-2, 54 MLP, and 10 Self-Attention layers").
    CHECK(layer_count(m) == 118);
    CHECK(layers_where(m, is_mamba) == 54);
    CHECK(layers_where(m, is_attention) == 10);
    CHECK(layers_where(m, is_mlp) == 54);
    CHECK(layers_where(m, [](const LayerSpec& s) { return s.norms == 1; }) == 118);  // one RMSNorm per block
    const Mamba2& s = first<Mamba2>(m);
    CHECK(s == Mamba2{256, 64, 256, 8, 4, true, false});
    // One Mamba-2 block by hand (hidden 8192; I = 256 heads x 64 = 16384; 8 groups of state 256,
    // so B and C 2 x 8 x 256 = 4096 and 20480 conv channels):
    //   in_proj 8192 x (16384 z + 20480 x, B, C + 256 dt), conv1d 20480 x (4 taps + a bias),
    //   dt_bias, A_log and D 3 x 256, the gated norm 16384, out_proj 16384 x 8192.
    const double mamba = 8192.0 * 37120 + 20480.0 * 5 + 3 * 256 + 16384 + 16384.0 * 8192;
    CHECK(kind_parameters(s, 8192) == mamba);
    // An attention block: 64 heads and 8 KV heads of 128 (attention_head_dim), no biases.
    const double attention = 2 * 8192.0 * 8192 + 2 * 8192.0 * 1024;
    // An MLP block: up 8192 x 32768 and down 32768 x 8192, no gate.
    const double mlp = 2 * 8192.0 * 32768;
    CHECK(kind_parameters(std::get<NonGatedMlp>(m.groups[1].spec.ffn), 8192) == mlp);
    // The whole model: (118 + 1) norms of 8192, and two tables of 131072 x 8192 (not tied).
    const double total = 54 * mamba + 10 * attention + 54 * mlp + 119 * 8192.0 + 2 * 131072.0 * 8192;
    CHECK(derived_parameters(m).total() == total);
    CHECK(derived_parameters(m).dense_mlp == 54 * mlp);
    // NVIDIA's card: "This model has 56B model parameters"; the count is 56.32 B.
    CHECK(total / 1e9 == Approx(56).margin(0.5));
    // KV per token: only the 10 attention blocks, 2 x 8 KV heads x 128, BF16.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 10 * 2 * 8 * 128 * 2.0);
    // State per sequence, per Mamba-2 block: the SSM state 256 heads x 64 x 256 and the conv
    // state 20480 channels x (4 - 1) taps; 54 blocks, BF16.
    const double state = 54 * (256 * 64 * 256.0 + 20480 * 3.0) * 2;
    CHECK(state_bytes_per_sequence(m).in(bytes) == state);
    CHECK(kv_per_sequence_per_device(m, formats::bf16, 8192).in(bytes) == 8192 * 10 * 2048 * 2.0 + state);
    // 8 groups split at TP 8, so the state splits exactly.
    CHECK(s.splits_over(8));
    CHECK(s.kv_share(8) == Approx(1.0 / 8).epsilon(1e-15));
    // The recurrence: 5 FLOPs per SSM state element per token (attention_layers.hpp).
    CHECK(attention_flops_per_token(m, 0).in(flop) == 54 * 5 * 256 * 64 * 256.0);
    // Every block ends in one all-reduce at TP 2 (2 ring steps): 118 x 2, the empty half of a
    // block (no MLP after Mamba-2 or attention, no attention before an MLP) adding none.
    Workload w;
    w.batch = 1;
    w.context = 1000;
    CHECK(decode_step(Deployment{load_hardware("h200"), Parallelism{.tensor = 2}}, m, w).links.messages == 118 * 2);
    decodes(m, "h200", 2);
    decodes(m, "h200", 8);
}

TEST_CASE("nemotron_h: Nemotron-H-8B from a trimmed copy of its config.json", "[families][nemotron_h][mamba2]") {
    const Model m = hub_model("nemotron-h-8b-base-8k-partial-from-megatron-bridge.json");
    // 52 blocks: 24 M, 4 *, 24 - (NVIDIA: 24 Mamba-2, 24 MLP and 4 self-attention layers).
    CHECK(layers_where(m, is_mamba) == 24);
    CHECK(layers_where(m, is_attention) == 4);
    CHECK(layers_where(m, is_mlp) == 24);
    CHECK(first<Mamba2>(m) == Mamba2{128, 64, 128, 8, 4, true, false});
    // By hand (hidden 4096; I = 128 x 64 = 8192; B and C 2 x 8 x 128 = 2048; 10240 conv channels):
    //   Mamba-2: in_proj 4096 x (8192 + 10240 + 128), conv 10240 x 5, 3 x 128, norm 8192,
    //   out_proj 8192 x 4096; attention 32 heads and 8 KV heads of 128; MLP 2 x 4096 x 21504;
    //   53 norms, two tables of 131072 x 4096.
    const double mamba = 4096.0 * 18560 + 10240.0 * 5 + 3 * 128 + 8192 + 8192.0 * 4096;
    const double attention = 2 * 4096.0 * 4096 + 2 * 4096.0 * 1024, mlp = 2 * 4096.0 * 21504;
    const double total = 24 * mamba + 4 * attention + 24 * mlp + 53 * 4096.0 + 2 * 131072.0 * 4096;
    CHECK(derived_parameters(m).total() == total);
    // NVIDIA names it 8B (SOURCES.md); the count is 8.10 B.
    CHECK(total / 1e9 == Approx(8).margin(0.5));
    // KV: 4 attention blocks, 2 x 8 x 128, BF16; state: 24 x (128 x 64 x 128 + 10240 x 3), BF16.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 4 * 2 * 8 * 128 * 2.0);
    CHECK(state_bytes_per_sequence(m).in(bytes) == 24 * (128 * 64 * 128.0 + 10240 * 3.0) * 2);
    decodes(m);
}

TEST_CASE("nemotron_h: the ungated MLP kind, its split and its own form", "[families][nemotron_h]") {
    const NonGatedMlp plain{32768, false}, biased{32768, true};
    // Up and down, 2 h I; with mlp_bias, I on up and h on down (replicated under TP).
    CHECK(kind_parameters(plain, 8192) == 2 * 8192.0 * 32768);
    CHECK(kind_parameters(biased, 8192) == 2 * 8192.0 * 32768 + 32768 + 8192);
    CHECK(kind_parameters_per_device(biased, 8192, 4) == (2 * 8192.0 * 32768 + 32768) / 4 + 8192);
    CHECK(plain.activation_width() == 32768);
    CHECK(plain.describe() == "MLP 32768 (no gate)");
    // A gated MLP of the same width holds 3 h I: the gate is the difference.
    CHECK(kind_parameters(DenseMlp{32768}, 8192) - kind_parameters(plain, 8192) == 8192.0 * 32768);
    const Model m = hub_model("nemotron-h-8b-base-8k-partial-from-megatron-bridge.json");
    const nlohmann::json own = nlohmann::json(m);
    CHECK(own.at("layer_groups").dump().find("\"kind\":\"ungated\"") != std::string::npos);
    CHECK(model_from_config(own) == m);
    nlohmann::json bad = own;
    for (auto& g : bad["layer_groups"])
        if (g["ffn"]["kind"] == "ungated") g["ffn"]["kind"] = "relu2";
    CHECK_THROWS_WITH(model_from_config(bad, "own.json"), Catch::Contains("expected \"dense\", \"ungated\", \"moe\" or \"none\""));
}

TEST_CASE("defaults: nemotron_h, as NemotronHConfig has them", "[families][defaults][nemotron_h]") {
    const nlohmann::json j = hub("nemotron-h-56b-base-8k.json");
    const Model file = model_from_config(j, "test.json");
    // The file states these at the class defaults, so leaving them out changes nothing:
    // num_key_value_heads 8, mamba_head_dim 64, n_groups 8, conv_kernel 4, use_conv_bias,
    // no use_bias, attention_bias or mlp_bias, sliding_window None, untied embeddings.
    CHECK(config_without(j, {"num_key_value_heads", "mamba_head_dim", "n_groups", "conv_kernel", "use_conv_bias", "use_bias",
                      "attention_bias", "mlp_bias", "sliding_window", "tie_word_embeddings", "num_hidden_layers"}) == file);
    // attention_head_dim (NVIDIA's earlier name) gone: head_dim's default, 128, the same here.
    CHECK(first<Gqa>(config_without(j, {"attention_head_dim"})).head_dim == 128);
    // head_dim, where given, wins over attention_head_dim.
    CHECK(first<Gqa>(with(j, "head_dim", 64)).head_dim == 64);
    // Others differ from the file: mamba_num_heads 128, ssm_state_size 128.
    CHECK(first<Mamba2>(config_without(j, {"mamba_num_heads"})).heads == 128);
    CHECK(first<Mamba2>(config_without(j, {"ssm_state_size"})).state_size == 128);
    // The older names __post_init__ still reads: mamba_n_groups, mamba_d_conv, mamba_conv_bias.
    nlohmann::json old = j;
    old.erase("n_groups");
    old.erase("conv_kernel");
    old.erase("use_conv_bias");
    old["mamba_n_groups"] = 4;
    old["mamba_d_conv"] = 3;
    old["mamba_conv_bias"] = false;
    CHECK(first<Mamba2>(model_from_config(old, "test.json")) == Mamba2{256, 64, 256, 4, 3, false, false});
    // use_bias puts biases on in_proj and out_proj; mamba_proj_bias, which the model does not read, does not.
    CHECK(first<Mamba2>(with(j, "use_bias", true)).proj_bias);
    CHECK_FALSE(first<Mamba2>(with(j, "mamba_proj_bias", true)).proj_bias);
    // num_key_value_heads null: every head its own KV head.
    CHECK(first<Gqa>(with(j, "num_key_value_heads", nullptr)).kv_heads == 64);
    // layers_block_type, where given, names the blocks (and wins over the pattern).
    nlohmann::json listed = j;
    listed["layers_block_type"] = nlohmann::json::array();
    for (const char ch : j.at("hybrid_override_pattern").get<std::string>())
        listed["layers_block_type"].push_back(ch == 'M' ? "mamba" : ch == '*' ? "attention" : "mlp");
    listed["hybrid_override_pattern"] = "M";
    CHECK(model_from_config(listed, "test.json") == file);
    // layer_types, its attribute_map name, the same; with the newer names for Mamba-2 and attention.
    nlohmann::json aliased = j;
    aliased["layer_types"] = nlohmann::json::array();
    for (const char ch : j.at("hybrid_override_pattern").get<std::string>())
        aliased["layer_types"].push_back(ch == 'M' ? "linear_attention" : ch == '*' ? "full_attention" : "mlp");
    aliased.erase("hybrid_override_pattern");
    CHECK(model_from_config(aliased, "test.json") == file);
    aliased["num_hidden_layers"] = 117;
    CHECK_THROWS_WITH(model_from_config(aliased, "test.json"),
                      "test.json: /num_hidden_layers: got 117, expected the number of layers the layer_types names (118)");
}

TEST_CASE("nemotron_h: a bad or missing pattern is named", "[families][nemotron_h][errors]") {
    const nlohmann::json j = hub("nemotron-h-8b-base-8k-partial-from-megatron-bridge.json");
    CHECK_THROWS_WITH(config_without(j, {"hybrid_override_pattern"}),
                      "test.json: /hybrid_override_pattern: got nothing (the key is missing), expected a string of M "
                      "(Mamba-2), * (attention), - (MLP) and E (MoE), one character per layer (model_type nemotron_h needs "
                      "it, or layers_block_type)");
    CHECK_THROWS_WITH(with(j, "hybrid_override_pattern", "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-X"),
                      Catch::StartsWith("test.json: /hybrid_override_pattern: got \"M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-"
                                        "M-M-M-M-M-X\" (a string), whose character 52 is 'X', expected a string of M"));
    // E blocks need the MoE sizes, which the 8B file does not have.
    CHECK_THROWS_WITH(with(j, "hybrid_override_pattern", "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"),
                      "test.json: /n_routed_experts: got nothing (the key is missing), expected a positive integer "
                      "(model_type nemotron_h needs it)");
    CHECK_THROWS_WITH(with(j, "hybrid_override_pattern", "M-*"),
                      "test.json: /num_hidden_layers: got 52, expected the number of layers the hybrid_override_pattern "
                      "names (3)");
    CHECK_THROWS_WITH(with(j, "n_groups", 3),
                      "test.json: /n_groups: got 3, expected a divisor of mamba_num_heads (128)");
    nlohmann::json listed = j;
    listed["layers_block_type"] = {"mamba", "expert"};
    CHECK_THROWS_WITH(model_from_config(listed, "test.json"),
                      "test.json: /layers_block_type/1: got \"expert\" (a string), expected \"mamba\", \"attention\", \"mlp\" "
                      "or \"moe\" (or \"linear_attention\", \"full_attention\")");
    CHECK_THROWS_WITH(config_without(j, {"intermediate_size"}),
                      "test.json: /intermediate_size: got nothing (the key is missing), expected a positive integer "
                      "(model_type nemotron_h needs it)");
}

TEST_CASE("nemotron_h: the SSM state in the config's mamba_ssm_cache_dtype, the conv inputs in the model's dtype", "[families][nemotron_h][mamba2]") {
    // The preset's config.json says "mamba_ssm_cache_dtype": "float32"; vLLM's
    // NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype keeps the SSM state in it (float32
    // when the key is absent), while its conv state follows mamba_cache_dtype, whose "auto" is the
    // model's dtype (torch_dtype bfloat16), not the KV cache's.
    const LoadedModel nano = load_model_with_formats("nemotron-3-nano-30b-a3b");
    CHECK(nano.precision.state.matrices == formats::fp32);
    CHECK(nano.precision.state.conv == formats::bf16);
    CHECK(nano.precision_source == "torch_dtype bfloat16; mamba_ssm_cache_dtype float32: recurrent state fp32");
    // A weights flag leaves it, and the record says so; a model without it adds nothing.
    CHECK(kept_state_source(nano.model, nano.precision) == "; recurrent state fp32 (the config's mamba_ssm_cache_dtype)");
    const LoadedModel llama = load_model_with_formats("llama-3.1-8b");
    CHECK(kept_state_source(llama.model, llama.precision).empty());
    // A recurrent model whose config names no state format: its state in the model's dtype, said.
    const LoadedModel next = load_model_with_formats("qwen3-next-80b-a3b");
    CHECK(next.precision_source == "torch_dtype bfloat16; recurrent state bf16 (the model's dtype, whatever the KV's)");
    // By hand: 23 Mamba-2 blocks, each an SSM state of 64 heads x 64 x 128 at 4 B and a conv
    // state of (4096 + 2048) channels x 3 inputs at 2 B: 48,234,496 + 847,872 = 49,082,368 B.
    const double ssm = 23 * 64 * 64 * 128 * 4.0, conv = 23 * 6144 * 3 * 2.0;
    CHECK(state_bytes_per_sequence(nano.model, nano.precision.state).in(bytes) == ssm + conv);
    // A step reads and writes it: at batch 256 and 1,024 tokens, the 6 attention blocks' 6,144 B
    // a token and twice the state each sequence, 256 x (6,291,456 + 98,164,736) = 26.74 GB.
    Workload w{.batch = 256, .context = 1024};
    w.precision = nano.precision;
    const DecodeStep d = decode_step(Deployment{load_hardware("h200")}, nano.model, w);
    CHECK(d.kv_bytes.in(bytes) == Approx(256 * (6144.0 * 1024 + 2 * (ssm + conv))).epsilon(1e-12));
    // And memory holds it once: 6,291,456 + 49,082,368 B a sequence.
    CHECK(d.memory.kv.in(bytes) == Approx(256 * (6144.0 * 1024 + ssm + conv)).epsilon(1e-12));
    // An FP8 KV cache halves the attention blocks' 6,144 B a token and leaves the state as it was
    // (vLLM's kv_cache_dtype does not reach the Mamba cache).
    w.precision.kv = formats::fp8;
    CHECK(decode_step(Deployment{load_hardware("h200")}, nano.model, w).kv_bytes.in(bytes) ==
          Approx(256 * (3072.0 * 1024 + 2 * (ssm + conv))).epsilon(1e-12));
    // Asked for in FP8 too (vLLM's --mamba-cache-dtype and --mamba-ssm-cache-dtype): 1 B each.
    w.precision.state = StateFormats{formats::fp8, formats::fp8};
    CHECK(decode_step(Deployment{load_hardware("h200")}, nano.model, w).kv_bytes.in(bytes) ==
          Approx(256 * (3072.0 * 1024 + 2 * (ssm / 4 + conv / 2))).epsilon(1e-12));
    // A bad value is named with its path.
    nlohmann::json j = read_json_file(data_directory() / "models" / "nemotron-3-nano-30b-a3b.json");
    j["mamba_ssm_cache_dtype"] = "float8";
    CHECK_THROWS_WITH(checkpoint_formats(j, "c.json"),
                      "c.json: /mamba_ssm_cache_dtype: got \"float8\" (a string), expected one of: bfloat16, float16, float32");
}

TEST_CASE("nemotron_h: Nemotron 3 Nano's E blocks, ungated routed experts and a shared one", "[families][nemotron_h]") {
    // tests/data/hub/nvidia-nemotron-3-nano-30b-a3b-bf16-from-jax-llm-examples.json: hidden 2688,
    // vocab 131072 (untied); pattern of 52 blocks, 23 M, 23 E, 6 *; Mamba-2 64 heads x 64, 8
    // groups, state 128, conv 4 (with biases); attention 32 heads, 2 KV heads of 128; experts
    // 128 top-6 of moe_intermediate_size 1856 and one shared of 3712, each up and down only
    // (NemotronHExperts, NemotronHMLP), a router of 128 x 2688 and a correction bias per expert.
    const Model m = hub_model("nvidia-nemotron-3-nano-30b-a3b-bf16-from-jax-llm-examples.json");
    const double h = 2688;
    // Per block, by hand:
    //   Mamba-2 (I = 64 x 64 = 4096, B and C 2 x 8 x 128 = 2048): in_proj h x (2 I + 2048 + 64),
    //   conv (I + 2048) x (4 + 1), dt_bias/A_log/D 3 x 64, gated norm I, out_proj I x h.
    const double mamba = h * (2 * 4096 + 2048 + 64) + (4096 + 2048) * 5.0 + 3 * 64 + 4096 + 4096 * h;
    //   attention: q and o 2 x h x 4096, k and v 2 x h x 256.
    const double attention = 2 * h * 4096 + 2 * h * 256;
    //   experts: 128 x (up + down) 2 x h x 1856; shared 2 x h x 3712; router h x 128 + 128.
    const double expert = 2 * h * 1856, routed = 128 * expert, shared = 2 * h * 3712, router = h * 128 + 128;
    const double tables = 2 * 131072 * h, norms = 53 * h;  // one norm a block and the final one
    const double total = 23 * mamba + 6 * attention + 23 * (routed + shared + router) + tables + norms;
    CHECK(derived_parameters(m).total() == Approx(total).epsilon(1e-12));
    CHECK(derived_parameters(m).experts == 23 * routed);
    CHECK(derived_parameters(m).shared_experts == 23 * shared);
    CHECK(derived_parameters(m).router == 23 * router);
    // Active: 6 of the 128 experts; 31,577,940,288 in all and 3,580,076,352 active, 3,227,754,816
    // without the input table. NVIDIA (research.nvidia.com/labs/nemotron/Nemotron-3/, SOURCES.md):
    // "Nemotron 3 Nano is a 3.2B active (3.6B with embeddings), 31.6B total parameter model".
    const double active = total - 23 * routed + 23 * 6 * expert;
    CHECK(active_parameters(m).total() == Approx(active).epsilon(1e-12));
    CHECK(derived_parameters(m).total() / 1e9 == Approx(31.6).margin(0.05));
    CHECK(active_parameters(m).total() / 1e9 == Approx(3.6).margin(0.05));
    CHECK(active_without_tables(m, false) / 1e9 == Approx(3.2).margin(0.05));
    // Cache: 6 attention blocks x K and V of 2 x 128, 6,144 B a token in bf16; 23 Mamba-2 states
    // of 64 x 64 x 128 and a conv state of (4096 + 2048) x 3.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 6 * 2 * 2 * 128 * 2.0);
    CHECK(state_bytes_per_sequence(m).in(bytes) == 23 * (64 * 64 * 128.0 + 6144 * 3) * 2);
    const Moe& e = std::get<Moe>(m.groups[1].spec.ffn);
    CHECK(e.describe() == "MoE 128 experts top-6 x 1856 + 1 shared (no gate)");
    // A step reads the experts its batch touches: one token, 6 per block.
    Workload w;
    w.context = 1000;
    const StepCost one = step_cost(m, w);
    CHECK(one.routed_bytes(1).in(bytes) == Approx(23 * 6 * expert * 2).epsilon(1e-12));
    // ridgeline's own form keeps the ungated experts.
    nlohmann::json own = m;
    CHECK(model_from_config(own) == m);
    decodes(m, "h200", 8);
    // What is not read yet is refused by name.
    const nlohmann::json j = hub("nvidia-nemotron-3-nano-30b-a3b-bf16-from-jax-llm-examples.json");
    CHECK_THROWS_WITH(with(j, "mlp_bias", true), Catch::Contains("the shared expert's biases are not read yet"));
    CHECK_THROWS_WITH(with(j, "n_shared_experts", 2), Catch::Contains("NemotronHMoE builds one shared expert"));
    CHECK_THROWS_WITH(config_without(j, {"moe_shared_expert_intermediate_size"}),
                      "test.json: /moe_shared_expert_intermediate_size: got nothing (the key is missing), expected a "
                      "positive integer (model_type nemotron_h needs it)");
    // num_local_experts, the class's attribute_map name, reads as n_routed_experts.
    nlohmann::json renamed = j;
    renamed.erase("n_routed_experts");
    renamed["num_local_experts"] = 128;
    const Model r = model_from_config(renamed, "test.json");
    CHECK(r.groups == m.groups);
    CHECK(r.group_count == m.group_count);
}

TEST_CASE("mimo: MTP layers reported apart", "[families][mimo]") {
    const Model m = hub_model("mimo-7b-base-partial.json");
    CHECK(m.mtp_layers == 1);
    // By hand (Qwen2 layers with q/k/v biases): 36 x (2 x 4096^2 + 2 x 4096 x 1024 + 4096 + 2 x 1024
    // + 3 x 4096 x 11008 + 2 x 4096) + 4096 + 2 x 151680 x 4096 = 7.62 B, Xiaomi's "7-billion-parameter model".
    const double mimo = 36 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024 + 4096 + 2048 + 3 * 4096.0 * 11008 + 8192) + 4096 +
                        2 * 151680.0 * 4096;
    CHECK(derived_parameters(m).total() == Approx(mimo).epsilon(1e-12));
    CHECK(mtp_parameters(m) > 0);
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 36 * 2 * 8 * 128 * 2.0);
}

TEST_CASE("qwen3_vl: the language model inside text_config, the vision tower reported apart", "[families][qwen3_vl]") {
    const LoadedModel vl = load_model_with_formats("tests/data/hub/qwen3-vl-30b-a3b-instruct-partial.json");
    // The language model and the tower's rough size together against the weight files' 31.07 B
    // (SOURCES.md): by hand, 27 layers x (4 x 1152^2 + 2 x 1152 x 4304) = 0.41 B from its
    // vision_config; the mergers and patch embedding are the rest.
    CHECK((derived_parameters(vl.model).total() + 0.41e9) / 1e9 == Approx(31.07).margin(0.2));
    CHECK(vl.notes.starts_with("language model read from text_config (model_type qwen3_vl_moe_text)"));
    const Model eight = hub_model("qwen3-vl-8b-instruct-partial.json");
    CHECK_FALSE(eight.tied_embeddings);  // tie_word_embeddings false at the top, not in text_config
    CHECK(kv_bytes_per_token(eight, formats::bf16).in(bytes) == 36 * 2 * 8 * 128 * 2.0);
}

// ---------------------------------------------------------------------------------------------
// Defaults: each expected value is the family's transformers default, as its header cites it.
// ---------------------------------------------------------------------------------------------

TEST_CASE("glm4_moe: GLM-4.7 (GLM-4.5's architecture) from a trimmed config.json", "[families][glm]") {
    const Model m = hub_model("glm-4.7-fp8-partial.json");
    // By hand: 92 layers of GQA (96 heads x 128, 8 KV heads) on hidden 5120; 3 dense MLPs of
    // 12288; 89 MoE layers of 160 experts of 1536 plus one shared; router 160 x 5120 + 160 bias.
    const double attention = 92 * (2 * 5120.0 * 12288 + 2 * 5120.0 * 1024);
    const double experts = 89 * 160 * 3 * 5120.0 * 1536, shared = 89 * 3 * 5120.0 * 1536;
    const double dense = 3 * 3 * 5120.0 * 12288, router = 89 * (160 * 5120.0 + 160);
    const double total = attention + experts + shared + dense + router + (2 * 92 + 1) * 5120.0 + 2 * 151552.0 * 5120;
    CHECK(derived_parameters(m).total() == Approx(total).epsilon(1e-12));
    // zai-org: 355B total, 32B active (for GLM-4.5): within 1% of the main model's 352.8 B; the
    // 32B active matches without the two tables (32.08 B).
    CHECK(derived_parameters(m).total() / 355e9 == Approx(1).margin(0.01));
    CHECK(active_without_tables(m, true) / 1e9 == Approx(32).margin(0.5));
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 92 * 2 * 8 * 128 * 2.0);
    decodes(m, "h200", 8);
}

TEST_CASE("defaults: gptj, as GPTJConfig has them, read through its own key names", "[families][defaults][gptj]") {
    // GPTJConfig @c4c7dfb7: n_inner None is 4 x n_embd, absent too; tie_word_embeddings False.
    const nlohmann::json j = read_json_file(data_directory() / "models" / "gpt-j-6b.json");
    CHECK(std::get<NonGatedMlp>(config_without(j, {"n_inner"}).groups[0].spec.ffn).intermediate == 4 * 4096);
    CHECK(std::get<NonGatedMlp>(with(j, "n_inner", 8192).groups[0].spec.ffn).intermediate == 8192);
    CHECK_FALSE(config_without(j, {"tie_word_embeddings"}).tied_embeddings);
    CHECK(with(j, "tie_word_embeddings", true).tied_embeddings);
    CHECK(config_without(j, {"n_positions"}).max_context == 0);  // no limit stated: none checked
    // GPTJConfig has no num_key_value_heads or head_dim; a stray one does not change the model.
    CHECK(std::get<Gqa>(with(j, "head_dim", 128).groups[0].spec.attention) == Gqa{16, 16, 256});
    CHECK(std::get<Gqa>(with(j, "num_key_value_heads", 4).groups[0].spec.attention) == Gqa{16, 16, 256});
    // The common names are not read in their place.
    CHECK(with(j, "hidden_size", 1024).hidden_size == 4096);
    // Errors name the file's keys.
    CHECK_THROWS_WITH(with(j, "n_head", 15),
                      "test.json: /n_head: got 15, expected a divisor of n_embd (4096): GPT-J's head size is n_embd / n_head");
    CHECK_THROWS_WITH(config_without(j, {"n_layer"}),
                      "test.json: /n_layer: got nothing (the key is missing), expected a positive integer (model_type gptj needs it)");
}

TEST_CASE("defaults: gemma2 and gemma3_text, as Gemma2Config and Gemma3TextConfig have them", "[families][defaults]") {
    const nlohmann::json g9 = hub("gemma-2-9b-from-mlc-llm.json");  // 16 heads, 8 KV heads
    const Model m = config_without(g9, {"num_key_value_heads", "head_dim", "sliding_window", "tie_word_embeddings", "attention_bias"});
    CHECK(first<Gqa>(m).kv_heads == 4);
    CHECK(first<Gqa>(m).head_dim == 256);
    CHECK(layers_where(m, [](const LayerSpec& s) { return s.window == 4096; }) == 21);
    CHECK(m.tied_embeddings);
    CHECK_FALSE(first<Gqa>(m).qkv_bias);
    const nlohmann::json g1 = hub("gemma-3-1b-it-from-mlc-llm.json");  // window 512
    const Model n = config_without(g1, {"sliding_window", "sliding_window_pattern", "_sliding_window_pattern", "layer_types"});
    CHECK(layers_where(n, [](const LayerSpec& s) { return s.window == 4096; }) == 22);  // 5 in 6 local, window 4096
    CHECK(first<Gqa>(config_without(g1, {"head_dim"})).head_dim == 256);
}

TEST_CASE("defaults: phi3 and phimoe, as Phi3Config and PhimoeConfig have them", "[families][defaults]") {
    const nlohmann::json phi4 = hub("phi-4.json");  // 40 heads, 10 KV heads
    const Model m = config_without(phi4, {"num_key_value_heads", "sliding_window", "tie_word_embeddings"});
    CHECK(first<Gqa>(m).kv_heads == 40);
    CHECK(layers_where(m, [](const LayerSpec& s) { return s.window == 0; }) == 40);
    CHECK_FALSE(m.tied_embeddings);
    // phimoe: no Hub config.json was found; the file is Phi-4's with the MoE keys dropped in, so
    // only the defaults are checked (num_local_experts 16, top-2, 8 KV heads, LayerNorms).
    nlohmann::json moe = phi4;
    moe["model_type"] = "phimoe";
    moe["architectures"] = {"PhimoeForCausalLM"};
    const Model e = config_without(moe, {"num_key_value_heads"});
    const Moe& x = std::get<Moe>(e.groups[0].spec.ffn);
    CHECK(x.experts == 16);
    CHECK(x.experts_per_token == 2);
    CHECK(first<Gqa>(e).kv_heads == 8);
    CHECK(e.groups[0].spec.norms == 4);
}

TEST_CASE("defaults: llama4_text, as Llama4TextConfig has them", "[families][defaults]") {
    const nlohmann::json maverick = hub("llama-4-maverick-17b-128e-instruct-partial.json");
    const Model m = config_without(maverick, {"attention_chunk_size", "intermediate_size_mlp", "head_dim", "num_key_value_heads",
                                       "interleave_moe_layer_step", "num_experts_per_tok"},
                            true);
    CHECK(layers_where(m, [](const LayerSpec& s) { return s.chunked && s.window == 8192; }) == 36);
    CHECK(first<Gqa>(m).head_dim == 128);
    CHECK(first<Gqa>(m).kv_heads == 8);
    // interleave_moe_layer_step=1: every layer MoE, so no dense MLP is read.
    CHECK(derived_parameters(m).dense_mlp == 0);
    const Model dense = config_without(maverick, {"intermediate_size_mlp"}, true);  // step 2 kept
    CHECK(derived_parameters(dense).dense_mlp == 24 * 3 * 5120.0 * 16384);
    // no_rope_layers given: the RoPE layers (1) are the chunked ones.
    nlohmann::json flags = nlohmann::json::array();
    for (int i = 0; i < 48; ++i) flags.push_back(i < 6 ? 0 : 1);
    CHECK(layers_where(with(maverick, "no_rope_layers", flags, true), [](const LayerSpec& s) { return s.chunked; }) == 42);
}

TEST_CASE("defaults: qwen3_next, as Qwen3NextConfig has them", "[families][defaults]") {
    const nlohmann::json j = hub("qwen3-next-80b-a3b-thinking.json");
    const Model file = model_from_config(j, "test.json");
    const Model m = config_without(j, {"linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim", "linear_num_key_heads",
                                "linear_num_value_heads", "full_attention_interval", "shared_expert_intermediate_size",
                                "head_dim", "num_key_value_heads"});
    CHECK(m == file);  // the file states the class defaults, so leaving them out changes nothing
    const Model every_other = with(j, "full_attention_interval", 2);
    CHECK(layers_where(every_other, [](const LayerSpec& s) { return std::holds_alternative<Gqa>(s.attention); }) == 24);
}

TEST_CASE("defaults: granitemoe and glm4_moe, as GraniteMoeConfig and Glm4MoeConfig have them", "[families][defaults]") {
    // No Hub config.json of either was found; these files carry only the keys the defaults are for.
    const nlohmann::json granite = {{"model_type", "granitemoe"}, {"hidden_size", 1024},   {"num_hidden_layers", 24},
                                    {"num_attention_heads", 16},  {"intermediate_size", 512}, {"vocab_size", 49155}};
    const Model g = model_from_config(granite, "granite.json");
    const Moe& e = std::get<Moe>(g.groups[0].spec.ffn);
    CHECK(e.experts == 8);
    CHECK(e.experts_per_token == 2);
    CHECK(first<Gqa>(g).kv_heads == 16);
    CHECK_FALSE(g.tied_embeddings);
    nlohmann::json glm = {{"model_type", "glm4_moe"},     {"hidden_size", 4096},      {"num_hidden_layers", 46},
                          {"num_attention_heads", 96},    {"head_dim", 128},          {"intermediate_size", 10944},
                          {"vocab_size", 151552},         {"n_routed_experts", 128},  {"num_experts_per_tok", 8},
                          {"moe_intermediate_size", 1408}, {"n_shared_experts", 1},   {"first_k_dense_replace", 1}};
    const Model air = model_from_config(glm, "glm.json");
    CHECK(first<Gqa>(air).kv_heads == 8);
    CHECK_FALSE(first<Gqa>(air).qk_norm);
    glm.erase("first_k_dense_replace");
    CHECK_THROWS_WITH(model_from_config(glm, "glm.json"),
                      "glm.json: /first_k_dense_replace: got nothing (the key is missing), expected a positive integer "
                      "(model_type glm4_moe needs it)");
}

TEST_CASE("families: required keys with no default are named when missing", "[families][errors]") {
    nlohmann::json v32 = hub("deepseek-v3.2.json");
    v32.erase("index_topk");
    CHECK_THROWS_WITH(model_from_config(v32, "v32.json"),
                      "v32.json: /index_topk: got nothing (the key is missing), expected a positive integer (model_type "
                      "deepseek_v32 needs it)");
    nlohmann::json nas = hub("llama-3_3-nemotron-super-49b-v1.json");
    nas["block_configs"][0]["ffn"].erase("ffn_mult");
    CHECK_THROWS_WITH(model_from_config(nas, "nas.json"),
                      "nas.json: /block_configs/0/ffn/ffn_mult: got nothing (the key is missing), expected a positive number "
                      "(the MLP width over hidden_size)");
    // More distinct layers than a Model holds (64) is the layer count's error: each of the 80
    // blocks given its own MLP width (ffn_mult 1.0, 1.1, ...: widths 546 apart, past the rounding to 256).
    nlohmann::json wide = hub("llama-3_3-nemotron-super-49b-v1.json");
    for (std::size_t i = 0; i < wide["block_configs"].size(); ++i) {
        wide["block_configs"][i]["ffn"]["no_op"] = false;
        wide["block_configs"][i]["ffn"]["replace_with_linear"] = false;
        wide["block_configs"][i]["ffn"]["ffn_mult"] = 1.0 + 0.1 * static_cast<double>(i);
    }
    CHECK_THROWS_WITH(model_from_config(wide, "wide.json"),
                      "wide.json: /num_hidden_layers: got 80 layers, expected at most 64 distinct kinds of layer");
    nlohmann::json wrapper = hub("qwen3-vl-8b-instruct-partial.json");
    wrapper["text_config"]["model_type"] = "falcon";
    CHECK_THROWS_WITH(model_from_config(wrapper, "vl.json"),
                      "vl.json: /text_config/model_type: got \"falcon\" (a string), expected a supported model_type, one of: " +
                          json_detail::family_list());
}

TEST_CASE("paths: a directory means its config.json and names the model, and a file keeps its whole stem", "[families][paths]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "ridgeline-test-Qwen3-Next-80B";
    fs::create_directories(dir);
    fs::copy_file("tests/data/hub/qwen3-next-80b-a3b-thinking.json", dir / "config.json", fs::copy_options::overwrite_existing);
    CHECK(load_model(dir.string()).name.view() == "ridgeline-test-Qwen3-Next-80B");
    CHECK(load_model((dir / "config.json").string()).name.view() == "ridgeline-test-Qwen3-Next-80B");
    const fs::path dotted = fs::temp_directory_path() / "llama-3.1-8b.v2.json";
    fs::copy_file(data_directory() / "models" / "llama-3.1-8b.json", dotted, fs::copy_options::overwrite_existing);
    CHECK(load_model(dotted.string()).name.view() == "llama-3.1-8b.v2");
    fs::remove_all(dir);
    fs::remove(dotted);
}

TEST_CASE("paths: a bare name that is both a preset and a file here is refused, naming both", "[families][paths]") {
    namespace fs = std::filesystem;
    const fs::path here = fs::current_path(), tmp = fs::temp_directory_path() / "ridgeline-test-ambiguous";
    fs::create_directories(tmp / "qwen3-8b");
    fs::copy_file(data_directory() / "models" / "qwen3-8b.json", tmp / "qwen3-8b" / "config.json", fs::copy_options::overwrite_existing);
    fs::current_path(tmp);
    CHECK_THROWS_WITH(load_model("qwen3-8b"),
                      "model preset: got \"qwen3-8b\", expected a name that is not also a file or directory here: write "
                      "./qwen3-8b for the one here, or move it, to use the preset");
    CHECK(load_model("./qwen3-8b").name.view() == "qwen3-8b");  // the directory, named after itself
    fs::current_path(here);
    fs::remove_all(tmp);
}

TEST_CASE("granitemoehybrid: Granite-4.0-H-350M, Mamba-2 layers keep a fixed state, read and written each step",
          "[families][granitemoehybrid][mamba2]") {
    const Model m = hub_model("granite-4.0-h-350m-resaved-from-nano-vllm-go.json");
    // layer_types: 28 "mamba" and 4 "attention" (layers 10, 13, 17, 27); every layer a shared MLP.
    CHECK(layers_where(m, [](const LayerSpec& s) { return std::holds_alternative<Mamba2>(s.attention); }) == 28);
    CHECK(layers_where(m, [](const LayerSpec& s) { return std::holds_alternative<Gqa>(s.attention); }) == 4);
    CHECK(layers_where(m, [](const LayerSpec& s) { return std::holds_alternative<DenseMlp>(s.ffn); }) == 32);
    CHECK(m.tied_embeddings);
    const Mamba2& s = first<Mamba2>(m);
    CHECK(s == Mamba2{48, 32, 128, 1, 4, true, false});
    // One Mamba-2 layer by hand (hidden 768, I = 48 x 32 = 1536 = 2 x 768, one group of state 128):
    //   in_proj 768 x (1536 z + 1536 x + 2 x 128 B, C + 48 dt) = 768 x 3376,
    //   conv1d (1536 + 256) channels x (4 taps + a bias), dt_bias, A_log and D 3 x 48, the gated
    //   norm 1536, out_proj 1536 x 768.
    const double mamba = 768.0 * 3376 + 1792.0 * 5 + 3 * 48 + 1536 + 1536.0 * 768;
    CHECK(kind_parameters(s, 768) == mamba);
    CHECK(mamba == 3783056);
    // At TP 2 a device holds half the heads and the whole (single) group: in_proj 768 x ((2 x 1536
    // + 48) / 2 + 256), conv and per-head vectors (1536 x 5 + 144 + 1536) / 2 + 256 x 5, out_proj half.
    CHECK(kind_parameters_per_device(s, 768, 2) == 768.0 * (1560 + 256) + (1536.0 * 5 + 144 + 1536) / 2 + 256.0 * 5 +
                                                       1536.0 * 768 / 2);
    // The whole model by hand: 28 Mamba-2 layers, 4 GQA layers (12 heads, 4 KV heads of 64:
    // 2 x 768^2 + 2 x 768 x 256), 32 gated MLPs 3 x 768 x 2048, (2 x 32 + 1) norms, one tied table.
    const double attention = 2 * 768.0 * 768 + 2 * 768.0 * 256;
    const double total = 28 * mamba + 4 * attention + 32 * 3 * 768.0 * 2048 + 65 * 768.0 + 100352.0 * 768;
    CHECK(derived_parameters(m).total() == total);
    CHECK(total == 340332224);
    // IBM prints 340M for Granite-4.0-H-350M (SOURCES.md; the name rounds it up to 350M).
    CHECK(derived_parameters(m).total() / 1e6 == Approx(340).margin(0.5));
    // KV per token: only the 4 attention layers, 2 x 4 KV heads x 64, BF16.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 4 * 2 * 4 * 64 * 2.0);
    // State per sequence, per Mamba-2 layer: the SSM state 48 heads x 32 x 128 and the conv state
    // (1536 + 2 x 1 x 128) channels x (4 - 1) taps; 28 layers, BF16.
    const double state = 28 * (48 * 32 * 128.0 + (1536 + 256) * 3.0) * 2;
    CHECK(state == 11311104);
    CHECK(state_bytes_per_sequence(m).in(bytes) == state);
    CHECK(kv_per_sequence_per_device(m, formats::bf16, 1000).in(bytes) == 1000 * 4 * 512 * 2.0 + state);
    // A step reads and writes the state. At TP 2 each device keeps half the heads' SSM state and
    // conv channels, but the one group's B and C whole: 48 x 32 x 128 / 2 + (1536 / 2 + 256) x 3
    // per layer, just over half.
    Workload w;
    w.batch = 4;
    w.context = 1000;
    const StepCost one = step_cost(m, w), two = step_cost(m, w, Parallelism{.tensor = 2});
    CHECK(one.state_bytes.in(bytes) == 2 * state);
    const double half = 28 * (48 * 32 * 128.0 / 2 + (768 + 256) * 3.0) * 2;
    CHECK(two.state_bytes.in(bytes) == Approx(2 * half).epsilon(1e-12));
    CHECK(two.state_bytes.in(bytes) > one.state_bytes.in(bytes) / 2);
    // With the groups split (8 groups), TP 2 halves the state exactly.
    Mamba2 eight = s;
    eight.groups = 8;
    CHECK(eight.kv_share(2) == Approx(0.5).epsilon(1e-15));
    CHECK(s.kv_share(1) == 1.0);
    // The recurrence: 5 FLOPs per SSM state element per token (decay, input, readout).
    CHECK(attention_flops_per_token(m, 0).in(flop) == 28 * 5 * 48 * 32 * 128.0);
    // Tensor parallelism splits the 48 heads, and the one group is replicated.
    CHECK(s.splits_over(2));
    CHECK(s.splits_over(16));
    CHECK_FALSE(s.splits_over(5));
    CHECK(s.split_requirement(5) == "a divisor of the Mamba-2 heads (48)");
    CHECK_FALSE(eight.splits_over(16));
    CHECK(eight.split_requirement(16) == "any divisor of the heads where there is one Mamba-2 group, else a divisor of the groups (8)");
    CHECK(s.describe() == "Mamba-2 48 heads x 32, state 128, 1 group, conv 4");
    decodes(m);
    decodes(m, "h200", 2);
}

TEST_CASE("granitemoehybrid: the own form round-trips a Mamba-2 model", "[families][granitemoehybrid][mamba2]") {
    const Model m = hub_model("granite-4.0-h-350m-resaved-from-nano-vllm-go.json");
    const nlohmann::json own = nlohmann::json(m);
    CHECK(own.at("layer_groups").dump().find("\"kind\":\"mamba2\"") != std::string::npos);
    CHECK(model_from_config(own) == m);
    nlohmann::json bad = own;
    for (auto& g : bad["layer_groups"])
        if (g["attention"]["kind"] == "mamba2") g["attention"]["kind"] = "mamba3";
    CHECK_THROWS_WITH(model_from_config(bad, "own.json"),
                      Catch::Contains("expected \"gqa\", \"mla\", \"gated_deltanet\", \"mamba2\" or \"none\""));
}

TEST_CASE("defaults: granitemoehybrid, as GraniteMoeHybridConfig has them", "[families][defaults][granitemoehybrid]") {
    const nlohmann::json j = hub("granite-4.0-h-350m-resaved-from-nano-vllm-go.json");
    const Model file = model_from_config(j, "test.json");
    // mamba_d_head "auto" (1536 / 48 = 32), one group, conv 4, expand 2, conv bias, no proj bias:
    // the file states the class defaults, so leaving them out changes nothing.
    CHECK(config_without(j, {"mamba_d_head", "mamba_n_groups", "mamba_d_conv", "mamba_expand", "mamba_conv_bias", "mamba_proj_bias"}) ==
          file);
    CHECK(first<Mamba2>(with(j, "mamba_d_head", "auto")) == first<Mamba2>(file));
    // Others differ from the file: mamba_d_state 256, num_key_value_heads = heads (12),
    // shared_intermediate_size 1024, mamba_n_heads 128 (1536 / 128 = 12 per head).
    CHECK(first<Mamba2>(config_without(j, {"mamba_d_state"})).state_size == 256);
    CHECK(first<Gqa>(config_without(j, {"num_key_value_heads"})).kv_heads == 12);
    CHECK(std::get<DenseMlp>(config_without(j, {"shared_intermediate_size"}).groups[0].spec.ffn).intermediate == 1024);
    CHECK(first<Mamba2>(config_without(j, {"mamba_n_heads", "mamba_d_head"})).head_dim == 12);
    // No layer_types: every layer Mamba-2.
    CHECK(layers_where(config_without(j, {"layer_types"}), [](const LayerSpec& s) { return std::holds_alternative<Mamba2>(s.attention); }) ==
          32);
    // num_local_experts absent: 8 routed experts (top-2 by default) of intermediate_size beside the shared MLP.
    const Model moe = config_without(j, {"num_local_experts", "num_experts_per_tok"});
    const Moe& e = std::get<Moe>(moe.groups[0].spec.ffn);
    CHECK(e.experts == 8);
    CHECK(e.experts_per_token == 2);
    CHECK(e.expert_intermediate == 2048);
    CHECK(e.shared_experts == 1);
    CHECK(e.shared_intermediate == 2048);
    // Heads that do not divide the expanded width are named.
    nlohmann::json fifty = j;
    fifty["mamba_n_heads"] = 50;
    fifty.erase("mamba_d_head");
    CHECK_THROWS_WITH(model_from_config(fifty, "test.json"),
                      "test.json: /mamba_n_heads: got 50, expected mamba_n_heads (50) x mamba_d_head equal to mamba_expand x "
                      "hidden_size (1536)");
    CHECK_THROWS_WITH(with(j, "mamba_d_head", 16),
                      "test.json: /mamba_d_head: got 16, expected mamba_n_heads (48) x mamba_d_head equal to mamba_expand x "
                      "hidden_size (1536)");
}

TEST_CASE("wrappers: an error inside text_config names its path there", "[families][errors]") {
    // A review deleted text_config.vocab_size and was told /vocab_size; adding it at the top, as
    // that path said, gave the same error.
    const nlohmann::json gemma = read_json_file(data_directory() / "models" / "gemma-3-27b.json");
    CHECK_THROWS_WITH(config_without(gemma, {"vocab_size"}, true),
                      "test.json: /text_config/vocab_size: got nothing (the key is missing), expected a positive integer "
                      "(model_type gemma3_text needs it)");
    CHECK_THROWS_WITH(config_without(gemma, {"num_hidden_layers"}, true),
                      Catch::Matchers::StartsWith("test.json: /text_config/num_hidden_layers: got nothing"));
    // A wrapper without its language model is told where it goes, not that gemma3 is unknown.
    nlohmann::json bare = gemma;
    bare.erase("text_config");
    CHECK_THROWS_WITH(model_from_config(bare, "test.json"),
                      "test.json: /text_config: got nothing (the key is missing), expected an object holding the language model's config "
                      "(model_type gemma3 is a wrapper of gemma3_text)");
    bare["text_config"] = "gemma3_text";
    CHECK_THROWS_WITH(model_from_config(bare, "test.json"),
                      "test.json: /text_config: got \"gemma3_text\" (a string), expected an object holding the language model's config "
                      "(model_type gemma3 is a wrapper of gemma3_text)");
}

// ---------------------------------------------------------------------------------------------
// The families of late 2026: MiniMax-M2, Qwen3.5, GLM-5 (tests/data/hub/SOURCES.md).
// ---------------------------------------------------------------------------------------------

TEST_CASE("minimax_m2: MiniMax-M2.7, GQA with norms across the heads, 256 experts on every layer", "[families][minimax]") {
    const LoadedModel loaded = load_model_with_formats("tests/data/hub/minimax-m2.7.json");
    const Model& m = loaded.model;
    // By hand from the config: per layer, q 3072 x 6144, k and v 3072 x 1024 each, o 6144 x 3072,
    // the norms over the whole q (6144) and k (1024), two layer norms 2 x 3072, the router
    // 256 x 3072 and its 256 biases, 256 experts of 3 x 3072 x 1536; then both tables
    // 2 x 200064 x 3072 and the final norm 3072.
    const double attention = 3072.0 * 6144 + 2 * 3072.0 * 1024 + 6144.0 * 3072 + 6144 + 1024;
    const double expert = 3 * 3072.0 * 1536, router = 256 * 3072.0 + 256;
    const double total = 62 * (attention + 2 * 3072 + router + 256 * expert) + 2 * 200064.0 * 3072 + 3072;
    CHECK(derived_parameters(m).total() == Approx(total).epsilon(1e-15));
    // llama.cpp's model_n_params for MiniMax-M2.7, the same 228,689,764,864 that a listing of the
    // Hub's metadata gives M2 and M2.1 (secondary); MiniMax: "230 billion total parameters with 10
    // billion active parameters" (transformers' model_doc): 9.80 B without the two tables.
    CHECK(derived_parameters(m).total() == 228689764864.0);
    CHECK(active_without_tables(m, true) / 1e9 == Approx(10).margin(0.25));
    CHECK(active_parameters(m).total() == Approx(total - 62 * 248 * expert).epsilon(1e-15));
    // 62 layers of 8 KV heads x 128: MiniMax's vLLM guide gives "240 GB per 1M context tokens"
    // (MiniMax-AI/MiniMax-M2@581a755 docs/vllm_deploy_guide.md): 253,952 B x 1e6 = 236.5 GiB.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 62 * 2 * 8 * 128 * 2.0);
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) * 1e6 / (1024.0 * 1024 * 1024) == Approx(240).margin(4));
    // The checkpoint's bytes: hf-mem reads MiniMaxAI/MiniMax-M2's safetensors as 230,121,630,720 B
    // (alvarobartt/hf-mem@05188b1 README.md). ridgeline stores the router and its biases in bf16
    // where the file keeps them in F32 (62 x 786,688 values, 2 B less each), and the q and k norms
    // with their projections in FP8 where the file keeps them in bf16 (62 x 7,168 values, 1 B less
    // each, plus their share of the FP8 block scales, 4 B per 16,384).
    CHECK(loaded.precision.weights == block_scaled(Numeric::fp8, 32, 16384));
    const double norms = 62 * 7168.0;
    CHECK(weights_per_device(m, loaded.precision).in(bytes) ==
          Approx(230121630720.0 - 62 * 786688.0 * 2 - norms + norms * 4 / 16384).epsilon(1e-13));
    // Norms across the heads split with them: at TP 8 each device keeps an eighth of q's 6,144
    // and of k's 1,024 (8 KV heads, one a device), against the same model without the norms.
    Model per_head = m;
    for (std::size_t i = 0; i < per_head.group_count; ++i) {
        Gqa& a = std::get<Gqa>(per_head.groups[i].spec.attention);
        a.qk_norm_across_heads = false;
    }
    const Precision bf16{};
    CHECK((weights_per_device(m, bf16, Parallelism{.tensor = 8}) - weights_per_device(per_head, bf16, Parallelism{.tensor = 8})).in(bytes) ==
          62 * (6144 + 1024) / 8 * 2.0);
    // The released weights hold no MTP module, whatever use_mtp says.
    CHECK(m.mtp_layers == 0);
    // Own form round-trips the norms' kind.
    const nlohmann::json own = m;
    CHECK(own["layer_groups"][0]["attention"]["qk_norm_across_heads"] == true);
    CHECK(same_layers(model_from_config(own), m));
    decodes(m, "h200", 8);
}

TEST_CASE("minimax_m2: defaults as MiniMaxM2Config, and what it does not model is refused", "[families][minimax][defaults][errors]") {
    const nlohmann::json j = hub("minimax-m2.7.json");
    // MiniMaxM2Config @ea9df1d: num_key_value_heads=8, head_dim=128; no use_qk_norm or
    // use_routing_bias fields, its model building both.
    CHECK(first<Gqa>(config_without(j, {"num_key_value_heads"})).kv_heads == 8);
    CHECK(first<Gqa>(config_without(j, {"head_dim"})).head_dim == 128);
    CHECK(first<Gqa>(config_without(j, {"use_qk_norm", "qk_norm_type"})).qk_norm_across_heads);
    CHECK_FALSE(first<Gqa>(with(j, "use_qk_norm", false)).qk_norm_across_heads);
    CHECK(std::get<Moe>(config_without(j, {"use_routing_bias"}).groups[0].spec.ffn).router_bias);
    // The M2.5 copy (key order changed, attn_type_list and dtype left out) reads as the same model.
    CHECK(hub_model("minimax-m2.5-partial.json").groups[0].spec == hub_model("minimax-m2.7.json").groups[0].spec);
    nlohmann::json lightning = j;
    lightning["attn_type_list"][5] = 0;
    CHECK_THROWS_WITH(model_from_config(lightning, "m.json"),
                      "m.json: /attn_type_list/5: got 0, expected an array of 62 ones (softmax attention on every layer; 0, "
                      "lightning attention, is not modelled)");
    CHECK_THROWS_WITH(with(j, "qk_norm_type", "per_head"),
                      "test.json: /qk_norm_type: got \"per_head\" (a string), expected \"per_layer\" (one norm over each projection's "
                      "heads, as every MiniMax-M2 release has)");
    CHECK_THROWS_WITH(with(j, "shared_intermediate_size", 1536),
                      "test.json: /shared_intermediate_size: got 1536, expected 0 (MiniMaxM2's experts have no shared expert "
                      "beside them)");
}

TEST_CASE("modelopt: NVIDIA's NVFP4 checkpoints keep attention in bf16 and quantise the routed experts", "[families][formats]") {
    // nvidia/MiniMax-M2.5-NVFP4: config_groups' weights are float 4-bit in groups of 16, and
    // `ignore` names lm_head, each layer's router and each layer's self_attn*.
    const LoadedModel m = load_model_with_formats("tests/data/hub/minimax-m2.5-nvfp4.json");
    CHECK(m.precision.attention_format() == formats::bf16);
    CHECK(m.precision.expert_format() == formats::nvfp4);
    CHECK(m.precision.lm_head_format() == formats::bf16);
    CHECK(m.precision.embedding_format() == formats::bf16);
    CHECK(m.precision_source ==
          "dtype bfloat16; quantization_config modelopt: linear layers nvfp4, attention bf16 (ignore keeps it), embeddings, norms "
          "and routers bf16, lm_head bf16; kv_cache_scheme ignored: the KV format is --kv's");
    // The experts at 4.5 bits a weight (NVFP4: an FP8 scale per 16), the rest at 2 B: by hand.
    const ParameterBreakdown p = derived_parameters(m.model);
    CHECK(weights_per_device(m.model, m.precision).in(bytes) == Approx(p.experts * 4.5 / 8 + (p.total() - p.experts) * 2).epsilon(1e-13));
    // A head `ignore` does not name is a Linear the scheme quantises.
    nlohmann::json head = hub("minimax-m2.5-nvfp4.json");
    auto& ignored = head["quantization_config"]["ignore"];
    ignored.erase(ignored.begin());  // "lm_head"
    CHECK(checkpoint_formats(head).first.lm_head_format() == formats::nvfp4);
    // Qwen3.5's and GLM-5.1's releases too, which also keep linear attention and shared experts.
    CHECK(load_model_with_formats("tests/data/hub/qwen3.5-397b-a17b-nvfp4.json").precision.expert_format() == formats::nvfp4);
    CHECK(load_model_with_formats("tests/data/hub/glm-5.1-nvfp4.json").precision.weights == formats::bf16);
    // A dense model's attention kept on one layer of 32: every layer's priced at bf16, and said.
    nlohmann::json dense = read_json_file(data_directory() / "models" / "llama-3.1-8b.json");
    dense["quantization_config"] = {{"quant_method", "modelopt"},
                                    {"config_groups", {{"group_0", {{"weights", {{"num_bits", 4}, {"type", "float"}, {"group_size", 16}}}}}}},
                                    {"ignore", {"lm_head", "model.layers.0.self_attn*"}}};
    const auto [precision, source] = checkpoint_formats(dense);
    CHECK(precision.weights == formats::nvfp4);
    CHECK(precision.attention_format() == formats::bf16);
    CHECK(source.find("linear layers nvfp4, attention bf16 (ignore keeps it on 1 of 32 layers; ridgeline prices every layer's at "
                      "bf16)") != std::string::npos);
    // MIXED_PRECISION over groups of one scheme is that scheme.
    dense["quantization_config"]["quant_algo"] = "MIXED_PRECISION";
    CHECK(checkpoint_formats(dense, "q.json").first.weights == formats::nvfp4);
}

TEST_CASE("kimi_k25: Kimi-K2.5's language model, a kimi_k2 text_config read by its architectures, INT4 routed experts", "[families][deepseek][formats]") {
    // Its text_config says model_type kimi_k2 and architectures DeepseekV3ForCausalLM, and holds
    // the quantization_config: compressed-tensors int4 in groups of 32, `ignore` keeping
    // lm_head, every self_attn, the shared experts and the dense MLPs.
    const LoadedModel k = load_model_with_formats("tests/data/hub/kimi-k2.5.json");
    CHECK(k.notes.starts_with("language model read from text_config (model_type kimi_k2, read as deepseek_v3 (its architectures names "
                              "DeepseekV3ForCausalLM)) of a kimi_k25 checkpoint"));
    // Kimi K2's architecture: "1T total, 32B activated" (Moonshot; SOURCES.md, kimi-k2-instruct.json).
    const Model k2 = hub_model("kimi-k2-instruct.json");
    CHECK(derived_parameters(k.model) == derived_parameters(k2));
    CHECK(kv_bytes_per_token(k.model, formats::bf16) == kv_bytes_per_token(k2, formats::bf16));
    CHECK(k.precision.weights == formats::bf16);
    CHECK(k.precision.expert_format() == block_scaled(Numeric::int4, 16, 32));
    CHECK(k.precision_source == "dtype bfloat16; quantization_config compressed-tensors: routed experts int4/g32, other linear layers "
                                "bf16, attention bf16 (ignore keeps it), embeddings, norms and routers bf16, lm_head bf16");
    // The routed experts at 4 + 16 / 32 = 4.5 bits, everything else in bf16, by hand.
    const ParameterBreakdown p = derived_parameters(k.model);
    CHECK(weights_per_device(k.model, k.precision).in(bytes) == Approx(p.experts * 4.5 / 8 + (p.total() - p.experts) * 2).epsilon(1e-13));
}

TEST_CASE("qwen3_5: Qwen3.5's four sizes, Qwen3-Next's layers inside a vision-language wrapper", "[families][qwen3_5]") {
    // Qwen's cards: "397B in total and 17B activated", "122B in total and 10B activated",
    // 35B-A3B, "27B" (SOURCES.md). Both tables are in the active figure.
    const Model q27 = hub_model("qwen3.5-27b.json"), q35 = hub_model("qwen3.5-35b-a3b.json"), q122 = hub_model("qwen3.5-122b-a10b.json");
    const LoadedModel q397 = load_model_with_formats("tests/data/hub/qwen3.5-397b-a17b.json");
    const Model& big = q397.model;
    CHECK(derived_parameters(q27).total() / 1e9 == Approx(27).margin(0.5));
    CHECK(derived_parameters(q35).total() / 1e9 == Approx(35).margin(0.5));
    CHECK(active_parameters(q35).total() / 1e9 == Approx(3).margin(0.5));
    CHECK(derived_parameters(q122).total() / 1e9 == Approx(122).margin(0.5));
    CHECK(active_parameters(q122).total() / 1e9 == Approx(10).margin(0.5));
    CHECK(derived_parameters(big).total() / 1e9 == Approx(397).margin(1));
    CHECK(active_parameters(big).total() / 1e9 == Approx(17).margin(0.5));
    // 397B by hand (hidden 4096, 60 layers, 15 full): a Gated DeltaNet layer is in_proj_qkv
    // 4096 x (2 x 16 x 128 + 64 x 128), in_proj_z 4096 x 8192, in_proj_b and _a 2 x 4096 x 64,
    // conv1d 12288 x 4, dt_bias and A_log 2 x 64, its norm 128, out_proj 8192 x 4096; a full one
    // q 4096 x 2 x 32 x 256 (the output gate), k and v 2 x 4096 x 512, o 8192 x 4096, q/k norms
    // 2 x 256; every layer 512 experts of 3 x 4096 x 1024, a shared one of the same, its gate
    // 4096, the router 512 x 4096, two norms; both tables 2 x 248320 x 4096 and the final norm.
    const double deltanet = 4096.0 * 12288 + 4096.0 * 8192 + 2 * 4096.0 * 64 + 12288.0 * 4 + 128 + 128 + 8192.0 * 4096;
    const double full = 4096.0 * 16384 + 2 * 4096.0 * 512 + 8192.0 * 4096 + 512;
    const double expert = 3 * 4096.0 * 1024, ffn = 513 * expert + 4096 + 512 * 4096.0;
    const double lm = 45 * deltanet + 15 * full + 60 * (ffn + 2 * 4096) + 2 * 248320.0 * 4096 + 4096;
    CHECK(derived_parameters(big).total() == Approx(lm).epsilon(1e-15));
    // With the vision tower (by hand from vision_config: a 3 x 2 x 16 x 16 patch embedding with
    // its bias, 2,304 position embeddings, 27 blocks of two LayerNorms, qkv, proj and a two-matrix
    // MLP with biases, the merger's LayerNorm and 4608 -> 4608 -> 4096) and the MTP module, the
    // Hub's safetensors total, 403,397,928,944 (a listing of its metadata, secondary).
    const double v = 1152, patch = 3 * 2 * 16 * 16 * v + v, pos = 2304 * v;
    const double block = 4 * v + (v * 3 * v + 3 * v) + (v * v + v) + (v * 4304 + 4304) + (4304 * v + v);
    const double vision = patch + pos + 27 * block + 2 * v + (4608.0 * 4608 + 4608) + (4608.0 * 4096 + 4096);
    CHECK(derived_parameters(big).total() + vision + mtp_parameters(big) == 403397928944.0);
    // The recurrent state in text_config's mamba_ssm_dtype, float32, as vLLM and SGLang keep it;
    // the conv state in the model's bf16: 45 x (64 x 128 x 128 x 4 + 12288 x 3 x 2) B.
    CHECK(q397.precision.state.matrices == formats::fp32);
    CHECK(state_bytes_per_sequence(big, q397.precision.state).in(bytes) == 45 * (64 * 128 * 128 * 4.0 + 12288 * 3 * 2.0));
    // 15 full-attention layers of 2 KV heads x 256.
    CHECK(kv_bytes_per_token(big, formats::bf16).in(bytes) == 15 * 2 * 2 * 256 * 2.0);
    // The dense 27B: a gated MLP of 17,408 on all 64 layers, 4 KV heads (by hand as above:
    // DeltaNet 5120 x 10240 + 5120 x 6144 + 2 x 5120 x 48 + 10240 x 4 + 96 + 128 + 6144 x 5120;
    // full q 5120 x 2 x 24 x 256, k and v 2 x 5120 x 1024, o 6144 x 5120, norms 512).
    const double d27 = 5120.0 * 10240 + 5120.0 * 6144 + 2 * 5120.0 * 48 + 10240.0 * 4 + 96 + 128 + 6144.0 * 5120;
    const double f27 = 5120.0 * 12288 + 2 * 5120.0 * 1024 + 6144.0 * 5120 + 512;
    CHECK(derived_parameters(q27).total() ==
          Approx(48 * d27 + 16 * f27 + 64 * (3 * 5120.0 * 17408 + 2 * 5120) + 2 * 248320.0 * 5120 + 5120).epsilon(1e-15));
    CHECK(std::holds_alternative<DenseMlp>(q27.groups[0].spec.ffn));
    decodes(big, "h200", 8);
    decodes(q27);
}

TEST_CASE("defaults: qwen3_5_text and qwen3_5_moe_text, as their configuration classes have them", "[families][defaults][qwen3_5]") {
    const nlohmann::json moe = hub("qwen3.5-35b-a3b.json"), dense = hub("qwen3.5-27b.json");
    // Qwen3_5MoeTextConfig: num_key_value_heads=2; Qwen3_5TextConfig: 4; head_dim=256 in both.
    CHECK(first<Gqa>(config_without(moe, {"num_key_value_heads"}, true)).kv_heads == 2);
    CHECK(first<Gqa>(config_without(dense, {"num_key_value_heads"}, true)).kv_heads == 4);
    CHECK(first<Gqa>(config_without(dense, {"head_dim"}, true)).head_dim == 256);
    // attn_output_gate is no field of either class, and the attention always gates.
    CHECK(first<Gqa>(config_without(moe, {"attn_output_gate"}, true)).output_gate);
    CHECK_FALSE(first<Gqa>(with(moe, "attn_output_gate", false, true)).output_gate);
    // The MoE class deletes mlp_only_layers: every layer routes whatever the file lists.
    const Model listed = with(moe, "mlp_only_layers", nlohmann::json::array({0, 1}), true);
    CHECK(layers_where(listed, [](const LayerSpec& s) { return std::holds_alternative<Moe>(s.ffn); }) == 40);
    // layer_types absent: full_attention_interval, 4 when absent too.
    const Model by_interval = config_without(moe, {"layer_types"}, true);
    CHECK(layers_where(by_interval, [](const LayerSpec& s) { return std::holds_alternative<Gqa>(s.attention); }) == 10);
    CHECK(same_layers(by_interval, hub_model("qwen3.5-35b-a3b.json")));
    // The MTP modules the file names; none where it names none.
    CHECK(hub_model("qwen3.5-35b-a3b.json").mtp_layers == 1);
    CHECK(config_without(moe, {"mtp_num_hidden_layers"}, true).mtp_layers == 0);
}

TEST_CASE("glm_moe_dsa: GLM-5, DeepSeek-V3.2's layers at GLM's sizes", "[families][glm][deepseek]") {
    const Model m = hub_model("glm-5.json");
    // By hand (hidden 6144, 78 layers, 64 heads): q_a 6144 x 2048 and its norm, q_b 2048 x 64 x 256,
    // kv_a 6144 x 576 and its norm 512, kv_b 512 x 64 x (192 + 256), o 64 x 256 x 6144; the indexer
    // wq_b 2048 x 32 x 128, wk 6144 x 128, k_norm 2 x 128, weights_proj 6144 x 32; two norms; 3
    // dense MLPs of 12,288; 75 MoE layers of 256 experts of 3 x 6144 x 2048, one shared, the
    // router 256 x 6144 and its 256 biases; both tables 2 x 154880 x 6144 and the final norm.
    const double attention = 6144.0 * 2048 + 2048 + 2048.0 * 64 * 256 + 6144.0 * 576 + 512 + 512.0 * 64 * 448 + 64 * 256.0 * 6144;
    const double indexer = 2048.0 * 32 * 128 + 6144.0 * 128 + 256 + 6144.0 * 32;
    const double expert = 3 * 6144.0 * 2048;
    const double total = 78 * (attention + indexer + 2 * 6144) + 3 * 3 * 6144.0 * 12288 + 75 * (257 * expert + 256 * 6144.0 + 256) +
                         2 * 154880.0 * 6144 + 6144;
    CHECK(derived_parameters(m).total() == Approx(total).epsilon(1e-15));
    // Z.ai: "744B parameters (40B active)" for GLM-5; its MTP layer (num_nextn_predict_layers 1)
    // is the 754B the Hub counts for GLM-5.1 (NVIDIA's NIM card), less the 744B.
    CHECK(derived_parameters(m).total() / 1e9 == Approx(744).margin(0.5));
    CHECK(active_without_tables(m, false) / 1e9 == Approx(40).margin(1));
    CHECK((derived_parameters(m).total() + mtp_parameters(m)) / 1e9 == Approx(754).margin(0.5));
    // KV a token and layer: the latent 512 and rope key 64, and the indexer's 132 B key (fp8 with
    // an fp32 scale per 128): 78 x (576 x 2 + 132) in bf16, 78 x (656 + 132) in fp8.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 78 * (576 * 2 + 132));
    CHECK(kv_bytes_per_token(m, formats::fp8).in(bytes) == 78 * (656 + 132));
    // GlmMoeDsaConfig's defaults @008e574.
    const nlohmann::json j = hub("glm-5.json");
    CHECK(same_layers(config_without(j, {"index_n_heads", "index_head_dim", "index_topk", "q_lora_rank"}), m));
    CHECK(same_layers(config_without(j, {"n_shared_experts", "first_k_dense_replace"}), m));
    CHECK(config_without(j, {"num_nextn_predict_layers"}).mtp_layers == 0);
    CHECK_THROWS_WITH(with(j, "q_lora_rank", nullptr),
                      "test.json: /q_lora_rank: got null, expected a positive integer (GLM-5's indexer reads the query latent; vLLM "
                      "asserts one)");
    decodes(m, "h200", 8);
}

TEST_CASE("glm_moe_dsa: GLM-5.2's IndexShare, an indexer on 21 layers and their top-k reused on the rest", "[families][glm][deepseek]") {
    const LoadedModel loaded = load_model_with_formats("tests/data/hub/glm-5.2-fp8.json");
    const Model& m = loaded.model;
    // indexer_types: full on layers 0, 1, 2 and every fourth from 6 (max(i - 3 + 1, 0) % 4 == 0).
    CHECK(layers_where(m, [](const LayerSpec& s) { return std::get<Mla>(s.attention).own_indexer(); }) == 21);
    CHECK(layers_where(m, [](const LayerSpec& s) { return std::get<Mla>(s.attention).index_topk == 2048; }) == 78);
    // The same layers from index_topk_freq 4 and index_skip_topk_offset 3, and from a pattern.
    const nlohmann::json j = hub("glm-5.2-fp8.json");
    CHECK(same_layers(config_without(j, {"indexer_types"}), m));
    std::string pattern;
    for (const auto& t : j["indexer_types"]) pattern += t == "full" ? 'F' : 'S';
    nlohmann::json by_pattern = j;
    by_pattern.erase("indexer_types");
    by_pattern["index_topk_pattern"] = pattern;
    CHECK(same_layers(model_from_config(by_pattern), m));
    // 57 layers without an indexer (9,371,904 parameters each: the GLM-5 test's) and without its
    // 132 B key: GLM-5's figures less those.
    const Model five = hub_model("glm-5.json");
    CHECK(derived_parameters(five).total() - derived_parameters(m).total() == 57 * 9371904.0);
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 78 * 576 * 2 + 21 * 132);
    // A shared layer's main attention still reads its top-k: at 100k tokens, 2,048 latents on
    // every layer, and the indexer's keys of all 100k on 21.
    CHECK(kv_bytes_read(m, formats::bf16, 100000).in(bytes) == 78 * 576 * 2 * 2048.0 + 21 * 132 * 100000.0);
    // Its MTP layer runs an indexer of its own (the checkpoint's layer 78 has one): GLM-5's.
    CHECK(mtp_parameters(m) == mtp_parameters(five));
    // mlp_layer_types in place of first_k_dense_replace: the same three dense layers.
    CHECK(same_layers(config_without(j, {"mlp_layer_types"}), m));
    nlohmann::json more_dense = j;
    more_dense["mlp_layer_types"][3] = "dense";
    CHECK(layers_where(model_from_config(more_dense), [](const LayerSpec& s) { return std::holds_alternative<DenseMlp>(s.ffn); }) == 4);
    // The rule with offset 0 would leave the first layer sharing what no layer chose.
    nlohmann::json zero_offset = j;
    zero_offset.erase("indexer_types");
    zero_offset["index_skip_topk_offset"] = 0;
    CHECK_THROWS_WITH(model_from_config(zero_offset, "g.json"),
                      "g.json: /index_skip_topk_offset: got 0, expected an offset of at least 1 where index_topk_freq is 4 (offset 0 "
                      "leaves the first layer sharing a top-k no earlier layer chose)");
    nlohmann::json first_shared = j;
    first_shared["indexer_types"][0] = "shared";
    CHECK_THROWS_WITH(model_from_config(first_shared, "g.json"),
                      "g.json: /indexer_types/0: got \"shared\" (a string), expected \"full\" (the first layer has no earlier top-k to share)");
    CHECK(std::get<Mla>(m.groups[m.last_layer_group()].spec.attention).describe().find("from an earlier layer's indexer") !=
          std::string::npos);
    // The own form keeps which layers share.
    CHECK(same_layers(model_from_config(nlohmann::json(m)), m));
    decodes(m, "h200", 8);
}

TEST_CASE("hf_quant_config.json: NVIDIA's FP8 and NVFP4 releases give their formats beside config.json", "[families][formats][modelopt]") {
    namespace fs = std::filesystem;
    // nvidia/Llama-3.1-70B-Instruct-FP8: config.json has no quantization_config; its
    // hf_quant_config.json says quant_algo FP8, exclude_modules [lm_head].
    const LoadedModel llama = load_model_with_formats("tests/data/hub/llama-3.1-70b-instruct-fp8");
    CHECK(llama.precision.weights == formats::fp8);
    CHECK(llama.precision.lm_head_format() == formats::bf16);
    CHECK(llama.precision.embedding_format() == formats::bf16);
    CHECK(llama.precision_source == "torch_dtype bfloat16; hf_quant_config.json FP8: linear layers fp8, embeddings, norms and routers "
                                    "bf16, lm_head bf16; kv_cache_quant_algo ignored: the KV format is --kv's");
    // By hand from its config.json (hidden 8192, 80 layers, 64 heads of 128, 8 KV heads,
    // intermediate 28672, vocab 128256 untied): the linear layers at 1 B, both tables and the
    // 161 norms of 8192 at 2 B.
    const double linear = 80 * (8192.0 * 8192 * 2 + 8192.0 * 1024 * 2 + 3 * 8192.0 * 28672);
    const double tables = 2 * 128256.0 * 8192, norms = (80 * 2 + 1) * 8192.0;
    CHECK(weights_per_device(llama.model, llama.precision).in(bytes) == linear + 2 * (tables + norms));
    // Without the file beside it, the same config.json is a bf16 checkpoint.
    const fs::path dir = fs::temp_directory_path() / "ridgeline-test-hf-quant";
    fs::remove_all(dir);
    fs::create_directories(dir / "alone");
    fs::copy_file("tests/data/hub/llama-3.1-70b-instruct-fp8/config.json", dir / "alone" / "config.json");
    CHECK(load_model_with_formats((dir / "alone").string()).precision.weights == formats::bf16);
    // aiconfigurator's pairs: <x>_hf_quant_config.json beside <x>_config.json.
    fs::copy_file("tests/data/hub/llama-3.1-70b-instruct-fp8/config.json", dir / "nvidia--Llama_config.json");
    fs::copy_file("tests/data/hub/llama-3.1-70b-instruct-fp8/hf_quant_config.json", dir / "nvidia--Llama_hf_quant_config.json");
    CHECK(load_model_with_formats((dir / "nvidia--Llama_config.json").string()).precision.weights == formats::fp8);
    // A config.json's own quantization_config is read first, as vLLM reads it.
    nlohmann::json own = hub("llama-3.1-70b-instruct-fp8/config.json");
    own["quantization_config"] = {{"quant_method", "fp8"}};
    fs::create_directories(dir / "both");
    write_fixture(dir / "both" / "config.json", own);
    nlohmann::json nvfp4 = hub("llama-3.1-70b-instruct-fp8/hf_quant_config.json");
    nvfp4["quantization"]["quant_algo"] = "NVFP4";
    write_fixture(dir / "both" / "hf_quant_config.json", nvfp4);
    CHECK(load_model_with_formats((dir / "both").string()).precision.weights == formats::fp8);
    // A file that is not Model Optimizer's, or has no quantization object, is refused by name.
    const std::string beside = (dir / "bad" / "hf_quant_config.json").string();
    fs::create_directories(dir / "bad");
    fs::copy_file("tests/data/hub/llama-3.1-70b-instruct-fp8/config.json", dir / "bad" / "config.json");
    nlohmann::json other = nvfp4;
    other["producer"]["name"] = "quark";
    write_fixture(beside, other);
    CHECK_THROWS_WITH(load_model_with_formats((dir / "bad").string()),
                      beside + ": /producer/name: got \"quark\" (a string), expected \"modelopt\" (NVIDIA Model Optimizer writes this file)");
    other = nvfp4;
    other.erase("quantization");
    write_fixture(beside, other);
    CHECK_THROWS_WITH(load_model_with_formats((dir / "bad").string()),
                      beside + ": /quantization: got nothing (the key is missing), expected a quantization object");
    fs::remove_all(dir);
}

TEST_CASE("hf_quant_config.json: NVFP4 everywhere but the head, or on the routed experts only", "[families][formats][modelopt]") {
    // nvidia/Qwen3-235B-A22B-NVFP4 keeps only lm_head and each layer's router (mlp.gate): every
    // linear layer, attention too, in NVFP4 (4.5 bits a weight). By hand from its config.json
    // (hidden 4096, 94 layers, 64 heads and 4 KV heads of 128, 128 experts of 3 x 4096 x 1536,
    // vocab 151936 untied): the routers, the 2 norms a layer, the final norm and the tables at
    // 2 B. The q/k norms (2 x 128 a layer) are priced with the projections they follow, in the
    // weights' format: 24,064 parameters, 35 kB of 134 GB.
    const LoadedModel q = load_model_with_formats("tests/data/hub/qwen3-235b-a22b-nvfp4");
    CHECK(q.precision.weights == formats::nvfp4);
    CHECK(q.precision.expert_format() == formats::nvfp4);
    CHECK(q.precision.lm_head_format() == formats::bf16);
    const double attention = 4096.0 * 8192 * 2 + 4096.0 * 512 * 2, experts = 128 * 3 * 4096.0 * 1536;
    const double kept = 94 * (128 * 4096.0 + 2 * 4096.0) + 4096 + 2 * 151936.0 * 4096;
    CHECK(weights_per_device(q.model, q.precision).in(bytes) == Approx(94 * (attention + experts) * 4.5 / 8 + kept * 2).epsilon(1e-6));
    // nvidia/GLM-5-NVFP4 keeps every layer's attention (and indexer) but not the shared experts
    // or the three dense MLPs, which its checkpoint stores in NVFP4 with the routed experts:
    // everything else at 2 B, those at 0.5625 B. By hand from its config.json: 75 MoE layers of
    // 256 experts and a shared one of 3 x 6144 x 2048, 3 dense MLPs of 3 x 6144 x 12288.
    const LoadedModel glm = load_model_with_formats("tests/data/hub/glm-5-nvfp4");
    CHECK(glm.precision.weights == formats::nvfp4);
    CHECK(glm.precision.attention_format() == formats::bf16);
    CHECK(glm.precision.expert_format() == formats::nvfp4);
    CHECK(glm.precision_source ==
          "dtype bfloat16; hf_quant_config.json NVFP4: linear layers nvfp4, attention bf16 (exclude_modules keeps it), embeddings, "
          "norms and routers bf16, lm_head bf16; kv_cache_quant_algo ignored: the KV format is --kv's");
    const double quantised = 75 * 257 * 3 * 6144.0 * 2048 + 3 * 3 * 6144.0 * 12288;
    CHECK(weights_per_device(glm.model, glm.precision).in(bytes) ==
          Approx(2 * derived_parameters(glm.model).total() - quantised * (2 - 0.5625)).epsilon(1e-12));
    // Its excluded "model.layers.78*" is the MTP layer (78 layers), which keeps nothing costed.
    // nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4 keeps the mixers (mixer.q_proj ...
    // mixer.out_proj) of 12 of its 52 layers: every layer's priced at bf16, and said.
    const LoadedModel nano = load_model_with_formats("tests/data/hub/nemotron-3-nano-30b-a3b-nvfp4");
    CHECK(nano.precision.weights == formats::nvfp4);  // its shared experts
    CHECK(nano.precision.attention_format() == formats::bf16);
    CHECK(nano.precision_source.find("hf_quant_config.json NVFP4: linear layers nvfp4, attention bf16 (exclude_modules keeps it on "
                                     "12 of 52 layers; ridgeline prices every layer's at bf16)") != std::string::npos);
    // GLM-5.1's list keeps its shared experts and whole dense layers ("model.layers.0*"): those at bf16.
    const LoadedModel glm51 = load_model_with_formats("tests/data/hub/glm-5.1-nvfp4.json");
    CHECK(glm51.precision.weights == formats::bf16);
    CHECK(glm51.precision_source.find("routed experts nvfp4, other linear layers bf16, attention bf16 (ignore keeps it)") !=
          std::string::npos);
}

TEST_CASE("modelopt's own form in a config.json: one quant_algo, `ignore`, and the algorithms it refuses", "[families][formats][modelopt][errors]") {
    nlohmann::json j = read_json_file(data_directory() / "models" / "llama-3.1-8b.json");
    // vLLM's "compressed-tensors style" modelopt config (vllm-project/vllm@00155cd modelopt.py).
    j["quantization_config"] = {{"quant_method", "modelopt"}, {"quant_algo", "nvfp4"}, {"group_size", 16}, {"ignore", {"lm_head"}}};
    auto [p, source] = checkpoint_formats(j, "c.json");
    CHECK(p.weights == formats::nvfp4);
    CHECK(p.lm_head_format() == formats::bf16);
    CHECK(source.ends_with("; quantization_config modelopt nvfp4: linear layers nvfp4, embeddings, norms and routers bf16, lm_head bf16"));
    j["quantization_config"]["quant_algo"] = "FP8_PER_CHANNEL_PER_TOKEN";
    j["quantization_config"].erase("ignore");
    std::tie(p, source) = checkpoint_formats(j, "c.json");
    CHECK(p.weights == formats::fp8);
    CHECK(p.lm_head_format() == formats::fp8);  // nothing kept: the head is a Linear it quantises
    j["quantization_config"]["quant_algo"] = "FP8_PB_WO";
    CHECK_THROWS_WITH(checkpoint_formats(j, "c.json"),
                      "c.json: /quantization_config/quant_algo: got \"FP8_PB_WO\" (a string), expected one of: FP8, "
                      "FP8_PER_CHANNEL_PER_TOKEN, NVFP4, W4A16_NVFP4, MXFP8");
    j["quantization_config"]["quant_algo"] = "W4A16_NVFP4";
    j["quantization_config"]["group_size"] = 32;
    CHECK_THROWS_WITH(checkpoint_formats(j, "c.json"),
                      "c.json: /quantization_config/group_size: got 32, expected 16 (NVFP4 scales every 16 weights)");
    j["quantization_config"]["quant_algo"] = "MIXED_PRECISION";
    CHECK_THROWS_WITH(checkpoint_formats(j, "c.json"),
                      "c.json: /quantization_config/quantized_layers: got nothing (the key is missing), expected an object of module "
                      "names, each with its quant_algo");
    j["quantization_config"] = {{"quant_method", "modelopt"}};
    CHECK_THROWS_WITH(checkpoint_formats(j, "c.json"),
                      "c.json: /quantization_config/config_groups: got nothing (the key is missing), expected an object of "
                      "quantisation groups");
}

TEST_CASE("gemma4: 26B-A4B (experts beside an MLP) and 31B, full layers with wider heads and V from k_proj", "[families][gemma4]") {
    // Google's card (SOURCES.md, secondary): 26B-A4B "25.2B total, 3.8B active"; 31B "30.7B".
    const LoadedModel moe = load_model_with_formats("tests/data/hub/gemma-4-26b-a4b.json");
    const Model& m = moe.model;
    // By hand from its text_config (hidden 2816, 30 layers, full at 5, 11, 17, 23, 29; 16 heads;
    // sliding: 8 KV heads x 256; full: 2 KV heads x 512 and no v_proj; q and k norms a head
    // wide; MLP 2112 beside 128 experts of 704, 8 a token; router 128 x 2816, a scale of 2816 and
    // one of 128; 7 norms of 2816 a layer; a tied table of 262144 x 2816 and the final norm).
    const double sliding = 2816.0 * 4096 * 2 + 2816.0 * 2048 * 2 + 2 * 256;
    const double full = 2816.0 * 8192 * 2 + 2816.0 * 1024 + 2 * 512;
    const double experts = 128 * 3 * 2816.0 * 704, rest = 3 * 2816.0 * 2112 + experts + 2816.0 * 128 + 2816 + 128 + 7 * 2816;
    const double table = 262144.0 * 2816;
    CHECK(derived_parameters(m).total() == 25 * (sliding + rest) + 5 * (full + rest) + table + 2816);
    CHECK(derived_parameters(m).total() / 1e9 == Approx(25.2).margin(0.05));
    // Active: 8 of the 128 experts.
    CHECK(active_parameters(m).total() == derived_parameters(m).total() - 30 * 120 * 3 * 2816.0 * 704);
    CHECK(active_parameters(m).total() / 1e9 == Approx(3.8).margin(0.05));
    CHECK(moe.notes.starts_with("language model read from text_config (model_type gemma4_text) of a gemma4 checkpoint"));
    // K and V both cached on every layer, as vLLM keeps them: 2 x 8 x 256 x 2 B on a sliding
    // layer, 2 x 2 x 512 x 2 B on a full one.
    CHECK(kv_bytes_per_token(m, formats::bf16).in(bytes) == 25 * 8192 + 5 * 4096);
    CHECK(layers_where(m, [](const LayerSpec& s) { return s.window == 1024; }) == 25);
    CHECK(m.tied_embeddings);
    CHECK(first<Gqa>(m).describe() == "GQA 16 heads / 8 KV heads x 256");

    // 31B: dense, 60 layers (full every sixth), hidden 5376, 32 heads; sliding 16 KV heads x
    // 256, full 4 x 512 without v_proj; MLP 21504; 4 norms a layer (NVIDIA's copy of its config).
    const Model dense = load_model("tests/data/hub/gemma-4-31b-it-nvfp4");
    const double s31 = 5376.0 * 8192 * 2 + 5376.0 * 4096 * 2 + 512, f31 = 5376.0 * 16384 * 2 + 5376.0 * 2048 + 1024;
    const double mlp31 = 3 * 5376.0 * 21504 + 4 * 5376;
    CHECK(derived_parameters(dense).total() == 50 * (s31 + mlp31) + 10 * (f31 + mlp31) + 262144.0 * 5376 + 5376);
    CHECK(derived_parameters(dense).total() / 1e9 == Approx(30.7).margin(0.05));
    CHECK(kv_bytes_per_token(dense, formats::bf16).in(bytes) == 50 * 2 * 16 * 256 * 2 + 10 * 2 * 4 * 512 * 2);
    // The own form keeps the full layers' V from k_proj.
    const nlohmann::json own = m;
    CHECK(same_layers(model_from_config(own), m));
    decodes(m, "h100-sxm", 2);
    decodes(dense);
}

TEST_CASE("gemma4: defaults as Gemma4TextConfig, and the E2B/E4B features refused", "[families][gemma4][defaults][errors]") {
    const nlohmann::json j = hub("gemma-4-26b-a4b.json");
    const auto full_layers = [](const Model& x) { return layers_where(x, [](const LayerSpec& s) { return s.window == 0; }); };
    // layer_types absent: full on every sixth layer and on the last (30 layers: 5, 11, ..., 29).
    CHECK(full_layers(config_without(j, {"layer_types"}, true)) == 5);
    nlohmann::json odd = j;
    odd["text_config"].erase("layer_types");
    odd["text_config"]["num_hidden_layers"] = 32;  // sixths at 5 ... 29, and the last, 31
    CHECK(full_layers(model_from_config(odd, "t.json")) == 6);
    // The last layer full even where layer_types says sliding (Gemma4TextConfig forces it).
    nlohmann::json last = j;
    last["text_config"]["layer_types"][29] = "sliding_attention";
    CHECK(full_layers(model_from_config(last, "t.json")) == 5);
    // num_global_key_value_heads absent: num_key_value_heads (8) on the full layers, still no v_proj.
    CHECK(kv_bytes_per_token(config_without(j, {"num_global_key_value_heads"}, true), formats::bf16).in(bytes) ==
          25 * 8192 + 5 * 2 * 8 * 512 * 2);
    // sliding_window 512 absent; global_head_dim 512 absent; null, head_dim.
    CHECK(layers_where(config_without(j, {"sliding_window"}, true), [](const LayerSpec& s) { return s.window == 512; }) == 25);
    nlohmann::json null_global = j;
    null_global["text_config"]["global_head_dim"] = nullptr;
    CHECK(kv_bytes_per_token(model_from_config(null_global), formats::bf16).in(bytes) == 25 * 8192 + 5 * 2 * 2 * 256 * 2);
    // attention_k_eq_v false: the full layers keep num_key_value_heads (8) and a v_proj.
    const Model kv_apart = with(j, "attention_k_eq_v", false, true);
    CHECK(kv_bytes_per_token(kv_apart, formats::bf16).in(bytes) == 25 * 8192 + 5 * 2 * 8 * 512 * 2);
    // enable_moe_block absent: the MLP alone.
    CHECK(std::holds_alternative<DenseMlp>(config_without(j, {"enable_moe_block"}, true).groups[0].spec.ffn));
    // Refused: per-layer input embeddings (absent means 256) and KV shared across layers.
    CHECK_THROWS_WITH(config_without(j, {"hidden_size_per_layer_input"}, true),
                      "test.json: /text_config/hidden_size_per_layer_input: got nothing (the key is missing, so Gemma4TextConfig's "
                      "default of 256 applies), expected 0 (per-layer input embeddings, Gemma 4's E2B and E4B, are not modelled)");
    CHECK_THROWS_WITH(with(j, "hidden_size_per_layer_input", 256, true),
                      "test.json: /text_config/hidden_size_per_layer_input: got 256, expected 0 (per-layer input embeddings, Gemma 4's "
                      "E2B and E4B, are not modelled)");
    CHECK_THROWS_WITH(with(j, "num_kv_shared_layers", 20, true),
                      "test.json: /text_config/num_kv_shared_layers: got 20, expected 0 (layers that read an earlier layer's KV "
                      "instead of caching their own, as Gemma 4's E2B and E4B do, are not modelled)");
    CHECK_THROWS_WITH(with(j, "num_global_key_value_heads", 3, true),
                      "test.json: /text_config/num_global_key_value_heads: got 3, expected a divisor of num_attention_heads (16)");
    CHECK_THROWS_WITH(with(j, "top_k_experts", 129, true),
                      "test.json: /text_config/top_k_experts: got 129, expected at most num_experts (128)");
}

TEST_CASE("gemma4: NVIDIA's NVFP4 releases, the experts alone on 26B-A4B, the MLPs on 31B", "[families][gemma4][formats]") {
    // nvidia/Gemma-4-26B-A4B-NVFP4's ignore keeps every layer's self_attn, mlp and router: only
    // the experts in NVFP4, nothing priced above the checkpoint.
    const LoadedModel q = load_model_with_formats("tests/data/hub/gemma-4-26b-a4b-nvfp4");
    CHECK(q.precision.weights == formats::bf16);
    CHECK(q.precision.attention_format() == formats::bf16);
    CHECK(q.precision.expert_format() == formats::nvfp4);
    const ParameterBreakdown p = derived_parameters(q.model);
    CHECK(weights_per_device(q.model, q.precision).in(bytes) == Approx(p.experts * 4.5 / 8 + (p.total() - p.experts) * 2).epsilon(1e-13));
    // nvidia/Gemma-4-31B-IT-NVFP4 keeps self_attn: the 60 MLPs of 3 x 5376 x 21504 in NVFP4,
    // attention, norms and the tied table at 2 B.
    const LoadedModel d = load_model_with_formats("tests/data/hub/gemma-4-31b-it-nvfp4");
    CHECK(d.precision.weights == formats::nvfp4);
    CHECK(d.precision.attention_format() == formats::bf16);
    const double mlps = 60 * 3 * 5376.0 * 21504;
    CHECK(weights_per_device(d.model, d.precision).in(bytes) ==
          Approx(2 * derived_parameters(d.model).total() - mlps * (2 - 0.5625)).epsilon(1e-12));
    CHECK(precision_name(d.precision, d.model.tied_embeddings) == "nvfp4, attention bf16, embeddings bf16");
}

TEST_CASE("MIXED_PRECISION: NVIDIA's Qwen3.6 NVFP4 releases, attention in FP8 and the rest in NVFP4", "[families][formats][modelopt]") {
    namespace fs = std::filesystem;
    // nvidia/Qwen3.6-27B-NVFP4: config_groups of two schemes, group_0 (float 8-bit) naming every
    // layer's linear_attn and self_attn projections, group_1 (NVFP4) every MLP and lm_head.
    const LoadedModel q = load_model_with_formats("tests/data/hub/qwen3.6-27b-nvfp4");
    CHECK(q.precision.weights == formats::nvfp4);
    CHECK(q.precision.attention_format() == formats::fp8);
    CHECK(q.precision.lm_head_format() == formats::nvfp4);
    CHECK(q.precision.embedding_format() == formats::bf16);
    CHECK(q.precision_source == "dtype bfloat16; text_config.mamba_ssm_dtype float32: recurrent state fp32; quantization_config "
                                "modelopt (groups): linear layers nvfp4, attention fp8, embeddings, norms and routers bf16, lm_head "
                                "nvfp4; kv_cache_scheme ignored: the KV format is --kv's");
    // By hand, with Qwen3.5-27B's sizes (its config.json has them; the qwen3_5 test counts
    // them): 48 Gated DeltaNet and 16 gated full-attention layers' projections at 1 B, the 64
    // MLPs of 3 x 5120 x 17408 and the 248320 x 5120 head at 0.5625 B, the input table and the
    // 129 norms of 5120 at 2 B.
    const double deltanet = 5120.0 * 10240 + 5120.0 * 6144 + 2 * 5120.0 * 48 + 10240.0 * 4 + 96 + 128 + 6144.0 * 5120;
    const double full = 5120.0 * 12288 + 2 * 5120.0 * 1024 + 6144.0 * 5120 + 512;
    const double table = 248320.0 * 5120;
    CHECK(weights_per_device(q.model, q.precision).in(bytes) ==
          Approx((48 * deltanet + 16 * full) + (64 * 3 * 5120.0 * 17408 + table) * 0.5625 + (table + 129 * 5120.0) * 2).epsilon(1e-12));
    // 35B-A3B: its config.json's groups and its hf_quant_config.json's quantized_layers, read
    // alone, give the same formats.
    const LoadedModel moe = load_model_with_formats("tests/data/hub/qwen3.6-35b-a3b-nvfp4");
    CHECK(moe.precision.expert_format() == formats::nvfp4);
    CHECK(moe.precision.weights == formats::nvfp4);  // the shared experts
    CHECK(moe.precision.attention_format() == formats::fp8);
    const fs::path dir = fs::temp_directory_path() / "ridgeline-test-qwen3.6";
    fs::remove_all(dir);
    fs::create_directories(dir);
    nlohmann::json config = hub("qwen3.6-35b-a3b-nvfp4/config.json");
    config.erase("quantization_config");
    write_fixture(dir / "config.json", config);
    fs::copy_file("tests/data/hub/qwen3.6-35b-a3b-nvfp4/hf_quant_config.json", dir / "hf_quant_config.json");
    const LoadedModel alone = load_model_with_formats(dir.string());
    CHECK(alone.precision == moe.precision);
    CHECK(alone.precision_source.find("hf_quant_config.json MIXED_PRECISION: routed experts nvfp4, other linear layers nvfp4, "
                                      "attention fp8, embeddings") != std::string::npos);
    // A part given two formats is refused, naming both.
    nlohmann::json two = hub("qwen3.6-35b-a3b-nvfp4/hf_quant_config.json");
    two["quantization"]["quantized_layers"]["model.language_model.layers.3.self_attn.q_proj"] = {{"quant_algo", "NVFP4"}, {"group_size", 16}};
    write_fixture(dir / "hf_quant_config.json", two);
    CHECK_THROWS_WITH(load_model_with_formats(dir.string()),
                      (dir / "hf_quant_config.json").string() + ": /quantization/quantized_layers: got an object, expected one format for "
                      "the attention (model.language_model.layers.3.self_attn.q_proj is nvfp4, another fp8): ridgeline holds one for "
                      "the attention, one for the routed experts and one for the other linear layers; give --weights, --attention "
                      "and --experts");
    fs::remove_all(dir);
    // Groups of different schemes must name their modules: "Linear" spans every part.
    nlohmann::json linear = hub("qwen3.6-27b-nvfp4/config.json");
    linear["quantization_config"]["config_groups"]["group_0"]["targets"] = {"Linear"};
    CHECK_THROWS_WITH(checkpoint_formats(linear, "l.json"),
                      "l.json: /quantization_config/config_groups: got an object, expected targets named module by module where the "
                      "groups' schemes differ (\"Linear\" spans parts ridgeline gives formats of their own)");
}

TEST_CASE("ignore lists: what is kept, and what is not the language model's", "[families][formats][modelopt]") {
    // Qwen3-30B-A3B's preset (48 layers, routed experts) under an NVFP4 scheme of one group.
    nlohmann::json j = read_json_file(data_directory() / "models" / "qwen3-30b-a3b.json");
    const auto read = [&](const nlohmann::json& ignore) {
        j["quantization_config"] = {{"quant_method", "modelopt"},
                                    {"config_groups", {{"group_0", {{"weights", {{"num_bits", 4}, {"type", "float"}, {"group_size", 16}}}}}}},
                                    {"ignore", ignore}};
        return checkpoint_formats(j, "q.json").first;
    };
    // A shared expert's one-output gate kept is no MLP kept, and keeps no attention: all NVFP4.
    const Precision gate = read({"lm_head", "model.layers.0.mlp.shared_expert_gate"});
    CHECK(gate.weights == formats::nvfp4);
    CHECK(gate.attention_format() == formats::nvfp4);
    CHECK(gate.expert_format() == formats::nvfp4);
    // An MTP block's, a vision tower's and a layer past the model's entries keep nothing costed.
    for (const char* entry : {"mtp.layers.0*", "model.vision_tower.encoder.layers.5.self_attn.q_proj", "model.layers.48.mlp*",
                              "model.layers.48*"}) {
        INFO(entry);
        const Precision p = read({"lm_head", entry});
        CHECK(p.weights == formats::nvfp4);
        CHECK(p.attention_format() == formats::nvfp4);
    }
    // The head, however the list writes it.
    for (const char* head : {"lm_head", "language_model.lm_head", "*lm_head", "re:.*lm_head"}) {
        INFO(head);
        CHECK(read({head}).lm_head_format() == formats::bf16);
    }
    CHECK(read(nlohmann::json::array()).lm_head_format() == formats::nvfp4);
    // A whole dense MLP kept ("layers.3.mlp*"), attention everywhere ("re:.*self_attn.*").
    const Precision both = read({"re:.*self_attn.*", "model.layers.3.mlp*"});
    CHECK(both.weights == formats::bf16);
    CHECK(both.attention_format() == formats::bf16);
    CHECK(both.expert_format() == formats::nvfp4);
}

TEST_CASE("nemotron_h: Nemotron 3 Super's LatentMoE, experts in a latent behind two projections", "[families][nemotron_h][formats]") {
    // nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8 ("120B-A12B"): 88 blocks, 40 Mamba-2, 40
    // LatentMoE, 8 GQA. By hand from its config.json (hidden 4096): a Mamba-2 block's in_proj
    // 4096 x (2 x 8192 + 2 x 8 x 128 + 128), conv1d (8192 + 2048) x 4 and its bias, dt_bias,
    // A_log and D of 128, the gated norm of 8192, out_proj 8192 x 4096; an attention block's q
    // and o 4096 x 4096, k and v 4096 x 256; a LatentMoE block's router 512 x 4096 and its 512
    // biases, the shared expert 2 x 4096 x 5376 (relu2, no gate), fc1_latent_proj and
    // fc2_latent_proj 2 x 4096 x 1024, and 512 experts of 2 x 1024 x 2688; a norm a block, the
    // final one, and untied tables of 131072 x 4096.
    const LoadedModel super = load_model_with_formats("tests/data/hub/nemotron-3-super-120b-a12b-fp8");
    const double mamba = 4096.0 * (2 * 8192 + 2 * 8 * 128 + 128) + 10240.0 * 4 + 10240 + 3 * 128 + 8192 + 8192.0 * 4096;
    const double attention = 2 * 4096.0 * 4096 + 2 * 4096.0 * 256;
    const double expert = 2 * 1024.0 * 2688;
    const double moe = 512 * 4096.0 + 512 + 2 * 4096.0 * 5376 + 2 * 4096.0 * 1024 + 512 * expert;
    const double total = 40 * mamba + 8 * attention + 40 * moe + 89 * 4096.0 + 2 * 131072.0 * 4096;
    CHECK(derived_parameters(super.model).total() == total);
    CHECK(active_parameters(super.model).total() == total - 40 * (512 - 22) * expert);
    CHECK(derived_parameters(super.model).total() / 1e9 == Approx(120).margin(1));
    // 12.77B with both tables; 12.23B without the input one.
    CHECK((active_parameters(super.model).total() - 131072.0 * 4096) / 1e9 == Approx(12).margin(0.5));
    CHECK(std::visit([](const auto& k) { return k.describe(); }, super.model.groups[1].spec.ffn) ==
          "MoE 512 experts top-22 x 2688 + 1 shared in a latent of 1024 (no gate)");
    // Its hf_quant_config.json: FP8 on every linear layer, the head too (no exclude_modules).
    CHECK(super.precision.weights == formats::fp8);
    CHECK(super.precision.lm_head_format() == formats::fp8);
    CHECK(super.precision.embedding_format() == formats::bf16);
    // A step at batch 1 reads 22 experts a MoE block, each 2 x 1024 x 2688 in FP8.
    const StepCost c = step_cost(super.model, Workload{.precision = super.precision});
    CHECK(c.routed_bytes(1).in(bytes) == Approx(40 * 22 * expert).epsilon(1e-12));
    // The own form keeps the latent.
    const nlohmann::json own = super.model;
    CHECK(model_from_config(own) == super.model);
    decodes(super.model, "h200", 8);
    // Ultra ("550B-A55B"): hidden 8192, a latent of 2048, 512 experts of 5120, 22 a token.
    const Model ultra = load_model("tests/data/hub/nemotron-3-ultra-550b-a55b-fp8");
    CHECK(derived_parameters(ultra).total() / 1e9 == Approx(550).margin(1));
    CHECK((active_parameters(ultra).total() - 131072.0 * 8192) / 1e9 == Approx(55).margin(0.5));
}
