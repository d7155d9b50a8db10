// A deployment: which device, how many, and how the model is split over them. Every answer
// reads one, so what a device holds (capacity) and what it reads (step time) come from the same
// plan. A Hardware converts to a one-device deployment, so single-device calls read as before.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

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
    // A ring over the scale-out network still runs most of its steps inside a scale-up domain:
    // how many domains the group spans, and what such a step costs (ring_all_reduce).
    std::int64_t domains = 1;
    Seconds within_latency{};
    // On a mesh's scale-up link: the direct links to peers the traffic uses, of the peers' all
    // (0 of 0: a switch, or another link, the whole of it).
    std::int64_t mesh_links = 0, mesh_peers = 0;
    const char* latency_from = "none";  // "deployment", "hardware preset", "assumptions"
    const char* bandwidth_from = "none";  // "deployment", "hardware preset"

    // One message of `b` bytes.
    [[nodiscard]] constexpr Seconds send(Bytes b) const { return latency + b / one_way; }
};

// The lever a missing link's errors name, in the library's words; a front end names its own
// (--link-gb-per-s, link_bandwidth_bytes_per_s=, the page's field) with naming_own_lever.
inline constexpr std::string_view link_bandwidth_lever = "set it on the deployment: Parallelism::link_bandwidth";

// A split no link joins: the preset lacks the figure and the deployment gives none. Its own type,
// so a caller that tries larger splits (diagnose) can stop at the first one without a link.
class missing_link : public error {
public:
    missing_link(std::string path, std::string expected, bool scale_out)
        : error("", std::move(path), "none", std::move(expected)), scale_out_(scale_out) {}
    // Which figure: scale_out_GB_per_s (a group past the scale-up domain), else interconnect_GB_per_s.
    [[nodiscard]] bool scale_out() const noexcept { return scale_out_; }

private:
    bool scale_out_;
};

namespace deployment_detail {
// A link figure the preset lacks (`field`) and the deployment does not give, for `what`.
[[noreturn]] inline void no_link(const Hardware& hw, const char* field, const std::string& what) {
    throw missing_link("hardware '" + std::string(hw.name.view()) + "' " + field,
                       "the figure in the preset (or " + std::string(link_bandwidth_lever) + ") for " + what,
                       std::string_view(field) == "scale_out_GB_per_s");
}
}  // namespace deployment_detail

// The network proxy's launch cost per step of a ring that crosses nodes, which NCCL charges even
// the steps inside a node: getNetOverhead(), 1 us on x86 Intel hosts and others, LL protocol
// (NVIDIA/nccl@b6475625, v2.20.3, src/graph/tuning.cc). AMD hosts get 2 us there (most MI300X
// servers'); the host is not in the presets, so their rings are charged Intel's.
inline constexpr Seconds ring_step_net_overhead = us(1.0);

// The link a group of `group` devices crosses. A link the deployment gives fills the one its
// preset lacks: a card with no scale-up link (a PCIe card) joins any group over it; a device with
// one keeps it within its scale-up domain and crosses the scale-out network past it, the preset's
// or else the one given. Latency: the deployment's, else the preset's for that link, else the
// assumptions' fallback (the preset's scale-out latency stands for its own network).
// `needs` says what a missing link would have carried, for the error.
constexpr Link link_for_group(const Deployment& d, const Assumptions& a, std::int64_t group,
                              std::string_view needs = "a split over several devices") {
    const Hardware& hw = d.device;
    const std::optional<BytesPerSecond>& given = d.parallel.link_bandwidth;
    Link l;
    const auto latency = [&](const std::optional<Seconds>& preset) {
        if (d.parallel.link_latency) {
            l.latency = *d.parallel.link_latency;
            l.latency_from = "deployment";
        } else if (preset) {
            l.latency = *preset;
            l.latency_from = "hardware preset";
        } else {
            l.latency = a.fallback_link_latency;
            l.latency_from = "assumptions";
        }
    };
    if (!hw.interconnect_bandwidth) {
        if (!given) deployment_detail::no_link(hw, "interconnect_GB_per_s", std::string(needs));
        l.one_way = *given / 2.0;
        l.bandwidth_from = "deployment";
        latency(hw.scale_up_latency);
        return l;
    }
    if (group <= hw.scale_up_domain) {
        l.one_way = *hw.interconnect_bandwidth / 2.0;
        l.bandwidth_from = "hardware preset";
        latency(hw.scale_up_latency);
        // A mesh gives a group only the direct links among its devices (a collective's rings run
        // over all of them at once): an MI300X pair gets one of its seven.
        if (hw.scale_up_mesh && hw.scale_up_domain > 1) {
            l.mesh_peers = hw.scale_up_domain - 1;
            l.mesh_links = group > 1 ? group - 1 : 1;
            l.one_way = l.one_way * (static_cast<double>(l.mesh_links) / static_cast<double>(l.mesh_peers));
        }
        return l;
    }
    l.scale_out = true;
    l.domains = (group + hw.scale_up_domain - 1) / hw.scale_up_domain;
    // A step inside a domain of a ring that leaves it: the domain's link latency, but no less than
    // the network proxy's launch per step (NCCL's model: intraLat = max(intraLat, netOverhead)),
    // and no more than a step that crosses the network (where that is charged less, as the seeds'
    // assumptions charge an unknown network nothing).
    latency(hw.scale_up_latency);
    const Seconds inside = d.parallel.link_latency || ring_step_net_overhead < l.latency ? l.latency : ring_step_net_overhead;
    const auto within_crossing = [&] { l.within_latency = inside < l.latency ? inside : l.latency; };
    if (hw.scale_out_bandwidth) {
        l.one_way = *hw.scale_out_bandwidth / 2.0;
        l.bandwidth_from = "hardware preset";
        if (!d.parallel.link_latency) {
            l.latency = hw.scale_out_latency ? *hw.scale_out_latency : a.fallback_link_latency;
            l.latency_from = hw.scale_out_latency ? "hardware preset" : "assumptions";
        }
        within_crossing();
        return l;
    }
    if (!given)
        deployment_detail::no_link(hw, "scale_out_GB_per_s", "a group of " + std::to_string(group) + " devices, past its scale-up domain of " +
                                                                  std::to_string(hw.scale_up_domain));
    l.one_way = *given / 2.0;
    l.bandwidth_from = "deployment";
    latency(std::nullopt);
    within_crossing();
    return l;
}

// The link one device's send to one other of a group of `group` crosses (a pipeline's hop, a
// prompt's KV to its decode device): link_for_group's, but on a mesh only the one direct link.
constexpr Link link_for_pair(const Deployment& d, const Assumptions& a, std::int64_t group,
                             std::string_view needs = "a split over several devices") {
    Link l = link_for_group(d, a, group, needs);
    if (l.mesh_links > 1) {
        l.one_way = l.one_way / static_cast<double>(l.mesh_links);
        l.mesh_links = 1;
    }
    return l;
}

// Refuses a split the model cannot take: tensor parallelism (each attention data-parallel
// rank's) past the heads (or not dividing the KV heads), more pipeline stages than layers, more expert groups than experts or not dividing
// them.
constexpr void validate(const Deployment& d, const Model& m) {
    validate(d.device);
    validate(d.parallel);
    validate(m);  // first, so that a model without layers is named as such, not by the pipeline degree
    const auto refuse = [&m](const char* what, std::int64_t v, const std::string& expected) {
        throw error("", what, std::to_string(v), expected + " of model '" + std::string(m.name.view()) + "'");
    };
    for (const auto& g : m) {
        // Under attention data parallelism each rank splits the heads over its own devices.
        const std::int64_t t = d.parallel.attention_tensor();
        if (!std::visit([t](const auto& a) { return a.splits_over(t); }, g.spec.attention)) {
            const auto need = [&] { return std::visit([t](const auto& a) { return a.split_requirement(t); }, g.spec.attention); };
            if (d.parallel.attention_data == 1) refuse("tensor-parallel degree", t, need());
            throw error("", "tensor-parallel degree / attention data-parallel degree",
                        std::to_string(d.parallel.tensor) + " / " + std::to_string(d.parallel.attention_data) + " = " + std::to_string(t),
                        need() + " of model '" + std::string(m.name.view()) + "'");
        }
        const std::int64_t experts = routed_experts(g.spec, 1.0).experts;
        if (experts > 0 && experts % d.parallel.expert != 0)
            refuse("expert-parallel degree", d.parallel.expert, "a divisor of the routed experts (" + std::to_string(experts) + ")");
    }
    if (d.parallel.expert > 1 && !has_routed_experts(m))
        refuse("expert-parallel degree", d.parallel.expert, "1: there are no routed experts");
    if (d.parallel.pipeline > layer_count(m))
        refuse("pipeline-parallel degree", d.parallel.pipeline,
               "at most the layers (" + std::to_string(layer_count(m)) + ")");
    // A split no link joins is refused by every answer, not only those that cost its links.
    if (const std::int64_t group = d.parallel.replica_devices(); group > 1) (void)link_for_group(d, assumptions::physical, group);
}

}  // namespace ridgeline
