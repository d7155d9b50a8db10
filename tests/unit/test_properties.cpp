// Randomised properties over the whole catalogue and wide numeric ranges (fixed seed, so a
// failure reproduces), and extreme inputs rejected with the documented error.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <random>

#include <ridgeline/decode_sweep.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include "../seed_inputs.hpp"

using namespace ridgeline;

namespace {
struct Catalogue {
    std::vector<Hardware> hardware;
    std::vector<Model> models;
};
const Catalogue& catalogue() {
    static const Catalogue c = [] {
        Catalogue k;
        for (const auto& n : list_presets(PresetKind::hardware)) k.hardware.push_back(load_hardware(n));
        for (const auto& n : list_presets(PresetKind::model)) k.models.push_back(load_model(n));
        return k;
    }();
    return c;
}

bool finite_positive(const DecodeStep& d) {
    for (const Seconds t : {d.memory_time, d.compute_time, d.step_time})
        if (!is_finite(t) || !(t > Seconds{})) return false;
    return is_finite(d.total_bytes) && d.total_bytes > Bytes{} && is_finite(d.flops) && d.flops > Flops{} &&
           is_finite(d.tokens_per_s) && d.tokens_per_s > PerSecond{} && is_finite(d.total_tokens_per_s) &&
           is_finite(d.arithmetic_intensity);
}

// A random setting the device can run: a compute format it has, formats for storage.
struct RandomSetting {
    const Hardware* hw;
    const Model* m;
    Workload w;
};
RandomSetting random_setting(std::mt19937_64& rng) {
    const auto& c = catalogue();
    RandomSetting s{&c.hardware[rng() % c.hardware.size()], &c.models[rng() % c.models.size()], seed::seed_003(Workload{})};
    std::vector<Numeric> computes;
    for (Numeric n : all_numerics)
        if (s.hw->peak_for(n)) computes.push_back(n);
    s.w.precision.compute = computes[rng() % computes.size()];
    const Format storage[] = {formats::bf16, formats::fp8, formats::int8, formats::int4, formats::mxfp4, block_scaled(Numeric::int4, 16, 128)};
    s.w.precision.weights = storage[rng() % 6];
    // Groups of 128 divide no row of gpt-oss (hidden 2,880): no engine loads that
    // (row_groups.hpp), so such a draw stores its weights in bf16.
    try {
        require_whole_groups(*s.m, s.w.precision, Parallelism{});
    } catch (const error&) {
        s.w.precision.weights = formats::bf16;
    }
    s.w.precision.kv = storage[rng() % 3];
    s.w.batch = 1 + static_cast<std::int64_t>(rng() % 4096);
    const std::int64_t limit = s.m->max_context > 0 ? s.m->max_context : 131072;
    s.w.context = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(limit - 64));
    s.w.assumptions.accounting = rng() % 2 ? WeightAccounting::bytes_read : WeightAccounting::every_parameter;
    s.w.assumptions.attention_flops = rng() % 2;
    return s;
}
}  // namespace

TEST_CASE("properties: results are finite and positive across the catalogue", "[properties]") {
    std::mt19937_64 rng(20261129);
    for (int i = 0; i < 3000; ++i) {
        const RandomSetting s = random_setting(rng);
        INFO(s.m->name.view() << " on " << s.hw->name.view() << " batch " << s.w.batch << " context " << s.w.context);
        const DecodeStep d = decode_step(*s.hw, *s.m, s.w);
        CHECK(finite_positive(d));
        const RidgeBatch r = ridge_batch(*s.hw, *s.m, s.w);
        if (r.exists()) CHECK((std::isfinite(r.value()) && r.value() > 0));
        const auto n = n_star(*s.hw, *s.m, s.w);
        if (n) CHECK((std::isfinite(*n) && *n >= 0));
    }
}

// decode_sweep is decode_step's arithmetic, rearranged: every point must equal decode_step's
// result for it exactly, across the catalogue, deployments, efficiencies and overheads.
TEST_CASE("properties: decode_sweep equals decode_step at every point", "[properties][sweep]") {
    std::mt19937_64 rng(16);
    int swept = 0, ranked = 0;
    for (int i = 0; i < 400; ++i) {
        RandomSetting s = random_setting(rng);
        const std::int64_t degrees[] = {1, 2, 4, 8};
        Parallelism par{.tensor = degrees[rng() % 4], .pipeline = degrees[rng() % 3], .data = 1 + static_cast<std::int64_t>(rng() % 3)};
        par.expert = rng() % 2 ? par.tensor : 1;
        // Every third: the attention data-parallel, a rank a device; every sixth, a rank two devices.
        if (i % 3 == 0) par.attention_data = i % 2 == 0 && par.tensor > 2 ? par.tensor / 2 : par.tensor;
        const Deployment dep{*s.hw, par};
        try {
            (void)decode_step(dep, *s.m, s.w);
        } catch (const error&) {
            continue;  // a degree this model cannot split by, or a device without a link figure
        }
        s.w.efficiency = Efficiency{.bandwidth = 0.5 + 0.5 * static_cast<double>(rng() % 100) / 100, .compute = 1.0,
                                    .overhead = us(static_cast<double>(rng() % 50)),
                                    .per_layer = us(static_cast<double>(rng() % 3)),
                                    .per_moe_layer = us(static_cast<double>(rng() % 5)),
                                    .per_sequence = us(static_cast<double>(rng() % 7)),
                                    .per_message = us(static_cast<double>(rng() % 11))};
        const std::int64_t limit = s.m->max_context > 0 ? s.m->max_context : 131072;
        const std::vector<std::int64_t> batches{1, 1 + static_cast<std::int64_t>(rng() % 64), 1 + static_cast<std::int64_t>(rng() % 4096)};
        const std::vector<std::int64_t> contexts{0, static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(limit - 64)), limit - 64};
        const std::size_t n = batches.size() * contexts.size();
        std::vector<double> weight(n), kv(n), total(n), step(n), tps(n), all_tps(n), ai(n), comm(n), used(n), budget(n), per_device(n);
        std::unique_ptr<bool[]> compute(new bool[n]), fits(new bool[n]), linked(new bool[n]);
        decode_sweep(dep, *s.m, s.w, batches, contexts,
                     DecodeColumns{weight.data(), kv.data(), total.data(), step.data(), tps.data(), all_tps.data(), compute.get(), ai.data(),
                                   comm.data(), used.data(), budget.data(), fits.get(), per_device.data(), linked.get()});
        for (std::size_t b = 0; b < batches.size(); ++b)
            for (std::size_t c = 0; c < contexts.size(); ++c) {
                Workload w = s.w;
                w.batch = batches[b];
                w.context = contexts[c];
                const DecodeStep d = decode_step(dep, *s.m, w);
                const std::size_t at = b * contexts.size() + c;
                INFO(s.m->name.view() << " on " << s.hw->name.view() << " tp " << par.tensor << " pp " << par.pipeline << " ep "
                                      << par.expert << " attention dp " << par.attention_data << " batch " << w.batch << " context " << w.context);
                CHECK(weight[at] == d.weight_bytes.in(bytes));
                CHECK(kv[at] == d.kv_bytes.in(bytes));
                CHECK(total[at] == d.total_bytes.in(bytes));
                CHECK(per_device[at] == d.bytes_per_device.in(bytes));
                CHECK(step[at] == d.step_time.in(ridgeline::s));
                CHECK(tps[at] == d.tokens_per_s.in(per_s));
                CHECK(all_tps[at] == d.total_tokens_per_s.in(per_s));
                CHECK(compute[at] == (d.bound == Bound::compute));
                CHECK(linked[at] == d.links_bound);
                CHECK(ai[at] == d.arithmetic_intensity.in(flop_per_byte));
                CHECK(comm[at] == d.communication_time.in(ridgeline::s));
                CHECK(used[at] == d.memory.used().in(bytes));
                CHECK(budget[at] == d.memory.budget.in(bytes));
                CHECK(fits[at] == d.fits());
            }
        ++swept;
        if (par.attention_data > 1) ++ranked;
    }
    CHECK(swept > 100);
    CHECK(ranked > 20);  // settings with the attention data-parallel were swept too
    // A bad point is refused before anything is written, with decode_step's error.
    const auto& c = catalogue();
    const std::vector<std::int64_t> bad{1, 0};
    const std::vector<std::int64_t> zero{0};
    std::vector<double> out(2, -1.0);
    CHECK_THROWS_WITH(decode_sweep(Deployment{c.hardware.front()}, c.models.front(), Workload{}, bad, zero, DecodeColumns{.step_time = out.data()}),
                      "batch: got 0, expected an integer from 1 to 2^40");
    CHECK(out[0] == -1.0);
}

TEST_CASE("properties: monotone in context, batch and bandwidth", "[properties]") {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 2000; ++i) {
        RandomSetting s = random_setting(rng);
        INFO(s.m->name.view() << " on " << s.hw->name.view() << " batch " << s.w.batch << " context " << s.w.context);
        const DecodeStep d = decode_step(*s.hw, *s.m, s.w);
        Workload longer = s.w;
        longer.context += 1 + static_cast<std::int64_t>(rng() % 64);
        const DecodeStep dl = decode_step(*s.hw, *s.m, longer);
        // More context is never faster, within a chunk: a chunked layer's read restarts at each
        // chunk boundary (reach.hpp).
        std::int64_t chunk = 0;
        for (const auto& g : *s.m)
            if (g.spec.chunked) chunk = g.spec.window;
        if (chunk == 0 || longer.context / chunk == s.w.context / chunk) {
            CHECK(dl.step_time >= d.step_time);
            CHECK(dl.tokens_per_s <= d.tokens_per_s);
        }
        Workload bigger = s.w;
        bigger.batch += 1;
        const DecodeStep db = decode_step(*s.hw, *s.m, bigger);
        CHECK(db.step_time >= d.step_time);            // a bigger batch never takes less time per step
        const RidgeBatch r = ridge_batch(*s.hw, *s.m, s.w);
        if (r.is_never() || static_cast<double>(bigger.batch) <= r.value())
            CHECK(db.total_tokens_per_s >= d.total_tokens_per_s);  // up to the ridge, batching pays
        Hardware faster = *s.hw;
        faster.memory_bandwidth = faster.memory_bandwidth * 1.5;
        CHECK(decode_step(faster, *s.m, s.w).step_time <= d.step_time);  // more bandwidth is never slower
    }
}

TEST_CASE("properties: the ridge batch is where memory and compute meet, and n* where it stops existing", "[properties]") {
    std::mt19937_64 rng(11);
    int checked_ridges = 0, checked_stars = 0;
    for (int i = 0; i < 2000; ++i) {
        RandomSetting s = random_setting(rng);
        s.w.context = static_cast<std::int64_t>(rng() % 2048);
        INFO(s.m->name.view() << " on " << s.hw->name.view() << " context " << s.w.context);
        const RidgeBatch r = ridge_batch(*s.hw, *s.m, s.w);
        if (r.exists() && r.value() > 1 && r.value() < 1e6) {
            Workload below = s.w, above = s.w;
            below.batch = static_cast<std::int64_t>(std::floor(r.value() * (1 - 1e-9)));
            above.batch = static_cast<std::int64_t>(std::floor(r.value())) + 1;
            if (below.batch >= 1) CHECK(decode_step(*s.hw, *s.m, below).bound == Bound::memory);
            CHECK(decode_step(*s.hw, *s.m, above).bound == Bound::compute);
            ++checked_ridges;
        }
        const auto n = n_star(*s.hw, *s.m, s.w);
        if (n && *n > 2 && *n < 1e6 && (s.m->max_context == 0 || *n + 2 < static_cast<double>(s.m->max_context))) {
            Workload before = s.w, after = s.w;
            before.context = static_cast<std::int64_t>(std::floor(*n * (1 - 1e-9)));
            after.context = static_cast<std::int64_t>(std::floor(*n)) + 1;
            CHECK(ridge_batch(*s.hw, *s.m, before).exists());
            CHECK(ridge_batch(*s.hw, *s.m, after).is_never());
            ++checked_stars;
        }
    }
    CHECK(checked_ridges > 100);  // the sampling reaches both regimes
    CHECK(checked_stars > 100);
}

TEST_CASE("properties: extreme inputs are rejected with the documented error", "[properties][errors]") {
    const Hardware& h = catalogue().hardware.front();
    const Model m = load_model("llama-3.1-8b");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(decode_step(h, m, seed::seed_003(Workload{.batch = 0})), "batch: got 0, expected an integer from 1 to 2^40");
    CHECK_THROWS_WITH(decode_step(h, m, seed::seed_003(Workload{.batch = -5})), "batch: got -5, expected an integer from 1 to 2^40");
    CHECK_THROWS_WITH(decode_step(h, m, seed::seed_003(Workload{.context = -1})), "context: got -1, expected an integer from 0 to 2^40 tokens");
    CHECK_THROWS_AS(decode_step(h, m, seed::seed_003(Workload{.context = 1'000'000'000'000})), ridgeline::error);  // past the model's limit
    Workload bad;
    bad.efficiency.bandwidth = nan;
    CHECK_THROWS_WITH(decode_step(h, m, bad), "efficiency (bandwidth): got nan, expected a fraction in [1e-6, 1]");
    bad = seed::seed_003(Workload{});
    bad.efficiency.overhead = s(nan);
    CHECK_THROWS_AS(decode_step(h, m, bad), ridgeline::error);
    CHECK_THROWS_AS(decode_step(Deployment{h, Parallelism{.tensor = 2, .link_bandwidth = GB_per_s(-1)}}, m, Workload{}), ridgeline::error);
    // A link slower than the presets' floor (1 MB/s) would overflow the step time (found by fuzz_setting).
    CHECK_THROWS_WITH(decode_step(Deployment{h, Parallelism{.tensor = 2, .link_bandwidth = GB_per_s(1e-305)}}, m, Workload{}),
                      Catch::EndsWith("expected a bandwidth from 0.001 GB/s to below 1e9 GB/s"));
    // A device or format built in code is held to the presets' bounds: a device with no bandwidth
    // once gave a NaN step, a negative one a negative memory time, and negative scale bits -4
    // bits a weight.
    Hardware built;
    built.name = Name{"x"};
    built.memory_capacity = GB(80);
    built.with_peak(Numeric::bf16, TFLOP_per_s(1000));
    CHECK_THROWS_WITH(decode_step(built, m, Workload{}), "hardware 'x' memory_bandwidth: got 0 GB/s, expected a figure from 0.001 to below 1e9 GB/s");
    built.memory_bandwidth = TB_per_s(-3);
    CHECK_THROWS_WITH(decode_step(built, m, Workload{}), "hardware 'x' memory_bandwidth: got -3000 GB/s, expected a figure from 0.001 to below 1e9 GB/s");
    built.memory_bandwidth = TB_per_s(3);
    built.with_peak(Numeric::fp8, TFLOP_per_s(nan));
    CHECK_THROWS_WITH(memory_use(built, m, Workload{}), "hardware 'x' peak fp8: got nan TFLOP/s, expected a figure from 0.001 to below 1e9 TFLOP/s");
    built.peak = {};
    built.with_peak(Numeric::bf16, TFLOP_per_s(1000));
    built.measured_bandwidth = TB_per_s(4);
    CHECK_THROWS_WITH(decode_step(built, m, Workload{}),
                      "hardware 'x' measured_bandwidth: got 4000 GB/s, expected at most the peak memory_bandwidth (3000 GB/s)");
    built.measured_bandwidth.reset();
    CHECK(decode_step(built, m, Workload{}).step_time > Seconds{});
    Workload scaled;
    scaled.precision.weights = block_scaled(Numeric::int4, -128, 16);
    CHECK_THROWS_WITH(decode_step(built, m, scaled),
                      "weights format: got int4 with -128-bit scales per 16, expected no block scales, or 1 to 64 bits of scale per "
                      "block of 1 to 1000000 values, fewer than the values' own bits");
    scaled.precision.weights = formats::bf16;
    scaled.precision.experts = block_scaled(Numeric::int4, 16, 4);  // 8 bits a weight: parse_format refuses "int4/g4" too
    CHECK_THROWS_WITH(decode_step(built, m, scaled), Catch::StartsWith("experts format: got int4 with 16-bit scales per 4, expected"));
    // Figures too large to be real hardware, or a model too wide to be one, are refused on load.
    CHECK_THROWS_WITH(hardware_from_json(nlohmann::json::parse(R"({"name":"x","memory_capacity_GB":1e300,
        "memory_bandwidth_GB_per_s":1,"dense_TFLOP_per_s":{"bf16":1}})"), "x.json"),
                      "x.json: /memory_capacity_GB: got 1e+300, expected a number from 0.001 to below 1e9 (in the key's unit)");
    CHECK_THROWS_WITH(model_from_config(nlohmann::json::parse(R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":4611686018427387904,
        "num_attention_heads":1,"intermediate_size":1,"vocab_size":1})"), "m.json"),
                      "m.json: /hidden_size: got 4611686018427387904, expected a positive integer below 2^53");
    // A long value is cut in the message, with its length (a review found a 100 KB message).
    const std::string long_name(1000, 'x');
    try {
        (void)hardware_from_json(nlohmann::json{{"name", long_name}, {"memory_capacity_GB", 80}, {"memory_bandwidth_GB_per_s", 1},
                                                {"dense_TFLOP_per_s", {{"bf16", 1}}}},
                                 "x.json");
        FAIL("a 1000-character name was taken");
    } catch (const ridgeline::error& e) {
        const std::string what = e.what();
        CHECK(what.size() < 400);
        CHECK(what.find("... (1013 bytes)") != std::string::npos);  // the value as shown: quoted, "(a string)"
        CHECK(e.value().size() > 1000);                             // kept whole in the error
    }
    // Past 2^64 the parser holds it as a double: the same bound is said, not "a positive integer".
    CHECK_THROWS_WITH(model_from_config(nlohmann::json::parse(R"({"model_type":"llama","num_hidden_layers":18446744073709551616,
        "hidden_size":8,"num_attention_heads":1,"intermediate_size":1,"vocab_size":1})"), "m.json"),
                      "m.json: /num_hidden_layers: got 1.8446744073709552e+19, expected a positive integer below 2^53");
    CHECK_THROWS_WITH(model_from_config(nlohmann::json::parse(R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":33554432,
        "num_attention_heads":1,"intermediate_size":1,"vocab_size":1})"), "m.json"),
                      "m.json: model 'model' hidden_size: got 33554432, expected at most 16777216");
    // A layer's own width names its field (a review found "an attention width or head count").
    CHECK_THROWS_WITH(model_from_config(nlohmann::json::parse(R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":8,
        "head_dim":1099511627776,"num_attention_heads":1,"intermediate_size":1,"vocab_size":1})"), "m.json"),
                      "m.json: model 'model' head_dim: got 1099511627776, expected at most 16777216");
    // Python's bare NaN / Infinity (which transformers writes into Mamba-2 configs) are read as
    // strings, so no NaN gets in: a key that needs a number names the string.
    CHECK(parse_json_text("{\"a\": NaN, \"b\": [0.0, Infinity], \"c\": -Infinity, \"d\": \"NaN: Infinity\"}", "n.json") ==
          nlohmann::json{{"a", "NaN"}, {"b", {0.0, "Infinity"}}, {"c", "-Infinity"}, {"d", "NaN: Infinity"}});
    CHECK_THROWS_WITH(model_from_config(parse_json_text(R"({"model_type":"llama","num_hidden_layers":NaN,"hidden_size":8,
        "num_attention_heads":1,"intermediate_size":1,"vocab_size":1})", "n.json"), "n.json"),
                      "n.json: /num_hidden_layers: got NaN (not a JSON number: a bare NaN or the string), expected a positive integer");
    // Only whole values: NaNa, a top-level NaN and a NaN inside a string stay as they are.
    CHECK_THROWS_WITH(parse_json_text("{\"a\": NaNa}", "n.json"),
                      Catch::StartsWith("n.json: got text that is not JSON ([json.exception.parse_error.101]"));
    CHECK_THROWS_WITH(parse_json_text("NaN", "n.json"),
                      Catch::StartsWith("n.json: got text that is not JSON ([json.exception.parse_error.101]"));
    CHECK(parse_json_text(R"({"a\" NaN": "\\", "b": 1})", "n.json") == nlohmann::json{{"a\" NaN", "\\"}, {"b", 1}});
}

// step_times' one pass over the context terms (no attention ranks, no routed experts) must be
// the composition it stands for, to the bit: weight_bytes + step_kv_bytes over the bandwidth and
// step_flops over the peak, including what the decode_sweep property above never reaches (seed
// 003's assumptions): several tokens a sequence, activation traffic, a multi-head KV read and
// batches whose tokens outnumber the table's rows (a review asked for it).
TEST_CASE("properties: step_times equals the step cost's own terms, to the bit", "[properties][sweep]") {
    std::mt19937_64 rng(20261206);
    int fast = 0, capped = 0;
    for (int i = 0; i < 600; ++i) {
        RandomSetting s = random_setting(rng);
        s.w.assumptions = i % 2 ? assumptions::physical : s.w.assumptions;
        s.w.tokens_per_sequence = 1 + static_cast<std::int64_t>(rng() % 8);
        s.w.efficiency.activation_traffic = rng() % 2;
        s.w.efficiency.kv_per_query_head = rng() % 2;
        StepCost c;
        try {
            c = step_cost(*s.m, s.w);
        } catch (const error&) {
            continue;  // a context past what the draw's tokens leave room for
        }
        const Rates r = effective_rates(*s.hw, s.w);
        const std::int64_t batches[] = {1, s.w.batch, 300'000};
        for (const std::int64_t b : batches) {
            const auto B = static_cast<double>(b), n = static_cast<double>(s.w.context);
            const StepTimes t = step_times(c, r, b, s.w.context);
            INFO(s.m->name.view() << " on " << s.hw->name.view() << " batch " << b << " context " << s.w.context << " tokens "
                                  << s.w.tokens_per_sequence);
            CHECK(t.memory.in(ridgeline::s) == ((c.weight_bytes(b) + c.step_kv_bytes(B, n)) / r.bandwidth).in(ridgeline::s));
            CHECK(t.compute.in(ridgeline::s) == (c.step_flops(B, n) / r.peak).in(ridgeline::s));
            if (c.attention_data == 1 && !c.has_routed_experts()) ++fast;
            if (c.embedding_rows > 0 && B * static_cast<double>(c.tokens_per_sequence) > c.embedding_rows) ++capped;
        }
    }
    CHECK(fast > 300);   // the one-pass path was taken
    CHECK(capped > 50);  // and with the rows read capped at the table's
}
