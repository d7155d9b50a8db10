// ridgeline: the library's answers from a shell, as a table, CSV or JSON. Every number comes from
// the library; this file only parses arguments and prints.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <ridgeline/answers_schema.hpp>
#include <ridgeline/calibrate.hpp>
#include <ridgeline/decode_schema.hpp>
#include <ridgeline/diagnose.hpp>
#include <ridgeline/efficiency_json.hpp>
#include <ridgeline/fmt.hpp>
#include <ridgeline/generation.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/operators.hpp>
#include <ridgeline/operators_schema.hpp>
#include <ridgeline/plan_json.hpp>
#include <ridgeline/plan_schema.hpp>
#include <ridgeline/plan_svg.hpp>
#include <ridgeline/ridgeline.hpp>
#include <ridgeline/roofline_svg.hpp>
#include <ridgeline/speculative.hpp>

#include "args.hpp"
#include "plan_args.hpp"
#include "rows.hpp"
#include "table.hpp"

using namespace ridgeline;

namespace {

using cli::append;
using cli::seconds;
using cli::si;

// ---------------------------------------------------------------------------------------------
// Options most subcommands share
// ---------------------------------------------------------------------------------------------

// The flags as typed, and (cli::Resolved) the setting they resolve to.
struct Setting : cli::Resolved {
    Setting() {
        hardware = "h100-sxm";
        formats_source = "flags";
    }
    std::string model;
    std::string kv = "bf16", compute = "bf16";
    // Unset unless given: "--max-context ''" is given, and refused, not taken for absent. Unset
    // storage formats come from the checkpoint (its torch_dtype and quantization_config).
    std::optional<std::string> weights, embeddings, experts, lm_head;
    std::string batch = "1", context = "0";
    std::string tp_arg = "1", pp_arg = "1", ep_arg = "1", dp_arg = "1";  // as typed
    std::string efficiency = "1", overhead_us = "0";
    std::string assumptions = "physical", accounting, attention_flops;
    std::optional<std::string> memory_fraction, reserve_gib, link_latency_us, max_context_arg;
    std::string format = "table";

    // Resolved (with cli::Resolved's hardware, model, deployment and workload)
    std::int64_t tp = 1, pp = 1, ep = 1, dp = 1;
    std::vector<std::int64_t> batches, contexts;
};

void add_format(CLI::App* app, Setting& s) {
    app->add_option("--format", s.format, "Output: table (default), csv or json")
        ->check(CLI::IsMember({"table", "csv", "json"}));
}

void add_device(CLI::App* app, Setting& s, bool need_model = true) {
    app->add_option("--hardware,-H", s.hardware, "Hardware preset name or JSON file (default h100-sxm); decode, capacity and generate take a list: h100-sxm,h200");
    auto* model = app->add_option("--model,-m", s.model, "Model preset name, or a path to a config.json or preset");
    if (need_model) model->required();
}

void add_workload(CLI::App* app, Setting& s, bool lists = true) {
    app->add_option("--weights", s.weights,
                    "Weight format: bf16, fp8, int8, int4, mxfp4, int4/g128, ... (default: the checkpoint's, from its "
                    "torch_dtype and quantization_config); decode, capacity and generate take a list: bf16,fp8");
    app->add_option("--kv", s.kv, "KV-cache format (default bf16)");
    app->add_option("--compute", s.compute, "Compute format whose peak the math runs on (default bf16)");
    app->add_option("--embeddings", s.embeddings, "Format of the input embedding table, if not the weights'");
    app->add_option("--experts", s.experts, "Format of the routed experts, if not the weights'");
    app->add_option("--lm-head", s.lm_head, "Format of an untied LM head, if not the weights'");
    if (lists) {
        app->add_option("--batch,-b", s.batch, "Batch sizes: 1,8,64 or 1..256x2 (default 1)");
        app->add_option("--context,-c", s.context, "Context lengths in tokens: 0,4096 or 0..8192+1024 (default 0)");
    }
    app->add_option("--tp", s.tp_arg, "Tensor-parallel degree (default 1); decode, capacity and generate take a list: 1,2,4 or 1..8x2");
    app->add_option("--pp", s.pp_arg, "Pipeline-parallel degree (default 1); a list as --tp");
    app->add_option("--ep", s.ep_arg, "Expert-parallel groups within the tensor-parallel devices (default 1; divides --tp)");
    app->add_option("--dp", s.dp_arg, "Data-parallel replicas (default 1)");
    app->add_option("--link-latency-us", s.link_latency_us,
                    "Latency per message on the scale-up link, us (default: the hardware preset's)");
    app->add_option("--efficiency", s.efficiency, "Fraction of peak bandwidth achieved, in (0, 1] (default 1: the ceiling)");
    app->add_option("--overhead-us", s.overhead_us, "Fixed time per step in microseconds (default 0)");
    app->add_option("--assumptions", s.assumptions,
                    "What results count: physical (default) or seed_003 (the seed documents' budget)")
        ->check(CLI::IsMember({"physical", "seed_003"}));
    app->add_option("--accounting", s.accounting, "Weights charged: read (bytes read, default) or every (every parameter, the seeds')")
        ->check(CLI::IsMember({"every", "read"}));
    app->add_option("--attention-flops", s.attention_flops, "Count attention-score FLOPs: on (default) or off (the seeds')")
        ->check(CLI::IsMember({"on", "off"}));
    app->add_option("--memory-fraction", s.memory_fraction, "Share of the reported memory the engine takes, in (0, 1] (default 0.9)");
    app->add_option("--reserve-gib", s.reserve_gib, "Memory kept back for the runtime per device, GiB (default 1)");
    app->add_option("--max-context", s.max_context_arg,
                    "Raise the model's context limit (max_position_embeddings), e.g. 131072 for Qwen3 with YaRN");
}

void resolve(Setting& s, bool need_model = true) {
    // Every flag is checked before any file is read, so a typo is a usage error (exit 2).
    s.tp = cli::parse_integer_option("--tp", s.tp_arg, 1, 1024);
    s.pp = cli::parse_integer_option("--pp", s.pp_arg, 1, 1024);
    s.ep = cli::parse_integer_option("--ep", s.ep_arg, 1, 1024);
    s.dp = cli::parse_integer_option("--dp", s.dp_arg, 1, std::int64_t{1} << 20);
    const std::int64_t max_context =
        s.max_context_arg ? cli::parse_integer_option("--max-context", *s.max_context_arg, 1, std::int64_t{1} << 40) : 0;
    Workload& w = s.base;
    if (s.weights) w.precision.weights = cli::parse_format_option("--weights", *s.weights);
    w.precision.kv = cli::parse_format_option("--kv", s.kv);
    w.precision.compute = cli::parse_numeric_option("--compute", s.compute);
    if (s.embeddings) w.precision.embeddings = cli::parse_format_option("--embeddings", *s.embeddings);
    if (s.experts) w.precision.experts = cli::parse_format_option("--experts", *s.experts);
    if (s.lm_head) w.precision.lm_head = cli::parse_format_option("--lm-head", *s.lm_head);
    Parallelism par{.tensor = s.tp, .pipeline = s.pp, .expert = s.ep, .data = s.dp};
    if (s.link_latency_us)
        par.link_latency = us(cli::parse_number("--link-latency-us", *s.link_latency_us, 1e-6, 1e6,
                                                "a time in microseconds: 0, or from 1e-6 to 1e6", true));
    w.efficiency.bandwidth = cli::parse_number("--efficiency", s.efficiency, 1e-6, 1.0, "a fraction in [1e-6, 1]");
    w.efficiency.overhead = us(cli::parse_number("--overhead-us", s.overhead_us, 1e-6, 1e9,
                                                 "a time in microseconds: 0, or from 1e-6 to 1e9", true));
    Assumptions& a = w.assumptions;
    a = s.assumptions == "seed_003" ? assumptions::seed_003 : assumptions::physical;
    if (!s.accounting.empty()) a.accounting = s.accounting == "read" ? WeightAccounting::bytes_read : WeightAccounting::every_parameter;
    if (!s.attention_flops.empty()) a.attention_flops = s.attention_flops == "on";
    if (s.memory_fraction)
        a.memory_fraction = cli::parse_number("--memory-fraction", *s.memory_fraction, 1e-6, 1.0, "a fraction in [1e-6, 1]");
    if (s.reserve_gib)
        a.runtime_reserve = GiB(cli::parse_number("--reserve-gib", *s.reserve_gib, 1e-6, 9e5,
                                                  "a size in GiB: 0, or from 1e-6 to 900000", true));
    s.batches = cli::parse_list("--batch", s.batch, 1);
    s.contexts = cli::parse_list("--context", s.context, 0);

    s.hw = load_hardware(s.hardware);
    if (need_model || !s.model.empty()) {
        // The checkpoint's storage formats, unless a flag sets them: --weights alone sets every
        // tensor's format (its experts' and embeddings' too, unless those flags are given).
        LoadedModel loaded = load_model_with_formats(s.model);
        s.m = loaded.model;
        s.model_notes = loaded.notes;
        Precision& p = w.precision;
        if (!s.weights) {
            p.weights = loaded.precision.weights;
            if (!s.experts) p.experts = loaded.precision.experts;
            if (!s.embeddings) p.embeddings = loaded.precision.embeddings;
            if (!s.lm_head) p.lm_head = loaded.precision.lm_head;
            s.formats_source = "the checkpoint: " + loaded.precision_source;
        } else {
            s.formats_source = "--weights";
        }
    }
    if (max_context > 0) s.m.max_context = max_context;
    s.dep = Deployment{s.hw, par};
    if (s.m.group_count > 0) validate(s.dep, s.m);
}

// Bounded work: a command makes one row per combination of its lists, and at most 100,000 rows.
void require_rows(const Setting& s, bool batches, bool contexts, std::size_t combinations = 1) {
    const std::size_t b = batches ? s.batches.size() : 1, c = contexts ? s.contexts.size() : 1;
    if (b * c * combinations <= cli::max_values) return;  // 100,000 x 100,000 x 1,000 fits in size_t
    if (combinations == 1)
        throw cli::usage_error(fmt::format("--batch x --context: got {} x {} = {} rows, expected at most 100,000 rows (shorten the lists)",
                                           b, c, b * c));
    throw cli::usage_error(fmt::format("--batch x --context x settings: got {} x {} x {} = {} rows, expected at most 100,000 rows "
                                       "(shorten the lists)", b, c, combinations, b * c * combinations));
}

// The device of the setting being computed, for errors in the user's terms (a copy: the
// settings are gone by the time an error reaches main).
std::optional<Hardware> current_device;

// The settings a command's lists ask for: one per combination of -H, --weights, --tp, --pp and
// --ep (each a comma list; --tp, --pp and --ep also take ranges such as 1..8x2), in that order.
// Each is checked as a whole before any file is read; then each setting is resolved.
std::vector<Setting> combinations(const Setting& s) {
    const auto degrees = [](const char* flag, const std::string& arg) {
        std::vector<std::string> out;
        for (const std::int64_t v : cli::parse_list(flag, arg, 1)) {
            if (v > 1024) cli::bad_value(flag, arg, "degrees from 1 to 1024");
            out.push_back(std::to_string(v));
        }
        return out;
    };
    const std::vector<std::string> hardware = cli::split_commas(s.hardware);
    std::vector<std::optional<std::string>> weights{s.weights};
    if (s.weights) {
        weights.clear();
        for (const auto& w : cli::split_commas(*s.weights)) weights.emplace_back(w);
    }
    const auto tps = degrees("--tp", s.tp_arg), pps = degrees("--pp", s.pp_arg), eps = degrees("--ep", s.ep_arg);
    const std::size_t count = hardware.size() * weights.size() * tps.size() * pps.size() * eps.size();
    if (count > 1000)
        throw cli::usage_error(fmt::format("-H x --weights x --tp x --pp x --ep: got {} combinations, expected at most 1,000", count));
    std::vector<Setting> out;
    for (const auto& h : hardware)
        for (const auto& w : weights)
            for (const auto& t : tps)
                for (const auto& p : pps)
                    for (const auto& e : eps) {
                        Setting one = s;
                        one.hardware = h;
                        one.weights = w;
                        one.tp_arg = t;
                        one.pp_arg = p;
                        one.ep_arg = e;
                        out.push_back(std::move(one));
                    }
    // Resolved only once every list has been read, so a typo in any list is a usage error first.
    for (Setting& one : out) {
        resolve(one);
        current_device = one.hw;
    }
    return out;
}

// One line under a table: what the numbers count (JSON and CSV carry it in every row).
void print_assumptions(const Setting& s, const std::optional<DecodeStep>& step = std::nullopt) {
    if (s.format != "table") return;
    const Assumptions& a = s.base.assumptions;
    std::string links;
    if (step && step->links.messages > 0) {
        const Link& l = s.tp > 1 ? step->links.tensor_link : step->links.pipeline_link;
        links = fmt::format("; links: {} us per message ({}), {}", cli::shown(l.latency.in(us), 2), l.latency_from,
                            l.scale_out ? "scale-out network" : "scale-up link");
    }
    fmt::print("assumptions: {} (attention FLOPs {}, embedding lookups {}, weights as {}, memory: {} of {} less {} GiB reserved{}){}\n",
               assumptions_name(a), a.attention_flops ? "counted" : "not counted",
               a.embedding_lookup_flops ? "2 FLOPs per parameter" : "free",
               a.accounting == WeightAccounting::bytes_read ? "bytes read" : "every parameter", cli::shown(a.memory_fraction, 2),
               a.reported_memory ? "the reported memory" : "the datasheet capacity", cli::shown(a.runtime_reserve.in(GiB), 2),
               a.activation_workspace ? " and the activation workspace" : "", links);
    fmt::print("formats: {}\n", cli::printable(s.formats_source));
    if (!s.model_notes.empty()) fmt::print("model: {}\n", cli::printable(s.model_notes));
}

// ---------------------------------------------------------------------------------------------
// Subcommands
// ---------------------------------------------------------------------------------------------

void run_list(const std::string& what, const std::string& format) { cli::list_table(what).print(format); }

void run_show(const std::string& target, const std::string& format) { cli::show_table(target).print(format); }

void run_model(Setting& s) {
    s.m = load_model(s.model);
    cli::model_formats_table(s.m).print(s.format);
}

// Every setting of the lists, at every batch and context (batches outer), as decode and
// operators print them; `current_device` names the device an error is about.
template <class Visit>
void each_point(const std::vector<Setting>& settings, Visit visit) {
    for (const Setting& s : settings)
        for (std::int64_t b : s.batches)
            for (std::int64_t n : s.contexts) {
                current_device = s.hw;
                Workload w = s.base;
                w.batch = b;
                w.context = n;
                visit(s, w);
            }
}

void run_decode(Setting& all) {
    std::vector<Setting> settings = combinations(all);
    require_rows(settings.front(), true, true, settings.size());
    cli::Table t(cli::decode_columns());
    std::optional<DecodeStep> last;
    each_point(settings, [&](const Setting& s, const Workload& w) {
        const DecodeStep d = decode_step(s.dep, s.m, w);
        last = d;
        t.add(cli::decode_cells(s, d));
    });
    t.print(all.format);
    print_assumptions(settings.back(), last);
}

// The step per operator (operators.hpp), one device's share, in the page's columns (operators_schema.hpp).
void run_operators(Setting& all) {
    std::vector<Setting> settings = combinations(all);
    require_rows(settings.front(), true, true, settings.size());
    cli::Table t(cli::operator_columns());
    each_point(settings, [&](const Setting& s, const Workload& w) {
        for (const Operator& o : operators(s.dep, s.m, w)) t.add(cli::operator_cells(s, w, o));
    });
    t.print(all.format);
    print_assumptions(settings.back());
}

void run_ridge(Setting& s) {
    resolve(s);
    const auto nstar = n_star(s.dep, s.m, s.base);
    cli::Table t(cli::ridge_columns());
    for (std::int64_t n : s.contexts) t.add(cli::ridge_cells(s, n, nstar));
    t.print(s.format);
    print_assumptions(s);
}

void run_capacity(Setting& all) {
    std::vector<Setting> settings = combinations(all);
    require_rows(settings.front(), true, true, settings.size());
    cli::Table t(cli::capacity_columns());
    for (const Setting& s : settings)
        for (std::int64_t n : s.contexts)
            for (std::int64_t b : s.batches) {
                current_device = s.hw;
                t.add(cli::capacity_cells(s, n, b));
            }
    t.print(all.format);
    print_assumptions(settings.back());
}

// The generate flags as typed, parsed here so that a bad one names itself.
struct GenerateArgs {
    std::string prompt = "0", new_tokens = "128", chunk = "0";
};

// Prefill chunks the library computes one by one, over all batches: enough for a 1M-token prompt
// in 1k-token chunks at a thousand batch sizes, and seconds of work at most.
constexpr std::int64_t max_chunk_steps = 10'000'000;

void run_generate(Setting& all, const GenerateArgs& args) {
    const std::int64_t prompt = cli::parse_integer_option("--prompt", args.prompt, 0, 100'000'000);
    const std::int64_t new_tokens = cli::parse_integer_option("--new", args.new_tokens, 1, 100'000'000);
    const std::int64_t chunk = cli::parse_integer_option("--chunk", args.chunk, 0, 100'000'000);
    std::vector<Setting> settings = combinations(all);
    const Setting& first = settings.front();
    require_rows(first, true, false, settings.size());
    const std::int64_t chunks = chunk > 0 ? (prompt + chunk - 1) / chunk : 1;
    const auto steps = static_cast<std::int64_t>(first.batches.size() * settings.size()) * chunks;
    if (steps > max_chunk_steps)
        throw cli::usage_error(fmt::format(
            "--chunk: got {}, expected a chunk giving at most 10,000,000 prefill steps in all ({} chunks of a {}-token "
            "--prompt x {} --batch values = {}; use a larger --chunk or fewer batches)",
            chunk, chunks, prompt, first.batches.size() * settings.size(), steps));
    cli::Table t(cli::generate_columns());
    for (const Setting& s : settings)
        for (std::int64_t b : s.batches) {
            current_device = s.hw;
            Workload w = s.base;
            w.batch = b;
            t.add(cli::generate_cells(s, b, generate(s.dep, s.m, w, prompt, new_tokens, chunk)));
        }
    t.print(all.format);
    print_assumptions(settings.back());
}

struct DiagnoseArgs {
    std::optional<std::string> tok_s, tpot_ms;
    std::string draft_tokens = "4";
};

void run_diagnose(Setting& s, const DiagnoseArgs& args) {
    if (args.tok_s.has_value() == args.tpot_ms.has_value()) throw cli::usage_error("diagnose: give exactly one of --measured-tok-s and --measured-tpot-ms");
    const Seconds measured =
        args.tok_s
            ? ridgeline::s(1.0 / cli::parse_number("--measured-tok-s", *args.tok_s, 1e-6, 1e9, "a rate in tokens/s from 1e-6 to 1e9"))
            : ms(cli::parse_number("--measured-tpot-ms", *args.tpot_ms, 1e-6, 1e9, "a time in ms from 1e-6 to 1e9"));
    const std::int64_t draft_tokens = cli::parse_integer_option("--draft-tokens", args.draft_tokens, 1, 64);
    resolve(s);
    // One setting is diagnosed; a list would silently use its first value.
    if (s.batches.size() > 1) cli::bad_value("--batch", s.batch, "one batch size: diagnose reads a single setting");
    if (s.contexts.size() > 1) cli::bad_value("--context", s.context, "one context length: diagnose reads a single setting");
    Workload w = s.base;
    w.batch = s.batches.front();
    w.context = s.contexts.front();
    cli::diagnose_table(s, w, measured, draft_tokens).print(s.format);
}

struct CalibrateArgs {
    cli::CalibrateRequest request;
    std::optional<std::string> save;
    std::string format = "table";
};

void run_calibrate(const CalibrateArgs& args) {
    const cli::CalibrateRequest& a = args.request;
    for (const auto& w : a.where) {
        const std::size_t eq = w.find('=');
        if (eq == std::string::npos || eq == 0) cli::bad_value("--where", w, "KEY=VALUE, e.g. weights=bf16");
        // An unknown key is a usage error before any file is read.
        if (!cli::row_field(MeasuredRow{}, w.substr(0, eq)))
            throw cli::usage_error("--where: got \"" + w.substr(0, eq) + "\", expected " + cli::where_keys);
    }
    const cli::CalibrateRun run = cli::run_calibration(a);
    if (run.kept.empty())
        throw cli::usage_error("calibrate: no row of " + a.measurements + " is left by the filters" +
                               (run.flagged.empty() ? "" : " (" + std::to_string(run.flagged.size()) + " flagged rows are never fitted)"));
    const Calibration& c = run.fit;
    cli::calibrate_table(run).print(args.format);
    const auto pm = [](double v, const std::optional<double>& e, double scale, int decimals, const char* unit) {
        return cli::shown(v * scale, decimals) + (e ? " +/- " + cli::shown(*e * scale, decimals) : "") + unit;
    };
    if (args.format == "table") {
        fmt::print("fit on {} of {} rows for {}: bandwidth {}, compute {}, {} a step{}; rms error {}%\n", c.used.size(), run.kept.size(),
                   cli::printable(run.hardware), pm(c.bandwidth_efficiency, c.bandwidth_efficiency_error, 100, 1, "%"),
                   pm(c.compute_efficiency, c.compute_efficiency_error, 100, 1, "%"),
                   pm(c.overhead.in(ms), c.overhead_error ? std::optional<double>(c.overhead_error->in(ms)) : std::nullopt, 1, 3, " ms"),
                   a.per_layer ? ", " + pm(c.per_layer.in(us), c.per_layer_error ? std::optional<double>(c.per_layer_error->in(us)) : std::nullopt, 1, 1, " us a layer") : "",
                   cli::shown(100 * c.rms_relative_error, 1));
        fmt::print("the gap: {}\n", c.explanation);
        if (run.have_loo)
            fmt::print("leave-one-out error: median {}%, worst {}%\n", cli::shown(100 * run.loo_median, 1), cli::shown(100 * run.loo_worst, 1));
        for (const auto& x : c.set_aside) {  // "observations[i]: ..." names the library's row; say the file's
            const std::size_t close = x.find("]: ");
            const std::size_t i = std::stoul(x.substr(13, close - 13));
            fmt::print("set aside: {}: /measurements/{}: {}\n", cli::printable(a.measurements), run.kept.at(i), cli::printable(x.substr(close + 3)));
        }
        for (const auto& x : run.flagged) fmt::print("flagged in the file, not fitted: {}\n", cli::printable(x));
    }
    if (args.save) {
        std::ofstream out(*args.save, std::ios::binary);
        if (!out || !(out << cli::dump_json(cli::calibration_preset(a, run)) << "\n"))
            throw error(*args.save, "", "a file that cannot be written", "a writable path");
        fmt::print(stderr, "wrote {}\n", cli::printable(*args.save));
    }
}

// The estimate for a setting with an engine-and-device calibration, its range, and the ceiling.
void run_predict(Setting& s, const std::string& calibration) {
    resolve(s);
    if (s.batches.size() > 1) cli::bad_value("--batch", s.batch, "one batch size: predict reads a single setting");
    if (s.contexts.size() > 1) cli::bad_value("--context", s.context, "one context length: predict reads a single setting");
    const EfficiencyPreset preset = load_efficiency(calibration);
    Workload w = s.base;
    w.batch = s.batches.front();
    w.context = s.contexts.front();
    cli::predict_table(s, w, preset).print(s.format);
    if (s.format == "table" && preset.hardware != s.hardware)
        fmt::print("note: the calibration was fitted on {}, not {}\n", cli::printable(preset.hardware), cli::printable(s.hardware));
}

void run_plot(Setting& s, const std::string& out) {
    if (s.batch == "1") s.batch = "1..1024x2";
    if (s.context == "0") s.context = "0,4096,32768";
    resolve(s);
    require_rows(s, true, true);
    const std::string svg = roofline_svg(s.dep, s.m, s.base, s.batches, s.contexts);
    if (out == "-") {
        fmt::print("{}", svg);
        return;
    }
    std::ofstream file(out, std::ios::binary);
    if (!file) throw error(out, "", "a file that cannot be written", "a writable path for the SVG");
    file << svg;
    if (!file) throw error(out, "", "a failed write", "a writable path for the SVG");
    fmt::print(stderr, "wrote {}\n", cli::printable(out));
}


// ---------------------------------------------------------------------------------------------
// plan
// ---------------------------------------------------------------------------------------------

// A cell from a schema field: the raw SI value for JSON and CSV, readable text for the table.
void run_plan(const cli::PlanArgs& a) {
    const cli::PlanSetting setting = cli::plan_setting(a);
    const PlanRequest& r = setting.request;
    const Workload& w = r.base;
    const std::int64_t top = setting.top;
    const PlanResult result = plan(r);
    const std::vector<PlanRow>& rows = a.show == "pareto" ? result.pareto : result.plans;
    std::vector<cli::Column> columns{{"rank", "#"}};
    cli::append_columns(columns, plan_fields());
    cli::Table t(columns);
    std::int64_t rank = 0;
    for (const PlanRow& row : rows) {
        if (++rank > top) break;
        std::vector<cli::Cell> cells{cli::integer(rank)};
        cli::append_cells(cells, plan_fields(), row);
        t.add(cells);
    }
    if (a.format == "json") {
        // One object: the rows, and what the search concluded (plan_json.hpp, shared with the page).
        const nlohmann::ordered_json j = plan_json(result, r.model, top);
        fmt::print("{}\n", cli::dump_json(j));
    } else {
        if (rows.empty()) fmt::print("no plan {}\n", a.show == "pareto" ? "fits in memory" : "meets the targets");
        else t.print(a.format);
    }
    if (a.format == "table") {
        fmt::print("{}\n", cli::printable(result.verdict));
        fmt::print("traffic: {}; prompt {} tokens ({} cached), {} out; prefill chunk {}; every sequence may reach prompt + output\n",
                   r.users ? cli::shown(*r.users, 0) + " users"
                           : "users from " + cli::shown(*r.requests_per_s, 2) + " requests/s by Little's law", r.traffic.prompt,
                   r.traffic.cached_prompt, r.traffic.output, r.traffic.prefill_chunk);
        fmt::print("searched: {} serving evaluations; weights {}; KV {}; memory: {} of the reported memory less {} GiB{}\n",
                   result.evaluated, a.weights, a.kv, cli::shown(w.assumptions.memory_fraction, 2),
                   cli::shown(w.assumptions.runtime_reserve.in(GiB), 2), setting.priced ? "" : "; no prices: ranked by devices");
        if (!setting.model_notes.empty()) fmt::print("model: {}\n", cli::printable(setting.model_notes));
    }
    if (a.svg) {
        const std::string svg = pareto_svg(result, cli::pareto_title(r.model));
        std::ofstream file(*a.svg, std::ios::binary);
        if (!file || !(file << svg)) throw error(*a.svg, "", "a file that cannot be written", "a writable path for the SVG");
        fmt::print(stderr, "wrote {}\n", cli::printable(*a.svg));
    }
}

// ---------------------------------------------------------------------------------------------
// Errors in the user's terms
// ---------------------------------------------------------------------------------------------

void replace_all(std::string& s, std::string_view from, std::string_view to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// The library names what it checks ("tensor-parallel degree"); the user typed a flag (--tp).
// Only for commands that take these flags from the command line: calibrate's come from a file.
std::string in_user_terms(const ridgeline::error& e, const Hardware& hw) {
    static const std::vector<std::pair<std::string_view, std::string_view>> flags{
        {"tensor-parallel degree", "--tp"},
        {"pipeline-parallel degree", "--pp"},
        {"expert-parallel degree", "--ep"},
        {"data-parallel degree", "--dp"},
        {"batch", "--batch"},
        {"context", "--context"},
        {"efficiency (bandwidth)", "--efficiency"},
        {"overhead per step", "--overhead-us"},
        {"link latency", "--link-latency-us"},
        {"memory fraction", "--memory-fraction"},
        {"runtime reserve", "--reserve-gib"},
        {"prompt", "--prompt"},
        {"new_tokens", "--new"},
        {"prompt + new_tokens - 1", "--prompt + --new - 1"},
        {"prompt + new_tokens", "--prompt + --new"},
        {"chunk", "--chunk"},
        {"speculation.draft_tokens", "--draft-tokens"},
    };
    if (!e.file().empty()) return e.what();
    std::string expected = e.expected();
    replace_all(expected, "raise Model::max_context where the model allows more", "raise it with --max-context");
    replace_all(expected, "the tensor-parallel degree", "--tp");
    for (const auto& [path, flag] : flags)
        if (e.path() == path) return fmt::format("{}: got {}, expected {}", flag, e.value(), expected);
    // "hardware 'NVIDIA V100 SXM2 32GB' compute peak": the --compute format the device lacks; say what it has.
    if (e.path().starts_with("hardware '") && e.path().ends_with("' compute peak")) {
        std::vector<std::string> has;
        for (Numeric n : all_numerics)
            if (hw.peak_for(n)) has.emplace_back(name_of(n));
        const auto have = [&](std::string_view n) { return std::find(has.begin(), has.end(), n) != has.end(); };
        std::string list, suggestion;
        for (const auto& n : has) list += (list.empty() ? "" : ", ") + n;
        if (e.value() == "bf16" && have("fp16")) suggestion = "fp16";
        else if (e.value() == "fp16" && have("bf16")) suggestion = "bf16";
        else if (!has.empty()) suggestion = has.size() > 1 && has.front() == "fp32" ? has[1] : has.front();  // tensor cores first
        const std::string device = e.path().substr(0, e.path().size() - std::string_view(" compute peak").size());
        return fmt::format("--compute: got {}, expected a format {} has a dense peak for: {}{}", e.value(), device,
                           list.empty() ? "none" : list, suggestion.empty() ? "" : " (try --compute " + suggestion + ")");
    }
    return e.what();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"ridgeline: decode-speed arithmetic for LLMs on GPUs (bytes, rooflines, ridge batch, n*)", "ridgeline"};
    app.require_subcommand(1);
    app.footer("Examples:\n  ridgeline decode -m llama-3.1-8b -c 4096,32768,131072\n  ridgeline ridge -m qwen3-32b -c 0,128,512,848\n"
               "Presets: ridgeline list hardware | ridgeline list models. JSON numbers are SI base units.");
    Setting s;
    std::string list_what, show_target, out = "roofline.svg";
    GenerateArgs gen_args;
    DiagnoseArgs diag_args;

    auto* list = app.add_subcommand("list", "List hardware or model presets");
    list->add_option("what", list_what, "hardware or models")->required()->check(CLI::IsMember({"hardware", "models"}));
    add_format(list, s);
    list->footer("Example: ridgeline list models --format csv");

    auto* show = app.add_subcommand("show", "Show a preset or a config.json with its derived parameter breakdown");
    show->add_option("target", show_target, "A preset name or a JSON file")->required();
    add_format(show, s);
    show->footer("Example: ridgeline show deepseek-v3");

    auto* model = app.add_subcommand("model", "Total and active parameters, weight bytes per format, KV per token");
    model->add_option("--model,-m", s.model, "Model preset name or config.json")->required();
    add_format(model, s);
    model->footer("Example: ridgeline model -m gpt-oss-120b");

    auto* decode = app.add_subcommand("decode", "The decode step for each batch and context: bytes, time, bound, tok/s");
    add_device(decode, s);
    add_workload(decode, s);
    add_format(decode, s);
    decode->footer("Example: ridgeline decode -m llama-3.1-8b -b 1,64,512 -c 4096 --format json");

    auto* ops = app.add_subcommand("operators", "The decode step per operator (one device's share): bytes, FLOPs, time, bound, ridge batch");
    add_device(ops, s);
    add_workload(ops, s);
    add_format(ops, s);
    ops->footer("Example: ridgeline operators -m llama-3.1-8b -b 1,64 -c 4096");

    auto* ridge = app.add_subcommand("ridge", "The ridge batch at each context, and n*");
    add_device(ridge, s);
    add_workload(ridge, s);
    add_format(ridge, s);
    ridge->footer("Example: ridgeline ridge -m qwen3-32b -c 0,128,512,848,4096");

    auto* capacity = app.add_subcommand("capacity", "KV tokens that fit, largest batch at a context, longest context at a batch");
    add_device(capacity, s);
    add_workload(capacity, s);
    add_format(capacity, s);
    capacity->footer("Example: ridgeline capacity -m llama-3.1-70b -H h200 -c 4096,32768 -b 1,16");

    auto* gen = app.add_subcommand("generate", "Time for a whole generation: prefill, then decode with the KV growing");
    add_device(gen, s);
    add_workload(gen, s);
    gen->add_option("--prompt", gen_args.prompt, "Prompt tokens (default 0); the context starts here, so -c is refused");
    gen->add_option("--new", gen_args.new_tokens, "New tokens to generate (default 128)");
    gen->add_option("--chunk", gen_args.chunk, "Prefill chunk in tokens (default 0: whole prompt)");
    add_format(gen, s);
    gen->footer("Example: ridgeline generate -m llama-3.1-8b --prompt 4096 --new 512 -b 1,32");

    auto* diag = app.add_subcommand("diagnose", "From a measured tok/s or TPOT: implied bandwidth, utilisation, verdict");
    add_device(diag, s);
    add_workload(diag, s);
    diag->add_option("--measured-tok-s", diag_args.tok_s, "Measured tokens/s per sequence");
    diag->add_option("--measured-tpot-ms", diag_args.tpot_ms, "Measured time per output token, ms");
    diag->add_option("--draft-tokens", diag_args.draft_tokens, "Draft length for the speculation explanation (default 4)");
    add_format(diag, s);
    diag->footer("Example: ridgeline diagnose -m llama-3.3-70b -c 4096 --measured-tok-s 70");

    CalibrateArgs cal_args;
    auto* cal = app.add_subcommand("calibrate", "Fit the overhead model (efficiencies, time per step and per layer) to measurements");
    cal->add_option("--measurements", cal_args.request.measurements, "A measurements JSON file or a name in data/measurements")->required();
    cal->add_option("--hardware,-H", cal_args.request.hardware, "Use the rows of this hardware (default: the first remaining row's)");
    cal->add_option("--engine", cal_args.request.engine, "Use the rows of this engine only");
    cal->add_option("--model,-m", cal_args.request.model, "Use the rows of this model only");
    cal->add_option("--where", cal_args.request.where, "KEY=VALUE on engine, engine_version, date, model, hardware, weights, tp, batch (repeatable)");
    cal->add_flag("--per-layer", cal_args.request.per_layer, "Also fit a time per layer (kernel launches)");
    cal->add_option("--save", cal_args.save, "Write the fit as an efficiency preset (data/efficiency/) to this file");
    cal->add_option("--format", cal_args.format, "Output: table (default), csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
    cal->footer("Example: ridgeline calibrate --measurements published --engine TensorRT-LLM -H h100-sxm");

    std::string calibration;
    auto* pred = app.add_subcommand("predict", "A setting's step time with an engine-and-device calibration, with a range, next to the ceiling");
    add_device(pred, s);
    add_workload(pred, s);
    pred->add_option("--calibration", calibration, "An efficiency preset name (data/efficiency/) or file")->required();
    add_format(pred, s);
    pred->footer("Example: ridgeline predict -m llama-3.1-8b -H h100-sxm -b 64 -c 4096 --calibration tensorrt-llm-h100-sxm");

    auto* plot = app.add_subcommand("plot", "Write the roofline and tok/s-vs-batch picture as a standalone SVG");
    add_device(plot, s);
    add_workload(plot, s);
    plot->add_option("--out,-o", out, "Output file, or - for stdout (default roofline.svg)");
    plot->footer("Example: ridgeline plot -m llama-3.1-8b -c 0,4096,32768 -o roofline.svg");

    cli::PlanArgs plan_args;
    auto* planner = app.add_subcommand("plan", "The cheapest deployment that meets TTFT and TPOT targets, and the Pareto front");
    planner->add_option("--model,-m", plan_args.model, "Model preset name, or a path to a config.json or checkpoint directory")->required();
    planner->add_option("--hardware,-H", plan_args.hardware, "Candidate devices: h100-sxm,h200 (default: every hardware preset)");
    planner->add_option("--prompt", plan_args.prompt, "Prompt tokens per request, the context it starts from (default 1024)");
    planner->add_option("--output", plan_args.output, "Output tokens per request (default 256)");
    planner->add_option("--cached-prompt", plan_args.cached, "Of the prompt, tokens already cached from an earlier turn (default 0)");
    planner->add_option("--users", plan_args.users, "Concurrent users (sequences)");
    planner->add_option("--rate", plan_args.rate, "Requests per second (instead of --users)");
    planner->add_option("--tpot-ms", plan_args.tpot_ms, "Time-per-output-token target, ms");
    planner->add_option("--ttft-ms", plan_args.ttft_ms, "Time-to-first-token target, ms");
    planner->add_option("--price", plan_args.price, "Price per device-hour: h100-sxm=2.50,h200=3.50 (ranks by cost per million tokens)");
    planner->add_option("--max-devices", plan_args.max_devices, "Most devices a plan may use (default 64)");
    planner->add_option("--weights", plan_args.weights, "Weight formats to try (default bf16,fp8)");
    planner->add_option("--mode", plan_args.mode, "Serving: agg, disagg or both (default)")->check(CLI::IsMember({"agg", "disagg", "both"}));
    planner->add_option("--chunk", plan_args.chunk, "Aggregated: prompt tokens a step carries at most (default 2048)");
    planner->add_option("--kv", plan_args.kv, "KV-cache format (default bf16)");
    planner->add_option("--compute", plan_args.compute, "Compute format (default bf16)");
    planner->add_option("--efficiency", plan_args.efficiency, "Fraction of peak bandwidth achieved (default 1: the ceiling)");
    planner->add_option("--overhead-us", plan_args.overhead_us, "Fixed time per step in microseconds (default 0)");
    planner->add_option("--memory-fraction", plan_args.memory_fraction, "Share of the reported memory the engine takes (default 0.9)");
    planner->add_option("--reserve-gib", plan_args.reserve_gib, "Memory kept back for the runtime per device, GiB (default 1)");
    planner->add_option("--link-latency-us", plan_args.link_latency_us, "Latency per message on the links, us (default: the preset's)");
    planner->add_option("--show", plan_args.show, "plans (default: feasible plans, cheapest first) or pareto")->check(CLI::IsMember({"plans", "pareto"}));
    planner->add_option("--top", plan_args.top, "Rows shown (default 20)");
    planner->add_option("--svg", plan_args.svg, "Write the Pareto front as an SVG here");
    planner->add_option("--format", plan_args.format, "Output: table (default), csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
    planner->footer("Example: ridgeline plan -m llama-3.1-70b -H h100-sxm,h200 --prompt 8192 --cached-prompt 7936 --output 512 "
                    "--users 64 --tpot-ms 30 --price h100-sxm=2.50,h200=3.50 --max-devices 16");

    // CLI11's own errors echo what was typed: escape control characters in them too.
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return cli::printable(e.what()) + "\nRun with --help for more information.\n";
    });

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return 2;
    }

    try {
        if (*list) run_list(list_what, s.format);
        else if (*show) run_show(show_target, s.format);
        else if (*model) run_model(s);
        else if (*decode) run_decode(s);
        else if (*ridge) run_ridge(s);
        else if (*ops) run_operators(s);
        else if (*capacity) run_capacity(s);
        else if (*gen) {
            // generate starts from an empty context: the prompt is the context it decodes from.
            if (gen->count("--context") > 0)
                cli::bad_value("--context", s.context, "no --context for generate: it starts from an empty context; give the prompt length with --prompt");
            run_generate(s, gen_args);
        }
        else if (*diag) run_diagnose(s, diag_args);
        else if (*cal) run_calibrate(cal_args);
        else if (*pred) run_predict(s, calibration);
        else if (*plot) run_plot(s, out);
        else if (*planner) run_plan(plan_args);
        return 0;
    } catch (const cli::usage_error& e) {
        fmt::print(stderr, "ridgeline: {}\n", cli::printable(e.what()));
        return 2;
    } catch (const ridgeline::error& e) {
        const bool flags = !*cal && !*list && !*show && !*model && !*planner;  // the rest take the workload flags
        fmt::print(stderr, "ridgeline: {}\n", cli::printable(flags ? in_user_terms(e, current_device ? *current_device : s.hw) : e.what()));
        return 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "ridgeline: {}\n", cli::printable(e.what()));
        return 1;
    }
}
