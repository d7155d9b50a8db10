// The rows ridgeline's answers print, built once: each answer's columns (JSON keys naming their
// SI unit, table headers) and its cells (the raw value for JSON and CSV, the text for the table),
// from the library's output schemas (output_schema.hpp) where an answer has one and from the
// library's results here where it does not yet (list, show, model, diagnose, predict, calibrate).
// The CLI prints them (main.cpp); the Python module returns their JSON as dicts
// (examples/python/module.cpp), so the two cannot disagree on a key or a value.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/core.h>

#include <ridgeline/answers_schema.hpp>
#include <ridgeline/calibrate.hpp>
#include <ridgeline/decode_schema.hpp>
#include <ridgeline/diagnose.hpp>
#include <ridgeline/fmt.hpp>
#include <ridgeline/generation.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/observation.hpp>
#include <ridgeline/operators.hpp>
#include <ridgeline/operators_schema.hpp>
#include <ridgeline/prefill.hpp>
#include <ridgeline/ridgeline.hpp>
#include <ridgeline/speculative.hpp>

#include "fitted_rows.hpp"
#include "table.hpp"

namespace cli {

// One setting, resolved: what every row echoes and computes from.
struct Resolved {
    std::string hardware;        // the name or file it was asked for, as rows echo it
    ridgeline::Hardware hw{};
    ridgeline::Model m{};
    ridgeline::Deployment dep{};
    ridgeline::Workload base{};  // batch and context aside
    std::string formats_source;  // where the storage formats came from
    bool weights_flag = false;   // a weights flag set them: the embeddings and LM head kept the checkpoint's
    std::string model_notes;     // how the model's file was read, when that needs saying
    std::string attention_note;  // how the attention is split, where data parallelism splits it (attention_dp_note)
    bool pipelined = false;      // pipeline stages: the batch is one micro-batch's (said under the table)
    bool replicated = false;     // data-parallel replicas: the byte totals are one replica's (said under the table)
};

// What a setting's record adds to "the checkpoint: ..." where flags override part of its
// formats, in the CLI's words ("; --experts fp8"): the CLI and Python build rows alike with it.
inline std::string format_overrides(const std::optional<ridgeline::Format>& embeddings, const std::optional<ridgeline::Format>& experts,
                                    const std::optional<ridgeline::Format>& lm_head,
                                    const std::optional<ridgeline::Format>& router_and_norms,
                                    const std::optional<ridgeline::Format>& attention = std::nullopt) {
    std::string out;
    for (const auto& [flag, given] : {std::pair{"--embeddings", embeddings}, std::pair{"--experts", experts}, std::pair{"--attention", attention},
                                      std::pair{"--lm-head", lm_head}, std::pair{"--router-and-norms", router_and_norms}})
        if (given) out += std::string("; ") + flag + " " + ridgeline::format_name(*given);
    return out;
}

// The unit ridgeline::s, under a name no local `s` hides.
inline constexpr auto seconds = ridgeline::s;

inline std::string si(double v, const char* unit, int decimals = 2) {
    // Up to quetta (1e30, SI since 2022): a sweep's corners reach past peta (a review read
    // "623921779799831.50 PB").
    const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y", "R", "Q"};
    int i = 0;
    while (std::abs(v) >= 1000 && i < 10) v /= 1000, ++i;
    return shown(v, decimals, std::string("{} ") + prefixes[i] + unit);
}

inline std::string params_text(double p) { return shown(p / 1e9, 2, "{}B"); }

template <class T>
void append(std::vector<T>& a, std::vector<T> b) {
    a.insert(a.end(), std::make_move_iterator(b.begin()), std::make_move_iterator(b.end()));
}

// A row as JSON: the raw values under the columns' keys.
inline nlohmann::ordered_json row_json(const std::vector<Column>& columns, const std::vector<Cell>& cells) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < columns.size(); ++c) o[columns[c].key] = cells[c].raw;
    return o;
}


// ---------------------------------------------------------------------------------------------
// The inputs every row of decode, ridge, capacity and generate echoes
// ---------------------------------------------------------------------------------------------

inline std::vector<Column> input_columns() {
    return {{"hardware", "hardware", false}, {"model", "model", false}, {"weights", "weights", false},
            {"kv", "kv", false},             {"compute", "compute", false}, {"tp", "tp"},
            {"pp", "pp"},                    {"ep", "ep"},
            {"dp", "dp"},                    {"attention_dp", "attention dp", true, false},
            {"assumptions", "assumptions", false, false},
            {"accounting", "accounting", false, false}, {"attention_flops", "attention FLOPs", false, false},
            {"embedding_lookup_flops", "lookup FLOPs", false, false}, {"prompt_logits", "prompt logits", false, false},
            {"memory_fraction", "memory fraction", true, false},
            {"runtime_reserve_bytes", "reserve", true, false}, {"experts", "experts", false, false},
            {"attention", "attention", false, false},
            {"embeddings", "embeddings", false, false}, {"lm_head", "lm_head", false, false},
            {"router_and_norms", "norms and routers", false, false}, {"formats_source", "formats from", false, false}};
}

inline std::vector<Cell> input_cells(const Resolved& s) {
    using namespace ridgeline;
    const Precision& p = s.base.precision;
    const Assumptions& a = s.base.assumptions;
    const Parallelism& par = s.dep.parallel;
    // The table shows the experts' or the table's format beside the weights' when they differ.
    const std::string weights = precision_name(p, s.m.tied_embeddings);
    return {text(s.hardware), text(std::string(s.m.name.view())), Cell{format_name(p.weights), weights},
            text(format_name(p.kv)), text(std::string(name_of(p.compute))), integer(par.tensor),
            integer(par.pipeline), integer(par.expert), integer(par.data), integer(par.attention_data), text(assumptions_name(a)),
            text(a.accounting == WeightAccounting::bytes_read ? "bytes_read" : "every_parameter"),
            Cell{a.attention_flops, a.attention_flops ? "on" : "off"},
            Cell{a.embedding_lookup_flops, a.embedding_lookup_flops ? "on" : "off"},
            text(a.prompt_logits ? "every" : "last"),
            number(a.memory_fraction, 2), number(a.runtime_reserve.in(bytes), 0),
            text(format_name(p.expert_format())), text(format_name(p.attention_format())), text(format_name(p.embedding_format())),
            text(format_name(p.lm_head_format())), text(format_name(p.router_and_norm_format())), text(s.formats_source)};
}

// The setting a record (diagnose, predict) was computed for, after its hardware and model: the
// fields decode's rows echo, under the same keys. The table shows the formats and degrees; the
// recorded assumptions are its lines below, as under decode's table.
inline void add_setting_fields(Table& t, const Resolved& s) {
    const std::vector<Column> columns = input_columns();
    std::vector<Cell> cells = input_cells(s);
    for (std::size_t c = 2; c < columns.size(); ++c) t.add({text(columns[c].key), std::move(cells[c])}, columns[c].in_table);
}

// The line under a table that says the attention is split by data parallelism (the table has
// no column for it); empty where it is not.
// `per_device`: one rank a tensor-parallel device whatever the degree (--attention-dp tp);
// `degrees_vary`: a table over several tensor-parallel degrees, whose ranks differ in devices.
inline std::string attention_dp_note(const ridgeline::Parallelism& par, bool per_device = false, bool degrees_vary = false) {
    const std::string holds = "; a rank holds and reads its own sequences' KV, and a step waits for the busiest, ceil(batch / ";
    if (per_device) return "attention: data-parallel, one rank a tensor-parallel device (--attention-dp tp)" + holds + "tp) sequences";
    if (par.attention_data == 1) return "";
    const std::string d = std::to_string(par.attention_data);
    const std::int64_t ta = par.attention_tensor();
    const std::string devices = degrees_vary ? "tp / " + d + " devices" : std::to_string(ta) + (ta == 1 ? " device" : " devices");
    return "attention: data-parallel, " + d + " ranks of " + devices + " each" + holds + d + ") sequences";
}

// ---------------------------------------------------------------------------------------------
// Answers with an output schema (output_schema.hpp): decode, operators, ridge, capacity,
// generate, prefill, speculative decoding; one row per setting, batch and context
// ---------------------------------------------------------------------------------------------

// A value in a table cell, as its schema says to show it.
inline Cell field_cell(ridgeline::Show show, int decimals, const ridgeline::FieldValue& v) {
    using ridgeline::Show;
    if (const auto* n = std::get_if<ridgeline::Null>(&v)) return null(n->shown);
    if (const auto* b = std::get_if<bool>(&v)) return Cell{*b, *b ? "yes" : "NO"};
    if (const auto* t = std::get_if<std::string>(&v)) return text(*t);
    if (const auto* i = std::get_if<std::int64_t>(&v)) return integer(*i);
    const double x = std::get<double>(v);
    switch (show) {
        case Show::bytes: return number(x, si(x, "B"));
        case Show::flops: return number(x, si(x, "FLOP"));
        case Show::milliseconds: return converted(x, x * 1e3, decimals, "{} ms");
        case Show::seconds: return converted(x, x, decimals, "{} s");
        case Show::number: return number(x, decimals);
        case Show::count: return number(x, x == std::floor(x) ? 0 : 2);
        case Show::word:
        case Show::yes_no: break;
    }
    return number(x, 3);
}

// A schema's columns, and a row's cells in them.
template <class Row>
void append_columns(std::vector<Column>& columns, const ridgeline::Schema<Row>& fields) {
    for (const ridgeline::Field<Row>& f : fields) columns.push_back({f.key, f.header, f.numeric()});
}
template <class Row>
void append_cells(std::vector<Cell>& cells, const ridgeline::Schema<Row>& fields, const Row& row) {
    for (const ridgeline::Field<Row>& f : fields) cells.push_back(field_cell(f.show, f.decimals, f.get(row)));
}

// An answer's row: the setting's inputs, then the schema's fields.
template <class Row>
std::vector<Column> answer_columns(const ridgeline::Schema<Row>& fields) {
    auto columns = input_columns();
    append_columns(columns, fields);
    return columns;
}
template <class Row>
std::vector<Cell> answer_cells(const Resolved& s, const ridgeline::Schema<Row>& fields, const Row& r) {
    auto row = input_cells(s);
    append_cells(row, fields, r);
    return row;
}

// The batch and context a step's row is at, after the setting's inputs (decode and operators).
inline std::vector<Column> point_columns() { return {{"batch", "batch"}, {"context_tokens", "context"}}; }
inline std::vector<Cell> point_cells(std::int64_t batch, std::int64_t context) { return {integer(batch), integer(context)}; }

inline std::vector<Column> decode_columns() {
    auto columns = input_columns();
    append(columns, point_columns());
    append_columns(columns, ridgeline::decode_fields());
    return columns;
}
inline std::vector<Cell> decode_cells(const Resolved& s, const ridgeline::DecodeStep& d) {
    auto row = input_cells(s);
    append(row, point_cells(d.batch, d.context));
    append_cells(row, ridgeline::decode_fields(), d);
    return row;
}

// One row per operator of the step at a batch and context (one device's share).
inline std::vector<Column> operator_columns() {
    auto columns = input_columns();
    append(columns, point_columns());
    append_columns(columns, ridgeline::operator_fields());
    return columns;
}
inline std::vector<Cell> operator_cells(const Resolved& s, const ridgeline::Workload& w, const ridgeline::Operator& o) {
    auto row = input_cells(s);
    append(row, point_cells(w.batch, w.context));
    append_cells(row, ridgeline::operator_fields(), o);
    return row;
}

inline std::vector<Column> ridge_columns() { return answer_columns(ridgeline::ridge_fields()); }
// `n_star`: the setting's, computed once for all its contexts.
inline std::vector<Cell> ridge_cells(const Resolved& s, std::int64_t context, const std::optional<double>& n_star) {
    return answer_cells(s, ridgeline::ridge_fields(), ridgeline::ridge_row(s.dep, s.m, s.base, context, n_star));
}

inline std::vector<Column> capacity_columns() { return answer_columns(ridgeline::capacity_fields()); }
// The largest batch at context n (n > 0) and the longest context at batch b.
inline std::vector<Cell> capacity_cells(const Resolved& s, std::int64_t n, std::int64_t b) {
    return answer_cells(s, ridgeline::capacity_fields(), ridgeline::capacity_row(s.dep, s.m, s.base, n, b));
}

inline std::vector<Column> generate_columns() { return answer_columns(ridgeline::generation_fields()); }
inline std::vector<Cell> generate_cells(const Resolved& s, std::int64_t b, const ridgeline::Generation& g) {
    return answer_cells(s, ridgeline::generation_fields(), ridgeline::GenerationRow{b, g});
}

inline std::vector<Column> prefill_columns() { return answer_columns(ridgeline::prefill_fields()); }
inline std::vector<Cell> prefill_cells(const Resolved& s, const ridgeline::PrefillRow& r) {
    return answer_cells(s, ridgeline::prefill_fields(), r);
}

inline std::vector<Column> speculative_columns() { return answer_columns(ridgeline::speculative_fields()); }
// What the footnote under a speculative table says of the draft an EAGLE-3 head is.
inline std::string draft_head_note(const ridgeline::DraftHead& d) {
    return "draft: " + printable(std::string(d.block.name.view())) + ", an EAGLE-3 head in its checkpoint's formats (" +
           ridgeline::format_name(d.weights) + "), split as the target's layers; each drafted token runs one pass, the first over the g + 1 "
           "positions verified with fc fusing the target's hidden states; memory/device counts its weights and KV, not the embeddings it "
           "shares";
}

inline std::vector<Cell> speculative_cells(const Resolved& s, const ridgeline::SpeculativeRow& r) {
    return answer_cells(s, ridgeline::speculative_fields(), r);
}

// ---------------------------------------------------------------------------------------------
// list, show, model: the presets
// ---------------------------------------------------------------------------------------------

// EAGLE-3 heads (--draft), as list drafts and show print them: what each holds beside the
// target's embeddings, and for which target.
inline Table draft_heads_table() {
    return Table({{"name", "name", false}, {"layers", "layers"}, {"parameters", "parameters"}, {"draft_vocab", "draft vocab"},
                  {"target_vocab", "target vocab"}, {"target_hidden", "target hidden"}, {"fuses_hidden_states", "fc"},
                  {"weights", "weights", false}});
}
inline std::vector<Cell> draft_head_cells(const std::string& name, const ridgeline::DraftHead& d) {
    const double p = ridgeline::draft_head_parameters(d);
    return {text(name), integer(layer_count(d.block)), number(p, params_text(p)), integer(d.block.vocab_size), integer(d.target_vocab),
            integer(d.target_hidden), Cell{d.fuses_hidden_states, d.fuses_hidden_states ? "yes" : "no"}, text(ridgeline::format_name(d.weights))};
}

// One head, as show prints it.
inline Table draft_head_table(const std::string& name, const ridgeline::DraftHead& d) {
    Table t = draft_heads_table();
    t.add(draft_head_cells(name, d));
    return t;
}

// What a fit's bandwidth efficiency is a fraction of, in the words predict, list efficiency and
// calibrate's fit line share: how the attention read the KV, and where the activations went.
inline const char* kv_read_words(bool per_query_head) { return per_query_head ? "query head" : "KV head"; }
inline const char* activations_words(bool through_memory) { return through_memory ? "through memory" : "on chip"; }

// A fraction, shown as a percentage to a tenth (the JSON keeps the fraction), and a fitted time
// per layer, sequence or message, shown in microseconds to a tenth (the JSON keeps seconds).
inline Cell percent_cell(double fraction) { return converted(fraction, 100 * fraction, 1, "{}%"); }
inline Cell microseconds_cell(ridgeline::Seconds v) { return converted(v.in(seconds), v.in(ridgeline::us), 1, "{} us"); }

// `what`: "hardware", "models", "drafts" or "efficiency".
inline Table list_table(const std::string& what) {
    using namespace ridgeline;
    if (what == "efficiency") {
        // Which --calibration to pass to predict, and how far to trust it (the leave-one-out
        // errors calibrate measured when it wrote the preset).
        const auto share = [](const std::optional<double>& v) { return v ? percent_cell(*v) : null("-"); };
        Table t({{"name", "name", false}, {"engine", "engine", false}, {"hardware", "hardware", false}, {"rows", "rows"},
                 {"bandwidth_efficiency", "bandwidth eff."}, {"compute_efficiency", "compute eff."},
                 {"overhead_s", "per step"}, {"per_layer_s", "per layer"}, {"per_moe_layer_s", "per MoE layer"},
                 {"per_sequence_s", "per sequence"}, {"per_message_s", "per link message"}, {"kv_read_per", "KV read per", false}, {"activations", "activations", false},
                 {"leave_one_out_median", "leave-one-out median"}, {"leave_one_out_worst", "worst"}});
        for (const auto& name : list_presets(PresetKind::efficiency)) {
            const EfficiencyPreset p = load_efficiency(name);
            const Calibration& c = p.fit;
            t.add({text(name), text(p.engine), text(p.hardware), p.rows ? integer(static_cast<std::int64_t>(*p.rows)) : null("-"),
                   number(c.bandwidth_efficiency, 3), number(c.compute_efficiency, 3),
                   converted(c.overhead.in(seconds), c.overhead.in(ms), 2, "{} ms"),
                   microseconds_cell(c.per_layer), microseconds_cell(c.per_moe_layer), microseconds_cell(c.per_sequence),
                   microseconds_cell(c.per_message),
                   // What the terms' bytes were (the efficiencies are of those bytes), as predict says them.
                   text(kv_read_words(c.kv_per_query_head)), text(activations_words(c.activation_traffic)),
                   share(p.leave_one_out_median), share(p.leave_one_out_worst)});
        }
        return t;
    }
    if (what == "hardware") {
        Table t({{"name", "name", false}, {"device", "device", false}, {"memory_bytes", "memory"},
                 {"memory_bandwidth_bytes_per_s", "bandwidth"}, {"bf16_flop_per_s", "dense bf16/fp16"}});
        for (const auto& name : list_presets(PresetKind::hardware)) {
            const Hardware h = load_hardware(name);
            const auto peak = h.peak_for(Numeric::bf16) ? h.peak_for(Numeric::bf16) : h.peak_for(Numeric::fp16);
            t.add({text(name), text(std::string(h.name.view())),
                   number(h.memory_capacity.in(bytes), si(h.memory_capacity.in(bytes), "B", 0)),
                   number(h.memory_bandwidth.in(bytes_per_s), si(h.memory_bandwidth.in(bytes_per_s), "B/s")),
                   peak ? number(peak->in(flop_per_s), si(peak->in(flop_per_s), "FLOP/s", 1)) : null("-")});
        }
        return t;
    }
    if (what == "drafts") {
        Table t = draft_heads_table();
        for (const auto& name : list_presets(PresetKind::draft_head)) t.add(draft_head_cells(name, load_draft_head(name)));
        return t;
    }
    Table t({{"name", "name", false}, {"layers", "layers"}, {"total_params", "total"}, {"active_params", "active"},
             {"kv_bytes_per_token", "KV/token (bf16)"}});
    for (const auto& name : list_presets(PresetKind::model)) {
        const Model m = load_model(name);
        const double total = derived_parameters(m).total(), active = active_parameters(m).total();
        const double kv = kv_bytes_per_token(m, formats::bf16).in(bytes);
        t.add({text(name), integer(layer_count(m)), number(total, params_text(total)), number(active, params_text(active)),
               converted(kv, kv / 1024, 1, "{} KiB")});
    }
    return t;
}

inline Table hardware_table(const ridgeline::Hardware& h) {
    using namespace ridgeline;
    Table t({{"field", "field", false}, {"value", "value", false}});
    t.add({text("name"), text(std::string(h.name.view()))});
    t.add({text("memory_bytes"), number(h.memory_capacity.in(bytes), si(h.memory_capacity.in(bytes), "B", 1))});
    // What the memory budget starts from, where the device reports other than its datasheet.
    if (h.memory_reported)
        t.add({text("memory_reported_bytes"), converted(h.memory_reported->in(bytes), h.memory_reported->in(MiB), 0, "{} MiB")});
    t.add({text("memory_bandwidth_bytes_per_s"), number(h.memory_bandwidth.in(bytes_per_s), si(h.memory_bandwidth.in(bytes_per_s), "B/s"))});
    if (h.measured_bandwidth)
        t.add({text("measured_bandwidth_bytes_per_s"),
               number(h.measured_bandwidth->in(bytes_per_s), si(h.measured_bandwidth->in(bytes_per_s), "B/s"))});
    for (Numeric n : all_numerics)
        if (const auto p = h.peak_for(n)) {
            t.add({text(fmt::format("{}_dense_flop_per_s", n)), number(p->in(flop_per_s), si(p->in(flop_per_s), "FLOP/s", 1))});
            t.add({text(fmt::format("{}_ops_per_byte", n)), number(ops_per_byte(h, n).in(flop_per_byte), 1)});
        }
    if (h.interconnect_bandwidth)
        t.add({text("interconnect_bytes_per_s"),
               number(h.interconnect_bandwidth->in(bytes_per_s), si(h.interconnect_bandwidth->in(bytes_per_s), "B/s"))});
    // The figures a split's link time comes from: which devices the link joins, how, and the
    // network past them.
    t.add({text("scale_up_domain"), integer(h.scale_up_domain)});
    if (h.interconnect_bandwidth) t.add({text("scale_up_topology"), text(h.scale_up_mesh ? "mesh" : "switch")});
    if (h.scale_up_latency) t.add({text("scale_up_latency_s"), microseconds_cell(*h.scale_up_latency)});
    if (h.scale_out_bandwidth)
        t.add({text("scale_out_bytes_per_s"), number(h.scale_out_bandwidth->in(bytes_per_s), si(h.scale_out_bandwidth->in(bytes_per_s), "B/s"))});
    if (h.scale_out_latency) t.add({text("scale_out_latency_s"), microseconds_cell(*h.scale_out_latency)});
    if (h.cuda_capability) t.add({text("cuda_compute_capability"), number(*h.cuda_capability, 1)});
    return t;
}

inline Table model_table(const ridgeline::LoadedModel& loaded) {
    using namespace ridgeline;
    const Model& m = loaded.model;
    Table t({{"field", "field", false}, {"value", "value", false}});
    const ParameterBreakdown p = derived_parameters(m), a = active_parameters(m);
    t.add({text("name"), text(std::string(m.name.view()))});
    t.add({text("hidden_size"), integer(m.hidden_size)});
    t.add({text("vocab_size"), integer(m.vocab_size)});
    t.add({text("tie_word_embeddings"), Cell{m.tied_embeddings, m.tied_embeddings ? "true" : "false"}});
    for (std::size_t i = 0; i < m.group_count; ++i) {
        const LayerGroup& g = m.groups[i];
        std::string d = fmt::format("{} layers, ", g.count);
        d += std::visit([](const auto& k) { return k.describe(); }, g.spec.attention);
        if (g.spec.window > 0) d += ", " + g.spec.reach().describe();
        d += ", " + std::visit([](const auto& k) { return k.describe(); }, g.spec.ffn);
        if (g.spec.norms != 2) d += fmt::format(", {} norms", g.spec.norms);
        t.add({text(fmt::format("layer_group_{}", i)), text(d)});
    }
    const auto row = [&](const char* key, double v) { t.add({text(key), converted(v, v, 0, "{}")}); };
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
    t.add({text("kv_bytes_per_token_bf16"), number(kv, shown(kv, 0, "{} B") + shown(kv / 1024, 1, " ({} KiB)"))});
    const double state = state_bytes_per_sequence(m).in(bytes);
    if (state > 0) t.add({text("state_bytes_per_sequence_bf16"), number(state, shown(state / 1048576, 1, "{} MiB"))});
    // What the checkpoint's own files weigh, in the formats its config.json gives them.
    t.add({text("checkpoint_formats"), text(loaded.precision_source)});
    const double w = weights_per_device(m, loaded.precision).in(bytes);
    t.add({text("checkpoint_weight_bytes"), number(w, si(w, "B") + (m.mtp_layers > 0 ? " (the main model; MTP modules aside, as above)" : ""))});
    if (!loaded.notes.empty()) t.add({text("read_as"), text(loaded.notes)});
    return t;
}

// `ridgeline show TARGET`: a hardware or model preset, or a file of either.
inline Table show_table(const std::string& target) {
    using namespace ridgeline;
    const auto hw = list_presets(PresetKind::hardware);
    std::error_code ec;
    if (looks_like_path(target) || std::filesystem::exists(target, ec)) {
        const ResolvedPreset r = ridgeline::resolve(PresetKind::model, target);  // a directory means its config.json
        const auto j = read_json_file(r.file);
        if (json_detail::names_eagle3_head_config(j)) return draft_head_table(r.name, draft_head_from_config(j, r.file.string(), r.name));
        if (j.is_object() && j.contains("model_type")) return model_table(loaded_model(j, r));
        // The other files ridgeline reads are not shown: say which one this is.
        const std::string file = json_detail::printable(r.file.string());
        if (j.is_object() && j.contains("bandwidth_efficiency"))
            throw error(file, "", "an efficiency preset", "a model's config.json or a hardware preset (predict and plan read it with --calibration)");
        if (j.is_object() && j.contains("measurements"))
            throw error(file, "", "a measurements file", "a model's config.json or a hardware preset (calibrate --measurements reads this one)");
        return hardware_table(hardware_from_json(j, r.file.string()));
    }
    if (std::find(hw.begin(), hw.end(), target) != hw.end()) return hardware_table(load_hardware(target));
    const auto models = list_presets(PresetKind::model);
    if (std::find(models.begin(), models.end(), target) != models.end()) return model_table(load_model_with_formats(target));
    const auto heads = list_presets(PresetKind::draft_head);
    if (std::find(heads.begin(), heads.end(), target) != heads.end()) return draft_head_table(target, load_draft_head(target));
    for (const auto& [kind, reader] : {std::pair{PresetKind::efficiency, "predict --calibration"}, std::pair{PresetKind::measurements, "calibrate --measurements"}}) {
        const auto names = list_presets(kind);
        if (std::find(names.begin(), names.end(), target) != names.end())
            throw error("", "preset", "\"" + json_detail::printable(target) + "\"",
                        std::string("a model or hardware preset (this is ") + (kind == PresetKind::efficiency ? "an efficiency" : "a measurements") +
                            " preset; " + reader + " reads it)");
    }
    // An unknown name: the closest of the models and the devices both (a file of that name here
    // was read above).
    std::vector<std::string> both = models;
    both.insert(both.end(), hw.begin(), hw.end());
    throw error("", "model or hardware preset", "\"" + json_detail::printable(target) + "\"", "one of (closest first): " + closest_first(both, target));
}

// What a models table's counts count, printed under it: publishers differ on the first (Meta's
// 17B active for Llama 4 and Qwen's 3.3B for Qwen3-30B-A3B count the input table, OpenAI's 5.1B
// for gpt-oss-120b does not), and the second is a slope that windows and recurrent state bend.
// `model` gives each row's KV in that row's format (the checkpoint's row in the KV default, bf16).
inline std::string model_counts_note(bool kv_in_row_format) {
    return std::string("active: the weights a token's step multiplies, plus the input table (as Meta, Qwen and Mistral count; "
                       "OpenAI's 5.1B for gpt-oss-120b leaves it out); ") +
           (kv_in_row_format ? "weights: as --weights stores them, the linear layers and experts in the row's format, the embeddings, "
                               "an untied LM head, the norms and routers as the checkpoint stores them; "
                             : "") +
           "KV/token: every layer's" + (kv_in_row_format ? ", in the row's format (the checkpoint's row: bf16, the --kv default)" : "") +
           ", before sliding windows and recurrent state (decode applies both)";
}

// `ridgeline model`: parameters, weight bytes per format and KV per token, and last the
// checkpoint's own formats (KV in Precision's default). A format's weights are as --weights
// stores them: the linear layers and experts in it, the embeddings and an untied LM head as the
// checkpoint stores them; its KV is every layer's in that format.
inline Table model_formats_table(const ridgeline::LoadedModel& loaded) {
    using namespace ridgeline;
    const Model& m = loaded.model;
    const ParameterBreakdown p = derived_parameters(m), a = active_parameters(m);
    Table t({{"model", "model", false}, {"format", "format", false}, {"total_params", "total"},
             {"active_params", "active"}, {"weight_bytes", "weights"}, {"kv_bytes_per_token", "KV/token"}});
    for (const char* f : {"fp32", "bf16", "fp8", "int8", "int4/g128", "mxfp4", "int4"}) {
        const Format fmt_ = *parse_format(f);
        Precision as_asked{fmt_, fmt_};
        store_weights_as(as_asked, loaded.precision, fmt_);  // as --weights stores them
        const double w = weights_per_device(m, as_asked).in(bytes);
        const double kv = kv_bytes_per_token(m, fmt_).in(bytes);
        t.add({text(std::string(m.name.view())), text(f), number(p.total(), params_text(p.total())),
               number(a.total(), params_text(a.total())), number(w, si(w, "B")), converted(kv, kv / 1024, 1, "{} KiB")});
    }
    const double w = weights_per_device(m, loaded.precision).in(bytes);
    const double kv = kv_bytes_per_token(m, loaded.precision.kv).in(bytes);
    t.add({text(std::string(m.name.view())), text("checkpoint"), number(p.total(), params_text(p.total())),
           number(a.total(), params_text(a.total())), number(w, si(w, "B")), converted(kv, kv / 1024, 1, "{} KiB")});
    return t;
}

// ---------------------------------------------------------------------------------------------
// diagnose and predict: one setting, one record
// ---------------------------------------------------------------------------------------------

// `w` carries the batch and context; `measured`, the time per output token.
// `longest`: the longest step the measured figure's rounding allows (diagnose's longest_step).
inline Table diagnose_table(const Resolved& s, const ridgeline::Workload& w, ridgeline::Seconds measured, std::int64_t draft_tokens,
                            ridgeline::Seconds longest = {}) {
    using namespace ridgeline;
    const Diagnosis d = diagnose(s.dep, s.m, w, measured, 0.9, draft_tokens, longest);
    Table t({{"field", "field", false}, {"value", "value", false}});
    const auto add = [&](const char* k, Cell c) { t.add({text(k), std::move(c)}); };
    add("hardware", text(s.hardware));
    add("model", text(std::string(s.m.name.view())));
    add_setting_fields(t, s);
    add("batch", integer(w.batch));
    add("context_tokens", integer(w.context));
    add("measured_tokens_per_s", number(1.0 / measured.in(seconds), 2));
    add("ceiling_tokens_per_s", number(d.ceiling.tokens_per_s.in(per_s), 2));
    add("fraction_of_ceiling", percent_cell(d.fraction_of_ceiling));
    add("implied_bandwidth_bytes_per_s", number(d.implied_bandwidth.in(bytes_per_s), si(d.implied_bandwidth.in(bytes_per_s), "B/s")));
    add("bandwidth_utilisation", percent_cell(d.bandwidth_utilisation));
    add("verdict", text(name_of(d.verdict)));
    add("fits", Cell{d.memory.fits(), d.memory.fits() ? "yes" : "NO"});
    std::string reading;
    if (d.verdict == Verdict::near_ceiling) {
        // Faster than the ceiling by less than the measured figure's last digit: at it, not above.
        if (d.within_rounding) reading = "faster than the ceiling only within the measured figure's rounding, so ";
        reading += d.ceiling.links_bound                ? "at the links' budget: more speed needs fewer or faster all-reduces (a smaller tensor-parallel group, a faster link)"
                  : d.ceiling.bound == Bound::compute ? "at the compute budget: more speed needs fewer FLOPs per token or more compute"
                                                       : "at the byte budget: more speed needs fewer bytes per token or more bandwidth";
    } else if (d.verdict == Verdict::gap) {
        // In calibrate's words: one measurement cannot tell the terms apart, so it says what each
        // alone would be: a fixed time, the bandwidth's efficiency, the compute's.
        const Seconds above = d.measured_step - d.ceiling.step_time;
        // Each term as calibrate fits it: a compute efficiency below the floor its fits keep
        // (CalibrationTerms::lowest_compute) is no explanation calibrate would give.
        const bool compute_offered = d.compute_efficiency_alone >= CalibrationTerms{}.lowest_compute;
        const bool staged = s.dep.parallel.pipeline > 1;
        reading = shown(100 * d.gap, 0, "{}% below the ceiling, ") + shown(above.in(ms), 2, "{} ms a step above its ") +
                  shown(d.ceiling.step_time.in(ms), 2, "{} ms") + (d.ceiling.bound == Bound::compute ? " (compute-bound): " : ": ") +
                  shown(d.overhead_alone.in(ms), 2, staged ? "a fixed time per step of {} ms a stage alone, " : "a fixed time per step of {} ms alone, ") +
                  shown(100 * d.bandwidth_efficiency_alone, 0, compute_offered ? "bandwidth efficiency below peak at {}% alone, " : "or bandwidth efficiency below peak at {}% alone") +
                  (compute_offered ? shown(100 * d.compute_efficiency_alone, 0, "or compute efficiency below peak at {}% alone") : std::string()) +
                  " would explain it (calibrate tells them apart)";
        add("gap", percent_cell(d.gap));
        // The same figures as numbers, for a reader of the JSON.
        add("overhead_alone_s", converted(d.overhead_alone.in(seconds), d.overhead_alone.in(ms), 3, "{} ms"));
        add("bandwidth_efficiency_alone", percent_cell(d.bandwidth_efficiency_alone));
        add("compute_efficiency_alone", percent_cell(d.compute_efficiency_alone));
    } else {
        // Offer the explanations only where one exists; none at all is itself the finding.
        reading = d.max_bits_per_weight || d.min_devices || d.min_acceptance
                      ? "faster than this setting allows; any one of these would explain it"
                      : "faster than this setting allows, and no lever here explains it (fewer bits, more devices or drafts): "
                        "check the setting and the measurement";
        const bool compute_bound = d.ceiling.bound == Bound::compute;
        // A lever with no value: null in JSON and CSV and "none (why)" in the table, and the why
        // also under <key>_why, so a JSON reader gets the reason the table gives.
        const auto none = [&](const char* k, const std::string& why) {
            add(k, null("none (" + why + ")"));
            t.add({text(std::string(k) + "_why"), text(why)}, false);
        };
        if (d.max_bits_per_weight) add("max_bits_per_weight", number(*d.max_bits_per_weight, 2));
        else none("max_bits_per_weight", compute_bound            ? "compute-bound: fewer bits leave its arithmetic"
                                          : d.bits_limited_by_memory ? "the KV, the activations and the tables in their own formats alone fill the memory"
                                                                     : "the KV, the tables in their own formats and the links alone take longer");
        if (d.max_bits_per_weight)
            add("max_bits_limited_by", text(d.bits_limited_by_memory ? "memory (the measured step allows more bits; no more fit)"
                                                                     : "the measured step's time"));
        if (d.min_devices) add("min_devices", integer(*d.min_devices));
        else none("min_devices", d.no_link_figure ? "hardware '" + std::string(s.hw.name.view()) + "' " +
                                                        (d.no_scale_out_figure ? "scale_out_GB_per_s" : "interconnect_GB_per_s") +
                                                        ": no figure in the preset to cost a split over more devices"
                                                  : "no tensor-parallel degree up to 1,024 is that fast and fits: its links' time grows with the degree");
        add("draft_tokens", integer(d.draft_tokens));
        const std::string no_speculation = d.verification_past ? "the verification reads context + " + std::to_string(d.draft_tokens) +
                                                                     " tokens, past the model's " + std::to_string(d.verification_past) + " positions"
                                           : compute_bound ? "compute-bound: verifying g + 1 tokens costs g + 1 times the arithmetic"
                                                           : "more than g + 1 tokens a step";
        if (d.min_acceptance) add("min_acceptance", number(*d.min_acceptance, 3));
        else none("min_acceptance", no_speculation);
        // The same bound in the engines' own measure, the mean acceptance length.
        if (d.min_accepted_tokens) add("min_accept_length", number(*d.min_accepted_tokens, 3));
        else none("min_accept_length", no_speculation);
    }
    // What does not fit did not run as stated: say so before any reading of the gap.
    if (!d.memory.fits())
        reading = shown(d.memory.used().in(GB), 2, "this setting does not fit (it needs {} GB a device, ") +
                  shown(d.memory.budget.in(GB), 2, "against a {} GB budget), so what was measured ran otherwise; as stated: ") + reading;
    add("reading", text(reading));
    return t;
}

inline Table predict_table(const Resolved& s, const ridgeline::Workload& w, const ridgeline::EfficiencyPreset& preset) {
    using namespace ridgeline;
    const PredictionRange r = predict_range(s.dep, s.m, w, preset.fit, preset.leave_one_out_worst);
    Table t({{"field", "field", false}, {"value", "value", false}});
    const auto add = [&](const char* k, Cell c) { t.add({text(k), std::move(c)}); };
    const auto time = [](Seconds v) { return converted(v.in(seconds), v.in(ms), 3, "{} ms"); };
    add("hardware", text(s.hardware));
    add("model", text(std::string(s.m.name.view())));
    add_setting_fields(t, s);
    add("calibration", text(preset.engine + " on " + preset.hardware));
    // Another device's fit is a guess about this one: say so beside the numbers.
    // Each caveat key is always there (null where it does not apply), so a reader's keys do not
    // change with the setting.
    add("calibration_device", preset.hardware != s.hardware
                                  ? text("fitted on " + preset.hardware + ", not " + s.hardware +
                                         ": its fractions of peak and its fixed times are assumed to carry over")
                                  : null("-"));
    // A fit on other models is a guess about this one too (a fixed time fitted on DeepSeek-V3's
    // 61 MoE layers says little about an 8B dense model): name the models it was fitted on.
    // The engine builds too: a kernel a later build replaced (an attention kernel reading the KV
    // per query head, a slow MoE kernel) stays in the fit.
    const FittedRows fitted = fitted_rows(preset);
    const auto& models = fitted.models;
    const auto join = [](const std::vector<std::string>& l) {
        std::string out;
        for (const auto& f : l) out += (out.empty() ? "" : "; ") + f;
        return out;
    };
    const bool other_models = !models.empty() && std::find(models.begin(), models.end(), std::string(s.m.name.view())) == models.end();
    add("calibration_models", other_models ? text("fitted on rows of " + join(models) + ", not " + std::string(s.m.name.view()) +
                                                  ": its leave-one-out error and range are of those models, and its fixed times carry over to this one unscaled")
                                           : null("-"));
    // The builds whatever the models, so a reader finds them under one key (a review found them
    // folded into calibration_models where the models differ).
    add("calibration_builds", !fitted.versions.empty() ? text("fitted on rows of engine builds: " + join(fitted.versions))
                              : !fitted.unread.empty() ? text("unknown: " + fitted.unread + ", so the models and builds it was fitted on are not known")
                                                       : null("-"));
    // A setting outside the batches or contexts the rows span extrapolates the terms: say which.
    std::string outside;
    if (!fitted.models.empty()) {
        const auto span = [](std::int64_t lo, std::int64_t hi) { return lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi); };
        if (w.batch < fitted.least_batch || w.batch > fitted.most_batch)
            outside = "batch " + std::to_string(w.batch) + " is outside the fitted rows' " + span(fitted.least_batch, fitted.most_batch);
        if (w.context < fitted.least_context || w.context > fitted.most_context)
            outside += (outside.empty() ? "" : "; ") + std::string("context ") + std::to_string(w.context) + " is outside the fitted rows' " +
                       span(fitted.least_context, fitted.most_context) + " tokens";
    }
    add("calibration_range", outside.empty() ? null("-") : text(outside + ": the fitted terms are extrapolated"));
    // The terms the estimate adds to the ceiling, each under its own key (a review found predict
    // naming the calibration but not what it charges; the links part of the table's assumptions
    // line gives the link's own latency, and per_message_s what the engine's collectives add to
    // each message).
    add("bandwidth_efficiency", percent_cell(preset.fit.bandwidth_efficiency));
    add("compute_efficiency", percent_cell(preset.fit.compute_efficiency));
    add("overhead_s", time(preset.fit.overhead));  // the preset's and plan's key for the time per step
    add("per_layer_s", microseconds_cell(preset.fit.per_layer));
    add("per_moe_layer_s", microseconds_cell(preset.fit.per_moe_layer));
    add("per_sequence_s", microseconds_cell(preset.fit.per_sequence));
    add("per_message_s", microseconds_cell(preset.fit.per_message));
    // The fitted terms' kind that changes the bytes, not only the time: say it with the numbers.
    add("kv_read_per", text(kv_read_words(preset.fit.kv_per_query_head)));
    add("activations", text(activations_words(preset.fit.activation_traffic)));
    add("activation_bytes", field_cell(Show::bytes, 0, r.estimate.activation_bytes.in(bytes)));
    add("batch", integer(w.batch));
    add("context_tokens", integer(w.context));
    add("ceiling_step_s", time(r.ceiling.step_time));
    add("predicted_step_s", time(r.estimate.step_time));
    // An unknown range is no range: null, not the estimate twice (a review read it as exact).
    const bool known = r.basis != RangeBasis::none;
    add("fastest_step_s", known ? time(r.fastest) : null("-"));
    add("slowest_step_s", known ? time(r.slowest) : null("-"));
    add("range_from", text(range_basis_name(r.basis)));
    add("predicted_tokens_per_s", number(r.estimate.tokens_per_s.in(per_s), 1));
    add("ceiling_tokens_per_s", number(r.ceiling.tokens_per_s.in(per_s), 1));
    add("leave_one_out_median", preset.leave_one_out_median ? percent_cell(*preset.leave_one_out_median) : null("-"));
    add("leave_one_out_worst", preset.leave_one_out_worst ? percent_cell(*preset.leave_one_out_worst) : null("-"));
    // What decode says of the same setting's memory: a prediction for one that does not fit is
    // of a setting no engine runs.
    const MemoryUse& mem = r.estimate.memory;
    add("memory_per_device_bytes", field_cell(Show::bytes, 0, mem.used().in(bytes)));
    add("memory_budget_bytes", field_cell(Show::bytes, 0, mem.budget.in(bytes)));
    add("fits", field_cell(Show::yes_no, 0, mem.fits()));
    return t;
}

// ---------------------------------------------------------------------------------------------
// calibrate: the fit's rows and the efficiency preset it makes
// ---------------------------------------------------------------------------------------------

inline constexpr const char* where_keys = "one of engine, engine_version, date, model, hardware, weights, tp, batch";

// A row's value for a --where key; nothing for a key that is not one of where_keys.
inline std::optional<std::string> row_field(const ridgeline::MeasuredRow& r, const std::string& key) {
    if (key == "engine") return r.engine;
    if (key == "engine_version") return r.engine_version;
    if (key == "date") return r.date;
    if (key == "model") return r.model;
    if (key == "hardware") return r.hardware;
    if (key == "weights") return ridgeline::format_name(r.workload.precision.weights);
    if (key == "tp") return std::to_string(r.parallel.tensor);
    if (key == "batch") return std::to_string(r.workload.batch);
    return std::nullopt;
}

// What --where matches and lists for a row: its value, or "(none stated)" where it has none (a
// review found the word listed as a value and then refused as one).
inline constexpr const char* none_stated = "(none stated)";
inline std::string where_value(const ridgeline::MeasuredRow& r, const std::string& key) {
    const std::string v = row_field(r, key).value_or("");
    return v.empty() ? none_stated : v;
}

// A --where filter "KEY=VALUE" split in two, KEY one of where_keys. `fail(value, expected)`
// throws each face's own error (the CLI's usage error, the module's ridgeline::error).
template <class Fail>
std::pair<std::string, std::string> split_where(const std::string& w, Fail fail) {
    const std::size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) fail(w, "KEY=VALUE, e.g. weights=bf16");
    const std::string key = w.substr(0, eq);
    if (!row_field(ridgeline::MeasuredRow{}, key)) fail(key, where_keys);
    return {key, w.substr(eq + 1)};
}

// A filter added to `where`, split; one given twice is refused (it filters nothing more, so it
// is more likely a typo for another).
template <class Fail>
void add_where(std::vector<std::pair<std::string, std::string>>& where, const std::string& w, Fail fail) {
    auto filter = split_where(w, fail);
    if (std::find(where.begin(), where.end(), filter) != where.end()) fail(w, "each filter once (" + echoed(w) + " is given twice)");
    where.push_back(std::move(filter));
}

struct CalibrateRequest {
    std::string measurements;  // a file, or a name in data/measurements
    std::string hardware;      // empty: the first remaining row's
    std::optional<std::string> engine, model;
    std::vector<std::pair<std::string, std::string>> where;  // KEY, VALUE: KEY one of where_keys
    bool per_layer = false;
    bool per_moe_layer = false;
    bool per_sequence = false;
    bool per_message = false;
    bool hold_compute = false;  // the compute efficiency held at 1, not fitted
    bool fit_compute = false;   // fitted free even where it does not pay Akaike's penalty
    bool activations_on_chip = false;  // fitted with the ceiling's reading (CalibrationTerms::activation_traffic off)
};

// The most rows calibrate runs leave-one-out over.
inline constexpr std::size_t leave_one_out_rows = 500;

struct CalibrateRun {
    ridgeline::MeasurementSet set;
    std::string hardware;              // the rows' device
    std::vector<std::string> passed_over;  // unasked for a device, the other devices of rows the filters left (-H chooses)
    std::vector<std::size_t> kept;     // the rows of set fitted or set aside, by index
    // Each kept row's memory per device at its last step (parallel to kept; for timed requests,
    // every sequence at prompt + output - 1, as serve() costs max ITL): a row past its budget ran
    // with more of the memory, or fewer sequences that long than it states.
    std::vector<ridgeline::MemoryUse> memory;
    std::vector<std::int64_t> last_context;  // that step's context
    std::vector<std::string> engines;  // the engines those rows name, each once, as first met
    std::vector<std::string> flagged;  // "/measurements/<i>: why" for rows the file flags (never fitted)
    ridgeline::Calibration fit;
    double lowest_compute = 1;  // the floor the fit's compute efficiency had
    bool moe_rows = false;      // whether some row kept is on an MoE model (a time per MoE layer has something to pay it)
    // Whether the rows kept differ in layer count and in batch: where they do not, a time per layer
    // (per sequence) is the fixed time again, and the fit says so beside it.
    bool layers_differ = false, batches_differ = false;
    bool splits_differ = false;  // rows on different splits (same_split: their links' messages differ)
    bool any_split = false;      // some row on more than one device of a replica (its steps send link messages)
    bool pipelined = false;  // some row has pipeline stages (the table's pp column; the fixed time is a stage's)
    std::vector<double> leave_one_out;
    std::string loo_skipped;  // why leave-one-out was not run, where it was not
    bool have_loo = false;
    double loo_median = 0, loo_worst = 0;
};

// Why the filters leave no row: the first filter no row of the file passes on its own (key is
// engine, model, hardware or a --where key), with the values the file has for it. Nothing when
// each filter alone leaves rows and only their combination leaves none.
struct FilterLeavingNone {
    std::string key, value, expected;
    bool from_where = false;  // given as --where KEY=VALUE (which may name engine or model too)
};
inline std::optional<FilterLeavingNone> filter_leaving_none(const CalibrateRequest& a, const ridgeline::MeasurementSet& set) {
    std::vector<std::pair<std::string, std::string>> filters;
    if (a.engine) filters.emplace_back("engine", *a.engine);
    if (a.model) filters.emplace_back("model", *a.model);
    if (!a.hardware.empty()) filters.emplace_back("hardware", a.hardware);
    const std::size_t flags = filters.size();
    filters.insert(filters.end(), a.where.begin(), a.where.end());
    for (std::size_t at = 0; at < filters.size(); ++at) {
        const auto& [key, value] = filters[at];
        std::vector<std::string> values;
        bool any = false;
        for (const ridgeline::MeasuredRow& r : set.rows) {
            const std::string v = where_value(r, key);
            any = any || v == value;
            if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
        }
        if (any) continue;
        // Numbers (tp, batch) in numeric order, the rest as text.
        const auto as_number = [](const std::string& v) {
            return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos && v.size() < 19 ? std::stoll(v) : -1;
        };
        std::sort(values.begin(), values.end(), [&](const std::string& x, const std::string& y) {
            const long long a = as_number(x), b = as_number(y);
            return a >= 0 && b >= 0 ? a < b : x < y;
        });
        std::string list;
        for (std::size_t i = 0; i < values.size() && i < 30; ++i) list += (i ? ", " : "") + values[i];
        if (values.size() > 30) list += ", ... (" + std::to_string(values.size() - 30) + " more)";
        return FilterLeavingNone{key, value, "a value some row of " + a.measurements + " has: " + list, at >= flags};
    }
    return std::nullopt;
}

// The fit. When the filters leave no row, `kept` is empty and nothing is fitted: each face says
// so in its own terms.
inline CalibrateRun run_calibration(const CalibrateRequest& a) {
    using namespace ridgeline;
    CalibrateRun run;
    run.set = load_measurements(a.measurements);
    const MeasurementSet& set = run.set;
    run.hardware = a.hardware;
    for (const MeasuredRow& r : set.rows) {
        if (a.engine && r.engine != *a.engine) continue;
        if (a.model && r.model != *a.model) continue;
        bool match = true;
        for (const auto& [k, v] : a.where) match = match && where_value(r, k) == v;
        if (!match) continue;
        if (run.hardware.empty()) run.hardware = r.hardware;
        if (r.hardware != run.hardware) {
            if (a.hardware.empty() && std::find(run.passed_over.begin(), run.passed_over.end(), r.hardware) == run.passed_over.end())
                run.passed_over.push_back(r.hardware);
            continue;
        }
        const auto i = static_cast<std::size_t>(&r - set.rows.data());
        if (r.flagged) {
            run.flagged.push_back("/measurements/" + std::to_string(i) + ": " + *r.flagged);
            continue;
        }
        run.kept.push_back(i);
        if (!r.engine.empty() && std::find(run.engines.begin(), run.engines.end(), r.engine) == run.engines.end())
            run.engines.push_back(r.engine);
    }
    if (run.kept.empty()) return run;
    const Hardware hw = load_hardware(run.hardware);
    std::vector<Observation> obs;
    for (const std::size_t i : run.kept) {
        const MeasuredRow& r = set.rows[i];
        obs.push_back(observation(r));
        run.moe_rows = run.moe_rows || has_routed_experts(obs.back().model);
        run.layers_differ = run.layers_differ || layer_count(obs.back().model) != layer_count(obs.front().model);
        run.pipelined = run.pipelined || obs.back().parallel.pipeline > 1;
        run.batches_differ = run.batches_differ || obs.back().workload.batch != obs.front().workload.batch;
        run.splits_differ = run.splits_differ || !same_split(obs.back().parallel, obs.front().parallel);
        run.any_split = run.any_split || obs.back().parallel.replica_devices() > 1;
    }
    CalibrationTerms terms;
    terms.per_layer = a.per_layer;
    terms.per_moe_layer = a.per_moe_layer;
    terms.per_sequence = a.per_sequence;
    terms.per_message = a.per_message;
    terms.compute = !a.hold_compute;
    terms.compute_pays = !a.fit_compute;
    terms.activation_traffic = !a.activations_on_chip;
    run.lowest_compute = terms.lowest_compute;
    // The library numbers the observations it was given; say which row of which file that is.
    try {
        run.fit = calibrate(hw, obs, terms);
    } catch (const ridgeline::error& e) {
        const std::string& path = e.path();
        if (path == "observations") {  // every row faster than its ceiling: the first, as the file numbers it
            std::string value = e.value();
            const std::size_t open = value.find("(observations["), close = value.find("]: ", open);
            if (open != std::string::npos && close != std::string::npos)
                value.replace(open + 1, close + 1 - (open + 1),
                              "/measurements/" + std::to_string(run.kept.at(std::stoul(value.substr(open + 14, close - open - 14)))));
            throw ridgeline::error(a.measurements, "/measurements", value, e.expected());
        }
        if (path.starts_with("fitted ")) throw ridgeline::error(a.measurements, "", "a " + path + " of " + e.value(), e.expected());
        // An efficiency past the bound a workload takes: rows far slower than their ceiling.
        if (path.starts_with("efficiency ("))
            throw ridgeline::error(a.measurements, "", "a fitted " + path + " of " + e.value(),
                                   e.expected() + ", what a workload takes (the rows are over a million times slower than their ceiling)");
        if (!path.starts_with("observations[")) throw;
        // "observations[3].tensor-parallel degree": the row, and its key where the library names one.
        std::string row = "/measurements/" + std::to_string(run.kept.at(std::stoul(path.substr(13))));
        const std::size_t dot = path.find("].");
        static const std::vector<std::pair<std::string_view, std::string_view>> keys{
            {"tensor-parallel degree", "tensor_parallel"}, {"pipeline-parallel degree", "pipeline_parallel"},
            {"expert-parallel degree", "expert_parallel"}, {"attention data-parallel degree", "attention_data_parallel"},
            {"tensor-parallel degree / attention data-parallel degree", "attention_data_parallel"}, {"batch", "batch"}, {"context", "context"}};
        std::string expected = e.expected();
        std::string value = e.value();
        if (dot != std::string::npos) {
            const std::string said_path = path.substr(dot + 2);
            bool named = false;
            for (const auto& [said, key] : keys)
                if (said_path == said) row += "/" + std::string(key), named = true;
            // A compute format the device lacks: the row's compute, with the formats it has.
            if (said_path.starts_with("hardware '") && said_path.ends_with("' compute peak")) {
                std::string has;
                for (Numeric n : all_numerics)
                    if (hw.peak_for(n)) has += (has.empty() ? "" : ", ") + std::string(name_of(n));
                row += "/compute";
                expected += " (" + (has.empty() ? std::string("none") : has) + ")";
                named = true;
            }
            // No key of the row says it (a figure of the device's preset): keep the library's words for what was missing.
            if (!named) value += " for " + said_path;
            // A split over devices whose preset has no link: the row says what it ran over.
            expected = naming_own_lever(std::move(expected), link_bandwidth_lever, "give the row's link_GB_per_s");
        }
        throw ridgeline::error(a.measurements, row, value, expected);
    }
    // Each row's memory at its last step, once the fit has checked the rows (and named a bad one
    // by its key in the file).
    for (const Observation& o : obs) {
        Workload last = o.workload;
        if (o.requests.timed != Timed::decode_steps) last.context = o.requests.prompt + o.requests.output - 1;
        run.memory.push_back(memory_use(Deployment{hw, o.parallel}, o.model, last));
        run.last_context.push_back(last.context);
    }
    // Leave-one-out fits once per row over all rows (about 16 ms a fit at 2,700 rows, so 43 s
    // and more): past leave_one_out_rows the fit is shown without it, and says so. At the bound,
    // served rows cost most (each samples up to 64 steps): 500 of them with a time per layer and
    // per sequence took 31 s in a Release build, each fit tried with the compute free and held.
    if (obs.size() > leave_one_out_rows)
        run.loo_skipped = "not run: " + std::to_string(obs.size()) + " rows, over " + std::to_string(leave_one_out_rows) +
                          " (one fit per row; filter the rows to have it)";
    else
        run.leave_one_out = ridgeline::leave_one_out(hw, obs, terms);
    std::vector<double> sorted = run.leave_one_out;
    std::sort(sorted.begin(), sorted.end());
    // Plain doubles and a flag: g++ 12 -O2 warns (maybe-uninitialized, a false positive) on optionals here.
    run.have_loo = !sorted.empty();
    run.loo_median = run.have_loo ? sorted[sorted.size() / 2] : 0.0;
    run.loo_worst = run.have_loo ? sorted.back() : 0.0;
    return run;
}

// The rows the fit set aside and why, each "/measurements/<i>: why" as the file numbers it (the
// library names its own observations: "observations[i]: ...").
inline std::vector<std::string> set_aside_rows(const CalibrateRun& run) {
    std::vector<std::string> out;
    for (const auto& x : run.fit.set_aside) {
        const std::size_t close = x.find("]: ");
        const std::size_t i = std::stoul(x.substr(13, close - 13));
        out.push_back("/measurements/" + std::to_string(run.kept.at(i)) + ": " + x.substr(close + 3));
    }
    return out;
}

// The rows kept whose batch a device cannot hold at full length, each "/measurements/<i>: ..."
// with its memory: fitted as stated, but the engine held fewer sequences that long.
inline std::vector<std::string> rows_not_fitting(const CalibrateRun& run) {
    using namespace ridgeline;
    std::vector<std::string> out;
    for (std::size_t i = 0; i < run.kept.size(); ++i) {
        const MemoryUse& u = run.memory[i];
        if (u.fits()) continue;
        // The preset's memory is the device's report, or else its datasheet's figure; a row past
        // it is past what ridgeline counts (its activation workspace is an estimate), not proof.
        const bool steps = run.set.rows[run.kept[i]].requests.timed == Timed::decode_steps;
        const double share = u.used().in(bytes) / u.capacity.in(bytes);
        out.push_back("/measurements/" + std::to_string(run.kept[i]) + ": " + shown(u.used().in(GB), 2, "{} GB per device at context ") +
                      std::to_string(run.last_context[i]) + (steps ? ", " : " (its last step), ") +
                      (share > 1 ? shown(u.capacity.in(GB), 2, "more than the {} GB the preset gives the device")
                                 : shown(100 * share, 0, "{}% of the ") + shown(u.capacity.in(GB), 2, "{} GB the preset gives the device, past its ") +
                                       shown(u.budget.in(GB), 2, "{} GB budget")));
    }
    return out;
}

// One row per measurement kept: measured, predicted, residual, and whether it was fitted.
inline Table calibrate_table(const CalibrateRun& run) {
    using namespace ridgeline;
    // The rest of each row's setting, under decode's keys, is for JSON and CSV: the table keeps to
    // what tells the rows of one group apart, with the pipeline, expert and attention splits
    // where some row has one (else two rows at pp 1 and 2 would read as one setting).
    const auto some = [&](auto split) {
        return std::any_of(run.kept.begin(), run.kept.end(), [&](std::size_t k) { return split(run.set.rows[k].parallel) > 1; });
    };
    const bool ep = some([](const Parallelism& x) { return x.expert; }), adp = some([](const Parallelism& x) { return x.attention_data; });
    Table t({{"row", "row"}, {"engine", "engine", false}, {"hardware", "hardware", false, false}, {"model", "model", false},
             {"weights", "weights", false}, {"kv", "kv", false, false}, {"compute", "compute", false, false},
             {"experts", "experts", false, false},
             {"embeddings", "embeddings", false, false}, {"lm_head", "lm_head", false, false},
             {"router_and_norms", "norms and routers", false, false}, {"tp", "tp"},
             {"pp", "pp", true, run.pipelined}, {"ep", "ep", true, ep}, {"attention_dp", "attention dp", true, adp},
             {"batch", "batch"}, {"context_tokens", "context"}, {"timed", "timed", false}, {"measured_step_s", "measured"},
             {"predicted_step_s", "predicted"},
             {"residual_s", "residual"}, {"residual_fraction", "residual %"}, {"fitted", "fitted", false},
             {"memory_context_tokens", "memory at", true, false}, {"memory_per_device_bytes", "memory", true, false},
             {"memory_budget_bytes", "budget", true, false},
             {"fits", "fits", false, false}});
    const Calibration& c = run.fit;
    for (std::size_t i = 0; i < run.kept.size(); ++i) {
        const MeasuredRow& r = run.set.rows[run.kept[i]];
        const bool used = std::find(c.used.begin(), c.used.end(), i) != c.used.end();
        // A residual under 1e-9 of its row is rounding in the fit's arithmetic: 0.
        const bool settled = std::abs(c.residuals[i].in(seconds)) < 1e-9 * r.measured_step.in(seconds);
        const double residual = settled ? 0.0 : c.residuals[i].in(seconds);
        const double rel = residual / r.measured_step.in(seconds);
        const Precision& p = r.workload.precision;
        t.add({integer(static_cast<std::int64_t>(run.kept[i])), text(r.engine.empty() ? "-" : r.engine), text(r.hardware), text(r.model),
               text(format_name(p.weights)), text(format_name(p.kv)), text(std::string(name_of(p.compute))),
               text(format_name(p.expert_format())),
               text(format_name(p.embedding_format())), text(format_name(p.lm_head_format())),
               text(format_name(p.router_and_norm_format())), integer(r.parallel.tensor),
               integer(r.parallel.pipeline), integer(r.parallel.expert), integer(r.parallel.attention_data), integer(r.workload.batch),
               integer(r.workload.context),
               text(r.requests.timed == Timed::decode_steps ? std::string("steps")
                    : std::to_string(r.requests.prompt) + "+" + std::to_string(r.requests.output) +
                          (r.requests.timed == Timed::whole_requests ? " requests"
                           : r.requests.prefill_steps == PrefillSteps::apart ? " served apart" : " served")),
               converted(r.measured_step.in(seconds), r.measured_step.in(ms), 2, "{} ms"),
               converted(c.predicted[i].in(seconds), c.predicted[i].in(ms), 2, "{} ms"),
               converted(residual, residual * 1e3, 2, "{} ms", true),
               converted(rel, 100 * rel, 1, "{}%", true), Cell{used, used ? "yes" : "set aside"},
               integer(run.last_context[i]), number(run.memory[i].used().in(bytes), 0), number(run.memory[i].budget.in(bytes), 0),
               Cell{run.memory[i].fits(), run.memory[i].fits() ? "yes" : "NO"}});
    }
    return t;
}

// The efficiency preset `calibrate --save` writes (data/efficiency/; efficiency_json.hpp reads it).
inline nlohmann::ordered_json calibration_preset(const CalibrateRequest& a, const CalibrateRun& run) {
    using namespace ridgeline;
    const Calibration& c = run.fit;
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    // The preset names its engine; rows that name none (a file of one engine's runs) say so, and
    // rows of several engines name them all (a fit over engines is no one engine's).
    std::string engine = a.engine.value_or("");
    if (!a.engine)
        for (const std::string& e : run.engines) engine += (engine.empty() ? "" : " + ") + e;
    j["engine"] = engine.empty() ? "(engine not stated in " + a.measurements + ")" : engine;
    j["hardware"] = run.hardware;
    j["measurements"] = a.measurements;
    j["filters"] = nlohmann::ordered_json::array();
    if (a.model) j["filters"].push_back("model=" + *a.model);
    for (const auto& [k, v] : a.where) j["filters"].push_back(k + "=" + v);
    j["bandwidth_efficiency"] = c.bandwidth_efficiency;
    j["compute_efficiency"] = c.compute_efficiency;
    j["overhead_s"] = c.overhead.in(seconds);
    j["per_layer_s"] = c.per_layer.in(seconds);
    j["per_layer_term"] = a.per_layer;
    // Written only where fitted, so presets fitted without the term read as before.
    if (a.per_moe_layer) {
        j["per_moe_layer_s"] = c.per_moe_layer.in(seconds);
        j["per_moe_layer_term"] = true;
    }
    if (a.per_sequence) {
        j["per_sequence_s"] = c.per_sequence.in(seconds);
        j["per_sequence_term"] = true;
    }
    if (a.per_message) {
        j["per_message_s"] = c.per_message.in(seconds);
        j["per_message_term"] = true;
    }
    // How the compute efficiency was fitted, so a refit with these terms gives the same fit and
    // the same leave-one-out: held (--hold-compute), free only where it pays (compute_pays, the
    // default), or free (--fit-compute); and why the penalty held it, where it did.
    j["compute_term"] = !a.hold_compute;
    if (!a.hold_compute && !a.fit_compute) j["compute_pays"] = true;  // absent: fitted free, as older presets were
    if (!c.compute_basis.empty()) j["compute_basis"] = c.compute_basis;
    j["lowest_compute"] = run.lowest_compute;
    j["kv_per_query_head"] = c.kv_per_query_head;
    j["activation_traffic"] = c.activation_traffic;
    const auto opt = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
    j["bandwidth_efficiency_error"] = opt(c.bandwidth_efficiency_error);
    j["compute_efficiency_error"] = opt(c.compute_efficiency_error);
    j["overhead_error_s"] = opt(c.overhead_error ? std::optional<double>(c.overhead_error->in(seconds)) : std::nullopt);
    j["per_layer_error_s"] = opt(c.per_layer_error ? std::optional<double>(c.per_layer_error->in(seconds)) : std::nullopt);
    if (a.per_moe_layer)
        j["per_moe_layer_error_s"] = opt(c.per_moe_layer_error ? std::optional<double>(c.per_moe_layer_error->in(seconds)) : std::nullopt);
    if (a.per_sequence)
        j["per_sequence_error_s"] = opt(c.per_sequence_error ? std::optional<double>(c.per_sequence_error->in(seconds)) : std::nullopt);
    if (a.per_message)
        j["per_message_error_s"] = opt(c.per_message_error ? std::optional<double>(c.per_message_error->in(seconds)) : std::nullopt);
    j["rms_relative_error"] = c.rms_relative_error;
    j["explanation"] = c.explanation;
    if (!c.bandwidth_basis.empty()) j["bandwidth_basis"] = c.bandwidth_basis;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const std::size_t i : c.used) rows.push_back(static_cast<std::int64_t>(run.kept[i]));
    j["rows"] = rows;
    j["leave_one_out"] = {{"median", run.have_loo ? nlohmann::ordered_json(run.loo_median) : nlohmann::ordered_json(nullptr)},
                          {"worst", run.have_loo ? nlohmann::ordered_json(run.loo_worst) : nlohmann::ordered_json(nullptr)}};
    return j;
}

}  // namespace cli
