// Hardware presets: ridgeline's own schema. Every key carries its unit as a suffix (GB = 1e9
// bytes, GB_per_s = 1e9 bytes/s, TFLOP_per_s = 1e12 FLOP/s, MiB, us); unknown keys are rejected;
// every figure cites its source in "source".
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <tuple>

#include "family_registry.hpp"
#include "hardware.hpp"
#include "json_node.hpp"

namespace ridgeline {

// ---------------------------------------------------------------------------------------------
// Hardware
// ---------------------------------------------------------------------------------------------

namespace json_detail {
// Keys that every HuggingFace config.json has and no hardware file does.
inline constexpr std::string_view config_json_keys[] = {"hidden_size", "num_hidden_layers", "vocab_size", "architectures"};
}  // namespace json_detail

// Reads ridgeline's hardware schema. `file` only labels errors. Bounds: capacities, bandwidths,
// peaks and memory_reported_MiB in [0.001, 1e9) of their unit; latencies 0 or [0.001, 1e6] us;
// scale_up_domain 1 to 100000.
inline Hardware hardware_from_json(const nlohmann::json& j, const std::string& file = "") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a hardware object");
    // A model's config.json given for a device: said so, by its model_type.
    if (!root.has("memory_bandwidth_GB_per_s") && root.has("model_type"))
        root.at("model_type").fail("no model_type in a hardware file: this is a model's config.json, and a hardware file has name, "
                                   "memory_capacity_GB, memory_bandwidth_GB_per_s and dense_TFLOP_per_s");
    // A config.json that lost its model_type lands here when a caller guesses by that key.
    if (!root.has("memory_bandwidth_GB_per_s"))
        for (auto key : json_detail::config_json_keys)
            if (root.has(std::string(key)))
                throw error(root.file(), "/model_type", "nothing (the key is missing)",
                            "one of: " + json_detail::family_list() + " (the file has " + std::string(key) +
                                ", so it is a model's config.json, not a hardware file)");
    root.only_keys({"name", "memory_capacity_GB", "memory_bandwidth_GB_per_s", "dense_TFLOP_per_s",
                    "interconnect_GB_per_s", "memory_reported_MiB", "scale_up_domain", "scale_up_topology", "scale_up_latency_us",
                    "scale_out_GB_per_s", "scale_out_latency_us", "measured_bandwidth_GB_per_s", "cuda_compute_capability", "source"});

    Hardware hw;
    hw.name = Name{root.need("name", "a non-empty string of at most 63 characters").name()};
    hw.memory_capacity = GB(root.need("memory_capacity_GB", json_detail::figure_range).figure());
    hw.memory_bandwidth = GB_per_s(root.need("memory_bandwidth_GB_per_s", json_detail::figure_range).figure());

    const Node peaks = root.need("dense_TFLOP_per_s", "an object of dense peaks, e.g. {\"bf16\": 989}");
    peaks.require_object("an object of dense peaks, e.g. {\"bf16\": 989}");
    if (peaks.value().empty()) peaks.fail("at least one format's dense peak");
    for (const auto& item : peaks.value().items()) {
        const auto numeric = numeric_from_name(item.key());
        if (!numeric) throw error(root.file(), "/dense_TFLOP_per_s/" + json_detail::pointer_token(item.key()), "an unknown format",
                                  "one of: fp32, bf16, fp16, fp8, int8, int4, fp4");
        hw.with_peak(*numeric, TFLOP_per_s(peaks.at(item.key()).figure()));
    }
    if (root.has("interconnect_GB_per_s"))
        hw.interconnect_bandwidth = GB_per_s(root.at("interconnect_GB_per_s").figure());
    if (root.has("memory_reported_MiB")) {
        // A device reports no more than it holds: a datasheet's "80 GB" is 80 GiB of DRAM (an
        // A100 80GB reports 81,920 MiB, an H100 81,559), so the report is at most 1,024 MiB a GB.
        hw.memory_reported = MiB(root.at("memory_reported_MiB").figure());
        const double most = 1024 * hw.memory_capacity.in(GB);
        if (hw.memory_reported->in(MiB) > most)
            root.at("memory_reported_MiB").fail("at most memory_capacity_GB read as GiB (" + number_text(most) + " MiB)");
        // Nor much less: GDDR with ECC on keeps back 1/16 (an L40S's 48 GB reports 46,068 MiB).
        const double least = std::ceil(0.9 * hw.memory_capacity.in(GB) * 1e9 / 1048576);
        if (hw.memory_reported->in(MiB) < least)
            root.at("memory_reported_MiB").fail("at least 0.9 of memory_capacity_GB (" + number_text(least) + " MiB): a device reports nearly all it holds");
    }
    if (root.has("scale_up_domain")) {
        const Node domain = root.at("scale_up_domain");
        hw.scale_up_domain = domain.positive_integer();
        if (hw.scale_up_domain > 100000) domain.fail("a positive integer of at most 100000 devices");
    }
    if (root.has("scale_up_topology")) {
        const Node topology = root.at("scale_up_topology");
        const char* expected = "\"switch\" (any group gets the whole link) or \"mesh\" (each pair of the domain joined directly)";
        const std::string t = topology.string(expected);
        if (t != "switch" && t != "mesh") topology.fail(expected);
        if (t == "mesh" && !root.has("interconnect_GB_per_s"))
            topology.fail("\"switch\" or no topology: a mesh splits interconnect_GB_per_s, which the file does not give");
        if (t == "mesh" && hw.scale_up_domain < 2)
            topology.fail("\"switch\" or no topology: a mesh joins a scale_up_domain of 2 or more devices (the file gives " +
                          std::to_string(hw.scale_up_domain) + ")");
        hw.scale_up_mesh = t == "mesh";
    }
    // A link with no domain would join nothing: a split past one device would then go over the
    // scale-out network, silently ignoring the figure. The file says how many devices it joins.
    if (root.has("interconnect_GB_per_s") && !root.has("scale_up_domain"))
        (void)root.need("scale_up_domain", "the number of devices interconnect_GB_per_s joins, 1 to 100000 (8 on an HGX H100 board, "
                                           "72 in a GB200 NVL72)");
    if (root.has("scale_up_latency_us")) hw.scale_up_latency = us(root.at("scale_up_latency_us").latency_us());
    if (root.has("scale_out_GB_per_s")) hw.scale_out_bandwidth = GB_per_s(root.at("scale_out_GB_per_s").figure());
    if (root.has("scale_out_latency_us")) hw.scale_out_latency = us(root.at("scale_out_latency_us").latency_us());
    if (root.has("measured_bandwidth_GB_per_s")) {
        const Node measured = root.at("measured_bandwidth_GB_per_s");
        hw.measured_bandwidth = GB_per_s(measured.figure());
        if (*hw.measured_bandwidth > hw.memory_bandwidth)
            measured.fail("a measured bandwidth at most the peak memory_bandwidth_GB_per_s (" +
                          number_text(hw.memory_bandwidth.in(GB_per_s)) + ")");
    }
    if (root.has("cuda_compute_capability")) {
        const Node cc = root.at("cuda_compute_capability");
        const char* expected = "a CUDA compute capability from 1 to 20, e.g. 8.0 for an A100";
        if (!cc.value().is_number()) cc.fail(expected);
        const double v = cc.value().get<double>();
        if (!(v >= 1 && v <= 20)) cc.fail(expected);
        hw.cuda_capability = v;
    }

    if (root.has("source")) {
        const Node src = root.at("source");
        src.require_object("an object mapping each figure's key to where it came from");
        for (const auto& item : src.value().items()) {
            const auto& keys = json_detail::hardware_figure_keys;
            if (std::find(std::begin(keys), std::end(keys), item.key()) == std::end(keys) && item.key() != "name")
                throw error(root.file(), "/source/" + json_detail::pointer_token(item.key()), "an unknown key",
                            "a figure's key: name, memory_capacity_GB, memory_bandwidth_GB_per_s, "
                            "dense_TFLOP_per_s, interconnect_GB_per_s, memory_reported_MiB, scale_up_domain, scale_up_topology, "
                            "scale_up_latency_us, scale_out_GB_per_s, scale_out_latency_us, measured_bandwidth_GB_per_s, "
                            "cuda_compute_capability");
            if (!root.has(item.key()))
                throw error(root.file(), "/source/" + item.key(), "a source for a figure the file does not give",
                            "sources only for figures present");
            (void)src.at(item.key()).string("a non-empty string saying where the figure came from");
        }
    }
    return hw;
}

inline void to_json(nlohmann::json& j, const Hardware& hw) {
    j = nlohmann::json::object();
    j["name"] = std::string(hw.name.view());
    j["memory_capacity_GB"] = hw.memory_capacity.in(GB);
    j["memory_bandwidth_GB_per_s"] = hw.memory_bandwidth.in(GB_per_s);
    nlohmann::json peaks = nlohmann::json::object();
    for (Numeric n : all_numerics)
        if (auto p = hw.peak_for(n)) peaks[std::string(name_of(n))] = p->in(TFLOP_per_s);
    j["dense_TFLOP_per_s"] = peaks;
    if (hw.interconnect_bandwidth) j["interconnect_GB_per_s"] = hw.interconnect_bandwidth->in(GB_per_s);
    if (hw.memory_reported) j["memory_reported_MiB"] = hw.memory_reported->in(MiB);
    if (hw.scale_up_domain != 1) j["scale_up_domain"] = hw.scale_up_domain;
    if (hw.scale_up_mesh) j["scale_up_topology"] = "mesh";
    if (hw.scale_up_latency) j["scale_up_latency_us"] = hw.scale_up_latency->in(us);
    if (hw.scale_out_bandwidth) j["scale_out_GB_per_s"] = hw.scale_out_bandwidth->in(GB_per_s);
    if (hw.scale_out_latency) j["scale_out_latency_us"] = hw.scale_out_latency->in(us);
    if (hw.measured_bandwidth) j["measured_bandwidth_GB_per_s"] = hw.measured_bandwidth->in(GB_per_s);
    if (hw.cuda_capability) j["cuda_compute_capability"] = *hw.cuda_capability;
}

inline void from_json(const nlohmann::json& j, Hardware& hw) { hw = hardware_from_json(j); }

}  // namespace ridgeline
