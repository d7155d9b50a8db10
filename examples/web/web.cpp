// The browser page's engine: ridgeline's core compiled to WebAssembly with Emscripten. Three C
// functions take and return JSON text, so the page and the C++ library cannot disagree: the
// page only displays what these return. Presets are bundled at build time (--embed-file).
// The plan tab reads its inputs with the CLI's own parsers (examples/ridgeline/args.hpp), so a
// value the CLI refuses is refused here with the same words.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <tuple>
#include <utility>
#include <variant>
#include <string>
#include <string_view>

#include <ridgeline/answers_schema.hpp>
#include <ridgeline/decode_schema.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/operators_schema.hpp>
#include <ridgeline/ridgeline.hpp>
#include <ridgeline/plan_json.hpp>
#include <ridgeline/plan_svg.hpp>
#include <ridgeline/roofline_svg.hpp>
#include <ridgeline/schema_json.hpp>
#include <ridgeline/speculative.hpp>

#include "../ridgeline/args.hpp"
#include "../ridgeline/plan_args.hpp"

using namespace ridgeline;
using nlohmann::json;

namespace {

std::string reply;  // the last answer; the page copies it out before the next call

// Never throws: invalid UTF-8 in a name becomes U+FFFD, as in the CLI's JSON.
const char* answer(const json& j) {
    reply = j.dump(-1, ' ', false, json::error_handler_t::replace);
    return reply.c_str();
}

// An error shown next to the input it is about.
struct field_error : std::runtime_error {
    std::string field;
    field_error(std::string f, const std::string& message) : std::runtime_error(message), field(std::move(f)) {}
};

std::int64_t integer(const json& request, const char* key, std::int64_t min, const std::string& what) {
    const json& v = request.at(key);
    std::int64_t n = 0;
    if (v.is_number_integer()) n = v.get<std::int64_t>();
    else if (v.is_string()) {
        const std::string s = v.get<std::string>();
        // Up to 18 digits, within 64 bits; the library then says its own range (batch up to 2^40).
        if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos)
            throw field_error(key, "got \"" + s + "\", expected " + what);
        n = std::stoll(s);
    } else {
        throw field_error(key, "got " + v.dump() + ", expected " + what);
    }
    if (n < min) throw field_error(key, "got " + std::to_string(n) + ", expected " + what);
    return n;
}

Format format(const json& request, const char* key) {
    const std::string name = request.at(key).get<std::string>();
    const auto f = parse_format(name);
    if (!f) throw field_error(key, "got \"" + name + "\", expected a format such as bf16, fp8, int4 or int4/g128");
    return *f;
}

// A parallel degree: 1 when the request leaves it out (a link made before the field existed);
// 0 and anything too large go through to the library, whose message the page shows.
std::int64_t degree(const json& request, const char* key) {
    if (!request.contains(key) || (request.at(key).is_string() && request.at(key).get<std::string>().empty())) return 1;
    return integer(request, key, 0, "an integer >= 1");
}

// An optional field read by the CLI flag's own reader (its range and message), its errors
// beside the field; empty or absent: nothing given.
template <class Read>
auto optional_field(const json& request, const char* key, const char* what, Read read) -> std::optional<decltype(read(what, ""))> {
    if (!request.contains(key) || request.at(key).is_null()) return std::nullopt;
    const json& v = request.at(key);
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    if (text.empty()) return std::nullopt;
    try {
        return read(what, text);
    } catch (const cli::usage_error& e) {
        throw field_error(key, e.what());
    }
}

// Link latency per message in microseconds (--link-latency-us); absent: the hardware preset's.
std::optional<Seconds> link_latency(const json& request) {
    return optional_field(request, "link_latency_us", "link latency", cli::parse_link_latency);
}

// Link bandwidth per device in GB/s (--link-gb-per-s); absent: the hardware preset's (a PCIe
// card has none, so a split there needs it).
std::optional<BytesPerSecond> link_bandwidth(const json& request) {
    return optional_field(request, "link_gb_per_s", "link bandwidth", cli::parse_link_bandwidth);
}

Assumptions assumptions_of(const json& request) {
    const std::string name = request.value("assumptions", std::string("physical"));
    if (name == "physical") return assumptions::physical;
    if (name == "seed_003") return assumptions::seed_003;
    throw field_error("assumptions", "got \"" + name + "\", expected physical or seed_003");
}

// The page field a library error is about, from the error's path.
std::string field_of(const error& e) {
    const std::string& p = e.path();
    static const std::pair<const char*, const char*> fields[] = {
        {"tensor-parallel degree", "tp"},  {"pipeline-parallel degree", "pp"}, {"expert-parallel degree", "ep"},
        {"batch", "batch"},                {"context", "context"},             {"efficiency (bandwidth)", "efficiency"},
        {"link latency", "link_latency_us"}, {"link bandwidth", "link_gb_per_s"},
        {"speculation.draft_tokens", "draft_tokens"}, {"speculation.acceptance", "acceptance"},
        {"speculation.draft_tensor", "draft_tp"}, {"draft model", "draft"}, {"draft head", "draft"},
        {"speculation.tree_width", "tree_width"}, {"speculation.verify_tokens", "verify_tokens"},
        {"speculation.accepted_tokens", "accept_length"},
        {"attention data-parallel degree", "attention_dp"}, {"tensor-parallel degree / attention data-parallel degree", "attention_dp"},
        {"weights format", "weights"}, {"KV format", "kv"}};
    for (const auto& [path, field] : fields)
        if (p == path) return field;
    // A missing link (within the scale-up domain or past it) is the link field's to give.
    if (dynamic_cast<const missing_link*>(&e)) return "link_gb_per_s";
    if (p == "hardware preset") return "hardware";
    if (p.rfind("hardware '", 0) == 0) return p.ends_with("' compute peak") ? "compute" : "hardware";
    return "model";
}

// The step per operator (operators.hpp), one object per operator keyed by its schema
// (operators_schema.hpp); null, with the library's reason in `why`, for a model whose
// parameters are declared rather than derived (operators need the architecture).
json operator_rows(const Deployment& dep, const Model& m, const Workload& w, json& why) {
    std::vector<Operator> ops;
    try {
        ops = operators(dep, m, w);
    } catch (const error& e) {
        why = e.what();
        return nullptr;
    }
    json rows = json::array();
    for (const Operator& o : ops) {
        json row = json::object();
        put_fields(row, operator_fields(), o);
        rows.push_back(std::move(row));
    }
    return rows;
}

json evaluate(const json& request) {
    const Hardware hw = load_hardware(request.at("hardware").get<std::string>());
    // The model and its checkpoint's storage formats, as the CLI reads them.
    LoadedModel loaded;
    const std::string config = request.value("config", "");
    if (!config.empty()) {
        // NVIDIA's FP8 and NVFP4 releases keep their formats in an hf_quant_config.json beside it.
        std::optional<json> hf_quant;
        if (const std::string text = request.value("hf_quant_config", ""); !text.empty()) {
            try {
                hf_quant = parse_json_text(text, "hf_quant_config.json");
            } catch (const error& e) {
                throw field_error("hf_quant_config", e.what());
            }
        }
        try {
            const json file = parse_json_text(config, "config.json");
            loaded = loaded_model(file, "config.json", "pasted config.json", hf_quant ? &*hf_quant : nullptr, "hf_quant_config.json");
        } catch (const error& e) {
            // The one file or the other: the error names which.
            throw field_error(hf_quant && std::string_view(e.what()).starts_with("hf_quant_config.json") ? "hf_quant_config" : "config",
                              e.what());
        }
    } else {
        if (!request.value("hf_quant_config", "").empty())
            throw field_error("hf_quant_config", "got an hf_quant_config.json without a config.json, expected the config.json it "
                                                 "goes beside pasted too (a preset's formats are its own)");
        loaded = load_model_with_formats(request.at("model").get<std::string>());
    }
    Model& m = loaded.model;
    const std::int64_t max_context = integer(request, "max_context", 0, "0 (the model's own) or a token count");
    // It raises the limit, as --max-context and max_context= do: a lower one is refused alike.
    if (const auto expected = max_context > 0 ? lowers_context_limit(m, max_context) : std::nullopt)
        throw field_error("max_context", "got " + std::to_string(max_context) + ", expected " + *expected + ": the field raises it");
    if (max_context > 0) m.max_context = max_context;

    Workload w;
    // An empty weights field keeps the checkpoint's formats (experts and embeddings too), as the
    // CLI does without --weights; a format sets the linear layers and experts, the checkpoint's
    // embeddings and LM head kept, as --weights does.
    std::string formats_source = "the weights field";
    if (request.value("weights", std::string()).empty()) {
        w.precision = loaded.precision;
        formats_source = "the checkpoint: " + loaded.precision_source;
    } else {
        store_weights_as(w.precision, loaded.precision, format(request, "weights"));
        formats_source += ", which sets the linear layers and experts; the embeddings, an untied LM head, the norms and routers stay as the checkpoint stores them" +
                          kept_state_source(m, loaded.precision);
    }
    w.precision.kv = format(request, "kv");
    // An empty compute field is the device's default (bf16, fp16 on a V100), said as the CLI says it.
    const std::string compute_name = request.at("compute").get<std::string>();
    if (compute_name.empty()) {
        w.precision.compute = default_compute(hw);
        formats_source += default_compute_note(hw);
    } else {
        const auto compute = numeric_from_name(compute_name);
        if (!compute)
            throw field_error("compute", "got \"" + compute_name + "\", expected a compute format: fp32, bf16, fp16, fp8, int8, int4 or fp4");
        w.precision.compute = *compute;
    }
    w.batch = integer(request, "batch", 1, "an integer >= 1");
    w.context = integer(request, "context", 0, "an integer >= 0 tokens");
    // The field's text, read by the CLI's --efficiency reader; a number goes to the library's check.
    const json& efficiency = request.at("efficiency");
    if (efficiency.is_string()) {
        try {
            w.efficiency.bandwidth = cli::parse_fraction("efficiency (bandwidth)", efficiency.get<std::string>());
        } catch (const cli::usage_error& e) {
            throw field_error("efficiency", e.what());
        }
    } else if (efficiency.is_number()) {
        w.efficiency.bandwidth = efficiency.get<double>();
    } else {
        throw field_error("efficiency", "efficiency (bandwidth): got " + efficiency.dump() + ", expected a fraction in [1e-6, 1]");
    }
    w.assumptions = assumptions_of(request);

    // The deployment, built as the CLI's resolve() builds it.
    Parallelism par{.tensor = degree(request, "tp"), .pipeline = degree(request, "pp"), .expert = degree(request, "ep")};
    // Read by --attention-dp's reader: ranks, or tp (0) for one a device; empty: 1.
    const std::int64_t attention_dp = optional_field(request, "attention_dp", "attention dp", cli::parse_attention_dp).value_or(1);
    par.attention_data = attention_dp == 0 ? par.tensor : attention_dp;
    par.link_latency = link_latency(request);
    par.link_bandwidth = link_bandwidth(request);
    const Deployment dep{hw, par};

    // Speculative decoding at the same setting (speculative.hpp), as `ridgeline speculative`
    // reads its flags: g drafts (4), each accepted with probability a (0.8), by a draft model or
    // free (n-grams, prompt lookup), the draft split at the target's degree or on one device.
    // Each field read by its CLI flag's reader (--draft-tokens, --acceptance, --draft-tp); empty or
    // absent, the flag's default.
    // A draft of "mtp" is the model's own multi-token-prediction modules, as --draft mtp.
    const std::string draft_name = request.value("draft", std::string());
    const bool mtp = draft_name == cli::mtp_draft;
    const std::optional<double> acceptance = optional_field(request, "acceptance", "acceptance", cli::parse_acceptance);
    const std::optional<double> accept_length = optional_field(request, "accept_length", "accept length", cli::parse_accept_length);
    if (acceptance && accept_length)
        throw field_error("accept_length", "accept length: got \"" + number_text(*accept_length) + "\", expected " +
                                               cli::accept_length_beside_acceptance("accept length", "acceptance"));
    const Speculation spec{optional_field(request, "draft_tokens", "draft tokens", cli::parse_draft_tokens).value_or(4),
                           acceptance.value_or(0.8),
                           optional_field(request, "draft_tp", "draft tp", cli::parse_draft_tp).value_or(0),
                           mtp,
                           optional_field(request, "tree_width", "tree width", cli::parse_tree_width).value_or(1),
                           optional_field(request, "verify_tokens", "verify tokens", cli::parse_verify_tokens).value_or(0),
                           accept_length.value_or(0)};
    // A draft model or an EAGLE-3 head, by preset name (load_draft).
    std::optional<LoadedDraft> draft;
    if (!draft_name.empty() && !mtp) {
        try {
            draft = load_draft(draft_name);
        } catch (const error& e) {
            throw field_error("draft", e.what());
        }
    } else if (spec.draft_tensor != 0 && !mtp) {
        throw field_error("draft_tp", "got " + std::to_string(spec.draft_tensor) + ", expected no draft tp without a draft model (a free draft runs on no device)");
    }

    try {
        validate(dep, m);
        const DecodeStep d = decode_step(dep, m, w);
        const RidgeRow ridge = ridge_row(dep, m, w, w.context, n_star(dep, m, w));
        const CapacityRow capacity = capacity_row(dep, m, w, w.context, w.batch);
        std::vector<std::int64_t> batches;
        for (std::int64_t b = 1; b <= 1024; b *= 2) batches.push_back(b);
        std::vector<std::int64_t> contexts{w.context};
        if (w.context != 0) contexts.insert(contexts.begin(), 0);
        // The link the step's messages cross (as the CLI's assumptions line reads it): the
        // tensor-parallel group's, else the pipeline hops'; none on one device.
        json link = nullptr;
        if (d.links.messages > 0) {
            const Link& l = par.tensor > 1 ? d.links.tensor_link : d.links.pipeline_link;
            link = json{{"one_way_GB_per_s", l.one_way.in(GB_per_s)},
                        {"bandwidth_from", l.bandwidth_from},
                        {"mesh_links", l.mesh_links},
                        {"mesh_peers", l.mesh_peers},
                        {"latency_us", l.latency.in(us)},
                        {"latency_from", l.latency_from},
                        {"scale_out", l.scale_out},
                        {"domains", par.tensor > 1 ? l.domains : std::int64_t{1}},  // the ring's; pipeline hops have no ring steps
                        {"within_latency_us", l.within_latency.in(us)},
                        {"messages", d.links.messages}};
        }
        json out{{"ok", true},
                 {"operator_columns", schema_columns<json>(operator_fields())},
                 {"operators_error", nullptr},
                 {"hardware", std::string(hw.name.view())},
                 {"model", std::string(m.name.view())},
                 {"tp", par.tensor},
                 {"pp", par.pipeline},
                 {"ep", par.expert},
                 {"attention_dp", par.attention_data},
                 {"devices", dep.devices()},
                 {"batch", w.batch},
                 {"context", w.context},
                 {"assumptions", assumptions_name(w.assumptions)},
                 {"weights_format", format_name(w.precision.weights)},
                 {"experts_format", format_name(w.precision.expert_format())},
                 // Every table's format in one name, as the CLI's weights column: "fp8, embeddings bf16, lm_head bf16".
                 {"formats", precision_name(w.precision, m.tied_embeddings)},
                 {"formats_source", formats_source},
                 {"total_params", derived_parameters(m).total()},
                 {"active_params", active_parameters(m).total()},
                 {"kv_bytes_per_token", kv_bytes_per_token(m, w.precision.kv).in(bytes)},
                 {"link", link},
                 {"memory_capacity_bytes", d.memory.capacity.in(bytes)},
                 {"weights_per_device_bytes", d.memory.weights.in(bytes)},
                 {"kv_per_device_bytes", d.memory.kv.in(bytes)},
                 {"activations_per_device_bytes", d.memory.activations.in(bytes)},
                 {"svg", roofline_svg(dep, m, w, batches, contexts, w.batch)}};
        // The step's, the ridge's and capacity's own fields, from the schemas the CLI's columns use
        // (decode_schema.hpp, answers_schema.hpp).
        put_fields(out, ridge_fields(), ridge);
        put_fields(out, capacity_fields(), capacity);
        put_fields(out, decode_fields(), d);
        out["operators"] = operator_rows(dep, m, w, out["operators_error"]);
        out["speculative"] = nullptr;
        out["speculative_error"] = nullptr;
        try {
            if (mtp && m.mtp_layers == 0) throw error("", "draft", "\"mtp\"", cli::without_mtp_modules(m));
            const SpeculativeDecode sd = cli::speculate(dep, m, w, spec, draft);
            json speculative = json::object();
            put_fields(speculative, speculative_fields(), cli::speculative_row(dep, m, w, mtp, draft, spec, sd));
            out["speculative"] = std::move(speculative);
        } catch (const error& e) {
            // The speculation's own problem (a draft with another vocabulary, a split or a pipeline it
            // cannot take, drafts past the positions): said beside its fields, the decode kept. A
            // speculation.* value is its own field's (field_of); anything else the draft's.
            const std::string field = e.path().starts_with("speculation.") ? field_of(e) : draft || mtp ? "draft" : "draft_tokens";
            out["speculative_error"] = json{{"field", field}, {"message", e.what()}};
        }
        return out;
    } catch (const error& e) {
        // The library names its own lever; the page's is the max context field.
        std::string expected = naming_own_max_context_lever(e.expected(), "raise it in the max context field where the model allows more");
        // And the link field for a device whose preset has no link.
        expected = naming_own_lever(std::move(expected), link_bandwidth_lever, "give one in the link bandwidth field, e.g. 64 for PCIe 4.0 x16, 100 for a 400 Gb/s NIC");
        throw field_error(field_of(e), error(e.file(), e.path(), e.value(), expected).what());
    }
}


// ---------------------------------------------------------------------------------------------
// The plan tab: `ridgeline plan`'s flags in, its `--format json` text out.
// ---------------------------------------------------------------------------------------------

// A text field of the request: absent or null reads as empty.
std::string text(const json& request, const char* key) {
    if (!request.contains(key) || request.at(key).is_null()) return "";
    const json& v = request.at(key);
    return v.is_string() ? v.get<std::string>() : v.dump();
}

// An optional flag: empty is "not given", as when the CLI's flag is left out.
std::optional<std::string> given(const json& request, const char* key) {
    std::string v = text(request, key);
    if (v.empty()) return std::nullopt;
    return v;
}



// The page field a plan error is about: the flag a usage error names, or the library's path.
std::string plan_field_of(const std::string& message, const std::string& path) {
    for (const cli::PlanFlag& f : cli::plan_flags()) {
        if (*f.page_key && message.rfind(cli::long_name(f.names) + ":", 0) == 0) return f.page_key;
    }
    if (message.rfind("plan: give exactly one of --users and --rate", 0) == 0) return "users";
    if (path == "hardware preset" || path == "devices") return "hardware";
    if (path == "efficiency preset") return "calibration";
    if (path == "weight formats" || path == "weights format") return "weights";
    if (path == "KV format") return "kv";
    if (path == "serving mode") return "mode";
    if (path.rfind("price of ", 0) == 0) return "price";
    if (path == "users" || path == "traffic") return "users";
    if (path == "requests per second") return "rate";
    if (path == "max devices") return "max_devices";
    if (path == "TPOT target") return "tpot_ms";
    if (path == "TTFT target") return "ttft_ms";
    if (path == "ITL target") return "itl_ms";
    if (path == "prompt" || path == "prompt + output") return "prompt";
    if (path.ends_with("' compute peak")) return "compute";
    if (path.starts_with("hardware '")) return "hardware";  // a figure the device lacks, e.g. its links
    if (path == "chunk") return "chunk";
    return "model";
}

struct PlanAnswer {
    std::string json_text;  // exactly what `ridgeline plan ... --format json` prints, less its newline
    std::string svg;        // the Pareto front, as `plan --svg` writes it
};

// The request's fields are the CLI's flags, as text, under the page keys of cli::plan_flags()
// (examples/ridgeline/plan_args.hpp): hardware (-H; empty: every hardware preset, or the
// calibrations' devices), model, prompt,
// output, cached (--cached-prompt), chunk, users, rate, ... An empty field is a flag left out.
// Each is read by the CLI's own reader, in the CLI's order, so the first error is the CLI's.
PlanAnswer plan_answer(const json& q) {
    cli::PlanOptions o;
    for (const cli::PlanFlag& f : cli::plan_flags()) {
        if (!*f.page_key) continue;
        const std::string flag = cli::long_name(f.names);
        // The model and the devices are always read (an empty -H: every preset); the rest when given.
        const bool always = std::string_view(f.page_key) == "model" || std::string_view(f.page_key) == "hardware";
        if (always) f.read(o, flag, text(q, f.page_key));
        else if (const auto v = given(q, f.page_key)) f.read(o, flag, *v);
    }
    const cli::PlanSetting setting = cli::plan_setting(o);  // as `ridgeline plan` reads its flags
    const PlanRequest& r = setting.request;
    const std::int64_t top = setting.top;
    const PlanResult result = plan(r);
    // cli::dump_json's settings (examples/ridgeline/table.hpp), so the text is the CLI's byte for byte.
    return {plan_json(result, r.model, top).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
            pareto_svg(result, cli::pareto_title(r.model))};
}

}  // namespace

extern "C" {

// {"hardware": [{"name", "device"}...], "models": [names], "drafts": [names], "calibrations": [{"name", "engine", "hardware"}...]}
const char* ridgeline_presets() {
    try {
        json out{{"hardware", json::array()}, {"models", list_presets(PresetKind::model)}, {"drafts", list_presets(PresetKind::draft_head)},
                 {"calibrations", json::array()}};
        for (const auto& n : list_presets(PresetKind::hardware))
            out["hardware"].push_back({{"name", n}, {"device", std::string(load_hardware(n).name.view())}});
        for (const auto& n : list_presets(PresetKind::efficiency)) {
            const EfficiencyPreset p = load_efficiency(n);
            out["calibrations"].push_back({{"name", n}, {"engine", p.engine}, {"hardware", p.hardware}});
        }
        return answer(out);
    } catch (const std::exception& e) {
        return answer({{"ok", false}, {"field", "presets"}, {"message", e.what()}});
    }
}

// A request (hardware, model or config, formats, batch, context, tp, pp, ep, link_latency_us,
// assumptions, efficiency, max_context) in, results or {"ok": false, "field", "message"} out.
// Every result carries the per-device memory and whether it fits, beside the tok/s, and the step
// per operator (operator_columns, operators).
const char* ridgeline_evaluate(const char* request) {
    try {
        return answer(evaluate(json::parse(request)));
    } catch (const field_error& e) {
        return answer({{"ok", false}, {"field", e.field}, {"message", e.what()}});
    } catch (const std::exception& e) {
        return answer({{"ok", false}, {"field", "model"}, {"message", e.what()}});
    }
}

// A plan request (plan_answer's fields, the CLI's flags as text) in; out:
// {"ok": true, "json": the CLI's `plan --format json` text, "svg": the Pareto front} or
// {"ok": false, "field", "message"} with the message the CLI prints after "ridgeline: ".
const char* ridgeline_plan(const char* request) {
    json q;
    try {
        q = json::parse(request);
        PlanAnswer a = plan_answer(q);
        return answer({{"ok", true}, {"json", std::move(a.json_text)}, {"svg", std::move(a.svg)}});
    } catch (const cli::usage_error& e) {
        return answer({{"ok", false}, {"field", plan_field_of(e.what(), "")}, {"message", e.what()}});
    } catch (const error& e) {
        const std::string preset = cli::preset_in_user_terms(e);  // an unknown device, named by its flag as the CLI names it
        // A file typed as a calibration that is none (no such file, a measurement set): its field.
        const std::vector<std::string> typed = cli::comma_pieces(text(q, "calibration"));
        const bool calibration_file = !e.file().empty() && std::find(typed.begin(), typed.end(), e.file()) != typed.end();
        return answer({{"ok", false}, {"field", calibration_file ? "calibration" : plan_field_of(e.what(), e.path())},
                       {"message", preset.empty() ? e.what() : preset}});
    } catch (const std::exception& e) {
        return answer({{"ok", false}, {"field", "model"}, {"message", e.what()}});
    }
}
}
