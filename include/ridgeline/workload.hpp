// What is being asked of a device: formats, batch, context, and how weights are counted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "error.hpp"
#include "formats.hpp"
#include "units.hpp"

namespace ridgeline {

// Storage of weights, storage of the KV cache, and the tensor-core path the math runs on.
// W4A16 reads 4-bit weights and computes in bf16; W8A8 FP8 reads and computes FP8.
// Quantized checkpoints often keep some tensors wider: gpt-fast's int8/int4 keep the input
// embedding table in bf16; gpt-oss stores only its routed experts in MXFP4. `embeddings` (the
// input table, and the LM head when tied to it) and `experts` (routed experts) override
// `weights` for those tensors.
struct Precision {
    Format weights = formats::bf16;
    Format kv = formats::bf16;
    Numeric compute = Numeric::bf16;
    std::optional<Format> embeddings{};
    std::optional<Format> experts{};
    // The attention (and recurrent mixers') projections' format, if not the weights': NVIDIA's
    // NVFP4 releases keep attention in 16 bits and quantise the MLPs (checkpoint_formats.hpp).
    std::optional<Format> attention{};
    // An untied LM head's format, if not the weights': quantised checkpoints keep it at torch_dtype
    // (checkpoint_formats.hpp). A tied head is the input table, in the embeddings' format.
    std::optional<Format> lm_head{};
    // Recurrent layers' state (formats.hpp's StateFormats): the checkpoint's dtype, the state
    // matrices in a config's mamba_ssm_cache_dtype where it names one (Nemotron-H: float32, which
    // vLLM keeps them in). Not the KV's format: engines set the two apart.
    StateFormats state{};
    // The norms' and MoE routers' format, if not the default below: a GGUF keeps both in fp32
    // (llama.cpp's convert_hf_to_gguf.py writes norms and ffn_gate_inp in F32 and llama-quant.cpp
    // never quantises them, ggml-org/llama.cpp@8784689f).
    std::optional<Format> router_and_norms{};

    [[nodiscard]] constexpr Format embedding_format() const noexcept { return embeddings ? *embeddings : weights; }
    [[nodiscard]] constexpr Format expert_format() const noexcept { return experts ? *experts : weights; }
    [[nodiscard]] constexpr Format attention_format() const noexcept { return attention ? *attention : weights; }
    [[nodiscard]] constexpr Format lm_head_format() const noexcept { return lm_head ? *lm_head : weights; }
    // Norms and routers, unset, follow the weights as the other parts do; a checkpoint's formats
    // (checkpoint_formats.hpp) and a weights flag over them (store_weights_as) set them to what
    // the checkpoint stores. Quantisers convert linear layers (and some, tables) and leave both
    // in its 16 bits: DeepSeek-V3's FP8 checkpoint builds its Gate and RMSNorm weights in the
    // default bf16 (deepseek-ai/DeepSeek-V3@1ea5a1a7 inference/model.py, where Linear takes
    // float8_e4m3fn); AutoAWQ, GPTQ, llm-compressor and MLC's q4f16_1 quantise linear layers and
    // tables only.
    [[nodiscard]] constexpr Format router_and_norm_format() const noexcept { return router_and_norms ? *router_and_norms : weights; }
    friend constexpr bool operator==(const Precision&, const Precision&) = default;
};

// The weights' format, then each part stored otherwise: "bf16, experts mxfp4" (gpt-oss-120b's
// checkpoint), "fp8/b128x128, embeddings bf16, lm_head bf16" (DeepSeek-V3's). A head tied to the
// input table is the embeddings' and is not named twice.
inline std::string precision_name(const Precision& p, bool tied_embeddings) {
    std::string name = format_name(p.weights);
    if (p.expert_format() != p.weights) name += ", experts " + format_name(p.expert_format());
    if (p.attention_format() != p.weights) name += ", attention " + format_name(p.attention_format());
    if (p.embedding_format() != p.weights) name += ", embeddings " + format_name(p.embedding_format());
    if (p.lm_head_format() != p.weights && !tied_embeddings) name += ", lm_head " + format_name(p.lm_head_format());
    return name;
}

// Whether two storages are one: each part named alike, whether said or defaulted (a tied head is
// the embeddings'). plan skips a format that makes the checkpoint's storage again; the CLI's
// --weights refuses two such pieces.
inline bool stored_alike(const Precision& a, const Precision& b, bool tied_embeddings) {
    return precision_name(a, tied_embeddings) == precision_name(b, tied_embeddings);
}

// A weights flag (--weights, Python's weights=, the page's field) over a checkpoint: the linear
// layers and the experts stored in `weights`; the embeddings, an untied LM head, the norms and
// the routers as the checkpoint stores them, as quantisers leave them (AutoAWQ, GPTQ, and FP8
// from ModelOpt, llm-compressor or Quark keep them in 16 bits); the recurrent state the checkpoint's. kv and
// compute stay the caller's. A checkpoint that quantises those tables too (MLC's q4f16_1, GGUF)
// says so with embeddings and lm_head.
constexpr void store_weights_as(Precision& p, const Precision& checkpoint, Format weights) noexcept {
    p.weights = weights;
    p.experts.reset();
    p.attention.reset();
    p.embeddings = checkpoint.embedding_format();
    p.lm_head = checkpoint.lm_head_format();
    p.state = checkpoint.state;
    p.router_and_norms = checkpoint.router_and_norm_format();
}

namespace precisions {
inline constexpr Precision bf16{};
inline constexpr Precision w8a16_fp8{formats::fp8, formats::bf16, Numeric::bf16};
inline constexpr Precision w8a8_fp8{formats::fp8, formats::bf16, Numeric::fp8};
inline constexpr Precision w4a16_int4{formats::int4, formats::bf16, Numeric::bf16};
}  // namespace precisions

// Which weights a decode step is charged for.
//  - bytes_read: what a step really reads: one row of the input embedding table per token
//    (all of it only when tied to the LM head, which reads it in full anyway), every other
//    weight once. The default.
//  - every_parameter: all P parameters once, the input embedding table included, as the seeds'
//    budgets and most published tok/s ceilings count.
enum class WeightAccounting : std::uint8_t { every_parameter, bytes_read };

constexpr const char* name_of(WeightAccounting a) noexcept {
    return a == WeightAccounting::every_parameter ? "every parameter" : "bytes read";
}

// What a result counts, as one value every result records and the CLI prints. The defaults are
// the physically right choices; `assumptions::seed_003` is what the seed documents counted.
struct Assumptions {
    // Attention-score FLOPs (q.k and p.v over the cache) in the compute time: real work, and
    // for MLA as much per byte as the device's ridge.
    bool attention_flops = true;
    // The input embedding lookup as 2 FLOPs per table parameter (the seeds' 2P); it is a
    // gather, so none by default. A tied LM head's matmul is always counted.
    bool embedding_lookup_flops = false;
    WeightAccounting accounting = WeightAccounting::bytes_read;
    // Memory: the budget is memory_fraction of what the device reports (vLLM's
    // gpu_memory_utilization, 0.9 by default), less runtime_reserve (CUDA context, NCCL and
    // allocator slack, which vLLM measures at start-up; 1 GiB is ridgeline's estimate), less the
    // activation workspace of the step's tokens. The seeds budget the datasheet's GB whole.
    bool reported_memory = true;
    double memory_fraction = 0.9;
    Bytes runtime_reserve = GiB(1);
    bool activation_workspace = true;
    // Link latency per message (each ring step, hop or all-to-all) when neither the deployment
    // nor the hardware preset gives one: NCCL's network figure, 2.7 us a ring step (Ring/LL hwLat
    // NET in src/graph/tuning.cc, the largest of its per-step latencies; the presets cite it),
    // since an unknown link is not a free one. The seeds charged none.
    Seconds fallback_link_latency = us(2.7);
    // Prefill's LM head for every prompt token (the seeds' 2P a token), not only for the token
    // each prompt samples, which is all engines compute: vLLM gathers the last position's hidden
    // state before the head (logits_indices), TensorRT-LLM unless gather_context_logits is set.
    bool prompt_logits = false;
    friend constexpr bool operator==(const Assumptions&, const Assumptions&) = default;
};

namespace assumptions {
inline constexpr Assumptions physical{};
// Seed 003's budget: weights counted as every parameter, 2 FLOPs per parameter for the
// embedding table too (and the LM head, for every prompt token), no attention FLOPs, the
// datasheet's capacity whole, nothing reserved.
inline constexpr Assumptions seed_003{false, true, WeightAccounting::every_parameter, false, 1.0, Bytes{}, false, Seconds{}, true};
}  // namespace assumptions

constexpr const char* assumptions_name(const Assumptions& a) noexcept {
    if (a == assumptions::physical) return "physical";
    if (a == assumptions::seed_003) return "seed_003";
    return "custom";
}

// How a model is spread over devices.
//  - tensor t: every weight matrix split over t devices, KV heads too (replicated when t exceeds
//    them; MLA's latent cache is replicated), with two all-reduces of the activations per layer;
//  - pipeline p: the layers split into p stages, one device group each; a token crosses them in
//    turn, so batch-1 latency does not improve, while p micro-batches in flight multiply throughput;
//  - expert e: the routed experts split into e groups of whole experts, each group sliced over
//    t / e of the tensor-parallel devices (e divides t). The device whose group the batch routes
//    most tokens' experts to sets each MoE layer's time, and tokens cross to the experts'
//    devices and back (dispatch and combine);
//  - data d: d replicas of all the above, each with its own batch.
// Sequences the busiest of `ranks` attention data-parallel ranks holds of `batch`, dealt evenly:
// ceil(batch / ranks). Parallelism and StepCost (context_batch) both read it.
constexpr std::int64_t busiest_rank_sequences(std::int64_t batch, std::int64_t ranks) noexcept { return (batch + ranks - 1) / ranks; }

struct Parallelism {
    std::int64_t tensor = 1;
    std::int64_t pipeline = 1;
    std::int64_t expert = 1;
    std::int64_t data = 1;
    // Attention split by data parallelism inside the tensor-parallel group (SGLang's
    // --enable-dp-attention, TensorRT-LLM's enable_attention_dp, vLLM's DP beside EP): the
    // group's sequences are dealt over `attention_data` attention ranks, each running its own
    // sequences' attention with the heads split over tensor / attention_data devices; the FFN and
    // experts stay split over the whole group. 1: attention is tensor-parallel like the rest.
    std::int64_t attention_data = 1;
    // The link the preset lacks, per device, both directions together (link_for_group): a PCIe
    // card's, or the network past an NVLink domain with no scale-out figure; unset: none.
    std::optional<BytesPerSecond> link_bandwidth{};
    // Latency per message (each ring step, pipeline hop, all-to-all); unset: the preset's for the
    // link, else Assumptions::fallback_link_latency.
    std::optional<Seconds> link_latency{};
    Format activations = formats::bf16;  // what crosses the link

    [[nodiscard]] constexpr std::int64_t replica_devices() const noexcept { return tensor * pipeline; }
    // Devices one attention rank splits its heads over.
    [[nodiscard]] constexpr std::int64_t attention_tensor() const noexcept { return tensor / attention_data; }
    // Sequences the busiest attention rank holds of `batch`: all of them, or ceil(batch / ranks).
    [[nodiscard]] constexpr std::int64_t sequences_per_attention_rank(std::int64_t batch) const noexcept {
        return busiest_rank_sequences(batch, attention_data);
    }
    [[nodiscard]] constexpr std::int64_t devices() const noexcept { return tensor * pipeline * data; }
    friend constexpr bool operator==(const Parallelism&, const Parallelism&) = default;
};

// The longest times an Efficiency takes (validate(Workload)): a fixed time per step, and each
// time per layer, per MoE layer, per sequence or per link message. Calibration and its ranges keep to them too.
inline constexpr Seconds most_overhead_per_step = s(1000);
inline constexpr Seconds most_overhead_per_unit = s(1);

// What a real deployment gets of the peaks: fractions of peak bandwidth and FLOP/s, and a fixed
// time per step (launches, sampling, scheduling). 1, 1, 0 is the ideal ceiling.
struct Efficiency {
    double bandwidth = 1.0;
    double compute = 1.0;
    Seconds overhead{};   // per step, per pipeline stage
    Seconds per_layer{};  // per layer per step (kernel launches; CUDA graphs make it small)
    // The decode attention kernel reads each KV head once for every query head it serves instead
    // of once for its group: grouped-query attention run by a multi-head kernel (TensorRT-LLM's
    // masked MHA before its XQA kernel), so a GQA layer's cached K and V are read heads / kv_heads
    // times (per device: its query heads over its KV heads). Writes and the cache's size are not
    // changed. An engine's property, like the terms above, so calibration may choose it.
    bool kv_per_query_head = false;
    // Per routed-expert layer per step, on top of per_layer: the routing, the sort of tokens by
    // expert and the grouped GEMMs' own launches, kernels a dense layer does not run. Last, so
    // code that lists the terms above in order keeps compiling.
    Seconds per_moe_layer{};
    // Per sequence of the batch per step, once a step whatever the stages: the host's work for
    // each running request (sampling, the scheduler's bookkeeping, building the step's inputs,
    // detokenising), which grows with the batch and which CUDA graphs do not take away.
    Seconds per_sequence{};
    // Each layer's kernels hand their outputs on through device memory: every token's hidden
    // state and activations are written and read back a few times a layer
    // (layer_activation_traffic), bytes a fused, on-chip ideal never moves. Negligible for a few
    // sequences, they grow with the tokens in the step: at a batch of 768 on Llama 3.1 8B they
    // come to half the BF16 weights' bytes. An engine's property, so calibration fits with it.
    bool activation_traffic = false;
    // Per message on the links (each ring step of an all-reduce, each expert dispatch or combine,
    // each hop between pipeline stages; not a disaggregated prompt's KV, one bulk transfer a
    // prompt outside the steps), on top of the link's own latency: what the collective
    // library and the engine spend on a message that the link's figure (NCCL's cost-model
    // constant) leaves out. Large where devices cannot read each other's memory: two RTX 4090s
    // over PCIe, whose all-reduce goes through host memory, fit about 15 us a message.
    Seconds per_message{};
    [[nodiscard]] constexpr bool is_ideal() const noexcept {
        return bandwidth == 1.0 && compute == 1.0 && overhead == Seconds{} && per_layer == Seconds{} && per_moe_layer == Seconds{} &&
               per_sequence == Seconds{} && per_message == Seconds{} && !kv_per_query_head && !activation_traffic;
    }
    friend constexpr bool operator==(const Efficiency&, const Efficiency&) = default;
};

struct Workload {
    Precision precision{};
    std::int64_t batch = 1;       // sequences decoded together in one step (per pipeline micro-batch)
    std::int64_t context = 0;     // tokens already in each sequence's KV cache
    Assumptions assumptions{};
    // Tokens each sequence pushes through the model in this step: 1 when decoding, g + 1 when
    // verifying g drafted tokens. The weights and the cached KV are still read once.
    std::int64_t tokens_per_sequence = 1;
    Efficiency efficiency{};
};

// Upper bounds on what a workload may ask, so that every product of them stays exact in a
// double and far inside int64: 2^40 sequences and 2^40 tokens of context.
inline constexpr std::int64_t max_batch = std::int64_t{1} << 40;
inline constexpr std::int64_t max_context = std::int64_t{1} << 40;
// A context a precomputed cost is asked at (the sweep's and ridge's fast forms, which take no
// Workload to validate): 0 to 2^40 tokens.
constexpr void require_context_range(std::int64_t context) {
    if (context < 0 || context > max_context) throw error("", "context", std::to_string(context), "an integer from 0 to 2^40");
}
inline constexpr std::int64_t max_parallel_degree = 1 << 20;

constexpr void validate(const Assumptions& a) {
    // The floor --memory-fraction has: below it no preset's memory holds a byte worth counting.
    if (!(a.memory_fraction >= 1e-6 && a.memory_fraction <= 1))
        throw error("", "memory fraction", number_text(a.memory_fraction), "a fraction in [1e-6, 1]");
    if (!(a.runtime_reserve >= Bytes{}) || !is_finite(a.runtime_reserve) || a.runtime_reserve > TB(1000))
        throw error("", "runtime reserve", number_text(a.runtime_reserve.in(GiB)) + " GiB", "a size from 0 to 1000 TB");
    if (!(a.fallback_link_latency >= Seconds{}) || !(a.fallback_link_latency <= s(1)))
        throw error("", "fallback link latency", number_text(a.fallback_link_latency.in(us)) + " us", "a time from 0 to 1 s");
}

constexpr void validate(const Parallelism& p) {
    const auto degree = [](std::int64_t v, const char* what) {
        if (v < 1 || v > max_parallel_degree)
            throw error("", what, std::to_string(v), "an integer from 1 to " + std::to_string(max_parallel_degree));
    };
    degree(p.tensor, "tensor-parallel degree");
    degree(p.pipeline, "pipeline-parallel degree");
    degree(p.data, "data-parallel degree");
    degree(p.expert, "expert-parallel degree");
    degree(p.attention_data, "attention data-parallel degree");
    if (p.tensor % p.attention_data != 0)
        throw error("", "attention data-parallel degree", std::to_string(p.attention_data),
                    "a divisor of the tensor-parallel degree (" + std::to_string(p.tensor) + ")");
    if (p.tensor % p.expert != 0)
        throw error("", "expert-parallel degree", std::to_string(p.expert),
                    "a divisor of the tensor-parallel degree (" + std::to_string(p.tensor) + ")");
    // The floor the hardware presets have too: slower links would overflow the time they take.
    if (p.link_bandwidth && !(*p.link_bandwidth >= GB_per_s(1e-3) && *p.link_bandwidth < TB_per_s(1e6)))
        throw error("", "link bandwidth", number_text(p.link_bandwidth->in(GB_per_s)) + " GB/s",
                    "a bandwidth from 0.001 GB/s to below 1e9 GB/s");
    if (p.link_latency && !(*p.link_latency >= Seconds{} && *p.link_latency <= s(1)))
        throw error("", "link latency", number_text(p.link_latency->in(us)) + " us", "a time from 0 to 1 s");
}

// A storage format built in code: the block scales parse_format and the checkpoint reader
// allow (none, or 1 to 64 bits per block of 1 to 1,000,000, fewer bits than the values they
// scale), so no byte count comes out negative or NaN.
constexpr void validate(const Format& f, const char* what) {
    const bool none = f.block == 0 && f.scale_bits == 0;
    const bool scaled = f.block >= 1 && f.block <= 1000000 && f.scale_bits >= 1 && f.scale_bits <= 64 &&
                        static_cast<double>(f.scale_bits) < f.block * element_bits(f.element);
    if (!none && !scaled)
        throw error("", what, std::string(name_of(f.element)) + " with " + std::to_string(f.scale_bits) + "-bit scales per " +
                                  std::to_string(f.block),
                    "no block scales, or 1 to 64 bits of scale per block of 1 to 1000000 values, fewer than the values' own bits");
}

constexpr void validate(const Precision& p) {
    validate(p.weights, "weights format");
    validate(p.kv, "KV format");
    if (p.embeddings) validate(*p.embeddings, "embeddings format");
    if (p.experts) validate(*p.experts, "experts format");
    if (p.attention) validate(*p.attention, "attention format");
    if (p.lm_head) validate(*p.lm_head, "LM head format");
    validate(p.state.conv, "recurrent state format (convolution inputs)");
    validate(p.state.matrices, "recurrent state format (matrices)");
}

constexpr void validate(const Workload& w) {
    if (w.batch < 1 || w.batch > max_batch)
        throw error("", "batch", std::to_string(w.batch), "an integer from 1 to 2^40");
    if (w.context < 0 || w.context > max_context)
        throw error("", "context", std::to_string(w.context), "an integer from 0 to 2^40 tokens");
    if (w.tokens_per_sequence < 1 || w.tokens_per_sequence > 1025)
        throw error("", "tokens per sequence", std::to_string(w.tokens_per_sequence), "an integer from 1 to 1025");
    validate(w.assumptions);
    validate(w.precision);
    const Efficiency& e = w.efficiency;
    if (!(e.bandwidth >= 1e-6 && e.bandwidth <= 1))
        throw error("", "efficiency (bandwidth)", number_text(e.bandwidth), "a fraction in [1e-6, 1]");
    if (!(e.compute >= 1e-6 && e.compute <= 1))
        throw error("", "efficiency (compute)", number_text(e.compute), "a fraction in [1e-6, 1]");
    if (!(e.overhead >= Seconds{}) || !(e.overhead <= most_overhead_per_step))
        throw error("", "overhead per step", number_text(e.overhead.in(us)) + " us", "a time from 0 to 1000 s");
    if (!(e.per_layer >= Seconds{}) || !(e.per_layer <= most_overhead_per_unit))
        throw error("", "overhead per layer", number_text(e.per_layer.in(us)) + " us", "a time from 0 to 1 s");
    if (!(e.per_moe_layer >= Seconds{}) || !(e.per_moe_layer <= most_overhead_per_unit))
        throw error("", "overhead per MoE layer", number_text(e.per_moe_layer.in(us)) + " us", "a time from 0 to 1 s");
    if (!(e.per_sequence >= Seconds{}) || !(e.per_sequence <= most_overhead_per_unit))
        throw error("", "overhead per sequence", number_text(e.per_sequence.in(us)) + " us", "a time from 0 to 1 s");
    if (!(e.per_message >= Seconds{}) || !(e.per_message <= most_overhead_per_unit))
        throw error("", "overhead per link message", number_text(e.per_message.in(us)) + " us", "a time from 0 to 1 s");
}

}  // namespace ridgeline
