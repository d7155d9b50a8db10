// ridgeline as a Python module, built from the same headers as the CLI: every number comes from
// the library, and each answer is the row the CLI prints with --format json (examples/ridgeline/
// rows.hpp builds both), as a dict under the same keys, in SI units with the unit in the key.
// Settings are keyword arguments named as the CLI's flags, in SI units (overhead_s, not
// --overhead-us), or the value types Workload, Deployment and Assumptions.
//
//     import ridgeline
//     ridgeline.decode("llama-3.1-8b", "h100-sxm", batch=64, context=4096)["step_time_s"]
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdlib>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <ridgeline/answers_schema.hpp>
#include <ridgeline/decode_sweep.hpp>
#include <ridgeline/generation.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/operators.hpp>
#include <ridgeline/plan_json.hpp>
#include <ridgeline/prefill.hpp>
#include <ridgeline/ridgeline.hpp>
#include <ridgeline/speculative.hpp>

#include "../ridgeline/plan_args.hpp"
#include "../ridgeline/rows.hpp"

namespace py = pybind11;
using namespace ridgeline;
using cli::seconds;

namespace {

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

// A hardware preset or file, under the name it was asked for (rows echo it, as the CLI's do).
struct PyHardware {
    std::string name;
    Hardware hw{};
};

// A model with the storage formats its checkpoint ships in (used unless weights= is given).
using PyModel = LoadedModel;

struct PyAssumptions {
    Assumptions a{};
};

// A workload: batch, context, formats, efficiency and assumptions. A weights format sets the
// linear layers and experts; the embeddings, LM head, norms and routers stay the checkpoint's unless given.
struct WorkloadSpec {
    Workload w{};
    bool weights_given = false, embeddings_given = false, experts_given = false, lm_head_given = false, router_and_norms_given = false;
    bool attention_given = false;
    bool compute_given = false;  // else the device's default_compute, as the CLI's --compute
};
struct PyWorkload {
    WorkloadSpec spec;
};

// A device and how the model is split over several.
struct PyDeployment {
    PyHardware device;
    Parallelism par{};
};

// Text for the user, from bytes that may not be UTF-8 (a file name): U+FFFD where they are not,
// as the CLI's JSON writes them.
py::str text_of(const std::string& s) {
    PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), "replace");
    if (!o) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

// A str argument as UTF-8; a lone surrogate (which no valid name holds) is kept as its escape,
// "\udcff", so the error that refuses the value can show it.
std::string utf8_of(const py::handle& v) { return v.attr("encode")("utf-8", "backslashreplace").cast<py::bytes>().cast<std::string>(); }

// A preset name or a path, as a str or an os.PathLike (pathlib.Path), in the bytes the file
// system names it by (os.fsencode: a file name that is not UTF-8 comes back as it was listed).
// Nothing when `v` is neither.
std::optional<std::string> path_arg(const py::handle& v, const char* what) {
    const py::module_ os = py::module_::import("os");
    if (!py::isinstance<py::str>(v) && !py::isinstance(v, os.attr("PathLike"))) return std::nullopt;
    try {
        return os.attr("fsencode")(v).cast<py::bytes>().cast<std::string>();
    } catch (const py::error_already_set& e) {
        if (!e.matches(PyExc_UnicodeError)) throw;
        throw ridgeline::error("", what, py::str(py::repr(v)).cast<std::string>(), "a name or path the file system's encoding can write");
    }
}

PyHardware load_hardware_py(const py::object& name) {
    const auto path = path_arg(name, "name_or_path");
    if (!path) throw py::type_error("load_hardware(): name_or_path must be a str or a path (os.PathLike)");
    return PyHardware{*path, load_hardware(*path)};
}
PyModel load_model_py(const py::object& name) {
    const auto path = path_arg(name, "name_or_path");
    if (!path) throw py::type_error("load_model(): name_or_path must be a str or a path (os.PathLike)");
    return load_model_with_formats(*path);
}

PyModel model_of(const py::handle& m) {
    if (py::isinstance<PyModel>(m)) return m.cast<PyModel>();
    if (const auto path = path_arg(m, "model")) return load_model_with_formats(*path);
    throw py::type_error("model: expected a ridgeline.Model or a preset name or path (str or os.PathLike)");
}

// A finite number for the output: a NaN or infinity is a bug upstream, never an answer.
double finite(double v) {
    if (!std::isfinite(v)) throw std::logic_error("ridgeline: a non-finite number reached the output");
    return v;
}

// nlohmann's JSON as Python objects: dicts keep their order, integers stay int, and text that
// is not UTF-8 gets U+FFFD, as the CLI's JSON does.
py::object to_python(const nlohmann::ordered_json& j) {
    switch (j.type()) {
        case nlohmann::ordered_json::value_t::null: return py::none();
        case nlohmann::ordered_json::value_t::boolean: return py::bool_(j.get<bool>());
        case nlohmann::ordered_json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
        case nlohmann::ordered_json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
        case nlohmann::ordered_json::value_t::number_float: return py::float_(finite(j.get<double>()));
        case nlohmann::ordered_json::value_t::string: {
            return text_of(j.get_ref<const std::string&>());
        }
        case nlohmann::ordered_json::value_t::array: {
            py::list l;
            for (const auto& e : j) l.append(to_python(e));
            return l;
        }
        case nlohmann::ordered_json::value_t::object: {
            py::dict d;
            for (const auto& [key, value] : j.items()) d[to_python(key)] = to_python(value);
            return d;
        }
        default: break;
    }
    throw std::logic_error("ridgeline: a JSON value of an unexpected type");
}

py::object row_py(const std::vector<cli::Column>& columns, const std::vector<cli::Cell>& cells) {
    return to_python(cli::row_json(columns, cells));
}

// ---------------------------------------------------------------------------------------------
// Settings: the CLI's flags as keyword arguments
// ---------------------------------------------------------------------------------------------

// Keyword arguments read one by one; whatever is left over is refused by name.
class Kwargs {
public:
    Kwargs(const char* function, const py::kwargs& kw) : function_(function), kw_(kw) {
        for (const auto& item : kw) left_.push_back(item.first.cast<std::string>());
    }
    [[nodiscard]] const char* function() const { return function_; }
    [[nodiscard]] bool has(const char* key) const { return kw_.contains(key) && !kw_[key].is_none(); }
    [[nodiscard]] py::object take(const char* key) {
        std::erase(left_, std::string(key));
        if (!kw_.contains(key)) return py::none();
        return kw_[key];
    }
    std::int64_t integer(const char* key, std::int64_t fallback) { return optional_integer(key).value_or(fallback); }
    std::optional<std::int64_t> optional_integer(const char* key) {
        const py::object v = take(key);
        if (v.is_none()) return std::nullopt;
        return as_integer(function_, key, v);
    }
    double number(const char* key, double fallback) { return optional_number(key).value_or(fallback); }
    std::optional<double> optional_number(const char* key) {
        const py::object v = take(key);
        if (v.is_none()) return std::nullopt;
        return as_number(function_, key, v);
    }
    // A time or size in the keyword's own SI unit, 0 or within [low, high] as the CLI's flag takes it
    // in its unit, refused by the keyword's name: the library would say it in its own units.
    std::optional<double> optional_si(const char* key, double low, double high, const char* expected) {
        const std::optional<double> v = optional_number(key);
        if (v && !(*v == 0 || (*v >= low && *v <= high))) throw ridgeline::error("", key, ridgeline::number_text(*v), expected);
        return v;
    }
    std::optional<double> optional_overhead_s() {  // --overhead-us
        return optional_si("overhead_s", cli::least_time_us * 1e-6, cli::most_overhead_us * 1e-6,
                           "a time in seconds: 0, or from 1e-12 to 1000");
    }
    std::optional<double> optional_link_latency_s() {  // --link-latency-us
        return optional_si("link_latency_s", cli::least_time_us * 1e-6, cli::most_link_latency_us * 1e-6,
                           "a time in seconds: 0, or from 1e-12 to 1");
    }
    std::optional<ridgeline::BytesPerSecond> optional_link_bandwidth() {  // --link-gb-per-s
        const char* key = "link_bandwidth_bytes_per_s";
        const std::optional<double> v = optional_number(key);
        if (!v) return std::nullopt;
        if (!(*v >= cli::least_link_gb_per_s * 1e9 && *v <= cli::most_link_gb_per_s * 1e9))
            throw ridgeline::error("", key, ridgeline::number_text(*v), "a bandwidth in bytes per second from 1e6 to 1e17");
        return ridgeline::GB_per_s(*v / 1e9);
    }
    std::optional<double> optional_reserve_bytes() {  // --reserve-gib
        return optional_si("runtime_reserve_bytes", ridgeline::GiB(cli::least_reserve_gib).in(ridgeline::bytes),
                           ridgeline::GiB(cli::most_reserve_gib).in(ridgeline::bytes),
                           "a size in bytes: 0, or from 1073.741824 (1e-6 GiB) to 966367641600000 (900,000 GiB)");
    }
    std::optional<std::string> optional_text(const char* key) {
        const py::object v = take(key);
        if (v.is_none()) return std::nullopt;
        if (!py::isinstance<py::str>(v)) throw py::type_error(std::string(function_) + "(): " + key + " must be a str" + got_text(v));
        return utf8_of(v);
    }
    std::string text(const char* key, const char* fallback) { return optional_text(key).value_or(fallback); }
    // A preset name or a file: a str or an os.PathLike (path_arg).
    std::optional<std::string> optional_path(const char* key) {
        const py::object v = take(key);
        if (v.is_none()) return std::nullopt;
        if (const auto path = path_arg(v, key)) return path;
        throw py::type_error(std::string(function_) + "(): " + key + " must be a str or os.PathLike" + got_text(v));
    }
    std::optional<bool> optional_flag(const char* key) {
        const py::object v = take(key);
        if (v.is_none()) return std::nullopt;
        if (!py::isinstance<py::bool_>(v)) throw py::type_error(std::string(function_) + "(): " + key + " must be a bool" + got_text(v));
        return v.cast<bool>();
    }
    // Call last: an unknown keyword is a TypeError, as for any Python function.
    void done() const {
        if (!left_.empty())
            throw py::type_error(std::string(function_) + "() got an unexpected keyword argument '" + left_.front() + "'");
    }

    // An integer too long to echo whole: its first digits and its length.
    static std::string digits_text(const py::handle& v) {
        const std::string t = py::str(v).cast<std::string>();
        return t.size() <= 24 ? t : t.substr(0, 12) + "... (" + std::to_string(t.size()) + " characters)";
    }
    // What a wrong-typed argument was, for its TypeError: its repr (cut short) and its type.
    static std::string got_text(const py::handle& v) {
        std::string r = py::str(py::repr(v)).cast<std::string>();
        if (r.size() > 40) r = r.substr(0, 37) + "...";
        return ", got " + r + " (" + py::str(py::type::handle_of(v).attr("__name__")).cast<std::string>() + ")";
    }
    static std::int64_t as_integer(const char* function, const char* key, const py::handle& v) {
        if (py::isinstance<py::bool_>(v) || !py::hasattr(v, "__index__"))
            throw py::type_error(std::string(function) + "(): " + key + " must be an integer" + got_text(v));
        const py::int_ i(py::reinterpret_borrow<py::object>(v));
        try {
            return i.cast<std::int64_t>();
        } catch (const py::cast_error&) {  // past 64 bits: every setting's bound is far below
            throw ridgeline::error("", key, digits_text(i), "an integer within 64 bits (from -2^63 to 2^63 - 1)");
        }
    }
    static double as_number(const char* function, const char* key, const py::handle& v) {
        if (py::isinstance<py::bool_>(v) || !(py::isinstance<py::float_>(v) || py::hasattr(v, "__index__") || py::hasattr(v, "__float__")))
            throw py::type_error(std::string(function) + "(): " + key + " must be a number" + got_text(v));
        try {
            return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
        } catch (const py::error_already_set& e) {  // an integer past a double's range
            if (!e.matches(PyExc_OverflowError)) throw;
            throw ridgeline::error("", key, digits_text(v), "a number within a double's range (about 1.8e308)");
        }
    }

private:
    const char* function_;
    py::kwargs kw_;
    std::vector<std::string> left_;
};

std::int64_t integer_arg(const char* function, const char* key, const py::object& v, std::int64_t fallback) {
    return v.is_none() ? fallback : Kwargs::as_integer(function, key, v);
}

Format format_arg(const char* what, const std::string& s) {
    const auto f = parse_format(s);
    if (!f) {
        const std::string problem = format_name_problem(s);
        throw ridgeline::error("", what, s,
                               "a format: fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or a grouped one such as int4/g128 (its scales fewer bits than its values)" +
                                   (problem.empty() ? "" : "; here " + problem));
    }
    return *f;
}
Numeric numeric_arg(const char* what, const std::string& s) {
    const auto n = numeric_from_name(s);
    if (!n) throw ridgeline::error("", what, s, "a compute format: fp32, bf16, fp16, fp8, int8, int4, fp4");
    return *n;
}

// The keywords a workload takes, besides batch and context.
const std::vector<const char*> workload_keys{"weights",    "kv",          "compute",    "embeddings",      "experts",      "attention", "lm_head",
                                             "router_and_norms", "efficiency", "overhead_s",  "assumptions", "accounting",     "attention_flops",
                                             "memory_fraction", "runtime_reserve_bytes"};
const std::vector<const char*> parallel_keys{"tp", "pp", "ep", "dp", "attention_dp", "link_latency_s", "link_bandwidth_bytes_per_s"};

// assumptions ('physical', 'seed_003' or an Assumptions), then the single terms that override it.
Assumptions read_assumptions(Kwargs& k) {
    Assumptions a = assumptions::physical;
    if (const py::object v = k.take("assumptions"); !v.is_none()) {
        if (py::isinstance<PyAssumptions>(v)) {
            a = v.cast<PyAssumptions>().a;
        } else if (py::isinstance<py::str>(v)) {
            const auto name = v.cast<std::string>();
            if (name != "physical" && name != "seed_003") throw ridgeline::error("", "assumptions", name, "physical or seed_003");
            a = name == "seed_003" ? assumptions::seed_003 : assumptions::physical;
        } else {
            throw py::type_error(std::string(k.function()) + "(): assumptions must be 'physical', 'seed_003' or a ridgeline.Assumptions");
        }
    }
    if (const auto acc = k.optional_text("accounting")) {
        if (*acc != "read" && *acc != "every") throw ridgeline::error("", "accounting", *acc, "read or every");
        a.accounting = *acc == "read" ? WeightAccounting::bytes_read : WeightAccounting::every_parameter;
    }
    if (const auto f = k.optional_flag("attention_flops")) a.attention_flops = *f;
    if (const auto f = k.optional_number("memory_fraction")) a.memory_fraction = *f;
    if (const auto r = k.optional_reserve_bytes()) a.runtime_reserve = bytes(*r);
    validate(a);
    return a;
}

// The workload keywords (weights, kv, compute, ...); `weights` is read by the caller when it may
// be a list.
WorkloadSpec read_workload(Kwargs& k, bool read_weights = true) {
    WorkloadSpec spec;
    Workload& w = spec.w;
    if (read_weights)
        if (const auto weights = k.optional_text("weights"); weights && *weights != "checkpoint") {  // "checkpoint": the default
            w.precision.weights = format_arg("weights", *weights);
            spec.weights_given = true;
        }
    w.precision.kv = format_arg("kv", k.text("kv", "bf16"));
    if (const auto c = k.optional_text("compute")) {
        w.precision.compute = numeric_arg("compute", *c);
        spec.compute_given = true;
    }
    if (const auto e = k.optional_text("embeddings")) {
        w.precision.embeddings = format_arg("embeddings", *e);
        spec.embeddings_given = true;
    }
    if (const auto e = k.optional_text("experts")) {
        w.precision.experts = format_arg("experts", *e);
        spec.experts_given = true;
    }
    if (const auto e = k.optional_text("attention")) {
        w.precision.attention = format_arg("attention", *e);
        spec.attention_given = true;
    }
    if (const auto e = k.optional_text("lm_head")) {
        w.precision.lm_head = format_arg("lm_head", *e);
        spec.lm_head_given = true;
    }
    if (const auto e = k.optional_text("router_and_norms")) {
        w.precision.router_and_norms = format_arg("router_and_norms", *e);
        spec.router_and_norms_given = true;
    }
    w.efficiency.bandwidth = k.number("efficiency", 1.0);
    w.efficiency.overhead = seconds(k.optional_overhead_s().value_or(0.0));
    w.assumptions = read_assumptions(k);
    validate(w);
    return spec;
}

// A workload= object, or the workload keywords; not both.
WorkloadSpec workload_of(Kwargs& k, bool read_weights = true) {
    const py::object obj = k.take("workload");
    if (obj.is_none()) return read_workload(k, read_weights);
    if (!py::isinstance<PyWorkload>(obj)) throw py::type_error(std::string(k.function()) + "(): workload must be a ridgeline.Workload");
    for (const char* key : workload_keys)
        if (k.has(key))
            throw py::type_error(std::string(k.function()) + "(): give " + key + " in the Workload or as a keyword, not both");
    return obj.cast<PyWorkload>().spec;
}

// attention_dp: an integer, or 'tp' (one rank a tensor-parallel device), read as 0, as the CLI's --attention-dp.
std::int64_t read_attention_dp(Kwargs& k) {
    const py::object v = k.take("attention_dp");
    if (v.is_none()) return 1;
    if (py::isinstance<py::str>(v)) {
        if (utf8_of(v) == "tp") return 0;
        // The right type, a wrong value: ridgeline.Error, as every other refused value.
        throw error("", "attention_dp", utf8_of(v), "an integer from 1 to 1024, or 'tp' (one rank a tensor-parallel device)");
    }
    const std::int64_t ranks = Kwargs::as_integer(k.function(), "attention_dp", v);
    // 0 stands for 'tp' here: refused as the CLI's --attention-dp refuses it.
    if (ranks < 1 || ranks > cli::most_degree)
        throw error("", "attention_dp", std::to_string(ranks), "an integer from 1 to 1024, or 'tp' (one rank a tensor-parallel device)");
    return ranks;
}

// tp, pp or ep: bounded as the CLI's --tp, --pp and --ep (the library's own bound is wider).
std::int64_t degree_in_range(const char* key, std::int64_t v) {
    if (v < 1 || v > cli::most_degree) throw error("", key, std::to_string(v), "an integer from 1 to 1024");
    return v;
}

Parallelism read_parallel(Kwargs& k) {
    Parallelism par{.tensor = degree_in_range("tp", k.integer("tp", 1)),
                    .pipeline = degree_in_range("pp", k.integer("pp", 1)),
                    .expert = degree_in_range("ep", k.integer("ep", 1)),
                    .data = k.integer("dp", 1)};
    const std::int64_t attention_dp = read_attention_dp(k);
    par.attention_data = attention_dp == 0 ? par.tensor : attention_dp;
    if (const auto l = k.optional_link_latency_s()) par.link_latency = seconds(*l);
    par.link_bandwidth = k.optional_link_bandwidth();
    validate(par);
    return par;
}

// A device to resolve: the name rows echo, the preset or file (loaded later), and the split.
struct DeviceArg {
    std::string name;
    std::optional<Hardware> hw;  // given as a Hardware or Deployment; else loaded by name
    std::optional<Parallelism> par;  // given as a Deployment
};
DeviceArg device_arg(const py::handle& h, const char* function) {
    if (py::isinstance<PyDeployment>(h)) {
        const auto& d = h.cast<const PyDeployment&>();
        return DeviceArg{d.device.name, d.device.hw, d.par};
    }
    if (py::isinstance<PyHardware>(h)) {
        const auto& x = h.cast<const PyHardware&>();
        return DeviceArg{x.name, x.hw, std::nullopt};
    }
    if (const auto path = path_arg(h, "hardware")) return DeviceArg{*path, std::nullopt, std::nullopt};
    throw py::type_error(std::string(function) + "(): hardware must be a ridgeline.Hardware, a ridgeline.Deployment or a preset name or path (str or os.PathLike)");
}

void refuse_parallel_keys(Kwargs& k) {
    for (const char* key : parallel_keys)
        if (k.has(key))
            throw py::type_error(std::string(k.function()) + "(): give " + key + " in the Deployment or as a keyword, not both");
    for (const char* key : parallel_keys) (void)k.take(key);
}

std::optional<std::int64_t> read_max_context(Kwargs& k) {
    const auto max_ctx = k.optional_integer("max_context");
    if (max_ctx && (*max_ctx < 1 || *max_ctx > (std::int64_t{1} << 40)))
        throw ridgeline::error("", "max_context", std::to_string(*max_ctx), "an integer from 1 to 2^40");
    return max_ctx;
}

// max_context= raises the model's limit, as the CLI's --max-context does: a lower one would only
// make the model refuse contexts it takes, so it is refused in the same words.
void raise_max_context(Model& m, const std::optional<std::int64_t>& max_ctx) {
    if (!max_ctx) return;
    if (const auto expected = lowers_context_limit(m, *max_ctx))
        throw ridgeline::error("", "max_context", std::to_string(*max_ctx), *expected + ": max_context= raises it");
    m.max_context = *max_ctx;
}

// One setting resolved as the CLI's resolve() does it: the formats from the checkpoint unless
// weights are given (then the linear layers' and experts', the checkpoint's embeddings and LM
// head kept, unless experts, embeddings or lm_head are given too).
// The workload with the model's storage formats where the spec leaves them to the checkpoint,
// and where the formats came from, as rows record it.
std::pair<Workload, std::string> with_formats(const PyModel& pm, const WorkloadSpec& spec, const Hardware& hw) {
    Workload w = spec.w;
    Precision& p = w.precision;
    // No compute format asked for: the device's (bf16, but fp16 on a V100), said as the CLI says it.
    const std::string compute_note = spec.compute_given ? "" : default_compute_note(hw);
    if (!spec.compute_given) p.compute = default_compute(hw);
    if (spec.experts_given && !has_routed_experts(pm.model))
        throw ridgeline::error("", "experts", format_name(*p.experts),
                               "no experts format: model '" + std::string(pm.model.name.view()) + "' has no routed experts");
    if (spec.lm_head_given && pm.model.tied_embeddings)
        throw ridgeline::error("", "lm_head", format_name(p.lm_head_format()),
                               "no lm_head format: model '" + std::string(pm.model.name.view()) +
                                   "' ties its LM head to the input table (use embeddings=)");
    // Overrides of some formats, in the CLI's words (rows are the same in both), with or without weights=.
    const auto overrides = [&] {
        const auto given = [](bool is, std::optional<Format> f) { return is ? f : std::nullopt; };
        return cli::format_overrides(given(spec.embeddings_given, p.embeddings), given(spec.experts_given, p.experts),
                                     given(spec.lm_head_given, p.lm_head), given(spec.router_and_norms_given, p.router_and_norms),
                                     given(spec.attention_given, p.attention));
    };
    if (spec.weights_given) {  // as the CLI resolves and records it: rows are the same in both
        const Precision asked = p;
        store_weights_as(p, pm.precision, asked.weights);
        // experts=, embeddings= and lm_head= given beside weights= set those still.
        if (spec.experts_given) p.experts = asked.experts;
        if (spec.attention_given) p.attention = asked.attention;
        if (spec.embeddings_given) p.embeddings = asked.embeddings;
        if (spec.lm_head_given) p.lm_head = asked.lm_head;
        if (spec.router_and_norms_given) p.router_and_norms = asked.router_and_norms;
        return {w, "--weights" + kept_state_source(pm.model, pm.precision) + overrides() + compute_note};
    }
    // The recurrent state's formats are the checkpoint's, whatever the weights'.
    p.state = pm.precision.state;
    p.weights = pm.precision.weights;
    if (!spec.attention_given) p.attention = pm.precision.attention;
    if (!spec.experts_given) p.experts = pm.precision.experts;
    if (!spec.embeddings_given) p.embeddings = pm.precision.embeddings;
    if (!spec.lm_head_given) p.lm_head = pm.precision.lm_head;
    if (!spec.router_and_norms_given) p.router_and_norms = pm.precision.router_and_norms;
    return {w, "the checkpoint: " + pm.precision_source + overrides() + compute_note};
}

cli::Resolved make_setting(const PyModel& pm, const std::string& hardware_name, const Hardware& hw, const Parallelism& par,
                           const WorkloadSpec& spec, const std::optional<std::int64_t>& max_ctx) {
    cli::Resolved s;
    s.hardware = hardware_name;
    s.hw = hw;
    s.m = pm.model;
    s.model_notes = pm.notes;
    std::tie(s.base, s.formats_source) = with_formats(pm, spec, hw);
    s.weights_flag = spec.weights_given;
    raise_max_context(s.m, max_ctx);
    s.dep = Deployment{s.hw, par};
    if (s.m.group_count > 0) validate(s.dep, s.m);
    return s;
}

// The setting of one answer: its keywords (or workload= and a Deployment) read and checked
// before any file is read, as the CLI does; the caller has taken its own keywords already.
struct Call {
    cli::Resolved s;
    std::int64_t batch = 1, context = 0;  // the workload's, for answers not given them
};
Call setting(const py::handle& model, const py::handle& hardware, Kwargs& k) {
    const WorkloadSpec spec = workload_of(k);
    DeviceArg d = device_arg(hardware, k.function());
    Parallelism par;
    if (d.par) {
        refuse_parallel_keys(k);
        par = *d.par;
    } else {
        par = read_parallel(k);
    }
    const auto max_ctx = read_max_context(k);
    k.done();
    const Hardware hw = d.hw ? *d.hw : load_hardware(d.name);
    return Call{make_setting(model_of(model), d.name, hw, par, spec, max_ctx), spec.w.batch, spec.w.context};
}

// The batch and context of a point: the argument, else the workload's.
Workload at(const Call& c, const char* function, const py::object& batch, const py::object& context) {
    // generate and prefill start from their prompt: a Workload's context would be dropped unsaid.
    if (context.is_none() && c.context != 0 && (std::string_view(function) == "generate" || std::string_view(function) == "prefill"))
        throw ridgeline::error("", "workload.context", std::to_string(c.context),
                               std::string("0: ") + function + " starts from its prompt (give prompt=, and cached= for a prefix)");
    Workload w = c.s.base;
    w.batch = integer_arg(function, "batch", batch, c.batch);
    w.context = integer_arg(function, "context", context, c.context);
    return w;
}

// ---------------------------------------------------------------------------------------------
// Answers: the CLI's rows
// ---------------------------------------------------------------------------------------------

py::object decode_py(const py::object& model, const py::object& hardware, const py::object& batch, const py::object& context,
                     const py::kwargs& kw) {
    Kwargs k("decode", kw);
    const Call c = setting(model, hardware, k);
    const Workload w = at(c, "decode", batch, context);
    static const auto columns = cli::decode_columns();
    return row_py(columns, cli::decode_cells(c.s, decode_step(c.s.dep, c.s.m, w)));
}

py::object ridge_py(const py::object& model, const py::object& hardware, const py::object& context, const py::kwargs& kw) {
    Kwargs k("ridge", kw);
    const Call c = setting(model, hardware, k);
    const Workload w = at(c, "ridge", py::none(), context);
    static const auto columns = cli::ridge_columns();
    return row_py(columns, cli::ridge_cells(c.s, w.context, n_star(c.s.dep, c.s.m, c.s.base)));
}

py::object n_star_py(const py::object& model, const py::object& hardware, const py::kwargs& kw) {
    Kwargs k("n_star", kw);
    const Call c = setting(model, hardware, k);
    const auto n = n_star(c.s.dep, c.s.m, c.s.base);
    return n ? py::object(py::float_(finite(*n))) : py::object(py::none());
}

py::object capacity_py(const py::object& model, const py::object& hardware, const py::object& batch, const py::object& context,
                       const py::kwargs& kw) {
    Kwargs k("capacity", kw);
    const Call c = setting(model, hardware, k);
    const Workload w = at(c, "capacity", batch, context);
    static const auto columns = cli::capacity_columns();
    return row_py(columns, cli::capacity_cells(c.s, w.context, w.batch));
}

py::object generate_py(const py::object& model, const py::object& hardware, const py::object& batch, const py::object& prompt_arg,
                       const py::object& new_tokens_arg, const py::object& chunk_arg, const py::kwargs& kw) {
    Kwargs k("generate", kw);
    // Read as keywords are (a bool is no count; past 64 bits names the argument).
    const std::int64_t prompt = integer_arg("generate", "prompt", prompt_arg, 0);
    const std::int64_t new_tokens = integer_arg("generate", "new_tokens", new_tokens_arg, 128);
    const std::int64_t chunk = integer_arg("generate", "chunk", chunk_arg, 0);
    if (chunk < 0 || chunk > 100'000'000) throw ridgeline::error("", "chunk", std::to_string(chunk), "an integer from 0 to 100000000");
    // Prefill chunks are computed one by one: the CLI's bound on them, for one batch.
    if (prompt > 0 && chunk > 0 && prompt / chunk + (prompt % chunk != 0 ? 1 : 0) > 10'000'000)  // no overflow near 2^63
        throw ridgeline::error("", "chunk", std::to_string(chunk), "a chunk giving at most 10,000,000 prefill steps");
    const Call c = setting(model, hardware, k);
    const Workload w = at(c, "generate", batch, py::none());
    static const auto columns = cli::generate_columns();
    return row_py(columns, cli::generate_cells(c.s, w.batch, generate(c.s.dep, c.s.m, w, prompt, new_tokens, chunk)));
}

py::object prefill_py(const py::object& model, const py::object& hardware, const py::object& prompt_arg, const py::object& batch,
                      const py::object& chunk_arg, const py::object& cached_arg, const py::kwargs& kw) {
    Kwargs k("prefill", kw);
    if (prompt_arg.is_none()) throw py::type_error("prefill(): prompt must be an integer");
    const std::int64_t prompt = integer_arg("prefill", "prompt", prompt_arg, 0);
    const std::int64_t chunk = integer_arg("prefill", "chunk", chunk_arg, 0);
    const std::int64_t cached = integer_arg("prefill", "cached", cached_arg, 0);
    const Call c = setting(model, hardware, k);
    const Workload w = at(c, "prefill", batch, py::none());
    static const auto columns = cli::prefill_columns();
    try {
        return row_py(columns, cli::prefill_cells(c.s, PrefillRow{w.batch, cached, prefill(c.s.dep, c.s.m, w, prompt, chunk, cached)}));
    } catch (const ridgeline::error& e) {
        if (!e.file().empty() || e.path() != "cached prompt") throw;
        throw ridgeline::error("", "cached", e.value(), e.expected());  // prefill's keyword (plan's is cached_prompt)
    }
}

// A preset the catalogue could not find, named by the keyword that gave it where its kind would
// not say which ("draft: got "llama9", expected a model preset (closest first: ...) or a JSON
// file", not "model preset: ..."), as the CLI names --draft, --calibration and --measurements.
template <class Load>
auto preset_named_by(const char* keyword, Load&& load) {
    try {
        return load();
    } catch (const ridgeline::error& e) {
        const bool preset = e.path() == "model preset" || e.path() == "model or draft-head preset" || e.path() == "efficiency preset" ||
                            e.path() == "measurement set";
        if (!e.file().empty() || !preset) throw;
        const std::optional<std::string> listed = cli::presets_listed(e.path(), e.expected());
        throw ridgeline::error("", keyword, e.value(), listed ? *listed + " or a JSON file" : e.expected());
    }
}

py::object speculative_py(const py::object& model, const py::object& hardware, const py::object& batch, const py::object& context,
                          const py::object& draft_tokens, const py::object& acceptance, const py::object& draft, const py::kwargs& kw) {
    Kwargs k("speculative", kw);
    const std::int64_t draft_tp = k.integer("draft_tp", 0);  // 0: the target's degree
    if (draft_tp < 0 || draft_tp > cli::most_degree) throw error("", "draft_tp", std::to_string(draft_tp), "an integer from 0 to 1024");
    // draft="mtp": the model's own multi-token-prediction modules, as the CLI's --draft mtp.
    const bool mtp = py::isinstance<py::str>(draft) && draft.cast<std::string>() == cli::mtp_draft;
    // A tree (tree_width, verify_tokens) and the mean accepted tokens (accept_length), keywords as
    // the CLI's --tree-width, --verify-tokens and --accept-length.
    // Each refused where the CLI's flag is, in its words.
    const std::int64_t tree_width = k.integer("tree_width", 1), verify_tokens = k.integer("verify_tokens", 0);
    if (verify_tokens < 0 || verify_tokens > most_verify_tokens)
        throw ridgeline::error("", "verify_tokens", std::to_string(verify_tokens), "an integer from 0 to " + std::to_string(most_verify_tokens));
    const std::optional<double> accept_length = k.optional_number("accept_length");
    if (accept_length && !(*accept_length >= 1 && *accept_length <= static_cast<double>(most_verify_tokens)))
        throw ridgeline::error("", "accept_length", number_text(*accept_length), cli::accept_length_range);
    if (accept_length && !acceptance.is_none())
        throw ridgeline::error("", "accept_length", number_text(*accept_length), cli::accept_length_beside_acceptance("accept_length", "acceptance"));
    const Speculation spec{integer_arg("speculative", "draft_tokens", draft_tokens, 4),
                           acceptance.is_none() ? 0.8 : Kwargs::as_number("speculative", "acceptance", acceptance),
                           draft_tp,
                           mtp,
                           tree_width,
                           verify_tokens,
                           accept_length.value_or(0)};
    validate(spec);
    const Call c = setting(model, hardware, k);
    const Workload w = at(c, "speculative", batch, context);
    if (mtp && c.s.m.mtp_layers == 0) throw ridgeline::error("", "draft", "\"mtp\"", cli::without_mtp_modules(c.s.m));
    // A draft: a Model, or a name or path that load_draft reads (a model, or an EAGLE-3 head).
    std::optional<LoadedDraft> loaded;
    if (!draft.is_none() && !mtp) {
        if (py::isinstance<PyModel>(draft)) loaded = LoadedDraft{draft.cast<PyModel>(), std::nullopt};
        else if (const auto path = path_arg(draft, "draft")) loaded = preset_named_by("draft", [&] { return load_draft(*path); });
        else throw py::type_error("draft: expected a ridgeline.Model, \"mtp\", or a preset name or path (str or os.PathLike)");
    } else if (draft_tp != 0 && !mtp) {
        throw ridgeline::error("", "draft_tp", std::to_string(draft_tp), "no draft_tp without draft (a free draft runs on no device)");
    }
    const SpeculativeDecode r = cli::speculate(c.s.dep, c.s.m, w, spec, loaded);
    static const auto columns = cli::speculative_columns();
    return row_py(columns, cli::speculative_cells(c.s, cli::speculative_row(c.s.dep, c.s.m, w, mtp, loaded, spec, r)));
}

py::list operators_py(const py::object& model, const py::object& hardware, const py::object& batch, const py::object& context,
                      const py::kwargs& kw) {
    Kwargs k("operators", kw);
    const Call c = setting(model, hardware, k);
    const Workload w = at(c, "operators", batch, context);
    static const auto columns = cli::operator_columns();
    py::list out;
    for (const Operator& o : operators(c.s.dep, c.s.m, w)) out.append(row_py(columns, cli::operator_cells(c.s, w, o)));
    return out;
}

py::object diagnose_py(const py::object& model, const py::object& hardware, const py::object& batch, const py::object& context,
                       const py::kwargs& kw) {
    Kwargs k("diagnose", kw);
    const auto tok_s = k.optional_number("measured_tokens_per_s"), tpot = k.optional_number("measured_tpot_s");
    // A misspelt measurement (the CLI's measured_tpot_ms) is an unknown keyword, not a missing one.
    if (!tok_s && !tpot)
        for (const auto& item : kw)
            if (const std::string key = item.first.cast<std::string>(); key.starts_with("measured") && key != "measured_tokens_per_s" && key != "measured_tpot_s")
                throw py::type_error("diagnose() got an unexpected keyword argument '" + key + "' (measured_tokens_per_s or measured_tpot_s, in seconds)");
    const std::int64_t draft_tokens = k.integer("draft_tokens", 4);
    if (tok_s.has_value() == tpot.has_value())
        throw ridgeline::error("", "measured_tokens_per_s", tok_s ? number_text(*tok_s) : "none",
                               "exactly one of measured_tokens_per_s and measured_tpot_s");
    // The CLI's bounds (--measured-tok-s, --measured-tpot-ms), in SI units.
    if (tok_s && !(*tok_s >= 1e-6 && *tok_s <= 1e9))
        throw ridgeline::error("", "measured_tokens_per_s", number_text(*tok_s), "a rate in tokens/s from 1e-6 to 1e9");
    if (tpot && !(*tpot >= 1e-9 && *tpot <= 1e6))
        throw ridgeline::error("", "measured_tpot_s", number_text(*tpot), "a time in seconds from 1e-9 to 1e6");
    validate(Speculation{draft_tokens, 0.5});
    // As the CLI: the gap is to the ceiling, so keywords that would be ignored are refused.
    for (const char* key : {"efficiency", "compute_efficiency", "overhead_s"})
        if (k.has(key))
            throw ridgeline::error("", key, py::str(kw[key]).cast<std::string>(),
                                   "none: diagnose measures the gap to the ceiling (predict with a calibration estimates)");
    const Call c = setting(model, hardware, k);
    const Workload w = at(c, "diagnose", batch, context);
    // As the CLI: a rate is 1 / rate seconds a token, and the figure is its value to its last
    // digit, read from the shortest text that gives the float back (Python's repr: 50.302 is "50.302").
    const Seconds measured = tok_s ? seconds(1.0 / *tok_s) : seconds(*tpot);
    char text[64];
    const double figure = tok_s ? *tok_s : *tpot;
    const auto end = std::to_chars(text, text + sizeof text, figure).ptr;
    const Seconds longest = seconds(cli::longest_step_of(figure, std::string(text, end), tok_s.has_value()));
    return to_python(cli::diagnose_table(c.s, w, measured, draft_tokens, longest).json());
}

// A Python dict as JSON, through Python's own json module (None, bools, numbers, nested dicts
// and lists as JSON has them); NaN, infinity or an object JSON has no form for is refused by
// the keyword's name.
nlohmann::json json_of(const py::object& value, const char* key) {
    std::string text;
    try {
        text = py::module_::import("json").attr("dumps")(value, py::arg("allow_nan") = false).cast<std::string>();
    } catch (py::error_already_set& e) {
        const std::string why = e.value() ? py::str(e.value()).cast<std::string>() : std::string("not JSON");
        throw ridgeline::error("", key, "a dict JSON cannot hold (" + why + ")", "a dict of JSON values, as calibrate()['preset']");
    }
    return nlohmann::json::parse(text);
}

py::object predict_py(const py::object& model, const py::object& hardware, const py::object& batch, const py::object& context,
                      const py::kwargs& kw) {
    Kwargs k("predict", kw);
    const py::object calibration = k.take("calibration");
    if (calibration.is_none())
        throw py::type_error("predict() missing the keyword argument 'calibration' (an efficiency preset name or file, or the dict "
                             "calibrate() returns as 'preset')");
    const auto path = path_arg(calibration, "calibration");
    if (!path && !py::isinstance<py::dict>(calibration))
        throw py::type_error("predict(): calibration must be a preset name or path (str or os.PathLike), or a dict as calibrate()['preset']" +
                             Kwargs::got_text(calibration));
    // The calibration gives the efficiency and the times; keywords that would be ignored are refused.
    for (const char* key : {"efficiency", "overhead_s"})
        if (k.has(key)) throw ridgeline::error("", key, py::str(kw[key]).cast<std::string>(), "none: predict takes it from the calibration");
    const EfficiencyPreset preset = path ? preset_named_by("calibration", [&] { return load_efficiency(*path); })
                                         : efficiency_from_json(json_of(calibration, "calibration"), "calibration");
    // No hardware: the device the calibration was fitted on, as the CLI without -H.
    const Call c = setting(model, hardware.is_none() ? py::object(py::str(preset.hardware)) : hardware, k);
    const Workload w = at(c, "predict", batch, context);
    return to_python(cli::predict_table(c.s, w, preset).json());
}

std::vector<std::string> names_of(const py::handle& v, const char* function, const char* what) {
    std::vector<std::string> out;
    if (py::isinstance<py::str>(v)) {
        out.push_back(utf8_of(v));
        return out;
    }
    if (!py::isinstance<py::sequence>(v)) throw py::type_error(std::string(function) + "(): " + what + " must be a str or a list of str");
    for (const auto& item : v) {
        if (!py::isinstance<py::str>(item)) throw py::type_error(std::string(function) + "(): " + what + " must be a str or a list of str");
        out.push_back(utf8_of(item));
    }
    return out;
}

// plan's devices: a preset name or path (str or os.PathLike, path_arg), or a list of them.
std::vector<std::string> paths_of(const py::handle& v, const char* function, const char* what) {
    if (const auto one = path_arg(v, what)) return {*one};
    const std::string expected = std::string(function) + "(): " + what + " must be a preset name or path (str or os.PathLike) or a list of them";
    if (!py::isinstance<py::sequence>(v) || py::isinstance<py::bytes>(v)) throw py::type_error(expected);
    std::vector<std::string> out;
    for (const auto& item : v) {
        const auto path = path_arg(item, what);
        if (!path) throw py::type_error(expected);
        out.push_back(*path);
    }
    return out;
}

// calibrate: the rows the CLI prints, and the efficiency preset `--save` writes.
py::object calibrate_py(const py::object& measurements, const py::kwargs& kw) {
    Kwargs k("calibrate", kw);
    cli::CalibrateRequest r;
    const auto path = path_arg(measurements, "measurements");
    if (!path) throw py::type_error("calibrate(): measurements must be a measurements file or a name in data/measurements (str or os.PathLike)" + Kwargs::got_text(measurements));
    r.measurements = *path;
    r.hardware = k.text("hardware", "");
    r.engine = k.optional_text("engine");
    r.model = k.optional_text("model");
    r.per_layer = k.optional_flag("per_layer").value_or(false);
    r.per_moe_layer = k.optional_flag("per_moe_layer").value_or(false);
    r.per_sequence = k.optional_flag("per_sequence").value_or(false);
    r.per_message = k.optional_flag("per_message").value_or(false);
    r.hold_compute = k.optional_flag("hold_compute").value_or(false);
    r.fit_compute = k.optional_flag("fit_compute").value_or(false);
    r.activations_on_chip = k.optional_flag("activations_on_chip").value_or(false);
    if (r.hold_compute && r.fit_compute)
        throw ridgeline::error("", "fit_compute", "True", "not with hold_compute=True (one holds the compute efficiency, the other fits it)");
    std::vector<std::string> where;  // KEY=VALUE
    if (const py::object w = k.take("where"); !w.is_none()) {
        if (py::isinstance<py::dict>(w)) {
            for (const auto& [key, value] : w.cast<py::dict>()) {
                // A whole-number value (tp, batch) may be given as one: {'batch': 4} is {'batch': '4'}.
                const bool whole = !py::isinstance<py::bool_>(value) && py::isinstance<py::int_>(value);
                if (!py::isinstance<py::str>(key) || !(py::isinstance<py::str>(value) || whole))
                    throw py::type_error("calibrate(): where must be a dict of str to str or int, or a list of 'KEY=VALUE'");
                where.push_back(key.cast<std::string>() + "=" + py::str(value).cast<std::string>());
            }
        } else {
            where = names_of(w, "calibrate", "where");
        }
    }
    k.done();
    for (const auto& w : where)
        cli::add_where(r.where, w, [](const std::string& value, const std::string& expected) {
            throw ridgeline::error("", "where", value, expected);
        });
    const cli::CalibrateRun run = preset_named_by("measurements", [&] { return cli::run_calibration(r); });
    if (run.kept.empty())
        if (const auto f = cli::filter_leaving_none(r, run.set)) throw ridgeline::error("", f->key, f->value, f->expected);
    if (run.kept.empty())
        throw ridgeline::error(r.measurements, "", "no row left by the filters together" +
                                   (run.flagged.empty() ? std::string()
                                                        : " (" + std::to_string(run.flagged.size()) +
                                                              (run.flagged.size() == 1 ? " flagged row is" : " flagged rows are") + " never fitted)"),
                               "filters that leave at least one measurement");
    py::dict out;
    out["rows"] = to_python(cli::calibrate_table(run).json());
    out["preset"] = to_python(cli::calibration_preset(r, run));
    // Past 500 rows the preset's leave_one_out is null, and this says why (as the CLI prints).
    if (!run.loo_skipped.empty()) out["leave_one_out_not_run"] = run.loo_skipped;
    // Unasked for a device, the fit is the first row's; the others' rows wait for hardware=.
    py::list passed_over;
    for (const auto& h : run.passed_over) passed_over.append(h);
    out["devices_passed_over"] = passed_over;
    // The rows the fit set aside and those the file flags, each with why (as the CLI's JSON).
    py::list set_aside, flagged;
    for (const auto& x : cli::set_aside_rows(run)) set_aside.append(text_of(x));
    for (const auto& x : run.flagged) flagged.append(text_of(x));
    out["set_aside"] = set_aside;
    out["flagged"] = flagged;
    return out;
}

// A list names each value once, as the CLI's lists do (a repeat only prints the same rows twice):
// "tp: got [1, 2, 1], expected each value once (1 is listed twice)".
template <class T>
void refuse_repeats(const char* key, const py::handle& given, const std::vector<T>& keys) {
    const auto i = cli::first_repeat(keys);
    if (!i) return;
    std::string value;
    if constexpr (std::is_same_v<T, std::string>) value = keys[*i];
    else value = std::to_string(keys[*i]);
    throw ridgeline::error("", key, cli::echoed(py::repr(given).cast<std::string>()), "each value once (" + cli::echoed(value) + " is listed twice)");
}
// Names given twice, or two that load one file ("h200" and "data/hardware/h200.json"), refused
// as the CLI refuses them; an empty name is none (the item was not a str).
void refuse_same_names(const char* key, const py::handle& given, const std::vector<std::string>& names, PresetKind kind) {
    refuse_repeats(key, given, names);
    std::vector<std::string> named;  // only the real names: an empty one would resolve to the folder
    for (const auto& name : names)
        if (!name.empty()) named.push_back(name);
    if (const auto p = cli::same_file(named, kind))
        throw ridgeline::error("", key, cli::echoed(py::repr(given).cast<std::string>()),
                               "each value once (" + cli::echoed(named[p->first]) + " and " + cli::echoed(named[p->second]) + " are the same file)");
}
// The str and path items of a model or hardware list, so checked; other values (Hardware
// objects) are left to their readers.
void refuse_same_file(const char* key, const py::handle& given, const std::vector<py::object>& items, PresetKind kind) {
    std::vector<std::string> names;
    for (const auto& item : items) names.push_back(path_arg(item, key).value_or(""));
    refuse_same_names(key, given, names, kind);
}

// The planner, as `ridgeline plan --format json` prints it (plan_json.hpp).
py::object plan_py(const py::object& model, const py::kwargs& kw) {
    Kwargs k("plan", kw);
    PlanRequest r;
    r.traffic.prompt = k.integer("prompt", 1024);
    r.traffic.output = k.integer("output", 256);
    r.traffic.cached_prompt = k.integer("cached_prompt", 0);
    r.traffic.prefill_chunk = k.integer("chunk", 2048);
    // Whole users, as the CLI's --users takes them (1.5 users is no load to plan for).
    if (const auto users = k.optional_integer("users")) {
        // Checked here as the whole number given: the library's bound reads the double it becomes.
        if (*users < 1 || *users > 1'000'000'000) throw ridgeline::error("", "users", std::to_string(*users), "an integer from 1 to 1000000000");
        r.users = static_cast<double>(*users);
    }
    r.requests_per_s = k.optional_number("requests_per_s");
    if (r.users.has_value() == r.requests_per_s.has_value())
        throw ridgeline::error("", "users", r.users ? number_text(*r.users) : "none", "exactly one of users and requests_per_s");
    // In seconds, as given: the library's bounds are the CLI's, 0.001 to 1e9 ms.
    for (const auto& [key, target] : {std::pair{"tpot_s", &r.tpot_target}, std::pair{"ttft_s", &r.ttft_target}, std::pair{"itl_s", &r.itl_target}})
        if (const auto t = k.optional_number(key)) {
            if (!(*t >= 1e-6 && *t <= 1e6)) throw ridgeline::error("", key, number_text(*t), "a time in seconds from 1e-6 to 1e6");
            *target = seconds(*t);
        }
    r.max_devices = k.integer("max_devices", 64);
    const auto max_ctx = read_max_context(k);
    const std::int64_t top = k.integer("top", 20);
    if (top < 1) throw ridgeline::error("", "top", std::to_string(top), "an integer from 1");
    // The storage to try, as the CLI's --weights: "checkpoint" (the model's own formats) and formats.
    bool checkpoint = true;
    r.weights = {formats::fp8};
    if (const py::object wl = k.take("weights"); !wl.is_none()) {
        r.weights.clear();
        checkpoint = false;
        const std::vector<std::string> typed = names_of(wl, "plan", "weights");
        refuse_repeats("weights", wl, typed);
        for (const auto& f : typed) {
            if (f == "checkpoint") checkpoint = true;
            else r.weights.push_back(format_arg("weights", f));
        }
    }
    // A comma list as the CLI takes it, or a list of its pieces.
    std::string mode = "both";
    if (const py::object given = k.take("mode"); !given.is_none()) {
        mode.clear();
        for (const auto& piece : names_of(given, "plan", "mode")) mode += (mode.empty() ? "" : ",") + piece;
        // Each mode once, as the CLI's --mode: "agg,agg" in one string or as two items.
        std::vector<std::string> pieces;
        for (std::size_t from = 0; from <= mode.size();) {
            const std::size_t comma = std::min(mode.find(',', from), mode.size());
            pieces.push_back(mode.substr(from, comma - from));
            from = comma + 1;
        }
        refuse_repeats("mode", given, pieces);
    }
    const auto modes = serving_modes_from(mode);
    if (!modes) throw ridgeline::error("", "mode", mode, "agg, apart, disagg or both, comma-separated");
    r.modes = *modes;
    Workload& w = r.base;
    w.precision.kv = format_arg("kv", k.text("kv", "bf16"));
    // Unasked, each device computes as the CLI's plan has it (plan_detail::unasked_compute).
    const auto compute = k.optional_text("compute");
    w.precision.compute = numeric_arg("compute", compute.value_or("bf16"));
    r.device_compute = !compute;
    // Each device's terms from its calibration, as the CLI's --calibration gives them.
    const bool times_given = std::any_of(kw.begin(), kw.end(), [](const auto& item) {
        const std::string key = py::str(item.first);
        return (key == "efficiency" || key == "compute_efficiency" || key == "overhead_s") && !item.second.is_none();
    });
    w.efficiency.bandwidth = k.number("efficiency", 1.0);
    w.efficiency.compute = k.number("compute_efficiency", 1.0);
    w.efficiency.overhead = seconds(k.optional_overhead_s().value_or(0.0));
    if (const auto f = k.optional_number("memory_fraction")) w.assumptions.memory_fraction = *f;
    if (const auto b = k.optional_reserve_bytes()) w.assumptions.runtime_reserve = bytes(*b);
    if (const auto l = k.optional_link_latency_s()) r.links.link_latency = seconds(*l);
    r.links.link_bandwidth = k.optional_link_bandwidth();
    const py::object cal = k.take("calibration");
    const py::object hw = k.take("hardware");
    cli::PlanCalibrations calibrations{cal.is_none() ? std::vector<std::string>{} : paths_of(cal, "plan", "calibration"), {}, {}};
    calibrations.refuse = [repr = cli::echoed(py::repr(cal).cast<std::string>())](const std::string& expected) {
        throw ridgeline::error("", "calibration", repr, expected);
    };
    if (!cal.is_none()) {
        refuse_same_names("calibration", cal, calibrations.typed, PresetKind::efficiency);
        if (times_given)
            throw ridgeline::error("", "calibration", cli::echoed(py::repr(cal).cast<std::string>()),
                                   "no efficiency, compute_efficiency or overhead_s beside it (it gives each device's times)");
    }
    // The calibrations are read after every keyword is (k.done() below), except where they name
    // the devices: then the prices are checked against those.
    const auto load_calibrations = [&] {
        if (!cal.is_none() && calibrations.presets.empty()) preset_named_by("calibration", [&] { calibrations.load(); return 0; });
    };
    if (hw.is_none()) load_calibrations();
    const std::vector<std::string> names = !hw.is_none()                   ? paths_of(hw, "plan", "hardware")
                                           : !calibrations.presets.empty() ? calibrations.devices()
                                                                           : list_presets(PresetKind::hardware);
    // A name twice, or a preset and its own file, refused as the CLI's -H refuses them.
    if (!hw.is_none()) refuse_same_names("hardware", hw, names, PresetKind::hardware);
    std::vector<std::pair<std::string, double>> prices;
    if (const py::object p = k.take("prices"); !p.is_none()) {
        if (!py::isinstance<py::dict>(p)) throw py::type_error("plan(): prices must be a dict of device name to price per device-hour");
        for (const auto& [name, price] : p.cast<py::dict>()) {
            if (!py::isinstance<py::str>(name)) throw py::type_error("plan(): prices must be a dict of device name (str) to price per device-hour");
            const auto n = name.cast<std::string>();
            if (std::find(names.begin(), names.end(), n) == names.end())
                throw ridgeline::error("", "prices", n,
                                       hw.is_none() && !cal.is_none() ? "prices only for the devices of calibration (hardware not given)"
                                                                      : "prices only for the devices of hardware");
            prices.emplace_back(n, Kwargs::as_number("plan", "prices", price));
        }
    }
    k.done();
    load_calibrations();
    validate(w);
    for (const auto& name : names) {
        std::optional<double> price;
        for (const auto& [n, v] : prices)
            if (n == name) price = v;
        r.devices.push_back({name, load_hardware(name), price});
    }
    const PyModel& pm = model_of(model);
    r.model = pm.model;
    calibrations.attach(r, "hardware", hw.is_none() ? "" : cli::echoed(py::repr(hw).cast<std::string>()));
    r.checkpoint_formats = pm.precision;
    if (checkpoint) r.checkpoint = pm.precision;
    raise_max_context(r.model, max_ctx);
    w.precision.state = pm.precision.state;  // the checkpoint's state formats, whatever the weights'
    const PlanResult result = plan(r);
    return to_python(plan_json(result, r.model, top));
}

// ---------------------------------------------------------------------------------------------
// The vectorised sweep
// ---------------------------------------------------------------------------------------------

// A 1-D integer array from any sequence numpy takes; floats are refused, not truncated.
std::vector<std::int64_t> integers(const py::handle& v, const char* what) {
    const py::module_ np = py::module_::import("numpy");
    py::array a = np.attr("asarray")(v);
    const char kind = a.dtype().kind();
    if (kind != 'i' && kind != 'u' && a.size() != 0)
        throw py::type_error(std::string("decode_sweep(): ") + what + " must hold integers, got dtype " + py::str(a.dtype()).cast<std::string>());
    // One axis: a 2-D array would be flattened into points the caller did not lay out.
    if (a.ndim() > 1)
        throw py::type_error(std::string("decode_sweep(): ") + what + " must be one-dimensional, got " + std::to_string(a.ndim()) + " dimensions");
    // Unsigned values past 2^63 - 1 would wrap to negative ones in int64: refused as the value given.
    if (kind == 'u' && a.size() != 0) {
        const py::object most = np.attr("max")(a);
        if (most.cast<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            throw ridgeline::error("", what, py::str(most).cast<std::string>(), "an integer within 64 bits (from -2^63 to 2^63 - 1)");
    }
    const auto flat = np.attr("ravel")(a.attr("astype")("int64")).cast<py::array_t<std::int64_t>>();
    return std::vector<std::int64_t>(flat.data(), flat.data() + flat.size());
}

// A keyword (`key`) that may be one value or a list of them.
std::vector<py::object> one_or_many(const py::object& v, const char* key) {
    std::vector<py::object> out;
    if (py::isinstance<py::str>(v) || !py::isinstance<py::sequence>(v)) {
        out.push_back(v);
        return out;
    }
    for (const auto& item : v) out.push_back(py::reinterpret_borrow<py::object>(item));
    if (out.empty()) throw ridgeline::error("", key, "an empty list", "at least one value");
    return out;
}

std::vector<std::int64_t> degrees(Kwargs& k, const char* key) {
    const py::object v = k.take(key);
    if (v.is_none()) return {1};
    std::vector<std::int64_t> out;
    for (const auto& item : one_or_many(v, key)) out.push_back(degree_in_range(key, Kwargs::as_integer("decode_sweep", key, item)));
    refuse_repeats(key, v, out);
    return out;
}

// A column of the sweep's output: numpy's array, and where its values go.
struct Column {
    py::array array;
    char kind = 'f';  // 'f' float64, 'i' int64, 'b' bool, 'O' str objects
};

// Every model x hardware x weights x tp x pp x ep setting (the CLI's order of -H, --weights, --tp,
// --pp, --ep, models first), then every batch x context point, batch-major: decode's rows as
// columns, no Python between points.
py::dict decode_sweep_py(const py::object& model, const py::object& hardware, const py::object& batches_in, const py::object& contexts_in,
                         const py::kwargs& kw) {
    Kwargs k("decode_sweep", kw);
    // Every keyword and list is read and checked before any file is read.
    std::vector<std::optional<std::string>> weights{std::nullopt};
    py::object weights_given = py::none();
    if (const py::object wl = k.take("weights"); !wl.is_none()) {
        weights_given = wl;
        weights.clear();
        for (const auto& f : one_or_many(wl, "weights")) {
            if (!py::isinstance<py::str>(f)) throw py::type_error("decode_sweep(): weights must be a str or a list of str");
            // "checkpoint": the model's own formats, beside others, as the CLI's --weights takes it.
            if (f.cast<std::string>() == "checkpoint") {
                weights.emplace_back(std::nullopt);
                continue;
            }
            (void)format_arg("weights", f.cast<std::string>());
            weights.emplace_back(f.cast<std::string>());
        }
        std::vector<std::string> typed;
        for (const auto& w : weights) typed.push_back(w.value_or("checkpoint"));
        refuse_repeats("weights", wl, typed);
    }
    std::optional<std::vector<std::string>> wanted;
    if (const py::object cl = k.take("columns"); !cl.is_none()) {
        wanted = names_of(cl, "decode_sweep", "columns");
        refuse_repeats("columns", cl, *wanted);  // a dict has each key once: a repeat is a typo for another
    }
    WorkloadSpec spec = workload_of(k, false);
    if (weights.front() && spec.weights_given)
        throw py::type_error("decode_sweep(): give weights in the Workload or as a keyword, not both");
    const std::vector<py::object> models = one_or_many(model, "model"), devices = one_or_many(hardware, "hardware");
    refuse_same_file("model", model, models, PresetKind::model);
    refuse_same_file("hardware", hardware, devices, PresetKind::hardware);
    std::vector<DeviceArg> device_args;
    for (const auto& d : devices) device_args.push_back(device_arg(d, "decode_sweep"));
    const bool deployments = std::any_of(device_args.begin(), device_args.end(), [](const DeviceArg& d) { return d.par.has_value(); });
    std::vector<std::int64_t> tps{1}, pps{1}, eps{1};
    Parallelism base_par;
    std::int64_t attention_dp = 1;  // 0: one rank a tensor-parallel device, whatever the degree
    if (deployments) {
        if (!std::all_of(device_args.begin(), device_args.end(), [](const DeviceArg& d) { return d.par.has_value(); }))
            throw py::type_error("decode_sweep(): hardware must be all Deployments or none");
        refuse_parallel_keys(k);
    } else {
        tps = degrees(k, "tp");
        pps = degrees(k, "pp");
        eps = degrees(k, "ep");
        base_par.data = k.integer("dp", 1);
        attention_dp = read_attention_dp(k);
        if (const auto l = k.optional_link_latency_s()) base_par.link_latency = seconds(*l);
        base_par.link_bandwidth = k.optional_link_bandwidth();
    }
    const auto max_ctx = read_max_context(k);
    k.done();
    const std::vector<std::int64_t> batches = integers(batches_in, "batches"), contexts = integers(contexts_in, "contexts");
    refuse_repeats("batches", batches_in, batches);
    refuse_repeats("contexts", contexts_in, contexts);

    const std::vector<cli::Column> columns = cli::decode_columns();
    std::vector<bool> on(columns.size(), true);
    if (wanted) {
        std::fill(on.begin(), on.end(), false);
        for (const auto& name : *wanted) {
            const auto it = std::find_if(columns.begin(), columns.end(), [&](const cli::Column& c) { return c.key == name; });
            if (it == columns.end()) {
                std::string keys;
                for (const auto& c : columns) keys += (keys.empty() ? "" : ", ") + c.key;
                throw ridgeline::error("", "columns", name, "one of decode's keys: " + keys);
            }
            on[static_cast<std::size_t>(it - columns.begin())] = true;
        }
    }

    // The settings, in order, each checked as the scalar answers check theirs.
    std::vector<Parallelism> splits;
    for (const auto t : tps)
        for (const auto p : pps)
            for (const auto e : eps) {
                Parallelism par = base_par;
                par.tensor = t;
                par.pipeline = p;
                par.expert = e;
                if (attention_dp != 1) par.attention_data = attention_dp == 0 ? t : attention_dp;
                validate(par);
                splits.push_back(par);
            }
    const std::size_t per_setting_limit = 100'000'000;
    const std::size_t combos = models.size() * devices.size() * weights.size() * splits.size();
    const std::size_t nb = batches.size(), nc = contexts.size();
    if (combos > 100'000) throw ridgeline::error("", "settings", std::to_string(combos), "at most 100,000 settings");
    if (nb != 0 && nc > per_setting_limit / nb / combos)
        throw ridgeline::error("", "settings x batches x contexts", std::to_string(combos) + " x " + std::to_string(nb) + " x " + std::to_string(nc),
                               "at most 100,000,000 points");
    // The columns asked for, each a value a point: bounded so a sweep at the point cap with every
    // column (some 240 bytes a point, 24 GB) fails here, not by the system's out-of-memory killer.
    const std::size_t asked = static_cast<std::size_t>(std::count(on.begin(), on.end(), true));
    const std::size_t max_values = 400'000'000;  // 3.2 GB of float64
    if (nb != 0 && nc != 0 && asked > max_values / (nb * nc * combos))
        throw ridgeline::error("", "settings x batches x contexts x columns",
                               std::to_string(combos) + " x " + std::to_string(nb) + " x " + std::to_string(nc) + " x " + std::to_string(asked),
                               "at most 400,000,000 values (about 3.2 GB; ask for fewer columns= or points)");
    // Each model and device once (a Model is some 10 kB); each setting names them by index.
    std::vector<PyModel> loaded_models;
    for (const auto& m : models) {
        loaded_models.push_back(model_of(m));
        raise_max_context(loaded_models.back().model, max_ctx);
    }
    std::vector<Hardware> loaded_devices;
    for (const auto& d : device_args) loaded_devices.push_back(d.hw ? *d.hw : load_hardware(d.name));
    struct Setting {
        std::size_t model, device;
        Parallelism par;
        Workload base;
        std::string formats_source;
    };
    std::vector<Setting> settings;
    settings.reserve(combos);
    for (std::size_t mi = 0; mi < loaded_models.size(); ++mi)
        for (std::size_t d = 0; d < device_args.size(); ++d)
            for (const auto& w : weights) {
                WorkloadSpec one = spec;
                if (w) {
                    one.w.precision.weights = format_arg("weights", *w);
                    one.weights_given = true;
                }
                auto [base, source] = with_formats(loaded_models[mi], one, loaded_devices[d]);
                for (std::size_t k = 0; k < (deployments ? 1 : splits.size()); ++k) {
                    const Parallelism& par = deployments ? *device_args[d].par : splits[k];
                    if (loaded_models[mi].model.group_count > 0) validate(Deployment{loaded_devices[d], par}, loaded_models[mi].model);
                    settings.push_back(Setting{mi, d, par, base, source});
                }
            }
    // Two weights that store every model alike ("bf16" and "checkpoint" over bf16 checkpoints)
    // would only repeat rows: refused as the CLI's --weights refuses them. Where they differ for
    // one model of several, its rows differ, so they stand. The first device's settings tell.
    const std::size_t per_weights = deployments ? 1 : splits.size(), per_model = device_args.size() * weights.size() * per_weights;
    const auto storage = [&](std::size_t mi, std::size_t w) -> const Precision& { return settings[mi * per_model + w * per_weights].base.precision; };
    for (std::size_t j = 1; j < weights.size(); ++j)
        for (std::size_t i = 0; i < j; ++i) {
            bool alike = true;
            for (std::size_t mi = 0; mi < loaded_models.size() && alike; ++mi)
                alike = stored_alike(storage(mi, i), storage(mi, j), loaded_models[mi].model.tied_embeddings);
            if (!alike) continue;
            const std::string whom = loaded_models.size() == 1 ? std::string(loaded_models.front().model.name.view())
                                                               : "each of the " + std::to_string(loaded_models.size()) + " models";
            throw ridgeline::error("", "weights", cli::echoed(py::repr(weights_given).cast<std::string>()),
                                   "each value once (" + weights[i].value_or("checkpoint") + " and " + weights[j].value_or("checkpoint") +
                                       " store " + whom + " alike" +
                                       (loaded_models.size() == 1 ? ": " + precision_name(storage(0, i), loaded_models.front().model.tied_embeddings) : "") +
                                       ")");
        }
    // A setting as the rows echo it (for the input columns).
    const auto resolved = [&](const Setting& x) {
        cli::Resolved r;
        r.hardware = device_args[x.device].name;
        r.hw = loaded_devices[x.device];
        r.m = loaded_models[x.model].model;
        r.dep = Deployment{r.hw, x.par};
        r.base = x.base;
        r.formats_source = x.formats_source;
        return r;
    };

    // The output columns, allocated once.
    const std::size_t points = nb * nc, n = points * settings.size();
    const auto shape = std::vector<py::ssize_t>{static_cast<py::ssize_t>(n)};
    const py::dtype object_dtype("O");
    std::vector<Column> out(columns.size());
    const std::size_t inputs = cli::input_columns().size();
    const bool echo = std::any_of(on.begin(), on.begin() + static_cast<std::ptrdiff_t>(inputs), [](bool b) { return b; });
    const std::vector<cli::Cell> first = settings.empty() || !echo ? std::vector<cli::Cell>{} : cli::input_cells(resolved(settings.front()));
    const auto kind_of = [&](std::size_t c) -> char {
        if (c < inputs) {
            if (first.empty()) return 'O';
            const auto& raw = first[c].raw;
            return raw.is_string() ? 'O' : raw.is_boolean() ? 'b' : raw.is_number_integer() ? 'i' : 'f';
        }
        const std::string& key = columns[c].key;
        if (key == "batch" || key == "context_tokens") return 'i';
        if (key == "bound") return 'O';
        if (key == "fits") return 'b';
        return 'f';
    };
    for (std::size_t c = 0; c < columns.size(); ++c) {
        if (!on[c]) continue;
        out[c].kind = kind_of(c);
        switch (out[c].kind) {
            case 'f': out[c].array = py::array_t<double>(shape); break;
            case 'i': out[c].array = py::array_t<std::int64_t>(shape); break;
            case 'b': out[c].array = py::array_t<bool>(shape); break;
            default: out[c].array = py::array(object_dtype, shape); break;
        }
    }
    const auto column = [&](const char* key) -> Column* {
        for (std::size_t c = inputs; c < columns.size(); ++c)
            if (columns[c].key == key) return on[c] ? &out[c] : nullptr;
        return nullptr;
    };
    const auto doubles = [&](const char* key) -> double* {
        Column* c = column(key);
        return c ? static_cast<double*>(c->array.mutable_data()) : nullptr;
    };
    Column* bound = column("bound");
    std::vector<char> compute_bound(bound ? n : 0), links_bound(bound ? n : 0);
    Column* fits = column("fits");

    {
        // The arithmetic, without the GIL.
        py::gil_scoped_release no_gil;
        for (std::size_t i = 0; i < settings.size(); ++i) {
            const Setting& s = settings[i];
            const std::size_t at = i * points;
            const auto offset = [&](double* p) { return p ? p + at : nullptr; };
            DecodeColumns o;
            o.weight_bytes = offset(doubles("weight_bytes"));
            o.kv_bytes = offset(doubles("kv_bytes"));
            o.activation_bytes = offset(doubles("activation_bytes"));
            o.bytes_per_step = offset(doubles("bytes_per_step"));
            o.bytes_per_device = offset(doubles("bytes_per_device"));
            o.step_time = offset(doubles("step_time_s"));
            o.tokens_per_s = offset(doubles("tokens_per_s"));
            o.total_tokens_per_s = offset(doubles("total_tokens_per_s"));
            o.arithmetic_intensity = offset(doubles("arithmetic_intensity_flop_per_byte"));
            o.communication_time = offset(doubles("communication_time_s"));
            o.memory_per_device = offset(doubles("memory_per_device_bytes"));
            o.memory_budget = offset(doubles("memory_budget_bytes"));
            o.compute_bound = bound ? reinterpret_cast<bool*>(compute_bound.data()) + at : nullptr;
            o.links_bound = bound ? reinterpret_cast<bool*>(links_bound.data()) + at : nullptr;
            o.fits = fits ? static_cast<bool*>(fits->array.mutable_data()) + at : nullptr;
            decode_sweep(Deployment{loaded_devices[s.device], s.par}, loaded_models[s.model].model, s.base, batches, contexts, o);
            // A NaN or infinity is a bug upstream, never an answer: x * 0 is NaN for those, 0 else
            // (summed in 8 lanes, which the compiler vectorises).
            for (double* p : {o.weight_bytes, o.kv_bytes, o.activation_bytes, o.bytes_per_step, o.bytes_per_device, o.step_time, o.tokens_per_s, o.total_tokens_per_s,
                              o.arithmetic_intensity, o.communication_time, o.memory_per_device, o.memory_budget}) {
                if (!p) continue;
                std::array<double, 8> lanes{};
                std::size_t x = 0;
                for (; x + 8 <= points; x += 8)
                    for (std::size_t k = 0; k < 8; ++k) lanes[k] += p[x + k] * 0.0;
                for (; x < points; ++x) lanes[0] += p[x] * 0.0;
                for (const double v : lanes)
                    if (v != 0) throw std::logic_error("ridgeline: a non-finite number reached the output");
            }
            if (Column* b = column("batch")) {
                auto* p = static_cast<std::int64_t*>(b->array.mutable_data()) + at;
                for (std::size_t x = 0; x < nb; ++x) std::fill_n(p + x * nc, nc, batches[x]);
            }
            if (Column* c = column("context_tokens")) {
                auto* p = static_cast<std::int64_t*>(c->array.mutable_data()) + at;
                for (std::size_t x = 0; x < nb; ++x) std::copy(contexts.begin(), contexts.end(), p + x * nc);
            }
        }
    }

    // The inputs each setting's rows echo, and the bound as a word: Python objects, with the GIL.
    // numpy makes a new object array of NULLs (calloc: object dtypes need initialising); each slot
    // then holds a reference to its value, taken in one step.
    const auto fill_objects = [&](Column& c, std::size_t from, std::size_t count, PyObject* value) {
        auto** p = static_cast<PyObject**>(c.array.mutable_data()) + from;
        std::fill_n(p, count, value);
        Py_SET_REFCNT(value, Py_REFCNT(value) + static_cast<py::ssize_t>(count));
    };
    for (Column& c : out)
        if (c.kind == 'O' && c.array && c.array.size() > 0) {
            auto** p = static_cast<PyObject**>(c.array.mutable_data());
            if (p[0] || p[c.array.size() - 1]) throw std::logic_error("ridgeline: numpy gave an object array that is not empty");
        }
    for (std::size_t i = 0; i < settings.size() && echo; ++i) {
        const std::vector<cli::Cell> cells = cli::input_cells(resolved(settings[i]));
        const std::size_t at = i * points;
        for (std::size_t c = 0; c < inputs; ++c) {
            if (!on[c]) continue;
            const auto& raw = cells[c].raw;
            switch (out[c].kind) {
                case 'f': std::fill_n(static_cast<double*>(out[c].array.mutable_data()) + at, points, finite(raw.get<double>())); break;
                case 'i': std::fill_n(static_cast<std::int64_t*>(out[c].array.mutable_data()) + at, points, raw.get<std::int64_t>()); break;
                case 'b': std::fill_n(static_cast<bool*>(out[c].array.mutable_data()) + at, points, raw.get<bool>()); break;
                default: {
                    const py::object text = to_python(raw);
                    fill_objects(out[c], at, points, text.ptr());
                }
            }
        }
    }
    if (bound) {
        // decode's limit_name: the links where they outlast the roofline term, else its bound.
        const py::str memory("memory"), compute("compute"), links("links");
        auto** p = static_cast<PyObject**>(bound->array.mutable_data());
        std::size_t computes = 0, linked = 0;
        for (std::size_t x = 0; x < n; ++x) {
            if (links_bound[x]) {
                ++linked;
                p[x] = links.ptr();
            } else {
                computes += compute_bound[x] ? 1 : 0;
                p[x] = compute_bound[x] ? compute.ptr() : memory.ptr();
            }
        }
        Py_SET_REFCNT(compute.ptr(), Py_REFCNT(compute.ptr()) + static_cast<py::ssize_t>(computes));
        Py_SET_REFCNT(links.ptr(), Py_REFCNT(links.ptr()) + static_cast<py::ssize_t>(linked));
        Py_SET_REFCNT(memory.ptr(), Py_REFCNT(memory.ptr()) + static_cast<py::ssize_t>(n - computes - linked));
    }
    // In decode's order, or in the order asked for.
    py::dict r;
    if (wanted) {
        for (const auto& name : *wanted)
            for (std::size_t c = 0; c < columns.size(); ++c)
                if (columns[c].key == name) r[py::str(name)] = out[c].array;
    } else {
        for (std::size_t c = 0; c < columns.size(); ++c) r[py::str(columns[c].key)] = out[c].array;
    }
    return r;
}

// ---------------------------------------------------------------------------------------------
// The value types' Python faces
// ---------------------------------------------------------------------------------------------

std::string accounting_name(const Assumptions& a) { return a.accounting == WeightAccounting::bytes_read ? "bytes_read" : "every_parameter"; }

PyAssumptions make_assumptions(const py::object& name, const py::kwargs& kw) {
    py::dict all(kw);
    if (!name.is_none()) all["assumptions"] = name;
    Kwargs k("Assumptions", py::kwargs(all));
    PyAssumptions a{read_assumptions(k)};
    k.done();
    return a;
}

PyWorkload make_workload(const py::object& batch, const py::object& context, const py::kwargs& kw) {
    Kwargs k("Workload", kw);
    PyWorkload w{read_workload(k)};
    k.done();
    w.spec.w.batch = integer_arg("Workload", "batch", batch, 1);
    w.spec.w.context = integer_arg("Workload", "context", context, 0);
    validate(w.spec.w);
    return w;
}

PyDeployment make_deployment(const py::object& hardware, const py::kwargs& kw) {
    Kwargs k("Deployment", kw);
    const Parallelism par = read_parallel(k);
    k.done();
    DeviceArg d = device_arg(hardware, "Deployment");
    if (d.par) throw py::type_error("Deployment(): hardware must be a ridgeline.Hardware or a preset name or path (str or os.PathLike)");
    return PyDeployment{PyHardware{d.name, d.hw ? *d.hw : load_hardware(d.name)}, par};
}

}  // namespace

PYBIND11_MODULE(ridgeline, m) {
    m.doc() = "ridgeline: decode-speed arithmetic for LLMs on GPUs, from the C++ headers. Every answer is the row the CLI prints "
              "with --format json, as a dict under the same keys, in SI units with the unit in the key.";

    // ridgeline::error as ridgeline.Error (a ValueError) with the C++ error's parts.
    static py::exception<ridgeline::error> error_type(m, "Error", PyExc_ValueError);
    error_type.doc() = "Bad input: the message reads '<file>: <path>: got <value>, expected <expected>'; each part is an attribute "
                       "(file, path, value, expected).";
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const ridgeline::error& e) {
            // The library names its own lever; say the module's (as the CLI says --max-context).
            std::string expected = naming_own_max_context_lever(e.expected(), "raise it with max_context= or Model.with_max_context where the model allows more");
            expected = naming_own_lever(std::move(expected), link_bandwidth_lever, "give one with link_bandwidth_bytes_per_s=, e.g. 64e9 for PCIe 4.0 x16, 100e9 for a 400 Gb/s NIC");
            // The library names what it checks ("tensor-parallel degree"); the caller typed a keyword (tp).
            // Errors read from a file keep the file's field names.
            std::string path = e.path();
            if (e.file().empty()) {
                static const std::pair<std::string_view, std::string_view> keywords[] = {
                    {"tensor-parallel degree", "tp"},        {"pipeline-parallel degree", "pp"},
                    {"expert-parallel degree", "ep"},        {"data-parallel degree", "dp"},
                    {"attention data-parallel degree", "attention_dp"},
                    {"tensor-parallel degree / attention data-parallel degree", "tp / attention_dp"},
                    {"efficiency (bandwidth)", "efficiency"}, {"efficiency (compute)", "compute_efficiency"},
                    {"memory fraction", "memory_fraction"},
                    {"speculation.draft_tokens", "draft_tokens"}, {"speculation.acceptance", "acceptance"},
                    {"max devices", "max_devices"},          {"prefill chunk", "chunk"},
                    {"speculation.draft_tensor", "draft_tp"},  {"draft model", "draft"},
                    {"draft head", "draft"},                 {"speculation.tree_width", "tree_width"},
                    {"speculation.verify_tokens", "verify_tokens"}, {"speculation.accepted_tokens", "accept_length"},
                    {"requests per second", "requests_per_s"}, {"cached prompt", "cached_prompt"},
                    {"devices", "hardware"},                 {"weight formats", "weights"},
                    {"TPOT target", "tpot_s"},               {"TTFT target", "ttft_s"},
                    {"ITL target", "itl_s"}};
                for (const auto& [library, keyword] : keywords)
                    if (path == library) path = keyword;
                for (std::size_t at = expected.find("the tensor-parallel degree"); at != std::string::npos;
                     at = expected.find("the tensor-parallel degree", at))
                    expected.replace(at, std::string_view("the tensor-parallel degree").size(), "tp");
            }
            // A target given in seconds is shown in seconds (the library says "500 ms").
            std::string value = e.value();
            if ((path == "tpot_s" || path == "ttft_s" || path == "itl_s") && value.ends_with(" ms"))
                value = number_text(std::strtod(value.c_str(), nullptr) / 1000);
            // An empty value is shown as "", as the CLI quotes it, not as nothing ("got , expected").
            const ridgeline::error said(e.file(), path, value.empty() ? "\"\"" : value, expected);
            // A file name or value need not be UTF-8 (text_of).
            py::object instance = py::reinterpret_borrow<py::object>(error_type.ptr())(text_of(said.what()));
            instance.attr("file") = text_of(said.file());
            instance.attr("path") = text_of(said.path());
            instance.attr("value") = text_of(said.value());
            instance.attr("expected") = text_of(said.expected());
            PyErr_SetObject(error_type.ptr(), instance.ptr());
        }
    });

    py::class_<PyHardware>(m, "Hardware", "A device: a hardware preset or JSON file (ridgeline.load_hardware)")
        .def(py::init(&load_hardware_py), py::arg("name_or_path"), "Hardware(NAME or FILE): what ridgeline.load_hardware reads")
        .def_property_readonly("name", [](const PyHardware& h) { return text_of(h.name); }, "The name it was loaded by")
        .def_property_readonly("device", [](const PyHardware& h) { return std::string(h.hw.name.view()); })
        .def_property_readonly("memory_bytes", [](const PyHardware& h) { return h.hw.memory_capacity.in(bytes); })
        .def_property_readonly("memory_bandwidth_bytes_per_s", [](const PyHardware& h) { return h.hw.memory_bandwidth.in(bytes_per_s); })
        .def_property_readonly("interconnect_bytes_per_s", [](const PyHardware& h) -> std::optional<double> {
            return h.hw.interconnect_bandwidth ? std::optional<double>(h.hw.interconnect_bandwidth->in(bytes_per_s)) : std::nullopt;
        })
        .def("dense_flop_per_s", [](const PyHardware& h, const std::string& format) -> std::optional<double> {
            const auto p = h.hw.peak_for(numeric_arg("format", format));
            return p ? std::optional<double>(p->in(flop_per_s)) : std::nullopt;
        }, py::arg("format") = "bf16", "The dense peak for a compute format, or None")
        .def("__repr__", [](const PyHardware& h) { return text_of("<ridgeline.Hardware " + h.name + ": " + std::string(h.hw.name.view()) + ">"); });

    py::class_<PyModel>(m, "Model", "A model: a preset or a config.json, with its checkpoint's storage formats (ridgeline.load_model)")
        .def(py::init(&load_model_py), py::arg("name_or_path"), "Model(NAME or FILE): what ridgeline.load_model reads")
        .def_property_readonly("name", [](const PyModel& p) { return text_of(std::string(p.model.name.view())); })
        .def_property_readonly("hidden_size", [](const PyModel& p) { return p.model.hidden_size; })
        .def_property_readonly("vocab_size", [](const PyModel& p) { return p.model.vocab_size; })
        .def_property_readonly("layers", [](const PyModel& p) { return layer_count(p.model); })
        .def_property_readonly("max_context", [](const PyModel& p) { return p.model.max_context; })
        .def_property_readonly("total_params", [](const PyModel& p) { return derived_parameters(p.model).total(); })
        .def_property_readonly("active_params", [](const PyModel& p) { return active_parameters(p.model).total(); })
        .def_property_readonly("parameter_count", [](const PyModel& p) { return parameter_count(p.model); },
                               "The count the every-parameter budget charges: a declared one if set, else the derived total")
        .def_property_readonly("weights", [](const PyModel& p) { return format_name(p.precision.weights); },
                               "The checkpoint's weight format")
        .def_property_readonly("formats_source", [](const PyModel& p) { return p.precision_source; })
        .def_property_readonly("notes", [](const PyModel& p) { return p.notes; })
        .def("kv_bytes_per_token", [](const PyModel& p, const std::string& format) {
            return kv_bytes_per_token(p.model, format_arg("format", format)).in(bytes);
        }, py::arg("format") = "bf16")
        .def("with_parameters", [](const PyModel& p, const py::object& given) {
            // As a config.json's ridgeline.parameters: a number, not a bool, from 1 to below 1e16
            // and at least the embedding table and LM head (validate(Model) checks both), here, not on use.
            if (py::isinstance<py::bool_>(given) || !(py::isinstance<py::int_>(given) || py::isinstance<py::float_>(given)))
                throw ridgeline::error("", "count", py::str(py::repr(given)).cast<std::string>(), "a count from 1 to below 1e16");
            PyModel out = p;
            out.model.with_parameters(Kwargs::as_number("with_parameters", "count", given));
            try {
                validate(out.model);
            } catch (const ridgeline::error& e) {
                throw ridgeline::error("", "count", e.value(), e.expected());
            }
            return out;
        }, py::arg("count"), "A copy with a declared parameter count (seed 003 rounds Llama-3.1-8B to 8.03e9)")
        .def("with_max_context", [](const PyModel& p, const py::object& given) {
            const std::int64_t tokens = Kwargs::as_integer("with_max_context", "tokens", given);
            if (tokens < 1 || tokens > (std::int64_t{1} << 40))
                throw ridgeline::error("", "tokens", std::to_string(tokens), "an integer from 1 to 2^40");
            PyModel out = p;
            out.model.with_max_context(tokens);
            return out;
        }, py::arg("tokens"), "A copy with another context limit")
        .def("__repr__", [](const PyModel& p) { return text_of("<ridgeline.Model " + std::string(p.model.name.view()) + ">"); });

    py::class_<PyAssumptions>(m, "Assumptions",
                              "What results count: Assumptions('physical') (the default) or Assumptions('seed_003'), with keyword "
                              "overrides accounting ('read' or 'every'), attention_flops (bool), memory_fraction, runtime_reserve_bytes")
        .def(py::init(&make_assumptions), py::arg("name") = py::none())
        .def_property_readonly("name", [](const PyAssumptions& a) { return std::string(assumptions_name(a.a)); },
                               "physical, seed_003, or custom when overridden")
        .def_property_readonly("accounting", [](const PyAssumptions& a) { return accounting_name(a.a); })
        .def_property_readonly("attention_flops", [](const PyAssumptions& a) { return a.a.attention_flops; })
        .def_property_readonly("embedding_lookup_flops", [](const PyAssumptions& a) { return a.a.embedding_lookup_flops; })
        .def_property_readonly("prompt_logits", [](const PyAssumptions& a) { return a.a.prompt_logits ? "every" : "last"; })
        .def_property_readonly("reported_memory", [](const PyAssumptions& a) { return a.a.reported_memory; })
        .def_property_readonly("memory_fraction", [](const PyAssumptions& a) { return a.a.memory_fraction; })
        .def_property_readonly("runtime_reserve_bytes", [](const PyAssumptions& a) { return a.a.runtime_reserve.in(bytes); })
        .def_property_readonly("activation_workspace", [](const PyAssumptions& a) { return a.a.activation_workspace; })
        .def_property_readonly("fallback_link_latency_s", [](const PyAssumptions& a) { return a.a.fallback_link_latency.in(seconds); },
                               "The latency charged a ring step on a link whose preset gives none and the deployment sets none")
        // Another type is not equal (Python's convention), rather than a TypeError.
        .def("__eq__", [](const PyAssumptions& a, const py::object& b) {
            return py::isinstance<PyAssumptions>(b) && a.a == b.cast<const PyAssumptions&>().a;
        })
        .def("__repr__", [](const PyAssumptions& a) { return std::string("<ridgeline.Assumptions ") + assumptions_name(a.a) + ">"; });

    py::class_<PyWorkload>(m, "Workload",
                           "A workload: Workload(batch=1, context=0, **settings) with the answers' workload keywords (weights, kv, "
                           "compute, embeddings, experts, attention, lm_head, router_and_norms, efficiency, overhead_s, assumptions, accounting, attention_flops, "
                           "memory_fraction, runtime_reserve_bytes). Pass it to an answer as workload=.")
        .def(py::init(&make_workload), py::arg("batch") = 1, py::arg("context") = 0)
        .def_property_readonly("batch", [](const PyWorkload& w) { return w.spec.w.batch; })
        .def_property_readonly("context", [](const PyWorkload& w) { return w.spec.w.context; })
        .def_property_readonly("weights", [](const PyWorkload& w) -> std::optional<std::string> {
            return w.spec.weights_given ? std::optional<std::string>(format_name(w.spec.w.precision.weights)) : std::nullopt;
        }, "The linear layers' and experts' format (the embeddings and LM head stay the checkpoint's), or None: the checkpoint's")
        .def_property_readonly("kv", [](const PyWorkload& w) { return format_name(w.spec.w.precision.kv); })
        // None where not given: each device then computes in its default_compute (fp16 on a V100).
        .def_property_readonly("compute", [](const PyWorkload& w) -> py::object {
            if (!w.spec.compute_given) return py::none();
            return py::str(std::string(name_of(w.spec.w.precision.compute)));
        })
        .def_property_readonly("experts", [](const PyWorkload& w) -> std::optional<std::string> {
            return w.spec.experts_given ? std::optional<std::string>(format_name(w.spec.w.precision.expert_format())) : std::nullopt;
        })
        .def_property_readonly("attention", [](const PyWorkload& w) -> std::optional<std::string> {
            return w.spec.attention_given ? std::optional<std::string>(format_name(w.spec.w.precision.attention_format())) : std::nullopt;
        })
        .def_property_readonly("embeddings", [](const PyWorkload& w) -> std::optional<std::string> {
            return w.spec.embeddings_given ? std::optional<std::string>(format_name(w.spec.w.precision.embedding_format())) : std::nullopt;
        })
        .def_property_readonly("lm_head", [](const PyWorkload& w) -> std::optional<std::string> {
            return w.spec.lm_head_given ? std::optional<std::string>(format_name(w.spec.w.precision.lm_head_format())) : std::nullopt;
        })
        .def_property_readonly("router_and_norms", [](const PyWorkload& w) -> std::optional<std::string> {
            return w.spec.router_and_norms_given ? std::optional<std::string>(format_name(w.spec.w.precision.router_and_norm_format()))
                                                 : std::nullopt;
        })
        .def_property_readonly("efficiency", [](const PyWorkload& w) { return w.spec.w.efficiency.bandwidth; })
        .def_property_readonly("overhead_s", [](const PyWorkload& w) { return w.spec.w.efficiency.overhead.in(seconds); })
        .def_property_readonly("assumptions", [](const PyWorkload& w) { return PyAssumptions{w.spec.w.assumptions}; })
        .def("__repr__", [](const PyWorkload& w) {
            return "<ridgeline.Workload batch " + std::to_string(w.spec.w.batch) + ", context " + std::to_string(w.spec.w.context) + ">";
        });

    py::class_<PyDeployment>(m, "Deployment",
                             "A device and how the model is split: Deployment(hardware, tp=1, pp=1, ep=1, dp=1, attention_dp=1 (or 'tp': one "
                             "attention rank a device; divides tp), link_latency_s=None, "
                             "link_bandwidth_bytes_per_s=None: the link the preset lacks, a PCIe card's or the network past an NVLink domain "
                             "without a scale-out figure; both directions, per device). "
                             "Pass it to an answer as hardware.")
        .def(py::init(&make_deployment), py::arg("hardware"))
        .def_property_readonly("hardware", [](const PyDeployment& d) { return d.device; })
        .def_property_readonly("tp", [](const PyDeployment& d) { return d.par.tensor; })
        .def_property_readonly("pp", [](const PyDeployment& d) { return d.par.pipeline; })
        .def_property_readonly("ep", [](const PyDeployment& d) { return d.par.expert; })
        .def_property_readonly("dp", [](const PyDeployment& d) { return d.par.data; })
        .def_property_readonly("attention_dp", [](const PyDeployment& d) { return d.par.attention_data; })
        .def_property_readonly("devices", [](const PyDeployment& d) { return d.par.devices(); })
        .def_property_readonly("link_latency_s", [](const PyDeployment& d) -> std::optional<double> {
            return d.par.link_latency ? std::optional<double>(d.par.link_latency->in(seconds)) : std::nullopt;
        })
        .def_property_readonly("link_bandwidth_bytes_per_s", [](const PyDeployment& d) -> std::optional<double> {
            return d.par.link_bandwidth ? std::optional<double>(d.par.link_bandwidth->in(bytes_per_s)) : std::nullopt;
        })
        .def("__repr__", [](const PyDeployment& d) {
            return text_of("<ridgeline.Deployment " + d.device.name + " tp " + std::to_string(d.par.tensor) + " pp " + std::to_string(d.par.pipeline) +
                   " ep " + std::to_string(d.par.expert) + " dp " + std::to_string(d.par.data) +
                   (d.par.attention_data > 1 ? " attention_dp " + std::to_string(d.par.attention_data) : std::string()) + ">");
        });

    m.def("load_hardware", &load_hardware_py, py::arg("name_or_path"), "A hardware preset (data/hardware) by name, or a hardware JSON file");
    m.def("load_model", &load_model_py, py::arg("name_or_path"),
          "A model preset (data/models) by name, or a config.json or checkpoint directory, with its storage formats");
    m.def("list_hardware", [] { return list_presets(PresetKind::hardware); }, "The hardware presets' names");
    m.def("list_models", [] { return list_presets(PresetKind::model); }, "The model presets' names");
    m.def("list_efficiency", [] { return list_presets(PresetKind::efficiency); }, "The engine-and-device efficiency presets' names");
    m.def("list_drafts", [] { return list_presets(PresetKind::draft_head); }, "The EAGLE-3 draft-head presets' names (speculative's draft)");
    m.def("list_presets", [](const std::string& kind) {
        if (kind != "hardware" && kind != "models" && kind != "drafts" && kind != "efficiency")
            throw ridgeline::error("", "kind", kind, "hardware, models, drafts or efficiency");
        return to_python(cli::list_table(kind).json());
    }, py::arg("kind"), "The rows `ridgeline list hardware|models|drafts|efficiency --format json` prints");
    m.def("show",
          [](const py::object& target) {
              // A name or a path (str or os.PathLike), as every other function takes a preset.
              const std::optional<std::string> name = path_arg(target, "target");
              if (!name) throw py::type_error("show(): target must be a preset name or a file (str or os.PathLike)" + Kwargs::got_text(target));
              return to_python(cli::show_table(*name).json());
          },
          py::arg("target"),
          "A preset or file with its derived figures: what `ridgeline show TARGET --format json` prints");
    m.def("model_formats", [](const py::object& model) { return to_python(cli::model_formats_table(model_of(model)).json()); },
          py::arg("model"), "Parameters, weight bytes per format and KV per token: what `ridgeline model -m MODEL --format json` prints");

    const std::string settings =
        " Settings (keyword only, as the CLI's flags, in SI units): tp, pp, ep, dp, attention_dp (an integer, or 'tp': one attention rank a device), link_latency_s, link_bandwidth_bytes_per_s (or hardware as a ridgeline.Deployment); "
        "weights (default: the checkpoint's), kv, compute, embeddings, experts, lm_head, router_and_norms, efficiency, overhead_s, assumptions ('physical', "
        "'seed_003' or a ridgeline.Assumptions), accounting ('read' or 'every'), attention_flops (bool), memory_fraction, "
        "runtime_reserve_bytes (or workload=ridgeline.Workload(...), whose batch and context are the defaults); max_context.";
    const auto doc = [&](const char* what) { return std::string(what) + settings; };
    // diagnose and predict refuse efficiency and overhead_s (the ceiling, or the calibration's):
    // their settings say so rather than list them (a review found them listed).
    const auto doc_without_times = [&](const char* what, const char* why) {
        std::string text = std::string(what) + settings;
        const std::string listed = "router_and_norms, efficiency, overhead_s, assumptions";
        if (const auto at = text.find(listed); at != std::string::npos)
            text.replace(at, listed.size(), std::string("router_and_norms, assumptions"));
        return text + " Not efficiency or overhead_s: " + why;
    };
    m.def("decode", &decode_py, py::arg("model"), py::arg("hardware"), py::arg("batch") = py::none(), py::arg("context") = py::none(),
          doc("One decode step: the row `ridgeline decode --format json` prints.").c_str());
    m.def("ridge", &ridge_py, py::arg("model"), py::arg("hardware"), py::arg("context") = py::none(),
          doc("The ridge batch at a context (None: never) and n* (None: none): the row `ridgeline ridge` prints.").c_str());
    m.def("n_star", &n_star_py, py::arg("model"), py::arg("hardware"),
          doc("n*, the context past which no batch is compute-bound, in tokens (None: none).").c_str());
    m.def("capacity", &capacity_py, py::arg("model"), py::arg("hardware"), py::arg("batch") = py::none(), py::arg("context") = py::none(),
          doc("Largest batch at a context, longest context at a batch: the row `ridgeline capacity` prints.").c_str());
    m.def("generate", &generate_py, py::arg("model"), py::arg("hardware"), py::arg("batch") = py::none(), py::arg("prompt") = 0,
          py::arg("new_tokens") = 128, py::arg("chunk") = 0,
          doc("A whole generation, prefill then decode with the KV growing: the row `ridgeline generate` prints.").c_str());
    m.def("prefill", &prefill_py, py::arg("model"), py::arg("hardware"), py::arg("prompt"), py::arg("batch") = py::none(),
          py::arg("chunk") = 0, py::arg("cached") = 0,
          doc("Prefill of a prompt (in chunks of `chunk` tokens, 0: whole; `cached` tokens already in the cache): the time to first "
              "token. The row follows the CLI's conventions.").c_str());
    m.def("speculative", &speculative_py, py::arg("model"), py::arg("hardware"), py::arg("batch") = py::none(),
          py::arg("context") = py::none(), py::arg("draft_tokens") = 4, py::arg("acceptance") = py::none(), py::arg("draft") = py::none(),
          doc("Speculative decoding: g drafted tokens accepted each with probability a (acceptance, default 0.8), verified in one "
              "pass; or a tree of them (keywords tree_width, SGLang's topk, and verify_tokens, its num_draft_tokens) with the mean "
              "tokens a verification accepts (keyword accept_length, instead of acceptance; a tree needs it); draft: a draft model "
              "with the target's vocabulary, an EAGLE-3 head (a preset, list_drafts(), or its config.json), or \"mtp\" for the "
              "model's own multi-token-prediction modules (else the draft is free), split draft_tp ways (keyword; default 0: the target's "
              "tensor-parallel degree, as vLLM; 1: one device). memory_per_device_bytes and fits count the draft's weights and KV "
              "beside the target's. The row `ridgeline speculative --format json` prints.").c_str());
    m.def("operators", &operators_py, py::arg("model"), py::arg("hardware"), py::arg("batch") = py::none(), py::arg("context") = py::none(),
          doc("The decode step per operator, per device: a list of rows, as `ridgeline operators --format json` prints them.").c_str());
    m.def("diagnose", &diagnose_py, py::arg("model"), py::arg("hardware"), py::arg("batch") = py::none(), py::arg("context") = py::none(),
          doc_without_times("From a measurement (keyword measured_tokens_per_s or measured_tpot_s; draft_tokens, default 4): the record "
                            "`ridgeline diagnose --format json` prints.",
                            "diagnose measures the gap to the ceiling.").c_str());
    m.def("predict", &predict_py, py::arg("model"), py::arg("hardware") = py::none(), py::arg("batch") = py::none(), py::arg("context") = py::none(),
          doc_without_times("A step time with an efficiency preset (keyword calibration: a name in data/efficiency, a file, or the dict "
                            "calibrate() returns as 'preset'), with its range: the record `ridgeline predict --format json` prints. "
                            "hardware defaults to the device the calibration was fitted on, as the CLI's -H.",
                            "the calibration gives them.").c_str());
    m.def("calibrate", &calibrate_py, py::arg("measurements"),
          "Fit the overhead model to measurements (a name in data/measurements or a file); keywords hardware, engine, model, where "
          "(dict or list of 'KEY=VALUE'), per_layer, per_moe_layer, per_sequence, per_message, hold_compute, fit_compute, activations_on_chip. Returns {'rows': the rows `ridgeline calibrate --format json` prints, 'preset': the "
          "efficiency preset `--save` writes}, and 'leave_one_out_not_run' saying why where it was not run (past 500 rows).");
    m.def("plan", &plan_py, py::arg("model"),
          "The planner, as `ridgeline plan --format json`: keywords hardware (list of preset names; default all, or calibration's devices), prompt, output, "
          "cached_prompt, chunk, users or requests_per_s, tpot_s, ttft_s, itl_s (on the longest wait between two tokens), prices (dict device -> price per device-hour), "
          "max_devices, weights (list: 'checkpoint', the model's own formats, and formats; default ['checkpoint', 'fp8']), mode ('agg', 'apart', 'disagg', 'both', or a mix: 'agg,apart' or ['agg', 'apart']), kv, compute, efficiency, compute_efficiency, overhead_s, "
          "calibration (efficiency presets or files, one for each device: each device's terms, as --calibration; hardware defaults to their devices), "
          "memory_fraction, runtime_reserve_bytes, link_latency_s, link_bandwidth_bytes_per_s, max_context, top.");
    m.def("decode_sweep", &decode_sweep_py, py::arg("model"), py::arg("hardware"), py::arg("batches"), py::arg("contexts"),
          doc("Decode rows for every setting and every batch x context point, as a dict of numpy arrays under decode's keys "
              "(pandas.DataFrame takes it). model, hardware, weights, tp, pp and ep may each be a list: one setting per combination, "
              "in the order model, hardware, weights, tp, pp, ep (the CLI's), then batch-major points. columns: the keys to return, "
              "in that order (default: all, in decode's order).").c_str());
}
