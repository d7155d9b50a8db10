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
#include "table.hpp"

using namespace ridgeline;

namespace {

// The unit ridgeline::s, under a name no local `s` hides.
constexpr auto seconds = ridgeline::s;

// ---------------------------------------------------------------------------------------------
// Options most subcommands share
// ---------------------------------------------------------------------------------------------

struct Setting {
    std::string hardware = "h100-sxm";
    std::string model;
    std::string kv = "bf16", compute = "bf16";
    // Unset unless given: "--max-context ''" is given, and refused, not taken for absent. Unset
    // storage formats come from the checkpoint (its torch_dtype and quantization_config).
    std::optional<std::string> weights, embeddings, experts, lm_head;
    std::string formats_source = "flags";
    std::string model_notes;  // how the model's file was read, when that needs saying
    std::string batch = "1", context = "0";
    std::string tp_arg = "1", pp_arg = "1", ep_arg = "1", dp_arg = "1";  // as typed
    std::string efficiency = "1", overhead_us = "0";
    std::string assumptions = "physical", accounting, attention_flops;
    std::optional<std::string> memory_fraction, reserve_gib, link_latency_us, max_context_arg;
    std::string format = "table";

    // Resolved
    Hardware hw{};
    Deployment dep{};
    Model m{};
    Workload base{};
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

std::string si(double v, const char* unit, int decimals = 2) {
    const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    int i = 0;
    while (std::abs(v) >= 1000 && i < 5) v /= 1000, ++i;
    return cli::shown(v, decimals, std::string("{} ") + prefixes[i] + unit);
}

std::string params_text(double p) { return cli::shown(p / 1e9, 2, "{}B"); }

// The inputs every row echoes.
std::vector<cli::Column> input_columns() {
    return {{"hardware", "hardware", false}, {"model", "model", false}, {"weights", "weights", false},
            {"kv", "kv", false},             {"compute", "compute", false}, {"tp", "tp"},
            {"pp", "pp"},                    {"ep", "ep"},
            {"dp", "dp"},                    {"assumptions", "assumptions", false, false},
            {"accounting", "accounting", false, false}, {"attention_flops", "attention FLOPs", false, false},
            {"embedding_lookup_flops", "lookup FLOPs", false, false}, {"memory_fraction", "memory fraction", true, false},
            {"runtime_reserve_bytes", "reserve", true, false}, {"experts", "experts", false, false},
            {"embeddings", "embeddings", false, false}, {"lm_head", "lm_head", false, false},
            {"formats_source", "formats from", false, false}};
}
std::vector<cli::Cell> input_cells(const Setting& s) {
    const Precision& p = s.base.precision;
    const Assumptions& a = s.base.assumptions;
    // The table shows the experts' or the table's format beside the weights' when they differ.
    std::string weights = format_name(p.weights);
    if (p.expert_format() != p.weights) weights += ", experts " + format_name(p.expert_format());
    if (p.embedding_format() != p.weights) weights += ", embeddings " + format_name(p.embedding_format());
    if (p.lm_head_format() != p.weights && !s.m.tied_embeddings) weights += ", lm_head " + format_name(p.lm_head_format());
    return {cli::text(s.hardware), cli::text(std::string(s.m.name.view())), cli::Cell{format_name(p.weights), weights},
            cli::text(format_name(p.kv)), cli::text(std::string(name_of(p.compute))), cli::integer(s.tp),
            cli::integer(s.pp), cli::integer(s.ep), cli::integer(s.dp), cli::text(assumptions_name(a)),
            cli::text(a.accounting == WeightAccounting::bytes_read ? "bytes_read" : "every_parameter"),
            cli::Cell{a.attention_flops, a.attention_flops ? "on" : "off"},
            cli::Cell{a.embedding_lookup_flops, a.embedding_lookup_flops ? "on" : "off"},
            cli::number(a.memory_fraction, 2), cli::number(a.runtime_reserve.in(bytes), 0),
            cli::text(format_name(p.expert_format())), cli::text(format_name(p.embedding_format())),
            cli::text(format_name(p.lm_head_format())), cli::text(s.formats_source)};
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

template <class T>
void append(std::vector<T>& a, std::vector<T> b) {
    a.insert(a.end(), std::make_move_iterator(b.begin()), std::make_move_iterator(b.end()));
}

// ---------------------------------------------------------------------------------------------
// Subcommands
// ---------------------------------------------------------------------------------------------

void run_list(const std::string& what, const std::string& format) {
    if (what == "hardware") {
        cli::Table t({{"name", "name", false}, {"device", "device", false}, {"memory_bytes", "memory"},
                      {"memory_bandwidth_bytes_per_s", "bandwidth"}, {"bf16_flop_per_s", "dense bf16/fp16"}});
        for (const auto& name : list_presets(PresetKind::hardware)) {
            const Hardware h = load_hardware(name);
            const auto peak = h.peak_for(Numeric::bf16) ? h.peak_for(Numeric::bf16) : h.peak_for(Numeric::fp16);
            t.add({cli::text(name), cli::text(std::string(h.name.view())),
                   cli::number(h.memory_capacity.in(bytes), si(h.memory_capacity.in(bytes), "B", 0)),
                   cli::number(h.memory_bandwidth.in(bytes_per_s), si(h.memory_bandwidth.in(bytes_per_s), "B/s")),
                   peak ? cli::number(peak->in(flop_per_s), si(peak->in(flop_per_s), "FLOP/s", 1)) : cli::null("-")});
        }
        t.print(format);
        return;
    }
    cli::Table t({{"name", "name", false}, {"layers", "layers"}, {"total_params", "total"}, {"active_params", "active"},
                  {"kv_bytes_per_token", "KV/token (bf16)"}});
    for (const auto& name : list_presets(PresetKind::model)) {
        const Model m = load_model(name);
        const double total = derived_parameters(m).total(), active = active_parameters(m).total();
        const double kv = kv_bytes_per_token(m, formats::bf16).in(bytes);
        t.add({cli::text(name), cli::integer(layer_count(m)), cli::number(total, params_text(total)),
               cli::number(active, params_text(active)), cli::converted(kv, kv / 1024, 1, "{} KiB")});
    }
    t.print(format);
}

void show_hardware(const Hardware& h, const std::string& format) {
    cli::Table t({{"field", "field", false}, {"value", "value", false}});
    t.add({cli::text("name"), cli::text(std::string(h.name.view()))});
    t.add({cli::text("memory_bytes"), cli::number(h.memory_capacity.in(bytes), si(h.memory_capacity.in(bytes), "B", 1))});
    t.add({cli::text("memory_bandwidth_bytes_per_s"),
           cli::number(h.memory_bandwidth.in(bytes_per_s), si(h.memory_bandwidth.in(bytes_per_s), "B/s"))});
    for (Numeric n : all_numerics)
        if (const auto p = h.peak_for(n)) {
            t.add({cli::text(fmt::format("{}_dense_flop_per_s", n)), cli::number(p->in(flop_per_s), si(p->in(flop_per_s), "FLOP/s", 1))});
            t.add({cli::text(fmt::format("{}_ops_per_byte", n)), cli::number(ops_per_byte(h, n).in(flop_per_byte), 1)});
        }
    if (h.interconnect_bandwidth)
        t.add({cli::text("interconnect_bytes_per_s"),
               cli::number(h.interconnect_bandwidth->in(bytes_per_s), si(h.interconnect_bandwidth->in(bytes_per_s), "B/s"))});
    t.print(format);
}

void show_model(const Model& m, const std::string& format, const std::string& notes = "") {
    cli::Table t({{"field", "field", false}, {"value", "value", false}});
    const ParameterBreakdown p = derived_parameters(m), a = active_parameters(m);
    t.add({cli::text("name"), cli::text(std::string(m.name.view()))});
    t.add({cli::text("hidden_size"), cli::integer(m.hidden_size)});
    t.add({cli::text("vocab_size"), cli::integer(m.vocab_size)});
    t.add({cli::text("tie_word_embeddings"), cli::Cell{m.tied_embeddings, m.tied_embeddings ? "true" : "false"}});
    for (std::size_t i = 0; i < m.group_count; ++i) {
        const LayerGroup& g = m.groups[i];
        std::string d = fmt::format("{} layers, ", g.count);
        d += std::visit([](const auto& k) { return k.describe(); }, g.spec.attention);
        if (g.spec.window > 0) d += fmt::format(", {} {}", g.spec.chunked ? "chunk" : "window", g.spec.window);
        d += ", " + std::visit([](const auto& k) { return k.describe(); }, g.spec.ffn);
        if (g.spec.norms != 2) d += fmt::format(", {} norms", g.spec.norms);
        t.add({cli::text(fmt::format("layer_group_{}", i)), cli::text(d)});
    }
    const auto row = [&](const char* key, double v) { t.add({cli::text(key), cli::converted(v, v, 0, "{}")}); };
    row("embeddings_params", p.embeddings);
    row("attention_params", p.attention);
    row("dense_mlp_params", p.dense_mlp);
    row("expert_params", p.experts);
    row("shared_expert_params", p.shared_experts);
    row("router_params", p.router);
    row("norm_params", p.norms);
    row("lm_head_params", p.lm_head);
    row("total_params", p.total());
    row("active_params", a.total());
    if (m.mtp_layers > 0) row("mtp_params", mtp_parameters(m));
    const double kv = kv_bytes_per_token(m, formats::bf16).in(bytes);
    t.add({cli::text("kv_bytes_per_token_bf16"), cli::number(kv, cli::shown(kv, 0, "{} B") + cli::shown(kv / 1024, 1, " ({} KiB)"))});
    const double state = state_bytes_per_sequence(m, formats::bf16).in(bytes);
    if (state > 0) t.add({cli::text("state_bytes_per_sequence_bf16"), cli::number(state, cli::shown(state / 1048576, 1, "{} MiB"))});
    if (!notes.empty()) t.add({cli::text("read_as"), cli::text(notes)});
    t.print(format);
}

void run_show(const std::string& target, const std::string& format) {
    const auto hw = list_presets(PresetKind::hardware);
    std::error_code ec;
    if (looks_like_path(target) || std::filesystem::exists(target, ec)) {
        const ResolvedPreset r = resolve(PresetKind::model, target);  // a directory means its config.json
        const auto j = read_json_file(r.file);
        if (j.is_object() && j.contains("model_type")) {
            const ConfigReading reading = read_config(j, r.file.string(), r.name);
            show_model(reading.model, format, reading.notes);
        } else {
            show_hardware(hardware_from_json(j, r.file.string()), format);
        }
    } else if (std::find(hw.begin(), hw.end(), target) != hw.end()) {
        show_hardware(load_hardware(target), format);
    } else {
        const LoadedModel loaded = load_model_with_formats(target);  // an unknown name errs with the model presets, closest first
        show_model(loaded.model, format, loaded.notes);
    }
}

void run_model(Setting& s) {
    s.m = load_model(s.model);
    const ParameterBreakdown p = derived_parameters(s.m), a = active_parameters(s.m);
    cli::Table t({{"model", "model", false}, {"format", "format", false}, {"total_params", "total"},
                  {"active_params", "active"}, {"weight_bytes", "weights"}, {"kv_bytes_per_token", "KV/token"}});
    for (const char* f : {"fp32", "bf16", "fp8", "int8", "int4/g128", "mxfp4", "int4"}) {
        const Format fmt_ = *parse_format(f);
        const double w = weights_per_device(s.m, Precision{fmt_, fmt_}).in(bytes);
        const double kv = kv_bytes_per_token(s.m, fmt_).in(bytes);
        t.add({cli::text(std::string(s.m.name.view())), cli::text(f), cli::number(p.total(), params_text(p.total())),
               cli::number(a.total(), params_text(a.total())), cli::number(w, si(w, "B")),
               cli::converted(kv, kv / 1024, 1, "{} KiB")});
    }
    t.print(s.format);
}

// A cell from a decode schema field (decode_schema.hpp): the raw value for JSON and CSV, the
// shown text for the table.
// A value in a table cell, as its schema says to show it (output_schema.hpp).
cli::Cell field_cell(Show show, int decimals, const FieldValue& v) {
    if (const auto* n = std::get_if<Null>(&v)) return cli::null(n->shown);
    if (const auto* b = std::get_if<bool>(&v)) return cli::Cell{*b, *b ? "yes" : "NO"};
    if (const auto* t = std::get_if<std::string>(&v)) return cli::text(*t);
    if (const auto* i = std::get_if<std::int64_t>(&v)) return cli::integer(*i);
    const double x = std::get<double>(v);
    switch (show) {
        case Show::bytes: return cli::number(x, si(x, "B"));
        case Show::flops: return cli::number(x, si(x, "FLOP"));
        case Show::milliseconds: return cli::converted(x, x * 1e3, decimals, "{} ms");
        case Show::seconds: return cli::converted(x, x, decimals, "{} s");
        case Show::number: return cli::number(x, decimals);
        case Show::count: return cli::number(x, x == std::floor(x) ? 0 : 2);
        case Show::word:
        case Show::yes_no: break;
    }
    return cli::number(x, 3);
}

// A schema's columns, and a row's cells in them.
template <class Row>
void append_columns(std::vector<cli::Column>& columns, const Schema<Row>& fields) {
    for (const Field<Row>& f : fields) columns.push_back({f.key, f.header, f.numeric()});
}
template <class Row>
void append_cells(std::vector<cli::Cell>& cells, const Schema<Row>& fields, const Row& row) {
    for (const Field<Row>& f : fields) cells.push_back(field_cell(f.show, f.decimals, f.get(row)));
}

void run_decode(Setting& all) {
    std::vector<Setting> settings = combinations(all);
    require_rows(settings.front(), true, true, settings.size());
    auto columns = input_columns();
    append(columns, std::vector<cli::Column>{{"batch", "batch"}, {"context_tokens", "context"}});
    append_columns(columns, decode_fields());
    cli::Table t(columns);
    std::optional<DecodeStep> last;
    for (const Setting& s : settings)
    for (std::int64_t b : s.batches)
        for (std::int64_t n : s.contexts) {
            current_device = s.hw;
            Workload w = s.base;
            w.batch = b;
            w.context = n;
            const DecodeStep d = decode_step(s.dep, s.m, w);
            last = d;
            auto row = input_cells(s);
            append(row, std::vector<cli::Cell>{cli::integer(b), cli::integer(n)});
            append_cells(row, decode_fields(), d);
            t.add(row);
        }
    t.print(all.format);
    print_assumptions(settings.back(), last);
}

// The step per operator (operators.hpp), one device's share, in the page's columns (operators_schema.hpp).
void run_operators(Setting& all) {
    std::vector<Setting> settings = combinations(all);
    require_rows(settings.front(), true, true, settings.size());
    auto columns = input_columns();
    append(columns, std::vector<cli::Column>{{"batch", "batch"}, {"context_tokens", "context"}});
    append_columns(columns, operator_fields());
    cli::Table t(columns);
    for (const Setting& s : settings)
        for (std::int64_t b : s.batches)
            for (std::int64_t n : s.contexts) {
                current_device = s.hw;
                Workload w = s.base;
                w.batch = b;
                w.context = n;
                for (const Operator& o : operators(s.dep, s.m, w)) {
                    auto row = input_cells(s);
                    append(row, std::vector<cli::Cell>{cli::integer(b), cli::integer(n)});
                    append_cells(row, operator_fields(), o);
                    t.add(row);
                }
            }
    t.print(all.format);
    print_assumptions(settings.back());
}

void run_ridge(Setting& s) {
    resolve(s);
    const auto nstar = n_star(s.dep, s.m, s.base);
    auto columns = input_columns();
    append_columns(columns, ridge_fields());
    cli::Table t(columns);
    for (std::int64_t n : s.contexts) {
        auto row = input_cells(s);
        append_cells(row, ridge_fields(), ridge_row(s.dep, s.m, s.base, n, nstar));
        t.add(row);
    }
    t.print(s.format);
    print_assumptions(s);
}

void run_capacity(Setting& all) {
    std::vector<Setting> settings = combinations(all);
    require_rows(settings.front(), true, true, settings.size());
    auto columns = input_columns();
    append_columns(columns, capacity_fields());
    cli::Table t(columns);
    for (const Setting& s : settings)
        for (std::int64_t n : s.contexts)
            for (std::int64_t b : s.batches) {
                current_device = s.hw;
                auto row = input_cells(s);
                append_cells(row, capacity_fields(), capacity_row(s.dep, s.m, s.base, n, b));
                t.add(row);
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
    auto columns = input_columns();
    append_columns(columns, generation_fields());
    cli::Table t(columns);
    for (const Setting& s : settings)
        for (std::int64_t b : s.batches) {
            current_device = s.hw;
            Workload w = s.base;
            w.batch = b;
            auto row = input_cells(s);
            append_cells(row, generation_fields(), GenerationRow{b, generate(s.dep, s.m, w, prompt, new_tokens, chunk)});
            t.add(row);
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
    const Diagnosis d = diagnose(s.dep, s.m, w, measured, 0.9, draft_tokens);
    cli::Table t({{"field", "field", false}, {"value", "value", false}});
    const auto add = [&](const char* k, cli::Cell c) { t.add({cli::text(k), std::move(c)}); };
    add("hardware", cli::text(s.hardware));
    add("model", cli::text(std::string(s.m.name.view())));
    add("batch", cli::integer(w.batch));
    add("context_tokens", cli::integer(w.context));
    add("measured_tokens_per_s", cli::number(1.0 / measured.in(seconds), 2));
    add("ceiling_tokens_per_s", cli::number(d.ceiling.tokens_per_s.in(per_s), 2));
    add("fraction_of_ceiling", cli::converted(d.fraction_of_ceiling, 100 * d.fraction_of_ceiling, 1, "{}%"));
    add("implied_bandwidth_bytes_per_s", cli::number(d.implied_bandwidth.in(bytes_per_s), si(d.implied_bandwidth.in(bytes_per_s), "B/s")));
    add("bandwidth_utilisation", cli::converted(d.bandwidth_utilisation, 100 * d.bandwidth_utilisation, 1, "{}%"));
    add("verdict", cli::text(name_of(d.verdict)));
    std::string reading;
    if (d.verdict == Verdict::near_ceiling) {
        reading = "at the byte budget: more speed needs fewer bytes per token or more bandwidth";
    } else if (d.verdict == Verdict::gap) {
        // In calibrate's words: one measurement cannot tell the terms apart, so it says what a
        // fixed time alone would be, and what bandwidth efficiency alone would be.
        const Seconds above = d.measured_step - d.ceiling.step_time;
        reading = cli::shown(100 * d.gap, 0, "{}% below the ceiling, ") + cli::shown(above.in(ms), 2, "{} ms a step above its ") +
                  cli::shown(d.ceiling.step_time.in(ms), 2, "{} ms: ") + cli::shown(above.in(ms), 2, "a fixed time per step of {} ms alone, ") +
                  cli::shown(100 * d.ceiling.memory_time.in(seconds) / (d.ceiling.memory_time + above).in(seconds), 0,
                             "or bandwidth efficiency below peak at {}% alone, would explain it (calibrate tells them apart)");
        add("gap", cli::converted(d.gap, 100 * d.gap, 1, "{}%"));
    } else {
        reading = "faster than this setting allows; any one of these would explain it";
        add("max_bits_per_weight", d.max_bits_per_weight ? cli::number(*d.max_bits_per_weight, 2) : cli::null("none (the KV alone is slower)"));
        add("min_devices", cli::integer(d.min_devices));
        add("draft_tokens", cli::integer(d.draft_tokens));
        add("min_acceptance", d.min_acceptance ? cli::number(*d.min_acceptance, 3) : cli::null("none (more than g + 1 tokens a step)"));
    }
    add("reading", cli::text(reading));
    t.print(s.format);
}

struct CalibrateArgs {
    std::string measurements;
    std::string hardware;  // empty: the first remaining row's
    std::optional<std::string> engine, model, save;
    std::vector<std::string> where;  // key=value on a row's engine, engine_version, weights, date, model
    bool per_layer = false;
    std::string format = "table";
};

// A row's value for --where.
std::string row_field(const MeasuredRow& r, const std::string& key) {
    if (key == "engine") return r.engine;
    if (key == "engine_version") return r.engine_version;
    if (key == "date") return r.date;
    if (key == "model") return r.model;
    if (key == "hardware") return r.hardware;
    if (key == "weights") return format_name(r.workload.precision.weights);
    if (key == "tp") return std::to_string(r.parallel.tensor);
    if (key == "batch") return std::to_string(r.workload.batch);
    throw cli::usage_error("--where: got \"" + key + "\", expected one of engine, engine_version, date, model, hardware, weights, tp, batch");
}

void run_calibrate(const CalibrateArgs& a) {
    std::vector<std::pair<std::string, std::string>> where;
    for (const auto& w : a.where) {
        const std::size_t eq = w.find('=');
        if (eq == std::string::npos || eq == 0) cli::bad_value("--where", w, "KEY=VALUE, e.g. weights=bf16");
        (void)row_field(MeasuredRow{}, w.substr(0, eq));  // an unknown key is a usage error before any file is read
        where.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    }
    const MeasurementSet set = load_measurements(a.measurements);
    // The rows the filters keep; flagged rows are listed, not fitted.
    std::vector<const MeasuredRow*> kept;
    std::vector<std::string> flagged;
    std::string hw_name = a.hardware;
    for (const MeasuredRow& r : set.rows) {
        if (a.engine && r.engine != *a.engine) continue;
        if (a.model && r.model != *a.model) continue;
        bool match = true;
        for (const auto& [k, v] : where) match = match && row_field(r, k) == v;
        if (!match) continue;
        if (hw_name.empty()) hw_name = r.hardware;
        if (r.hardware != hw_name) continue;
        if (r.flagged) {
            flagged.push_back("/measurements/" + std::to_string(&r - set.rows.data()) + ": " + *r.flagged);
            continue;
        }
        kept.push_back(&r);
    }
    if (kept.empty())
        throw cli::usage_error("calibrate: no row of " + a.measurements + " is left by the filters" +
                               (flagged.empty() ? "" : " (" + std::to_string(flagged.size()) + " flagged rows are never fitted)"));
    const Hardware hw = load_hardware(hw_name);
    std::vector<Observation> obs;
    for (const MeasuredRow* r : kept) obs.push_back(observation(*r));
    CalibrationTerms terms;
    terms.per_layer = a.per_layer;
    // The library numbers the observations it was given; say which row of which file that is.
    const auto row_of = [&](std::size_t i) { return static_cast<std::size_t>(kept.at(i) - set.rows.data()); };
    const Calibration c = [&] {
        try {
            return calibrate(hw, obs, terms);
        } catch (const ridgeline::error& e) {
            const std::string& path = e.path();
            if (!path.starts_with("observations[")) throw;
            throw ridgeline::error(a.measurements, "/measurements/" + std::to_string(row_of(std::stoul(path.substr(13)))), e.value(), e.expected());
        }
    }();
    const std::vector<double> loo = leave_one_out(hw, obs, terms);
    cli::Table t({{"row", "row"}, {"engine", "engine", false}, {"model", "model", false}, {"weights", "weights", false}, {"tp", "tp"},
                  {"batch", "batch"}, {"context_tokens", "context"}, {"timed", "timed", false}, {"measured_step_s", "measured"}, {"predicted_step_s", "predicted"},
                  {"residual_s", "residual"}, {"residual_fraction", "residual %"}, {"fitted", "fitted", false}});
    for (std::size_t i = 0; i < obs.size(); ++i) {
        const MeasuredRow& r = *kept[i];
        const bool used = std::find(c.used.begin(), c.used.end(), i) != c.used.end();
        const double rel = c.residuals[i].in(seconds) / r.measured_step.in(seconds);
        t.add({cli::integer(static_cast<std::int64_t>(row_of(i))), cli::text(r.engine.empty() ? "-" : r.engine), cli::text(r.model),
               cli::text(format_name(r.workload.precision.weights)), cli::integer(r.parallel.tensor), cli::integer(r.workload.batch),
               cli::integer(r.workload.context),
               cli::text(r.requests.timed == Timed::decode_steps ? std::string("steps")
                         : std::to_string(r.requests.prompt) + "+" + std::to_string(r.requests.output) +
                               (r.requests.timed == Timed::whole_requests ? " requests" : " served")),
               cli::converted(r.measured_step.in(seconds), r.measured_step.in(ms), 2, "{} ms"),
               cli::converted(c.predicted[i].in(seconds), c.predicted[i].in(ms), 2, "{} ms"),
               cli::converted(c.residuals[i].in(seconds), c.residuals[i].in(ms), 2, "{} ms", true),
               cli::converted(rel, 100 * rel, 1, "{}%", true), cli::Cell{used, used ? "yes" : "set aside"}});
    }
    t.print(a.format);
    const auto pm = [](double v, const std::optional<double>& e, double scale, int decimals, const char* unit) {
        return cli::shown(v * scale, decimals) + (e ? " +/- " + cli::shown(*e * scale, decimals) : "") + unit;
    };
    std::vector<double> sorted = loo;
    std::sort(sorted.begin(), sorted.end());
    // Plain doubles and a flag: g++ 12 -O2 warns (maybe-uninitialized, a false positive) on optionals here.
    const bool have_loo = !sorted.empty();
    const double median = have_loo ? sorted[sorted.size() / 2] : 0.0, worst = have_loo ? sorted.back() : 0.0;
    if (a.format == "table") {
        fmt::print("fit on {} of {} rows for {}: bandwidth {}, compute {}, {} a step{}; rms error {}%\n", c.used.size(), obs.size(),
                   cli::printable(hw_name), pm(c.bandwidth_efficiency, c.bandwidth_efficiency_error, 100, 1, "%"),
                   pm(c.compute_efficiency, c.compute_efficiency_error, 100, 1, "%"),
                   pm(c.overhead.in(ms), c.overhead_error ? std::optional<double>(c.overhead_error->in(ms)) : std::nullopt, 1, 3, " ms"),
                   a.per_layer ? ", " + pm(c.per_layer.in(us), c.per_layer_error ? std::optional<double>(c.per_layer_error->in(us)) : std::nullopt, 1, 1, " us a layer") : "",
                   cli::shown(100 * c.rms_relative_error, 1));
        fmt::print("the gap: {}\n", c.explanation);
        if (have_loo) fmt::print("leave-one-out error: median {}%, worst {}%\n", cli::shown(100 * median, 1), cli::shown(100 * worst, 1));
        for (const auto& x : c.set_aside) {  // "observations[i]: ..." names the library's row; say the file's
            const std::size_t close = x.find("]: ");
            const std::size_t i = std::stoul(x.substr(13, close - 13));
            fmt::print("set aside: {}: /measurements/{}: {}\n", cli::printable(a.measurements), row_of(i), cli::printable(x.substr(close + 3)));
        }
        for (const auto& x : flagged) fmt::print("flagged in the file, not fitted: {}\n", cli::printable(x));
    }
    if (a.save) {
        nlohmann::ordered_json j = nlohmann::ordered_json::object();
        j["engine"] = a.engine.value_or(kept.front()->engine);
        j["hardware"] = hw_name;
        j["measurements"] = a.measurements;
        j["filters"] = a.where;
        j["bandwidth_efficiency"] = c.bandwidth_efficiency;
        j["compute_efficiency"] = c.compute_efficiency;
        j["overhead_s"] = c.overhead.in(seconds);
        j["per_layer_s"] = c.per_layer.in(seconds);
        const auto opt = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
        j["bandwidth_efficiency_error"] = opt(c.bandwidth_efficiency_error);
        j["compute_efficiency_error"] = opt(c.compute_efficiency_error);
        j["overhead_error_s"] = opt(c.overhead_error ? std::optional<double>(c.overhead_error->in(seconds)) : std::nullopt);
        j["per_layer_error_s"] = opt(c.per_layer_error ? std::optional<double>(c.per_layer_error->in(seconds)) : std::nullopt);
        j["rms_relative_error"] = c.rms_relative_error;
        j["explanation"] = c.explanation;
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const std::size_t i : c.used) rows.push_back(static_cast<std::int64_t>(row_of(i)));
        j["rows"] = rows;
        j["leave_one_out"] = {{"median", have_loo ? nlohmann::ordered_json(median) : nlohmann::ordered_json(nullptr)},
                              {"worst", have_loo ? nlohmann::ordered_json(worst) : nlohmann::ordered_json(nullptr)}};
        std::ofstream out(*a.save, std::ios::binary);
        if (!out || !(out << cli::dump_json(j) << "\n")) throw error(*a.save, "", "a file that cannot be written", "a writable path");
        fmt::print(stderr, "wrote {}\n", cli::printable(*a.save));
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
    const PredictionRange r = predict_range(s.dep, s.m, w, preset.fit);
    cli::Table t({{"field", "field", false}, {"value", "value", false}});
    const auto add = [&](const char* k, cli::Cell c) { t.add({cli::text(k), std::move(c)}); };
    const auto time = [](Seconds v) { return cli::converted(v.in(seconds), v.in(ms), 3, "{} ms"); };
    add("hardware", cli::text(s.hardware));
    add("model", cli::text(std::string(s.m.name.view())));
    add("calibration", cli::text(preset.engine + " on " + preset.hardware));
    add("batch", cli::integer(w.batch));
    add("context_tokens", cli::integer(w.context));
    add("ceiling_step_s", time(r.ceiling.step_time));
    add("predicted_step_s", time(r.estimate.step_time));
    add("fastest_step_s", time(r.fastest));
    add("slowest_step_s", time(r.slowest));
    add("predicted_tokens_per_s", cli::number(r.estimate.tokens_per_s.in(per_s), 1));
    add("ceiling_tokens_per_s", cli::number(r.ceiling.tokens_per_s.in(per_s), 1));
    add("leave_one_out_median", preset.leave_one_out_median ? cli::converted(*preset.leave_one_out_median, 100 * *preset.leave_one_out_median, 1, "{}%") : cli::null("-"));
    add("leave_one_out_worst", preset.leave_one_out_worst ? cli::converted(*preset.leave_one_out_worst, 100 * *preset.leave_one_out_worst, 1, "{}%") : cli::null("-"));
    t.print(s.format);
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
    append_columns(columns, plan_fields());
    cli::Table t(columns);
    std::int64_t rank = 0;
    for (const PlanRow& row : rows) {
        if (++rank > top) break;
        std::vector<cli::Cell> cells{cli::integer(rank)};
        append_cells(cells, plan_fields(), row);
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
    cal->add_option("--measurements", cal_args.measurements, "A measurements JSON file or a name in data/measurements")->required();
    cal->add_option("--hardware,-H", cal_args.hardware, "Use the rows of this hardware (default: the first remaining row's)");
    cal->add_option("--engine", cal_args.engine, "Use the rows of this engine only");
    cal->add_option("--model,-m", cal_args.model, "Use the rows of this model only");
    cal->add_option("--where", cal_args.where, "KEY=VALUE on engine, engine_version, date, model, hardware, weights, tp, batch (repeatable)");
    cal->add_flag("--per-layer", cal_args.per_layer, "Also fit a time per layer (kernel launches)");
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
