// `ridgeline plan`'s flags as typed, and the PlanRequest they make: one reading shared by the CLI
// and the page's plan tab, so both refuse the same input with the same words, in the same order.
// Every flag is checked before any file is read, so a typo is a usage error (exit 2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ridgeline/json.hpp>
#include <ridgeline/plan.hpp>

#include "args.hpp"

namespace cli {

struct PlanArgs {
    std::string hardware;  // empty: every hardware preset
    std::string model;
    std::string prompt = "1024", output = "256", cached = "0", chunk = "2048";
    std::optional<std::string> users, rate, tpot_ms, ttft_ms, price, svg;
    std::string max_devices = "64", weights = "bf16,fp8", mode = "both", show = "plans", top = "20";
    std::string kv = "bf16", compute = "bf16", efficiency = "1", overhead_us = "0";
    std::optional<std::string> memory_fraction, reserve_gib, link_latency_us;
    std::string format = "table";
};

// What the flags ask for: the request, how many rows to show, and what the output says of them.
struct PlanSetting {
    ridgeline::PlanRequest request;
    std::int64_t top = 20;
    bool priced = false;      // some device has a price
    std::string model_notes;  // how the model's file was read, when that needs saying
};

inline PlanSetting plan_setting(const PlanArgs& a) {
    using namespace ridgeline;
    PlanSetting out;
    PlanRequest& r = out.request;
    r.traffic.prompt = parse_integer_option("--prompt", a.prompt, 0, 100'000'000);
    r.traffic.output = parse_integer_option("--output", a.output, 1, 100'000'000);
    r.traffic.cached_prompt = parse_integer_option("--cached-prompt", a.cached, 0, 100'000'000);
    if (r.traffic.cached_prompt > r.traffic.prompt) bad_value("--cached-prompt", a.cached, "at most --prompt (" + a.prompt + ")");
    r.traffic.prefill_chunk = parse_integer_option("--chunk", a.chunk, 1, 100'000'000);
    if (a.users.has_value() == a.rate.has_value()) throw usage_error("plan: give exactly one of --users and --rate");
    if (a.users) r.users = static_cast<double>(parse_integer_option("--users", *a.users, 1, 1'000'000'000));
    if (a.rate) r.requests_per_s = parse_number("--rate", *a.rate, 1e-6, 1e9, "requests per second from 1e-6 to 1e9");
    if (a.tpot_ms) r.tpot_target = ms(parse_number("--tpot-ms", *a.tpot_ms, 1e-3, 1e9, "a time in ms from 0.001 to 1e9"));
    if (a.ttft_ms) r.ttft_target = ms(parse_number("--ttft-ms", *a.ttft_ms, 1e-3, 1e9, "a time in ms from 0.001 to 1e9"));
    r.max_devices = parse_integer_option("--max-devices", a.max_devices, 1, 65536);
    out.top = parse_integer_option("--top", a.top, 1, 1'000'000);
    r.weights.clear();
    for (const auto& f : split_commas(a.weights)) r.weights.push_back(parse_format_option("--weights", f));
    if (a.mode == "agg") r.modes = {ServingMode::aggregated};
    else if (a.mode == "disagg") r.modes = {ServingMode::disaggregated};
    else if (a.mode != "both") bad_value("--mode", a.mode, "agg, disagg or both");
    Workload& w = r.base;
    w.precision.kv = parse_format_option("--kv", a.kv);
    w.precision.compute = parse_numeric_option("--compute", a.compute);
    w.efficiency.bandwidth = parse_number("--efficiency", a.efficiency, 1e-6, 1.0, "a fraction in [1e-6, 1]");
    w.efficiency.overhead = us(parse_number("--overhead-us", a.overhead_us, 1e-6, 1e9, "a time in microseconds: 0, or from 1e-6 to 1e9", true));
    if (a.memory_fraction)
        w.assumptions.memory_fraction = parse_number("--memory-fraction", *a.memory_fraction, 1e-6, 1.0, "a fraction in [1e-6, 1]");
    if (a.reserve_gib)
        w.assumptions.runtime_reserve = GiB(parse_number("--reserve-gib", *a.reserve_gib, 1e-6, 9e5, "a size in GiB: 0, or from 1e-6 to 900000", true));
    if (a.link_latency_us)
        r.links.link_latency = us(parse_number("--link-latency-us", *a.link_latency_us, 1e-6, 1e6, "a time in microseconds: 0, or from 1e-6 to 1e6", true));
    // Prices: "h100-sxm=2.50,h200=3.50", each naming a device of -H.
    std::vector<std::pair<std::string, double>> prices;
    if (a.price)
        for (const auto& item : split_commas(*a.price)) {
            const std::size_t eq = item.find('=');
            if (eq == std::string::npos || eq == 0)
                bad_value("--price", *a.price, "DEVICE=PRICE pairs separated by commas, e.g. h100-sxm=2.50,h200=3.50");
            prices.emplace_back(item.substr(0, eq), parse_number("--price", item.substr(eq + 1), 1e-9, 1e9, "a price per device-hour from 1e-9 to 1e9"));
        }
    out.priced = !prices.empty();
    const std::vector<std::string> names = a.hardware.empty() ? list_presets(PresetKind::hardware) : split_commas(a.hardware);
    for (const auto& [name, price] : prices)
        if (std::find(names.begin(), names.end(), name) == names.end())
            bad_value("--price", *a.price, "prices only for devices of -H (" + a.hardware + "); " + name + " is not one");
    for (const auto& name : names) {
        std::optional<double> price;
        for (const auto& [n, p] : prices)
            if (n == name) price = p;
        r.devices.push_back({name, load_hardware(name), price});
    }
    LoadedModel loaded = load_model_with_formats(a.model);
    r.model = loaded.model;
    out.model_notes = std::move(loaded.notes);
    return out;
}

// The Pareto picture's title, as `plan --svg` and the page draw it.
inline std::string pareto_title(const ridgeline::Model& m) {
    return std::string(m.name.view()) + ": tokens/s per device against per user";
}

}  // namespace cli
