// The decode step, ridge batch, n* and capacity: hand-computed cases, limits and invariants.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include "../seed_inputs.hpp"
#include "h100.hpp"

using namespace ridgeline;
using ridgeline_tests::h100;

namespace {
const Model& llama8b() {
    static const Model m = load_model("llama-3.1-8b");
    return m;
}
}  // namespace

TEST_CASE("decode: batch 1 at 4k, every field by hand", "[decode]") {
    const DecodeStep d = decode_step(h100(), llama8b(), seed::seed_003(Workload{.context = 4096}));
    const double P = 8'030'261'248.0;
    CHECK(d.assumptions == assumptions::seed_003);
    CHECK(d.weight_bytes.in(bytes) == 2 * P);
    CHECK(d.kv_bytes.in(bytes) == 4096.0 * 131072);
    CHECK(d.total_bytes.in(bytes) == 2 * P + 4096.0 * 131072);
    CHECK(d.flops.in(flop) == 2 * P);
    CHECK(d.memory_time.in(s) == Approx((2 * P + 4096.0 * 131072) / 3.35e12).epsilon(1e-14));
    CHECK(d.compute_time.in(s) == Approx(2 * P / 989e12).epsilon(1e-14));
    CHECK(d.bound == Bound::memory);
    CHECK(d.step_time == d.memory_time);
    CHECK(d.tokens_per_s.in(per_s) == Approx(201.8).margin(0.05));  // seed 003 table
    CHECK(d.total_tokens_per_s == d.tokens_per_s);
    CHECK(d.arithmetic_intensity.in(flop_per_byte) == Approx(2 * P / (2 * P + 4096.0 * 131072)).epsilon(1e-14));
    CHECK(d.ops_per_byte.in(flop_per_byte) == Approx(989e12 / 3.35e12).epsilon(1e-14));
    // Attention-score FLOPs are reported; the seeds' assumptions do not charge them.
    CHECK(d.attention_flops.in(flop) == 4.0 * 32 * 32 * 128 * 4096);
}

TEST_CASE("decode: batching shares the weight read, not the KV read", "[decode]") {
    const DecodeStep one = decode_step(h100(), llama8b(), seed::seed_003(Workload{.batch = 1, .context = 4096}));
    const DecodeStep many = decode_step(h100(), llama8b(), seed::seed_003(Workload{.batch = 64, .context = 4096}));
    CHECK(many.weight_bytes == one.weight_bytes);
    CHECK(many.kv_bytes == 64 * one.kv_bytes);
    CHECK(many.flops == 64 * one.flops);
    CHECK(many.total_tokens_per_s.in(per_s) == Approx(64 * many.tokens_per_s.in(per_s)));
    CHECK(many.total_tokens_per_s > one.total_tokens_per_s);
    CHECK(many.tokens_per_s < one.tokens_per_s);
}

TEST_CASE("decode: 'bytes read' charges one embedding row per sequence, not the table", "[decode][accounting]") {
    Workload read = seed::seed_003(Workload{.batch = 4, .context = 4096});
    read.assumptions.accounting = WeightAccounting::bytes_read;
    read.assumptions.embedding_lookup_flops = false;
    const DecodeStep r = decode_step(h100(), llama8b(), read);
    const DecodeStep all = decode_step(h100(), llama8b(), seed::seed_003(Workload{.batch = 4, .context = 4096}));
    const double table = 128256.0 * 4096;
    CHECK(r.assumptions.accounting == WeightAccounting::bytes_read);
    CHECK(r.weight_bytes.in(bytes) == 2 * (8'030'261'248.0 - table) + 4 * 2 * 4096.0);
    CHECK(all.weight_bytes.in(bytes) - r.weight_bytes.in(bytes) == 2 * table - 4 * 2 * 4096.0);
    CHECK(r.flops.in(flop) == 4 * 2 * (8'030'261'248.0 - table));
    CHECK(r.kv_bytes == all.kv_bytes);
    CHECK(r.tokens_per_s > all.tokens_per_s);
    // Tied to the LM head, the table is read in full anyway: both accountings agree.
    Model tied = llama8b();
    tied.tied_embeddings = true;
    CHECK(decode_step(h100(), tied, read).weight_bytes ==
          decode_step(h100(), tied, seed::seed_003(Workload{.batch = 4, .context = 4096})).weight_bytes);
}

TEST_CASE("decode: counting attention FLOPs adds them to the compute time", "[decode]") {
    Workload w = seed::seed_003(Workload{.batch = 256, .context = 2048});
    const DecodeStep without = decode_step(h100(), llama8b(), w);
    w.assumptions.attention_flops = true;
    const DecodeStep with = decode_step(h100(), llama8b(), w);
    CHECK(with.flops - without.flops == with.attention_flops);
    CHECK(with.compute_time.in(s) == Approx((without.flops + with.attention_flops).in(flop) / 989e12));
    CHECK(with.total_bytes == without.total_bytes);
}

TEST_CASE("decode: the math runs on the compute format's peak, and a missing peak is an error", "[decode][errors]") {
    const Workload w8a8 = seed::seed_003(Workload{.precision = precisions::w8a8_fp8, .batch = 512});
    const DecodeStep fp8 = decode_step(h100(), llama8b(), w8a8);
    CHECK(fp8.compute_time.in(s) == Approx(512 * 2 * 8'030'261'248.0 / 1979e12));
    CHECK(fp8.ops_per_byte.in(flop_per_byte) == Approx(1979.0 / 3.35));
    const Hardware a100 = load_hardware("a100-80gb");
    CHECK_THROWS_WITH(decode_step(a100, llama8b(), w8a8),
                      "hardware 'NVIDIA A100 SXM4 80GB' compute peak: got fp8, expected a format this device has a dense peak for");
    // W4A16 reads 4-bit weights and computes in BF16.
    const DecodeStep w4 = decode_step(h100(), llama8b(), seed::seed_003(Workload{.precision = precisions::w4a16_int4}));
    CHECK(w4.weight_bytes.in(bytes) == 8'030'261'248.0 / 2);
    CHECK(w4.compute_time == decode_step(h100(), llama8b(), seed::seed_003(Workload{})).compute_time);
}

TEST_CASE("decode: a time per MoE layer is paid by the routed-expert layers only", "[decode][efficiency]") {
    // Hand calculation from each config.json: DeepSeek-V3 has 61 layers, the first 3 dense
    // (first_k_dense_replace), so 58 MoE layers; Qwen3-30B-A3B has 48, every one sparse
    // (decoder_sparse_step 1, no mlp_only_layers); Llama-3.1-8B has none. At 100 us a MoE layer
    // a step takes 5.8 ms, 4.8 ms and 0 ms longer, whatever else it does.
    const Hardware h200 = load_hardware("h200");
    const auto added_ms = [&](const char* name, std::int64_t tp) {
        const Model m = load_model(name);
        const Deployment d{h200, Parallelism{.tensor = tp}};
        Workload w{.batch = 8, .context = 2048};
        w.efficiency.overhead = ms(1);
        const Seconds without = decode_step(d, m, w).step_time;
        w.efficiency.per_moe_layer = us(100);
        const DecodeStep with = decode_step(d, m, w);
        CHECK(with.overhead_time.in(ms) == Approx(1 + (with.step_time - without).in(ms)));
        return (with.step_time - without).in(ms);
    };
    CHECK(added_ms("deepseek-v3", 8) == Approx(5.8).epsilon(1e-9));
    CHECK(added_ms("qwen3-30b-a3b", 1) == Approx(4.8).epsilon(1e-9));
    CHECK(added_ms("llama-3.1-8b", 1) == 0);
    // Over two pipeline stages each stage pays its own MoE layers: 24 of Qwen3-30B-A3B's 48 each,
    // one after the other in a step, so 4.8 ms again.
    const Model q = load_model("qwen3-30b-a3b");
    const Deployment two{h200, Parallelism{.pipeline = 2}};
    Workload w{.batch = 8, .context = 2048};
    const Seconds without = decode_step(two, q, w).step_time;
    w.efficiency.per_moe_layer = us(100);
    CHECK((decode_step(two, q, w).step_time - without).in(ms) == Approx(4.8).epsilon(1e-9));
    // Out of range, named.
    w.efficiency.per_moe_layer = us(-1);
    CHECK_THROWS_WITH(decode_step(two, q, w), "overhead per MoE layer: got -1 us, expected a time from 0 to 1 s");
}

TEST_CASE("decode: a time per sequence is paid once a step for each sequence, whatever the stages", "[decode][efficiency]") {
    // Hand calculation: at 50 us a sequence, a batch of 64 adds 64 x 50 us = 3.2 ms to a step, on
    // one device and over two pipeline stages alike (the host's work is done once a step, not in
    // each stage), and a batch of 1 adds 50 us. A prefill of 4 prompts adds 4 x 50 us = 0.2 ms
    // once (each prompt samples its first token), however many chunks it takes.
    const Hardware h100 = load_hardware("h100-sxm");
    const Model m = load_model("llama-3.1-8b");
    const auto added_ms = [&](std::int64_t batch, std::int64_t pp) {
        const Deployment d{h100, Parallelism{.pipeline = pp}};
        Workload w{.batch = batch, .context = 4096};
        w.efficiency.overhead = ms(1);
        const Seconds without = decode_step(d, m, w).step_time;
        w.efficiency.per_sequence = us(50);
        const DecodeStep with = decode_step(d, m, w);
        CHECK(with.overhead_time.in(ms) == Approx(static_cast<double>(pp) + (with.step_time - without).in(ms)));
        return (with.step_time - without).in(ms);
    };
    CHECK(added_ms(64, 1) == Approx(3.2).epsilon(1e-9));
    CHECK(added_ms(64, 2) == Approx(3.2).epsilon(1e-9));
    CHECK(added_ms(1, 1) == Approx(0.05).epsilon(1e-9));
    Workload four{.batch = 4};
    const Seconds plain = prefill(h100, m, four, 8192, 2048).time;
    four.efficiency.per_sequence = us(50);
    CHECK((prefill(h100, m, four, 8192, 2048).time - plain).in(ms) == Approx(0.2).epsilon(1e-9));
    four.efficiency.per_sequence = s(2);
    CHECK_THROWS_WITH(decode_step(h100, m, four), "overhead per sequence: got 2000000 us, expected a time from 0 to 1 s");
}

TEST_CASE("decode: bad workloads are errors, never NaN or infinity", "[decode][errors]") {
    CHECK_THROWS_WITH(decode_step(h100(), llama8b(), seed::seed_003(Workload{.batch = 0})), "batch: got 0, expected an integer from 1 to 2^40");
    CHECK_THROWS_WITH(decode_step(h100(), llama8b(), seed::seed_003(Workload{.context = -1})),
                      "context: got -1, expected an integer from 0 to 2^40 tokens");
    CHECK_THROWS_AS(ridge_batch(h100(), llama8b(), seed::seed_003(Workload{.batch = -3})), ridgeline::error);
}

TEST_CASE("decode: invariants over batch, context and bandwidth", "[decode][properties]") {
    Hardware faster = h100();
    faster.memory_bandwidth = TB_per_s(4.8);
    for (std::int64_t batch : {1, 2, 8, 64, 256, 1024}) {
        Seconds previous{};
        for (std::int64_t context : {0, 1, 128, 4096, 32768, 131072}) {
            const Workload w = seed::seed_003(Workload{.batch = batch, .context = context});
            const DecodeStep d = decode_step(h100(), llama8b(), w);
            INFO("batch " << batch << " context " << context);
            CHECK(is_finite(d.step_time));
            CHECK(d.step_time >= previous);  // more context is never faster
            previous = d.step_time;
            CHECK(decode_step(faster, llama8b(), w).step_time <= d.step_time);  // more bandwidth never slower
            const DecodeStep bigger = decode_step(h100(), llama8b(), seed::seed_003(Workload{.batch = batch + 1, .context = context}));
            CHECK(bigger.step_time >= d.step_time);  // a bigger batch never takes less time per step
        }
    }
}

TEST_CASE("decode: a compute-bound step by hand", "[decode]") {
    // Batch 1,024 at empty context under seed 003's budget: 1,024 x 2 x 8,030,261,248 FLOPs at
    // 989 TFLOP/s (16.6 ms) against 8,030,261,248 x 2 B at 3.35 TB/s (4.8 ms).
    const DecodeStep d = decode_step(h100(), llama8b(), seed::seed_003(Workload{.batch = 1024, .context = 0}));
    CHECK(d.bound == Bound::compute);
    CHECK(d.step_time.in(s) == Approx(1024 * 2 * 8030261248.0 / 989e12).epsilon(1e-12));
}

TEST_CASE("decode: a step reads each embedding row once, however many tokens look it up", "[decode]") {
    // Llama-3.1-8B (config.json): 8,030,261,248 parameters, its untied input table 128,256 x
    // 4,096 = 525,336,576 of them, BF16. One sequence reads one row of the table; 2^20 sequences
    // look up more tokens than the table has rows, so read it whole: every weight once, as the
    // model's 16.06 GB.
    const auto weights = [](std::int64_t batch) {
        return decode_step(h100(), llama8b(), Workload{.batch = batch, .context = 0}).weight_bytes.in(bytes);
    };
    CHECK(weights(1) == Approx(2.0 * (8030261248.0 - 525336576.0 + 4096.0)).epsilon(1e-12));
    CHECK(weights(std::int64_t{1} << 20) == Approx(2.0 * 8030261248.0).epsilon(1e-12));
    CHECK(weights(128256) == Approx(2.0 * 8030261248.0).epsilon(1e-12));
    CHECK(weights(128255) == Approx(2.0 * (8030261248.0 - 4096.0)).epsilon(1e-12));
    // The sweep's vectorised loop agrees with the step at both sides of the cap.
    const std::array<std::int64_t, 2> batches{1000, std::int64_t{1} << 20};
    std::array<double, 2> rates{};
    const StepCost c = step_cost(llama8b(), Workload{}, Parallelism{});
    tokens_per_s_over_batches(c, Rates{h100().memory_bandwidth, h100().require_peak(Numeric::bf16)}, 0, batches, rates);
    for (std::size_t i = 0; i < batches.size(); ++i)
        CHECK(rates[i] == Approx(decode_step(h100(), llama8b(), Workload{.batch = batches[i], .context = 0}).tokens_per_s.in(per_s)).epsilon(1e-12));
    // Batches below 1 and negative contexts are refused, not answered (-1,942 tok/s at context -1e6).
    const Rates h100_rates{h100().memory_bandwidth, h100().require_peak(Numeric::bf16)};
    const std::array<std::int64_t, 2> bad{4, 0};
    CHECK_THROWS_WITH(tokens_per_s_over_batches(c, h100_rates, 0, bad, rates), "batch: got 0, expected an integer >= 1");
    CHECK_THROWS_WITH(tokens_per_s_over_batches(c, h100_rates, -1000000, batches, rates), "context: got -1000000, expected an integer from 0 to 2^40");
    CHECK_THROWS_WITH(ridge_batch(c, h100_rates, -100000), "context: got -100000, expected an integer from 0 to 2^40");
}

TEST_CASE("decode: a step cost's terms survive its copies, and a full list refuses another", "[decode][errors]") {
    // Llama 4 Maverick (config.json: 48 layers, interleave_moe_layer_step 2; transformers'
    // default no_rope_layer_interval 4) alternates dense and MoE layers, and its every fourth
    // layer, an MoE one, attends to the whole context where the rest read their 8,192-token
    // chunk: groups of 24 chunked dense, 12 chunked MoE and 12 full MoE layers, so three streams
    // of context and two of routed experts. A copy, and an assignment over a cost with fewer
    // terms, give the same reads.
    const Model maverick = load_model("llama-4-maverick");
    const StepCost c = step_cost(maverick, Workload{});
    REQUIRE(c.context_terms.size() == 3);
    REQUIRE(c.routed_terms.size() == 2);
    StepCost copy = step_cost(load_model("gemma-3-27b"), Workload{});  // two terms, no experts
    copy = c;
    CHECK(copy.context_terms.size() == 3);
    CHECK(copy.routed_terms.size() == 2);
    CHECK(copy.kv_bytes(100000).in(bytes) == c.kv_bytes(100000).in(bytes));
    CHECK(copy.weight_bytes(64).in(bytes) == c.weight_bytes(64).in(bytes));
    const StepCost constructed = c;
    CHECK(constructed.step_flops(64, 8192).in(flop) == c.step_flops(64, 8192).in(flop));
    // A list holds what it has room for, and says so past it (a model has at most 64 groups,
    // each with at most two streams of context: 128 terms).
    TermList<int, 2> two;
    two.push_back(1);
    two.push_back(2);
    CHECK_THROWS_WITH(two.push_back(3), "terms of a step cost: got 3, expected at most 2");
    CHECK(two.size() == 2);
    CHECK(two[1] == 2);
}

TEST_CASE("scaling book: B*bw/(B*kv + params) is the memory-bound total rate", "[decode]") {
    for (std::int64_t batch : {1, 4, 32}) {
        const Workload w = seed::seed_003(Workload{.batch = batch, .context = 8192});
        const DecodeStep d = decode_step(h100(), llama8b(), w);
        REQUIRE(d.bound == Bound::memory);
        CHECK(scaling_book_tokens_per_s(h100(), llama8b(), w).in(per_s) == Approx(d.total_tokens_per_s.in(per_s)).epsilon(1e-12));
    }
}

TEST_CASE("ridge: memory and compute times meet at the ridge batch", "[ridge]") {
    for (std::int64_t context : {0, 64, 200, 400}) {
        const Workload w = seed::seed_003(Workload{.context = context});
        const RidgeBatch r = ridge_batch(h100(), llama8b(), w);
        REQUIRE(r.exists());
        const auto below = static_cast<std::int64_t>(std::floor(r.value()));
        INFO("context " << context << " ridge " << r.value());
        CHECK(decode_step(h100(), llama8b(), seed::seed_003(Workload{.batch = below, .context = context})).bound == Bound::memory);
        CHECK(decode_step(h100(), llama8b(), seed::seed_003(Workload{.batch = below + 1, .context = context})).bound == Bound::compute);
        // By hand: B = (weights / bw) / (2P / F - kv x n / bw), with P = 8,030,261,248 (2 B each),
        // 131,072 B of KV a token, 3.35 TB/s and 989 TFLOP/s; 295.2 at empty context (seed 003).
        const double P = 8030261248.0, n = static_cast<double>(context);
        CHECK(r.value() == Approx((2 * P / 3.35e12) / (2 * P / 989e12 - 131072 * n / 3.35e12)).epsilon(1e-9));
    }
}

TEST_CASE("ridge: n* is where the ridge batch stops existing", "[ridge]") {
    const auto n = n_star(h100(), llama8b(), seed::seed_003(Workload{}));
    REQUIRE(n.has_value());
    CHECK(*n == Approx(415.0).margin(0.5));  // seed 003: "415 tokens for Llama-3.1-8B"
    const auto below = static_cast<std::int64_t>(std::floor(*n));
    CHECK(ridge_batch(h100(), llama8b(), seed::seed_003(Workload{.context = below})).exists());
    CHECK(ridge_batch(h100(), llama8b(), seed::seed_003(Workload{.context = below + 1})).is_never());
    // The ridge batch grows without bound as the context approaches n*.
    CHECK(ridge_batch(h100(), llama8b(), seed::seed_003(Workload{.context = below})).value() > 10 * ridge_batch(h100(), llama8b(), seed::seed_003(Workload{})).value());
    // "Never" is a value, not an accidental infinity.
    CHECK_THROWS_AS(RidgeBatch::never().value(), std::logic_error);
    CHECK(RidgeBatch::never() == ridge_batch(h100(), llama8b(), seed::seed_003(Workload{.context = 131072})));
}

TEST_CASE("ridge: past the table's rows a batch shares them, so the ridge is where the algebra puts it", "[ridge]") {
    // Llama-3.1-8B, BF16 on an H100 (seed 003's 989 TFLOP/s and 3.35 TB/s), 32 tokens a sequence
    // (a verification step of 31 drafts), no attention FLOPs. Per sequence: compute 32 x 2 x
    // (P - table) / F, KV n x 131,072 B / bw, rows 32 x 8,192 B / bw (two tokens' KV). Just below n* (rows aside)
    // the rows make each sequence's memory outweigh its compute, so the ridge lies past the
    // table: B = (weights read once + the whole table) / bw / (compute - KV per sequence).
    Workload w = seed::seed_003(Workload{});
    w.assumptions.accounting = WeightAccounting::bytes_read;
    w.assumptions.embedding_lookup_flops = false;
    w.tokens_per_sequence = 32;
    const double P = 8'030'261'248.0, table = 128256.0 * 4096;
    const double compute = 32 * 2 * (P - table) / 989e12, kv_per_token = 131072.0 / 3.35e12;
    const double n_star_rowless = compute / kv_per_token;
    w.context = static_cast<std::int64_t>(n_star_rowless) - 1;
    const double rows = 32 * 2 * 4096.0 / 3.35e12;
    REQUIRE(compute - static_cast<double>(w.context) * kv_per_token < rows);  // the rows outweigh the surplus
    const RidgeBatch r = ridge_batch(h100(), llama8b(), w);
    REQUIRE(r.exists());
    const double shared = 2 * P / 3.35e12;  // every weight once, the table whole
    CHECK(r.value() == Approx(shared / (compute - static_cast<double>(w.context) * kv_per_token)).epsilon(1e-9));
    CHECK(r.value() * 32 > 128256);
    // And the step agrees on both sides of it.
    Workload below = w, above = w;
    below.batch = static_cast<std::int64_t>(r.value() * (1 - 1e-6));
    above.batch = static_cast<std::int64_t>(r.value() * (1 + 1e-6)) + 1;
    CHECK(decode_step(h100(), llama8b(), below).bound == Bound::memory);
    CHECK(decode_step(h100(), llama8b(), above).bound == Bound::compute);
}

TEST_CASE("serving: prefill tokens riding a decode step read embedding rows only up to the table's", "[serving]") {
    // Llama-3.1-8B in BF16 on an H100 (3.35 TB/s, the datasheet): a prefill token writes its KV,
    // 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 B = 131,072 B, and under the bytes-read
    // accounting reads its embedding row, 4,096 x 2 B = 8,192 B. A 2,048-token prompt is one chunk
    // with no cached prefix to read. A step reads each of the table's 128,256 rows at most once.
    Workload w;
    w.assumptions.accounting = WeightAccounting::bytes_read;
    const Traffic t{.prompt = 2048, .output = 64};
    const auto added = [&](std::int64_t batch) {
        w.batch = batch;
        const InterleavedPrefill p = interleaved_prefill(h100(), llama8b(), w, t);
        REQUIRE(p.chunks[0].per_step > 0);
        return std::pair{p.chunks[0].tokens, (p.chunks[0].memory - p.decode.memory_time).in(s)};
    };
    // 8 sequences decoding: a turn is a prompt's one chunk step (the whole budget) and 63 decode
    // steps, so the other 7 sequences' prompts ride the decode steps, 7 / 63 a step, each one
    // 2,048-token chunk; the chunk's tokens read their own rows.
    const auto [few_tokens, few] = added(8);
    CHECK(few_tokens == 2048);
    CHECK(few == Approx(2048 * (131072.0 + 8192) / 3.35e12).epsilon(1e-9));
    // 128,256 sequences decoding already read every row, so the prompts' tokens (so many that
    // they queue, a whole chunk every step) add only their KV.
    const auto [many_tokens, many] = added(128256);
    CHECK(many_tokens == 2048);
    CHECK(many == Approx(many_tokens * 131072.0 / 3.35e12).epsilon(1e-9));
    // Between them: the rows left unread, 128,256 - 127,000, and no more.
    const auto [some_tokens, some] = added(127000);
    CHECK(some == Approx((some_tokens * 131072.0 + 1256 * 8192.0) / 3.35e12).epsilon(1e-9));
}

TEST_CASE("serving: a prompt's short last chunk keeps its KV load on an MoE model", "[serving]") {
    // Qwen3-30B-A3B (config.json: 48 layers, 4 KV heads x 128, hidden 2,048, untied, 128 experts
    // top-8) in BF16 on an H100 (3.35 TB/s): a prefill token writes 48 x 4 x 128 x 2 x 2 B =
    // 98,304 B of KV and reads a 4,096-byte embedding row. A 2,049-token prompt in chunks of
    // 2,048 is a full chunk and a 1-token one that reads the 2,048 tokens before it, so the
    // prompt's KV load is (2,049 + 2,048) x 98,304 B, spread over its 2,049 tokens. 4,096
    // sequences decoding already touch every expert (128 x (1 - 8/128)^4096 is 128 to a double),
    // so a full chunk riding a step adds its KV load and its rows, nothing for experts.
    Workload w;
    w.batch = 4096;
    const Traffic t{.prompt = 2049, .output = 16384, .prefill_chunk = 2048};
    const InterleavedPrefill p = interleaved_prefill(h100(), load_model("qwen3-30b-a3b"), w, t);
    REQUIRE(p.chunks[0].tokens == 2048);
    REQUIRE(p.chunks[1].tokens == 1);
    const double per_token = (2049 + 2048) * 98304.0 / 2049;
    CHECK((p.chunks[0].memory - p.decode.memory_time).in(s) == Approx(2048 * (per_token + 4096) / 3.35e12).epsilon(1e-9));
}

TEST_CASE("serving: the steps arriving prompts ride, for each way prompts arrive", "[serving]") {
    // Chunks of 2,048 (the default budget); `prompts` / `steps` prompts arrive a step.
    const auto steps = [](std::int64_t prompt, double prompts, double steps) {
        return chunk_steps(Traffic{.prompt = prompt, .output = 64}, prompts / steps);
    };
    // 50 / 500 = 0.1 prompts of 5,000 tokens a step, each done before the next: two full chunks
    // and one of 904, 0.1 prompts' worth a step.
    auto s = steps(5000, 50, 500);
    CHECK((s[0].tokens == 2048 && s[0].per_step == Approx(0.2) && s[1].tokens == 904 && s[1].per_step == Approx(0.1)));
    // 128 / 64 = 2 prompts of 500 tokens a step: every step takes both, 1,000 tokens.
    s = steps(500, 128, 64);
    CHECK((s[0].tokens == 1000 && s[0].per_step == 1 && s[1].per_step == 0));
    // 48 / 80 = 0.6 prompts of 3,000 tokens a step overlap (1.2 chunks start a step): 1,800
    // tokens a step arrive, so 1,800 / 2,048 of the steps carry a whole chunk.
    s = steps(3000, 48, 80);
    CHECK((s[0].tokens == 2048 && s[0].per_step == Approx(1800.0 / 2048) && s[1].per_step == 0));
    // 64 / 64 = 1 prompt of 3,000 tokens a step: more than a chunk arrives, so every step carries
    // all 3,000 and the engine falls behind.
    s = steps(3000, 64, 64);
    CHECK((s[0].tokens == 3000 && s[0].per_step == 1 && s[1].per_step == 0));
    // At the edge of overlapping, one token more changes little: 2,048 then 2,049 tokens, the
    // other 31 sequences' prompts in a turn of 64 or 65 steps, about 0.48 a step (Mixtral 8x7B
    // over two H200s, the review's case).
    const Deployment two{load_hardware("h200"), Parallelism{.tensor = 2}};
    Workload w;
    w.batch = 32;
    const Model mixtral = load_model("mixtral-8x7b");
    const Seconds at_2048 = serve(two, mixtral, w, Traffic{.prompt = 2048, .output = 64}, ServingMode::aggregated).tpot;
    const Seconds at_2049 = serve(two, mixtral, w, Traffic{.prompt = 2049, .output = 64}, ServingMode::aggregated).tpot;
    CHECK(at_2049 / at_2048 == Approx(1).margin(0.01));
}

TEST_CASE("ridge: 'bytes read' and attention FLOPs move n* the way the algebra says", "[ridge]") {
    // Fewer charged FLOPs (the lookup not counted) shrink n*. The embedding rows do not move it:
    // a batch of more than the table's 128,256 rows reads each row once (StepCost::row_bytes),
    // so only the KV grows with every sequence, and n* is where its time meets the FLOPs'.
    const auto every = *n_star(h100(), llama8b(), seed::seed_003(Workload{}));
    Workload rows = seed::seed_003(Workload{});
    rows.assumptions.accounting = WeightAccounting::bytes_read;
    rows.assumptions.embedding_lookup_flops = false;
    const auto read = *n_star(h100(), llama8b(), rows);
    const double P = 8'030'261'248.0, table = 128256.0 * 4096;
    const double f = 2 * (P - table) / 989e12, k = 131072.0 / 3.35e12;
    CHECK(read == Approx(f / k).epsilon(1e-12));
    CHECK(read < every);
    // Attention FLOPs grow with context too: n* = (2P/F) / (k/bw - a/F).
    Workload attention = seed::seed_003(Workload{});
    attention.assumptions.attention_flops = true;
    const auto att = *n_star(h100(), llama8b(), attention);
    const double a = 4.0 * 32 * 32 * 128 / 989e12;
    CHECK(att == Approx((2 * P / 989e12) / (k - a)).epsilon(1e-12));
    CHECK(att > every);
    // A verification pass of q = 4 tokens a sequence: each token's FLOPs and its attention, the
    // cache read once: n* = (q 2P/F) / (k/bw - q a/F).
    attention.tokens_per_sequence = 4;
    CHECK(*n_star(h100(), llama8b(), attention) == Approx((4 * 2 * P / 989e12) / (k - 4 * a)).epsilon(1e-12));
}

TEST_CASE("capacity: under the seeds' memory budget, KV beside the weights, and 'does not fit' is a result", "[capacity]") {
    // seed_003: the datasheet's 80 GB whole, nothing reserved, no workspace, so the free memory
    // is 80e9 - 2P = 63,939,477,504 B, which holds 487,819.2 tokens of 131,072 B.
    const Workload seeds = seed::seed_003(Workload{});
    const MemoryUse budget = memory_budget(h100(), seeds.assumptions);
    CHECK(budget.budget.in(bytes) == 80e9);
    CHECK(weights_per_device(llama8b(), Precision{}).in(bytes) == 2 * 8'030'261'248.0);
    CHECK(largest_batch(h100(), llama8b(), seeds, 4096) == 119);  // floor(487,819.2 / 4096)
    // Memory holds 487,819 tokens; the model stops at its max_position_embeddings, 131,072.
    CHECK(longest_context(h100(), llama8b(), seeds, 1).tokens() == 131072);
    CHECK(longest_context(h100(), llama8b(), seeds, 4).tokens() == 121954);  // floor(487,819.2 / 4)
    Model unlimited = llama8b();
    unlimited.max_context = 0;
    CHECK(longest_context(h100(), unlimited, seeds, 1).tokens() == 487819);
    CHECK_THROWS_WITH(largest_batch(h100(), llama8b(), seeds, 131073),
                      "context: got 131073, expected at most model 'llama-3.1-8b' max_position_embeddings (131072); raise "
                      "Model::max_context where the model allows more");
    CHECK_THROWS_AS(decode_step(h100(), llama8b(), seed::seed_003(Workload{.context = 200000})), ridgeline::error);
    CHECK_FALSE(largest_batch(h100(), unlimited, seeds, 487820).has_value());
    CHECK(largest_batch(h100(), unlimited, seeds, 487819) == 1);

    const Model big = load_model("llama-3.1-405b");
    CHECK(weights_per_device(big, Precision{}) > budget.budget);
    CHECK_FALSE(largest_batch(h100(), big, seeds, 1).has_value());
    CHECK(longest_context(h100(), big, seeds, 1) == ContextFit::does_not_fit());
    CHECK_THROWS_AS(ContextFit::does_not_fit().tokens(), std::logic_error);
    CHECK_THROWS_WITH(largest_batch(h100(), llama8b(), seeds, 0), "context: got 0, expected an integer from 1 to 2^40 tokens");
}

TEST_CASE("results say what they count: prefill, generation and serving carry the workload's assumptions", "[decode][assumptions]") {
    // The seeds' accounting on one H100: every answer records it, as a decode step does, the
    // prefill too (its attention FLOPs left out as the seeds leave them out; next test).
    const Model m = load_model("llama-3.1-8b");
    const Deployment d{load_hardware("h100-sxm")};
    Workload w{.batch = 4, .context = 1024};
    w.assumptions = assumptions::seed_003;
    CHECK(decode_step(d, m, w).assumptions == assumptions::seed_003);
    const Prefill p = prefill(d, m, w, 512);
    CHECK(p.assumptions == assumptions::seed_003);
    CHECK_FALSE(assumptions::seed_003.attention_flops);
    CHECK(generate(d, m, w, 512, 16).assumptions == assumptions::seed_003);
    CHECK(generate(d, m, w, 0, 1).assumptions == assumptions::seed_003);
    CHECK(serve(d, m, w, Traffic{.prompt = 512, .output = 64}, ServingMode::aggregated).assumptions == assumptions::seed_003);
    CHECK(serve(d, m, Workload{.batch = 4}, Traffic{.prompt = 512, .output = 64}, ServingMode::aggregated).assumptions == assumptions::physical);
}

TEST_CASE("prefill counts attention FLOPs as the workload says", "[decode][assumptions]") {
    // A review found generate's TTFT unchanged by --attention-flops off under a footer saying
    // they were not counted. Llama 3.1 8B (its config: hidden 4096, 32 layers, 32 heads of 128,
    // vocabulary 128,256, untied head; 8,030,261,248 parameters) prefilling 32,000 tokens on one
    // H100 (989 TFLOP/s BF16, its whitepaper's 989.4 rounded in the preset). By hand:
    //   matmuls: 2 x (8,030,261,248 - 2 x 4096 x 128,256) x 32,000 = 446,693,638,144,000 FLOPs,
    //            and the LM head for the sampled token, 2 x 4096 x 128,256 = 1,050,673,152;
    //   attention: per (query, key) pair QK^T and PV, 2 x 2 x 32 x 128 = 16,384 a layer,
    //            x 32 layers = 524,288, over 32,000 x 32,001 / 2 = 512,016,000 causal pairs.
    const Model m = load_model("llama-3.1-8b");
    const Deployment d{load_hardware("h100-sxm")};
    Workload w{};
    w.assumptions.attention_flops = false;
    const double matmuls = 446'693'638'144'000.0 + 1'050'673'152.0;
    const double pairs = 524'288.0 * 512'016'000.0;
    const Prefill off = prefill(d, m, w, 32000);
    CHECK_FALSE(off.assumptions.attention_flops);
    CHECK(off.flops.in(flop) == Approx(matmuls).epsilon(1e-9));
    CHECK(off.attention_flops.in(flop) == Approx(pairs).epsilon(1e-9));  // reported, not counted
    CHECK(off.time.in(s) == Approx(matmuls / 989e12).epsilon(1e-9));
    w.assumptions.attention_flops = true;
    const Prefill on = prefill(d, m, w, 32000);
    CHECK(on.flops.in(flop) == Approx(matmuls + pairs).epsilon(1e-9));
    CHECK(on.time.in(s) == Approx((matmuls + pairs) / 989e12).epsilon(1e-9));
    // generate's TTFT is that prefill.
    CHECK(generate(d, m, w, 32000, 16).time_to_first_token.in(s) == Approx(on.time.in(s)).epsilon(1e-12));
    w.assumptions.attention_flops = false;
    CHECK(generate(d, m, w, 32000, 16).time_to_first_token.in(s) == Approx(off.time.in(s)).epsilon(1e-12));
}
