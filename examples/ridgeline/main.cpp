// ridgeline: the library's answers from a shell, as a table, CSV or JSON. Every number comes from
// the library; this file only parses arguments and prints.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
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
// Options: each flag read into its typed value once, as CLI11 parses it
// ---------------------------------------------------------------------------------------------

// An option whose text `read(flag, text)` turns into the target's value as CLI11 parses it, so a
// bad value is a usage error naming its flag before any file is read.
template <class T, class Read>
CLI::Option* add_read(CLI::App* app, const std::string& names, T& target, Read read, const std::string& help) {
    const std::string flag = cli::long_name(names);
    return app->add_option_function<std::string>(
        names, [&target, read, flag](const std::string& text) { target = read(flag, text); }, help);
}

const auto read_format = [](const std::string& f, const std::string& t) { return cli::parse_format_option(f, t); };
const auto read_output = [](const std::string& f, const std::string& t) { return cli::parse_output(f, t); };
const auto read_fraction = [](const std::string& f, const std::string& t) { return cli::parse_fraction(f, t); };

// The flags the workload subcommands share (decode, operators, ridge, capacity, generate,
// diagnose, predict, plot), typed. Lists hold every value the list commands combine; the
// single-setting commands take one of each.
struct WorkloadOptions {
    std::vector<std::string> hardware{"h100-sxm"};  // preset names or files
    bool hardware_given = false;                     // -H given (predict defaults to its calibration's device)
    std::string model;
    std::vector<std::optional<Format>> weights{std::nullopt};  // nullopt: the checkpoint's formats
    std::string weights_text = "checkpoint";                    // --weights as typed
    Format kv = formats::bf16;
    std::optional<Numeric> compute;  // unset: default_compute(the device), bf16 but on a V100
    std::optional<Format> embeddings, experts, attention, lm_head, router_and_norms;
    cli::ListFlag batches{{1}, "1"}, contexts{{0}, "0"};
    std::vector<std::int64_t> tp{1}, pp{1}, ep{1};
    std::int64_t dp = 1;
    std::int64_t attention_dp = 1;  // 0: --attention-dp tp, one rank per tensor-parallel device
    std::optional<Seconds> link_latency;
    std::optional<BytesPerSecond> link_bandwidth;
    double efficiency = 1;
    Seconds overhead{};
    bool efficiency_given = false, overhead_given = false;  // even at the default (diagnose and predict refuse them)
    bool seed_assumptions = false;  // --assumptions seed_003
    std::optional<WeightAccounting> accounting;
    std::optional<bool> attention_flops;
    std::optional<double> memory_fraction;
    std::optional<Bytes> reserve;
    std::optional<std::int64_t> max_context;
    cli::Output format = cli::Output::table;
};

// How many settings a subcommand takes: the list commands combine lists of -H, --weights, --tp,
// --pp and --ep; the others read one setting, and of those diagnose and predict one batch and
// one context too (require_one_point).
enum class Settings { lists, one, point };

void add_format(CLI::App* app, cli::Output& format) {
    add_read(app, "--format", format, read_output, "Output: table (default), csv or json");
}

void add_workload(CLI::App* app, WorkloadOptions& o, Settings settings) {
    using cli::parse_integer_option;
    const bool lists = settings == Settings::lists;
    add_read(app, "--hardware,-H", o.hardware,
             [lists, command = app->get_name(), &o](const std::string& f, const std::string& t) {
                 o.hardware_given = true;
                 if (!lists && t.find(',') != std::string::npos) cli::bad_value(f, t, "one device: " + command + " reads a single setting");
                 if (!lists) return std::vector<std::string>{t};
                 std::vector<std::string> pieces = cli::split_commas(f, t);
                 cli::refuse_same_file(f, t, pieces, PresetKind::hardware);
                 return pieces;
             },
             lists ? "Hardware preset names or JSON files, a list: h100-sxm,h200 (default h100-sxm)"
                   : "Hardware preset name or JSON file (default h100-sxm)");
    app->add_option("--model,-m", o.model, "Model preset name, or a path to a config.json or checkpoint directory")->required();
    add_read(app, "--weights", o.weights,
             [lists, &o](const std::string& f, const std::string& t) {
                 o.weights_text = t;
                 std::vector<std::optional<Format>> out;
                 // "checkpoint": the model's own formats, beside others to compare (as plan takes it).
                 for (const auto& piece : lists ? cli::split_commas(f, t) : std::vector<std::string>{t})
                     out.emplace_back(piece == "checkpoint" ? std::nullopt : std::optional(cli::parse_format_option(f, piece)));
                 return out;
             },
             std::string("Format of the linear layers and experts: bf16, fp8, int8, int4, mxfp4, int4/g128, ... (the embeddings and LM "
                         "head stay the checkpoint's), or checkpoint (the default: the checkpoint's own, from its torch_dtype and "
                         "quantization_config)") + (lists ? "; a list: checkpoint,fp8" : ""));
    add_read(app, "--kv", o.kv, read_format, "KV-cache format (default bf16)");
    add_read(app, "--compute", o.compute,
             [](const std::string& f, const std::string& t) { return std::optional(cli::parse_numeric_option(f, t)); },
             "Compute format whose peak the math runs on (default bf16, or fp16 on a device without a bf16 peak)");
    add_read(app, "--embeddings", o.embeddings, read_format, "Format of the input embedding table, if not the checkpoint's");
    add_read(app, "--experts", o.experts, read_format, "Format of the routed experts, if not the weights'");
    add_read(app, "--attention", o.attention, read_format,
             "Format of the attention's (and recurrent mixers') projections, if not the weights' (NVFP4 releases keep them in bf16)");
    add_read(app, "--lm-head", o.lm_head, read_format, "Format of an untied LM head, if not the checkpoint's");
    add_read(app, "--router-and-norms", o.router_and_norms, read_format,
             "Format of the norms and MoE routers, if not the checkpoint's (a GGUF keeps them in fp32)");
    const bool point = settings == Settings::point;
    const auto points = [point](std::int64_t least) {
        return [point, least](const std::string& f, const std::string& t) {
            return point ? cli::parse_point_flag(f, t, least) : cli::parse_list_flag(f, t, least);
        };
    };
    add_read(app, "--batch,-b", o.batches, points(1), point ? "Batch size (default 1)" : "Batch sizes: 1,8,64 or 1..256x2 (default 1)");
    add_read(app, "--context,-c", o.contexts, points(0),
             point ? "Context length in tokens (default 0)" : "Context lengths in tokens: 0,4096 or 0..8192+1024 (default 0)");
    const auto degrees = [lists](const std::string& f, const std::string& t) {
        return lists ? cli::parse_degrees(f, t) : std::vector<std::int64_t>{parse_integer_option(f, t, 1, cli::most_degree)};
    };
    add_read(app, "--tp", o.tp, degrees,
             lists ? "Tensor-parallel degrees (default 1): 1,2,4 or 1..8x2" : "Tensor-parallel degree (default 1)");
    add_read(app, "--pp", o.pp, degrees, lists ? "Pipeline-parallel degrees (default 1); a list as --tp" : "Pipeline-parallel degree (default 1)");
    add_read(app, "--ep", o.ep, degrees,
             lists ? "Expert-parallel groups within the tensor-parallel devices (default 1; divides --tp); a list as --tp"
                   : "Expert-parallel groups within the tensor-parallel devices (default 1; divides --tp)");
    add_read(app, "--dp", o.dp, [](const std::string& f, const std::string& t) { return parse_integer_option(f, t, 1, std::int64_t{1} << 20); },
             "Data-parallel replicas (default 1)");
    add_read(app, "--attention-dp", o.attention_dp, [](const std::string& f, const std::string& t) { return cli::parse_attention_dp(f, t); },
             "Attention data-parallel ranks within the tensor-parallel devices (default 1; divides --tp), or tp: one rank a device, "
             "as SGLang's --enable-dp-attention and TensorRT-LLM's enable_attention_dp run it");
    add_read(app, "--link-latency-us", o.link_latency,
             [](const std::string& f, const std::string& t) { return std::optional(cli::parse_link_latency(f, t)); },
             "Latency per message on the links, us (default: the hardware preset's for the link; 2.7, NCCL's network figure, where it has none)");
    add_read(app, "--link-gb-per-s", o.link_bandwidth,
             [](const std::string& f, const std::string& t) { return std::optional(cli::parse_link_bandwidth(f, t)); },
             "Link bandwidth per device, GB/s, both directions together, for the link a preset lacks: a PCIe card's "
             "(e.g. 64 for PCIe 4.0 x16), or the network past an NVLink domain with no scale-out figure (e.g. 100 for a 400 Gb/s NIC)");
    add_read(app, "--efficiency", o.efficiency,
             [&o](const std::string& f, const std::string& t) {
                 o.efficiency_given = true;
                 return read_fraction(f, t);
             },
             "Fraction of peak bandwidth achieved, in (0, 1] (default 1: the ceiling)");
    add_read(app, "--overhead-us", o.overhead,
             [&o](const std::string& f, const std::string& t) {
                 o.overhead_given = true;
                 return cli::parse_overhead(f, t);
             },
             "Fixed time per step in microseconds (default 0)");
    add_read(app, "--assumptions", o.seed_assumptions,
             [](const std::string& f, const std::string& t) {
                 if (t != "physical" && t != "seed_003") cli::bad_value(f, t, "physical or seed_003");
                 return t == "seed_003";
             },
             "What results count: physical (default) or seed_003 (the seed documents' budget)");
    add_read(app, "--accounting", o.accounting,
             [](const std::string& f, const std::string& t) {
                 if (t != "read" && t != "every") cli::bad_value(f, t, "read or every");
                 return std::optional(t == "read" ? WeightAccounting::bytes_read : WeightAccounting::every_parameter);
             },
             "Weights charged: read (bytes read, default) or every (every parameter, the seeds')");
    add_read(app, "--attention-flops", o.attention_flops,
             [](const std::string& f, const std::string& t) {
                 if (t != "on" && t != "off") cli::bad_value(f, t, "on or off");
                 return std::optional(t == "on");
             },
             "Count attention-score FLOPs: on (default) or off (the seeds')");
    add_read(app, "--memory-fraction", o.memory_fraction, read_fraction,
             "Share of the reported memory the engine takes, in (0, 1] (default 0.9)");
    add_read(app, "--reserve-gib", o.reserve,
             [](const std::string& f, const std::string& t) { return std::optional(cli::parse_reserve(f, t)); },
             "Memory kept back for the runtime per device, GiB (default 1)");
    add_read(app, "--max-context", o.max_context,
             [](const std::string& f, const std::string& t) { return std::optional(parse_integer_option(f, t, 1, std::int64_t{1} << 40)); },
             "Raise the model's context limit (max_position_embeddings), e.g. 131072 for Qwen3 with YaRN");
    add_format(app, o.format);
}

// The device of the setting being computed, for errors in the user's terms (a copy: the
// settings are gone by the time an error reaches main).
std::optional<Hardware> current_device;

// One setting of the options' lists, resolved (cli::Resolved): its device, model, deployment
// and workload. The batches and contexts stay in the options.
using Setting = cli::Resolved;

Setting resolve(const WorkloadOptions& o, const std::string& hardware, const std::optional<Format>& weights, std::int64_t tp,
                std::int64_t pp, std::int64_t ep) {
    Setting s;
    s.hardware = hardware;
    Workload& w = s.base;
    Precision& p = w.precision;
    p.kv = o.kv;
    Parallelism par{.tensor = tp, .pipeline = pp, .expert = ep, .data = o.dp, .attention_data = o.attention_dp == 0 ? tp : o.attention_dp};
    par.link_latency = o.link_latency;
    par.link_bandwidth = o.link_bandwidth;
    w.efficiency.bandwidth = o.efficiency;
    w.efficiency.overhead = o.overhead;
    Assumptions& a = w.assumptions;
    a = o.seed_assumptions ? assumptions::seed_003 : assumptions::physical;
    if (o.accounting) a.accounting = *o.accounting;
    if (o.attention_flops) a.attention_flops = *o.attention_flops;
    if (o.memory_fraction) a.memory_fraction = *o.memory_fraction;
    if (o.reserve) a.runtime_reserve = *o.reserve;

    s.hw = load_hardware(hardware);
    current_device = s.hw;
    p.compute = o.compute ? *o.compute : default_compute(s.hw);
    // A reserve or fraction that leaves the engine no memory is a mistake, not "nothing fits".
    const MemoryUse budget = memory_budget(s.hw, a);
    if (!(budget.budget > Bytes{})) {
        // Enough decimals that the share and the reserve read apart (a review read "larger than the
        // 1.00 GiB reserved: 1.00 GiB" for 0.9956 GiB).
        const double share = (a.memory_fraction * budget.capacity).in(GiB), kept = a.runtime_reserve.in(GiB);
        int decimals = 2;
        while (decimals < 6 && cli::shown(share, decimals) == cli::shown(kept, decimals)) ++decimals;
        const std::string reserved = cli::shown(kept, decimals) + " GiB reserved";
        const std::string usable = cli::shown(share, decimals) + " GiB (" + number_text(a.memory_fraction) + " of " +
                                   std::string(s.hw.name.view()) + "'s " + cli::shown(budget.capacity.in(GiB), 2) + " GiB)";
        if (o.reserve) cli::bad_value("--reserve-gib", number_text(kept), "less than the memory it is kept back from: " + usable);
        if (o.memory_fraction)
            cli::bad_value("--memory-fraction", number_text(a.memory_fraction), "a share of the device's memory larger than the " + reserved + ": " + usable);
        // Neither flag given: the device itself holds less than the default reserve.
        cli::bad_value("--hardware", hardware, "a device with more usable memory than the " + reserved + " (or a smaller --reserve-gib): " + usable);
    }
    // The checkpoint's storage formats, unless a flag sets them: --weights sets the linear
    // layers' and experts' format and keeps the checkpoint's embeddings and LM head, as a
    // quantiser does (--embeddings and --lm-head set those).
    LoadedModel loaded = load_model_with_formats(o.model);
    s.m = loaded.model;
    s.model_notes = loaded.notes;
    if (weights) {
        store_weights_as(p, loaded.precision, *weights);
        s.weights_flag = true;
        s.formats_source = "--weights" + kept_state_source(s.m, loaded.precision);
    } else {
        p.weights = loaded.precision.weights;
        p.experts = loaded.precision.experts;
        p.attention = loaded.precision.attention;
        p.embeddings = loaded.precision.embeddings;
        p.lm_head = loaded.precision.lm_head;
        p.state = loaded.precision.state;
        p.router_and_norms = loaded.precision.router_and_norms;
        s.formats_source = "the checkpoint: " + loaded.precision_source;
    }
    // Flags that override some of the checkpoint's formats say so in the record, then a compute
    // format the device chose (Python's rows read the same).
    s.formats_source += cli::format_overrides(o.embeddings, o.experts, o.lm_head, o.router_and_norms, o.attention);
    if (!o.compute) s.formats_source += default_compute_note(s.hw);
    if (o.embeddings) p.embeddings = *o.embeddings;
    if (o.experts) {
        // A format for experts the model does not have would be printed beside the weights' and change nothing.
        if (!has_routed_experts(s.m))
            cli::bad_value("--experts", format_name(*o.experts),
                           "no --experts: model '" + std::string(s.m.name.view()) + "' has no routed experts");
        p.experts = *o.experts;
    }
    if (o.lm_head) {
        // A tied head is the input table: --embeddings sets its format.
        if (s.m.tied_embeddings)
            cli::bad_value("--lm-head", format_name(*o.lm_head),
                           "no --lm-head: model '" + std::string(s.m.name.view()) + "' ties its LM head to the input table (use --embeddings)");
        p.lm_head = *o.lm_head;
    }
    if (o.router_and_norms) p.router_and_norms = *o.router_and_norms;
    if (o.attention) p.attention = *o.attention;
    if (o.max_context) {
        // It raises the limit; a lower one would only make the model refuse contexts it takes.
        if (const auto expected = lowers_context_limit(s.m, *o.max_context))
            cli::bad_value("--max-context", std::to_string(*o.max_context), *expected + ": the flag raises it");
        s.m.max_context = *o.max_context;
        s.model_notes = without_position_note(s.model_notes);
    }
    s.dep = Deployment{s.hw, par};
    s.attention_note = cli::attention_dp_note(par, o.attention_dp == 0, o.tp.size() > 1);
    s.pipelined = par.pipeline > 1;
    s.replicated = par.data > 1;
    return s;
}

// Refuses a setting whose split the model or device cannot take (validate(Deployment, Model)),
// or whose formats' groups that split leaves a fraction of (row_groups.hpp).
void require_splittable(const Setting& s) {
    if (s.m.group_count == 0) return;
    validate(s.dep, s.m);
    require_whole_groups(s.m, s.base.precision, s.dep.parallel);
    require_whole_kv_groups(s.m, s.base.precision, s.dep.parallel);
}

// The one setting of a single-setting command.
Setting resolve_one(const WorkloadOptions& o) {
    Setting s = resolve(o, o.hardware.front(), o.weights.front(), o.tp.front(), o.pp.front(), o.ep.front());
    require_splittable(s);
    return s;
}

// Bounded work: a command makes one row per combination of its lists, and at most 100,000 rows.
void require_rows(const WorkloadOptions& o, bool batches, bool contexts, std::size_t combinations = 1) {
    const std::size_t b = batches ? o.batches.values.size() : 1, c = contexts ? o.contexts.values.size() : 1;
    if (b * c * combinations <= cli::max_values) return;  // 100,000 x 100,000 x 1,000 fits in size_t
    if (combinations == 1)
        throw cli::usage_error(fmt::format("--batch x --context: got {} x {} = {} rows, expected at most 100,000 rows (shorten the lists)",
                                           b, c, b * c));
    throw cli::usage_error(fmt::format("--batch x --context x settings: got {} x {} x {} = {} rows, expected at most 100,000 rows "
                                       "(shorten the lists)", b, c, combinations, b * c * combinations));
}

// How many settings the lists ask for: one per combination of -H, --weights, --tp, --pp and --ep.
// At most 1,000, and at most 100,000 rows with the batches and contexts a command combines them with.
std::size_t settings_count(const WorkloadOptions& o, bool batches, bool contexts) {
    const std::size_t count = o.hardware.size() * o.weights.size() * o.tp.size() * o.pp.size() * o.ep.size();
    if (count > 1000)
        throw cli::usage_error(fmt::format("-H x --weights x --tp x --pp x --ep: got {} combinations, expected at most 1,000", count));
    require_rows(o, batches, contexts, count);
    return count;
}

std::string in_user_terms(const ridgeline::error& e, const Hardware& hw, bool compute_defaulted, const std::function<bool(std::string_view)>& typed);

// Lists sweep every combination of their degrees: a pair the model or device cannot split by
// (--tp 1 with --ep 2), or whose formats' groups it splits, is left out and said on stderr, so
// that one such pair does not lose the rest (a review's "--tp 1,2,4 --ep 1,2" got one error and
// no rows). Where every one is refused, the first one's error. What the user can mend for every
// setting is not left out: a device file's bad figure, a link a split needs and no one gave.
std::vector<Setting> splittable(const WorkloadOptions& o, std::vector<Setting> all) {
    std::vector<Setting> kept;
    std::exception_ptr first;
    Hardware first_device;
    std::vector<std::string> said;
    for (Setting& s : all) {
        current_device = s.hw;
        validate(s.hw);
        try {
            require_splittable(s);
            kept.push_back(std::move(s));
        } catch (const missing_link&) {
            throw;
        } catch (const ridgeline::error& e) {
            if (!first) {
                first = std::current_exception();
                first_device = s.hw;
            }
            const Parallelism& p = s.dep.parallel;
            std::string where = s.hardware + " tp " + std::to_string(p.tensor);
            if (p.pipeline > 1) where += " pp " + std::to_string(p.pipeline);
            if (p.expert > 1) where += " ep " + std::to_string(p.expert);
            if (p.attention_data > 1) where += " attention-dp " + std::to_string(p.attention_data);
            // Whether the format a flag sets was typed for this setting, or is the checkpoint's.
            const auto typed = [&](std::string_view flag) {
                if (flag == "--weights") return s.weights_flag;
                if (flag == "--embeddings") return o.embeddings.has_value();
                if (flag == "--lm-head") return o.lm_head.has_value();
                return true;
            };
            std::string line = "skipped " + where + ": " + in_user_terms(e, s.hw, false, typed);
            if (std::find(said.begin(), said.end(), line) == said.end()) said.push_back(std::move(line));
        }
    }
    if (kept.empty()) {
        current_device = first_device;  // the device the error is about
        std::rethrow_exception(first);
    }
    for (const std::string& line : said) fmt::print(stderr, "ridgeline: {}\n", cli::printable(line));
    return kept;
}

// Each setting of the lists, in that order, resolved (files read): call once settings_count has
// bounded the work.
std::vector<Setting> resolve_all(const WorkloadOptions& o) {
    std::vector<Setting> out;
    for (const auto& h : o.hardware)
        for (const auto& w : o.weights)
            for (const auto t : o.tp)
                for (const auto p : o.pp)
                    for (const auto e : o.ep) out.push_back(resolve(o, h, w, t, p, e));
    // Two --weights pieces that store the model alike ("bf16,checkpoint" on a bf16 checkpoint)
    // would print equal rows, as a repeat does. The first device's settings, one per piece, tell.
    const std::size_t stride = o.tp.size() * o.pp.size() * o.ep.size();
    const auto storage = [&](std::size_t piece) -> const Precision& { return out[piece * stride].base.precision; };
    const bool tied = out.front().m.tied_embeddings;
    const std::vector<std::string> typed = cli::comma_pieces(o.weights_text);
    for (std::size_t j = 1; j < o.weights.size() && typed.size() == o.weights.size(); ++j)
        for (std::size_t i = 0; i < j; ++i)
            if (stored_alike(storage(i), storage(j), tied))
                cli::bad_value("--weights", o.weights_text, "each value once (" + typed[i] + " and " + typed[j] + " store " +
                                                                std::string(out.front().m.name.view()) + " alike: " +
                                                                precision_name(storage(i), tied) + ")");
    return splittable(o, std::move(out));
}

// The settings of a command that combines them with every batch and context.
std::vector<Setting> combinations(const WorkloadOptions& o) {
    settings_count(o, true, true);
    return resolve_all(o);
}

// A flag every workload command has, described as this command takes it (or refuses it).
void redescribe(CLI::App* app, const char* flag, const std::string& text) { app->get_option(flag)->description(text); }
// --efficiency and --overhead-us where a command would ignore them: refused, each with why, even
// at its default value (Python refuses efficiency=1.0 alike).
void refuse_times(const WorkloadOptions& o, const std::string& efficiency_why, const std::string& times_why) {
    if (o.efficiency_given) cli::bad_value("--efficiency", number_text(o.efficiency), efficiency_why);
    if (o.overhead_given) cli::bad_value("--overhead-us", number_text(o.overhead.in(us)), times_why);
}

// The commands that read one setting refuse lists of batches and contexts, before any file is read.
void require_one_point(const WorkloadOptions& o, const char* command) {
    if (o.batches.values.size() > 1) cli::bad_value("--batch", o.batches.text, std::string("one batch size: ") + command + " reads a single setting");
    if (o.contexts.values.size() > 1)
        cli::bad_value("--context", o.contexts.text, std::string("one context length: ") + command + " reads a single setting");
}

// The workload at a single-setting command's one batch and context.
Workload at_point(const WorkloadOptions& o, const Setting& s) {
    Workload w = s.base;
    w.batch = o.batches.values.front();
    w.context = o.contexts.values.front();
    return w;
}

// The links a table's steps used: each distinct link once, and where there are several, the
// settings that used it ("h100-sxm tp 8"), since one line under the table speaks for every row.
class LinksSeen {
public:
    void add(const Setting& s, const DecodeStep& d) {
        const Parallelism& p = s.dep.parallel;
        given_ = given_ || p.link_bandwidth.has_value();
        if (d.links.messages <= 0) return;
        if (p.tensor > 1) note(s, d.links.tensor_link, "", true);
        // The hops between stages may cross another link than the tensor-parallel group's.
        if (p.pipeline > 1) note(s, d.links.pipeline_link, p.tensor > 1 ? " between stages" : "", false);
    }
    [[nodiscard]] std::string text() const {
        // A link given for none of these splits is said, not silently dropped: it fills only a
        // link the preset lacks (a PCIe card's, the network past a scale-up domain).
        const std::string unused = given_ && !used_ ? "; --link-gb-per-s not used: the preset's own links join every split here "
                                                      "(it stands for a link the preset lacks)"
                                                    : "";
        if (seen_.empty()) return unused;
        if (seen_.size() == 1) return "; links: " + seen_.front().first + unused;
        std::string out;
        for (const auto& [link, where] : seen_) {
            std::string list;
            for (const auto& w : where) list += (list.empty() ? "" : ", ") + w;
            out += (out.empty() ? "; links: " : "; ") + link + " (" + list + ")";
        }
        return out + unused;
    }

private:
    void note(const Setting& s, const Link& l, const char* between, bool ring) {
        used_ = used_ || std::string_view(l.bandwidth_from) == "deployment";
        // A ring over several domains pays the network's latency only where it crosses one.
        const std::string inside = !(l.scale_out && l.domains > 1) ? ""
                                   : ring ? fmt::format(" ({} us a ring step inside one of its {} scale-up domains)", cli::shown(l.within_latency.in(us), 2), l.domains)
                                          : fmt::format(" (only between its {} scale-up domains; hops inside one on the scale-up link)", l.domains);
        const std::string mesh = l.mesh_peers > 0 ? fmt::format(": {} of its {} mesh links", l.mesh_links, l.mesh_peers) : "";
        const std::string text = fmt::format("{} GB/s each way ({}{}), {} us per message ({}), {}{}{}", cli::shown(l.one_way.in(GB_per_s), 1),
                                             l.bandwidth_from, mesh, cli::shown(l.latency.in(us), 2), l.latency_from,
                                             l.scale_out ? "scale-out network" : "scale-up link", inside, between);
        std::string where = cli::printable(s.hardware) + " tp " + std::to_string(s.dep.parallel.tensor);
        if (s.dep.parallel.pipeline > 1) where += " pp " + std::to_string(s.dep.parallel.pipeline);
        auto it = std::find_if(seen_.begin(), seen_.end(), [&](const auto& x) { return x.first == text; });
        if (it == seen_.end()) it = seen_.insert(seen_.end(), {text, {}});
        if (std::find(it->second.begin(), it->second.end(), where) == it->second.end()) it->second.push_back(where);
    }
    std::vector<std::pair<std::string, std::vector<std::string>>> seen_;
    bool given_ = false, used_ = false;
};

// The last setting, speaking for a table's rows: where their formats differ (--weights
// checkpoint,fp8), its formats line names each source once.
Setting for_every_row(const std::vector<Setting>& settings) {
    Setting last = settings.back();
    std::vector<std::string> sources;
    for (const Setting& s : settings)
        if (std::find(sources.begin(), sources.end(), s.formats_source) == sources.end()) sources.push_back(s.formats_source);
    if (sources.size() > 1) {
        last.formats_source.clear();
        for (const auto& x : sources) last.formats_source += (last.formats_source.empty() ? "" : "; and ") + x;
    }
    // Any row's pipeline makes the batch one micro-batch's: say so under the table.
    last.pipelined = std::any_of(settings.begin(), settings.end(), [](const Setting& s) { return s.dep.parallel.pipeline > 1; });
    last.replicated = std::any_of(settings.begin(), settings.end(), [](const Setting& s) { return s.dep.parallel.data > 1; });
    return last;
}

// The links one point's ceiling charged (diagnose, predict); none where its step cannot be
// priced (the record says why).
LinksSeen links_of_point(const Setting& s, const Workload& w) {
    LinksSeen links;
    try {
        links.add(s, decode_step(s.dep, s.m, w));
    } catch (const ridgeline::error&) {
    }
    return links;
}

// One line under a table: what the numbers count (JSON and CSV carry it in every row).
void print_assumptions(cli::Output format, const Setting& s, const LinksSeen& seen = {}, bool prefill = false) {
    if (format != cli::Output::table) return;
    const Assumptions& a = s.base.assumptions;
    std::string links = seen.text();
    if (prefill) links += a.prompt_logits ? "; prefill: the LM head for every prompt token" : "; prefill: the LM head for each prompt's last token";
    fmt::print("assumptions: {} (attention FLOPs {}, embedding lookups {}, weights as {}, memory: {} of {} less {} GiB reserved{}){}\n",
               assumptions_name(a), a.attention_flops ? "counted" : "not counted",
               a.embedding_lookup_flops ? "2 FLOPs per parameter" : "free",
               a.accounting == WeightAccounting::bytes_read ? "bytes read" : "every parameter", cli::shown(a.memory_fraction, 2),
               a.reported_memory ? "the reported memory" : "the datasheet capacity", cli::shown(a.runtime_reserve.in(GiB), 2),
               a.activation_workspace ? " and the activation workspace" : "", links);
    // What --weights leaves is in the rows' weights column; why, here.
    fmt::print("formats: {}{}\n", cli::printable(s.formats_source),
               s.weights_flag ? " (--weights sets the linear layers and experts; the embeddings, an untied LM head, the norms and "
                                "routers stay as the checkpoint stores them, as AWQ, GPTQ and FP8 checkpoints keep them, unless "
                                "--embeddings, --lm-head and --router-and-norms set them)"
                              : "");
    if (!s.model_notes.empty()) fmt::print("model: {}\n", cli::printable(s.model_notes));
    if (!s.attention_note.empty()) fmt::print("{}\n", s.attention_note);
    if (s.pipelined)
        fmt::print("pipeline: batch is one micro-batch's; a pipeline of p stages keeps p micro-batches in flight, so tok/s and the "
                   "sequences held count batch x p, while a step's bytes are one micro-batch's; bytes/device, the step's pace and "
                   "memory are the busiest stage's (its own layers as vLLM places them, the table on the first, the LM head on "
                   "the last); the ridge batch and n* are where the slowest stage's step turns compute-bound\n");
    if (s.replicated)
        fmt::print("replicas: each of the dp replicas runs its own batch on its own devices; all weights, all KV and all bytes are one "
                   "replica's, and tok/s counts every replica's sequences\n");
}

// ---------------------------------------------------------------------------------------------
// Subcommands
// ---------------------------------------------------------------------------------------------

struct ListOptions {
    std::string what;
    cli::Output format = cli::Output::table;
};

void run_list(const ListOptions& o) {
    cli::list_table(o.what).print(o.format);
    if (o.what == "models" && o.format == cli::Output::table) fmt::print("{}\n", cli::model_counts_note(false));
}

struct ShowOptions {
    std::string target;
    cli::Output format = cli::Output::table;
};

void run_show(const ShowOptions& o) {
    if (o.target.empty()) throw cli::usage_error("show: got none, expected one preset name or JSON file (show NAME, -m NAME or -H NAME)");
    cli::show_table(o.target).print(o.format);
}

struct ModelOptions {
    std::string model;
    cli::Output format = cli::Output::table;
};

void run_model(const ModelOptions& o) {
    cli::model_formats_table(load_model_with_formats(o.model)).print(o.format);
    if (o.format == cli::Output::table) fmt::print("{}\n", cli::model_counts_note(true));
}

// Every setting of the lists, at every batch and context (batches outer), as decode and
// operators print them; `current_device` names the device an error is about.
template <class Visit>
void each_point(const WorkloadOptions& o, const std::vector<Setting>& settings, Visit visit) {
    for (const Setting& s : settings)
        for (std::int64_t b : o.batches.values)
            for (std::int64_t n : o.contexts.values) {
                current_device = s.hw;
                Workload w = s.base;
                w.batch = b;
                w.context = n;
                visit(s, w);
            }
}

// decode, operators and capacity: the workload's lists, nothing more.
struct DecodeOptions : WorkloadOptions {};

// Chunked layers (Llama 4's local attention) read only the current chunk of the cache (reach.hpp):
// at a context that starts a chunk, none of it. Contexts users pick (powers of two) are such
// starts, so a decode table of them is the chunk's best case; a line under it says so.
void print_chunk_note(cli::Output format, const Model& m, const std::vector<std::int64_t>& contexts) {
    if (format != cli::Output::table) return;
    std::int64_t chunked = 0, chunk = 0;
    for (const LayerGroup& g : m)
        if (g.spec.reach().is_chunked()) chunked += g.count, chunk = g.spec.reach().tokens;
    if (chunked == 0) return;
    for (const std::int64_t n : contexts)
        if (n > 0 && n % chunk == 0) {
            fmt::print("chunks: {} of the {} layers of {} attend within aligned chunks of {} tokens, so at context {} they read none "
                       "of the cache (a chunk starts) and at {} all {} tokens of theirs; generate sums a request's steps\n",
                       chunked, layer_count(m), cli::printable(std::string(m.name.view())), chunk, n, n - 1, chunk - 1);
            return;
        }
}

void run_decode(const DecodeOptions& o) {
    const std::vector<Setting> settings = combinations(o);
    cli::Table t(cli::decode_columns());
    LinksSeen links;
    each_point(o, settings, [&](const Setting& s, const Workload& w) {
        const DecodeStep d = decode_step(s.dep, s.m, w);
        links.add(s, d);
        t.add(cli::decode_cells(s, d));
    });
    t.print(o.format);
    print_assumptions(o.format, for_every_row(settings), links);
    print_chunk_note(o.format, settings.back().m, o.contexts.values);
}

// The step per operator (operators.hpp), one device's share, in the page's columns (operators_schema.hpp).
void run_operators(const DecodeOptions& o) {
    const std::vector<Setting> settings = combinations(o);
    // A row per operator of each point: the 100,000-row bound counts them, not the points.
    std::size_t rows = 0;
    const std::size_t points = o.batches.values.size() * o.contexts.values.size();
    for (const Setting& s : settings) {
        current_device = s.hw;
        rows += points * operators(s.dep, s.m, s.base).size();
    }
    if (rows > cli::max_values)
        throw cli::usage_error(fmt::format("--batch x --context x operators: got {} points x settings, {} operator rows, expected at most "
                                           "100,000 rows (shorten the lists)", points * settings.size(), rows));
    cli::Table t(cli::operator_columns());
    each_point(o, settings, [&](const Setting& s, const Workload& w) {
        for (const Operator& op : operators(s.dep, s.m, w)) t.add(cli::operator_cells(s, w, op));
    });
    t.print(o.format);
    print_assumptions(o.format, for_every_row(settings));
}

void run_capacity(const DecodeOptions& o) {
    const std::vector<Setting> settings = combinations(o);
    cli::Table t(cli::capacity_columns());
    for (const Setting& s : settings)
        for (std::int64_t n : o.contexts.values)
            for (std::int64_t b : o.batches.values) {
                current_device = s.hw;
                t.add(cli::capacity_cells(s, n, b));
            }
    t.print(o.format);
    print_assumptions(o.format, for_every_row(settings));
}

struct RidgeOptions : WorkloadOptions {
    bool batch_given = false;  // -b: refused, the ridge is the batch found
};

void run_ridge(const RidgeOptions& o) {
    if (o.batch_given)
        cli::bad_value("--batch", o.batches.text, "no --batch for ridge: it finds the batch where decode turns compute-bound at each --context");
    const Setting s = resolve_one(o);
    const auto nstar = n_star(s.dep, s.m, s.base);
    cli::Table t(cli::ridge_columns());
    for (std::int64_t n : o.contexts.values) t.add(cli::ridge_cells(s, n, nstar));
    t.print(o.format);
    // The two ends of n* read alike as numbers: say which holds (a review read 0 as a threshold).
    if (o.format == cli::Output::table && (!nstar || *nstar == 0))
        fmt::print("{}\n", nstar ? "n* 0: no batch turns compute-bound at any context, not even 0: each sequence's own reads (its KV or "
                                   "recurrent state) take longer than its arithmetic"
                                 : "n* none: some batch turns compute-bound at every context: each sequence's reads stop growing "
                                   "(windowed or chunked layers, or recurrent ones alone) or its attention FLOPs outgrow "
                                   "them (as MLA's can)");
    print_assumptions(o.format, s);
}

struct GenerateOptions : WorkloadOptions {
    std::int64_t prompt = 0, new_tokens = 128, chunk = 0;
    bool context_given = false;  // -c: refused, the prompt is the context
};

// Prefill chunks the library computes one by one, over all batches: enough for a 1M-token prompt
// in 1k-token chunks at a thousand batch sizes, and seconds of work at most.
constexpr std::int64_t max_chunk_steps = 10'000'000;

void run_generate(const GenerateOptions& o) {
    // generate starts from an empty context: the prompt is the context it decodes from.
    if (o.context_given)
        cli::bad_value("--context", o.contexts.text, "no --context for generate: it starts from an empty context; give the prompt length with --prompt");
    const std::size_t count = settings_count(o, true, false);
    const std::int64_t chunks = o.chunk > 0 ? (o.prompt + o.chunk - 1) / o.chunk : 1;
    const auto batches = o.batches.values.size() * count;
    const auto steps = static_cast<std::int64_t>(batches) * chunks;
    if (steps > max_chunk_steps) {
        // The rows: each batch for each setting (hardware x weights x parallel degrees x ...).
        const std::string rows = count > 1 ? fmt::format("{} --batch values x {} settings", o.batches.values.size(), count)
                                           : fmt::format("{} --batch values", o.batches.values.size());
        throw cli::usage_error(fmt::format(
            "--chunk: got {}, expected a chunk giving at most 10,000,000 prefill steps in all ({} chunks of a {}-token "
            "--prompt x {} = {}; use a larger --chunk or fewer {})",
            o.chunk, chunks, o.prompt, rows, steps, count > 1 ? "batches or settings" : "batches"));
    }
    const std::vector<Setting> settings = resolve_all(o);  // bounded by settings_count above
    cli::Table t(cli::generate_columns());
    LinksSeen links;
    // Rows that do not fit only because their prefill takes every prompt's chunk at once.
    std::vector<std::string> prefill_bound;
    std::int64_t row = 0;
    for (const Setting& s : settings)
        for (std::int64_t b : o.batches.values) {
            current_device = s.hw;
            Workload w = s.base;
            w.batch = b;
            const Generation g = generate(s.dep, s.m, w, o.prompt, o.new_tokens, o.chunk);
            t.add(cli::generate_cells(s, b, g));
            links.add(s, decode_step(s.dep, s.m, w));  // the decode steps' links (prefill's are the same links)
            ++row;
            if (!g.fits() && o.prompt > 0) {
                Workload last = w;
                last.context = o.prompt + o.new_tokens - 1;
                if (const MemoryUse decode_only = memory_use(s.dep, s.m, last); decode_only.fits())
                    prefill_bound.push_back(fmt::format("row {} (batch {}): its decode alone needs {:.2f} GB a device of its {:.2f} GB budget", row,
                                                        b, decode_only.used().in(GB), decode_only.budget.in(GB)));
            }
        }
    t.print(o.format);
    // An engine prefills a batch in chunks of a token budget a step: the rows that fail only on
    // the prefill's activations say so, and which flag changes it.
    if (o.format == cli::Output::table)
        for (const std::string& said : prefill_bound)
            fmt::print("note: {}; it does not fit because its prefill holds the activations of {} at once (--chunk {}): a smaller "
                       "--chunk (tokens of each prompt a step), as engines prefill a batch, holds less\n",
                       said,
                       o.chunk > 0 && o.chunk < o.prompt ? fmt::format("{} tokens of every prompt", o.chunk)
                                                          : fmt::format("every prompt's {} tokens", o.prompt),
                       o.chunk);
    print_assumptions(o.format, for_every_row(settings), links, o.prompt > 0);
}

struct DiagnoseOptions : WorkloadOptions {
    std::optional<Seconds> per_token;  // from --measured-tok-s or --measured-tpot-ms
    Seconds longest{};                 // the longest step that figure's rounding allows
    int measurements = 0;              // how many of the two were given
    std::int64_t draft_tokens = 4;
};

void run_diagnose(const DiagnoseOptions& o) {
    if (o.measurements != 1) throw cli::usage_error("diagnose: give exactly one of --measured-tok-s and --measured-tpot-ms");
    require_one_point(o, "diagnose");
    // Its gap is to the ceiling, and its words say which term would close it.
    const std::string why = "none: diagnose measures the gap to the ceiling (predict --calibration estimates)";
    refuse_times(o, why, why);
    const Setting s = resolve_one(o);
    const Workload w = at_point(o, s);
    cli::diagnose_table(s, w, *o.per_token, o.draft_tokens, o.longest).print(o.format);
    print_assumptions(o.format, s, links_of_point(s, w));
}

// speculative: each point's plain step against drafting g tokens and verifying them in one
// target step (speculative.hpp), as Python's speculative() gives it.
struct SpeculativeOptions : WorkloadOptions {
    std::int64_t draft_tokens = 4;
    std::optional<double> acceptance;      // unset: 0.8
    std::int64_t tree_width = 1;           // SGLang's --speculative-eagle-topk
    std::int64_t verify_tokens = 0;        // SGLang's --speculative-num-draft-tokens; 0: a chain's g + 1
    std::optional<double> accept_length;   // the mean tokens a verification accepts, instead of --acceptance
    std::optional<std::string> draft;  // a model or EAGLE-3 head (preset or file), or mtp; none: a free draft (n-grams)
    std::int64_t draft_tp = 0;         // 0: the target's degree
};

void run_speculative(const SpeculativeOptions& o) {
    const bool mtp = o.draft && *o.draft == cli::mtp_draft;
    if (o.acceptance && o.accept_length)
        cli::bad_value("--accept-length", number_text(*o.accept_length), cli::accept_length_beside_acceptance("--accept-length", "--acceptance"));
    const Speculation spec{o.draft_tokens, o.acceptance.value_or(0.8), o.draft_tp, mtp, o.tree_width, o.verify_tokens, o.accept_length.value_or(0)};
    validate(spec);
    if (o.draft_tp != 0 && !o.draft)
        cli::bad_value("--draft-tp", std::to_string(o.draft_tp), "no --draft-tp without --draft (a free draft runs on no device)");
    std::optional<LoadedDraft> draft;
    if (o.draft && !mtp) {
        try {
            draft = load_draft(*o.draft);
        } catch (const ridgeline::error& e) {
            const std::string named = cli::preset_in_user_terms(e, "--draft");
            throw cli::usage_error(named.empty() ? fmt::format("--draft: {}", e.what()) : named);
        }
    }
    const std::vector<Setting> settings = combinations(o);
    cli::Table t(cli::speculative_columns());
    LinksSeen links;
    each_point(o, settings, [&](const Setting& s, const Workload& w) {
        if (mtp && s.m.mtp_layers == 0) cli::bad_value("--draft", *o.draft, cli::without_mtp_modules(s.m));
        const SpeculativeDecode r = cli::speculate(s.dep, s.m, w, spec, draft);
        links.add(s, r.verify);
        t.add(cli::speculative_cells(s, cli::speculative_row(s.dep, s.m, w, mtp, draft, spec, r)));
    });
    t.print(o.format);
    print_assumptions(o.format, for_every_row(settings), links);
    if (draft && o.format == cli::Output::table) {
        if (draft->head) fmt::print("{}\n", cli::draft_head_note(*draft->head));
        else
            fmt::print("draft: {} in its checkpoint's formats (the draft formats column), its KV in the target's; memory/device counts "
                       "its weights and KV beside the target's\n",
                       cli::printable(draft->name()));
    }
    if (mtp && o.format == cli::Output::table)
        fmt::print("draft: the model's own MTP modules, split as its layers; each drafted token runs one (its block, a copy of the last "
                   "layer, its eh_proj in the LM head's format, and the LM head), the first over the g + 1 positions verified; "
                   "memory/device counts the modules' weights and KV, not the embeddings and head they share\n");
    if (spec.tree_width > 1 && o.format == cli::Output::table) {
        if ((draft || mtp) && spec.draft_tokens > 1)
            fmt::print("tree: each draft pass after the first runs all {} branches of a sequence, each reading its own copy of the "
                       "draft's cache, as SGLang's FlashInfer and Triton backends do (its default with a tree; FA3 reads it once); the "
                       "tree's {} x {} temporary cache slots a sequence are not counted in memory/device; ",
                       spec.tree_width, spec.draft_tokens, spec.tree_width);
        else
            fmt::print("tree: ");
        fmt::print("the target verifies {} tokens a sequence in one pass; tokens/verification is --accept-length\n", spec.verify_tokens);
    }
}

struct CalibrateOptions {
    cli::CalibrateRequest request;
    std::optional<std::string> save;
    cli::Output format = cli::Output::table;
};

void run_calibrate(const CalibrateOptions& o) {
    const cli::CalibrateRequest& a = o.request;
    if (o.save) {
        cli::require_output_path("--save", *o.save, "the efficiency preset");
        // Never over the rows being fitted: the preset would replace them.
        const std::filesystem::path input = resolve_preset(PresetKind::measurements, a.measurements);
        std::error_code ec;
        if (std::filesystem::equivalent(*o.save, input, ec))
            cli::bad_value("--save", *o.save, "a file other than the measurements being fitted (" + input.string() + "), which it would replace");
    }
    const cli::CalibrateRun run = cli::run_calibration(a);
    if (run.kept.empty()) {
        if (const auto f = cli::filter_leaving_none(a, run.set)) {
            const std::string flag = f->from_where ? "--where " + f->key : "--" + f->key;
            throw cli::usage_error(flag + ": got \"" + cli::echoed(f->value) + "\", expected " + f->expected);
        }
        const std::size_t flagged = run.flagged.size();
        throw cli::usage_error("calibrate: no row of " + a.measurements + " passes all the filters together" +
                               (flagged == 0 ? "" : " (" + std::to_string(flagged) + (flagged == 1 ? " flagged row is" : " flagged rows are") +
                                                        " never fitted)"));
    }
    if (!run.passed_over.empty()) {
        // A fit is of one device; unasked, it is the first row's, and the others' rows wait for -H.
        std::string others;
        for (const auto& h : run.passed_over) others += (others.empty() ? "" : ", ") + h;
        fmt::print(stderr, "note: fitting the rows on {}, the first row's device; the filters also leave rows on {} (choose with -H)\n",
                   cli::printable(run.hardware), cli::printable(others));
    }
    if (!a.engine && run.engines.size() > 1) {
        // Unasked for an engine, the rows may be of several: the fit is of them all, and says so.
        std::string engines;
        for (const auto& e : run.engines) engines += (engines.empty() ? "" : ", ") + e;
        fmt::print(stderr, "note: fitting the rows of {} engines together ({}); --engine fits one\n", run.engines.size(),
                   cli::printable(engines));
    }
    const Calibration& c = run.fit;
    if (o.format == cli::Output::json) {
        // The rows and the fit, as Python's calibrate() returns them: the preset --save writes.
        nlohmann::ordered_json j;
        j["rows"] = cli::calibrate_table(run).json();
        j["preset"] = cli::calibration_preset(a, run);
        if (!run.loo_skipped.empty()) j["leave_one_out_not_run"] = run.loo_skipped;
        j["devices_passed_over"] = run.passed_over;  // unasked for a device (-H), the other devices' rows left out
        j["set_aside"] = cli::set_aside_rows(run);    // rows the fit left out, and why (the table's "set aside" lines)
        j["flagged"] = run.flagged;                   // rows the file flags, never fitted
        fmt::print("{}\n", cli::dump_json(j));
    } else {
        cli::calibrate_table(run).print(o.format);  // CSV: the rows, one a line
    }
    // Below 1e-9 of its unit (ms, us, %) a figure is rounding in the fit's arithmetic, shown as 0.
    const auto settled = [](double v) { return std::abs(v) < 1e-9 ? 0.0 : v; };
    const auto pm = [&settled](double v, const std::optional<double>& e, double scale, int decimals, const char* unit) {
        return cli::shown(settled(v * scale), decimals) + (e ? " +/- " + cli::shown(settled(*e * scale), decimals) : "") + unit;
    };
    // A fitted time per layer (or per MoE layer, or per sequence) and its error, in microseconds.
    const auto in_us = [&](Seconds v, const std::optional<Seconds>& e, const char* unit) {
        return pm(v.in(us), e ? std::optional<double>(e->in(us)) : std::nullopt, 1, 1, unit);
    };
    if (o.format == cli::Output::table) {
        fmt::print("fit on {} of {} rows for {}: bandwidth {}, compute {}, {} a step{}; rms error {}%\n", c.used.size(), run.kept.size(),
                   cli::printable(run.hardware), pm(c.bandwidth_efficiency, c.bandwidth_efficiency_error, 100, 1, "%") +
                       (c.bandwidth_basis.empty() ? "" : " (" + c.bandwidth_basis + ")"),
                   pm(c.compute_efficiency, c.compute_efficiency_error, 100, 1, "%") +
                       (a.hold_compute                ? " (held)"
                        : !c.compute_basis.empty() ? " (" + c.compute_basis + ")"
                        : c.compute_efficiency <= run.lowest_compute * (1 + 1e-9) ? " (its floor: a fit claims no less)" : ""),
                   pm(c.overhead.in(ms), c.overhead_error ? std::optional<double>(c.overhead_error->in(ms)) : std::nullopt, 1, 3, " ms"),
                   // Efficiency::overhead is each pipeline stage's: a row at pp 2 pays it twice a step.
                   std::string(run.pipelined ? " and pipeline stage" : "") +
                       std::string(a.per_layer ? ", " + in_us(c.per_layer, c.per_layer_error, " us a layer") +
                                                 (run.layers_differ ? "" : " (every row has the same layers: the fixed time again)")
                                           : "") +
                       (a.per_moe_layer ? ", " + in_us(c.per_moe_layer, c.per_moe_layer_error, " us a MoE layer") +
                                              (run.moe_rows ? "" : " (no row is on an MoE model)")
                                        : "") +
                       (a.per_sequence ? ", " + in_us(c.per_sequence, c.per_sequence_error, " us a sequence") +
                                             (run.batches_differ ? "" : " (every row has the same batch: the fixed time again)")
                                       : "") +
                       (a.per_message ? ", " + in_us(c.per_message, c.per_message_error, " us a link message") +
                                            (!run.any_split       ? " (no row sends link messages: held)"
                                             : run.splits_differ ? ""
                                                                 : " (every row has the same split: a time per layer by another name, so held)")
                                      : "") +
                       ", activations " + std::string(cli::activations_words(c.activation_traffic)),
                   cli::shown(settled(100 * c.rms_relative_error), 1));
        fmt::print("the gap: {}\n", c.explanation);
        if (run.have_loo)
            fmt::print("leave-one-out error: median {}%, worst {}%\n", cli::shown(100 * run.loo_median, 1), cli::shown(100 * run.loo_worst, 1));
        else if (!run.loo_skipped.empty())
            fmt::print("leave-one-out error: {}\n", run.loo_skipped);
        for (const auto& x : cli::set_aside_rows(run)) fmt::print("set aside: {}: {}\n", cli::printable(a.measurements), cli::printable(x));
        for (const auto& x : run.flagged) fmt::print("flagged in the file, not fitted: {}\n", cli::printable(x));
        const std::vector<std::string> unheld = cli::rows_not_fitting(run);
        for (const auto& x : unheld) fmt::print("does not fit: {}: {}\n", cli::printable(a.measurements), cli::printable(x));
        // By decode's default memory terms. A row past them ran otherwise than the fit assumes (the
        // engine took more of the memory, or held fewer sequences that long), which it cannot tell.
        if (!unheld.empty()) {
            const Assumptions a;
            fmt::print("memory: a device's budget is {} of the memory its preset gives it (as reported, or else its datasheet's) less {} GiB "
                       "reserved, and a row's memory its weights, KV and activation workspace, as decode counts them; a row past its "
                       "budget ran with more of the memory, or fewer sequences at that length than its batch, and is fitted as stated\n",
                       cli::shown(a.memory_fraction, 2), cli::shown(a.runtime_reserve.in(GiB), 2));
        }
    }
    if (o.save) {
        const std::string text = cli::dump_json(cli::calibration_preset(a, run));
        // What predict would refuse is not written: the fit's terms past a preset's bounds.
        try {
            (void)efficiency_from_json(nlohmann::json::parse(text), *o.save);
        } catch (const ridgeline::error& e) {
            throw ridgeline::error(*o.save, e.path(), e.value(), e.expected() + " (this fit's, so it is not written)");
        }
        cli::write_output_file(*o.save, text + "\n", "the efficiency preset");
        fmt::print(stderr, "wrote {}\n", cli::printable(*o.save));
    }
}

struct PredictOptions : WorkloadOptions {
    std::string calibration;  // an efficiency preset name or file
};

// The estimate for a setting with an engine-and-device calibration, its range, and the ceiling.
void run_predict(const PredictOptions& o) {
    require_one_point(o, "predict");
    // The calibration gives the efficiency and the times.
    refuse_times(o, "none: predict takes its efficiency from --calibration", "none: predict takes its times from --calibration");
    const EfficiencyPreset preset = load_efficiency(o.calibration);
    // Without -H, the device the calibration was fitted on.
    PredictOptions on = o;
    if (!o.hardware_given) on.hardware = {preset.hardware};
    // A device the calibration names that is not a preset is the file's error, not -H's.
    const Setting s = [&] {
        try {
            return resolve_one(on);
        } catch (const ridgeline::error& e) {
            if (o.hardware_given || e.path() != "hardware preset" || !e.file().empty()) throw;
            const std::optional<std::string> listed = cli::presets_listed("hardware preset", e.expected());
            throw ridgeline::error(resolve_preset(PresetKind::efficiency, o.calibration).string(), "/hardware", e.value(),
                                   listed.value_or("a hardware preset " + e.expected()) + ", or the device given with -H");
        }
    }();
    const Workload w = at_point(on, s);
    cli::predict_table(s, w, preset).print(o.format);
    if (o.format == cli::Output::table && preset.hardware != s.hardware)
        fmt::print("note: the calibration was fitted on {}, not {}\n", cli::printable(preset.hardware), cli::printable(s.hardware));
    // What its ceiling counts, as under diagnose's table: the estimate is that ceiling plus the fit's terms.
    print_assumptions(o.format, s, links_of_point(s, w));
}

struct PlotOptions : WorkloadOptions {
    PlotOptions() {
        batches = {{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, "1..1024x2"};
        contexts = {{0, 4096, 32768}, "0,4096,32768"};
    }
    std::string out = "roofline.svg";
};

void run_plot(const PlotOptions& o) {
    if (o.format != cli::Output::table)
        cli::bad_value("--format", o.format == cli::Output::json ? "json" : "csv", "no --format for plot: it writes an SVG (--out FILE, or - for stdout)");
    require_rows(o, true, true);
    if (o.out != "-") cli::require_output_path("--out", o.out, "the SVG");
    const Setting s = resolve_one(o);
    const std::string svg = roofline_svg(s.dep, s.m, s.base, o.batches.values, o.contexts.values);
    if (o.out == "-") {
        fmt::print("{}", svg);
        return;
    }
    cli::write_output_file(o.out, svg, "the SVG");
    fmt::print(stderr, "wrote {}\n", cli::printable(o.out));
}


// ---------------------------------------------------------------------------------------------
// plan
// ---------------------------------------------------------------------------------------------

void run_plan(const cli::PlanOptions& a) {
    // "-" is stdout to plot --out, but plan's table is there: a file named "-" would surprise.
    if (a.svg && *a.svg == "-") cli::bad_value("--svg", "-", "a path to write the SVG to (plan prints its table on stdout; plot --out - writes an SVG there)");
    if (a.svg) cli::require_output_path("--svg", *a.svg, "the SVG");
    cli::PlanSetting setting = cli::plan_setting(a);
    // A search past a couple of seconds says where it is, on a terminal only (a pipe or a test
    // reads the answer alone): thousands of devices a plan take tens of seconds.
    const auto started = std::chrono::steady_clock::now();
    if (isatty(fileno(stderr)))
        setting.request.on_device = [started](std::string_view device, std::size_t index, std::size_t count) {
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            if (seconds > 2) fmt::print(stderr, "plan: searching {} ({} of {} devices), {:.0f} s so far\n", cli::printable(std::string(device)), index + 1, count, seconds);
        };
    const PlanRequest& r = setting.request;
    const Workload& w = r.base;
    const std::int64_t top = setting.top;
    const PlanResult result = plan(r);
    const std::vector<PlanRow>& rows = a.pareto ? result.pareto : result.plans;
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
    if (a.format == cli::Output::json) {
        // One object: the rows, and what the search concluded (plan_json.hpp, shared with the page).
        const nlohmann::ordered_json j = plan_json(result, r.model, top);
        fmt::print("{}\n", cli::dump_json(j));
    } else {
        // The front holds the plans that fit and meet the TTFT and ITL targets (a TPOT target is its
        // axis). No plans: the verdict below says so once. An empty front says why here.
        // CSV keeps its header with no rows, and says why on stderr: stdout stays CSV.
        const std::string why = r.ttft_target && r.itl_target ? "no plan both fits in memory and meets the TTFT and ITL targets"
                                : r.ttft_target               ? "no plan both fits in memory and meets the TTFT target"
                                : r.itl_target                ? "no plan both fits in memory and meets the ITL target"
                                                              : "no plan fits in memory";
        if (a.format == cli::Output::csv) {
            t.print(a.format);
            if (rows.empty())
                fmt::print(stderr, "{}\n", cli::printable(a.pareto ? why : naming_own_lever(result.verdict, plan_link_lever, "give one with --link-gb-per-s")));
        } else if (rows.empty() && a.pareto)
            fmt::print("{}\n", why);
        else if (!rows.empty()) t.print(a.format);
    }
    if (a.format == cli::Output::table) {
        std::string weights;
        if (r.checkpoint) weights = "checkpoint (" + precision_name(*r.checkpoint, r.model.tied_embeddings) + ")";
        for (const Format f : a.weights)
            weights += (weights.empty() ? "" : ",") + format_name(f) + (storage_asked(r, f) ? "" : " (the checkpoint's storage: searched once)");
        fmt::print("{}\n", cli::printable(naming_own_lever(result.verdict, plan_link_lever, "give one with --link-gb-per-s")));
        fmt::print("traffic: {}; prompt {} tokens ({} cached), {} out; every sequence may reach prompt + output\n",
                   r.users ? cli::shown(*r.users, 0) + (*r.users == 1 ? " user" : " users")
                           : "users from " + cli::shown(*r.requests_per_s, 2) + " requests/s by Little's law", r.traffic.prompt,
                   r.traffic.cached_prompt, r.traffic.output);
        // Each mode's way of serving reads "serving aggregated: ..."; the others (attention, weights) name themselves.
        // The times line comes last, after what was searched.
        std::string times;
        for (const std::string& said : result.assumptions) {
            const std::string_view head = std::string_view(said).substr(0, said.find(':'));
            if (head == "times" || head.starts_with("times on ")) {  // one line, or one a device with its own terms
                times += (times.empty() ? "" : "\n") + said;
                continue;
            }
            const bool of_a_mode = std::any_of(r.modes.begin(), r.modes.end(), [&](ServingMode m) { return mode_name(m) == head; });
            fmt::print("{}{}\n", of_a_mode ? "serving " : "", said);
        }
        for (const std::string& said : result.notes)
            fmt::print("note: {}\n", cli::printable(naming_own_lever(said, plan_link_lever, "give one with --link-gb-per-s")));
        // The compute format, and the devices that chose another where none was asked for.
        std::string compute(name_of(w.precision.compute));
        if (r.device_compute) {
            std::string others;
            std::size_t count = 0;
            for (const PlanDevice& d : r.devices)
                if (default_compute(d.device) != w.precision.compute) others += (others.empty() ? "" : ", ") + d.name, ++count;
            if (count == r.devices.size()) compute = "fp16 (" + others + ": no bf16 peak)";
            else if (count > 0) compute += " (fp16 on " + others + ": no bf16 peak)";
            // fp8-stored weights compute in fp8 where the device has it (plan_detail::unasked_compute).
            std::vector<Format> stored = a.weights;
            if (r.checkpoint) stored.push_back(r.checkpoint->weights);
            std::string fp8_devices;
            std::size_t with_fp8 = 0;
            for (const PlanDevice& d : r.devices)
                if (std::any_of(stored.begin(), stored.end(), [&](const Format& f) { return plan_detail::computes_in_fp8(d.device, f); }))
                    fp8_devices += (fp8_devices.empty() ? "" : ", ") + d.name, ++with_fp8;
            if (with_fp8 > 0)
                compute += ", fp8 for fp8 weights " + (with_fp8 == r.devices.size() ? std::string("on every device") : "on " + fp8_devices) +
                           " (W8A8, as vLLM serves them)";
        }
        fmt::print("searched: {} serving evaluations; weights {}; KV {}; compute {}; memory: {} of the reported memory less {} GiB{}; "
                   "prefill: the LM head for {}{}\n",
                   result.evaluated, weights, format_name(a.kv), compute, cli::shown(w.assumptions.memory_fraction, 2),
                   cli::shown(w.assumptions.runtime_reserve.in(GiB), 2),
                   w.assumptions.activation_workspace
                       ? ", and the workspace of the largest pass (aggregated: a decode step and its chunk; prefill apart and a "
                         "disaggregated prefill device: a prompt's whole pass)"
                       : "",
                   w.assumptions.prompt_logits ? "every prompt token" : "each prompt's last token",
                   setting.priced ? "" : "; no prices: ranked by devices");
        // What the times are (the plan's own words): ceilings name the flags that make them estimates.
        if (w.efficiency.is_ideal() && times.starts_with("times: ceilings") && times.ends_with(")"))
            times.insert(times.size() - 1, "; --efficiency, --compute-efficiency and --overhead-us make them estimates");
        fmt::print("{}\n", times);
        if (!setting.model_notes.empty()) fmt::print("model: {}\n", cli::printable(setting.model_notes));
    }
    if (a.svg) {
        const std::string svg = pareto_svg(result, cli::pareto_title(r.model));
        cli::write_output_file(*a.svg, svg, "the SVG");
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
// `compute_defaulted`: no --compute was typed, so a missing peak is the default format's.
// `typed`: whether the command line gave a flag (a format not given is the checkpoint's).
std::string in_user_terms(const ridgeline::error& e, const Hardware& hw, bool compute_defaulted, const std::function<bool(std::string_view)>& typed) {
    static const std::vector<std::pair<std::string_view, std::string_view>> flags{
        {"tensor-parallel degree", "--tp"},
        {"pipeline-parallel degree", "--pp"},
        {"expert-parallel degree", "--ep"},
        {"data-parallel degree", "--dp"},
        {"tensor-parallel degree / attention data-parallel degree", "--tp / --attention-dp"},
        {"attention data-parallel degree", "--attention-dp"},
        {"batch", "--batch"},
        {"context", "--context"},
        {"efficiency (bandwidth)", "--efficiency"},
        {"overhead per step", "--overhead-us"},
        {"link latency", "--link-latency-us"},
        {"link bandwidth", "--link-gb-per-s"},
        {"memory fraction", "--memory-fraction"},
        {"runtime reserve", "--reserve-gib"},
        {"prompt", "--prompt"},
        {"new_tokens", "--new"},
        {"prompt + new_tokens - 1", "--prompt + --new - 1"},
        {"prompt + new_tokens", "--prompt + --new"},
        {"chunk", "--chunk"},
        {"speculation.draft_tokens", "--draft-tokens"},
        {"speculation.acceptance", "--acceptance"},
        {"speculation.draft_tensor", "--draft-tp"},
        {"speculation.tree_width", "--tree-width"},
        {"speculation.verify_tokens", "--verify-tokens"},
        {"speculation.accepted_tokens", "--accept-length"},
        {"draft model", "--draft"},
        {"draft head", "--draft"},
    };
    if (!e.file().empty()) return e.what();
    std::string expected = naming_own_max_context_lever(e.expected(), "raise it with --max-context");
    expected = naming_own_lever(std::move(expected), link_bandwidth_lever, "give one with --link-gb-per-s, e.g. 64 for PCIe 4.0 x16, 100 for a 400 Gb/s NIC");
    replace_all(expected, "the tensor-parallel degree", "--tp");
    for (const auto& [path, flag] : flags)
        if (e.path() == path) return fmt::format("{}: got {}, expected {}", flag, e.value(), expected);
    // A format refused for its groups (row_groups.hpp): the flag that sets it, or, not typed, the
    // checkpoint's own format that flag would replace.
    static const std::pair<std::string_view, std::string_view> formats[] = {
        {"weights format", "--weights"}, {"attention format", "--attention"}, {"LM head format", "--lm-head"},
        {"embedding format", "--embeddings"}, {"KV format", "--kv"}};
    for (const auto& [path, flag] : formats)
        if (e.path() == path)
            return fmt::format("{}{}: got {}, expected {}", flag, typed(flag) ? "" : " (not given, so the checkpoint's)", e.value(), expected);
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
        return fmt::format("--compute: got {}{}, expected a format {} has a dense peak for: {}{}", e.value(),
                           compute_defaulted ? " (not given, so the device's default)" : "", device,
                           list.empty() ? "none" : list, suggestion.empty() ? "" : " (try --compute " + suggestion + ")");
    }
    return ridgeline::error("", e.path(), e.value(), expected).what();
}

// plan's errors in its flags' words: it searches many devices, so a missing peak is the search's.
std::string plan_in_user_terms(const ridgeline::error& e) {
    if (!e.file().empty()) return e.what();
    std::string expected = naming_own_max_context_lever(e.expected(), "raise it with --max-context");
    if (std::string own = naming_own_lever(expected, link_bandwidth_lever, "give one with --link-gb-per-s"); own != expected)
        return fmt::format("{}: got {}, expected {}", e.path(), e.value(), own);
    if (e.path() == "prompt + output") return fmt::format("--prompt + --output: got {}, expected {}", e.value(), expected);
    if (e.path() == "serving mode") return fmt::format("--mode: got {}, expected {}", e.value(), expected);
    if (e.path() == "TPOT target") return fmt::format("--tpot-ms: got {}, expected {}", e.value(), expected);
    if (e.path() == "TTFT target") return fmt::format("--ttft-ms: got {}, expected {}", e.value(), expected);
    if (e.path() == "ITL target") return fmt::format("--itl-ms: got {}, expected {}", e.value(), expected);
    if (e.path() == "weight formats") return fmt::format("--weights: got {}, expected {}", e.value(), expected);
    // A format refused for its groups (row_groups.hpp), as decode's errors name it: the flags
    // plan has (its tables and LM head stay the checkpoint's, and their errors say so as they are).
    if (e.path() == "weights format") return fmt::format("--weights: got {}, expected {}", e.value(), expected);
    if (e.path() == "KV format") return fmt::format("--kv: got {}, expected {}", e.value(), expected);
    if (e.path() == "prices") return fmt::format("--price: got {}, expected {}", e.value(), expected);
    if (e.path().starts_with("hardware '") && e.path().ends_with("' compute peak")) {
        const std::string device = e.path().substr(0, e.path().size() - std::string_view(" compute peak").size());
        return fmt::format("--compute: got {}, expected a format some candidate device has a dense peak for ({} has none, "
                           "nor has any other candidate)", e.value(), device);
    }
    return e.what();
}

}  // namespace

// A parse error CLI11 words in its own terms ("--batch: At Most 1 required but received 2"), in
// ours; empty for the rest, which CLI11 prints.
std::string parse_error_in_user_terms(const CLI::ParseError& e, bool show, bool list) {
    const std::string what = e.what();
    if (list && dynamic_cast<const CLI::RequiredError*>(&e) != nullptr)
        return "list: got none, expected what to list: hardware, models, drafts or efficiency (ridgeline list models)";
    const bool twice = dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr && what.find(": At Most 1 required but received ") != std::string::npos;
    if (show && (twice || dynamic_cast<const CLI::RequiredError*>(&e) != nullptr)) {
        const std::string got = twice ? what.substr(what.rfind(' ') + 1) + " targets" : "none";
        return "show: got " + got + ", expected one preset name or JSON file (show NAME, -m NAME or -H NAME)";
    }
    if (!twice) return "";
    const std::string flag = what.substr(0, what.find(": At Most"));
    // A flag that takes a list takes it as one value; its example, where it has one.
    static const std::pair<std::string_view, std::string_view> lists[] = {
        {"--batch", "1,8,64"}, {"--context", "0,4096"}, {"--weights", "bf16,fp8"}, {"--tp", "1,2,4"}, {"--pp", "1,2"},
        {"--ep", "1,8"},       {"--price", "h100-sxm=2.50,h200=3.50"}, {"--mode", "agg,disagg"}, {"--hardware", "h100-sxm,h200"}};
    std::string example;
    for (const auto& [name, value] : lists)
        if (flag == name) example = std::string(" (") + (flag == "--hardware" ? "where it takes a list, " : "") + "a list is one value: " + flag +
                                    " " + std::string(value) + ")";
    return flag + ": given " + what.substr(what.rfind(' ') + 1) + " times, expected once" + example;
}

// The subcommand the command line named, if it got that far.
const CLI::App* parsed_command(const CLI::App& app) {
    for (const CLI::App* c : app.get_subcommands())
        if (c->parsed()) return c;
    return nullptr;
}

int main(int argc, char** argv) {
    CLI::App app{"ridgeline: decode-speed arithmetic for LLMs on GPUs (bytes, rooflines, ridge batch, n*)", "ridgeline"};
    app.require_subcommand(1);
    app.footer("Examples:\n  ridgeline decode -m llama-3.1-8b -c 4096,32768,131072\n  ridgeline ridge -m qwen3-32b -c 0,128,512,848\n"
               "Presets: ridgeline list hardware | models | drafts | efficiency. JSON numbers are SI base units.");
    // One options struct per subcommand, each flag read into it as CLI11 parses (add_read).
    ListOptions list_o;
    auto* list = app.add_subcommand("list", "List hardware, model, EAGLE-3 draft-head or engine-and-device efficiency presets");
    list->add_option("what", list_o.what, "hardware, models, drafts or efficiency")
        ->required()
        ->check(CLI::IsMember({"hardware", "models", "drafts", "efficiency"}));
    add_format(list, list_o.format);
    list->footer("Example: ridgeline list models --format csv");

    ShowOptions show_o;
    auto* show = app.add_subcommand("show", "Show a preset or a config.json with its derived parameter breakdown");
    // As a name alone, or with the flag the other commands give a model or device by.
    // Not marked required: CLI11 would print REQUIRED beside both the positional and the flags,
    // which are one option (a review read it as needing both); run_show refuses none given.
    show->add_option("target,-m,--model,-H,--hardware", show_o.target,
                     "A preset name or a JSON file, as a name alone or after -m or -H (one is required)");
    add_format(show, show_o.format);
    show->footer("Example: ridgeline show deepseek-v3");

    ModelOptions model_o;
    auto* model = app.add_subcommand("model", "Total and active parameters, weight bytes per format, KV per token");
    model->add_option("--model,-m", model_o.model, "Model preset name or config.json")->required();
    add_format(model, model_o.format);
    model->footer("Example: ridgeline model -m gpt-oss-120b");

    DecodeOptions decode_o, operators_o, capacity_o;
    auto* decode = app.add_subcommand("decode", "The decode step for each batch and context: bytes, time, bound, tok/s");
    add_workload(decode, decode_o, Settings::lists);
    decode->footer("Example: ridgeline decode -m llama-3.1-8b -b 1,64,512 -c 4096 --format json");

    auto* ops = app.add_subcommand("operators", "The decode step per operator (one device's share): bytes, FLOPs, time, bound, ridge batch");
    add_workload(ops, operators_o, Settings::lists);
    ops->footer("Example: ridgeline operators -m llama-3.1-8b -b 1,64 -c 4096");

    RidgeOptions ridge_o;
    auto* ridge = app.add_subcommand("ridge", "The ridge batch at each context, and n*");
    add_workload(ridge, ridge_o, Settings::one);
    redescribe(ridge, "--batch", "Not taken by ridge: it finds the batch where decode turns compute-bound at each --context");
    ridge->footer("Example: ridgeline ridge -m qwen3-32b -c 0,128,512,848,4096");

    auto* capacity = app.add_subcommand("capacity", "KV tokens that fit, largest batch at a context, longest context at a batch");
    add_workload(capacity, capacity_o, Settings::lists);
    redescribe(capacity, "--context",
               "Contexts in tokens at which to find the largest batch: 4096,32768 or 1024..8192x2 (default 0: none asked, "
               "its columns '-'; the longest context at each -b is always given)");
    capacity->footer("Example: ridgeline capacity -m llama-3.1-70b -H h200 -c 4096,32768 -b 1,16");

    GenerateOptions gen_o;
    auto* gen = app.add_subcommand("generate", "Time for a whole generation: prefill, then decode with the KV growing");
    add_workload(gen, gen_o, Settings::lists);
    const auto tokens = [](std::int64_t min) {
        return [min](const std::string& f, const std::string& t) { return cli::parse_integer_option(f, t, min, 100'000'000); };
    };
    add_read(gen, "--prompt", gen_o.prompt, tokens(0), "Prompt tokens (default 0); the context starts here, so -c is refused");
    redescribe(gen, "--context", "Not taken by generate: it starts from an empty context and decodes from the prompt (--prompt)");
    add_read(gen, "--new", gen_o.new_tokens, tokens(1), "New tokens to generate (default 128)");
    add_read(gen, "--chunk", gen_o.chunk, tokens(0),
             "Prefill chunk in tokens of each sequence: a step prefills this many of every prompt in the batch at once, "
             "and holds their activations (default 0: whole prompt; plan's --chunk is tokens a step, all sequences together)");
    gen->footer("Example: ridgeline generate -m llama-3.1-8b --prompt 4096 --new 512 -b 1,32");

    DiagnoseOptions diag_o;
    auto* diag = app.add_subcommand("diagnose", "From a measured tok/s or TPOT: implied bandwidth, utilisation, verdict");
    add_workload(diag, diag_o, Settings::point);
    redescribe(diag, "--efficiency", "Not taken by diagnose: it measures the gap to the ceiling (predict --calibration estimates)");
    redescribe(diag, "--overhead-us", "Not taken by diagnose: it measures the gap to the ceiling (predict --calibration estimates)");
    diag->add_option_function<std::string>(
        "--measured-tok-s",
        [&diag_o](const std::string& t) {
            const double rate = cli::parse_number("--measured-tok-s", t, 1e-6, 1e9, "a rate in tokens/s from 1e-6 to 1e9");
            diag_o.per_token = ridgeline::s(1.0 / rate);
            diag_o.longest = ridgeline::s(cli::longest_step_of(rate, t, true));
            ++diag_o.measurements;
        },
        "Measured tokens/s per sequence");
    diag->add_option_function<std::string>(
        "--measured-tpot-ms",
        [&diag_o](const std::string& t) {
            const double tpot = cli::parse_number("--measured-tpot-ms", t, 1e-6, 1e9, "a time in ms from 1e-6 to 1e9");
            diag_o.per_token = ms(tpot);
            diag_o.longest = ms(cli::longest_step_of(tpot, t, false));
            ++diag_o.measurements;
        },
        "Measured time per output token, ms");
    add_read(diag, "--draft-tokens", diag_o.draft_tokens, cli::parse_draft_tokens,
             "Draft length for the speculation explanation (default 4; 1 to 1024, as speculative takes)");
    diag->footer("Example: ridgeline diagnose -m llama-3.3-70b -c 4096 --measured-tok-s 70");

    SpeculativeOptions spec_o;
    auto* spec = app.add_subcommand("speculative", "Speculative decoding: a plain step against drafting and verifying g tokens");
    add_workload(spec, spec_o, Settings::lists);
    add_read(spec, "--draft-tokens", spec_o.draft_tokens, cli::parse_draft_tokens, "Tokens drafted per verification, g (default 4)");
    add_read(spec, "--acceptance", spec_o.acceptance, [](const std::string& f, const std::string& t) { return std::optional(cli::parse_acceptance(f, t)); },
             "Probability each drafted token of a chain is accepted, independently (default 0.8)");
    add_read(spec, "--tree-width", spec_o.tree_width, cli::parse_tree_width,
             "Branches each draft pass after the first extends a sequence, as SGLang's --speculative-eagle-topk (default 1: a chain)");
    add_read(spec, "--verify-tokens", spec_o.verify_tokens, cli::parse_verify_tokens,
             "Tokens a sequence the target verifies, as SGLang's --speculative-num-draft-tokens (a tree needs it; a chain's is "
             "--draft-tokens + 1)");
    add_read(spec, "--accept-length", spec_o.accept_length, [](const std::string& f, const std::string& t) { return std::optional(cli::parse_accept_length(f, t)); },
             "Mean tokens a verification accepts, the target's own included (an engine's mean acceptance length), instead of "
             "--acceptance (a tree needs it)");
    spec->add_option("--draft", spec_o.draft,
                     "Draft: a model preset or config.json; an EAGLE-3 head, a preset (ridgeline list drafts) or its config.json; "
                     "or mtp for the model's own multi-token-prediction modules (num_nextn_predict_layers, as DeepSeek-V3's) "
                     "(default: none, a free draft such as n-gram lookup)");
    add_read(spec, "--draft-tp", spec_o.draft_tp, cli::parse_draft_tp,
             "Draft model's tensor-parallel degree: 0 (default) the target's, as vLLM; 1 one device (a draft model; MTP modules and "
             "EAGLE-3 heads are split as the target's layers)");
    spec->footer("Examples:\n  ridgeline speculative -m llama-3.1-70b -H h200 --tp 2 -c 4096 --draft llama-3.1-8b\n"
                 "  ridgeline speculative -m llama-3.1-8b -H h100-sxm -c 4096 --draft eagle3-llama-3.1-8b --draft-tokens 5\n"
                 "  ridgeline speculative -m llama-3.1-8b -H h100-sxm -c 4096 --draft eagle3-llama-3.1-8b --draft-tokens 5 "
                 "--tree-width 8 --verify-tokens 32 --accept-length 4");

    CalibrateOptions cal_o;
    cli::CalibrateRequest& cal_r = cal_o.request;
    auto* cal = app.add_subcommand("calibrate", "Fit the overhead model (efficiencies, time per step, per layer, per MoE layer, per sequence and per link message) to measurements");
    cal->add_option("--measurements", cal_r.measurements, "A measurements JSON file or a name in data/measurements")->required();
    cal->add_option("--hardware,-H", cal_r.hardware, "Use the rows of this hardware (default: the first remaining row's)");
    cal->add_option("--engine", cal_r.engine, "Use the rows of this engine only");
    cal->add_option("--model,-m", cal_r.model, "Use the rows of this model only");
    cal->add_option_function<std::vector<std::string>>(
        "--where",
        [&cal_r](const std::vector<std::string>& items) {
            for (const auto& w : items) cli::add_where(cal_r.where, w, [](const std::string& value, const std::string& expected) {
                    throw cli::usage_error("--where: got \"" + cli::echoed(value) + "\", expected " + expected);
                });
        },
        "KEY=VALUE on engine, engine_version, date, model, hardware, weights, tp, batch (repeatable)");
    cal->add_flag("--per-layer", cal_r.per_layer, "Also fit a time per layer (kernel launches)");
    cal->add_flag("--per-moe-layer", cal_r.per_moe_layer,
                  "Also fit a time per MoE layer (routing and expert kernels; needs rows on dense and MoE models to tell it from the time per step)");
    cal->add_flag("--per-sequence", cal_r.per_sequence,
                  "Also fit a time per sequence per step (the host's work for each request; needs rows at different batches)");
    cal->add_flag("--per-message", cal_r.per_message,
                  "Also fit a time per link message, above the link's own latency (the engine's collectives; needs rows on "
                  "different splits)");
    auto* hold = cal->add_flag("--hold-compute", cal_r.hold_compute, "Hold the compute efficiency at 100% instead of fitting it");
    cal->add_flag("--fit-compute", cal_r.fit_compute,
                  "Fit the compute efficiency even where it does not pay Akaike's penalty (by default it is held at 100% unless "
                  "fitting it cuts the rms error below exp(-1/n) of the held fit's over n rows)")
        ->excludes(hold);
    cal->add_flag("--activations-on-chip", cal_r.activations_on_chip,
                  "Fit with each layer's activations kept on chip, as the ceiling keeps them (by default they are written and "
                  "read back through memory between kernels, as engines run them)");
    cal->add_option("--save", cal_o.save, "Write the fit as an efficiency preset (data/efficiency/) to this file");
    add_format(cal, cal_o.format);
    cal->footer("Example: ridgeline calibrate --measurements published --engine TensorRT-LLM -H h100-sxm");

    PredictOptions pred_o;
    auto* pred = app.add_subcommand("predict", "A setting's step time with an engine-and-device calibration, with a range, next to the ceiling");
    add_workload(pred, pred_o, Settings::point);
    redescribe(pred, "--efficiency", "Not taken by predict: the calibration gives it");
    redescribe(pred, "--overhead-us", "Not taken by predict: the calibration gives its times");
    redescribe(pred, "--hardware", "Hardware preset name or JSON file (default: the device the calibration was fitted on)");
    pred->add_option("--calibration", pred_o.calibration, "An efficiency preset name (ridgeline list efficiency) or file")->required();
    pred->footer("Example: ridgeline predict -m llama-3.1-8b -H h100-sxm -b 64 -c 4096 --calibration tensorrt-llm-h100-sxm");

    PlotOptions plot_o;
    auto* plot = app.add_subcommand("plot", "Write the roofline and tok/s-vs-batch picture as a standalone SVG");
    add_workload(plot, plot_o, Settings::one);
    redescribe(plot, "--format", "Not taken by plot: it writes an SVG (--out FILE, or - for stdout)");
    redescribe(plot, "--batch", "Batch sizes: 1,8,64 or 1..256x2 (default 1..1024x2)");
    redescribe(plot, "--context", "Context lengths in tokens: 0,4096 or 0..8192+1024 (default 0,4096,32768)");
    plot->add_option("--out,-o", plot_o.out, "Output file, or - for stdout (default roofline.svg)");
    plot->footer("Example: ridgeline plot -m llama-3.1-8b -b 1..1024x2 -c 0,4096,32768 -o roofline.svg (the batches and contexts shown are the defaults)");

    cli::PlanOptions plan_o;
    auto* planner = app.add_subcommand("plan", "The cheapest deployment that meets TTFT, TPOT and ITL targets, and the Pareto front");
    for (const cli::PlanFlag& f : cli::plan_flags()) {
        const std::string flag = cli::long_name(f.names);
        auto* option = planner->add_option_function<std::string>(
            f.names, [&plan_o, read = f.read, flag](const std::string& t) { read(plan_o, flag, t); }, f.help);
        if (flag == "--model") option->required();
    }
    planner->footer("Example: ridgeline plan -m llama-3.1-70b -H h100-sxm,h200 --prompt 8192 --cached-prompt 7936 --output 512 "
                    "--users 64 --tpot-ms 30 --price h100-sxm=2.50,h200=3.50 --max-devices 16");

    // The commands in --help's order, for the errors that name them: none given, one misspelt,
    // a flag before one.
    std::vector<std::string> commands;
    for (const CLI::App* c : app.get_subcommands([](CLI::App*) { return true; })) commands.push_back(c->get_name());
    std::string command_list;
    for (const std::string& c : commands) command_list += (command_list.empty() ? "" : ", ") + c;

    // CLI11's own errors echo what was typed: escape control characters in them too. They start
    // as ours do, and point at the help of the command that was being parsed.
    app.failure_message([command_list](const CLI::App* top, const CLI::Error& e) {
        const CLI::App* command = parsed_command(*top);
        // CLI11 echoes the arguments it did not expect whole: cut them as ours are.
        std::string what = e.what();
        for (const std::string_view lead : {"was not expected: ", "were not expected: "})
            if (const auto at = what.find(lead); at != std::string::npos) {
                // CLI11 lists them last first; the command's remaining() has them as typed.
                std::string typed = what.substr(at + lead.size());
                if (command && dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
                    typed.clear();
                    for (const std::string& arg : command->remaining()) typed += (typed.empty() ? "" : " ") + arg;
                }
                what = what.substr(0, at + lead.size()) + cli::echoed(typed);
            }
        if (command) return "ridgeline: " + cli::printable(what) + "\nRun `ridgeline " + command->get_name() + " --help` for its flags.\n";
        if (dynamic_cast<const CLI::RequiredError*>(&e) == nullptr)
            return "ridgeline: " + cli::printable(what) + "\nRun `ridgeline --help` for its commands.\n";
        // No command given: name them, as the unknown-command error does.
        return "ridgeline: command: got none, expected one of: " + command_list + "\nRun `ridgeline --help` for what each does.\n";
    });

    // The device a library error is about, for the compute-format suggestion.
    const auto device_of_error = [&]() -> Hardware {
        if (current_device) return *current_device;
        return Hardware{};
    };
    // An unknown first word is a command misspelt, not a missing one (CLI11 says "A subcommand is required").
    // A lone - or -- is such a word too: no command starts with it, and none may follow --.
    const bool lone_dash = argc > 1 && (std::string_view(argv[1]) == "-" || std::string_view(argv[1]) == "--");
    if (argc > 1 && (argv[1][0] != '-' || lone_dash) && std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
        fmt::print(stderr, "ridgeline: command: got \"{}\", expected one of (closest first): {}\n", cli::printable(cli::echoed(argv[1])),
                   closest_first(commands, argv[1]));
        return 2;
    }
    // Every flag but --help belongs to a command: one before any names itself, not a missing command.
    if (argc > 1 && argv[1][0] == '-' && std::string_view(argv[1]) != "-h" && std::string_view(argv[1]) != "--help") {
        const std::string typed = argv[1];
        const std::string flag = typed.substr(0, typed.find('='));  // --tp=2 names --tp
        bool some_command_has_it = false;
        for (const std::string& c : commands) some_command_has_it = some_command_has_it || app.get_subcommand(c)->get_option_no_throw(flag) != nullptr;
        fmt::print(stderr, "ridgeline: {}: got {}, expected a command first, one of: {}\nRun `ridgeline COMMAND --help` for its flags.\n",
                   cli::printable(cli::echoed(flag)), some_command_has_it ? "a flag before any command" : "a flag no command has",
                   command_list);
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // CLI11's own words where a flag came twice or show's or list's target is missing: ours instead,
        // naming the flag and what was expected.
        const std::string said = parse_error_in_user_terms(e, show->parsed(), list->parsed());
        if (said.empty()) {
            app.exit(e);
            return 2;
        }
        fmt::print(stderr, "ridgeline: {}\n", cli::printable(said));
        return 2;
    } catch (const cli::usage_error& e) {  // a flag's value, read as it was parsed
        fmt::print(stderr, "ridgeline: {}\n", cli::printable(e.what()));
        return 2;
    }

    try {
        if (*list) run_list(list_o);
        else if (*show) run_show(show_o);
        else if (*model) run_model(model_o);
        else if (*decode) run_decode(decode_o);
        else if (*ridge) {
            ridge_o.batch_given = ridge->count("--batch") > 0;
            run_ridge(ridge_o);
        }
        else if (*ops) run_operators(operators_o);
        else if (*capacity) run_capacity(capacity_o);
        else if (*gen) {
            gen_o.context_given = gen->count("--context") > 0;
            run_generate(gen_o);
        }
        else if (*diag) run_diagnose(diag_o);
        else if (*spec) run_speculative(spec_o);
        else if (*cal) run_calibrate(cal_o);
        else if (*pred) run_predict(pred_o);
        else if (*plot) run_plot(plot_o);
        else if (*planner) run_plan(plan_o);
        return 0;
    } catch (const cli::usage_error& e) {
        fmt::print(stderr, "ridgeline: {}\n", cli::printable(e.what()));
        return 2;
    } catch (const ridgeline::error& e) {
        const bool flags = !*cal && !*list && !*show && !*model && !*planner;  // the rest take the workload flags
        // A device no one typed is the command's default: say so, or "--hardware" reads as a typo.
        const CLI::App* command = parsed_command(app);
        const bool device_defaulted = command && command->get_option_no_throw("--hardware") != nullptr && command->count("--hardware") == 0;
        const std::string preset =
            *show ? "" : cli::preset_in_user_terms(e, "--model", device_defaulted ? "--hardware (not given, so its default)" : "--hardware");
        const bool compute_defaulted = command && command->get_option_no_throw("--compute") != nullptr && command->count("--compute") == 0;
        const std::string said = !preset.empty() ? preset
                                 : flags      ? in_user_terms(e, device_of_error(), compute_defaulted,
                                                              [&](std::string_view f) {
                                                                  const CLI::Option* o = command ? command->get_option_no_throw(std::string(f)) : nullptr;
                                                                  return o != nullptr && o->count() > 0;
                                                              })
                                 : *planner   ? plan_in_user_terms(e)
                                              : e.what();
        fmt::print(stderr, "ridgeline: {}\n", cli::printable(said));
        return 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "ridgeline: {}\n", cli::printable(e.what()));
        return 1;
    }
}
