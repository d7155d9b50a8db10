// The browser page's engine: ridgeline's core compiled to WebAssembly with Emscripten. Two C
// functions take and return JSON text, so the page and the C++ library cannot disagree: the
// page only displays what these return. Presets are bundled at build time (--embed-file).
#include <cstdint>
#include <exception>
#include <string>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>
#include <ridgeline/roofline_svg.hpp>

using namespace ridgeline;
using nlohmann::json;

namespace {

std::string reply;  // the last answer; the page copies it out before the next call

const char* answer(const json& j) {
    reply = j.dump();
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
        if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos)
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

json evaluate(const json& request) {
    const Hardware hw = load_hardware(request.at("hardware").get<std::string>());
    Model m;
    const std::string config = request.value("config", "");
    if (!config.empty()) {
        try {
            m = model_from_config(parse_json_text(config, "config.json"), "config.json", "pasted config.json");
        } catch (const error& e) {
            throw field_error("config", e.what());
        }
    } else {
        m = load_model(request.at("model").get<std::string>());
    }
    const std::int64_t max_context = integer(request, "max_context", 0, "0 (the model's own) or a token count");
    if (max_context > 0) m.max_context = max_context;

    Workload w;
    w.precision.weights = format(request, "weights");
    w.precision.kv = format(request, "kv");
    const auto compute = numeric_from_name(request.at("compute").get<std::string>());
    if (!compute) throw field_error("compute", "expected a compute format");
    w.precision.compute = *compute;
    w.batch = integer(request, "batch", 1, "an integer >= 1");
    w.context = integer(request, "context", 0, "an integer >= 0 tokens");
    w.parallel.tensor = integer(request, "tp", 1, "an integer >= 1");
    const double efficiency = request.at("efficiency").is_number() ? request.at("efficiency").get<double>() : -1;
    if (!(efficiency > 0 && efficiency <= 1)) throw field_error("efficiency", "got " + request.at("efficiency").dump() + ", expected a fraction in (0, 1]");
    w.efficiency.bandwidth = efficiency;

    const auto field_of = [](const error& e) {
        const std::string& p = e.path();
        for (const char* f : {"batch", "context", "tensor", "efficiency"})
            if (p.find(f) != std::string::npos) return std::string(f == std::string("tensor") ? "tp" : f);
        return std::string("model");
    };
    try {
        const DecodeStep d = decode_step(hw, m, w);
        const RidgeBatch r = ridge_batch(hw, m, w);
        const auto nstar = n_star(hw, m, w);
        const KvCapacity cap = kv_capacity(hw, m, w.precision);
        const auto largest = w.context > 0 ? largest_batch(hw, m, w.precision, w.context) : std::nullopt;
        std::vector<std::int64_t> batches;
        for (std::int64_t b = 1; b <= 1024; b *= 2) batches.push_back(b);
        std::vector<std::int64_t> contexts{w.context};
        if (w.context != 0) contexts.insert(contexts.begin(), 0);
        json out{{"ok", true},
                 {"hardware", std::string(hw.name.view())},
                 {"model", std::string(m.name.view())},
                 {"total_params", derived_parameters(m).total()},
                 {"active_params", active_parameters(m).total()},
                 {"kv_bytes_per_token", kv_bytes_per_token(m, w.precision.kv).in(bytes)},
                 {"weight_bytes", d.weight_bytes.in(bytes)},
                 {"kv_bytes", d.kv_bytes.in(bytes)},
                 {"bytes_per_step", d.total_bytes.in(bytes)},
                 {"step_time_s", d.step_time.in(s)},
                 {"tokens_per_s", d.tokens_per_s.in(per_s)},
                 {"total_tokens_per_s", d.total_tokens_per_s.in(per_s)},
                 {"bound", name_of(d.bound)},
                 {"arithmetic_intensity_flop_per_byte", d.arithmetic_intensity.in(flop_per_byte)},
                 {"ridge_batch", r.is_never() ? json(nullptr) : json(r.value())},
                 {"n_star_tokens", nstar ? json(*nstar) : json(nullptr)},
                 {"weights_fit", cap.weights_fit},
                 {"kv_tokens_that_fit", cap.kv_tokens},
                 {"largest_batch", largest ? json(*largest) : json(nullptr)},
                 {"svg", roofline_svg(hw, m, w, batches, contexts)}};
        return out;
    } catch (const error& e) {
        throw field_error(field_of(e), e.what());
    }
}

}  // namespace

extern "C" {

// {"hardware": [{"name", "device"}...], "models": [names]}
const char* ridgeline_presets() {
    try {
        json out{{"hardware", json::array()}, {"models", list_presets(PresetKind::model)}};
        for (const auto& n : list_presets(PresetKind::hardware))
            out["hardware"].push_back({{"name", n}, {"device", std::string(load_hardware(n).name.view())}});
        return answer(out);
    } catch (const std::exception& e) {
        return answer({{"ok", false}, {"field", "presets"}, {"message", e.what()}});
    }
}

// A request (hardware, model or config, formats, batch, context, tp, efficiency, max_context) in,
// results or {"ok": false, "field", "message"} out.
const char* ridgeline_evaluate(const char* request) {
    try {
        return answer(evaluate(json::parse(request)));
    } catch (const field_error& e) {
        return answer({{"ok", false}, {"field", e.field}, {"message", e.what()}});
    } catch (const std::exception& e) {
        return answer({{"ok", false}, {"field", "model"}, {"message", e.what()}});
    }
}
}
