// The model catalogue: MoE, MLA and sliding-window architectures read from their config.json,
// their parameter counts against the publishers' figures, and their KV by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include "../seed_inputs.hpp"

using namespace ridgeline;

namespace {
const LayerGroup* group_with(const Model& m, bool moe, std::int64_t window = -1) {
    for (const auto& g : m)
        if (std::holds_alternative<Moe>(g.spec.ffn) == moe && (window < 0 || g.spec.window == window)) return &g;
    return nullptr;
}
}  // namespace

TEST_CASE("catalogue: every model row of ../shared/facts/models.md has a preset", "[catalogue]") {
    const auto models = list_presets(PresetKind::model);
    for (const char* name : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
                             "llama-3.3-70b", "mistral-7b-v0.1", "mixtral-8x7b", "qwen3-8b", "qwen3-32b", "qwen3-30b-a3b",
                             "qwen3-235b-a22b", "deepseek-v3", "gpt-oss-120b", "gpt-oss-20b"})
        CHECK(std::find(models.begin(), models.end(), name) != models.end());
}

TEST_CASE("catalogue: GPT-J's config names its sizes its own way (n_embd, n_layer, n_head, n_positions)", "[catalogue]") {
    const Model j = load_model("gpt-j-6b");
    CHECK(j.hidden_size == 4096);
    CHECK(j.max_context == 2048);
    CHECK_FALSE(j.tied_embeddings);
    REQUIRE(j.group_count == 1);
    CHECK(j.groups[0].count == 28);
    CHECK(std::get<Gqa>(j.groups[0].spec.attention) == Gqa{16, 16, 256});
    CHECK(std::get<NonGatedMlp>(j.groups[0].spec.ffn) == NonGatedMlp{16384, true});  // n_inner null: 4 x n_embd
    // The model card's n_parameters is 6,053,381,344 (huggingface.co/EleutherAI/gpt-j-6b); ridgeline
    // counts 2.55 M fewer: the lm_head's bias (50,400) and ln_f's (4,096), which transformers'
    // GPTJForCausalLM has, and 2.50 M that it does not.
    CHECK(derived_parameters(j).total() == Approx(6053381344.0).epsilon(5e-4));
    // By hand: per layer q, k, v, o (4 x 4096^2), up and down (2 x 4096 x 16384) with their
    // biases (16384 + 4096), one LayerNorm (2 x 4096); the input table and lm_head, 50400 x 4096
    // each; the final norm's weight (4096: ridgeline counts one vector there for every family,
    // so ln_f's bias is left out with the lm_head's).
    CHECK(derived_parameters(j).total() ==
          28 * (4 * 4096.0 * 4096 + 2 * 4096.0 * 16384 + 16384 + 4096 + 2 * 4096) + 2 * 50400.0 * 4096 + 4096);
    // A file missing one of its own keys is refused by that key's name.
    nlohmann::json bad = read_json_file(data_directory() / "models" / "gpt-j-6b.json");
    bad.erase("n_embd");
    CHECK_THROWS_WITH(read_config(bad, "gptj.json"),
                      "gptj.json: /n_embd: got nothing (the key is missing), expected a positive integer (model_type gptj needs it)");
}

TEST_CASE("catalogue: CodeLlama-34B is Llama 2's shape at 48 layers", "[catalogue]") {
    // Its config (mlc-ai/llm-perf-bench@4dbf648 model_configs/CodeLlama-34b-Instruct-hf.json):
    // hidden 8,192, 64 heads and 8 KV heads of 128, MLP 22,016, vocabulary 32,000, 16,384 positions.
    const Model c = load_model("codellama-34b");
    REQUIRE(c.group_count == 1);
    CHECK(c.groups[0].count == 48);
    CHECK(std::get<Gqa>(c.groups[0].spec.attention) == Gqa{64, 8, 128});
    CHECK(c.max_context == 16384);
    // By hand: per layer q and o (2 x 8192^2), k and v (2 x 8192 x 1024), the gated MLP
    // (3 x 8192 x 22016) and two norms (2 x 8192); two 32,000 x 8,192 tables and the final norm.
    // 33.74B: the "34B" of its name.
    CHECK(derived_parameters(c).total() ==
          48 * (2 * 8192.0 * 8192 + 2 * 8192.0 * 1024 + 3 * 8192.0 * 22016 + 2 * 8192) + 2 * 32000.0 * 8192 + 8192);
    // Its KV: 48 layers x 8 heads x 128 x 2 (K and V) x 2 B = 196,608 B a token in BF16.
    CHECK(kv_bytes_per_token(c, formats::bf16).in(bytes) == 196608);
}

TEST_CASE("catalogue: layer groups read from each family's config.json", "[catalogue]") {
    // DeepSeek-V3: first_k_dense_replace 3 -> 3 dense MLA layers and 58 MoE MLA layers; 1 MTP layer.
    const Model ds = load_model("deepseek-v3");
    REQUIRE(ds.group_count == 2);
    CHECK(group_with(ds, false)->count == 3);
    CHECK(std::get<DenseMlp>(group_with(ds, false)->spec.ffn).intermediate == 18432);
    const Moe& dm = std::get<Moe>(group_with(ds, true)->spec.ffn);
    CHECK(group_with(ds, true)->count == 58);
    CHECK((dm.experts == 256 && dm.experts_per_token == 8 && dm.expert_intermediate == 2048));
    CHECK((dm.shared_experts == 1 && dm.shared_intermediate == 2048 && dm.router_bias));
    CHECK(std::get<Mla>(ds.groups[0].spec.attention) == Mla{128, 1536, 512, 128, 64, 128});
    CHECK(ds.mtp_layers == 1);
    // gpt-oss-120b: layer_types alternate sliding (128) and full: 18 + 18, every layer MoE.
    const Model oss = load_model("gpt-oss-120b");
    REQUIRE(oss.group_count == 2);
    CHECK(group_with(oss, true, 128)->count == 18);
    CHECK(group_with(oss, true, 0)->count == 18);
    const Gqa& oa = std::get<Gqa>(oss.groups[0].spec.attention);
    CHECK((oa.heads == 64 && oa.kv_heads == 8 && oa.head_dim == 64 && oa.qkv_bias && oa.o_bias && oa.sinks));
    // Mistral-7B-v0.1 windows every layer at 4096; Mixtral's window is null.
    CHECK(load_model("mistral-7b-v0.1").groups[0].spec.window == 4096);
    CHECK(load_model("mixtral-8x7b").groups[0].spec.window == 0);
    // Qwen3 MoE: decoder_sparse_step 1 and no mlp_only_layers, so all 48 layers are MoE.
    const Model q = load_model("qwen3-30b-a3b");
    REQUIRE(q.group_count == 1);
    CHECK(q.groups[0].count == 48);
    CHECK(std::get<Moe>(q.groups[0].spec.ffn) == Moe{128, 8, 768});
    CHECK(std::get<Gqa>(q.groups[0].spec.attention).qk_norm);
}

TEST_CASE("catalogue: MoE and MLA totals and active counts match the publishers", "[catalogue][params]") {
    // Each publisher counts "active" its own way; each check uses the parts the source counts,
    // to the precision the source prints (its last digit, +/- half a unit) or 0.5%, the wider.
    SECTION("Mixtral-8x7B: '46.7B total parameters but only uses 12.9B parameters per token' (mistral.ai)") {
        const Model m = load_model("mixtral-8x7b");
        CHECK(derived_parameters(m).total() / 1e9 == Approx(46.7).margin(0.05));
        CHECK(active_parameters(m).total() / 1e9 == Approx(12.9).margin(0.065));  // 12.88: both embeddings counted
    }
    SECTION("Qwen3-30B-A3B card: '30.5B in total and 3.3B activated', 'Non-Embedding: 29.9B'") {
        const Model m = load_model("qwen3-30b-a3b");
        const ParameterBreakdown p = derived_parameters(m);
        CHECK(p.total() / 1e9 == Approx(30.5).margin(0.05));
        CHECK((p.total() - p.embeddings - p.lm_head) / 1e9 == Approx(29.9).margin(0.05));
        // 3.353B with both embeddings, as the card counts its total; the card cuts it to 3.3.
        const double active = active_parameters(m).total() / 1e9;
        CHECK(active == Approx(3.353).margin(0.0005));
        CHECK(std::floor(active * 10) / 10 == Approx(3.3));
    }
    SECTION("Qwen3-235B-A22B card: '235B in total and 22B activated', 'Non-Embedding: 234B'") {
        const Model m = load_model("qwen3-235b-a22b");
        const ParameterBreakdown p = derived_parameters(m);
        CHECK(p.total() / 1e9 == Approx(235).margin(0.5));
        CHECK((p.total() - p.embeddings - p.lm_head) / 1e9 == Approx(234).margin(0.5));
        CHECK(active_parameters(m).total() / 1e9 == Approx(22).margin(0.5));
    }
    SECTION("DeepSeek-V3 README: '671B total', '37B activated'; README_WEIGHTS: 36.6B active incl. the 0.9B head") {
        const Model m = load_model("deepseek-v3");
        CHECK(derived_parameters(m).total() / 1e9 == Approx(671).epsilon(0.005));
        CHECK(derived_parameters(m).total() / 1e9 == Approx(671.03).margin(0.005));
        const ParameterBreakdown a = active_parameters(m);
        CHECK((a.total() - a.embeddings) / 1e9 == Approx(36.6).margin(0.05));  // the input table is a lookup
        CHECK(a.lm_head / 1e9 == Approx(0.9).margin(0.05));
        // MTP kept apart: "11.5B unique parameters (excluding the shared 0.9B Embedding and 0.9B output Head)";
        // the module as built (a copy of an MoE layer, eh_proj, three norms) is 11.61B, 1% above that line.
        CHECK(mtp_parameters(m) / 1e9 == Approx(11.5).epsilon(0.01));
    }
    SECTION("gpt-oss model card Table 1: 116.83B / 5.13B and 20.91B / 3.61B, unembedding counted active, embedding not") {
        const Model big = load_model("gpt-oss-120b");
        const Model small = load_model("gpt-oss-20b");
        CHECK(derived_parameters(big).total() / 1e9 == Approx(116.83).margin(0.005));
        CHECK(derived_parameters(small).total() / 1e9 == Approx(20.91).margin(0.005));
        const ParameterBreakdown ab = active_parameters(big), as = active_parameters(small);
        CHECK((ab.total() - ab.embeddings) / 1e9 == Approx(5.13).margin(0.005));
        CHECK((as.total() - as.embeddings) / 1e9 == Approx(3.61).margin(0.005));
        // Table 1 rows: MLP 114.71B, Attention 0.96B, Embed + Unembed 1.16B (120b).
        const ParameterBreakdown p = derived_parameters(big);
        CHECK((p.experts + p.router) / 1e9 == Approx(114.71).margin(0.005));
        CHECK((p.embeddings + p.lm_head) / 1e9 == Approx(1.16).margin(0.005));
        CHECK(p.attention / 1e9 == Approx(0.96).margin(0.005));
    }
    SECTION("Mistral-7B-v0.1 and Qwen3-8B dense: 7.24B and '8.2B'") {
        CHECK(derived_parameters(load_model("mistral-7b-v0.1")).total() == 7'241'732'096.0);  // GGUF general.parameter_count of Mistral-7B (Ollama model_info)
        CHECK(derived_parameters(load_model("qwen3-8b")).total() / 1e9 == Approx(8.2).margin(0.05));
    }
}

TEST_CASE("catalogue: KV bytes per token by hand for MHA, GQA, MLA and sliding windows", "[catalogue][kv]") {
    // MHA: Llama-2-13B, 2 x 40 layers x 40 heads x 128 x 2 B = 819,200 B.
    CHECK(kv_bytes_per_token(load_model("llama-2-13b"), formats::bf16).in(bytes) == 819200.0);
    // MLA: DeepSeek-V3 caches the 512-wide latent and the 64-wide rope key per layer: 61 x 576 x 2 B.
    const Model ds = load_model("deepseek-v3");
    CHECK(kv_bytes_per_token(ds, formats::bf16).in(bytes) == 61.0 * 576 * 2);
    CHECK(kv_bytes_read(ds, formats::fp8, 4096).in(bytes) == 4096.0 * 61 * 576);
    // Sliding window: Mistral-7B-v0.1 reads at most 4096 tokens in every layer.
    const Model mistral = load_model("mistral-7b-v0.1");
    CHECK(kv_bytes_per_token(mistral, formats::bf16).in(KiB) == 128);
    CHECK(kv_bytes_read(mistral, formats::bf16, 1000).in(KiB) == 1000.0 * 128);
    CHECK(kv_bytes_read(mistral, formats::bf16, 32768) == kv_bytes_read(mistral, formats::bf16, 4096));
    // gpt-oss-120b: 18 full layers read the context, 18 windowed layers at most 128 tokens;
    // each layer 2 x 8 KV heads x 64 x 2 B = 2 KiB per token.
    const Model oss = load_model("gpt-oss-120b");
    CHECK(kv_bytes_per_token(oss, formats::bf16).in(bytes) == 36.0 * 2048);
    CHECK(kv_bytes_read(oss, formats::bf16, 100).in(bytes) == 100.0 * 36 * 2048);
    CHECK(kv_bytes_read(oss, formats::bf16, 8192).in(bytes) == (8192.0 * 18 + 128.0 * 18) * 2048);
}

TEST_CASE("MoE: expected experts touched is k at B = 1, tends to E, and is exact", "[moe]") {
    CHECK(expected_experts_touched(256, 8, 1) == Approx(8).epsilon(1e-12));
    CHECK(expected_experts_touched(8, 2, 1) == Approx(2).epsilon(1e-12));
    CHECK(expected_experts_touched(256, 8, 100000) == Approx(256).epsilon(1e-12));
    CHECK(expected_experts_touched(256, 8, 64) < 256);
    CHECK(expected_experts_touched(256, 8, 64) > 8 * 10);
    // Brute force: every way B tokens can each pick k of E distinct experts, uniformly.
    const auto brute = [](int E, int k, int B) {
        std::vector<unsigned> choices;  // bit masks of k experts
        for (unsigned mask = 0; mask < (1u << E); ++mask)
            if (__builtin_popcount(mask) == k) choices.push_back(mask);
        double sum = 0, count = 0;
        std::vector<std::size_t> idx(static_cast<std::size_t>(B), 0);
        for (;;) {
            unsigned all = 0;
            for (auto i : idx) all |= choices[i];
            sum += __builtin_popcount(all);
            count += 1;
            std::size_t pos = 0;
            while (pos < idx.size() && ++idx[pos] == choices.size()) idx[pos++] = 0;
            if (pos == idx.size()) break;
        }
        return sum / count;
    };
    for (int E : {4, 6})
        for (int k : {1, 2, 3})
            for (int B : {1, 2, 3, 4}) {
                INFO("E " << E << " k " << k << " B " << B);
                CHECK(expected_experts_touched(E, k, B) == Approx(brute(E, k, B)).epsilon(1e-12));
            }
}

TEST_CASE("MoE decode: a step reads the experts its batch touches, and computes on active parameters", "[moe][decode]") {
    const Hardware h = load_hardware("h200");
    const Model m = load_model("mixtral-8x7b");
    const ParameterBreakdown all = derived_parameters(m);
    const double expert = 3.0 * 4096 * 14336;
    const double fixed = all.total() - all.experts;
    // Batch 1: 2 of 8 experts in each of 32 layers.
    const DecodeStep one = decode_step(h, m, seed::seed_003(Workload{.context = 0}));
    CHECK(one.weight_bytes.in(bytes) == Approx(2 * (fixed + 32 * 2 * expert)).epsilon(1e-12));
    CHECK(one.flops.in(flop) == Approx(2 * active_parameters(m).total()).epsilon(1e-12));
    // Batch 4: 8 * (1 - (6/8)^4) = 5.47 experts per layer.
    const DecodeStep four = decode_step(h, m, seed::seed_003(Workload{.batch = 4}));
    CHECK(four.weight_bytes.in(bytes) == Approx(2 * (fixed + 32 * 8 * (1 - std::pow(0.75, 4)) * expert)).epsilon(1e-12));
    // A large batch reads every expert: the every-parameter budget.
    const DecodeStep many = decode_step(h, m, seed::seed_003(Workload{.batch = 1024}));
    CHECK(many.weight_bytes.in(bytes) == Approx(2 * all.total()).epsilon(1e-9));
    // Declaring a count on an MoE model is refused: its bytes depend on the batch.
    Model declared = m;
    declared.with_parameters(46.7e9);
    CHECK_THROWS_AS(decode_step(h, declared, seed::seed_003(Workload{})), ridgeline::error);
}

TEST_CASE("MoE ridge: compute meets memory where expert reads have saturated", "[moe][ridge]") {
    const Hardware h = load_hardware("h100-sxm");
    const Model m = load_model("qwen3-30b-a3b");
    const RidgeBatch r = ridge_batch(h, m, seed::seed_003(Workload{.context = 0}));
    REQUIRE(r.exists());
    const auto below = static_cast<std::int64_t>(std::floor(r.value()));
    CHECK(decode_step(h, m, seed::seed_003(Workload{.batch = below})).bound == Bound::memory);
    CHECK(decode_step(h, m, seed::seed_003(Workload{.batch = below + 1})).bound == Bound::compute);
    // n* uses active FLOPs against the KV read: (2 * 3.353e9 / 989e12) / (98,304 B / 3.35e12 B/s).
    const double expected = (2 * active_parameters(m).total() / 989e12) / (98304.0 / 3.35e12);
    CHECK(*n_star(h, m, seed::seed_003(Workload{})) == Approx(expected).epsilon(1e-12));
    CHECK(ridge_batch(h, m, seed::seed_003(Workload{.context = static_cast<std::int64_t>(expected) + 1})).is_never());
}

TEST_CASE("windows: n* walks past the window corners, and all-windowed models never lose the ridge", "[ridge][window]") {
    const Hardware h = load_hardware("h100-sxm");
    // gpt-oss-120b: past 128 tokens only the 18 full layers' KV grows, 18 x 2048 B per token.
    const Model oss = load_model("gpt-oss-120b");
    const StepCost c = step_cost(oss, seed::seed_003(Workload{}));
    const double f = c.flops_per_token.in(flop) / 989e12;
    const double at_128 = f - 128.0 * 36 * 2048 / 3.35e12;
    const double expected = 128 + at_128 / (18.0 * 2048 / 3.35e12);
    CHECK(*n_star(h, oss, seed::seed_003(Workload{})) == Approx(expected).epsilon(1e-12));
    CHECK(ridge_batch(h, oss, seed::seed_003(Workload{.context = static_cast<std::int64_t>(expected)})).exists());
    CHECK(ridge_batch(h, oss, seed::seed_003(Workload{.context = static_cast<std::int64_t>(expected) + 1})).is_never());
    // Mistral-7B-v0.1 windows every layer at 4096: if the ridge survives 4096 tokens it survives all.
    const Model mistral = load_model("mistral-7b-v0.1");
    const auto n = n_star(h, mistral, seed::seed_003(Workload{}));
    REQUIRE(n.has_value());  // 2 * 7.24e9 / 989e12 s vs 128 KiB / 3.35e12 B/s per token: 374 tokens < 4096
    CHECK(*n == Approx((2 * 7'241'732'096.0 / 989e12) / (131072.0 / 3.35e12)).epsilon(1e-12));
    Model tiny_window = mistral;
    tiny_window.groups[0].spec.window = 256;
    tiny_window.max_context = 0;  // no limit of its own, to see the windows alone
    CHECK_FALSE(n_star(h, tiny_window, seed::seed_003(Workload{})).has_value());
    CHECK(ridge_batch(h, tiny_window, seed::seed_003(Workload{.context = 1'000'000})).exists());
    // Capacity: an all-windowed model holds any context, up to its own limit if it has one.
    CHECK(longest_context(h, tiny_window, Workload{}, 8).is_unbounded());
    CHECK(longest_context(h, mistral, Workload{}, 8).tokens() == 32768);
    CHECK(longest_context(h, oss, Workload{.precision = {.weights = formats::mxfp4}}, 8).tokens() > 0);
    // ...but only where the batch fits at the window. 64 sequences of Mistral-7B-v0.1 in int4 on
    // an RTX 4090: a budget of 0.9 x 24,564 MiB - 1 GiB = 22,107,756,953.6 B (rtx-4090.json), the
    // weights 7,241,732,096 x 0.5 B = 3,620,866,048 B, and 64 x 131,072 B of KV a token: (22.108e9 -
    // 3.621e9) / 8,388,608 = 2,203.8 tokens, less at most 2 for the activations (64 tokens' of at
    // most (2 x 4,096 + 38,912) x 2 B and 32,000 fp32 logits: under 14.3 MB). It once said
    // "unbounded", since no layer grows past 4,096.
    const Hardware card = load_hardware("rtx-4090");
    const Workload int4{.precision = precisions::w4a16_int4};
    const ContextFit fit = longest_context(card, mistral, int4, 64);
    REQUIRE(fit.fits());
    REQUIRE_FALSE(fit.is_unbounded());
    CHECK(fit.tokens() >= 2200);
    CHECK(fit.tokens() <= 2204);
    Workload at = int4;
    at.batch = 64;
    at.context = fit.tokens();
    CHECK(memory_use(card, mistral, at).fits());
    at.context += 1;
    CHECK_FALSE(memory_use(card, mistral, at).fits());
}

namespace {
// Mistral-7B-v0.1's 32 layers, the first 24 in aligned 64-token chunks and the last 8 full.
Model mistral_chunked_at_64() {
    Model m = load_model("mistral-7b-v0.1");
    LayerSpec full = m.groups[0].spec;
    full.window = 0;
    m.groups[0].count = 24;
    m.groups[0].spec.window = 64;
    m.groups[0].spec.chunked = true;
    m.add_layers(8, full);
    return m;
}
}  // namespace

TEST_CASE("chunks: n* is found in the last chunk whose surplus still turns positive", "[ridge][chunked]") {
    const Hardware h = load_hardware("h100-sxm");
    // Mistral-7B-v0.1's layers (K and V of 8 heads x 128 in bf16: 4,096 B a token each), 24 of
    // them chunked at 64 tokens and 8 full, so that n* lies many chunks out.
    Model m = mistral_chunked_at_64();
    const Workload w = seed::seed_003(Workload{});
    // Seed 003's accounting: no attention FLOPs and no per-sequence weight rows, so one
    // sequence's surplus at n is f - (8 x 4096 n + 24 x 4096 (n mod 64)) / bw. It peaks at each
    // chunk's start; the last start with a positive one is chunk k = floor(f bw / (64 x 32768)),
    // and n* is where that chunk's line reaches zero.
    const double f = step_cost(m, w).flops_per_token.in(flop) / 989e12, bw = 3.35e12;
    const double k = std::floor(f * bw / (64 * 32768.0));
    const double expected = 64 * k + (f - 64 * k * 32768 / bw) / ((32768 + 98304) / bw);
    REQUIRE(k > 2);
    REQUIRE(expected < 64 * (k + 1));
    CHECK(*n_star(h, m, w) == Approx(expected).epsilon(1e-12));
    const auto at = [&](std::int64_t n) { return ridge_batch(h, m, seed::seed_003(Workload{.context = n})); };
    CHECK(at(static_cast<std::int64_t>(expected)).exists());
    CHECK(at(64 * static_cast<std::int64_t>(k) - 1).is_never());  // the chunk before ends below zero
    for (auto n = static_cast<std::int64_t>(expected) + 1; n < static_cast<std::int64_t>(expected) + 1000; ++n)
        if (!at(n).is_never()) FAIL("the ridge returns at context " << n);
    // Only chunked layers: the ridge comes back at every chunk's start, so it never goes away.
    Model chunked_only = m;
    chunked_only.group_count = 1;
    CHECK_FALSE(n_star(h, chunked_only, w).has_value());
    // One chunk size a model, and a chunked layer has one.
    Model two = m;
    two.groups[1].spec.window = 128;
    two.groups[1].spec.chunked = true;
    CHECK_THROWS_WITH(validate(two), Catch::Contains("the chunk size of the model's other chunked layers (64)"));
    Model none = m;
    none.groups[0].spec.window = 0;
    CHECK_THROWS_WITH(validate(none), Catch::Contains("chunked layer's window") && Catch::Contains("its chunk size"));
}

TEST_CASE("pipeline: the ridge is where the slowest stage turns compute-bound, and n* where no batch gets there", "[ridge][pipeline]") {
    // gpt-oss-120b (all BF16) over eight H100s, one stage each, at 1,000 cached tokens. Its 36
    // layers split 4, 4, 4, 5, 5, 5, 5, 4; the last stage also holds the LM head, so it does the most
    // FLOPs and, at one sequence, moves the most bytes (step_cost's stage by bytes). At large
    // batches, where every expert is read and the KV grows, a five-layer stage moves more. A
    // step is paced by the slowest stage (decode_step), so the ridge is the batch where that
    // step turns compute-bound, far past the last stage's own.
    const Model oss = load_model("gpt-oss-120b");
    const Deployment eight{load_hardware("h100-sxm"), Parallelism{.pipeline = 8}};
    const auto bound_at = [&](const Deployment& d, Workload w, std::int64_t batch, std::int64_t context) {
        w.batch = batch;
        w.context = context;
        return decode_step(d, oss, w).bound;
    };
    const Workload at{.context = 1000};
    const RidgeBatch last_stage = ridge_batch(step_cost(oss, at, eight.parallel), effective_rates(eight.device, at), 1000);
    REQUIRE(last_stage.exists());
    CHECK(bound_at(eight, at, 2 * static_cast<std::int64_t>(last_stage.value()), 1000) == Bound::memory);
    // The stage pacing a step also counts its links and fixed times (decode_step): with TP 4 a
    // stage with a layer more has more all-reduces, and a time per layer favours it too. Each
    // setting's ridge sits between a memory- and a compute-bound step; just before n* a batch is
    // compute-bound, just past it not even 2^24 sequences are. With a verification pass of four
    // tokens a sequence each token attends to the cache, which is read once: n* moves out.
    Workload launched{};
    launched.efficiency.per_layer = us(200);
    Workload verifying{};
    verifying.tokens_per_sequence = 4;
    const Deployment tp4{load_hardware("h100-sxm"), Parallelism{.tensor = 4, .pipeline = 8}};
    for (const auto& [d, base] : {std::pair{eight, Workload{}}, std::pair{tp4, Workload{}}, std::pair{eight, launched},
                                  std::pair{tp4, verifying}}) {
        INFO("tp " << d.parallel.tensor << ", per layer " << base.efficiency.per_layer.in(s) << " s, " << base.tokens_per_sequence
                   << " tokens a sequence");
        Workload w = base;
        w.context = 1000;
        const RidgeBatch ridge = ridge_batch(d, oss, w);
        REQUIRE(ridge.exists());
        const auto below = static_cast<std::int64_t>(ridge.value());
        CHECK(bound_at(d, base, below, 1000) == Bound::memory);
        CHECK(bound_at(d, base, below + 1, 1000) == Bound::compute);
        const std::optional<double> n = n_star(d, oss, base);
        REQUIRE(n.has_value());
        const auto last = static_cast<std::int64_t>(*n);
        w.context = last;
        const RidgeBatch near = ridge_batch(d, oss, w);
        REQUIRE(near.exists());
        CHECK(bound_at(d, base, static_cast<std::int64_t>(near.value()) + 1, last) == Bound::compute);
        w.context = last + 1;
        CHECK(ridge_batch(d, oss, w).is_never());
        CHECK(bound_at(d, base, std::int64_t{1} << 24, last + 1) == Bound::memory);
    }

    // By hand, with chunks: the chunk test's model (Mistral-7B-v0.1's layers, 24 chunked at 64
    // tokens, then 8 full) over two stages of 16 layers. Seed 003's accounting, so each stage's
    // FLOPs a token are 2 per parameter it holds: 16 layers of 218,112,000 (q and o 4096 x 4096,
    // k and v 4096 x 1024, three 4096 x 14336 MLP matrices, two norms), and on the first the
    // 32,000 x 4,096 table, on the last the untied head of the same size and the final norm:
    // the last does the most. The last also reads the most KV: 8 chunked and 8 full layers,
    // 8 x 4,096 B (n + n mod 64) against the first's 16 x 4,096 B (n mod 64). So n* is where
    // the last stage's surplus f - 32,768 (n + n mod 64) / bw turns negative for good: in chunk
    // k = floor(f bw / (64 x 32,768)), on its line of slope 65,536 / bw.
    const Model m = mistral_chunked_at_64();
    const Deployment two{load_hardware("h100-sxm"), Parallelism{.pipeline = 2}};
    const Workload w = seed::seed_003(Workload{});
    const double f = 2 * (16 * 218112000.0 + 32000.0 * 4096 + 4096) / 989e12, bw = 3.35e12;
    const double k = std::floor(f * bw / (64 * 32768.0));
    const double expected = 64 * k + (f - 64 * k * 32768 / bw) / (65536 / bw);
    REQUIRE(k > 2);
    REQUIRE(expected < 64 * (k + 1));
    CHECK(*n_star(two, m, w) == Approx(expected).epsilon(1e-12));
    const auto ridge_at = [&](std::int64_t context) { return ridge_batch(two, m, seed::seed_003(Workload{.context = context})); };
    CHECK(ridge_at(static_cast<std::int64_t>(expected)).exists());
    for (auto c = static_cast<std::int64_t>(expected) + 1; c < static_cast<std::int64_t>(expected) + 1000; ++c)
        if (!ridge_at(c).is_never()) FAIL("the ridge returns at context " << c);
}

namespace {
// A preset's config.json as parsed, to take keys out of.
nlohmann::json preset_config(const std::string& name) {
    return read_json_file(data_directory() / "models" / (name + ".json"));
}
Model without(nlohmann::json j, std::initializer_list<const char*> keys) {
    for (const char* k : keys) j.erase(k);
    return model_from_config(j, "test.json");
}
const Gqa& gqa(const Model& m) { return std::get<Gqa>(m.groups[0].spec.attention); }
std::int64_t windowed_layers(const Model& m, std::int64_t window) {
    std::int64_t n = 0;
    for (const auto& g : m)
        if (g.spec.window == window) n += g.count;
    return n;
}
}  // namespace

// Each expected value is the default of the family's transformers configuration class
// (huggingface/transformers, src/transformers/models/<family>/configuration_<family>.py, at the
// commits json.hpp names), or hidden_size / num_attention_heads where the class says so.
TEST_CASE("defaults: llama, as LlamaConfig has them", "[catalogue][defaults]") {
    const nlohmann::json j = preset_config("llama-3.1-8b");  // 32 heads, 8 KV heads, hidden 4096
    const Model m = without(j, {"num_key_value_heads", "attention_bias", "tie_word_embeddings", "mlp_bias"});
    CHECK(gqa(m).kv_heads == 32);  // num_key_value_heads=None -> num_attention_heads
    CHECK(gqa(m).head_dim == 4096 / 32);  // head_dim=None -> hidden_size // num_attention_heads
    CHECK_FALSE(gqa(m).qkv_bias);  // attention_bias=False
    CHECK_FALSE(m.tied_embeddings);  // tie_word_embeddings=False
    nlohmann::json windowed = j;
    windowed["sliding_window"] = 4096;  // LlamaConfig has no sliding_window: attention stays full
    CHECK(windowed_layers(model_from_config(windowed), 0) == 32);
    nlohmann::json null_kv = j;
    null_kv["num_key_value_heads"] = nullptr;
    CHECK(gqa(model_from_config(null_kv)).kv_heads == 32);
}

TEST_CASE("defaults: mistral and mixtral, as MistralConfig and MixtralConfig have them", "[catalogue][defaults]") {
    const nlohmann::json mistral = preset_config("mistral-7b-v0.1");  // 32 heads, hidden 4096
    const Model m = without(mistral, {"num_key_value_heads", "sliding_window", "tie_word_embeddings"});
    CHECK(gqa(m).kv_heads == 8);      // MistralConfig num_key_value_heads=8
    CHECK(gqa(m).head_dim == 128);    // head_dim=None -> 4096 // 32
    CHECK(windowed_layers(m, 4096) == 32);  // sliding_window=4096
    CHECK_FALSE(m.tied_embeddings);
    nlohmann::json null_window = mistral;
    null_window["sliding_window"] = nullptr;  // None: no window
    CHECK(windowed_layers(model_from_config(null_window), 0) == 32);

    const nlohmann::json mixtral = preset_config("mixtral-8x7b");
    const Model x = without(mixtral, {"num_key_value_heads", "sliding_window"});
    CHECK(gqa(x).kv_heads == 8);           // MixtralConfig num_key_value_heads=8
    CHECK(windowed_layers(x, 0) == 32);    // sliding_window=None
    // A default that does not divide the file's head count names the key and the default.
    nlohmann::json odd = mixtral;
    odd.erase("num_key_value_heads");
    odd["num_attention_heads"] = 12;
    odd["head_dim"] = 128;
    CHECK_THROWS_WITH(model_from_config(odd, "odd.json"),
                      "odd.json: /num_key_value_heads: got nothing (the key is missing, so model_type mixtral's default of 8 "
                      "applies), expected a divisor of num_attention_heads (12); give num_key_value_heads in the file");
}

TEST_CASE("defaults: qwen3 and qwen2, as Qwen3Config and Qwen2Config have them", "[catalogue][defaults]") {
    // Qwen3-32B: 64 heads, hidden 5120 (5120 / 64 = 80, not Qwen3Config's head_dim 128), 64 layers.
    const nlohmann::json j = preset_config("qwen3-32b");
    const Model m = without(j, {"num_key_value_heads", "head_dim", "use_sliding_window", "attention_bias"});
    CHECK(gqa(m).kv_heads == 32);    // Qwen3Config num_key_value_heads=32
    CHECK(gqa(m).head_dim == 128);   // Qwen3Config head_dim=128
    CHECK_FALSE(gqa(m).qkv_bias);    // attention_bias=False
    nlohmann::json window_set = j;   // a window without the switch: use_sliding_window=False wins
    window_set.erase("use_sliding_window");
    window_set["sliding_window"] = 4096;
    CHECK(windowed_layers(model_from_config(window_set), 0) == 64);
    // Switched on without sliding_window or max_window_layers: 4096 from layer 28 on.
    nlohmann::json on = j;
    on.erase("sliding_window");
    on.erase("max_window_layers");
    on["use_sliding_window"] = true;
    const Model w = model_from_config(on);
    CHECK(windowed_layers(w, 0) == 28);
    CHECK(windowed_layers(w, 4096) == 64 - 28);

    // Qwen2Config: the same file read as model_type qwen2 (no Qwen2 preset in the catalogue).
    nlohmann::json q2 = j;
    q2["model_type"] = "qwen2";
    const Model two = without(q2, {"num_key_value_heads", "head_dim", "use_sliding_window"});
    CHECK(gqa(two).kv_heads == 32);           // Qwen2Config num_key_value_heads=32
    CHECK(gqa(two).head_dim == 5120 / 64);    // no head_dim field: hidden_size // num_attention_heads
    CHECK(windowed_layers(two, 0) == 64);     // use_sliding_window=False
}

TEST_CASE("defaults: qwen3_moe, as Qwen3MoeConfig has them", "[catalogue][defaults]") {
    // Qwen3-30B-A3B: 32 heads, hidden 2048, 48 layers, head_dim 128 in the file.
    const nlohmann::json j = preset_config("qwen3-30b-a3b");
    const Model m = without(j, {"num_key_value_heads", "head_dim", "use_sliding_window", "decoder_sparse_step",
                                "mlp_only_layers", "attention_bias"});
    CHECK(gqa(m).kv_heads == 4);              // Qwen3MoeConfig num_key_value_heads=4
    CHECK(gqa(m).head_dim == 2048 / 32);      // no head_dim field: hidden_size // num_attention_heads
    CHECK(windowed_layers(m, 0) == 48);       // use_sliding_window=False
    REQUIRE(m.group_count == 1);
    CHECK(std::holds_alternative<Moe>(m.groups[0].spec.ffn));  // decoder_sparse_step=1, mlp_only_layers=[]
    nlohmann::json on = j;  // no max_window_layers in Qwen3MoeConfig: every layer windowed
    on.erase("sliding_window");
    on.erase("max_window_layers");
    on["use_sliding_window"] = true;
    CHECK(windowed_layers(model_from_config(on), 4096) == 48);
}

TEST_CASE("defaults: deepseek_v3 and deepseek_v2, as DeepseekV3Config and DeepseekV2Config have them", "[catalogue][defaults]") {
    const nlohmann::json j = preset_config("deepseek-v3");
    const Model v3 = without(j, {"q_lora_rank", "n_shared_experts", "first_k_dense_replace", "num_nextn_predict_layers"});
    CHECK(std::get<Mla>(v3.groups[0].spec.attention).q_lora_rank == 1536);  // q_lora_rank=1536
    CHECK(std::get<Moe>(group_with(v3, true)->spec.ffn).shared_experts == 1);  // n_shared_experts=1
    CHECK(group_with(v3, false)->count == 3);  // first_k_dense_replace=3
    CHECK(v3.mtp_layers == 1);                 // num_mtp_layers=1, read as num_nextn_predict_layers
    nlohmann::json null_q = j;
    null_q["q_lora_rank"] = nullptr;  // None: queries projected directly
    CHECK(std::get<Mla>(model_from_config(null_q).groups[0].spec.attention).q_lora_rank == 0);
    // 0 is not None: DeepseekV3Attention would build a down-projection to nothing.
    nlohmann::json zero_q = j;
    zero_q["q_lora_rank"] = 0;
    CHECK_THROWS_WITH(model_from_config(zero_q, "v3.json"),
                      "v3.json: /q_lora_rank: got 0, expected a positive integer, or null for queries projected directly (no low-rank query)");

    // DeepseekV2Config: the same file read as model_type deepseek_v2 (no V2 preset in the catalogue).
    nlohmann::json v2 = j;
    v2["model_type"] = "deepseek_v2";
    const Model two = without(v2, {"q_lora_rank", "n_shared_experts", "first_k_dense_replace"});
    CHECK(std::get<Mla>(two.groups[0].spec.attention).q_lora_rank == 1536);  // q_lora_rank=1536
    REQUIRE(two.group_count == 1);  // first_k_dense_replace=0: all 61 layers MoE
    CHECK(two.groups[0].count == 61);
    CHECK(std::get<Moe>(two.groups[0].spec.ffn).shared_experts == 2);  // n_shared_experts=2
    CHECK(two.mtp_layers == 0);  // MTP is V3's
}

TEST_CASE("defaults: gpt_oss, as GptOssConfig has them", "[catalogue][defaults]") {
    // gpt-oss-120b: 64 heads, hidden 2880 (2880 / 64 = 45, not GptOssConfig's head_dim 64), 36 layers.
    const nlohmann::json j = preset_config("gpt-oss-120b");
    const Model m = without(j, {"num_key_value_heads", "head_dim", "attention_bias", "sliding_window", "layer_types"});
    CHECK(gqa(m).kv_heads == 8);     // num_key_value_heads=8
    CHECK(gqa(m).head_dim == 64);    // head_dim=64
    CHECK((gqa(m).qkv_bias && gqa(m).o_bias));  // attention_bias=True
    // layer_types=None: "sliding_attention" if (i + 1) % 2 else "full_attention"; sliding_window=128.
    CHECK(windowed_layers(m, 128) == 18);
    CHECK(windowed_layers(m, 0) == 18);
    CHECK(m.groups == load_model("gpt-oss-120b").groups);  // the file states what the defaults give
}

TEST_CASE("architectures: a model without an LM head is refused, not counted", "[catalogue][architectures]") {
    // ridgeline refuses (json.hpp says why): Qwen3Model is the bare stack embedding checkpoints
    // and text encoders name; a classification head is no LM head either.
    nlohmann::json j = preset_config("qwen3-8b");
    CHECK_NOTHROW(model_from_config(j));  // "Qwen3ForCausalLM"
    j["architectures"] = {"Qwen3Model"};
    CHECK_THROWS_WITH(model_from_config(j, "embed.json"),
                      "embed.json: /architectures/0: got \"Qwen3Model\" (a string), expected a ...ForCausalLM architecture: "
                      "a model without an LM head (a bare model, an embedding or classification model) decodes no tokens, "
                      "which is all ridgeline models");
    j["architectures"] = {"Qwen3ForSequenceClassification"};
    CHECK_THROWS_AS(model_from_config(j), ridgeline::error);
    // An EAGLE-3 head's config (SpecForge's llama3-8B-eagle3.json: LlamaForCausalLMEagle3,
    // model_type llama, one layer, draft_vocab_size 32000) would read as a one-layer Llama with
    // the full head: refused as a model by name, under either class name (vLLM's ends in
    // ForCausalLM), and pointed to the draft reader. Other EAGLE and Medusa heads are not modelled.
    for (const char* head : {"LlamaForCausalLMEagle3", "Eagle3LlamaForCausalLM", "eagle3llamaforcausallm"}) {
        j["architectures"] = {head};
        CHECK_THROWS_WITH(model_from_config(j, "eagle3.json"),
                          "eagle3.json: /architectures/0: got \"" + std::string(head) +
                              "\" (a string), expected a model that decodes on its own: an EAGLE-3 head drafts from its target's "
                              "hidden states, so it is given as speculative decoding's draft, not as a model");
    }
    for (const char* head : {"EagleDeepSeekMTPModel", "EAGLEModel", "MedusaModel", "EagleLlamaForCausalLM"}) {
        j["architectures"] = {head};
        CHECK_THROWS_WITH(model_from_config(j, "eagle.json"),
                          "eagle.json: /architectures/0: got \"" + std::string(head) +
                              "\" (a string), expected a model that decodes on its own: an EAGLE or Medusa draft head reads its "
                              "target's hidden states, and ridgeline models only EAGLE-3 Llama heads (speculative drafts with one, a "
                              "draft model, the target's own MTP modules or a free draft)");
    }
    // NVIDIA's Eagle 2.5 is a vision-language model, not a draft head: no draft-head message.
    for (const char* vlm : {"Eagle2_5_VLForConditionalGeneration", "Eagle2ChatModel"}) {
        j["architectures"] = {vlm};
        CHECK_THROWS_WITH(model_from_config(j, "eagle2.5.json"), !Catch::Contains("draft head"));
    }
    j["architectures"] = {"Qwen3Model", "Qwen3ForCausalLM"};  // any causal-LM entry will do
    CHECK_NOTHROW(model_from_config(j));
    j["architectures"] = "Qwen3ForCausalLM";
    CHECK_THROWS_WITH(model_from_config(j, "a.json"),
                      "a.json: /architectures: got \"Qwen3ForCausalLM\" (a string), expected an array of architecture names, "
                      "one of them a ...ForCausalLM");
    j.erase("architectures");
    CHECK_NOTHROW(model_from_config(j));
}

TEST_CASE("draft heads: an EAGLE-3 config reads as a head, by preset, path or draft name", "[catalogue][draft_head]") {
    // SpecForge's llama3-8B-eagle3.json (data/drafts/eagle3-llama-3.1-8b.json): one Llama layer of
    // hidden 4,096 over a 32,000-token draft vocabulary, for Llama 3.1 8B's 128,256 tokens, fp16.
    const DraftHead d = load_draft_head("eagle3-llama-3.1-8b");
    CHECK(d.block.hidden_size == 4096);
    CHECK(d.block.vocab_size == 32000);
    CHECK(d.target_vocab == 128256);
    CHECK(d.target_hidden == 4096);
    CHECK(d.fuses_hidden_states);
    CHECK(layer_count(d.block) == 1);
    CHECK(d.weights == formats::fp16);
    CHECK(d.lm_head == formats::fp16);
    CHECK(d.block.max_context == 0);  // its max_position_embeddings 2048 is no limit: vLLM raises it to the target's
    // What it holds beside the shared embeddings, from the config: q 2h x 4,096, k and v 2h x
    // 1,024 each (the first layer reads the embedding and the hidden state, 2h = 8,192), o 4,096 x
    // 4,096, the MLP 3 x 4,096 x 14,336, four norms of 4,096 (input, post-attention, hidden_norm,
    // final), fc 3 x 4,096 x 4,096, the LM head 32,000 x 4,096.
    const double hand = 8192.0 * 4096 + 2 * 8192.0 * 1024 + 4096.0 * 4096 + 3 * 4096.0 * 14336 + 4 * 4096.0 + 3 * 4096.0 * 4096 +
                        32000.0 * 4096;
    CHECK(draft_head_parameters(d) == hand);  // 424,689,664
    // The draft reader: a head preset, a head's file, a model preset.
    CHECK(load_draft("eagle3-llama-3.1-8b").head == d);
    CHECK(load_draft((data_directory() / "drafts" / "eagle3-llama-3.1-8b.json").string()).head == d);
    const LoadedDraft model = load_draft("llama-3.1-8b");
    REQUIRE(model.model);
    CHECK_FALSE(model.head);
    CHECK(model.name() == "llama-3.1-8b");
    CHECK_THROWS_WITH(load_draft("eagle3-llama3"),
                      Catch::StartsWith("model or draft-head preset: got \"eagle3-llama3\", expected one of (closest first): "
                                        "eagle3-llama-3-70b, eagle3-llama-3.1-8b, "));
    // A head is not a model.
    CHECK_THROWS_WITH(load_model("eagle3-llama-3.1-8b"), Catch::StartsWith("model preset: got \"eagle3-llama-3.1-8b\""));

    // A publisher's count: EAGLE3-Apertus-8B-Instruct-2509's model card (huggingface.co/thomaskiefer/
    // EAGLE3-Apertus-8B-Instruct-2509) gives LlamaForCausalLMEagle3, hidden 4,096, intermediate
    // 21,504, 32 heads, 8 KV heads, 1 layer, vocab 131,072, draft vocab 32,000, bfloat16, and
    // "Parameters ~513M": the layer, fc and head without the shared embeddings.
    nlohmann::json apertus = {{"architectures", {"LlamaForCausalLMEagle3"}}, {"model_type", "llama"}, {"hidden_size", 4096},
                              {"intermediate_size", 21504}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
                              {"num_hidden_layers", 1}, {"vocab_size", 131072}, {"draft_vocab_size", 32000},
                              {"torch_dtype", "bfloat16"}, {"tie_word_embeddings", false}};
    const DraftHead a = draft_head_from_config(apertus, "apertus.json", "apertus-eagle3");
    CHECK(std::abs(draft_head_parameters(a) - 513e6) <= 0.5e6);
    CHECK(a.weights == formats::bf16);
    // Without fused hidden states (eagle_config.use_aux_hidden_state false) there is no fc.
    apertus["eagle_config"] = {{"use_aux_hidden_state", false}};
    CHECK(draft_head_parameters(a) - draft_head_parameters(draft_head_from_config(apertus)) == 3 * 4096.0 * 4096);
    apertus.erase("eagle_config");
    // vLLM builds the head's own LM head whatever tie_word_embeddings says; eagle_config null is
    // no eagle_config.
    apertus["tie_word_embeddings"] = true;
    apertus["eagle_config"] = nullptr;
    CHECK(draft_head_from_config(apertus, "apertus.json", "apertus-eagle3") == a);
    apertus["tie_word_embeddings"] = false;
    apertus.erase("eagle_config");
    // Widths and vocabularies past what any answer takes are refused at their keys.
    apertus["target_hidden_size"] = std::int64_t{1} << 40;
    CHECK_THROWS_WITH(draft_head_from_config(apertus, "h.json"), "h.json: /target_hidden_size: got 1099511627776, expected a width from 1 to 2^24");
    apertus.erase("target_hidden_size");
    apertus["vocab_size"] = std::int64_t{1} << 40;
    CHECK_THROWS_WITH(draft_head_from_config(apertus, "h.json"),
                      "h.json: /vocab_size: got 1099511627776, expected the target's vocabulary, at most 2^31 tokens");
    apertus["vocab_size"] = 131072;
    // draft_vocab_size absent or null: the whole vocabulary, as vLLM.
    apertus["draft_vocab_size"] = nullptr;
    CHECK(draft_head_from_config(apertus).block.vocab_size == 131072);
    // Refused, naming the key: a draft vocabulary past the target's, another layer type, a file
    // that is no EAGLE-3 head.
    apertus["draft_vocab_size"] = 200000;
    CHECK_THROWS_WITH(draft_head_from_config(apertus, "h.json"),
                      "h.json: /draft_vocab_size: got 200000, expected at most vocab_size (131072): the draft vocabulary is a part of "
                      "the target's");
    apertus["draft_vocab_size"] = 32000;
    apertus["model_type"] = "qwen3";
    CHECK_THROWS_WITH(draft_head_from_config(apertus, "h.json"),
                      "h.json: /model_type: got \"qwen3\" (a string), expected llama: an EAGLE-3 head's layers are Llama decoder layers");
    apertus["model_type"] = "llama";
    apertus["architectures"] = {"LlamaForCausalLM"};
    CHECK_THROWS_WITH(draft_head_from_config(apertus, "h.json"),
                      "h.json: /architectures: got an array, expected an EAGLE-3 Llama head's architectures: "
                      "[\"LlamaForCausalLMEagle3\"] or [\"Eagle3LlamaForCausalLM\"]");
    // A list naming another head's class beside an EAGLE-3 one, either first: which one an engine
    // loads is its registry's choice, so the file is refused at the other class.
    apertus["architectures"] = {"LlamaForCausalLMEagle3", "MedusaModel"};
    CHECK_THROWS_WITH(draft_head_from_config(apertus, "h.json"),
                      "h.json: /architectures/1: got \"MedusaModel\" (a string), expected only EAGLE-3 Llama head classes "
                      "(LlamaForCausalLMEagle3, Eagle3LlamaForCausalLM): engines load the first class of a list they support, so a list "
                      "mixing classes is ambiguous");
    apertus["architectures"] = {"MedusaModel", "Eagle3LlamaForCausalLM"};
    CHECK_THROWS_WITH(draft_head_from_config(apertus, "h.json"),
                      "h.json: /architectures/0: got \"MedusaModel\" (a string), expected only EAGLE-3 Llama head classes "
                      "(LlamaForCausalLMEagle3, Eagle3LlamaForCausalLM): engines load the first class of a list they support, so a list "
                      "mixing classes is ambiguous");
    apertus["architectures"] = {"LlamaForCausalLMEagle3", "Eagle3LlamaForCausalLM"};  // both names of the one class
    CHECK(draft_head_from_config(apertus).block.vocab_size == 32000);
}

TEST_CASE("checkpoint formats: an AWQ checkpoint's LM head is read at 16 bits", "[catalogue][formats]") {
    // Llama-3.1-8B with AutoAWQ's quantization_config (int4, groups of 128, one 16-bit scale each:
    // 4 + 16/128 = 4.125 bits, 0.515625 B). By hand from its config.json (hidden 4096, vocab 128256,
    // 32 layers, untied): 8,030,261,248 parameters, of which the input table and the LM head are
    // 128256 x 4096 = 525,336,576 each and the norms 32 x 2 x 4096 + 4096 = 266,240. A batch-1 step
    // at context 0 reads every layer weight at 0.515625 B, the norms and the head at 2 B (AWQ
    // leaves them in bf16), and one 8,192-byte row of the table:
    //   (8,030,261,248 - 2 x 525,336,576 - 266,240) x 0.515625 + (266,240 + 525,336,576) x 2 + 8,192
    //   = 4,649,926,656 B,
    // where a head counted at the weights' format would give 3,870,130,176 B, 17% less.
    nlohmann::json j = preset_config("llama-3.1-8b");
    j["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true}, {"version", "gemm"}};
    const Model m = model_from_config(j);
    Workload w;
    w.precision = checkpoint_formats(j).first;
    CHECK(decode_step(load_hardware("h100-sxm"), m, w).weight_bytes.in(bytes) == Approx(4'649'926'656.0).epsilon(1e-12));
    w.precision.lm_head.reset();  // what --weights int4/g128 alone says: the head too
    CHECK(decode_step(load_hardware("h100-sxm"), m, w).weight_bytes.in(bytes) == Approx(3'870'130'176.0).epsilon(1e-12));
}

TEST_CASE("checkpoint formats: a float32 checkpoint is served in 16 bits", "[catalogue][formats]") {
    // vLLM's dtype "auto" downcasts a float32 checkpoint to the device's first supported format
    // (vllm-project/vllm@0052a5b vllm/config/model.py, _resolve_auto_dtype: "Downcast for float32
    // models"; bf16 first from compute capability 8.0, vllm/platforms/cuda.py@002db49). So
    // Llama-3.1-8B's config with torch_dtype float32 reads its 8,030,261,248 parameters at 2 B a
    // step at batch 1 and context 0 (the layers and the head whole, one 8,192-byte row of the
    // 525,336,576-entry input table): (8,030,261,248 - 525,336,576) x 2 + 8,192 = 15,009,857,536 B,
    // not the 30,019,715,072 B a float32 read would give.
    nlohmann::json j = preset_config("llama-3.1-8b");
    j["torch_dtype"] = "float32";
    const auto [p, source] = checkpoint_formats(j);
    CHECK(p.weights == formats::bf16);
    CHECK(p.embedding_format() == formats::bf16);
    CHECK(source == "torch_dtype float32: served in bf16 (16 bits, as vLLM's dtype auto serves float32 checkpoints; fp16 on a device "
                    "without bf16, the same bytes)");
    Workload w;
    w.precision = p;
    CHECK(decode_step(load_hardware("h100-sxm"), model_from_config(j), w).weight_bytes.in(bytes) == Approx(15'009'857'536.0).epsilon(1e-12));
    // Quantised weights keep the rest in 16 bits too (AWQ's embeddings and head).
    j["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}};
    CHECK(checkpoint_formats(j).first.lm_head_format() == formats::bf16);
    // Every table asked for in 32 bits (--weights, --embeddings and --lm-head fp32) reads 32:
    // (8,030,261,248 - 525,336,576) x 4 + 16,384.
    w.precision = Precision{formats::fp32};
    CHECK(decode_step(load_hardware("h100-sxm"), model_from_config(j), w).weight_bytes.in(bytes) == Approx(30'019'715'072.0).epsilon(1e-12));
}

TEST_CASE("checkpoint formats: quantization_config and torch_dtype give a loaded model's formats", "[catalogue][formats]") {
    // gpt-oss-120b: quant_method mxfp4 with attention, router, embeddings and head not converted
    // (the Hub file's modules_to_not_convert); no torch_dtype, so bf16 for what is not converted.
    const LoadedModel oss = load_model_with_formats("gpt-oss-120b");
    CHECK(oss.model == load_model("gpt-oss-120b"));
    CHECK(oss.precision.expert_format() == formats::mxfp4);  // 4 + 8/32 = 4.25 bits
    CHECK(oss.precision.expert_format().bits_per_element() == 4.25);
    CHECK(oss.precision.weights == formats::bf16);
    CHECK(oss.precision.embedding_format() == formats::bf16);
    CHECK(oss.precision_source == "no torch_dtype: bf16 assumed; quantization_config mxfp4: experts mxfp4, embeddings, norms and routers bf16");
    // DeepSeek-V3: quant_method fp8, weight_block_size [128, 128]: one FP32 scale per 128 x 128
    // block, 8 + 32 / 16384 bits per weight; torch_dtype bfloat16 for the embeddings.
    const LoadedModel ds = load_model_with_formats("deepseek-v3");
    CHECK(ds.precision.weights == Format{Numeric::fp8, 32, 128 * 128});
    CHECK(ds.precision.weights.bits_per_element() == 8 + 32.0 / 16384);
    CHECK(ds.precision.expert_format() == ds.precision.weights);
    CHECK(ds.precision.embedding_format() == formats::bf16);
    CHECK(ds.precision.lm_head_format() == formats::bf16);
    CHECK(ds.precision_source == "torch_dtype bfloat16; quantization_config fp8: weights fp8/g16384/s32, embeddings, norms and routers bf16, lm_head bf16");
    // What its files weigh (`ridgeline show`'s checkpoint_weight_bytes): the 671,026,419,200
    // parameters (MTP aside) less the input table and the head, 129,280 x 7,168 = 926,679,040 each,
    // and less the routers and norms the checkpoint keeps in bf16 (its inference code,
    // deepseek-ai/DeepSeek-V3@1ea5a1a7 inference/model.py, builds Gate.weight and RMSNorm as plain
    // Parameters in the default bf16 while Linear takes float8_e4m3fn), at 1 + 1/4096 B; the two
    // tables, routers and norms at 2 B. The routers:
    // 58 MoE layers x (7,168 x 256 + 256 of e_score_correction_bias) = 106,445,312; the norms:
    // 61 x 2 x 7,168 + 7,168 = 881,664; 107,326,976 in all (0.107 GB more than at fp8).
    const double kept = 58 * (7168.0 * 256 + 256) + 61 * 2 * 7168.0 + 7168;
    CHECK(kept == 107'326'976.0);
    CHECK(weights_per_device(ds.model, ds.precision).in(bytes) ==
          Approx((669'173'061'120.0 - kept) * (1 + 1.0 / 4096) + 3'706'716'160.0 + 2 * kept).epsilon(1e-12));
    // Every device keeps the routers whole and reads them each step: at TP 8 each of the eight
    // reads 58 x 1,835,264 x 2 B = 212,890,624 B of them, in the operators' list and in the step,
    // whose bytes fall by half of that if the routers were stored in fp8 as the linear layers are,
    // with the norms (61 x 2 x 7,168 and the final 7,168, whole on each device), 2 B against
    // 1 + 1/4096.
    const Deployment eight{load_hardware("h200"), Parallelism{.tensor = 8}};
    const Workload ds_w{.precision = ds.precision, .context = 4096};
    bool listed = false;
    for (const Operator& o : operators(eight, ds.model, ds_w))
        if (o.name == "router") {
            listed = true;
            CHECK(o.bytes.in(bytes) == Approx(58 * 1'835'264.0 * 2).epsilon(1e-12));
        }
    CHECK(listed);
    Workload narrow = ds_w;
    narrow.precision.router_and_norms = ds.precision.weights;  // routers and norms in the weights' fp8
    CHECK((decode_step(eight, ds.model, ds_w).bytes_per_device - decode_step(eight, ds.model, narrow).bytes_per_device).in(bytes) ==
          Approx((58 * 1'835'264.0 + 61 * 2 * 7168.0 + 7168) * (2 - (1 + 1.0 / 4096))).epsilon(1e-9));
    // The table's format is the table's alone: --embeddings fp8 moves its row (7,168 / 8 a
    // device), not the routers (a review found them following it).
    Workload table = ds_w;
    table.precision.embeddings = ds.precision.weights;
    CHECK((decode_step(eight, ds.model, ds_w).bytes_per_device - decode_step(eight, ds.model, table).bytes_per_device).in(bytes) ==
          Approx(7168 / 8.0 * (2 - (1 + 1.0 / 4096))).epsilon(1e-9));
    // No quantization_config: torch_dtype alone (Llama-2-7B ships float16).
    const LoadedModel l2 = load_model_with_formats("llama-2-7b");
    // The recurrent state too, were there one (vLLM's mamba_cache_dtype "auto": the model's dtype).
    CHECK(l2.precision == Precision{.weights = formats::fp16, .state = {formats::fp16, formats::fp16}});
    CHECK(l2.precision_source == "torch_dtype float16");
    CHECK(load_model_with_formats("llama-3.1-8b").precision == Precision{});

    // A wrapper whose dtype is in text_config alone (llava-hf/llava-1.5-7b-hf names "float16" in
    // its text_config and at its top; a review's file kept only the first) is read there, not
    // assumed bf16 ("no torch_dtype: bf16 assumed"); a top-level one wins, as the file's own.
    const nlohmann::json llava = {{"model_type", "llava"}, {"text_config", {{"model_type", "llama"}, {"torch_dtype", "float16"}}}};
    CHECK(checkpoint_formats(llava).first.weights == formats::fp16);
    CHECK(checkpoint_formats(llava).second == "text_config.torch_dtype float16");
    nlohmann::json top = llava;
    top["dtype"] = "bfloat16";
    CHECK(checkpoint_formats(top).first.weights == formats::bf16);
    CHECK(checkpoint_formats(top).second == "dtype bfloat16");
    nlohmann::json bad = llava;
    bad["text_config"]["torch_dtype"] = "float8";
    CHECK_THROWS_WITH(checkpoint_formats(bad, "c.json"),
                      "c.json: /text_config/torch_dtype: got \"float8\" (a string), expected one of: bfloat16, float16, float32");

    nlohmann::json j = preset_config("qwen3-8b");  // torch_dtype bfloat16
    // AWQ / GPTQ as their Hub files write them: bits 4, group_size 128 -> int4/g128.
    j["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true}, {"version", "gemm"}};
    auto [awq, awq_source] = checkpoint_formats(j);
    CHECK(awq.weights == *parse_format("int4/g128"));
    CHECK(awq.embedding_format() == formats::bf16);
    CHECK(awq.lm_head_format() == formats::bf16);
    CHECK(awq_source == "torch_dtype bfloat16; quantization_config awq: weights int4/g128, embeddings, norms and routers bf16, lm_head bf16");
    j["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", -1}, {"sym", true}};
    CHECK(checkpoint_formats(j).first.weights == formats::int4);
    CHECK(checkpoint_formats(j).first.lm_head_format() == formats::bf16);
    j["quantization_config"]["lm_head"] = true;  // GPTQConfig's switch for quantising the head too
    CHECK(checkpoint_formats(j).first.lm_head_format() == formats::int4);
    // compressed-tensors NVFP4: 4-bit floats in groups of 16.
    j["quantization_config"] = {{"quant_method", "compressed-tensors"},
                                {"config_groups", {{"group_0", {{"targets", {"Linear"}},
                                                                {"weights", {{"num_bits", 4}, {"type", "float"}, {"group_size", 16}}}}}}}};
    CHECK(checkpoint_formats(j).first.weights == formats::nvfp4);
    CHECK(checkpoint_formats(j).first.lm_head_format() == formats::nvfp4);  // no "ignore": the head is a Linear too
    j["quantization_config"]["ignore"] = {"lm_head"};                       // as llm-compressor writes it
    CHECK(checkpoint_formats(j).first.lm_head_format() == formats::bf16);
    // Errors name the file, the JSON path, the value and what was expected.
    j["quantization_config"] = {{"quant_method", "bitsandbytes"}};
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"),
                      "q.json: /quantization_config/quant_method: got \"bitsandbytes\" (a string), expected one of: fp8, mxfp4, "
                      "awq, gptq, compressed-tensors, modelopt");
    j["quantization_config"] = {{"quant_method", "fp8"}, {"weight_block_size", {128}}};
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"),
                      "q.json: /quantization_config/weight_block_size: got an array, expected two positive block sides, e.g. [128, 128]");
    j["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 3}, {"group_size", 128}};
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"), "q.json: /quantization_config/bits: got 3, expected 4 or 8");
    // Zero is no block side and no group size (JSON's 0 reads as an unsigned integer: checked too).
    j["quantization_config"] = nlohmann::json::parse(R"({"quant_method": "fp8", "weight_block_size": [0, 0]})");
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"),
                      "q.json: /quantization_config/weight_block_size/0: got 0, expected two positive block sides, e.g. [128, 128]");
    j["quantization_config"] = nlohmann::json::parse(R"({"quant_method": "awq", "bits": 4, "group_size": 0})");
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"),
                      "q.json: /quantization_config/group_size: got 0, expected a positive group size of at most 1,000,000, or -1 for per-channel scales");
    // Past its bound the message says the bound (a review found it unsaid).
    j["quantization_config"] = nlohmann::json::parse(R"({"quant_method": "gptq", "bits": 4, "group_size": 1000000000000})");
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"),
                      "q.json: /quantization_config/group_size: got 1000000000000, expected a positive group size of at most 1,000,000, or -1 for per-channel scales");
    // Groups so small that their scales outweigh the values: no name parse_format reads back
    // (int4 in 4s: 4 + 16 / 4 = 8 bits; int8 in 2s: 8 + 16 / 2 = 16; fp8 blocks of 2: 8 + 32 / 2 = 24).
    j["quantization_config"] = nlohmann::json::parse(R"({"quant_method": "gptq", "bits": 4, "group_size": 4})");
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"),
                      "q.json: /quantization_config/group_size: got 4, expected a group size of at least 5 (a 16-bit scale for "
                      "fewer int4 weights takes as many bits as they do)");
    j["quantization_config"]["group_size"] = 5;  // 4 + 16 / 5 = 7.2 bits
    CHECK(checkpoint_formats(j, "q.json").first.weights == *parse_format("int4/g5"));
    j["quantization_config"] = nlohmann::json::parse(
        R"({"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 8, "type": "int", "group_size": 2}}}})");
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"),
                      "q.json: /quantization_config/config_groups/g/weights/group_size: got 2, expected a group size of at least 3 (a "
                      "16-bit scale for fewer int8 weights takes as many bits as they do)");
    j["quantization_config"] = nlohmann::json::parse(R"({"quant_method": "fp8", "weight_block_size": [1, 2]})");
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"),
                      "q.json: /quantization_config/weight_block_size: got an array, expected blocks (rows x columns) of at least 5 (a "
                      "32-bit scale for fewer fp8 weights takes as many bits as they do)");
    j.erase("quantization_config");
    j["torch_dtype"] = "float8_e4m3fn";
    CHECK_THROWS_WITH(checkpoint_formats(j, "q.json"),
                      "q.json: /torch_dtype: got \"float8_e4m3fn\" (a string), expected one of: bfloat16, float16, float32");
}
