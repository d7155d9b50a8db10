// ridgeline as a Python module, built from the same headers as the CLI: every number comes from
// the library, and each answer is a dict under the CLI's JSON keys (SI units, the unit in the
// key), so Python, the CLI and the page share one output schema. Settings are keyword
// arguments named as the CLI's flags, in SI units (overhead_s, not --overhead-us).
//
//     import ridgeline
//     ridgeline.decode("llama-3.1-8b", "h100-sxm", batch=64, context=4096)["step_time_s"]
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <ridgeline/generation.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/plan_json.hpp>
#include <ridgeline/ridgeline.hpp>

namespace py = pybind11;
using namespace ridgeline;

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
struct PyModel {
    Model model{};
    Precision precision{};
    std::string precision_source;
    std::string notes;
};

PyHardware hardware_of(const py::handle& h) {
    if (py::isinstance<PyHardware>(h)) return h.cast<PyHardware>();
    if (py::isinstance<py::str>(h)) {
        const auto name = h.cast<std::string>();
        return PyHardware{name, load_hardware(name)};
    }
    throw py::type_error("hardware: expected a ridgeline.Hardware or a preset name or path (str)");
}

PyModel model_of(const py::handle& m) {
    if (py::isinstance<PyModel>(m)) return m.cast<PyModel>();
    if (py::isinstance<py::str>(m)) {
        LoadedModel l = load_model_with_formats(m.cast<std::string>());
        return PyModel{l.model, l.precision, l.precision_source, l.notes};
    }
    throw py::type_error("model: expected a ridgeline.Model or a preset name or path (str)");
}

// A finite number for the output: a NaN or infinity is a bug upstream, never an answer.
double finite(double v) {
    if (!std::isfinite(v)) throw std::logic_error("ridgeline: a non-finite number reached the output");
    return v;
}

// ---------------------------------------------------------------------------------------------
// Settings: the CLI's workload flags as keyword arguments
// ---------------------------------------------------------------------------------------------

// Keyword arguments read one by one; whatever is left over is refused by name.
class Kwargs {
public:
    Kwargs(const char* function, const py::kwargs& kw) : function_(function) {
        for (const auto& item : kw) left_.push_back(item.first.cast<std::string>());
        kw_ = kw;
    }
    [[nodiscard]] py::object take(const char* key) {
        std::erase(left_, std::string(key));
        if (!kw_.contains(key)) return py::none();
        return kw_[key];
    }
    std::int64_t integer(const char* key, std::int64_t fallback) {
        const py::object v = take(key);
        return v.is_none() ? fallback : as_integer(key, v);
    }
    std::optional<std::int64_t> optional_integer(const char* key) {
        const py::object v = take(key);
        if (v.is_none()) return std::nullopt;
        return as_integer(key, v);
    }
    double number(const char* key, double fallback) {
        const py::object v = take(key);
        return v.is_none() ? fallback : as_number(key, v);
    }
    std::optional<double> optional_number(const char* key) {
        const py::object v = take(key);
        if (v.is_none()) return std::nullopt;
        return as_number(key, v);
    }
    std::optional<std::string> optional_text(const char* key) {
        const py::object v = take(key);
        if (v.is_none()) return std::nullopt;
        if (!py::isinstance<py::str>(v)) throw py::type_error(std::string(function_) + "(): " + key + " must be a str");
        return v.cast<std::string>();
    }
    std::string text(const char* key, const char* fallback) { return optional_text(key).value_or(fallback); }
    std::optional<bool> optional_flag(const char* key) {
        const py::object v = take(key);
        if (v.is_none()) return std::nullopt;
        if (!py::isinstance<py::bool_>(v)) throw py::type_error(std::string(function_) + "(): " + key + " must be a bool");
        return v.cast<bool>();
    }
    // Call last: an unknown keyword is a TypeError, as for any Python function.
    void done() const {
        if (!left_.empty())
            throw py::type_error(std::string(function_) + "() got an unexpected keyword argument '" + left_.front() + "'");
    }

private:
    std::int64_t as_integer(const char* key, const py::object& v) const {
        if (py::isinstance<py::bool_>(v) || !py::hasattr(v, "__index__"))
            throw py::type_error(std::string(function_) + "(): " + key + " must be an integer");
        return py::int_(v).cast<std::int64_t>();
    }
    double as_number(const char* key, const py::object& v) const {
        if (py::isinstance<py::bool_>(v) || !(py::isinstance<py::float_>(v) || py::hasattr(v, "__index__") || py::hasattr(v, "__float__")))
            throw py::type_error(std::string(function_) + "(): " + key + " must be a number");
        return py::float_(v).cast<double>();
    }
    const char* function_;
    py::kwargs kw_;
    std::vector<std::string> left_;
};

Format format_arg(const char* what, const std::string& s) {
    const auto f = parse_format(s);
    if (!f)
        throw ridgeline::error("", what, s,
                               "a format: fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or a grouped one such as int4/g128");
    return *f;
}
Numeric numeric_arg(const char* what, const std::string& s) {
    const auto n = numeric_from_name(s);
    if (!n) throw ridgeline::error("", what, s, "a compute format: fp32, bf16, fp16, fp8, int8, int4, fp4");
    return *n;
}

// One setting resolved as the CLI's resolve() does it: what every row echoes and computes from.
struct Setting {
    std::string hardware_name;
    Hardware hw{};
    Model m{};
    Deployment dep{};
    Workload base{};
    std::string formats_source;
};

// The workload keywords every question takes (decode, ridge, capacity, generate, decode_sweep).
Setting resolve(const py::handle& model, const py::handle& hardware, Kwargs& k) {
    Setting s;
    const auto weights = k.optional_text("weights"), embeddings = k.optional_text("embeddings"), experts = k.optional_text("experts");
    const auto lm_head = k.optional_text("lm_head");
    Parallelism par{.tensor = k.integer("tp", 1), .pipeline = k.integer("pp", 1), .expert = k.integer("ep", 1), .data = k.integer("dp", 1)};
    if (const auto l = k.optional_number("link_latency_s")) par.link_latency = ridgeline::s(*l);
    Workload& w = s.base;
    if (weights) w.precision.weights = format_arg("weights", *weights);
    w.precision.kv = format_arg("kv", k.text("kv", "bf16"));
    w.precision.compute = numeric_arg("compute", k.text("compute", "bf16"));
    if (embeddings) w.precision.embeddings = format_arg("embeddings", *embeddings);
    if (experts) w.precision.experts = format_arg("experts", *experts);
    if (lm_head) w.precision.lm_head = format_arg("lm_head", *lm_head);
    w.efficiency.bandwidth = k.number("efficiency", 1.0);
    w.efficiency.overhead = ridgeline::s(k.number("overhead_s", 0.0));
    const std::string a_name = k.text("assumptions", "physical");
    if (a_name != "physical" && a_name != "seed_003") throw ridgeline::error("", "assumptions", a_name, "physical or seed_003");
    Assumptions& a = w.assumptions;
    a = a_name == "seed_003" ? assumptions::seed_003 : assumptions::physical;
    if (const auto acc = k.optional_text("accounting")) {
        if (*acc != "read" && *acc != "every") throw ridgeline::error("", "accounting", *acc, "read or every");
        a.accounting = *acc == "read" ? WeightAccounting::bytes_read : WeightAccounting::every_parameter;
    }
    if (const auto f = k.optional_flag("attention_flops")) a.attention_flops = *f;
    if (const auto f = k.optional_number("memory_fraction")) a.memory_fraction = *f;
    if (const auto r = k.optional_number("runtime_reserve_bytes")) a.runtime_reserve = bytes(*r);
    const auto max_ctx = k.optional_integer("max_context");
    validate(w);  // every setting is checked before any file is read
    validate(par);

    const PyHardware h = hardware_of(hardware);
    s.hardware_name = h.name;
    s.hw = h.hw;
    const PyModel pm = model_of(model);
    s.m = pm.model;
    if (!weights) {
        w.precision.weights = pm.precision.weights;
        if (!experts) w.precision.experts = pm.precision.experts;
        if (!embeddings) w.precision.embeddings = pm.precision.embeddings;
        if (!lm_head) w.precision.lm_head = pm.precision.lm_head;
        s.formats_source = "the checkpoint: " + pm.precision_source;
    } else {
        s.formats_source = "--weights";  // as the CLI records it: rows are the same in both
    }
    if (max_ctx) {
        if (*max_ctx < 1 || *max_ctx > (std::int64_t{1} << 40))
            throw ridgeline::error("", "max_context", std::to_string(*max_ctx), "an integer from 1 to 2^40");
        s.m.max_context = *max_ctx;
    }
    s.dep = Deployment{s.hw, par};
    if (s.m.group_count > 0) validate(s.dep, s.m);
    return s;
}

// The inputs every row echoes, under the CLI's keys (examples/ridgeline/main.cpp input_columns).
py::dict input_row(const Setting& s) {
    const Precision& p = s.base.precision;
    const Assumptions& a = s.base.assumptions;
    const Parallelism& par = s.dep.parallel;
    py::dict d;
    d["hardware"] = s.hardware_name;
    d["model"] = std::string(s.m.name.view());
    d["weights"] = format_name(p.weights);
    d["kv"] = format_name(p.kv);
    d["compute"] = std::string(name_of(p.compute));
    d["tp"] = par.tensor;
    d["pp"] = par.pipeline;
    d["ep"] = par.expert;
    d["dp"] = par.data;
    d["assumptions"] = assumptions_name(a);
    d["accounting"] = a.accounting == WeightAccounting::bytes_read ? "bytes_read" : "every_parameter";
    d["attention_flops"] = a.attention_flops;
    d["embedding_lookup_flops"] = a.embedding_lookup_flops;
    d["memory_fraction"] = finite(a.memory_fraction);
    d["runtime_reserve_bytes"] = finite(a.runtime_reserve.in(ridgeline::bytes));
    d["experts"] = format_name(p.expert_format());
    d["embeddings"] = format_name(p.embedding_format());
    d["lm_head"] = format_name(p.lm_head_format());
    d["formats_source"] = s.formats_source;
    return d;
}

constexpr auto seconds = ridgeline::s;

// ---------------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------------

py::dict decode_py(const py::object& model, const py::object& hardware, std::int64_t batch, std::int64_t context, const py::kwargs& kw) {
    Kwargs k("decode", kw);
    const Setting s = resolve(model, hardware, k);
    k.done();
    Workload w = s.base;
    w.batch = batch;
    w.context = context;
    const DecodeStep d = decode_step(s.dep, s.m, w);
    py::dict r = input_row(s);
    r["batch"] = batch;
    r["context_tokens"] = context;
    r["weight_bytes"] = finite(d.weight_bytes.in(bytes));
    r["kv_bytes"] = finite(d.kv_bytes.in(bytes));
    r["bytes_per_step"] = finite(d.total_bytes.in(bytes));
    r["step_time_s"] = finite(d.step_time.in(seconds));
    r["tokens_per_s"] = finite(d.tokens_per_s.in(per_s));
    r["total_tokens_per_s"] = finite(d.total_tokens_per_s.in(per_s));
    r["bound"] = name_of(d.bound);
    r["arithmetic_intensity_flop_per_byte"] = finite(d.arithmetic_intensity.in(flop_per_byte));
    r["communication_time_s"] = finite(d.communication_time.in(seconds));
    r["memory_per_device_bytes"] = finite(d.memory.used().in(bytes));
    r["memory_budget_bytes"] = finite(d.memory.budget.in(bytes));
    r["fits"] = d.memory.fits();
    return r;
}

py::dict ridge_py(const py::object& model, const py::object& hardware, std::int64_t context, const py::kwargs& kw) {
    Kwargs k("ridge", kw);
    const Setting s = resolve(model, hardware, k);
    k.done();
    const auto nstar = n_star(s.dep, s.m, s.base);
    Workload w = s.base;
    w.context = context;
    const RidgeBatch rb = ridge_batch(s.dep, s.m, w);
    py::dict r = input_row(s);
    r["context_tokens"] = context;
    r["ridge_batch"] = rb.is_never() ? py::object(py::none()) : py::object(py::float_(finite(rb.value())));
    r["n_star_tokens"] = nstar ? py::object(py::float_(finite(*nstar))) : py::object(py::none());
    return r;
}

py::dict capacity_py(const py::object& model, const py::object& hardware, std::int64_t batch, std::int64_t context, const py::kwargs& kw) {
    Kwargs k("capacity", kw);
    const Setting s = resolve(model, hardware, k);
    k.done();
    const MemoryUse budget = memory_budget(s.hw, s.base.assumptions);
    const Bytes weights = weights_per_device(s.m, s.base.precision, s.dep.parallel);
    const bool weights_fit = weights <= budget.budget;
    const auto largest = context > 0 ? largest_batch(s.dep, s.m, s.base, context) : std::nullopt;
    const ContextFit longest = longest_context(s.dep, s.m, s.base, batch);
    py::dict r = input_row(s);
    r["memory_reported_bytes"] = finite(budget.capacity.in(bytes));
    r["memory_budget_bytes"] = finite(budget.budget.in(bytes));
    r["weights_per_device_bytes"] = finite(weights.in(bytes));
    r["weights_fit"] = weights_fit;
    r["context_tokens"] = context;
    if (largest) {
        const std::int64_t fit = *largest;
        r["largest_batch"] = fit;
        r["sequences"] = finite(static_cast<double>(fit) * static_cast<double>(s.dep.parallel.data));
        r["kv_tokens_held"] = finite(static_cast<double>(fit) * static_cast<double>(context));
    } else {
        r["largest_batch"] = py::none();
        r["sequences"] = py::none();
        r["kv_tokens_held"] = py::none();
    }
    r["batch"] = batch;
    if (longest.is_unbounded()) r["longest_context_tokens"] = "unbounded";
    else if (longest.fits()) r["longest_context_tokens"] = longest.tokens();
    else r["longest_context_tokens"] = py::none();
    return r;
}

py::dict generate_py(const py::object& model, const py::object& hardware, std::int64_t batch, std::int64_t prompt, std::int64_t new_tokens,
                     std::int64_t chunk, const py::kwargs& kw) {
    Kwargs k("generate", kw);
    const Setting s = resolve(model, hardware, k);
    k.done();
    if (chunk < 0 || chunk > 100'000'000) throw ridgeline::error("", "chunk", std::to_string(chunk), "an integer from 0 to 100000000");
    // Prefill chunks are computed one by one: the CLI's bound on them, for one batch.
    if (prompt > 0 && chunk > 0 && (prompt + chunk - 1) / chunk > 10'000'000)
        throw ridgeline::error("", "chunk", std::to_string(chunk), "a chunk giving at most 10,000,000 prefill steps");
    Workload w = s.base;
    w.batch = batch;
    const Generation g = generate(s.dep, s.m, w, prompt, new_tokens, chunk);
    py::dict r = input_row(s);
    r["batch"] = batch;
    r["prompt_tokens"] = prompt;
    r["new_tokens"] = new_tokens;
    r["time_to_first_token_s"] = finite(g.time_to_first_token.in(seconds));
    r["decode_time_s"] = finite(g.decode_time.in(seconds));
    r["total_time_s"] = finite(g.total_time.in(seconds));
    r["decode_tokens_per_s"] = finite(g.decode_tokens_per_s.in(per_s));
    r["compute_bound_steps"] = g.compute_bound_steps;
    r["memory_per_device_bytes"] = finite(g.memory.used().in(bytes));
    r["memory_budget_bytes"] = finite(g.memory.budget.in(bytes));
    r["fits"] = g.memory.fits();
    return r;
}

// nlohmann's JSON as Python objects: dicts keep their order, integers stay int.
py::object to_python(const nlohmann::ordered_json& j) {
    switch (j.type()) {
        case nlohmann::ordered_json::value_t::null: return py::none();
        case nlohmann::ordered_json::value_t::boolean: return py::bool_(j.get<bool>());
        case nlohmann::ordered_json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
        case nlohmann::ordered_json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
        case nlohmann::ordered_json::value_t::number_float: return py::float_(finite(j.get<double>()));
        case nlohmann::ordered_json::value_t::string: return py::str(j.get<std::string>());
        case nlohmann::ordered_json::value_t::array: {
            py::list l;
            for (const auto& e : j) l.append(to_python(e));
            return l;
        }
        case nlohmann::ordered_json::value_t::object: {
            py::dict d;
            for (const auto& [key, value] : j.items()) d[py::str(key)] = to_python(value);
            return d;
        }
        default: break;
    }
    throw std::logic_error("ridgeline: a JSON value of an unexpected type");
}

std::vector<std::string> names_of(const py::handle& v, const char* what) {
    std::vector<std::string> out;
    if (py::isinstance<py::str>(v)) {
        out.push_back(v.cast<std::string>());
        return out;
    }
    for (const auto& item : v) {
        if (!py::isinstance<py::str>(item)) throw py::type_error(std::string("plan(): ") + what + " must be a str or a list of str");
        out.push_back(item.cast<std::string>());
    }
    return out;
}

// The planner, as `ridgeline plan --format json` prints it (plan_json.hpp).
py::object plan_py(const py::object& model, const py::kwargs& kw) {
    Kwargs k("plan", kw);
    PlanRequest r;
    r.traffic.prompt = k.integer("prompt", 1024);
    r.traffic.output = k.integer("output", 256);
    r.traffic.cached_prompt = k.integer("cached_prompt", 0);
    r.traffic.prefill_chunk = k.integer("chunk", 2048);
    r.users = k.optional_number("users");
    r.requests_per_s = k.optional_number("requests_per_s");
    if (r.users.has_value() == r.requests_per_s.has_value())
        throw ridgeline::error("", "users", r.users ? number_text(*r.users) : "none", "exactly one of users and requests_per_s");
    if (const auto t = k.optional_number("tpot_s")) r.tpot_target = seconds(*t);
    if (const auto t = k.optional_number("ttft_s")) r.ttft_target = seconds(*t);
    r.max_devices = k.integer("max_devices", 64);
    const std::int64_t top = k.integer("top", 20);
    if (top < 1) throw ridgeline::error("", "top", std::to_string(top), "an integer from 1");
    if (const py::object wl = k.take("weights"); !wl.is_none()) {
        r.weights.clear();
        for (const auto& f : names_of(wl, "weights")) r.weights.push_back(format_arg("weights", f));
    }
    const std::string mode = k.text("mode", "both");
    if (mode == "agg") r.modes = {ServingMode::aggregated};
    else if (mode == "disagg") r.modes = {ServingMode::disaggregated};
    else if (mode != "both") throw ridgeline::error("", "mode", mode, "agg, disagg or both");
    Workload& w = r.base;
    w.precision.kv = format_arg("kv", k.text("kv", "bf16"));
    w.precision.compute = numeric_arg("compute", k.text("compute", "bf16"));
    w.efficiency.bandwidth = k.number("efficiency", 1.0);
    w.efficiency.overhead = seconds(k.number("overhead_s", 0.0));
    if (const auto f = k.optional_number("memory_fraction")) w.assumptions.memory_fraction = *f;
    if (const auto b = k.optional_number("runtime_reserve_bytes")) w.assumptions.runtime_reserve = bytes(*b);
    if (const auto l = k.optional_number("link_latency_s")) r.links.link_latency = seconds(*l);
    const py::object hw = k.take("hardware");
    const std::vector<std::string> names = hw.is_none() ? list_presets(PresetKind::hardware) : names_of(hw, "hardware");
    std::vector<std::pair<std::string, double>> prices;
    if (const py::object p = k.take("prices"); !p.is_none()) {
        if (!py::isinstance<py::dict>(p)) throw py::type_error("plan(): prices must be a dict of device name to price per device-hour");
        for (const auto& [name, price] : p.cast<py::dict>()) {
            const auto n = name.cast<std::string>();
            if (std::find(names.begin(), names.end(), n) == names.end())
                throw ridgeline::error("", "prices", n, "prices only for the devices of hardware");
            prices.emplace_back(n, price.cast<double>());
        }
    }
    k.done();
    validate(w);
    for (const auto& name : names) {
        std::optional<double> price;
        for (const auto& [n, v] : prices)
            if (n == name) price = v;
        r.devices.push_back({name, load_hardware(name), price});
    }
    r.model = model_of(model).model;
    const PlanResult result = plan(r);
    return to_python(plan_json(result, r.model, top));
}

// ---------------------------------------------------------------------------------------------
// The vectorised sweep
// ---------------------------------------------------------------------------------------------

// A 1-D integer array from any sequence numpy takes; floats are refused, not truncated.
py::array_t<std::int64_t> integers(const py::handle& v, const char* what) {
    const py::module_ np = py::module_::import("numpy");
    py::array a = np.attr("asarray")(v);
    const char kind = a.dtype().kind();
    if (kind != 'i' && kind != 'u' && !(a.size() == 0))
        throw py::type_error(std::string("decode_sweep(): ") + what + " must hold integers, got dtype " + py::str(a.dtype()).cast<std::string>());
    return np.attr("ravel")(a.attr("astype")("int64")).cast<py::array_t<std::int64_t>>();
}

// Every batch x context point (batch-major, as the CLI's decode rows), from one step_cost: the
// arithmetic of decode_step, term for term, so each point equals the scalar decode().
py::dict decode_sweep_py(const py::object& model, const py::object& hardware, const py::object& batches_in,
                         const py::object& contexts_in, const py::kwargs& kw) {
    Kwargs k("decode_sweep", kw);
    const Setting s = resolve(model, hardware, k);
    k.done();
    const py::array_t<std::int64_t> batches = integers(batches_in, "batches"), contexts = integers(contexts_in, "contexts");
    const auto nb = static_cast<std::size_t>(batches.size()), nc = static_cast<std::size_t>(contexts.size());
    if (nb != 0 && nc > std::size_t{100'000'000} / nb)
        throw ridgeline::error("", "batches x contexts", std::to_string(nb) + " x " + std::to_string(nc), "at most 100,000,000 points");
    const std::int64_t* b_in = batches.data();
    const std::int64_t* c_in = contexts.data();
    // Every value is checked first, with the library's own checks and messages.
    for (std::size_t i = 0; i < nb; ++i) {
        Workload w = s.base;
        w.batch = b_in[i];
        validate(w);
    }
    for (std::size_t j = 0; j < nc; ++j) {
        Workload w = s.base;
        w.context = c_in[j];
        validate(w);
        require_context_within(s.m, w.context, "context");
    }
    const std::size_t n = nb * nc;
    const auto shape = std::vector<py::ssize_t>{static_cast<py::ssize_t>(n)};
    py::array_t<std::int64_t> batch_out(shape), context_out(shape);
    py::array_t<double> weight_bytes(shape), kv_bytes(shape), total_bytes(shape), step_time(shape), tokens_per_s(shape),
        total_tokens_per_s(shape), intensity(shape), comm_time(shape), memory_used(shape), budget_out(shape);
    py::array_t<bool> compute_bound(shape), fits(shape);
    {
        struct Out {
            std::int64_t *batch, *context;
            double *weights, *kv, *total, *step, *tps, *total_tps, *ai, *comm, *used, *budget;
            bool *compute, *fits;
        } o{batch_out.mutable_data(), context_out.mutable_data(), weight_bytes.mutable_data(), kv_bytes.mutable_data(),
            total_bytes.mutable_data(), step_time.mutable_data(), tokens_per_s.mutable_data(), total_tokens_per_s.mutable_data(),
            intensity.mutable_data(), comm_time.mutable_data(), memory_used.mutable_data(), budget_out.mutable_data(),
            compute_bound.mutable_data(), fits.mutable_data()};
        const std::vector<std::int64_t> bs(b_in, b_in + nb), cs(c_in, c_in + nc);
        py::gil_scoped_release no_gil;
        const Workload& base = s.base;
        const StepCost c = step_cost(s.m, base, s.dep.parallel);
        const Rates rates = effective_rates(s.hw, base);
        const auto devices = static_cast<double>(c.tensor * c.pipeline);
        const auto stages = static_cast<double>(c.pipeline);
        const auto q = static_cast<double>(base.tokens_per_sequence);
        const Seconds stage_overhead = base.efficiency.overhead + c.layers_per_stage * base.efficiency.per_layer;
        // Memory: the budget and the weights are the same at every point; the KV per sequence
        // depends on the context, the workspace on the batch.
        const MemoryUse budget = memory_budget(s.hw, base.assumptions);
        const Bytes resident = weights_per_device(s.m, base.precision, s.dep.parallel);
        const Bytes workspace = activation_bytes_per_token(s.m, s.dep.parallel);
        // Per context: one sequence's KV bytes and FLOPs, and its KV held per device.
        std::vector<Bytes> kv_n(nc), held_n(nc);
        std::vector<Flops> flops_n(nc);
        for (std::size_t j = 0; j < nc; ++j) {
            const auto ctx = static_cast<double>(cs[j]);
            kv_n[j] = c.kv_bytes(ctx);
            flops_n[j] = c.flops(ctx);
            held_n[j] = kv_per_sequence_per_device(s.m, base.precision.kv, static_cast<double>(cs[j] + base.tokens_per_sequence - 1),
                                                   s.dep.parallel);
        }
        std::size_t at = 0;
        for (std::size_t i = 0; i < nb; ++i) {
            const std::int64_t b = bs[i];
            const auto B = static_cast<double>(b);
            // Per batch: the weights read, and the links (their messages grow with the batch).
            const Bytes weights = c.weight_bytes(b);
            Workload wb = base;
            wb.batch = b;
            const Communication links = communication(s.dep, s.m, wb, c);
            const Seconds communication_time = stages * links.per_stage + links.pipeline_hops;
            Bytes activations{};
            if (base.assumptions.activation_workspace) activations = static_cast<double>(b * base.tokens_per_sequence) * workspace;
            for (std::size_t j = 0; j < nc; ++j, ++at) {
                const Bytes kv = B * kv_n[j];
                const Bytes weight_total = devices * weights, kv_total = devices * kv;
                const Bytes total = weight_total + kv_total;
                const Flops flops = devices * (B * flops_n[j]);
                const Seconds memory_time = (weights + B * kv_n[j]) / rates.bandwidth;
                const Seconds compute_time = B * flops_n[j] / rates.peak;
                const bool compute = compute_time > memory_time;
                Pipeline one;
                one.add((compute ? compute_time : memory_time) + links.per_stage + stage_overhead, links.pipeline_hops);
                const Seconds step = one.time(c.pipeline);
                MemoryUse u = budget;
                u.weights = resident;
                u.kv = static_cast<double>(b * s.dep.parallel.pipeline) * held_n[j];
                u.activations = activations;
                o.batch[at] = b;
                o.context[at] = cs[j];
                o.weights[at] = weight_total.in(bytes);
                o.kv[at] = kv_total.in(bytes);
                o.total[at] = total.in(bytes);
                o.step[at] = step.in(seconds);
                o.tps[at] = (q / step).in(per_s);
                o.total_tps[at] = (static_cast<double>(s.dep.parallel.data) * stages * B * q / step).in(per_s);
                o.ai[at] = (flops / total).in(flop_per_byte);
                o.comm[at] = communication_time.in(seconds);
                o.used[at] = u.used().in(bytes);
                o.budget[at] = u.budget.in(bytes);
                o.compute[at] = compute;
                o.fits[at] = u.fits();
            }
        }
        for (double* a : {o.weights, o.kv, o.total, o.step, o.tps, o.total_tps, o.ai, o.comm, o.used, o.budget})
            for (std::size_t i = 0; i < n; ++i)
                if (!std::isfinite(a[i])) throw std::logic_error("ridgeline: a non-finite number reached the output");
    }
    const py::module_ np = py::module_::import("numpy");
    py::dict r;
    r["batch"] = batch_out;
    r["context_tokens"] = context_out;
    r["weight_bytes"] = weight_bytes;
    r["kv_bytes"] = kv_bytes;
    r["bytes_per_step"] = total_bytes;
    r["step_time_s"] = step_time;
    r["tokens_per_s"] = tokens_per_s;
    r["total_tokens_per_s"] = total_tokens_per_s;
    r["bound"] = np.attr("where")(compute_bound, "compute", "memory");
    r["arithmetic_intensity_flop_per_byte"] = intensity;
    r["communication_time_s"] = comm_time;
    r["memory_per_device_bytes"] = memory_used;
    r["memory_budget_bytes"] = budget_out;
    r["fits"] = fits;
    return r;
}

}  // namespace

PYBIND11_MODULE(ridgeline, m) {
    m.doc() = "ridgeline: decode-speed arithmetic for LLMs on GPUs, from the C++ headers. Every answer is a dict under the "
              "CLI's JSON keys, in SI units with the unit in the key.";

    // ridgeline::error as ridgeline.Error (a ValueError) with the C++ error's parts.
    static py::exception<ridgeline::error> error_type(m, "Error", PyExc_ValueError);
    error_type.doc() = "Bad input: the message reads '<file>: <path>: got <value>, expected <expected>'; each part is an attribute.";
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const ridgeline::error& e) {
            py::object instance = py::reinterpret_borrow<py::object>(error_type.ptr())(e.what());
            instance.attr("file") = e.file();
            instance.attr("path") = e.path();
            instance.attr("value") = e.value();
            instance.attr("expected") = e.expected();
            PyErr_SetObject(error_type.ptr(), instance.ptr());
        }
    });

    py::class_<PyHardware>(m, "Hardware", "A device: a hardware preset or JSON file")
        .def_readonly("name", &PyHardware::name, "The name it was loaded by")
        .def_property_readonly("device", [](const PyHardware& h) { return std::string(h.hw.name.view()); })
        .def_property_readonly("memory_bytes", [](const PyHardware& h) { return h.hw.memory_capacity.in(bytes); })
        .def_property_readonly("memory_bandwidth_bytes_per_s", [](const PyHardware& h) { return h.hw.memory_bandwidth.in(bytes_per_s); })
        .def("dense_flop_per_s", [](const PyHardware& h, const std::string& format) -> std::optional<double> {
            const auto p = h.hw.peak_for(numeric_arg("format", format));
            return p ? std::optional<double>(p->in(flop_per_s)) : std::nullopt;
        }, py::arg("format") = "bf16", "The dense peak for a compute format, or None")
        .def("__repr__", [](const PyHardware& h) { return "<ridgeline.Hardware " + h.name + ": " + std::string(h.hw.name.view()) + ">"; });

    py::class_<PyModel>(m, "Model", "A model: a preset or a config.json, with its checkpoint's storage formats")
        .def_property_readonly("name", [](const PyModel& p) { return std::string(p.model.name.view()); })
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
        .def("with_parameters", [](const PyModel& p, double count) {
            if (!(count > 0 && std::isfinite(count))) throw ridgeline::error("", "parameters", number_text(count), "a positive count");
            PyModel out = p;
            out.model.with_parameters(count);
            return out;
        }, py::arg("count"), "A copy with a declared parameter count (seed 003 rounds Llama-3.1-8B to 8.03e9)")
        .def("with_max_context", [](const PyModel& p, std::int64_t tokens) {
            if (tokens < 1 || tokens > (std::int64_t{1} << 40))
                throw ridgeline::error("", "max_context", std::to_string(tokens), "an integer from 1 to 2^40");
            PyModel out = p;
            out.model.with_max_context(tokens);
            return out;
        }, py::arg("tokens"), "A copy with another context limit")
        .def("__repr__", [](const PyModel& p) { return "<ridgeline.Model " + std::string(p.model.name.view()) + ">"; });

    m.def("load_hardware", [](const std::string& name) { return PyHardware{name, load_hardware(name)}; }, py::arg("name_or_path"),
          "A hardware preset (data/hardware) by name, or a hardware JSON file");
    m.def("load_model", [](const std::string& name) {
        LoadedModel l = load_model_with_formats(name);
        return PyModel{l.model, l.precision, l.precision_source, l.notes};
    }, py::arg("name_or_path"), "A model preset (data/models) by name, or a config.json or checkpoint directory, with its storage formats");
    m.def("list_hardware", [] { return list_presets(PresetKind::hardware); });
    m.def("list_models", [] { return list_presets(PresetKind::model); });

    const char* settings =
        "Settings (keyword only, as the CLI's flags, in SI units): tp, pp, ep, dp, weights (default: the checkpoint's), kv, "
        "compute, embeddings, experts, efficiency, overhead_s, link_latency_s, assumptions ('physical' or 'seed_003'), "
        "accounting ('read' or 'every'), attention_flops (bool), memory_fraction, runtime_reserve_bytes, max_context.";
    m.def("decode", &decode_py, py::arg("model"), py::arg("hardware"), py::arg("batch") = 1, py::arg("context") = 0,
          (std::string("One decode step: the row `ridgeline decode --format json` prints. ") + settings).c_str());
    m.def("ridge", &ridge_py, py::arg("model"), py::arg("hardware"), py::arg("context") = 0,
          (std::string("The ridge batch at a context (None: never) and n* (None: none). ") + settings).c_str());
    m.def("capacity", &capacity_py, py::arg("model"), py::arg("hardware"), py::arg("batch") = 1, py::arg("context") = 0,
          (std::string("Largest batch at a context, longest context at a batch. ") + settings).c_str());
    m.def("generate", &generate_py, py::arg("model"), py::arg("hardware"), py::arg("batch") = 1, py::arg("prompt") = 0,
          py::arg("new_tokens") = 128, py::arg("chunk") = 0,
          (std::string("A whole generation: prefill, then decode with the KV growing. ") + settings).c_str());
    m.def("plan", &plan_py, py::arg("model"),
          "The planner, as `ridgeline plan --format json`: keywords hardware (list of preset names; default all), prompt, output, "
          "cached_prompt, chunk, users or requests_per_s, tpot_s, ttft_s, prices (dict device -> price per device-hour), "
          "max_devices, weights (list), mode ('agg', 'disagg', 'both'), kv, compute, efficiency, overhead_s, memory_fraction, "
          "runtime_reserve_bytes, link_latency_s, top.");
    m.def("decode_sweep", &decode_sweep_py, py::arg("model"), py::arg("hardware"), py::arg("batches"), py::arg("contexts"),
          (std::string("Every batch x context point, batch-major, as a dict of numpy arrays under decode's keys (pandas.DataFrame "
                       "takes it). ") + settings).c_str());
}
