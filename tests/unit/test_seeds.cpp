// The seed documents' figures at run time, from the presets in data/ where the documents'
// inputs and the presets agree, and from the documents' own inputs (seed_inputs.hpp) where a
// document rounds. tests/static/seed_arithmetic.cpp asserts the pure arithmetic at compile time.
#include <catch2/catch.hpp>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include "../seed_inputs.hpp"

using namespace ridgeline;

namespace {
double tok_s(const Hardware& h, const Model& m, std::int64_t context, Precision p = {}) {
    return decode_step(h, m, seed::seed_003(Workload{.precision = p, .context = context})).tokens_per_s.in(per_s);
}
// Seed 003's models: the presets' architectures with the parameter counts seed 003 rounds to
// (NOTES.md: "Llama-3.1-8B 8.03e9, Qwen3-32B 32.8e9, Llama-3.3-70B 70.6e9"), at the 128k context
// seed 003 runs them at (Qwen3-32B's config says 40,960; its card gives 131,072 with YaRN).
Model seed003(const char* preset, double params) { return load_model(preset).with_parameters(params).with_max_context(131072); }
}  // namespace

TEST_CASE("seed 003: the h100-sxm preset carries the seed's figures", "[seed003][presets]") {
    // Seed 003 script: "BW = 3.35e12", "F = 989e12"; "ridge_AI = 295.2".
    const Hardware h = load_hardware("h100-sxm");
    CHECK(h.memory_bandwidth.in(bytes_per_s) == 3.35e12);
    CHECK(h.peak_for(Numeric::bf16)->in(flop_per_s) == 989e12);
    CHECK(ops_per_byte(h, Numeric::bf16).in(flop_per_byte) == Approx(295.2).margin(0.05));
}

TEST_CASE("seed 003: batch-1 table from the presets (tok/s to 1 decimal)", "[seed003]") {
    const Hardware h = load_hardware("h100-sxm");
    struct Row {
        const char* preset;
        double params, weights_GB, kv_KiB, at4k, at32k, at128k;
    };
    // Seed 003, table "model weights KV per token 4k 32k 128k tok/s".
    const Row rows[] = {
        {"llama-3.1-8b", 8.03e9, 16.06, 128, 201.8, 164.6, 100.8},
        {"qwen3-32b", 32.8e9, 65.60, 256, 50.2, 45.2, 33.5},
        {"llama-3.3-70b", 70.6e9, 141.20, 320, 23.5, 22.0, 18.2},
    };
    for (const Row& r : rows) {
        INFO(r.preset);
        const Model m = seed003(r.preset, r.params);
        CHECK(parameter_count(m) * 2 / 1e9 == Approx(r.weights_GB).margin(0.005));
        CHECK(kv_bytes_per_token(m, formats::bf16).in(KiB) == r.kv_KiB);
        CHECK(tok_s(h, m, 4096) == Approx(r.at4k).margin(0.05));
        CHECK(tok_s(h, m, 32768) == Approx(r.at32k).margin(0.05));
        CHECK(tok_s(h, m, 131072) == Approx(r.at128k).margin(0.05));
    }
}

TEST_CASE("seed 003: the architectures' own counts differ from the seed's rounded ones", "[seed003][params]") {
    // Llama-3.3-70B has 70,553,706,496 parameters (safetensors), which seed 003 rounds to
    // 70.6e9; unrounded, its 32k figure is 22.06, not the table's 22.0. The library derives
    // by default and takes a declared count only when asked.
    const Hardware h = load_hardware("h100-sxm");
    const Model derived = load_model("llama-3.3-70b");
    CHECK(derived.max_context == 131072);
    CHECK(parameter_count(derived) == 70'553'706'496.0);
    CHECK(tok_s(h, derived, 32768) == Approx(22.06).margin(0.005));
    CHECK(tok_s(h, seed003("llama-3.3-70b", 70.6e9), 32768) == Approx(22.05).margin(0.005));
}

TEST_CASE("seed 003: the Qwen3-32B ridge column and n*", "[seed003][ridge]") {
    const Hardware h = load_hardware("h100-sxm");
    const Model q = seed003("qwen3-32b", 32.8e9);
    // "context / ridge batch: 0 295, 128 348, 512 746, 848 never, 4k never, 128k never"
    CHECK(ridge_batch(h, q, seed::seed_003(Workload{.context = 0})).value() == Approx(295).margin(0.5));
    CHECK(ridge_batch(h, q, seed::seed_003(Workload{.context = 0})).value() == Approx(ops_per_byte(h, Numeric::bf16).in(flop_per_byte)));
    CHECK(ridge_batch(h, q, seed::seed_003(Workload{.context = 128})).value() == Approx(348).margin(0.5));
    CHECK(ridge_batch(h, q, seed::seed_003(Workload{.context = 512})).value() == Approx(746).margin(0.5));
    CHECK(ridge_batch(h, q, seed::seed_003(Workload{.context = 848})).is_never());
    CHECK(ridge_batch(h, q, seed::seed_003(Workload{.context = 4096})).is_never());
    CHECK(ridge_batch(h, q, seed::seed_003(Workload{.context = 131072})).is_never());
    // "That gives 415 tokens for Llama-3.1-8B, 848 for Qwen3-32B, and 1,460 for Llama-3.3-70B" (integers)
    CHECK(*n_star(h, seed003("llama-3.1-8b", 8.03e9), seed::seed_003(Workload{})) == Approx(415).margin(0.5));
    CHECK(*n_star(h, q, seed::seed_003(Workload{})) == Approx(848).margin(0.5));
    CHECK(*n_star(h, seed003("llama-3.3-70b", 70.6e9), seed::seed_003(Workload{})) == Approx(1460).margin(0.5));
}

TEST_CASE("seed 003: halving KV bytes on Qwen3-32B", "[seed003]") {
    const Hardware h = load_hardware("h100-sxm");
    const Model q = seed003("qwen3-32b", 32.8e9);
    const Precision half_kv{formats::bf16, formats::fp8, Numeric::bf16};
    // "with 128 KiB of KV you get 47.9 and 40.5. The ratios are 1.06 and 1.21."
    CHECK(tok_s(h, q, 32768, half_kv) == Approx(47.9).margin(0.05));
    CHECK(tok_s(h, q, 131072, half_kv) == Approx(40.5).margin(0.05));
    CHECK(tok_s(h, q, 32768, half_kv) / tok_s(h, q, 32768) == Approx(1.06).margin(0.005));
    CHECK(tok_s(h, q, 131072, half_kv) / tok_s(h, q, 131072) == Approx(1.21).margin(0.005));
    // "at 32k the KV is 11% of the bytes, at 128k it is 34%" (whole percent). The 32k share is
    // 11.58%: the seed truncates where it rounds elsewhere (11.6% would print as 12%).
    const DecodeStep at32k = decode_step(h, q, seed::seed_003(Workload{.context = 32768}));
    const DecodeStep at128k = decode_step(h, q, seed::seed_003(Workload{.context = 131072}));
    const double share32k = static_cast<double>(at32k.kv_bytes / at32k.total_bytes);
    CHECK(share32k == Approx(0.1158).margin(0.00005));
    CHECK(static_cast<int>(share32k * 100) == 11);
    CHECK(static_cast<double>(at128k.kv_bytes / at128k.total_bytes) == Approx(0.34).margin(0.005));
}

TEST_CASE("seed 003: FP8 what-ifs on n*, and the one that needs FP8 math", "[seed003][ridge]") {
    // FP8 math at exactly twice 989 TFLOP/s, as the seed's "both walls move by the same factor".
    const Hardware h = seed::h100_seed003();
    const Model q = seed003("qwen3-32b", 32.8e9);
    // "Qwen3-32B drops from 848 to 424"; "n* doubles, to 1,695"; "Quantize both and n* lands back at 848".
    CHECK(*n_star(h, q, seed::seed_003(Workload{.precision = precisions::w8a8_fp8})) == Approx(424).margin(0.5));
    CHECK(*n_star(h, q, seed::seed_003(Workload{.precision = {formats::bf16, formats::fp8, Numeric::bf16}})) == Approx(1695).margin(0.5));
    CHECK(*n_star(h, q, seed::seed_003(Workload{.precision = {formats::fp8, formats::fp8, Numeric::fp8}})) == Approx(848).margin(0.5));
    // Seed 003 computes these with n* = weight_bytes / (ops:byte * kv), which agrees with its own
    // ridge formula only when weight bytes = 2P. With FP8 weights read into BF16 math (W8A16) the
    // ridge formula's denominator 2P/F - kv*n/bw does not change, so n* stays 848 while the ridge
    // batch at zero context halves, 295 -> 148: cheaper steps, the same wall.
    const Workload w8a16 = seed::seed_003(Workload{.precision = precisions::w8a16_fp8});
    CHECK(*n_star(h, q, w8a16) == Approx(847.64).margin(0.01));
    CHECK(ridge_batch(h, q, w8a16).value() == Approx(295.22 / 2).margin(0.01));
    CHECK(ridge_batch(h, q, seed::seed_003(Workload{.precision = precisions::w8a16_fp8, .context = 847})).exists());
    CHECK(ridge_batch(h, q, seed::seed_003(Workload{.precision = precisions::w8a16_fp8, .context = 848})).is_never());
    // On the h100-sxm preset FP8 is the datasheet's 1,979 TFLOP/s, a hair over 2 x 989, so
    // "back to 848" lands at 847.2.
    const Hardware preset = load_hardware("h100-sxm");
    CHECK(*n_star(preset, q, seed::seed_003(Workload{.precision = {formats::fp8, formats::fp8, Numeric::fp8}})) == Approx(847.21).margin(0.01));
}

TEST_CASE("seed 000: Llama-70B FP16 on H100 at 3 TB/s", "[seed000]") {
    const DecodeStep d = decode_step(seed::h100_seed000(), seed::llama_70b_rounded(),
                                     seed::seed_003(Workload{.precision = {formats::fp16, formats::fp16, Numeric::fp16}}));
    CHECK(d.weight_bytes.in(GB) == 140);                             // "140 GB"
    CHECK(d.memory_time.in(ms) == Approx(47).margin(0.5));           // "near 47 ms per token"
    CHECK(d.flops.in(GFLOP) == 140);                                 // "roughly 2N or 140 GFLOPs"
    CHECK(d.compute_time.in(ms) == Approx(0.14).margin(0.005));      // "about 0.14 ms"
    CHECK(static_cast<double>(d.memory_time / d.compute_time) > 300);  // "by over 300 times"
    CHECK(d.bound == Bound::memory);
    // "Quantization to INT4 cuts the bytes fourfold to roughly 12 ms"
    const DecodeStep int4 = decode_step(seed::h100_seed000(), seed::llama_70b_rounded(), seed::seed_003(Workload{.precision = precisions::w4a16_int4}));
    CHECK(int4.memory_time.in(ms) == Approx(12).margin(0.5));
    CHECK(static_cast<double>(d.weight_bytes / int4.weight_bytes) == 4);
    // The same step on the h100-sxm preset (3.35 TB/s) is 41.8 ms: the seed rounds bandwidth down.
    CHECK(decode_step(load_hardware("h100-sxm"), seed::llama_70b_rounded(), seed::seed_003(Workload{})).memory_time.in(ms) ==
          Approx(41.79).margin(0.005));
}

TEST_CASE("seed 001: 70 ms on A100, the levers, and the wrong axis", "[seed001]") {
    const Model llama70 = seed::llama_70b_rounded();
    // "on an A100 at 2 TB/s that is roughly 70 ms of unavoidable memory time"
    CHECK(decode_step(seed::a100_seed001(), llama70, seed::seed_003(Workload{})).memory_time.in(ms) == Approx(70).margin(0.5));
    // "FP8 weights halve the weight read to roughly 70 GB"
    CHECK(decode_step(seed::a100_seed001(), llama70, seed::seed_003(Workload{.precision = precisions::w8a16_fp8})).weight_bytes.in(GB) == 70);
    // "H100 at 3.3 TB/s, H200 at 4.8": the H100 datasheet's 3.35, cut to one decimal.
    CHECK(load_hardware("h200").memory_bandwidth.in(TB_per_s) == 4.8);
    CHECK(load_hardware("h100-sxm").memory_bandwidth.in(TB_per_s) >= 3.3);
    CHECK(load_hardware("h100-sxm").memory_bandwidth.in(TB_per_s) < 3.4);

    // "a model with thirty percent fewer attention FLOPs but the same weight count and the same
    // KV cache size ... The realized TPOT improvement is close to zero": at batch 1 the step is
    // max(bytes/bw, FLOPs/F), and the FLOPs term is far below the bytes term.
    // By hand, batch 1 at 4,096 tokens on the H100 (3.35 TB/s, 989 TFLOP/s BF16): bytes are
    // 70.6e9 x 2 of weights and 4,096 x 327,680 of KV (80 layers x 2 x 8 heads x 128 x 2 B);
    // FLOPs are 2 x 70.6e9 and the attention's 4 x 8,192 x 80 x 4,096.
    const Hardware h = load_hardware("h100-sxm");
    const Model m = seed003("llama-3.3-70b", 70.6e9);
    Workload counted = seed::seed_003(Workload{.context = 4096});
    counted.assumptions.attention_flops = true;
    const DecodeStep d = decode_step(h, m, counted);
    const double bytes_70b = 70.6e9 * 2 + 4096 * 327680.0, attention = 4 * 8192.0 * 80 * 4096;
    const double memory = bytes_70b / 3.35e12, compute = (2 * 70.6e9 + attention) / 989e12;
    CHECK(d.step_time.in(s) == Approx(memory).epsilon(1e-12));
    // Thirty percent fewer attention FLOPs leave the compute time far below the memory time, so
    // the step does not change: "~0%".
    CHECK((2 * 70.6e9 + 0.7 * attention) / 989e12 < 0.01 * memory);
    CHECK(compute < 0.01 * memory);
    // Thirty percent fewer bytes, by contrast, is thirty percent less time: the step is the bytes
    // over the bandwidth (checked above), so FP8 weights (half the weight bytes) cut it by the
    // weights' share, by hand 70.6e9 / bytes_70b = 49.5%.
    Workload fp8 = counted;
    fp8.precision.weights = formats::fp8;
    CHECK(decode_step(h, m, fp8).step_time.in(s) == Approx((70.6e9 + 4096 * 327680.0) / 3.35e12).epsilon(1e-12));

    // "70-100 tok/s on H100" for single-stream Llama-3 70B is ~3-4x the BF16 batch-1 ceiling
    // (NOTES.md): it implies quantized weights, several GPUs, or speculative decoding.
    CHECK(70.0 / tok_s(h, m, 4096) == Approx(2.98).margin(0.01));
}

TEST_CASE("seed 002: ops:byte, FC-layer intensity, Llama-2 on A10, LLaMA-2-13B's KV", "[seed002]") {
    // "An A10 delivers 125 TFLOPS against 600 GB/s: 208 ops per byte"; "An A100 ... also about 208".
    CHECK(ops_per_byte(seed::a10_seed002(), Numeric::fp16).in(flop_per_byte) == Approx(208).margin(0.5));
    CHECK(ops_per_byte(load_hardware("a10"), Numeric::bf16).in(flop_per_byte) == Approx(208.3).margin(0.05));
    CHECK(ops_per_byte(seed::a100_seed002(), Numeric::bf16).in(flop_per_byte) == Approx(208).margin(0.5));
    // The A100 presets' datasheet bandwidths give 200.6 (40 GB) and 153.0 (80 GB), not 208.
    CHECK(ops_per_byte(load_hardware("a100-40gb"), Numeric::bf16).in(flop_per_byte) == Approx(200.6).margin(0.05));
    CHECK(ops_per_byte(load_hardware("a100-80gb"), Numeric::bf16).in(flop_per_byte) == Approx(153.0).margin(0.05));
    // TPU v5e: "compute-bound iff the per-replica token batch exceeds 240" (197 TFLOPS / 819 GB/s = 240.5).
    CHECK(ops_per_byte(seed::tpu_v5e(), Numeric::bf16).in(flop_per_byte) == Approx(240).margin(1));

    // "A fully-connected layer with 4096 outputs and 1024 inputs at batch size 1 has an arithmetic
    // intensity of 1 FLOP per byte ... at batch size 512 hits 315 FLOPS/byte"
    CHECK(gemm_cost(4096, 1024, 1, formats::fp16).intensity.in(flop_per_byte) == Approx(0.999).margin(0.0005));
    CHECK(gemm_cost(4096, 1024, 512, formats::fp16).intensity.in(flop_per_byte) == Approx(315).margin(0.5));
    CHECK(gemm_cost(4096, 1024, 512, formats::fp16).intensity > ops_per_byte(seed::a100_seed002(), Numeric::bf16));

    // "14 GB of FP16 weights over 600 GB/s is 23 ms per token — about 43 tokens/second"
    const Model llama2_7b_14gb = load_model("llama-2-7b").with_parameters(7e9);
    const Precision fp16{formats::fp16, formats::fp16, Numeric::fp16};
    const DecodeStep a10 = decode_step(seed::a10_seed002(), llama2_7b_14gb, seed::seed_003(Workload{.precision = fp16}));
    CHECK(a10.step_time.in(ms) == Approx(23).margin(0.5));
    CHECK(a10.tokens_per_s.in(per_s) == Approx(43).margin(0.5));
    // With the architecture's 6.74e9 parameters the same ceiling is 44.5 tok/s.
    CHECK(tok_s(load_hardware("a10"), load_model("llama-2-7b"), 0, fp16) == Approx(44.52).margin(0.005));

    // "for LLaMA 2-13B at 8192 context, just four sequences' KV caches exceed the memory used by the weights"
    const Model l13 = load_model("llama-2-13b");
    const Bytes kv_8k = 8192.0 * kv_bytes_per_token(l13, formats::fp16);
    const Bytes weights = parameter_count(l13) * formats::fp16.bytes_per_element();
    CHECK(kv_8k.in(GB) == Approx(6.7).margin(0.05));  // 6.7 GB each
    CHECK(4.0 * kv_8k > weights);
    CHECK(3.0 * kv_8k < weights);

    // The scaling book's "max tokens/s ~ batch x bandwidth / (batch x kv_cache_bytes + param_bytes)".
    const Workload w = seed::seed_003(Workload{.precision = fp16, .batch = 4, .context = 4096});
    const double B = 4, bw = 600e9, kv = 4096 * 524288.0, params = 2 * 6'738'415'616.0;
    CHECK(scaling_book_tokens_per_s(load_hardware("a10"), load_model("llama-2-7b"), w).in(per_s) ==
          Approx(B * bw / (B * kv + params)).epsilon(1e-12));
}
