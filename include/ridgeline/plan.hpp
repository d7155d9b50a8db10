// The planner: which deployment to buy or rent. For a model, candidate devices (each with an
// optional price per device-hour), a traffic shape and latency targets, it tries every
// deployment the library can express (device, tensor x pipeline x expert degrees, weight
// format, serving mode) and, for each, the fewest replicas that hold the users and meet the
// targets; then ranks what is feasible (by cost per million output tokens when every candidate
// has a price, else by device count) and draws the Pareto front of what a token costs (output
// tokens per unit of price when every device has one, else tokens/s per device) against tokens/s
// per user over every batch that fits.
//
// Users: concurrent sequences, split evenly over replicas (and a replica's pipeline
// micro-batches). Requests per second: users come from Little's law, users = rate x (TTFT +
// (output - 1) x TPOT), a request's turn (disaggregated: rate x (output - 1) x TPOT, a decode
// slot's share, the prefill pool sized to the rate), found by fixed-point iteration for each replica count (serving.hpp says how
// TTFT and TPOT are modelled in each mode).
//
// Not constexpr: it returns vectors and strings.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "capacity.hpp"
#include "serving.hpp"

namespace ridgeline {

struct PlanDevice {
    std::string name;                     // as the user named it (a preset name)
    Hardware device{};
    std::optional<double> price_per_hour;  // per device, in any currency
    // This device's engine terms (a calibration fitted on it), in place of the request's base
    // efficiency; and what they came from, for the times line ("TensorRT-LLM on h100-sxm").
    std::optional<Efficiency> efficiency{};
    std::string efficiency_source{};
};

struct PlanRequest {
    Model model{};
    std::vector<PlanDevice> devices;
    Traffic traffic{};
    std::optional<double> users;             // concurrent sequences; or:
    std::optional<double> requests_per_s;    // an arrival rate
    std::optional<Seconds> ttft_target;
    std::optional<Seconds> tpot_target;
    std::optional<Seconds> itl_target;      // on the longest wait between two tokens (Serving::max_itl)
    std::int64_t max_devices = 64;           // per plan, all replicas and pools
    // Weight formats to try: each sets the linear layers and experts; the embeddings and an untied
    // LM head stay in checkpoint_formats' (store_weights_as), as quantised checkpoints keep them.
    std::vector<Format> weights{formats::bf16, formats::fp8};
    // The checkpoint's own formats (weights, experts, embeddings, LM head: load_model_with_formats);
    // 16 bits throughout unless set.
    Precision checkpoint_formats{};
    // Those formats tried first, when given; a format of `weights` that makes the same storage is
    // not tried again.
    std::optional<Precision> checkpoint{};
    std::vector<ServingMode> modes{ServingMode::aggregated, ServingMode::disaggregated};
    Workload base{};                         // KV and compute formats, assumptions, efficiency
    bool device_compute = false;             // base's compute unasked: each device's default_compute
    Parallelism links{};                     // link overrides (bandwidth, latency) for every plan
    // Called before each device's search with its name, index and the count: a large search
    // (thousands of devices a plan) runs for seconds, and a front end can say where it is.
    std::function<void(std::string_view device, std::size_t index, std::size_t count)> on_device{};
};

struct PlanRow {
    std::string device;
    Parallelism parallel{};
    Format weights = formats::bf16;
    Numeric compute = Numeric::bf16;     // the device's default_compute where the request left it unasked
    std::string weights_name = "bf16";   // as asked: a format ("fp8"), or the checkpoint's whole storage ("bf16, experts mxfp4")
    ServingMode mode = ServingMode::aggregated;
    std::int64_t replicas = 0;
    Serving serving{};
    double devices = 0;                  // all replicas' decode devices and the prefill pool, whole devices
    std::optional<double> cost_per_hour;
    std::optional<double> cost_per_million_tokens;  // output tokens
    [[nodiscard]] double users() const { return static_cast<double>(replicas * serving.concurrency); }
};

// The engine terms a device's times were priced with, machine-readable beside the assumptions'
// words: a calibration's (source: "TensorRT-LLM on h100-sxm, ..."), or the request's own
// (source empty).
struct PlanTimes {
    std::string hardware;
    std::string source;
    Efficiency efficiency{};
};

struct PlanResult {
    std::vector<PlanRow> plans;   // feasible, cheapest first
    std::vector<PlanRow> pareto;  // tokens/s per user ascending, front_value descending
    std::int64_t evaluated = 0;   // serving evaluations
    std::string verdict;          // which serving mode wins, and why
    std::vector<std::string> assumptions;  // what each mode searched assumes (mode_assumptions)
    // What the search says of a candidate device: how far a link the request gave it reaches,
    // and why it gave no plan at all where the search can say (a refusal, the first one; or no
    // deployment held the model). A device that served but missed the targets has none.
    std::vector<std::string> notes;
    std::vector<PlanTimes> times;  // one a device searched, in the request's order
};

// A front point's worth to its buyer, higher better: output tokens per unit of price where every
// device has a price (devices of different prices are compared by what they cost, not by how many
// there are), else tokens/s per device.
inline double front_value(const PlanRow& r) {
    return r.cost_per_million_tokens ? 1e6 / *r.cost_per_million_tokens : r.serving.tokens_per_s_per_device.in(per_s);
}

namespace plan_detail {
// Adds a point to the running Pareto front of tokens/s per user and front_value, both higher
// better: kept unless a point already on it is at least as good on both (the earlier kept on a
// tie), and it drops the points it is at least as good as on both. Keeping every point to filter
// at the end held one row per evaluation that fitted (tens of thousands for a 70B search), whose
// growth and sort were a fifth of a search's time.
inline void add_to_front(std::vector<PlanRow>& front, const PlanRow& row) {
    const auto user = [](const PlanRow& r) { return r.serving.tokens_per_s_per_user.in(per_s); };
    const double u = user(row), v = front_value(row);
    for (const PlanRow& kept : front)
        if (user(kept) >= u && front_value(kept) >= v) return;
    std::erase_if(front, [&](const PlanRow& kept) { return u >= user(kept) && v >= front_value(kept); });
    front.push_back(row);
}
}  // namespace plan_detail

// The lever a note names for a device with no link to split over, in words the CLI's JSON, the
// page and Python share; the CLI's table names its flag instead (naming_own_lever).
inline constexpr std::string_view plan_link_lever = "give the link's bandwidth";

namespace plan_detail {
// Devices a link given for a device whose preset has none (a PCIe card) joins: a PCIe server's
// eight slots.
inline constexpr std::int64_t given_link_domain = 8;

inline std::vector<std::int64_t> powers_of_two_up_to(std::int64_t most) {
    std::vector<std::int64_t> out;
    for (std::int64_t v = 1; v <= most; v *= 2) out.push_back(v);
    return out;
}

// Whether a device can be split: its preset's link, or one the request gives.
inline bool linked(const PlanDevice& d, const PlanRequest& r) {
    return d.device.interconnect_bandwidth.has_value() || r.links.link_bandwidth.has_value();
}

// Unasked, weights stored in fp8 compute in fp8 on a device with an fp8 peak, as engines serve
// them: vLLM's Fp8LinearMethod quantizes the activations per token too (W8A8) from compute
// capability 8.9 and on ROCm, and only below 8.9 keeps Marlin's weight-only kernel, with 16-bit
// math (vllm-project/vllm@1436674bcb3f46f4c960d09334cf7dd1534943ca
// vllm/model_executor/layers/quantization/fp8.py, use_marlin). Other storage computes in the
// device's default (bf16, fp16 on a V100).
inline bool computes_in_fp8(const Hardware& hw, const Format& weights) {
    return weights.element == Numeric::fp8 && hw.peak_for(Numeric::fp8).has_value();
}
inline Numeric unasked_compute(const Hardware& hw, const Precision& storage) {
    return computes_in_fp8(hw, storage.weights) ? Numeric::fp8 : default_compute(hw);
}

// Whether an engine runs weights stored in fp8 on `hw`: with fp8 arithmetic where it has an fp8
// peak, else only with vLLM's weight-only Marlin kernel, from CUDA compute capability 8.0
// (Fp8Config.get_min_capability returns 80; Marlin is off on ROCm: vllm-project/vllm@0071b24bf8fe8c3d1bc3516d0ff8477f07964aaf
// vllm/model_executor/layers/quantization/fp8.py). A V100 (7.0) or an MI250X runs neither, so a
// planner that buys one cannot store its weights in fp8. Empty when it runs them; else why not.
inline std::string no_fp8_weights(const Hardware& hw) {
    if (hw.peak_for(Numeric::fp8) || (hw.cuda_capability && *hw.cuda_capability >= 8.0)) return "";
    char given[16] = "none";
    if (hw.cuda_capability) std::snprintf(given, sizeof given, "%.1f", *hw.cuda_capability);
    return std::string("no fp8 arithmetic, and vLLM's weight-only fp8 kernel needs an NVIDIA device of CUDA compute capability 8.0 or more "
                       "(the preset gives ") + given + ")";
}
inline bool stores_fp8(const Precision& p) {
    for (const Format f : {p.weights, p.expert_format(), p.attention_format(), p.embedding_format(), p.lm_head_format()})
        if (f.element == Numeric::fp8) return true;
    return false;
}

// Whether `d` is split over the link the request gives: its preset has none (a PCIe card). A
// device with a link of its own keeps it.
inline bool given_link(const PlanDevice& d, const PlanRequest& r) {
    return !d.device.interconnect_bandwidth && r.links.link_bandwidth.has_value();
}

// The devices `d`'s scale-up link joins: its domain, or at least one server's slots over a link
// given where its preset has none.
inline std::int64_t link_domain(const PlanDevice& d, const PlanRequest& r) {
    return given_link(d, r) ? std::max(d.device.scale_up_domain, given_link_domain) : d.device.scale_up_domain;
}
// The most devices one replica of `d` may span: the request's limit where a network joins its
// scale-up domains (the preset's scale-out figure, or a link given to a device with a scale-up
// link of its own, link_for_group); else the devices its link joins (link_domain).
inline std::int64_t most_devices(const PlanDevice& d, const PlanRequest& r) {
    if (d.device.scale_out_bandwidth || (d.device.interconnect_bandwidth && r.links.link_bandwidth)) return r.max_devices;
    return std::min(r.max_devices, link_domain(d, r));
}

// The deployments to try on one device: tensor degrees (powers of two within the scale-up
// domain when there is a link, a given link on a device with no domain of its own joining
// given_link_domain; past it, over the scale-out network, where there is one: DeepSeek-V3 runs
// TP 16 with its experts and attention spread over two H100 servers, SGLang's and vLLM's
// multi-node recipe), pipeline degrees (powers of two), expert groups dividing the tensor
// degree, each that the model accepts. A model with routed experts also tries each split with
// its attention data-parallel, one rank a device: the layout SGLang, vLLM and TensorRT-LLM
// offer beside expert parallelism.
inline std::vector<Parallelism> shapes(const PlanDevice& d, const Model& m, const PlanRequest& r) {
    std::vector<Parallelism> out;
    const bool linked = plan_detail::linked(d, r);
    const std::int64_t most = most_devices(d, r);
    bool moe = false;
    for (const auto& g : m) moe = moe || routed_experts(g.spec, 1.0).experts > 0;
    for (const std::int64_t t : powers_of_two_up_to(linked ? most : std::int64_t{1}))
        for (const std::int64_t p : powers_of_two_up_to(std::min(most / t, layer_count(m))))
            for (const std::int64_t e : moe ? powers_of_two_up_to(t) : std::vector<std::int64_t>{1}) {
                if ((t > 1 || p > 1) && !linked) continue;
                // A link given fills the one the preset lacks (link_for_group): a PCIe card's, or
                // the network past an NVLink domain with no scale-out figure.
                Parallelism par = r.links;
                par.tensor = t;
                par.pipeline = p;
                par.expert = e;
                par.data = 1;
                // Attention tensor-parallel like the rest, then (a model with routed experts, over
                // more than one tensor-parallel device) data-parallel, one rank a device.
                const std::int64_t layouts = moe && t > 1 ? 2 : 1;
                for (std::int64_t layout = 0; layout < layouts; ++layout) {
                    par.attention_data = layout == 0 ? 1 : t;
                    try {
                        validate(Deployment{d.device, par}, m);
                    } catch (const error&) {
                        continue;
                    }
                    out.push_back(par);
                }
            }
    return out;
}

inline bool meets(const Serving& s, const PlanRequest& r) {
    return s.fits() && (!r.tpot_target || s.tpot <= *r.tpot_target) && (!r.ttft_target || s.ttft <= *r.ttft_target) &&
           (!r.itl_target || s.max_itl <= *r.itl_target);
}

inline double ceil_div(double a, double b) { return std::ceil(a / b - 1e-9); }
// What a plan's times are, said in its assumptions for every front end: ceilings, or estimates
// at the efficiencies and overheads asked for.
// `head` names whose times they are: "times", or "times on h200 (...)" for a device's own terms.
inline std::string times_assumption(const Efficiency& e, const std::string& head = "times") {
    if (e.is_ideal()) return head + ": ceilings (peak bandwidth and FLOPs, no overhead a step)";
    char buf[256];
    std::snprintf(buf, sizeof buf, ": at %.2f of peak bandwidth, %.2f of peak FLOPs and %.1f us a step", e.bandwidth, e.compute,
                  e.overhead.in(us));
    std::string said = head + buf;
    const auto term = [&](Seconds t, const char* per) {
        if (t == Seconds{}) return;
        std::snprintf(buf, sizeof buf, ", %.1f us a %s", t.in(us), per);
        said += buf;
    };
    term(e.per_layer, "layer");
    term(e.per_moe_layer, "MoE layer");
    term(e.per_sequence, "sequence");
    term(e.per_message, "link message");
    if (e.kv_per_query_head) said += ", each KV head read once per query head";
    if (e.activation_traffic) said += ", activations written and read back through memory";
    return said;
}
}  // namespace plan_detail

inline void validate(const PlanRequest& r) {
    validate(r.model);
    validate(r.traffic);
    // The overrides every deployment takes: refused here, not by each shape in turn (which would
    // leave nothing to search and answer "no plan").
    validate(r.links);
    validate(r.base);
    if (r.devices.empty()) throw error("", "devices", "none", "at least one candidate device");
    if (r.users.has_value() == r.requests_per_s.has_value())
        throw error("", "traffic", r.users ? "both users and a request rate" : "neither users nor a request rate", "exactly one of them");
    if (r.users && !(*r.users >= 1 && *r.users <= 1e9)) throw error("", "users", number_text(*r.users), "a number from 1 to 1e9");
    // The CLI's bounds (--rate): below one request in 11 days a replica serves one sequence anyway.
    if (r.requests_per_s && !(*r.requests_per_s >= 1e-6 && *r.requests_per_s <= 1e9))
        throw error("", "requests per second", number_text(*r.requests_per_s), "requests per second from 1e-6 to 1e9");
    if (r.max_devices < 1 || r.max_devices > 65536) throw error("", "max devices", std::to_string(r.max_devices), "an integer from 1 to 65536");
    if (r.weights.empty() && !r.checkpoint) throw error("", "weight formats", "none", "at least one format, or the checkpoint's");
    if (r.modes.empty()) throw error("", "serving modes", "none", "at least one mode");
    for (std::size_t i = 0; i < r.devices.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (r.devices[i].name == r.devices[j].name)  // each would give the same plans twice
                throw error("", "devices", r.devices[i].name + " twice", "each candidate device once");
    for (const auto& d : r.devices) {
        // A device no deployment could use is the caller's error, not "no plan" (shapes()
        // sets aside what a device cannot split, not what it cannot be).
        try {
            validate(d.device);
        } catch (const error& e) {
            throw error("", "device " + d.name + ": " + e.path(), e.value(), e.expected());
        }
        if (d.efficiency) {
            try {
                validate(Workload{.efficiency = *d.efficiency});
            } catch (const error& e) {
                throw error("", "device " + d.name + " efficiency: " + e.path(), e.value(), e.expected());
            }
        }
        if (d.price_per_hour && !(*d.price_per_hour > 0 && *d.price_per_hour < 1e9))
            throw error("", "price of " + d.name, number_text(*d.price_per_hour), "a positive number below 1e9 per device-hour");
    }
    // Each request runs to prompt + output tokens: past the model's positions no plan can serve it.
    require_context_within(r.model, r.traffic.prompt + r.traffic.output, "prompt + output");
    // The CLI's --ttft-ms, --tpot-ms and --itl-ms take 0.001 to 1e9 ms: the same bounds.
    for (const auto& [t, what] : {std::pair{&r.ttft_target, "TTFT target"}, std::pair{&r.tpot_target, "TPOT target"},
                                  std::pair{&r.itl_target, "ITL target"}})
        if (*t && !(**t >= ms(1e-3) && **t <= ms(1e9)))
            throw error("", what, number_text(t->value().in(ms)) + " ms", "a time from 0.001 to 1e9 ms");
    // One token a request has no interval between tokens to time: a target on it would only judge
    // the steps other users' prefill stretches, which no user sees.
    for (const auto& [t, what] : {std::pair{&r.tpot_target, "TPOT target"}, std::pair{&r.itl_target, "ITL target"}})
        if (*t && r.traffic.output == 1)
            throw error("", what, number_text(t->value().in(ms)) + " ms",
                        "none where each request asks for one output token (no time between tokens; give a TTFT target)");
}

// The storage a weights format asks for: none where it makes the checkpoint's storage again,
// which the search tries once, as the checkpoint (the CLI's searched line says so).
inline std::optional<Precision> storage_asked(const PlanRequest& r, Format f) {
    Precision p = r.base.precision;
    store_weights_as(p, r.checkpoint_formats, f);
    // A bare format whose elements the checkpoint's linear layers and experts already hold with
    // block scales ("fp8" on DeepSeek-V3's fp8/b128x128) is that storage, its scales kept: scaling
    // per tensor instead is no engine's choice, only a row some 0.2% lighter.
    const Precision& c = r.checkpoint_formats;
    if (f.block == 0 && c.weights.block > 0 && c.weights.element == f.element && c.expert_format().element == f.element) {
        p.weights = c.weights;
        p.experts = c.experts;
    }
    if (r.checkpoint && stored_alike(*r.checkpoint, p, r.model.tied_embeddings)) return std::nullopt;
    return p;
}

// The feasible plans, ranked, and the Pareto front.
inline PlanResult plan(const PlanRequest& r) {
    validate(r);
    using namespace plan_detail;
    PlanResult out;
    for (const ServingMode m : r.modes) out.assumptions.push_back(mode_assumptions(m, r.traffic));
    if (r.traffic.cache_hit() < r.traffic.cached_prompt)
        out.assumptions.push_back("cache: a prompt cached whole still computes its last token, to sample the first output from "
                                  "(vLLM and SGLang take at most the prompt less one token from the cache)");
    if (has_routed_experts(r.model))
        out.assumptions.push_back("attention: each tensor-parallel split also tried with the attention data-parallel, one rank a "
                                  "device (SGLang's --enable-dp-attention, TensorRT-LLM's enable_attention_dp); a step waits for the busiest rank");
    if (!r.weights.empty()) {
        const Precision& c = r.checkpoint_formats;
        out.assumptions.push_back(
            std::string("weights: a format asked for sets the linear layers and experts; the embeddings") +
            (r.model.tied_embeddings ? " (tied to the LM head), norms and routers" : ", norms, routers and LM head") + " stay as the checkpoint stores them (" +
            "embeddings " + format_name(c.embedding_format()) +
            (r.model.tied_embeddings ? "" : ", lm_head " + format_name(c.lm_head_format())) + ", norms and routers " +
            format_name(c.router_and_norm_format()) + ", as AWQ, GPTQ and FP8 checkpoints keep them)");
    }
    // Each device's terms where it has its own (a calibration), else the request's.
    const bool own_terms = std::any_of(r.devices.begin(), r.devices.end(), [](const PlanDevice& d) { return d.efficiency.has_value(); });
    if (!own_terms) out.assumptions.push_back(plan_detail::times_assumption(r.base.efficiency));
    for (const PlanDevice& d : r.devices) {
        if (own_terms)
            out.assumptions.push_back(plan_detail::times_assumption(
                d.efficiency.value_or(r.base.efficiency), "times on " + d.name + (d.efficiency_source.empty() ? "" : " (" + d.efficiency_source + ")")));
        out.times.push_back({d.name, d.efficiency ? d.efficiency_source : std::string(), d.efficiency.value_or(r.base.efficiency)});
    }
    const bool priced = std::all_of(r.devices.begin(), r.devices.end(), [](const PlanDevice& d) { return d.price_per_hour.has_value(); });
    std::optional<PlanRow> closest;  // the nearest miss that holds the users within the limit (below)
    // Whether some replica row_for tried held its load in memory, or failed for another reason
    // (its replicas overloaded): else memory alone is why no plan was found.
    bool not_memory_alone = false;
    // Whether a request rate's load outgrew some replica that holds one sequence: the users it
    // brings past what fits, a search that never settled, or replicas that serve less than it.
    bool rate_outgrew = false;
    // The latency a plan is ranked on: TPOT, or with one output token a request (no time between
    // tokens) TTFT.
    const bool one_token = r.traffic.output == 1;
    const auto latency = [one_token](const Serving& s) { return one_token ? s.ttft : s.tpot; };
    // How far a serving misses the targets: the largest ratio of a figure to its target.
    const auto overshoot = [&r](const Serving& v) {
        double worst = 0;
        if (r.tpot_target) worst = std::max(worst, v.tpot.in(ridgeline::s) / r.tpot_target->in(ridgeline::s));
        if (r.ttft_target) worst = std::max(worst, v.ttft.in(ridgeline::s) / r.ttft_target->in(ridgeline::s));
        if (r.itl_target) worst = std::max(worst, v.max_itl.in(ridgeline::s) / r.itl_target->in(ridgeline::s));
        return worst;
    };
    const std::string latency_name = one_token ? "TTFT" : "TPOT";
    // Some devices priced and others not would rank by device count and drop the prices given.
    if (!priced && std::any_of(r.devices.begin(), r.devices.end(), [](const PlanDevice& d) { return d.price_per_hour.has_value(); })) {
        std::string unpriced;
        for (const PlanDevice& d : r.devices)
            if (!d.price_per_hour) unpriced += (unpriced.empty() ? "" : ", ") + d.name;
        throw error("", "prices", "none for " + unpriced, "a price for every device tried, or none (then plans rank by device count)");
    }
    const std::int64_t longest = r.traffic.prompt + r.traffic.output;
    // Deployments tried, those every evaluation of which was refused, and the first refusal:
    // where all were refused (a compute format no candidate has), that is the answer, not "no
    // plan meets the targets". One that fits nowhere or serves once is not refused.
    std::int64_t tried = 0, refused_all = 0;
    std::optional<error> refused;
    // Each mode's: whether any evaluation served, and its first refusal (e.g. no link for the KV
    // transfer), which the verdict gives as the reason a mode has no plan.
    std::vector<bool> mode_served(r.modes.size(), false);
    std::vector<std::optional<error>> mode_refused(r.modes.size());
    // Storage no engine runs on a device: its names, and each device's reason.
    std::vector<std::string> skipped_formats, skipped_why;
    // The storage choices: the checkpoint's, then each format for the linear layers (but one
    // that makes the checkpoint's storage again).
    // Each is named as it was asked for: the checkpoint's whole storage, or the format given.
    std::vector<Precision> storages;
    std::vector<std::string> asked_as;
    if (r.checkpoint) {
        storages.push_back(*r.checkpoint);
        asked_as.push_back(precision_name(*r.checkpoint, r.model.tied_embeddings));
    }
    for (const Format f : r.weights) {
        if (const std::optional<Precision> p = storage_asked(r, f)) {
            storages.push_back(*p);
            asked_as.push_back(format_name(f));
        }
    }

    for (const PlanDevice& dev : r.devices) {
        if (r.on_device) r.on_device(dev.name, static_cast<std::size_t>(&dev - r.devices.data()), r.devices.size());
        // Whether any of this device's deployments held the model, and was served; the first refusal.
        std::optional<error> dev_refusal;
        bool dev_holds = false, dev_served = false;
        if (given_link(dev, r) && dev.device.scale_up_domain < given_link_domain)
            out.notes.push_back(dev.name + ": splits over up to " + std::to_string(given_link_domain) +
                                " devices on the link given (its preset has no scale-up link; a PCIe server's slots)" +
                                (dev.device.scale_out_bandwidth ? "" : ", and no further: it has no scale-out network"));
        // Storage no engine runs on this device is not a plan to buy it for.
        std::size_t runnable = 0;
        for (std::size_t k = 0; k < storages.size(); ++k) {
            const Precision& storage = storages[k];
            if (stores_fp8(storage)) {
                if (const std::string why = no_fp8_weights(dev.device); !why.empty()) {
                    const std::string& name = asked_as[k];
                    out.notes.push_back(dev.name + ": " + name + " weights not tried: " + why);
                    if (std::find(skipped_formats.begin(), skipped_formats.end(), name) == skipped_formats.end()) skipped_formats.push_back(name);
                    skipped_why.push_back(dev.name + ": " + why);
                    continue;
                }
            }
            ++runnable;
            Workload w = r.base;
            if (dev.efficiency) w.efficiency = *dev.efficiency;
            w.precision.weights = storage.weights;
            w.precision.experts = storage.experts;
            w.precision.attention = storage.attention;
            w.precision.embeddings = storage.embeddings;
            w.precision.lm_head = storage.lm_head;
            w.precision.router_and_norms = storage.router_and_norms;
            if (r.device_compute) w.precision.compute = plan_detail::unasked_compute(dev.device, storage);
            const Format weights = storage.weights;
            // Named as asked, so a row's weights go back to --weights (weights=) as they are.
            const std::string& weights_name = asked_as[k];
            // Every split of this storage refused (a format whose groups the model's rows cut):
            // said in the notes where other storages were searched, not dropped without a word.
            std::int64_t storage_tried = 0, storage_refused = 0;
            std::optional<error> storage_refusal;
            for (const Parallelism& par : shapes(dev, r.model, r)) {
                const Deployment d{dev.device, par};
                ++tried;
                ++storage_tried;
                std::optional<std::int64_t> most;
                try {
                    most = largest_batch(d, r.model, w, longest);
                } catch (const error& e) {
                    if (!refused) refused = e;
                    if (!dev_refusal) dev_refusal = e;
                    if (!storage_refusal) storage_refusal = e;
                    ++refused_all;
                    ++storage_refused;
                    continue;  // e.g. a compute format the device lacks
                }
                if (!most) continue;
                dev_holds = true;
                bool served = false, failed = false;
                for (std::size_t mode_index = 0; mode_index < r.modes.size(); ++mode_index) {
                    const ServingMode mode = r.modes[mode_index];
                    // `in_flight`: the micro-batches the replica keeps (0: one a stage).
                    const auto evaluate = [&](std::int64_t batch, std::int64_t in_flight = 0) -> std::optional<Serving> {
                        Workload b = w;
                        b.batch = batch;
                        ++out.evaluated;
                        try {
                            Serving s = serve(d, r.model, b, r.traffic, mode, in_flight);
                            served = dev_served = true;
                            mode_served[mode_index] = true;
                            return s;
                        } catch (const error& e) {
                            if (!refused) refused = e;
                            if (!dev_refusal) dev_refusal = e;
                            if (!mode_refused[mode_index]) mode_refused[mode_index] = e;
                            failed = true;
                            return std::nullopt;  // e.g. no link for the KV transfer
                        }
                    };
                    const auto per_replica = static_cast<double>(par.replica_devices());
                    // Whole devices: the replicas', and a prefill pool of whole prefill replicas
                    // (a serving result's prefill devices are the busy share, a fraction); the
                    // tokens per device and the costs are over those.
                    const auto whole = [&](PlanRow& row) {
                        const Serving& s = row.serving;
                        const double prefill = s.prefill_devices > 0
                                                   ? ceil_div(static_cast<double>(row.replicas) * s.prefill_devices, per_replica) * per_replica
                                                   : 0.0;
                        row.devices = static_cast<double>(row.replicas) * per_replica + prefill;
                        row.serving.tokens_per_s_per_device = static_cast<double>(row.replicas) * s.tokens_per_s / row.devices;
                        if (priced) row.cost_per_hour = row.devices * *dev.price_per_hour;
                    };
                    // The Pareto front's candidates: every power-of-two batch that fits, and the
                    // largest, each one replica (with its prefill pool) within the device limit.
                    // The largest batch this mode fits: capacity's, less what a prompt's pass adds
                    // (Serving::memory), found by bisection where that is less.
                    std::int64_t top = *most;
                    std::optional<Serving> at_top = evaluate(top);  // kept: the loop below needs it too
                    if (at_top && !at_top->fits()) {
                        std::int64_t lo = 0, hi = top;  // lo fits (or 0), hi does not
                        std::optional<Serving> at_lo;
                        while (hi - lo > 1) {
                            const std::int64_t mid = lo + (hi - lo) / 2;
                            auto s = evaluate(mid);
                            if (s && s->fits()) lo = mid, at_lo = std::move(s);
                            else hi = mid;
                        }
                        top = lo;
                        at_top = at_lo;
                    }
                    std::vector<std::int64_t> batches = powers_of_two_up_to(top);
                    if (top > 0 && (batches.empty() || batches.back() != top)) batches.push_back(top);
                    for (const std::int64_t b : batches) {
                        const auto s = b == top ? at_top : evaluate(b);
                        if (!s || !s->fits() || (r.ttft_target && s->ttft > *r.ttft_target) || (r.itl_target && s->max_itl > *r.itl_target))
                            continue;
                        PlanRow row{dev.name, par, weights, w.precision.compute, weights_name, mode, 1, *s, 0, {}, {}};
                        whole(row);
                        if (row.devices > static_cast<double>(r.max_devices)) continue;
                        // A point's cost is of its own tokens: the replica full, at its batch.
                        if (priced) row.cost_per_million_tokens = *row.cost_per_hour / (s->tokens_per_s.in(per_s) * 3600) * 1e6;
                        plan_detail::add_to_front(out.pareto, row);
                    }
                    // The fewest replicas: each holds ceil(users / replicas) sequences over its micro-batches.
                    const auto most_replicas = static_cast<std::int64_t>(static_cast<double>(r.max_devices) / per_replica);
                    std::optional<Seconds> row_latency;  // of the last row row_for evaluated that fits
                    const auto row_for = [&](std::int64_t replicas) -> std::optional<PlanRow> {
                        row_latency.reset();
                        const double stages = static_cast<double>(par.pipeline);
                        // The micro-batches `users` fill at `batch` a replica: fewer than the
                        // stages where the users are fewer (no sequence is invented to fill them).
                        const auto flying = [&](double users, std::int64_t batch) {
                            const auto need = static_cast<std::int64_t>(ceil_div(users, static_cast<double>(replicas * batch)));
                            return std::clamp<std::int64_t>(need, 1, par.pipeline);
                        };
                        std::optional<Serving> s;
                        if (r.users) {
                            const auto batch = static_cast<std::int64_t>(ceil_div(*r.users, static_cast<double>(replicas) * stages));
                            if (batch > *most) return std::nullopt;
                            s = evaluate(batch, flying(*r.users, batch));
                            not_memory_alone = not_memory_alone || (s && s->fits());
                        } else {
                            // Little's law, iterated from one sequence until the users stop growing; a
                            // search that has not settled in 64 rounds is not a plan (the replicas are
                            // overloaded, or nearly so). What holds a replica's sequence: a request's
                            // whole turn where its prefill shares the replica; disaggregated, only its
                            // decode, from its KV's arrival to its last token, the pool prefilling it.
                            const bool pooled = mode == ServingMode::disaggregated;
                            const auto held = [&](const Serving& v) {
                                return pooled ? static_cast<double>(r.traffic.output - 1) * v.tpot : v.turn;
                            };
                            std::int64_t batch = 1, in_flight = 1;
                            bool settled = false;
                            for (int i = 0; i < 64 && !settled; ++i) {
                                s = evaluate(batch, in_flight);
                                if (!s) return std::nullopt;
                                const double users = *r.requests_per_s * held(*s).in(ridgeline::s);
                                const auto next = static_cast<std::int64_t>(ceil_div(users, static_cast<double>(replicas) * stages));
                                if (next > *most) {
                                    rate_outgrew = true;
                                    return std::nullopt;
                                }
                                const std::int64_t b = std::max(next, batch), f = std::max(flying(users, b), in_flight);
                                settled = b == batch && f == in_flight;
                                batch = b;
                                in_flight = f;
                            }
                            // The load settled (or never did: overloaded, not out of memory).
                            not_memory_alone = not_memory_alone || !settled || s->fits();
                            rate_outgrew = rate_outgrew || !settled;
                            if (!settled) return std::nullopt;
                            if (pooled) {
                                // An open loop: a decode slot takes the next request whose KV has
                                // arrived, so each replica serves its share of the rate, and its
                                // prefill pool is busy that share x a prefill (a pipelined replica
                                // takes a prompt every stage).
                                serve_requests(*s, per_s(*r.requests_per_s / static_cast<double>(replicas)), r.traffic, par.pipeline);
                            } else if (static_cast<double>(replicas) * s->requests_per_s.in(per_s) < *r.requests_per_s * (1 - 1e-9)) {
                                rate_outgrew = true;
                                return std::nullopt;  // the replicas together do not keep up with the rate
                            }
                        }
                        if (!s) return std::nullopt;
                        PlanRow row{dev.name, par, weights, w.precision.compute, weights_name, mode, replicas, *s, 0, {}, {}};
                        whole(row);
                        row_latency = s->fits() ? std::optional(latency(*s)) : std::nullopt;
                        // The nearest miss of those that hold the users within the limit: the least
                        // overshoot of its worst target (the largest ratio of a figure to its target),
                        // what a verdict of "no plan" says the targets would have to allow (a review
                        // found the fastest token named where TTFT was the target missed); of equally
                        // near ones (more replicas than the users need add nothing), the fewest devices.
                        const auto nearer = [&] {
                            const double mine = overshoot(*s), best = overshoot(closest->serving);
                            if (mine < best * (1 - 1e-9)) return true;
                            return mine <= best * (1 + 1e-9) && row.devices < closest->devices;
                        };
                        if (s->fits() && row.devices <= static_cast<double>(r.max_devices) && (!closest || nearer())) closest = row;
                        if (!meets(*s, r)) return std::nullopt;
                        // The load asked for, not the whole sequences per micro-batch it was rounded
                        // up to: the users' own output a turn, or the requests' output tokens. The
                        // tokens per device and the cost are both of it, so a plan's two columns agree.
                        const double capacity = static_cast<double>(replicas) * s->tokens_per_s.in(per_s);
                        const double output = static_cast<double>(r.traffic.output);
                        const double asked = r.users ? *r.users * output / s->turn.in(ridgeline::s) : *r.requests_per_s * output;
                        const double delivered = std::min(capacity, asked);
                        row.serving.tokens_per_s_per_device = per_s(delivered / row.devices);
                        if (priced) row.cost_per_million_tokens = *row.cost_per_hour / (delivered * 3600) * 1e6;
                        return row;
                    };
                    // More replicas, fewer sequences each, faster steps: feasibility only grows, so
                    // the fewest is found by bisection.
                    if (most_replicas < 1) continue;
                    std::optional<PlanRow> best = row_for(most_replicas);
                    if (!best) {
                        // None meets the targets. For the verdict's fastest token, the fewest
                        // replicas as fast as the most (fewer replicas are never faster: bisection).
                        if (const std::optional<Seconds> fastest = row_latency) {
                            std::int64_t lo = 0, hi = most_replicas;  // lo slower (or 0), hi as fast
                            while (hi - lo > 1) {
                                const std::int64_t mid = lo + (hi - lo) / 2;
                                (void)row_for(mid);
                                if (row_latency && *row_latency <= *fastest * (1 + 1e-9)) hi = mid;
                                else lo = mid;
                            }
                        }
                        continue;
                    }
                    std::int64_t lo = 0, hi = most_replicas;  // lo infeasible (or 0), hi feasible
                    while (hi - lo > 1) {
                        const std::int64_t mid = lo + (hi - lo) / 2;
                        if (auto row = row_for(mid)) {
                            best = row;
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                    }
                    if (best->replicas != hi) best = row_for(hi);
                    // The device limit applies to the fewest replicas that meet the targets.
                    if (best && best->devices <= static_cast<double>(r.max_devices)) out.plans.push_back(*best);
                }
                if (failed && !served) ++refused_all;
            }
            if (storages.size() > 1 && storage_tried > 0 && storage_refused == storage_tried && storage_refusal &&
                storage_refusal->path().ends_with("format"))
                out.notes.push_back(dev.name + ": " + weights_name + " weights not searched: " + storage_refusal->what());
        }
        if (runnable == 0) continue;  // its notes say why
        if (!dev_served && dev_refusal)
            out.notes.push_back(dev.name + ": no plan: " + dev_refusal->what());
        else if (!dev_holds) {
            std::string where = " on one device, and its preset has no link to split over (" + std::string(plan_link_lever) + ")";
            if (linked(dev, r)) {
                const std::int64_t most = most_devices(dev, r);
                where = " within " + std::to_string(most) + " devices";
                // Stopped short of the request's limit by a link that reaches no further: say why.
                if (most < r.max_devices)
                    where += given_link(dev, r) ? " (one server's slots on the link given; no scale-out network past them)"
                                                : " (its scale-up domain: its preset has no scale-out network; " + std::string(plan_link_lever) +
                                                      " to go past it)";
            }
            out.notes.push_back(dev.name + ": no deployment tried holds the model and a request of " + std::to_string(longest) + " tokens" + where);
        }
    }

    if (tried > 0 && refused_all == tried && refused) throw *refused;
    // Nothing tried at all, every storage asked skipped on every device: the weights asked for,
    // not the targets, are why there is no plan.
    if (tried == 0 && !skipped_formats.empty()) {
        std::string formats, why;
        for (const auto& f : skipped_formats) formats += (formats.empty() ? "" : ", ") + f;
        for (const auto& w : skipped_why) why += (why.empty() ? "" : "; ") + w;
        throw error("", "weight formats", formats, "a storage an engine runs on the devices asked (" + why + ")");
    }

    // Cheapest first (or fewest devices), then the faster token, then fewer replicas.
    std::stable_sort(out.plans.begin(), out.plans.end(), [&](const PlanRow& a, const PlanRow& b) {
        if (priced && *a.cost_per_million_tokens != *b.cost_per_million_tokens) return *a.cost_per_million_tokens < *b.cost_per_million_tokens;
        if (a.devices != b.devices) return a.devices < b.devices;
        if (latency(a.serving) != latency(b.serving)) return latency(a.serving) < latency(b.serving);
        return a.replicas < b.replicas;
    });

    // The Pareto front (add_to_front), slowest per user first: no two of its points tie on speed.
    std::sort(out.pareto.begin(), out.pareto.end(), [](const PlanRow& a, const PlanRow& b) {
        return a.serving.tokens_per_s_per_user < b.serving.tokens_per_s_per_user;
    });

    // Which mode wins, and why: the best plan, then each other mode asked for, at its best or none.
    const auto first_of = [&](ServingMode m) -> const PlanRow* {
        for (const auto& row : out.plans)
            if (row.mode == m) return &row;
        return nullptr;
    };
    const auto describe = [&](const PlanRow& row) {
        std::string d = row.device + " x" + number_text(row.devices) + " (TP " + std::to_string(row.parallel.tensor) + ", PP " +
                        std::to_string(row.parallel.pipeline) +
                        (row.parallel.attention_data > 1 ? ", attention DP " + std::to_string(row.parallel.attention_data) : std::string()) +
                        ", " + row.weights_name + "): " +
                        (one_token ? std::string() : "TPOT " + number_text(std::round(row.serving.tpot.in(ms) * 100) / 100) + " ms, ") +
                        // With an ITL target, the figure it bounds too.
                        (one_token || !r.itl_target ? std::string()
                                                    : "max ITL " + number_text(std::round(row.serving.max_itl.in(ms) * 100) / 100) + " ms, ") +
                        "TTFT " + number_text(std::round(row.serving.ttft.in(ms))) + " ms";
        // A TTFT that holds a queue's wait says so (aggregated, prompts bringing more than a chunk a step).
        if (!row.serving.keeps_up) d += " with prompts queueing for chunks";
        // Three decimals, or two significant figures where those would show 0 (a review's 1e-5 an
        // hour), as the table's column shows it.
        if (row.cost_per_million_tokens) {
            const double c = *row.cost_per_million_tokens, rounded = std::round(c * 1000) / 1000;
            char small[32];
            std::snprintf(small, sizeof small, "%.2g", c);
            d += ", " + (rounded == 0 && c > 0 ? std::string(small) : number_text(rounded)) + " per million tokens";
        }
        return d;
    };
    // Why `loser` did worse than `winner`.
    const auto lost = [&latency_name](ServingMode loser, ServingMode winner) -> std::string {
        if (loser == ServingMode::aggregated && winner == ServingMode::disaggregated)
            return " (its steps carry prompts' prefill, so it needs more replicas for the same " + latency_name + ")";
        if (loser == ServingMode::prefill_apart && winner == ServingMode::disaggregated)
            return " (each prompt's prefill stalls its running decodes, so it needs more replicas for the same " + latency_name + ")";
        if (loser == ServingMode::disaggregated && winner == ServingMode::aggregated)
            return " (its prefill pool costs more devices than the prefill its decode steps would carry)";
        if (loser == ServingMode::disaggregated) return " (its prefill pool costs more devices than the decodes' waits for prefill)";
        if (loser == ServingMode::prefill_apart) return " (each prompt's whole prefill stalls every running decode)";
        return "";
    };
    // Why `loser`'s best ranked below the winner where it ties on the first key (cost, or devices
    // without prices): the first later key of the ranking that differs (devices when priced,
    // TPOT, replicas), or none.
    const auto tied_below = [&](const PlanRow& best, const PlanRow& winner) -> std::optional<std::string> {
        const bool same_cost = priced && *best.cost_per_million_tokens == *winner.cost_per_million_tokens;
        const bool same_devices = best.devices == winner.devices;
        if (priced ? !same_cost : !same_devices) return std::nullopt;
        if (priced && !same_devices) return " (as cheap, but on more devices)";
        const std::string as = priced ? " (as cheap on as few devices" : " (as few devices";
        if (latency(best.serving) != latency(winner.serving)) {
            if (one_token) return as + ", but a longer TTFT)";
            switch (best.mode) {
                case ServingMode::aggregated: return as + ", but a longer TPOT: its steps carry prompts' prefill)";
                case ServingMode::prefill_apart:
                    return as + ", but a longer TPOT: each prompt's whole prefill stalls every running decode)";
                case ServingMode::disaggregated: break;
            }
            return as + ", but a longer TPOT)";
        }
        if (best.replicas != winner.replicas) return as + " and as fast, but more replicas)";
        return std::string(" (ties it on ") + (priced ? "cost, " : "") + "devices, " + latency_name + " and replicas; the search met it first)";
    };
    // Why no plan of `mode` met the targets.
    const auto none = [](ServingMode mode) -> std::string {
        switch (mode) {
            case ServingMode::aggregated: return " (the prefill its steps would carry slows them past the targets)";
            case ServingMode::disaggregated: return " (its prefill pool and KV transfer cost devices and TTFT)";
            case ServingMode::prefill_apart: return " (each prompt's whole prefill stalls every running decode past the targets)";
        }
        return "";
    };
    // Without a latency target, what no plan does is fit (the model and one request's KV).
    const bool targets = r.tpot_target || r.ttft_target || r.itl_target;
    const std::string limit = " within " + std::to_string(r.max_devices) + (r.max_devices == 1 ? " device" : " devices");
    const std::string within = (targets ? " plan meets the targets" : " plan fits in memory") + limit;
    if (out.plans.empty()) {
        // With targets, a search where nothing held its load in memory failed on memory first.
        out.verdict = "no" + (targets && not_memory_alone ? within : " plan fits in memory" + limit);
        // A rate no deployment's replicas keep up with, where one sequence fits: the load is why,
        // not memory (a review read "no plan fits in memory" for 100,000 requests a second).
        if (r.requests_per_s && rate_outgrew && !closest)
            out.verdict = "no plan keeps up with " + number_text(*r.requests_per_s) + " requests a second" + limit +
                          ": the users it brings (rate x a request's turn) outgrow what the replicas hold in memory or serve";
        // How it serves: a disaggregated row's devices are its decode replicas and a prefill pool
        // (a review read "x8 (TP 4)" as two replicas where one was and the pool held four).
        if (closest && targets) {
            out.verdict += "; the nearest miss among those that fit: " + describe(*closest) + ", " + mode_name(closest->mode);
            if (closest->mode == ServingMode::disaggregated) {
                const double decode = static_cast<double>(closest->replicas * closest->parallel.replica_devices());
                out.verdict += " (" + number_text(decode) + " decode device" + (decode == 1 ? "" : "s") + ", " +
                               number_text(closest->devices - decode) + " prefilling)";
            }
        }
    } else {
        const PlanRow& win = out.plans.front();
        out.verdict = std::string(mode_name(win.mode)) + " serving wins: " + describe(win);
        if (r.modes.size() == 1) out.verdict += " (the only mode searched)";
        for (std::size_t i = 0; i < r.modes.size(); ++i) {
            const ServingMode m = r.modes[i];
            if (m == win.mode) continue;
            if (const PlanRow* best = first_of(m))
                out.verdict += std::string("; ") + mode_name(m) + " at best " + describe(*best) +
                               tied_below(*best, win).value_or(lost(m, win.mode));
            // By cause: a mode refused wherever it was tried (no prompt, no KV link) says so
            // first, whatever the device limit; then the limit; then the targets.
            else if (!mode_served[i] && mode_refused[i])
                out.verdict += std::string("; no ") + mode_name(m) + " plan: " +
                               naming_own_lever(mode_refused[i]->what(), link_bandwidth_lever, plan_link_lever);
            else if (m == ServingMode::disaggregated && r.max_devices < 2)  // not memory, not the targets: the count
                out.verdict += "; no disaggregated plan: it needs at least 2 devices (a decode replica and a prefill pool), above the " +
                               std::to_string(r.max_devices) + " allowed";
            else
                out.verdict += std::string("; no ") + mode_name(m) + within + none(m);
        }
    }
    return out;
}

}  // namespace ridgeline
