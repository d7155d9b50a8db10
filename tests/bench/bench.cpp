// ridgeline's speed: decode-step evaluations per second on one core, a 1,000,000-configuration
// sweep through the public API against a bare loop of the same two formulas over plain doubles,
// the same sweep as decode_sweep's columns (what the Python module's sweep computes), and the
// time to load every preset. Prints its figures; asserts nothing (tests/bench/compare.sh
// adds the Python comparison).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <ridgeline/decode_sweep.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/plan.hpp>
#include <ridgeline/ridgeline.hpp>

#include "sweep.hpp"

using namespace ridgeline;

namespace {

Format format_of(double bytes_per_weight) {
    if (bytes_per_weight == 2.0) return formats::bf16;
    if (bytes_per_weight == 1.0) return formats::fp8;
    if (bytes_per_weight == 0.5) return formats::int4;
    return block_scaled(Numeric::int4, 16, 128);
}

struct Loaded {
    std::vector<Hardware> devices;
    std::vector<Model> models;
};
const Loaded& loaded() {
    static const Loaded l = [] {
        Loaded x;
        for (const char* d : sweep::devices) x.devices.push_back(load_hardware(d));
        for (const char* m : sweep::models) x.models.push_back(load_model(m));
        return x;
    }();
    return l;
}

// One full decode_step (parameters derived, struct filled) per iteration.
void decode_step_full(benchmark::State& state) {
    const Hardware h = load_hardware("h100-sxm");
    const Model m = load_model("llama-3.1-8b");
    std::int64_t i = 0;
    for (auto _ : state) {
        const DecodeStep d = decode_step(h, m, Workload{.batch = 1 + (i & 255), .context = 4096 + (i & 1023)});
        benchmark::DoNotOptimize(d.step_time);
        ++i;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(decode_step_full);

// The sweep path: cost built once, then step time and ridge batch per (batch, context).
void decode_step_from_cost(benchmark::State& state) {
    const Hardware h = load_hardware("h100-sxm");
    const Model m = load_model("llama-3.1-8b");
    const StepCost c = step_cost(m, Workload{});
    const Rates r = effective_rates(h, Workload{});
    std::int64_t i = 0;
    for (auto _ : state) {
        const StepTimes t = step_times(c, r, 1 + (i & 255), 4096 + (i & 1023));
        benchmark::DoNotOptimize(t);
        ++i;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(decode_step_from_cost);

// 1,000,000 configurations through the public API: tok/s and the ridge batch for each.
void sweep_public_api(benchmark::State& state) {
    const Loaded& l = loaded();
    std::array<std::int64_t, sweep::batches> batches{};
    for (int i = 0; i < sweep::batches; ++i) batches[static_cast<std::size_t>(i)] = sweep::batch(i);
    std::array<double, sweep::batches> tok_s{};
    for (auto _ : state) {
        double sum = 0;
        for (const Model& m : l.models)
            for (const Hardware& h : l.devices)
                for (const double bpw : sweep::weight_bytes) {
                    const Workload w{.precision = {format_of(bpw), formats::bf16, Numeric::bf16}};
                    const StepCost c = step_cost(m, w);
                    const Rates r = effective_rates(h, w);
                    for (int j = 0; j < sweep::contexts; ++j) {
                        const std::int64_t n = sweep::context(j);
                        const RidgeBatch ridge = ridge_batch(c, r, n);
                        sum += ridge.exists() ? ridge.value() : 0.0;
                        tokens_per_s_over_batches(c, r, n, batches, tok_s);
                        benchmark::DoNotOptimize(tok_s.data());  // the results must be written
                        benchmark::ClobberMemory();
                    }
                }
        benchmark::DoNotOptimize(sum);
    }
    state.counters["configurations"] = static_cast<double>(sweep::configurations);
    state.SetItemsProcessed(state.iterations() * sweep::configurations);
}
BENCHMARK(sweep_public_api)->Unit(benchmark::kMillisecond);

// The floor: seed 003's decode_budget and ridge_batch over plain doubles, same grid.
void sweep_bare_loop(benchmark::State& state) {
    struct Dense {
        double params, kv_per_token;
    };
    std::vector<Dense> models;
    for (const Model& m : loaded().models) models.push_back({parameter_count(m), kv_bytes_per_token(m, formats::bf16).in(bytes)});
    std::array<double, sweep::batches> tok_s{};
    std::vector<std::pair<double, double>> devices;  // bandwidth, BF16 FLOP/s
    for (const Hardware& h : loaded().devices)
        devices.emplace_back(h.memory_bandwidth.in(bytes_per_s), h.require_peak(Numeric::bf16).in(flop_per_s));
    for (auto _ : state) {
        double sum = 0;
        for (const Dense& m : models)
            for (const auto& [bw, flops] : devices)
                for (const double bpw : sweep::weight_bytes)
                    for (int j = 0; j < sweep::contexts; ++j) {
                        const double n = static_cast<double>(sweep::context(j));
                        const double t_w = m.params * bpw / bw, t_k = m.kv_per_token * n / bw, t_c = 2 * m.params / flops;
                        sum += t_c > t_k ? t_w / (t_c - t_k) : 0.0;
                        for (int i = 0; i < sweep::batches; ++i) {
                            const double b = static_cast<double>(sweep::batch(i));
                            const double step = std::max((m.params * bpw + b * m.kv_per_token * n) / bw, b * 2 * m.params / flops);
                            tok_s[static_cast<std::size_t>(i)] = 1.0 / step;
                        }
                        benchmark::DoNotOptimize(tok_s.data());
                        benchmark::ClobberMemory();
                    }
        benchmark::DoNotOptimize(sum);
    }
    state.counters["configurations"] = static_cast<double>(sweep::configurations);
    state.SetItemsProcessed(state.iterations() * sweep::configurations);
}
BENCHMARK(sweep_bare_loop)->Unit(benchmark::kMillisecond);

// The same 1,000,000 configurations through decode_sweep (decode_sweep.hpp), into freshly
// allocated arrays of 1,000,000, as the Python module's decode_sweep does: tok/s alone
// (sweep_decode_tokens_per_s), then every column of a decode row's results
// (sweep_decode_columns). The C++ side of tests/bench/python_sweep.py's figures.
void sweep_decode(benchmark::State& state, bool every_column) {
    const Loaded& l = loaded();
    std::vector<std::int64_t> batches, contexts;
    for (int i = 0; i < sweep::batches; ++i) batches.push_back(sweep::batch(i));
    for (int j = 0; j < sweep::contexts; ++j) contexts.push_back(sweep::context(j));
    // The grid's contexts reach 29,400 tokens, past Llama 2's 4,096: decode_sweep checks the
    // model's limit (the public-API sweep above does not), so it is raised, as the Python side does.
    std::vector<Model> long_context = l.models;
    for (Model& m : long_context) m.with_max_context(32768);
    const auto n = static_cast<std::size_t>(sweep::configurations);
    const std::size_t points = batches.size() * contexts.size();
    for (auto _ : state) {
        // Uninitialised, as numpy.empty: the allocation is part of the work.
        std::vector<std::unique_ptr<double[]>> doubles;
        for (int c = 0; c < (every_column ? 10 : 1); ++c) doubles.push_back(std::make_unique_for_overwrite<double[]>(n));
        std::unique_ptr<bool[]> compute, fits;
        if (every_column) compute = std::make_unique_for_overwrite<bool[]>(n), fits = std::make_unique_for_overwrite<bool[]>(n);
        std::size_t at = 0;
        for (const Model& m : long_context)
            for (const Hardware& h : l.devices)
                for (const double bpw : sweep::weight_bytes) {
                    const Workload w{.precision = {format_of(bpw), formats::bf16, Numeric::bf16}};
                    const auto column = [&](int c) { return doubles[static_cast<std::size_t>(c)].get() + at; };
                    DecodeColumns out{.tokens_per_s = column(0)};
                    if (every_column)
                        out = DecodeColumns{column(0), column(1), column(2), column(3), column(4), column(5), compute.get() + at,
                                            column(6), column(7), column(8), column(9), fits.get() + at};
                    decode_sweep(Deployment{h}, m, w, batches, contexts, out);
                    at += points;
                }
        benchmark::DoNotOptimize(doubles.data());
        benchmark::ClobberMemory();
    }
    state.counters["configurations"] = static_cast<double>(sweep::configurations);
    state.SetItemsProcessed(state.iterations() * sweep::configurations);
}
BENCHMARK_CAPTURE(sweep_decode, tokens_per_s, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sweep_decode, columns, true)->Unit(benchmark::kMillisecond);

// The planner. One serving evaluation (a replica's TPOT, TTFT, memory and throughput for one
// deployment and batch) is the unit a plan search is made of.
void serve_one(benchmark::State& state) {
    const Deployment d{load_hardware("h200"), Parallelism{.tensor = 2}};
    const Model m = load_model("llama-3.1-70b");
    std::int64_t i = 0;
    for (auto _ : state) {
        Workload w;
        w.precision.weights = formats::fp8;
        w.batch = 1 + (i & 63);
        benchmark::DoNotOptimize(serve(d, m, w, Traffic{8192, 512, 7936}, ServingMode::aggregated).tpot);
        ++i;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(serve_one);

// A prefill's cost in chunks: Llama-3.1-8B on eight H100s at TP 8, a 131,000-token prompt in
// 1-token chunks (plan --chunk 1), so 131,000 chunks, each with its KV read, attention pairs and
// all-reduces. What depends only on a chunk's length is costed once (prefill.hpp).
void prefill_token_chunks(benchmark::State& state) {
    const Deployment d{load_hardware("h100-sxm"), Parallelism{.tensor = 8}};
    const Model m = load_model("llama-3.1-8b");
    for (auto _ : state) benchmark::DoNotOptimize(prefill(d, m, Workload{}, 131000, 1).time);
    state.SetItemsProcessed(state.iterations() * 131000);
}
BENCHMARK(prefill_token_chunks)->Unit(benchmark::kMillisecond);

// The default search: every device preset, up to 64 devices, every TP/PP/EP that divides, three
// weight formats, both serving modes, every power-of-two batch that fits, and the fewest replicas
// per deployment. `evaluations` says how many serve() calls that took.
PlanRequest default_search(const char* model) {
    PlanRequest r;
    r.model = load_model(model);
    for (const auto& name : list_presets(PresetKind::hardware)) r.devices.push_back({name, load_hardware(name), std::nullopt});
    r.traffic = Traffic{8192, 512, 7936};
    r.users = 64;
    r.tpot_target = ms(30);
    r.weights = {formats::bf16, formats::fp8, formats::int4};
    return r;
}
void plan_default_search(benchmark::State& state, const char* model) {
    const PlanRequest r = default_search(model);
    std::int64_t evaluations = 0;
    for (auto _ : state) {
        const PlanResult p = plan(r);
        evaluations = p.evaluated;
        benchmark::DoNotOptimize(p.plans.data());
    }
    state.counters["evaluations"] = static_cast<double>(evaluations);
    state.SetItemsProcessed(state.iterations() * evaluations);
}
BENCHMARK_CAPTURE(plan_default_search, llama_3_1_70b, "llama-3.1-70b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(plan_default_search, qwen3_30b_a3b, "qwen3-30b-a3b")->Unit(benchmark::kMillisecond);

// The floor for a search of that size: as many bare roofline steps (two formulas over doubles)
// as the search made serving evaluations, each of which sums a whole generation and a prefill.
void plan_bare_floor(benchmark::State& state) {
    const double params = 70.55e9, kv = 327680, bw = 4.8e12, peak = 989e12;
    const auto evaluations = state.range(0);
    for (auto _ : state) {
        double sum = 0;
        for (std::int64_t i = 0; i < evaluations; ++i) {
            const double b = static_cast<double>(1 + (i & 63)), n = 8192.0 + static_cast<double>(i & 511);
            sum += std::max((params + b * kv * n) / bw, b * 2 * params / peak);
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * evaluations);
}
BENCHMARK(plan_bare_floor)->Arg(20000)->Unit(benchmark::kMicrosecond);

// Every preset in data/, parsed and validated.
void load_every_preset(benchmark::State& state) {
    const auto hw = list_presets(PresetKind::hardware);
    const auto models = list_presets(PresetKind::model);
    for (auto _ : state) {
        for (const auto& n : hw) benchmark::DoNotOptimize(load_hardware(n));
        for (const auto& n : models) benchmark::DoNotOptimize(load_model(n));
    }
    state.counters["presets"] = static_cast<double>(hw.size() + models.size());
}
BENCHMARK(load_every_preset)->Unit(benchmark::kMillisecond);

// Parsing an array of n empty objects (about 4 bytes each): linear in n. nlohmann's parse with
// a callback was quadratic here (14 s for 160,000), which a 640 KB file could use to hang a load.
void parse_array_of_objects(benchmark::State& state) {
    std::string text = "[";
    for (std::int64_t i = 0; i < state.range(0); ++i) text += i ? ",{}" : "{}";
    text += "]";
    for (auto _ : state) benchmark::DoNotOptimize(parse_json_text(text, "bench.json"));
    state.SetComplexityN(state.range(0));
}
BENCHMARK(parse_array_of_objects)->RangeMultiplier(4)->Range(10000, 640000)->Complexity()->Unit(benchmark::kMillisecond);

// The grid's inputs for seed003_sweep.py, taken from the presets so both sides sweep the same numbers.
int export_sweep(const std::string& file) {
    nlohmann::json spec{{"weight_bytes", sweep::weight_bytes}, {"models", nlohmann::json::array()}, {"devices", nlohmann::json::array()}};
    for (const Model& m : loaded().models) {
        const Gqa& a = std::get<Gqa>(m.groups[0].spec.attention);
        spec["models"].push_back({{"name", std::string(m.name.view())}, {"P", parameter_count(m)}, {"layers", layer_count(m)},
                                  {"kv_heads", a.kv_heads}, {"head_dim", a.head_dim}});
    }
    for (const Hardware& h : loaded().devices)
        spec["devices"].push_back({{"name", std::string(h.name.view())}, {"bw", h.memory_bandwidth.in(bytes_per_s)},
                                   {"flops", h.require_peak(Numeric::bf16).in(flop_per_s)}});
    std::ofstream(file) << spec.dump(2);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--export-sweep=", 0) == 0) return export_sweep(arg.substr(15));
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
