// libFuzzer target: the whole setting space. The input's bytes (FuzzedDataProvider) choose a
// device (every catalogue preset, or the reference device with every format), a model (every
// catalogue preset, loaded once, or a small dense, MoE or MLA model built from the bytes), and
// a setting up to the documented bounds: batch 1..2^40 and context 0..2^40 (log-distributed),
// tensor, pipeline, expert and data degrees 1..2^20, tokens per sequence 1..1025, the weight,
// KV, embedding, expert and activation formats (block-scaled ones too) and the compute format,
// every Assumptions field, the efficiency, the link's bandwidth and latency, and a speculation
// (a chain or a tree, its acceptance or mean accepted tokens). Now and then a
// value is drawn past its bound (or NaN, or infinite) so the refusals are exercised too.
//
// Invariant: every answer either returns or throws ridgeline::error, and what it returns holds
// fuzz::check_answers's invariants (fuzz_common.hpp): every DecodeStep field finite and
// non-negative with step_time > 0, memory fields finite with fits() == (used() <= budget),
// largest_batch's batch fits and one more does not, longest_context's context fits and one more
// token does not, prefill/generate/operators finite; and check_speculation's; and no ASan or UBSan report.
#include "fuzz_common.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fuzzer/FuzzedDataProvider.h>

namespace {

using namespace ridgeline;

struct Catalogue {
    std::vector<Hardware> devices;
    std::vector<Model> models;
};

// Every preset once, from RIDGELINE_DATA_DIR (CTest and run.sh set it).
const Catalogue& catalogue() {
    static const Catalogue c = [] {
        Catalogue out;
        out.devices.push_back(fuzz::reference_device());
        for (const auto& name : list_presets(PresetKind::hardware)) out.devices.push_back(load_hardware(name));
        for (const auto& name : list_presets(PresetKind::model)) out.models.push_back(load_model(name));
        return out;
    }();
    return c;
}

// An integer from lo to hi, log-distributed: a power of two first, then a value within it.
std::int64_t log_int(FuzzedDataProvider& in, std::int64_t lo, std::int64_t hi) {
    const int top = std::bit_width(static_cast<std::uint64_t>(hi));
    const int bits = in.ConsumeIntegralInRange<int>(0, top);
    const std::int64_t from = bits == 0 ? 0 : std::int64_t{1} << (bits - 1);
    const std::int64_t to = bits == 0 ? 0 : (std::int64_t{1} << bits) - 1;
    const std::int64_t v = in.ConsumeIntegralInRange<std::int64_t>(from, to);
    return v < lo ? lo : v > hi ? hi : v;
}

// Mostly within [lo, hi]; one time in 32 any int64 (past the bound, negative), to reach the refusals.
std::int64_t bounded_int(FuzzedDataProvider& in, std::int64_t lo, std::int64_t hi) {
    if (in.ConsumeIntegralInRange<int>(0, 31) == 0) return in.ConsumeIntegral<std::int64_t>();
    return log_int(in, lo, hi);
}

// Mostly within [lo, hi]; one time in 32 any double's bits (NaN, infinities, negatives).
double bounded_double(FuzzedDataProvider& in, double lo, double hi) {
    if (in.ConsumeIntegralInRange<int>(0, 31) == 0) return std::bit_cast<double>(in.ConsumeIntegral<std::uint64_t>());
    return in.ConsumeFloatingPointInRange<double>(lo, hi);
}

// A degree from 1 to 2^20: mostly a power of two (what splits a model's heads), else any.
std::int64_t degree(FuzzedDataProvider& in) {
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return 1;
    case 1: return bounded_int(in, 1, max_parallel_degree);
    case 2: return log_int(in, 1, 128);
    default: return std::int64_t{1} << in.ConsumeIntegralInRange<int>(0, 20);
    }
}

Numeric numeric(FuzzedDataProvider& in) {
    return all_numerics[in.ConsumeIntegralInRange<std::size_t>(0, all_numerics.size() - 1)];
}

Format format(FuzzedDataProvider& in) {
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return formats::mxfp4;
    case 1: return formats::nvfp4;
    case 2: return block_scaled(numeric(in), in.ConsumeIntegralInRange<int>(1, 64), in.ConsumeIntegralInRange<int>(1, 1 << 16));
    default: return Format{numeric(in)};
    }
}

// A small model built from the bytes: dense GQA, MoE, or MLA, possibly windowed, possibly with
// a second group. Invalid ones throw ridgeline::error from the answers (and are fine).
Model built_model(FuzzedDataProvider& in) {
    Model m;
    m.name = "fuzzed";
    m.hidden_size = log_int(in, 1, 1 << 14);
    m.vocab_size = log_int(in, 1, 1 << 18);
    m.tied_embeddings = in.ConsumeBool();
    if (in.ConsumeBool()) m.max_context = log_int(in, 1, std::int64_t{1} << 41);
    const int groups = in.ConsumeIntegralInRange<int>(1, 2);
    for (int i = 0; i < groups; ++i) {
        LayerSpec spec;
        if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
            spec.attention = Mla{log_int(in, 1, 256), log_int(in, 0, 4096), log_int(in, 1, 1024),
                                 log_int(in, 1, 256), log_int(in, 1, 128), log_int(in, 1, 256)};
        } else {
            const std::int64_t kv = log_int(in, 1, 64);
            spec.attention = Gqa{kv * log_int(in, 1, 16), kv, log_int(in, 1, 512), in.ConsumeBool(), in.ConsumeBool(),
                                 in.ConsumeBool(), in.ConsumeBool()};
        }
        if (in.ConsumeBool()) spec.window = log_int(in, 0, std::int64_t{1} << 20);
        if (in.ConsumeBool()) {
            const std::int64_t experts = log_int(in, 1, 512);
            spec.ffn = Moe{experts, log_int(in, 1, experts), log_int(in, 1, 1 << 14), log_int(in, 0, 4),
                           log_int(in, 1, 1 << 14), in.ConsumeBool(), in.ConsumeBool()};
        } else {
            spec.ffn = DenseMlp{log_int(in, 1, 1 << 16)};
        }
        m.add_layers(log_int(in, 1, 256), spec);
    }
    return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const Catalogue& c = catalogue();
    const Hardware& device = c.devices[in.ConsumeIntegralInRange<std::size_t>(0, c.devices.size() - 1)];
    Model fuzzed;
    const Model* model = nullptr;
    if (const std::size_t pick = in.ConsumeIntegralInRange<std::size_t>(0, c.models.size()); pick < c.models.size()) {
        model = &c.models[pick];
    } else {
        fuzzed = built_model(in);
        model = &fuzzed;
    }

    Parallelism p;
    p.tensor = degree(in);
    p.pipeline = degree(in);
    p.data = degree(in);
    // The expert degree: mostly a divisor of the tensor degree (validate refuses the rest).
    p.expert = in.ConsumeBool() ? std::int64_t{1} << in.ConsumeIntegralInRange<int>(0, std::countr_zero(static_cast<std::uint64_t>(p.tensor) | (1u << 20)))
                                : degree(in);
    if (in.ConsumeBool()) p.link_bandwidth = GB_per_s(bounded_double(in, 1e-3, 1e8));
    if (in.ConsumeBool()) p.link_latency = us(bounded_double(in, 0, 1e6));
    if (in.ConsumeBool()) p.activations = format(in);

    Workload w;
    w.batch = bounded_int(in, 1, max_batch);
    w.context = bounded_int(in, 0, max_context);
    w.tokens_per_sequence = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? bounded_int(in, 1, 1025) : 1;
    w.precision.weights = format(in);
    w.precision.kv = format(in);
    w.precision.compute = numeric(in);
    if (in.ConsumeBool()) w.precision.embeddings = format(in);
    if (in.ConsumeBool()) w.precision.experts = format(in);
    Assumptions& a = w.assumptions;
    a.attention_flops = in.ConsumeBool();
    a.embedding_lookup_flops = in.ConsumeBool();
    a.accounting = in.ConsumeBool() ? WeightAccounting::every_parameter : WeightAccounting::bytes_read;
    a.reported_memory = in.ConsumeBool();
    a.activation_workspace = in.ConsumeBool();
    if (in.ConsumeBool()) a.memory_fraction = bounded_double(in, 1e-6, 1);
    if (in.ConsumeBool()) a.runtime_reserve = GiB(bounded_double(in, 0, 1e6));
    if (in.ConsumeBool()) a.fallback_link_latency = us(bounded_double(in, 0, 1e6));
    if (in.ConsumeBool()) w.efficiency.bandwidth = bounded_double(in, 1e-6, 1);
    if (in.ConsumeBool()) w.efficiency.compute = bounded_double(in, 1e-6, 1);
    if (in.ConsumeBool()) w.efficiency.overhead = us(bounded_double(in, 0, 1e9));
    w.efficiency.activation_traffic = in.ConsumeBool();
    if (in.ConsumeBool()) w.efficiency.per_message = us(bounded_double(in, 0, 1e6));
    const std::int64_t new_tokens = bounded_int(in, 1, max_context);
    // At most 64 prefill chunks, so one input stays fast (the library allows 1,000,000).
    const std::int64_t prompt = std::clamp<std::int64_t>(w.context, 1, max_context);
    const std::int64_t chunk = in.ConsumeBool() ? 0 : prompt / 64 + 1 + log_int(in, 0, prompt);

    fuzz::check_answers(Deployment{device, p}, *model, w, new_tokens, chunk);

    // A speculation: a chain or a tree up to the documented bounds (1,024 deep and wide, 1,025
    // verified), its acceptance or its mean accepted tokens.
    Speculation s;
    s.draft_tokens = bounded_int(in, 1, 1024);
    s.acceptance = bounded_double(in, 0, 1);
    s.draft_tensor = in.ConsumeBool() ? 0 : bounded_int(in, 0, 2);
    if (in.ConsumeBool()) {
        s.tree_width = bounded_int(in, 1, 1024);
        s.verify_tokens = bounded_int(in, 0, most_verify_tokens);
    }
    if (in.ConsumeBool()) s.accepted_tokens = bounded_double(in, 1, static_cast<double>(most_verify_tokens));
    fuzz::check_speculation(Deployment{device, p}, *model, w, s);
    return 0;
}
