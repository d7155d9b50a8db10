// Measured decode speeds with their setting (data/measurements/*.json), for calibrate and
// diagnose. Every error names the file and the row's JSON pointer.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalogue.hpp"
#include "checkpoint_formats.hpp"
#include "json_node.hpp"
#include "observation.hpp"
#include "workload.hpp"

namespace ridgeline {

// ---------------------------------------------------------------------------------------------
// Measurements (data/measurements/*.json): measured decode speeds with their setting. Every
// error names the file and the row's JSON pointer (/measurements/<i>/...); load_measurements
// also checks that each row's preset names are in the catalogue.
// ---------------------------------------------------------------------------------------------

struct MeasuredRow {
    std::string hardware;  // a preset name or path
    std::string model;
    Workload workload;
    Parallelism parallel{};
    Seconds measured_step{};                    // time per output token per sequence
    // What the figure timed: decode steps, or (includes_prefill, interleaved_prefill) requests of
    // a prompt and an output, whose workload context is then the mean a decode step sees,
    // prompt + output / 2.
    Requests requests{};
    std::optional<double> source_GB_per_s{};    // the source's own bandwidth figure, if it gives one
    // The context the source's engine was built to run the model to, where that is past the
    // config's max_position_embeddings (TensorRT-LLM ran GPT-J's 2,048 positions to 4,096 tokens).
    std::optional<std::int64_t> max_context{};
    // Where a row came from, when the rows of one file do not share it.
    std::string engine;          // "vLLM", "TensorRT-LLM", "llama.cpp", ...
    std::string engine_version;  // as the source gives it
    std::string date;            // of the measurement or its publication, YYYY-MM or YYYY-MM-DD
    std::string source;          // repository@commit path, or page and table
    std::string notes;
    // A row kept as published but not credible as a measurement of its stated setting (faster
    // than that setting's ceiling, or a misreported setting), with the reason. Fits skip it.
    std::optional<std::string> flagged{};
};

struct MeasurementSet {
    std::string source;
    std::string notes;
    std::vector<MeasuredRow> rows;
};

namespace json_detail {
inline Format format_at(const Node& n) {
    const std::string name = n.string("a format name: fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or e.g. int4/g128");
    const auto f = parse_format(name);
    if (!f) n.fail("a format name: fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or e.g. int4/g128");
    return *f;
}
inline Numeric numeric_at(const Node& n) {
    const auto v = numeric_from_name(n.string("a compute format: fp32, bf16, fp16, fp8, int8, int4, fp4"));
    if (!v) n.fail("a compute format: fp32, bf16, fp16, fp8, int8, int4, fp4");
    return *v;
}
}  // namespace json_detail

inline MeasurementSet measurements_from_json(const nlohmann::json& j, const std::string& file = "") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a measurements object");
    // An efficiency preset names its set as a string: say which file kind this is, not its first unknown key.
    if (j.contains("measurements") && j.at("measurements").is_string())
        throw error(file, "/measurements", "a name (this is an efficiency preset, fitted from that set)",
                    "an array of measurements (predict --calibration reads an efficiency preset)");
    root.only_keys({"source", "notes", "measurements"});
    MeasurementSet set;
    set.source = root.need("source", "a non-empty string saying where the measurements came from").string();
    if (root.has("notes")) set.notes = root.at("notes").string();
    const Node list = root.need("measurements", "an array of measurements");
    if (!list.value().is_array() || list.value().empty()) list.fail("a non-empty array of measurements");
    for (std::size_t i = 0; i < list.value().size(); ++i) {
        const Node r = list.at(i);  // errors name the file and the row: /measurements/<i>/...
        r.require_object("a measurement object");
        r.only_keys({"hardware", "model", "weights", "kv", "compute", "embeddings", "experts", "attention", "lm_head", "tensor_parallel",
                     "router_and_norms", "pipeline_parallel", "expert_parallel", "attention_data_parallel", "batch", "context", "includes_prefill", "interleaved_prefill", "prefill_steps", "prompt", "output", "tokens_per_s", "tpot_ms", "source_GB_per_s",
                     "link_GB_per_s", "max_context", "engine", "engine_version", "date", "source", "notes", "flagged"});
        MeasuredRow row;
        row.hardware = r.need("hardware", "a hardware preset name or path").string();
        row.model = r.need("model", "a model preset name or path").string();
        Workload& w = row.workload;
        if (r.has("weights")) w.precision.weights = json_detail::format_at(r.at("weights"));
        if (r.has("kv")) w.precision.kv = json_detail::format_at(r.at("kv"));
        if (r.has("compute")) w.precision.compute = json_detail::numeric_at(r.at("compute"));
        if (r.has("embeddings")) w.precision.embeddings = json_detail::format_at(r.at("embeddings"));
        if (r.has("experts")) w.precision.experts = json_detail::format_at(r.at("experts"));
        if (r.has("attention")) w.precision.attention = json_detail::format_at(r.at("attention"));
        if (r.has("lm_head")) w.precision.lm_head = json_detail::format_at(r.at("lm_head"));
        if (r.has("router_and_norms")) w.precision.router_and_norms = json_detail::format_at(r.at("router_and_norms"));
        if (r.has("tensor_parallel")) row.parallel.tensor = r.at("tensor_parallel").positive_integer();
        if (r.has("pipeline_parallel")) row.parallel.pipeline = r.at("pipeline_parallel").positive_integer();
        if (r.has("batch")) w.batch = r.at("batch").positive_integer();
        const auto tokens = [&](const Node& c, std::int64_t least) {
            if (!c.value().is_number_integer() || c.value().get<std::int64_t>() < least || c.value().get<std::int64_t>() > max_context)
                c.fail(least == 0 ? "an integer from 0 to 2^40 tokens" : "an integer from 1 to 2^40 tokens");
            return c.value().get<std::int64_t>();
        };
        // What the figure timed (observation.hpp): the prompt and output lengths say it where it
        // was more than decode steps.
        const bool whole = r.has("includes_prefill") && r.at("includes_prefill").boolean();
        const bool interleaved = r.has("interleaved_prefill") && r.at("interleaved_prefill").boolean();
        if (whole && interleaved)
            r.at("interleaved_prefill").fail("not both includes_prefill and interleaved_prefill (a figure times whole requests or served steps)");
        if (whole || interleaved) {
            const std::string key = whole ? "includes_prefill" : "interleaved_prefill";
            if (r.has("context")) r.at("context").fail("no context where " + key + " is true (it follows from prompt and output)");
            row.requests.timed = whole ? Timed::whole_requests : Timed::interleaved_prefill;
            row.requests.prompt = tokens(r.need("prompt", "the prompt tokens per request, where " + key + " is true"), 1);
            row.requests.output = tokens(r.need("output", "the output tokens per request, where " + key + " is true"), 1);
            w.context = mean_decode_context(row.requests);
            if (r.has("prefill_steps")) {
                const Node steps = r.at("prefill_steps");
                if (!interleaved) steps.fail("no prefill_steps unless interleaved_prefill is true (whole requests prefill before they decode)");
                const std::string v = steps.string("\"mixed\" or \"apart\"");
                if (v != "mixed" && v != "apart") steps.fail("\"mixed\" (prefill rides the decode steps) or \"apart\" (in passes of its own)");
                row.requests.prefill_steps = v == "apart" ? PrefillSteps::apart : PrefillSteps::mixed;
            }
        } else {
            if (r.has("prefill_steps")) r.at("prefill_steps").fail("no prefill_steps unless interleaved_prefill is true");
            for (const char* key : {"prompt", "output"})
                if (r.has(key))
                    r.at(key).fail("no prompt or output unless includes_prefill or interleaved_prefill is true (give the decode steps' context)");
            if (r.has("context")) w.context = tokens(r.at("context"), 0);
        }
        if (r.has("tokens_per_s") == r.has("tpot_ms"))
            r.fail("exactly one of tokens_per_s (per sequence) and tpot_ms");
        row.measured_step = r.has("tokens_per_s") ? s(1.0 / r.at("tokens_per_s").figure()) : ms(r.at("tpot_ms").figure());
        if (r.has("source_GB_per_s")) row.source_GB_per_s = r.at("source_GB_per_s").figure();
        if (r.has("max_context")) row.max_context = tokens(r.at("max_context"), 1);
        if (r.has("expert_parallel")) row.parallel.expert = r.at("expert_parallel").positive_integer();
        if (r.has("attention_data_parallel")) row.parallel.attention_data = r.at("attention_data_parallel").positive_integer();
        // The link a split ran over where its device's preset has none (PCIe cards: the source says
        // which slots), per device, both directions, as --link-gb-per-s.
        if (r.has("link_GB_per_s")) {
            const Node link = r.at("link_GB_per_s");
            if (row.parallel.devices() < 2) link.fail("no link_GB_per_s for a row on one device");
            row.parallel.link_bandwidth = GB_per_s(link.figure());
        }
        const auto text = [&](const char* key, std::string& out, const char* expected) {
            if (r.has(key)) out = r.at(key).string(expected);
        };
        text("engine", row.engine, "the engine's name, a non-empty string");
        if (r.has("engine") && row.engine.find_first_not_of(" \t") == std::string::npos) r.at("engine").fail("the engine's name, a non-empty string");
        text("engine_version", row.engine_version, "the engine's version, a non-empty string");
        text("date", row.date, "a date, YYYY-MM or YYYY-MM-DD");
        if (!row.date.empty()) {
            const std::string& d = row.date;
            const auto digits = [&](std::size_t from, std::size_t n) {
                for (std::size_t k = from; k < from + n; ++k)
                    if (d[k] < '0' || d[k] > '9') return false;
                return true;
            };
            const bool ok = (d.size() == 7 || d.size() == 10) && digits(0, 4) && d[4] == '-' && digits(5, 2) &&
                            (d.size() == 7 || (d[7] == '-' && digits(8, 2)));
            if (!ok) r.at("date").fail("a date, YYYY-MM or YYYY-MM-DD");
        }
        text("source", row.source, "a non-empty string: repository@commit path, or page and table");
        text("notes", row.notes, "a non-empty string");
        if (r.has("flagged")) row.flagged = r.at("flagged").string("the reason the row is not credible, a non-empty string");
        set.rows.push_back(std::move(row));
    }
    return set;
}

// The observation calibration fits for a row, with its model loaded.
inline Observation observation(const MeasuredRow& r) {
    Model m = load_model(r.model);
    if (r.max_context) m.with_max_context(*r.max_context);
    return Observation{m, r.workload, r.parallel, r.measured_step, r.requests};
}

inline MeasurementSet load_measurements(std::string_view name_or_path) {
    namespace fs = std::filesystem;
    const fs::path file = resolve_preset(PresetKind::measurements, name_or_path);
    MeasurementSet set = measurements_from_json(read_json_file(file), file.string());
    // A preset name that is not in the catalogue is the row's error, not the caller's later.
    std::map<std::string, LoadedModel> models;  // each model with its checkpoint's formats, loaded once
    for (std::size_t i = 0; i < set.rows.size(); ++i) {
        const auto check = [&](PresetKind kind, const std::string& name, const char* key) {
            try {
                (void)resolve_preset(kind, name);
            } catch (const error& e) {
                throw error(json_detail::printable(file.string()), "/measurements/" + std::to_string(i) + "/" + key, e.value(),
                            e.expected());
            }
        };
        check(PresetKind::hardware, set.rows[i].hardware, "hardware");
        check(PresetKind::model, set.rows[i].model, "model");
        // The row's longest context within what its model allows, or a max_context saying how far
        // the source's engine ran it past that; a max_context must reach past both.
        MeasuredRow& r = set.rows[i];
        const bool requests = r.requests.timed != Timed::decode_steps;
        const std::int64_t longest = requests ? r.requests.prompt + r.requests.output : r.workload.context;
        const std::string row = "/measurements/" + std::to_string(i) + "/";
        auto known = models.find(r.model);
        if (known == models.end()) known = models.emplace(r.model, load_model_with_formats(r.model)).first;
        const std::int64_t limit = known->second.model.max_context;
        // The row's weights format is its linear layers'; the embeddings, an untied LM head, the norms and
        // routers it does not name are as the checkpoint stores them, as --weights keeps them.
        Precision& p = r.workload.precision;
        // A format for a part the model does not have would be kept and never read (as the CLI's --experts and --lm-head refuse).
        const Model& model = known->second.model;
        if (p.experts && !has_routed_experts(model))
            throw error(json_detail::printable(file.string()), row + "experts", format_name(*p.experts),
                        "no experts: model '" + json_detail::printable(r.model) + "' has no routed experts");
        if (p.lm_head && model.tied_embeddings)
            throw error(json_detail::printable(file.string()), row + "lm_head", format_name(*p.lm_head),
                        "no lm_head: model '" + json_detail::printable(r.model) + "' ties its LM head to the input table (give embeddings)");
        if (!p.embeddings) p.embeddings = known->second.precision.embedding_format();
        if (!p.lm_head && !known->second.model.tied_embeddings) p.lm_head = known->second.precision.lm_head_format();
        if (!p.router_and_norms) p.router_and_norms = known->second.precision.router_and_norm_format();
        if (r.max_context) {
            if (*r.max_context < longest)
                throw error(json_detail::printable(file.string()), row + "max_context", std::to_string(*r.max_context),
                            "at least the row's " + std::string(requests ? "prompt + output" : "context") + " (" + std::to_string(longest) + ")");
            if (limit > 0 && *r.max_context <= limit)
                throw error(json_detail::printable(file.string()), row + "max_context", std::to_string(*r.max_context),
                            "more than the max_position_embeddings of model '" + json_detail::printable(r.model) + "' (" +
                                std::to_string(limit) + "), or no max_context");
        } else if (limit > 0 && longest > limit) {
            throw error(json_detail::printable(file.string()), row + (requests ? "output" : "context"),
                        (requests ? "prompt + output " : "") + std::to_string(longest),
                        "at most the max_position_embeddings of model '" + json_detail::printable(r.model) + "' (" +
                            std::to_string(limit) + "), or a max_context saying how far the source's engine ran it");
        }
    }
    return set;
}

}  // namespace ridgeline
