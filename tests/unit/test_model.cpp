// Model arithmetic: parameter counts derived from config.json architectures against the
// published totals, KV bytes per token by hand, and validation.
#include <catch2/catch.hpp>

#include <cmath>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

using namespace ridgeline;

namespace {
// ../shared/facts/models.md, "Published parameter totals (safetensors metadata)". The Llama-2
// HF totals include 64 rotary inv_freq buffers per layer; the weights alone are quoted too.
struct Published {
    const char* preset;
    double total;
    const char* what;
};
constexpr Published published[] = {
    {"llama-3.1-8b", 8'030'261'248, "safetensors total"},
    {"llama-3.1-70b", 70'553'706'496, "safetensors total"},
    {"llama-3.1-405b", 405'853'388'800, "safetensors total"},
    {"llama-2-7b", 6'738'415'616, "weights without inv_freq buffers"},
    {"llama-2-13b", 13'015'864'320, "weights without inv_freq buffers"},
    {"llama-2-70b", 68'976'648'192, "weights without inv_freq buffers"},
    // HF totals with the buffers, to the same 0.01%.
    {"llama-2-7b", 6'738'417'664, "HF total with inv_freq"},
    {"llama-2-13b", 13'015'866'880, "HF total with inv_freq"},
    {"llama-2-70b", 68'976'653'312, "HF total with inv_freq"},
};
}  // namespace

TEST_CASE("model: derived parameter counts match the published totals to 0.01%", "[model][params]") {
    for (const auto& p : published) {
        INFO(p.preset << " against the " << p.what << " in ../shared/facts/models.md");
        const Model m = load_model(p.preset);
        CHECK(derived_parameters(m).total() == Approx(p.total).epsilon(1e-4));
    }
    // The Llama-3 family's architecture accounts for every published weight exactly.
    CHECK(derived_parameters(load_model("llama-3.1-8b")).total() == 8'030'261'248.0);
    CHECK(derived_parameters(load_model("llama-3.1-70b")).total() == 70'553'706'496.0);
    CHECK(derived_parameters(load_model("llama-3.1-405b")).total() == 405'853'388'800.0);
    CHECK(derived_parameters(load_model("llama-2-7b")).total() == 6'738'415'616.0);
}

TEST_CASE("model: Qwen3 counts match the model cards, head_dim read not derived", "[model][params]") {
    // Qwen3-32B model card: "Number of Parameters: 32.8B", "Number of Paramaters (Non-Embedding): 31.2B".
    const Model q32 = load_model("qwen3-32b");
    CHECK(std::get<Gqa>(q32.groups[0].spec.attention).head_dim == 128);  // 64 heads x 128 = 8192 != hidden 5120
    const ParameterBreakdown p = derived_parameters(q32);
    CHECK(p.total() / 1e9 == Approx(32.8).margin(0.05));
    CHECK((p.total() - p.embeddings - p.lm_head) / 1e9 == Approx(31.2).margin(0.05));
    CHECK(p.total() == 32'762'123'264.0);  // by hand: 2*151936*5120 + 64*(94,371,840 + 256 + 393,216,000 + 10,240) + 5120
    // Qwen3-8B model card: "Number of Parameters: 8.2B".
    CHECK(derived_parameters(load_model("qwen3-8b")).total() / 1e9 == Approx(8.2).margin(0.05));
}

TEST_CASE("model: the breakdown sums, and tied embeddings drop the LM head", "[model][params]") {
    Model m = load_model("llama-3.1-8b");
    const ParameterBreakdown p = derived_parameters(m);
    CHECK(p.embeddings == 128256.0 * 4096);
    CHECK(p.lm_head == p.embeddings);
    CHECK(p.attention == 32.0 * (4096.0 * 4096 * 2 + 2 * 4096.0 * 1024));
    CHECK(p.dense_mlp == 32.0 * 3 * 4096 * 14336);
    CHECK(p.experts + p.shared_experts + p.router == 0);
    CHECK(p.norms == 32.0 * 2 * 4096 + 4096);
    m.tied_embeddings = true;
    CHECK(derived_parameters(m).lm_head == 0);
    CHECK(derived_parameters(m).total() == p.total() - p.embeddings);
    // Qwen2-style q/k/v biases add heads*head_dim + 2*kv_heads*head_dim per layer.
    Model biased = load_model("llama-3.1-8b");
    std::get<Gqa>(biased.groups[0].spec.attention).qkv_bias = true;
    CHECK(derived_parameters(biased).attention - p.attention == 32.0 * (4096 + 2 * 1024));
}

TEST_CASE("model: KV bytes per token by hand, MHA and GQA", "[model][kv]") {
    // MHA, Llama-2-7B: 2 (K,V) x 32 layers x 32 heads x 128 dims x 2 bytes = 524,288 B = 512 KiB.
    CHECK(kv_bytes_per_token(load_model("llama-2-7b"), formats::fp16).in(bytes) == 524288.0);
    // GQA-8, Llama-3.1-8B: 2 x 32 x 8 x 128 x 2 = 131,072 B = 128 KiB (seed 003's table).
    CHECK(kv_bytes_per_token(load_model("llama-3.1-8b"), formats::bf16).in(KiB) == 128.0);
    // GQA-8, Llama-3.3-70B in FP8: 2 x 80 x 8 x 128 x 1 = 163,840 B = 160 KiB.
    CHECK(kv_bytes_per_token(load_model("llama-3.3-70b"), formats::fp8).in(KiB) == 160.0);
    // A block-scaled KV format counts its scales: 4 bits + 8/32 = 4.25 bits.
    CHECK(kv_bytes_per_token(load_model("llama-3.1-8b"), formats::mxfp4).in(bytes) == 2.0 * 32 * 8 * 128 * 4.25 / 8);
}

TEST_CASE("model: impossible architectures are errors that name the field", "[model][errors]") {
    Model m = load_model("llama-3.1-8b");
    Gqa& a = std::get<Gqa>(m.groups[0].spec.attention);
    a.kv_heads = 6;
    CHECK_THROWS_WITH(kv_bytes_per_token(m, formats::bf16),
                      "model 'llama-3.1-8b' num_key_value_heads: got 6, expected a divisor of num_attention_heads (32)");
    a.kv_heads = 0;
    CHECK_THROWS_WITH(derived_parameters(m), "model 'llama-3.1-8b' num_key_value_heads: got 0, expected a positive integer");
    // So do the weights one stage holds, which no longer derive the parameters to find the table.
    CHECK_THROWS_WITH(stage_weights_per_device(m, Precision{}, Parallelism{}, stage_layers(m, 1, 0)),
                      "model 'llama-3.1-8b' num_key_value_heads: got 0, expected a positive integer");
    Model d = load_model("llama-3.1-8b");
    d.with_parameters(-5);
    CHECK_THROWS_AS(parameter_count(d), ridgeline::error);
    // A declared count below the embedding table and LM head (128,256 x 4,096 each, untied:
    // 1,050,673,152) would leave the layers a negative share of bytes and FLOPs.
    d.with_parameters(1000);
    CHECK_THROWS_WITH(parameter_count(d), "model 'llama-3.1-8b' declared parameters: got 1000, expected at least the embedding table and "
                                          "LM head's 1050673152 parameters");
    d.with_parameters(1050673152);
    CHECK(parameter_count(d) == 1050673152);
    // Through a deployment the model is checked first: no layers is named as such, not as a
    // pipeline degree above the layers (0); a window is at most the longest context, 2^40.
    Model none = load_model("llama-3.1-8b");
    none.groups[0].count = 0;
    CHECK_THROWS_WITH(decode_step(Deployment{load_hardware("h100-sxm")}, none, Workload{}),
                      "model 'llama-3.1-8b' num_hidden_layers: got 0, expected a positive integer");
    Model wide = load_model("llama-3.1-8b");
    wide.groups[0].spec.window = std::int64_t{1} << 41;
    CHECK_THROWS_WITH(validate(wide), "model 'llama-3.1-8b' sliding_window: got 2199023255552, expected at most 1099511627776");
    // The per-sequence figures refuse a context that would make them negative or NaN.
    const Model llama = load_model("llama-3.1-8b");
    CHECK_THROWS_WITH(kv_bytes_read(llama, formats::bf16, -100), "context: got -100, expected a number of tokens from 0 to 2^40");
    CHECK_THROWS_WITH(attention_flops_per_token(llama, std::nan("")), "context: got nan, expected a number of tokens from 0 to 2^40");
    CHECK_THROWS_AS(kv_per_sequence_per_device(llama, formats::bf16, -1), ridgeline::error);
}
