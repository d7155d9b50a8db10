// `ridgeline plan`'s options, typed, and the PlanRequest they make: one reading shared by the CLI
// and the page's plan tab, so both refuse the same input with the same words, in the same order.
// Every flag is read before any file is, so a typo is a usage error (exit 2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <ridgeline/efficiency_json.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/plan.hpp>

#include "args.hpp"
#include "fitted_rows.hpp"

namespace cli {

// `ridgeline plan`'s options, typed. Each flag's text is read once, by its reader in plan_flags().
struct PlanOptions {
    std::vector<std::string> hardware;  // empty: every hardware preset
    std::string hardware_text;          // -H as typed, for errors that quote it
    std::string model;
    std::int64_t prompt = 1024, output = 256, cached = 0, chunk = 2048;
    std::string cached_text = "0";  // --cached-prompt as typed
    std::optional<std::int64_t> users;
    std::optional<double> rate;
    std::optional<ridgeline::Seconds> tpot, ttft, itl;
    std::vector<std::pair<std::string, double>> prices;  // DEVICE=PRICE, in the order given
    std::string price_text;                              // --price as typed
    std::int64_t max_devices = 64, top = 20;
    bool checkpoint = true;  // "checkpoint" in --weights: the model's own formats
    std::vector<ridgeline::Format> weights{ridgeline::formats::fp8};
    std::vector<ridgeline::ServingMode> modes{ridgeline::ServingMode::aggregated, ridgeline::ServingMode::disaggregated};
    bool pareto = false;  // --show pareto: the front, not the feasible plans
    ridgeline::Format kv = ridgeline::formats::bf16;
    std::optional<ridgeline::Numeric> compute;  // unset: plan_detail::unasked_compute (fp8 storage in fp8 where the device has it, else bf16, fp16 on a V100)
    double efficiency = 1, compute_efficiency = 1;
    ridgeline::Seconds overhead{};
    bool times_given = false;                 // --efficiency, --compute-efficiency or --overhead-us
    std::vector<std::string> calibrations;    // --calibration: efficiency presets, one a device
    std::string calibration_text;
    std::optional<double> memory_fraction;
    std::optional<ridgeline::Bytes> reserve;
    std::optional<ridgeline::Seconds> link_latency;
    std::optional<ridgeline::BytesPerSecond> link_bandwidth;
    std::optional<std::int64_t> max_context;
    std::optional<std::string> svg;
    Output format = Output::table;
};

// One flag of `ridgeline plan`: its CLI11 names, the key the page sends it under (empty: not on
// the page), its help, and how its text becomes its typed value. The CLI registers these in this
// order and the page reads its fields in this order, so both give the same first error.
struct PlanFlag {
    const char* names;
    const char* page_key;
    const char* help;
    void (*read)(PlanOptions&, const std::string& flag, const std::string& text);
};

inline const std::vector<PlanFlag>& plan_flags() {
    using namespace ridgeline;
    static const std::vector<PlanFlag> flags{
        {"--model,-m", "model", "Model preset name, or a path to a config.json or checkpoint directory",
         [](PlanOptions& o, const std::string&, const std::string& t) { o.model = t; }},
        {"--hardware,-H", "hardware", "Candidate devices: h100-sxm,h200 (omitted or empty: every hardware preset, or with --calibration its devices)",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             o.hardware_text = t;
             o.hardware = t.empty() ? std::vector<std::string>{} : split_commas(f, t);
             refuse_same_file(f, t, o.hardware, ridgeline::PresetKind::hardware);
         }},
        {"--prompt", "prompt", "Prompt tokens per request, the context it starts from (default 1024)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.prompt = parse_integer_option(f, t, 0, 100'000'000); }},
        {"--output", "output", "Output tokens per request (default 256)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.output = parse_integer_option(f, t, 1, 100'000'000); }},
        {"--cached-prompt", "cached", "Of the prompt, tokens already cached from an earlier turn (default 0)",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             o.cached = parse_integer_option(f, t, 0, 100'000'000);
             o.cached_text = t;
         }},
        {"--chunk", "chunk", "Aggregated: prompt tokens a step carries at most (default 2048)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.chunk = parse_integer_option(f, t, 1, 100'000'000); }},
        {"--users", "users", "Concurrent users (sequences)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.users = parse_integer_option(f, t, 1, 1'000'000'000); }},
        {"--rate", "rate", "Requests per second (instead of --users)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.rate = parse_number(f, t, 1e-6, 1e9, "requests per second from 1e-6 to 1e9"); }},
        {"--tpot-ms", "tpot_ms", "Time-per-output-token target, ms",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.tpot = ms(parse_number(f, t, 1e-3, 1e9, "a time in ms from 0.001 to 1e9")); }},
        {"--itl-ms", "itl_ms", "Inter-token latency target, ms: on the longest wait between two of a user's tokens (TPOT is their mean)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.itl = ms(parse_number(f, t, 1e-3, 1e9, "a time in ms from 0.001 to 1e9")); }},
        {"--ttft-ms", "ttft_ms", "Time-to-first-token target, ms",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.ttft = ms(parse_number(f, t, 1e-3, 1e9, "a time in ms from 0.001 to 1e9")); }},
        {"--max-devices", "max_devices", "Most devices a plan may use (default 64)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.max_devices = parse_integer_option(f, t, 1, 65536); }},
        {"--top", "top", "Rows shown (default 20)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.top = parse_integer_option(f, t, 1, 1'000'000); }},
        {"--weights", "weights",
         "Weight storage to try: checkpoint (the model's own formats, e.g. gpt-oss's MXFP4 experts beside BF16) or a format for "
         "the linear layers and experts, the embeddings and LM head kept as the checkpoint stores them (default checkpoint,fp8)",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             o.weights.clear();
             o.checkpoint = false;
             for (const auto& piece : split_commas(f, t)) {
                 if (piece == "checkpoint") {
                     o.checkpoint = true;
                 } else {
                     const auto format = ridgeline::parse_format(piece);
                     if (!format)
                         bad_value(f, piece, "checkpoint (the model's own formats) or a format: fp32, bf16, fp16, fp8, int8, int4, fp4, "
                                             "mxfp4, nvfp4, or a grouped one such as int4/g128");
                     o.weights.push_back(*format);
                 }
             }
         }},
        {"--mode", "mode",
         "Serving modes, comma-separated: agg (prefill rides the decode steps), apart (prefill in passes of its own: "
         "vLLM V0, SGLang without mixed chunks), disagg, or both (agg,disagg; the default)",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             const auto modes = serving_modes_from(t);
             if (!modes) bad_value(f, t, "agg, apart, disagg or both, comma-separated");
             refuse_repeats(f, t, split_commas(f, t));
             o.modes = *modes;
         }},
        {"--kv", "kv", "KV-cache format (default bf16)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.kv = parse_format_option(f, t); }},
        {"--compute", "compute", "Compute format (default: fp8 for fp8-stored weights on a device with an fp8 peak, as vLLM serves them; else bf16, or fp16 on a device without a bf16 peak)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.compute = parse_numeric_option(f, t); }},
        {"--efficiency", "efficiency", "Fraction of peak bandwidth achieved (default 1: the ceiling)",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             o.efficiency = parse_fraction(f, t);
             o.times_given = true;
         }},
        {"--compute-efficiency", "compute_efficiency",
         "Fraction of peak FLOPs achieved, prefill's and decode's (default 1: the ceiling; a prefill engine reaches 0.4-0.6)",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             o.compute_efficiency = parse_fraction(f, t);
             o.times_given = true;
         }},
        {"--overhead-us", "overhead_us", "Fixed time per step in microseconds (default 0)",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             o.overhead = parse_overhead(f, t);
             o.times_given = true;
         }},
        {"--calibration", "calibration",
         "Engine-and-device calibrations (ridgeline list efficiency, or files), comma-separated, one for each device: each "
         "device's times take its terms in place of --efficiency, --compute-efficiency and --overhead-us (-H omitted: their devices)",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             o.calibration_text = t;
             o.calibrations = split_commas(f, t);
             refuse_same_file(f, t, o.calibrations, ridgeline::PresetKind::efficiency);
         }},
        {"--memory-fraction", "memory_fraction", "Share of the reported memory the engine takes (default 0.9)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.memory_fraction = parse_fraction(f, t); }},
        {"--reserve-gib", "reserve_gib", "Memory kept back for the runtime per device, GiB (default 1)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.reserve = parse_reserve(f, t); }},
        {"--link-latency-us", "link_latency_us", "Latency per message on the links, us (default: the preset's; 2.7, NCCL's network figure, where it has none)",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.link_latency = parse_link_latency(f, t); }},
        {"--link-gb-per-s", "link_gb_per_s",
         "Link bandwidth per device, GB/s, both directions, for the link a preset lacks: PCIe cards' (splits over up to 8 of them), "
         "or the network past an NVLink domain with no scale-out figure",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.link_bandwidth = parse_link_bandwidth(f, t); }},
        {"--max-context", "", "Raise the model's context limit (max_position_embeddings), e.g. 131072 for Qwen3 with YaRN",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.max_context = parse_integer_option(f, t, 1, std::int64_t{1} << 40); }},
        // Prices: "h100-sxm=2.50,h200=3.50"; that each names a device of -H is checked with -H.
        {"--price", "price", "Price per device-hour: h100-sxm=2.50,h200=3.50 (ranks by cost per million tokens)",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             o.price_text = t;
             o.prices.clear();
             for (const auto& item : comma_pieces(t)) {  // a device priced twice is refused below, by its name
                 const std::size_t eq = item.find('=');
                 if (eq == std::string::npos || eq == 0) bad_value(f, t, "DEVICE=PRICE pairs separated by commas, e.g. h100-sxm=2.50,h200=3.50");
                 const std::string device = item.substr(0, eq);
                 for (const auto& [named, price] : o.prices)
                     if (named == device) bad_value(f, t, "one price per device; " + device + " has two");
                 o.prices.emplace_back(device, parse_number(f, item.substr(eq + 1), 1e-9, 1e9, "a price per device-hour from 1e-9 to 1e9 for " + device));
             }
         }},
        {"--show", "", "plans (default: feasible plans, cheapest first) or pareto",
         [](PlanOptions& o, const std::string& f, const std::string& t) {
             if (t != "plans" && t != "pareto") bad_value(f, t, "plans or pareto");
             o.pareto = t == "pareto";
         }},
        {"--svg", "", "Write the Pareto front as an SVG here",
         [](PlanOptions& o, const std::string&, const std::string& t) { o.svg = t; }},
        {"--format", "", "Output: table (default), csv or json",
         [](PlanOptions& o, const std::string& f, const std::string& t) { o.format = parse_output(f, t); }},
    };
    return flags;
}

// What the options ask for: the request, how many rows to show, and what the output says of them.
struct PlanSetting {
    ridgeline::PlanRequest request;
    std::int64_t top = 20;
    bool priced = false;      // some device has a price
    std::string model_notes;  // how the model's file was read, when that needs saying
};

// plan's calibrations (--calibration, Python's calibration=): one efficiency preset a device,
// each fitted on it. `refuse` throws in the caller's words, given what was expected.
struct PlanCalibrations {
    std::vector<std::string> typed;  // as named
    std::vector<ridgeline::EfficiencyPreset> presets;
    std::function<void(const std::string& expected)> refuse;

    [[noreturn]] void fail(const std::string& expected) const {
        refuse(expected);
        throw std::logic_error("PlanCalibrations::refuse returned");  // it throws
    }
    static bool same_device(const std::string& a, const std::string& b) {
        return a == b || same_file({a, b}, ridgeline::PresetKind::hardware);
    }
    // Each read; two fitted on one device refused.
    void load() {
        for (const auto& name : typed) {
            presets.push_back(ridgeline::load_efficiency(name));
            // Its device is a preset here, or the file says which device it was fitted on wrongly.
            try {
                (void)ridgeline::resolve_preset(ridgeline::PresetKind::hardware, presets.back().hardware);
            } catch (const ridgeline::error& e) {
                throw ridgeline::error(ridgeline::resolve_preset(ridgeline::PresetKind::efficiency, name).string(), "/hardware",
                                       "\"" + echoed(presets.back().hardware) + "\"", e.expected());
            }
        }
        for (std::size_t j = 1; j < presets.size(); ++j)
            for (std::size_t i = 0; i < j; ++i)
                if (same_device(presets[i].hardware, presets[j].hardware))
                    fail("one calibration a device (" + echoed(typed[i]) + " and " + echoed(typed[j]) + " are both fitted on " +
                         echoed(presets[j].hardware) + ")");
    }
    // The devices they were fitted on: the candidates where none are named.
    [[nodiscard]] std::vector<std::string> devices() const {
        std::vector<std::string> out;
        for (const auto& p : presets) out.push_back(p.hardware);
        return out;
    }
    // Each device of the request takes its calibration's terms, and its times line says what they
    // were fitted on: a fit on other models is a guess about this one (a fixed time fitted on
    // DeepSeek-R1's serving steps, carried to a dense 70B). Call with the devices and the model read.
    void attach(ridgeline::PlanRequest& r, const std::string& hardware_flag, const std::string& hardware_text) const {
        using namespace ridgeline;
        if (presets.empty()) return;
        std::string fitted_on;
        for (const auto& p : presets) fitted_on += (fitted_on.empty() ? "" : ", ") + echoed(p.hardware);
        for (std::size_t k = 0; k < presets.size(); ++k)
            if (std::none_of(r.devices.begin(), r.devices.end(), [&](const PlanDevice& d) { return same_device(d.name, presets[k].hardware); }))
                fail("one for each device of " + hardware_flag + " and no other (" + echoed(typed[k]) + " is fitted on " + echoed(presets[k].hardware) +
                       ", not a device of " + hardware_flag + ": " + echoed(hardware_text) + ")");
        const std::string model(r.model.name.view());
        for (PlanDevice& d : r.devices) {
            const auto c = std::find_if(presets.begin(), presets.end(), [&](const EfficiencyPreset& p) { return same_device(d.name, p.hardware); });
            if (c == presets.end())
                fail("one for each device of " + hardware_flag + " (none is fitted on " + echoed(d.name) + "; they are fitted on " + fitted_on + ")");
            d.efficiency = c->fit.efficiency();
            const FittedRows fitted = fitted_rows(*c);
            std::string models;
            for (const auto& m : fitted.models) models += (models.empty() ? "" : ", ") + m;
            const bool other = !fitted.models.empty() && std::find(fitted.models.begin(), fitted.models.end(), model) == fitted.models.end();
            d.efficiency_source = c->engine + " on " + c->hardware +
                                  (!fitted.unread.empty() ? ", its rows unknown: " + fitted.unread
                                   : other                ? ", fitted on " + models + ", not " + model + ": its fixed times carry over unscaled"
                                                          : ", fitted on " + models);
        }
    }
};

// The checks across flags, then the files: presets and the model.
inline PlanSetting plan_setting(const PlanOptions& o) {
    using namespace ridgeline;
    PlanSetting out;
    PlanRequest& r = out.request;
    if (o.cached > o.prompt) bad_value("--cached-prompt", o.cached_text, "at most --prompt (" + std::to_string(o.prompt) + ")");
    if (o.users.has_value() == o.rate.has_value()) throw usage_error("plan: give exactly one of --users and --rate");
    r.traffic.prompt = o.prompt;
    r.traffic.output = o.output;
    r.traffic.cached_prompt = o.cached;
    r.traffic.prefill_chunk = o.chunk;
    if (o.users) r.users = static_cast<double>(*o.users);
    r.requests_per_s = o.rate;
    r.tpot_target = o.tpot;
    r.ttft_target = o.ttft;
    r.itl_target = o.itl;
    r.max_devices = o.max_devices;
    out.top = o.top;
    r.weights = o.weights;
    r.modes = o.modes;
    Workload& w = r.base;
    w.precision.kv = o.kv;
    w.precision.compute = o.compute.value_or(ridgeline::Numeric::bf16);
    r.device_compute = !o.compute;
    w.efficiency.bandwidth = o.efficiency;
    w.efficiency.compute = o.compute_efficiency;
    w.efficiency.overhead = o.overhead;
    if (o.memory_fraction) w.assumptions.memory_fraction = *o.memory_fraction;
    if (o.reserve) w.assumptions.runtime_reserve = *o.reserve;
    if (o.link_latency) r.links.link_latency = *o.link_latency;
    if (o.link_bandwidth) r.links.link_bandwidth = *o.link_bandwidth;
    out.priced = !o.prices.empty();
    // Calibrations: one a device, each fitted on it; their devices are the candidates unless -H says.
    if (!o.calibrations.empty() && o.times_given)
        bad_value("--calibration", o.calibration_text,
                  "no --efficiency, --compute-efficiency or --overhead-us beside it (it gives each device's times)");
    PlanCalibrations calibrations{o.calibrations, {}, [&o](const std::string& expected) { bad_value("--calibration", o.calibration_text, expected); }};
    calibrations.load();
    std::vector<std::string> names = o.hardware;
    if (names.empty()) names = calibrations.devices();
    if (names.empty()) names = list_presets(PresetKind::hardware);
    for (const auto& [name, price] : o.prices)
        if (std::find(names.begin(), names.end(), name) == names.end())
            bad_value("--price", o.price_text,
                      (!o.hardware.empty()         ? "prices only for devices of -H (" + o.hardware_text + ")"
                       : !calibrations.presets.empty() ? "prices only for the devices of --calibration (-H not given)"
                                               : std::string("prices only for hardware presets (-H not given: every preset is tried)")) +
                          "; " + name + " is not one");
    for (const auto& name : names) {
        std::optional<double> price;
        for (const auto& [n, p] : o.prices)
            if (n == name) price = p;
        r.devices.push_back({name, load_hardware(name), price});
    }
    LoadedModel loaded = load_model_with_formats(o.model);
    r.model = loaded.model;
    calibrations.attach(r, "-H", o.hardware_text);
    r.checkpoint_formats = loaded.precision;
    if (o.checkpoint) r.checkpoint = loaded.precision;
    w.precision.state = loaded.precision.state;  // the checkpoint's state formats, whatever the weights'
    if (o.max_context) {
        // It raises the limit, as decode's --max-context: a lower one would only refuse what the model takes.
        if (const auto expected = lowers_context_limit(r.model, *o.max_context))
            bad_value("--max-context", std::to_string(*o.max_context), *expected + ": the flag raises it");
        r.model.max_context = *o.max_context;
    }
    out.model_notes = o.max_context ? without_position_note(std::move(loaded.notes)) : std::move(loaded.notes);
    return out;
}

// The Pareto picture's title, as `plan --svg` and the page draw it.
inline std::string pareto_title(const ridgeline::Model& m) {
    return std::string(m.name.view()) + ": tokens/s per device against per user";
}

}  // namespace cli
