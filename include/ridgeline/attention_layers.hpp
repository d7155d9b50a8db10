// The attention kinds: what mixes a token with the ones before it. Each says its weights, the
// context it caches and reads, any fixed state it keeps per sequence, its FLOPs and how tensor
// parallelism splits it (layer_kind.hpp lists the vocabulary).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats.hpp"
#include "layer_kind.hpp"

namespace ridgeline {

// Grouped-query attention; multi-head when kv_heads == heads, multi-query when 1.
struct Gqa {
    std::int64_t heads = 0;
    std::int64_t kv_heads = 0;
    std::int64_t head_dim = 0;  // may differ from hidden/heads (Qwen3-32B: 64 x 128 != 5120)
    bool qkv_bias = false;      // biases on q, k, v (Qwen2, gpt-oss)
    bool o_bias = false;        // bias on the output projection (gpt-oss)
    bool qk_norm = false;       // RMSNorm over each q and k head (Qwen3, Gemma 3)
    bool sinks = false;         // one learned attention-sink logit per head (gpt-oss)
    bool output_gate = false;   // q_proj also makes a sigmoid gate per query element (Qwen3-Next)
    // RMSNorms over the whole q and k projections, all heads at once (MiniMax-M2's "per_layer"),
    // not one head's width: split over devices with the heads, as engines shard them.
    bool qk_norm_across_heads = false;
    // No v_proj: V is k_proj's output (normed apart, without RoPE), as Gemma 4's full-attention
    // layers take it (attention_k_eq_v); the cache still holds K and V, as vLLM and SGLang keep them.
    bool v_from_k = false;
    friend constexpr bool operator==(const Gqa&, const Gqa&) = default;

    [[nodiscard]] constexpr double q_width() const { return layer_detail::d(heads * head_dim); }
    [[nodiscard]] constexpr double kv_width() const { return layer_detail::d(kv_heads * head_dim); }
    // One of t devices keeps at least one whole KV head: replicated past t = kv_heads.
    [[nodiscard]] constexpr double kv_share(std::int64_t t) const {
        return 1.0 / layer_detail::d(t < kv_heads ? t : kv_heads);
    }

    // q, o and the sinks split by heads; k and v by KV heads; the o bias and per-head q/k norms
    // replicated, norms across the heads split with them (their variance's all-reduce across the
    // devices, which vLLM's MiniMaxText01RMSNormTP runs each layer, is not counted).
    template <class F>
    constexpr void weights(double h, std::int64_t t, F&& f) const {
        const double T = layer_detail::d(t), q = q_width(), kv = kv_width();
        const double q_out = output_gate ? 2 * q : q;
        const double norm = qk_norm ? layer_detail::d(head_dim) : 0;
        // Norms across the heads split with them; per-head ones every device keeps whole.
        const double q_norm = qk_norm_across_heads ? q : 0, k_norm = qk_norm_across_heads ? kv : 0;
        const double q_split = h * q_out + (qkv_bias ? q_out : 0) + (sinks ? layer_detail::d(heads) : 0) + q_norm;
        const double kv_proj = h * kv + (qkv_bias ? kv : 0);
        f("q_proj", Part::attention, q_split + norm, q_split / T + norm);
        f("k_proj", Part::attention, kv_proj + k_norm + norm, (kv_proj + k_norm) * kv_share(t) + norm);
        if (!v_from_k) f("v_proj", Part::attention, kv_proj, kv_proj * kv_share(t));
        f("o_proj", Part::attention, q * h + (o_bias ? h : 0), q * h / T + (o_bias ? h : 0));
    }
    // Each linear layer's inputs and the devices they are split over (layer_kind.hpp, row_inputs).
    template <class F>
    constexpr void row_inputs(std::int64_t h, std::int64_t t, std::int64_t, F&& f) const {
        f("q_proj, k_proj and v_proj", Part::attention, h, 1);
        f("o_proj", Part::attention, heads * head_dim, t);
    }
    // K and V per KV head, in the KV format.
    [[nodiscard]] constexpr Bytes cache_bytes_per_token(Format kv) const { return 2 * kv_width() * kv.bytes_per_element(); }
    // q.k and p.v: a multiply-add per head dimension for each, per head; decode and prefill alike.
    template <class F>
    constexpr void reads(std::int64_t t, F&& f) const {
        const double flops = 4 * q_width() / layer_detail::d(t);
        f(ContextRead{2 * kv_width() * kv_share(t), flops, flops, 0, 0});
    }
    [[nodiscard]] constexpr double state_elements() const { return 0; }
    [[nodiscard]] constexpr double matrix_state_elements() const { return 0; }
    [[nodiscard]] constexpr double state_flops_per_token() const { return 0; }
    // Activation elements per token the layer keeps live (q, k, v and the attention output), all heads.
    [[nodiscard]] constexpr double activation_width() const { return 2 * q_width() + 2 * kv_width(); }

    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, heads, "num_attention_heads");
        layer_detail::positive(check, kv_heads, "num_key_value_heads");
        layer_detail::positive(check, head_dim, "head_dim");
        if (heads > 0 && kv_heads > 0 && heads % kv_heads != 0)
            check("num_key_value_heads", std::to_string(kv_heads),
                  "a divisor of num_attention_heads (" + std::to_string(heads) + ")");
        if (qk_norm && qk_norm_across_heads)
            check("qk_norm_across_heads", "true", "false where qk_norm (one head's norm) is set: q and k have one norm or the other");
    }
    // Tensor parallelism splits the query heads evenly, and the KV heads evenly or replicated.
    [[nodiscard]] constexpr bool splits_over(std::int64_t t) const {
        return heads % t == 0 && (kv_heads % t == 0 || t % kv_heads == 0);
    }
    [[nodiscard]] std::string split_requirement(std::int64_t t) const {
        if (heads % t != 0) return "a divisor of the attention heads (" + std::to_string(heads) + ")";
        return "a divisor or multiple of the KV heads (" + std::to_string(kv_heads) + ")";
    }
    [[nodiscard]] constexpr std::int64_t widest() const { return layer_detail::widest_of({heads, head_dim}); }
    [[nodiscard]] std::string describe() const {
        return "GQA " + std::to_string(heads) + " heads / " + std::to_string(kv_heads) + " KV heads x " + std::to_string(head_dim) +
               (v_from_k ? ", V from k_proj" : "");
    }
};

// Multi-head latent attention (DeepSeek-V2/V3). The cache holds, per token and layer, the
// compressed latent (kv_lora_rank) and the shared rope key (qk_rope_head_dim). With an indexer
// (DeepSeek-V3.2's sparse attention) it also caches one small key per token, scores every
// cached token with it, and attends only to the index_topk best. The indexer's keys may have a
// format of their own: DeepSeek's reference keeps them in FP8 with an FP32 scale per 128 elements
// whatever the main cache's format (family_deepseek.hpp).
struct Mla {
    std::int64_t heads = 0;
    std::int64_t q_lora_rank = 0;  // 0: q is projected directly from the hidden state
    std::int64_t kv_lora_rank = 0;
    std::int64_t qk_nope_head_dim = 0;
    std::int64_t qk_rope_head_dim = 0;
    std::int64_t v_head_dim = 0;
    std::int64_t index_heads = 0;     // the indexer's query heads; 0: no indexer, dense attention
    std::int64_t index_head_dim = 0;  // its key width, one key per token shared by its heads
    std::int64_t index_topk = 0;      // cached tokens the main attention reads per query
    std::optional<Format> index_key_format{};  // the indexer's key cache; none: the KV format
    // Sparse, but with no indexer of its own: the layer attends to the top-k an earlier layer's
    // indexer chose (GLM-5.2's IndexShare), so it holds no indexer weights and caches no keys.
    bool index_shared = false;
    friend constexpr bool operator==(const Mla&, const Mla&) = default;

    [[nodiscard]] constexpr double qk_head() const { return layer_detail::d(qk_nope_head_dim + qk_rope_head_dim); }
    [[nodiscard]] constexpr bool sparse() const { return index_heads > 0; }
    [[nodiscard]] constexpr bool own_indexer() const { return sparse() && !index_shared; }
    // Sparse attention's decode kernels read an FP8 cache in one layout, FlashMLA's "FP8 with
    // scale": the latent in FP8 with an FP32 scale per 128 values, the rope key kept in BF16
    // (656 B a token for DeepSeek-V3.2: 512 + 16 + 128; deepseek-ai/FlashMLA@066b5ba6f63d9d0840eac008fe58a1f70acfac78
    // README.md, whose support matrix gives sparse decoding that format only). Dense MLA's FP8
    // cache is the latent and rope key in FP8 with one scale a tensor.
    [[nodiscard]] constexpr std::optional<double> fp8_bytes_per_token() const {
        if (!sparse()) return std::nullopt;
        const auto scales = static_cast<double>((kv_lora_rank + 127) / 128);
        return layer_detail::d(kv_lora_rank) + 4 * scales + 2 * layer_detail::d(qk_rope_head_dim);
    }

    // Down-projections and their norms, and the indexer: every device holds them whole (engines
    // replicate them). Per-head up-projections and the output split by heads.
    template <class F>
    constexpr void weights(double h, std::int64_t t, F&& f) const {
        const double T = layer_detail::d(t), H = layer_detail::d(heads);
        const double ql = layer_detail::d(q_lora_rank), kl = layer_detail::d(kv_lora_rank);
        const double q_down = q_lora_rank > 0 ? h * ql + ql : 0, q_up = (q_lora_rank > 0 ? ql : h) * H * qk_head();
        f("q projections (MLA)", Part::attention, q_down + q_up, q_down + q_up / T);
        const double kv_down = h * (kl + layer_detail::d(qk_rope_head_dim)) + kl;  // latent + rope key, latent norm
        const double kv_up = kl * H * layer_detail::d(qk_nope_head_dim + v_head_dim);
        f("kv projections (MLA)", Part::attention, kv_down + kv_up, kv_down + kv_up / T);
        f("o_proj", Part::attention, H * layer_detail::d(v_head_dim) * h, H * layer_detail::d(v_head_dim) * h / T);
        if (own_indexer()) {
            // wq_b (q latent -> heads x dim), wk (hidden -> dim), k_norm (a LayerNorm: weight and
            // bias), weights_proj (hidden -> one weight per head).
            const double IH = layer_detail::d(index_heads), ID = layer_detail::d(index_head_dim);
            const double q_in = q_lora_rank > 0 ? ql : h;
            const double p = q_in * IH * ID + h * ID + 2 * ID + h * IH;
            f("indexer (sparse attention)", Part::attention, p, p);
        }
    }
    // The down-projections read the hidden state, the up-projections a latent, whole on every
    // device; the output's inputs split by heads. The indexer is left out: engines keep it in 16
    // bits.
    template <class F>
    constexpr void row_inputs(std::int64_t h, std::int64_t t, std::int64_t, F&& f) const {
        f(q_lora_rank > 0 ? "q_a_proj and kv_a_proj" : "q_proj and kv_a_proj", Part::attention, h, 1);
        if (q_lora_rank > 0) f("q_b_proj", Part::attention, q_lora_rank, 1);
        f("kv_b_proj", Part::attention, kv_lora_rank, 1);
        f("o_proj", Part::attention, heads * v_head_dim, t);
    }
    // What its streams read a cached token as (reads below): the latent and the rope key in the
    // KV format (FlashMLA's layout for a sparse FP8 cache), and the indexer's key in its own,
    // shared by all heads: every device caches all of it.
    [[nodiscard]] constexpr Bytes cache_bytes_per_token(Format kv) const {
        double b = 0;
        reads(1, [&](const ContextRead& r) { b += r.bytes_per_token(kv); });
        return bytes(b);
    }
    [[nodiscard]] constexpr double kv_share(std::int64_t) const { return 1.0; }
    // Decode runs the absorbed form: per head and cached token the scores cost 2 (kv_lora +
    // rope) and the values 2 kv_lora:  2 H (2 kv_lora + rope)  (DeepSeek-V3: 278,528).
    // Prefill runs the expanded form: 2 H (nope + rope + v)  (DeepSeek-V3: 81,920), and a later
    // chunk up-projects the earlier chunks' latents again: 2 kv_lora H (nope + v) per token.
    // With an indexer, the main attention reads at most index_topk tokens, and the indexer reads
    // its key of every cached token: 2 x index_heads x index_head_dim FLOPs each.
    [[nodiscard]] constexpr double decode_flops_per_cached_token() const {
        return 2 * layer_detail::d(heads) * layer_detail::d(2 * kv_lora_rank + qk_rope_head_dim);
    }
    [[nodiscard]] constexpr double prefill_flops_per_cached_token() const {
        return 2 * layer_detail::d(heads) * layer_detail::d(qk_nope_head_dim + qk_rope_head_dim + v_head_dim);
    }
    [[nodiscard]] constexpr double prefill_flops_per_prefix_token() const {
        return 2 * layer_detail::d(kv_lora_rank) * layer_detail::d(heads) * layer_detail::d(qk_nope_head_dim + v_head_dim);
    }
    template <class F>
    constexpr void reads(std::int64_t t, F&& f) const {
        const double T = layer_detail::d(t);
        f(ContextRead{layer_detail::d(kv_lora_rank + qk_rope_head_dim), decode_flops_per_cached_token() / T,
                      prefill_flops_per_cached_token() / T, prefill_flops_per_prefix_token() / T, sparse() ? index_topk : 0,
                      "attention over the KV cache", std::nullopt, fp8_bytes_per_token()});
        if (own_indexer()) {
            // The indexer is replicated (every device scores every cached token), so not split by t.
            const double score = 2 * layer_detail::d(index_heads) * layer_detail::d(index_head_dim);
            f(ContextRead{layer_detail::d(index_head_dim), score, score, 0, 0, "indexer over its key cache", index_key_format});
        }
    }
    [[nodiscard]] constexpr double state_elements() const { return 0; }
    [[nodiscard]] constexpr double matrix_state_elements() const { return 0; }
    [[nodiscard]] constexpr double state_flops_per_token() const { return 0; }
    // Activation elements per token: q and the expanded k per head, and the latent with its rope key.
    [[nodiscard]] constexpr double activation_width() const {
        return 2 * layer_detail::d(heads) * qk_head() + layer_detail::d(kv_lora_rank + qk_rope_head_dim);
    }

    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, heads, "num_attention_heads");
        layer_detail::non_negative(check, q_lora_rank, "q_lora_rank");
        layer_detail::positive(check, kv_lora_rank, "kv_lora_rank");
        layer_detail::positive(check, qk_nope_head_dim, "qk_nope_head_dim");
        layer_detail::positive(check, qk_rope_head_dim, "qk_rope_head_dim");
        layer_detail::positive(check, v_head_dim, "v_head_dim");
        layer_detail::non_negative(check, index_heads, "index_n_heads");
        if (sparse()) {
            layer_detail::positive(check, index_head_dim, "index_head_dim");
            layer_detail::positive(check, index_topk, "index_topk");
        }
        if (index_shared && !sparse()) check("index_shared", "true", "false on a layer without an indexer (index_heads 0): nothing to share");
    }
    [[nodiscard]] constexpr bool splits_over(std::int64_t t) const { return heads % t == 0; }
    [[nodiscard]] std::string split_requirement(std::int64_t) const {
        return "a divisor of the attention heads (" + std::to_string(heads) + ")";
    }
    [[nodiscard]] constexpr std::int64_t widest() const {
        return layer_detail::widest_of({heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
                                        index_heads, index_head_dim, index_topk});
    }
    [[nodiscard]] std::string describe() const {
        std::string d = "MLA " + std::to_string(heads) + " heads, latent " + std::to_string(kv_lora_rank) + " + rope " +
                        std::to_string(qk_rope_head_dim);
        if (index_shared) {
            d += ", top-" + std::to_string(index_topk) + " from an earlier layer's indexer (none of its own)";
        } else if (sparse()) {
            d += ", indexer " + std::to_string(index_heads) + " x " + std::to_string(index_head_dim) + " top-" +
                 std::to_string(index_topk) + ", its keys ";
            if (!index_key_format) {
                d += "in the KV format";
            } else {
                const double b = layer_detail::d(index_head_dim) * index_key_format->bytes_per_element().in(bytes);
                d += "in " + format_name(*index_key_format) + ", " + std::to_string(static_cast<std::int64_t>(b)) +
                     (b == static_cast<double>(static_cast<std::int64_t>(b)) ? "" : "+") + " B a token";
            }
        }
        if (sparse()) {
            // Whole bytes: the scales are 4 B each.
            d += "; an fp8 KV cache is " + std::to_string(static_cast<std::int64_t>(*fp8_bytes_per_token())) +
                 " B a token (the latent's scales beside it, the rope key in bf16)";
        }
        return d;
    }
};

// Gated DeltaNet (Qwen3-Next's linear attention): no per-token cache, a fixed state per
// sequence instead, read and written every step: per value head a key_head_dim x
// value_head_dim matrix, plus the short convolution's last (kernel - 1) inputs.
struct GatedDeltaNet {
    std::int64_t key_heads = 0;
    std::int64_t value_heads = 0;
    std::int64_t key_head_dim = 0;
    std::int64_t value_head_dim = 0;
    std::int64_t conv_kernel = 0;
    friend constexpr bool operator==(const GatedDeltaNet&, const GatedDeltaNet&) = default;

    [[nodiscard]] constexpr double key_width() const { return layer_detail::d(key_heads * key_head_dim); }
    [[nodiscard]] constexpr double value_width() const { return layer_detail::d(value_heads * value_head_dim); }
    [[nodiscard]] constexpr double conv_width() const { return 2 * key_width() + value_width(); }  // q, k, v
    // Heads split across devices, and their state with them.
    [[nodiscard]] constexpr double kv_share(std::int64_t t) const { return 1.0 / layer_detail::d(t); }

    // in_proj_qkvz (q, k, v and the output gate z), in_proj_ba (a beta and a decay per value
    // head), the depthwise conv1d, dt_bias and A_log per value head, split by heads; the gated
    // RMSNorm over one value head replicated; out_proj split by heads.
    template <class F>
    constexpr void weights(double h, std::int64_t t, F&& f) const {
        const double T = layer_detail::d(t), Hv = layer_detail::d(value_heads);
        const double in = h * (2 * key_width() + 2 * value_width()) + h * 2 * Hv;
        f("in projections (DeltaNet)", Part::attention, in, in / T);
        const double conv = conv_width() * layer_detail::d(conv_kernel) + 2 * Hv;
        f("conv1d and decay (DeltaNet)", Part::attention, conv + layer_detail::d(value_head_dim),
          conv / T + layer_detail::d(value_head_dim));
        f("out_proj (DeltaNet)", Part::attention, value_width() * h, value_width() * h / T);
    }
    template <class F>
    constexpr void row_inputs(std::int64_t h, std::int64_t t, std::int64_t, F&& f) const {
        f("in projections (DeltaNet)", Part::attention, h, 1);
        f("out_proj (DeltaNet)", Part::attention, value_heads * value_head_dim, t);
    }
    [[nodiscard]] constexpr Bytes cache_bytes_per_token(Format) const { return Bytes{}; }
    template <class F>
    constexpr void reads(std::int64_t, F&&) const {}
    [[nodiscard]] constexpr double state_elements() const {
        return matrix_state_elements() + conv_width() * layer_detail::d(conv_kernel - 1);
    }
    // The recurrent matrices alone (Precision::state's format; the convolution's inputs are in the KV's).
    [[nodiscard]] constexpr double matrix_state_elements() const {
        return layer_detail::d(value_heads) * layer_detail::d(key_head_dim) * layer_detail::d(value_head_dim);
    }
    // Per token and value head: S^T k, the rank-one delta update and S^T q, a multiply-add over
    // the state each, and the decay: about 7 dk dv (the convolution is counted with the weights).
    [[nodiscard]] constexpr double state_flops_per_token() const {
        return 7 * layer_detail::d(value_heads) * layer_detail::d(key_head_dim) * layer_detail::d(value_head_dim);
    }
    // q, k, v, z and the output.
    [[nodiscard]] constexpr double activation_width() const { return 2 * key_width() + 3 * value_width(); }

    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, key_heads, "linear_num_key_heads");
        layer_detail::positive(check, value_heads, "linear_num_value_heads");
        layer_detail::positive(check, key_head_dim, "linear_key_head_dim");
        layer_detail::positive(check, value_head_dim, "linear_value_head_dim");
        layer_detail::positive(check, conv_kernel, "linear_conv_kernel_dim");
        if (key_heads > 0 && value_heads > 0 && value_heads % key_heads != 0)
            check("linear_num_value_heads", std::to_string(value_heads),
                  "a multiple of linear_num_key_heads (" + std::to_string(key_heads) + ")");
    }
    [[nodiscard]] constexpr bool splits_over(std::int64_t t) const { return key_heads % t == 0; }
    [[nodiscard]] std::string split_requirement(std::int64_t) const {
        return "a divisor of the linear-attention key heads (" + std::to_string(key_heads) + ")";
    }
    [[nodiscard]] constexpr std::int64_t widest() const {
        return layer_detail::widest_of({key_heads, value_heads, key_head_dim, value_head_dim, conv_kernel});
    }
    [[nodiscard]] std::string describe() const {
        return "Gated DeltaNet " + std::to_string(key_heads) + " key / " + std::to_string(value_heads) + " value heads x " +
               std::to_string(key_head_dim) + " x " + std::to_string(value_head_dim) + ", conv " + std::to_string(conv_kernel);
    }
};

// Mamba-2 (the state-space mixer of Granite 4.0-H, Bamba, Nemotron-H, Falcon-H1): no per-token
// cache, a fixed state per sequence instead, read and written every step: per head a
// head_dim x state_size matrix, plus the depthwise convolution's last (kernel - 1) inputs over
// its channels (x, and B and C of every group).
//
// Shapes as huggingface/transformers builds them, BambaMixer in
//   src/transformers/models/bamba/modular_bamba.py @6135be49843348c46e8e08c8e2d6298382acc2b6
//   (GraniteMoeHybridMambaLayer is that class): with I = heads x head_dim (= expand x hidden) and
//   G N = groups x state_size,
//   in_proj    hidden -> I (gate z) + I + 2 G N (x, B, C: the conv channels) + heads (dt)
//   conv1d     depthwise over I + 2 G N channels, kernel taps each, a bias per channel (conv_bias)
//   dt_bias, A_log, D   one per head each
//   norm       a gated RMSNorm over I
//   out_proj   I -> hidden; in_proj and out_proj carry biases only with proj_bias.
// Tensor parallelism splits the heads (and x, z, dt, the norm and out_proj with them) and the
// groups: each device holds groups / t of them, or, with one group, all of it (B and C of the one
// group are needed by every head), as vLLM's MambaMixer2 does (it asserts heads % t == 0 and
// groups % t == 0 or groups == 1).
struct Mamba2 {
    std::int64_t heads = 0;        // mamba_n_heads / mamba_num_heads
    std::int64_t head_dim = 0;     // mamba_d_head / mamba_head_dim
    std::int64_t state_size = 0;   // mamba_d_state / ssm_state_size
    std::int64_t groups = 0;       // mamba_n_groups / n_groups
    std::int64_t conv_kernel = 0;  // mamba_d_conv / conv_kernel
    bool conv_bias = true;         // a bias per conv channel
    bool proj_bias = false;        // biases on in_proj and out_proj
    friend constexpr bool operator==(const Mamba2&, const Mamba2&) = default;

    [[nodiscard]] constexpr double inner() const { return layer_detail::d(heads * head_dim); }
    [[nodiscard]] constexpr double bc_width() const { return 2 * layer_detail::d(groups * state_size); }  // B and C
    [[nodiscard]] constexpr double conv_width() const { return inner() + bc_width(); }
    [[nodiscard]] constexpr double ssm_elements() const { return inner() * layer_detail::d(state_size); }
    // What one of t devices holds of the groups: its share, or all of a single replicated group.
    [[nodiscard]] constexpr double group_share(std::int64_t t) const {
        return groups % t == 0 ? 1.0 / layer_detail::d(t) : 1.0;
    }
    // The fraction of the state one of t devices keeps: its heads' SSM state and conv channels
    // (x split by heads, B and C by groups or replicated).
    [[nodiscard]] constexpr double kv_share(std::int64_t t) const {
        const double T = layer_detail::d(t), K1 = layer_detail::d(conv_kernel - 1);
        const double mine = ssm_elements() / T + (inner() / T + bc_width() * group_share(t)) * K1;
        return state_elements() > 0 ? mine / state_elements() : 1.0 / T;
    }

    template <class F>
    constexpr void weights(double h, std::int64_t t, F&& f) const {
        const double T = layer_detail::d(t), I = inner(), BC = bc_width(), H = layer_detail::d(heads);
        const double K = layer_detail::d(conv_kernel), gs = group_share(t);
        // in_proj: z, x and dt split by heads; B and C by groups (or replicated).
        const double by_heads = 2 * I + H, bias = proj_bias ? 1.0 : 0.0;
        f("in_proj (Mamba-2)", Part::attention, (h + bias) * (by_heads + BC), (h + bias) * (by_heads / T + BC * gs));
        // conv1d taps (and biases) per channel; dt_bias, A_log and D per head; the gated norm over I.
        const double per_channel = K + (conv_bias ? 1.0 : 0.0);
        const double conv_heads = I * per_channel + 3 * H + I;
        f("conv1d, dt_bias, A_log, D, norm (Mamba-2)", Part::attention, conv_heads + BC * per_channel,
          conv_heads / T + BC * per_channel * gs);
        f("out_proj (Mamba-2)", Part::attention, I * h + bias * h, I * h / T + bias * h);
    }
    template <class F>
    constexpr void row_inputs(std::int64_t h, std::int64_t t, std::int64_t, F&& f) const {
        f("in_proj (Mamba-2)", Part::attention, h, 1);
        f("out_proj (Mamba-2)", Part::attention, heads * head_dim, t);
    }
    [[nodiscard]] constexpr Bytes cache_bytes_per_token(Format) const { return Bytes{}; }
    template <class F>
    constexpr void reads(std::int64_t, F&&) const {}
    [[nodiscard]] constexpr double state_elements() const {
        return ssm_elements() + conv_width() * layer_detail::d(conv_kernel - 1);
    }
    // The SSM state alone (Precision::state's format; the convolution's inputs are in the KV's).
    [[nodiscard]] constexpr double matrix_state_elements() const { return ssm_elements(); }
    // Per token, for each of the heads x head_dim x state_size state elements (the selective
    // state update, as selective_state_update does it): the decay h * exp(dt A) (1 multiply),
    // the input dt B x added (1 multiply-add, dt B formed once per head and state column), and
    // the readout y = h C (1 multiply-add): 5 FLOPs. The per-head exp, the D skip and the
    // convolution are lower order (the convolution is counted with the weights).
    [[nodiscard]] constexpr double state_flops_per_token() const { return 5 * ssm_elements(); }
    // in_proj's output (z, x, B, C, dt) and the scan's output.
    [[nodiscard]] constexpr double activation_width() const {
        return 2 * inner() + bc_width() + layer_detail::d(heads) + inner();
    }

    template <class Check>
    constexpr void validate(Check& check) const {
        layer_detail::positive(check, heads, "mamba_n_heads");
        layer_detail::positive(check, head_dim, "mamba_d_head");
        layer_detail::positive(check, state_size, "mamba_d_state");
        layer_detail::positive(check, groups, "mamba_n_groups");
        layer_detail::positive(check, conv_kernel, "mamba_d_conv");
        if (heads > 0 && groups > 0 && heads % groups != 0)
            check("mamba_n_groups", std::to_string(groups), "a divisor of mamba_n_heads (" + std::to_string(heads) + ")");
    }
    // Heads split evenly; groups split evenly, or a single group is replicated.
    [[nodiscard]] constexpr bool splits_over(std::int64_t t) const {
        return heads % t == 0 && (groups % t == 0 || groups == 1);
    }
    [[nodiscard]] std::string split_requirement(std::int64_t t) const {
        if (heads % t != 0) return "a divisor of the Mamba-2 heads (" + std::to_string(heads) + ")";
        return "any divisor of the heads where there is one Mamba-2 group, else a divisor of the groups (" + std::to_string(groups) + ")";
    }
    [[nodiscard]] constexpr std::int64_t widest() const {
        return layer_detail::widest_of({heads, head_dim, state_size, groups, conv_kernel});
    }
    [[nodiscard]] std::string describe() const {
        return "Mamba-2 " + std::to_string(heads) + " heads x " + std::to_string(head_dim) + ", state " +
               std::to_string(state_size) + ", " + std::to_string(groups) + (groups == 1 ? " group" : " groups") +
               ", conv " + std::to_string(conv_kernel);
    }
};

// No attention (a layer that skips it), or one hidden x hidden matrix in its place
// (nemotron-nas's no_op and replace_with_linear): no cache, no state.
struct NoAttention {
    bool linear = false;
    friend constexpr bool operator==(const NoAttention&, const NoAttention&) = default;

    template <class F>
    constexpr void weights(double h, std::int64_t t, F&& f) const {
        if (linear) f("linear (in place of attention)", Part::attention, h * h, h * h / layer_detail::d(t));
    }
    template <class F>
    constexpr void row_inputs(std::int64_t h, std::int64_t, std::int64_t, F&& f) const {
        if (linear) f("linear (in place of attention)", Part::attention, h, 1);
    }
    [[nodiscard]] constexpr double kv_share(std::int64_t) const { return 1.0; }
    [[nodiscard]] constexpr Bytes cache_bytes_per_token(Format) const { return Bytes{}; }
    template <class F>
    constexpr void reads(std::int64_t, F&&) const {}
    [[nodiscard]] constexpr double state_elements() const { return 0; }
    [[nodiscard]] constexpr double matrix_state_elements() const { return 0; }
    [[nodiscard]] constexpr double state_flops_per_token() const { return 0; }
    [[nodiscard]] constexpr double activation_width() const { return 0; }
    template <class Check>
    constexpr void validate(Check&) const {}
    [[nodiscard]] constexpr bool splits_over(std::int64_t) const { return true; }
    [[nodiscard]] std::string split_requirement(std::int64_t) const { return "any degree"; }
    [[nodiscard]] constexpr std::int64_t widest() const { return 0; }
    [[nodiscard]] std::string describe() const { return linear ? "linear in place of attention" : "no attention"; }
};

// The fixed state one sequence keeps in one layer of kind `k`: its recurrent matrices and the
// convolution's last inputs, each in its format.
template <class Kind>
constexpr Bytes state_bytes(const Kind& k, StateFormats state) {
    return (k.state_elements() - k.matrix_state_elements()) * state.conv.bytes_per_element() +
           k.matrix_state_elements() * state.matrices.bytes_per_element();
}

}  // namespace ridgeline
