// A deployment: which device, how many, and how the model is split over them. Every answer
// reads one, so what a device holds (capacity) and what it reads (step time) come from the same
// plan. A Hardware converts to a one-device deployment, so single-device calls read as before.
#pragma once

#include <cstdint>
#include <string>

#include "error.hpp"
#include "hardware.hpp"
#include "model.hpp"
#include "units.hpp"
#include "workload.hpp"

namespace ridgeline {

struct Deployment {
    Hardware device{};
    Parallelism parallel{};

    constexpr Deployment() = default;
    constexpr Deployment(const Hardware& hw, const Parallelism& p = {}) : device(hw), parallel(p) {}  // NOLINT: implicit on purpose

    [[nodiscard]] constexpr std::int64_t devices() const noexcept { return parallel.devices(); }
    friend constexpr bool operator==(const Deployment&, const Deployment&) = default;
};

// One link as a transfer sees it: bandwidth one way, latency per message, and which network.
struct Link {
    BytesPerSecond one_way{};
    Seconds latency{};
    bool scale_out = false;
    const char* latency_from = "none";  // "deployment", "hardware preset", "assumptions"
    const char* bandwidth_from = "none";  // "deployment", "hardware preset"

    // One message of `b` bytes.
    [[nodiscard]] constexpr Seconds send(Bytes b) const { return latency + b / one_way; }
};

// The lever a missing link's errors name, in the library's words; a front end names its own
// (--link-gb-per-s, link_bandwidth_bytes_per_s=, the page's field) with naming_own_lever.
inline constexpr std::string_view link_bandwidth_lever = "set it on the deployment: Parallelism::link_bandwidth";

namespace deployment_detail {
[[noreturn]] inline void no_link(const Hardware& hw, const char* what) {
    throw error("", "hardware '" + std::string(hw.name.view()) + "' " + what, "none",
                "the figure in the preset (or " + std::string(link_bandwidth_lever) + ") for a split over several devices");
}
}  // namespace deployment_detail

// The link a group of `group` devices crosses: the scale-up link while the group fits in one
// scale-up domain, else the scale-out network, whose bandwidth and latency then bound a ring
// through the group. Past the domain with no scale-out figure, only a link the deployment gives
// joins the group: the scale-up link does not reach there.
constexpr Link link_for_group(const Deployment& d, const Assumptions& a, std::int64_t group) {
    const Hardware& hw = d.device;
    Link l;
    const bool past_domain = group > hw.scale_up_domain;
    if (past_domain && hw.scale_out_bandwidth) {
        l.scale_out = true;
        l.one_way = *hw.scale_out_bandwidth / 2.0;
        l.bandwidth_from = "hardware preset";
        l.latency = hw.scale_out_latency ? *hw.scale_out_latency : a.fallback_link_latency;
        l.latency_from = hw.scale_out_latency ? "hardware preset" : "assumptions";
        return l;
    }
    const auto bw = d.parallel.link_bandwidth ? d.parallel.link_bandwidth : hw.interconnect_bandwidth;
    if (!bw) deployment_detail::no_link(hw, "interconnect_GB_per_s");
    if (past_domain && !d.parallel.link_bandwidth)
        throw error("", "hardware '" + std::string(hw.name.view()) + "' scale_out_GB_per_s", "none",
                    "the figure in the preset (or " + std::string(link_bandwidth_lever) + ") for a group of " +
                        std::to_string(group) + " devices, past its scale-up domain of " + std::to_string(hw.scale_up_domain));
    l.one_way = *bw / 2.0;
    l.bandwidth_from = d.parallel.link_bandwidth ? "deployment" : "hardware preset";
    if (d.parallel.link_latency) {
        l.latency = *d.parallel.link_latency;
        l.latency_from = "deployment";
    } else if (hw.scale_up_latency) {
        l.latency = *hw.scale_up_latency;
        l.latency_from = "hardware preset";
    } else {
        l.latency = a.fallback_link_latency;
        l.latency_from = "assumptions";
    }
    return l;
}

// Refuses a split the model cannot take: tensor parallelism past the heads (or not dividing the
// KV heads), more pipeline stages than layers, more expert groups than experts or not dividing
// them.
constexpr void validate(const Deployment& d, const Model& m) {
    validate(d.device);
    validate(d.parallel);
    const auto refuse = [&m](const char* what, std::int64_t v, const std::string& expected) {
        throw error("", what, std::to_string(v), expected + " of model '" + std::string(m.name.view()) + "'");
    };
    for (const auto& g : m) {
        const std::int64_t t = d.parallel.tensor;
        if (!std::visit([t](const auto& a) { return a.splits_over(t); }, g.spec.attention))
            refuse("tensor-parallel degree", t, std::visit([t](const auto& a) { return a.split_requirement(t); }, g.spec.attention));
        const std::int64_t experts = routed_experts(g.spec, 1.0).experts;
        if (experts > 0 && experts % d.parallel.expert != 0)
            refuse("expert-parallel degree", d.parallel.expert, "a divisor of the routed experts (" + std::to_string(experts) + ")");
    }
    if (d.parallel.expert > 1 && !has_routed_experts(m))
        refuse("expert-parallel degree", d.parallel.expert, "1: there are no routed experts");
    if (d.parallel.pipeline > layer_count(m))
        refuse("pipeline-parallel degree", d.parallel.pipeline,
               "at most the layers (" + std::to_string(layer_count(m)) + ")");
}

}  // namespace ridgeline
