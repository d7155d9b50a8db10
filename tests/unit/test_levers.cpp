// The levers of issue 4: parallelism, speculation, prefill, whole generations, efficiency,
// diagnosis, calibration and the per-operator view. Hand-computed cases, limits, invariants.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <tuple>
#include <filesystem>
#include <fstream>
#include <initializer_list>

#include <ridgeline/calibrate.hpp>
#include <ridgeline/diagnose.hpp>
#include <ridgeline/generation.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/operators.hpp>
#include <ridgeline/prefill.hpp>
#include <ridgeline/serving.hpp>
#include <ridgeline/ridgeline.hpp>

#include "../seed_inputs.hpp"
#include "h100.hpp"
#include <ridgeline/speculative.hpp>

using namespace ridgeline;
using ridgeline_tests::h100;

namespace {
Workload at(std::int64_t context = 0, std::int64_t batch = 1) { return seed::seed_003(Workload{.batch = batch, .context = context}); }
Deployment tp(std::int64_t t) { return Deployment{h100(), Parallelism{.tensor = t}}; }
// The solver's tests plant terms on decode's ideal bytes, which keep activations on chip, and
// check the fit recovers them, or fit by hand from those bytes: fitted with the same bytes.
CalibrationTerms ceiling_bytes(CalibrationTerms t = {}) {
    t.activation_traffic = false;
    return t;
}
}  // namespace

TEST_CASE("tensor parallel: weights and KV heads split, all-reduces on the link", "[parallel]") {
    const Model m = load_model("llama-3.3-70b");
    const DecodeStep one = decode_step(tp(1), m, at(4096));
    const DecodeStep four = decode_step(tp(4), m, at(4096));
    const ParameterBreakdown p = derived_parameters(m);
    // Per device: every weight but the (replicated) norms over 4, and 8 KV heads over 4.
    CHECK(four.bytes_per_device.in(bytes) == Approx(2 * ((p.total() - p.norms) / 4 + p.norms) + 4096.0 * 327680 / 4).epsilon(1e-12));
    CHECK(four.devices == 4);
    CHECK(four.kv_bytes == one.kv_bytes);  // split, not replicated
    CHECK(four.flops.in(flop) == Approx(one.flops.in(flop)).epsilon(1e-12));
    // Two ring all-reduces per layer of 1 x 8192 bf16 activations (16,384 B): 2(t-1) = 6 ring
    // steps each, every step paying the link latency (0.6 us, NCCL's NVLink figure in the
    // h100-sxm preset) and sending 16,384 / 4 B over 450 GB/s (half of NVLink's 900 GB/s both ways).
    const double all_reduce = 6 * (0.6e-6 + 16384.0 / 4 / 450e9);
    CHECK(four.communication_time.in(s) == Approx(2 * 80 * all_reduce).epsilon(1e-12));
    CHECK(four.links.messages == 2 * 80 * 6);
    CHECK(four.step_time == four.memory_time + four.communication_time);
    // The deployment can set the latency per message.
    Deployment slow = tp(4);
    slow.parallel.link_latency = us(10);
    CHECK(decode_step(slow, m, at(4096)).communication_time.in(s) == Approx(2 * 80 * 6 * (10e-6 + 16384.0 / 4 / 450e9)).epsilon(1e-12));
    // A link given fills only the one the preset lacks: within its 8-GPU NVLink domain an H100
    // keeps NVLink. t = 1 has no communication.
    Deployment given = tp(4);
    given.parallel.link_bandwidth = GB_per_s(64);
    CHECK(decode_step(given, m, at(4096)).communication_time == four.communication_time);
    CHECK(one.communication_time == Seconds{});
    // Past the domain of a device whose preset has no scale-out network (the H20's 8 NVLink GPUs),
    // the link given is that network: 16 devices, 2 x 15 ring steps of 16,384 / 16 B over 50 GB/s
    // one way, the 4 that cross between the two domains at the physical fallback latency of
    // 2.7 us (NCCL's network figure; the preset has none for it), the 26 inside one at NCCL's
    // 1 us network proxy launch (above the NVLink's 0.6 us). Without it, no link joins them.
    Deployment h20{load_hardware("h20"), Parallelism{.tensor = 16}};
    CHECK_THROWS_WITH(decode_step(h20, m, Workload{.context = 4096}),
                      "hardware 'NVIDIA H20 96GB' scale_out_GB_per_s: got none, expected the figure in the preset (or set it on the "
                      "deployment: Parallelism::link_bandwidth) for a group of 16 devices, past its scale-up domain of 8");
    // Its own type, saying which figure is missing, so a search over degrees can stop there.
    try {
        validate(h20, m);
        FAIL("no link joins 16 H20s");
    } catch (const missing_link& e) {
        CHECK(e.scale_out());
    }
    h20.parallel.link_bandwidth = GB_per_s(100);
    const DecodeStep far = decode_step(h20, m, Workload{.context = 4096});
    CHECK(far.links.tensor_link.scale_out);
    CHECK(far.communication_time.in(s) == Approx(2 * 80 * (4 * 2.7e-6 + 26 * 1.0e-6 + 30 * (16384.0 / 16 / 50e9))).epsilon(1e-12));
    // The MI355X's preset gives its network (eight Pollara 400 NICs a node, one a GPU: ROCm's MoRI
    // guide), 100 GB/s both ways, at RCCL's 9.5 us a network ring step (tuning.cc, as for the
    // MI300X): the same ring as the H20s' at that latency, its steps inside a node at 1 us (above
    // RCCL's 0.8 us xGMI figure).
    const DecodeStep mi355x = decode_step(Deployment{load_hardware("mi355x"), Parallelism{.tensor = 16}}, m, Workload{.context = 4096});
    CHECK(mi355x.links.tensor_link.scale_out);
    CHECK(std::string(mi355x.links.tensor_link.latency_from) == "hardware preset");
    CHECK(mi355x.communication_time.in(s) == Approx(2 * 80 * (4 * 9.5e-6 + 26 * 1.0e-6 + 30 * (16384.0 / 16 / 50e9))).epsilon(1e-12));
    // A card without NVLink: the link is the PCIe bandwidth the deployment gives, each step NCCL's
    // PCI ring latency (1.0 us, src/graph/tuning.cc hwLat, as the preset cites). Llama-3.3-70B at
    // t = 4 on RTX 4090s, 64 GB/s each way: 80 layers x 2 all-reduces x 6 ring steps of 16,384 / 4 B.
    Deployment cards{load_hardware("rtx-4090"), Parallelism{.tensor = 4}};
    cards.parallel.link_bandwidth = GB_per_s(64);
    CHECK(decode_step(cards, m, at(4096)).communication_time.in(s) == Approx(2 * 80 * 6 * (1.0e-6 + 16384.0 / 4 / 32e9)).epsilon(1e-12));
    // More devices, more bandwidth: never slower per step at batch 1 here.
    CHECK(four.step_time < one.step_time);
    CHECK(four.tokens_per_s.in(per_s) == Approx(1.0 / four.step_time.in(s)));
}

TEST_CASE("tensor parallel: KV heads replicate past their count, and MLA's latent replicates", "[parallel]") {
    const Model m = load_model("llama-3.1-8b");  // 32 heads, 8 KV heads
    const DecodeStep eight = decode_step(tp(8), m, at(4096));
    const DecodeStep sixteen = decode_step(tp(16), m, at(4096));
    CHECK(eight.kv_bytes.in(bytes) == Approx(4096.0 * 131072).epsilon(1e-12));
    CHECK(sixteen.kv_bytes.in(bytes) == Approx(2 * 4096.0 * 131072).epsilon(1e-12));  // each head held twice
    CHECK(sixteen.kv_bytes / sixteen.devices == eight.kv_bytes / eight.devices);      // one head per device
    const Model ds = load_model("deepseek-v3");
    const DecodeStep ds8 = decode_step(tp(8), ds, at(4096));
    CHECK(ds8.kv_bytes.in(bytes) == Approx(8 * 4096.0 * 61 * 576 * 2).epsilon(1e-12));
    CHECK_THROWS_WITH(decode_step(tp(3), m, at()),
                      "tensor-parallel degree: got 3, expected a divisor of the attention heads (32) of model 'llama-3.1-8b'");
    CHECK_THROWS_WITH(decode_step(tp(64), m, at()),
                      "tensor-parallel degree: got 64, expected a divisor of the attention heads (32) of model 'llama-3.1-8b'");
    CHECK_THROWS_WITH(decode_step(Deployment{load_hardware("a10"), Parallelism{.tensor = 2}}, m, at()),
                      "hardware 'NVIDIA A10 24GB' interconnect_GB_per_s: got none, expected the figure in the preset (or set it "
                      "on the deployment: Parallelism::link_bandwidth) for a split over several devices");
    try {
        validate(Deployment{load_hardware("a10"), Parallelism{.tensor = 2}}, m);
        FAIL("no link joins two A10s");
    } catch (const missing_link& e) {
        CHECK_FALSE(e.scale_out());
    }
    Deployment ep = tp(8);
    ep.parallel.expert = 3;
    CHECK_THROWS_WITH(decode_step(ep, m, at()), "expert-parallel degree: got 3, expected a divisor of the tensor-parallel degree (8)");
    ep.parallel.expert = 2;
    CHECK_THROWS_WITH(decode_step(ep, m, at()), "expert-parallel degree: got 2, expected 1: there are no routed experts of model 'llama-3.1-8b'");
}

TEST_CASE("pipeline parallel: batch-1 latency does not improve, throughput does", "[parallel]") {
    const Model m = load_model("llama-3.3-70b");
    const Workload w = at(2048, 8);
    const DecodeStep one = decode_step(h100(), m, w);
    const DecodeStep four = decode_step(Deployment{h100(), Parallelism{.pipeline = 4}}, m, w);
    // Four stages of 20 layers in turn, each paced by the busiest: the last, which reads its 20
    // layers (855,654,400 BF16 parameters each), the LM head (128,256 x 8,192) and final norm
    // (8,192), and its layers' cache for 8 sequences of 2,048 tokens (8 KV heads x 128, K and V,
    // 2 B): 34,226,176,000 + 2,101,346,304 + 16,384 + 1,342,177,280 = 37,669,715,968 B at
    // 3.35 TB/s. Plus three hops of 8 x 8192 BF16 activations, each paying 0.6 us.
    const double hop = 0.6e-6 + 8.0 * 8192 * 2 / 450e9;
    const double stage = (20 * 855'654'400.0 * 2 + 128256.0 * 8192 * 2 + 8192 * 2 + 20 * 8 * 2048 * 4096.0) / 3.35e12;
    CHECK(four.memory_time.in(s) == Approx(stage).epsilon(1e-12));
    CHECK(four.step_time.in(s) == Approx(4 * stage + 3 * hop).epsilon(1e-12));
    CHECK(four.step_time >= one.step_time + 3 * s(hop));
    // Four micro-batches in flight: four times the sequences, at the last stage's pace.
    CHECK(four.total_tokens_per_s.in(per_s) == Approx(4 * 8 / four.step_time.in(s)).epsilon(1e-12));
    CHECK(four.total_tokens_per_s < 4.0 * one.total_tokens_per_s);
    // The step's totals are every stage's once: as without a pipeline.
    CHECK(four.weight_bytes.in(bytes) == Approx(one.weight_bytes.in(bytes)).epsilon(1e-12));
    CHECK(four.kv_bytes.in(bytes) == Approx(one.kv_bytes.in(bytes)).epsilon(1e-12));
    CHECK(four.flops.in(flop) == Approx(one.flops.in(flop)).epsilon(1e-12));
    CHECK_THROWS_WITH(decode_step(Deployment{h100(), Parallelism{.pipeline = 81}}, m, w),
                      "pipeline-parallel degree: got 81, expected at most the layers (80) of model 'llama-3.3-70b'");
}

TEST_CASE("speculation: expected tokens per verification and its limits", "[speculative]") {
    CHECK(expected_tokens_per_verification({4, 0.0}) == 1);
    CHECK(expected_tokens_per_verification({4, 1.0}) == 5);
    CHECK(expected_tokens_per_verification({4, 0.8}) == Approx((1 - std::pow(0.8, 5)) / 0.2).epsilon(1e-14));  // 3.3616
    CHECK(expected_tokens_per_verification({1, 0.5}) == 1.5);
    CHECK(expected_tokens_per_verification({6, 0.999999}) == Approx(7).epsilon(1e-5));
    CHECK_THROWS_WITH(expected_tokens_per_verification({4, 1.5}), "speculation.acceptance: got 1.5, expected a probability in [0, 1]");
    CHECK_THROWS_AS(expected_tokens_per_verification({0, 0.5}), ridgeline::error);
}

TEST_CASE("speculation: verification reads once, computes g + 1 tokens, and the gain vanishes when compute-bound", "[speculative]") {
    const Model target = load_model("llama-3.3-70b");
    const Model draft = load_model("llama-3.1-8b");
    const Speculation spec{4, 0.8};
    // Batch 1 at 4k: verification costs what a plain step costs (the bytes), so with a free
    // draft the speedup is the expected tokens per verification.
    const SpeculativeDecode free = speculative_decode(h100(), target, seed::seed_003(Workload{.context = 4096}), spec);
    CHECK(free.verify.total_bytes == free.plain.total_bytes);
    // 2 FLOPs per parameter (70,553,706,496, every one charged under seed 003's budget) per token:
    // one token plain, five verified.
    CHECK(free.plain.flops.in(flop) == Approx(2 * 70553706496.0).epsilon(1e-12));
    CHECK(free.verify.flops.in(flop) == Approx(5 * 2 * 70553706496.0).epsilon(1e-12));
    CHECK(free.verify.step_time == free.plain.step_time);
    CHECK(free.speedup == Approx(3.3616).epsilon(1e-12));
    // With an 8B draft: g draft steps per cycle.
    const SpeculativeDecode drafted = speculative_decode(h100(), target, seed::seed_003(Workload{.context = 4096}), spec, &draft);
    const double draft_step = decode_step(h100(), draft, seed::seed_003(Workload{.context = 4096})).step_time.in(s);
    CHECK(drafted.cycle_time.in(s) == Approx(4 * draft_step + drafted.verify.step_time.in(s)).epsilon(1e-12));
    CHECK(drafted.speedup == Approx(3.3616 * drafted.plain.step_time.in(s) / drafted.cycle_time.in(s)).epsilon(1e-12));
    CHECK(drafted.speedup > 1);
    // Short context, large batch: compute-bound, verifying 5 tokens costs about 5 steps.
    const SpeculativeDecode busy = speculative_decode(h100(), draft, seed::seed_003(Workload{.batch = 1024, .context = 0}), spec);
    REQUIRE(busy.plain.bound == Bound::compute);
    CHECK(busy.verify.step_time.in(s) == Approx(5 * busy.plain.step_time.in(s)).epsilon(1e-12));
    CHECK(busy.speedup < 1);
    CHECK(busy.speedup == Approx(3.3616 / 5).epsilon(1e-12));
    // Under tensor parallelism the draft is split as the target is (vLLM's default draft degree),
    // or, asked, runs on one device: at TP 4 the 8B draft's step is a quarter of its weights per
    // device plus its all-reduces, against all 16 GB on one.
    const Deployment tp4{h100(), Parallelism{.tensor = 4}};
    const Workload at4k = seed::seed_003(Workload{.context = 4096});
    const SpeculativeDecode split = speculative_decode(tp4, target, at4k, spec, &draft);
    CHECK(split.draft_time == 4.0 * decode_step(tp4, draft, at4k).step_time);
    const SpeculativeDecode alone = speculative_decode(tp4, target, at4k, Speculation{4, 0.8, 1}, &draft);
    CHECK(alone.draft_time == 4.0 * decode_step(h100(), draft, at4k).step_time);
    CHECK(split.speedup > alone.speedup);
    // No other degree: the deployment has no devices for it (vLLM takes 1 or the target's).
    CHECK_THROWS_WITH(speculative_decode(tp4, target, at4k, Speculation{4, 0.8, 2}, &draft),
                      "speculation.draft_tensor: got 2, expected 0 (the target's degree), 1, or the target's degree (4)");
    // A draft must share the target's vocabulary (vLLM refuses one that does not): Qwen3-8B's
    // 151,936 tokens against Llama's 128,256 (their config.json files).
    const Model qwen = load_model("qwen3-8b");
    CHECK_THROWS_WITH(speculative_decode(h100(), target, at4k, spec, &qwen),
                      "draft model: got 'qwen3-8b' (151936 tokens), expected a model with the target's vocabulary (128256 tokens): "
                      "its drafts are the target's tokens");
}

TEST_CASE("speculation: a draft model's weights and KV share the target's memory", "[speculative]") {
    // Llama-3.1-70B at TP 2 on H200s, batch 64 at 4,096 tokens, four drafts from Llama-3.1-8B.
    const Model target = load_model("llama-3.1-70b");
    const Model draft = load_model("llama-3.1-8b");
    const Deployment two{load_hardware("h200"), Parallelism{.tensor = 2}};
    const Workload w{.batch = 64, .context = 4096};
    // Llama-3.1-8B (meta-llama/Llama-3.1-8B config.json): 8,030,261,248 parameters in bf16, of
    // them (2 x 32 + 1) x 4,096 = 266,240 in norms, which a split replicates; 32 layers x 8 KV
    // heads x 128 x (K and V) x 2 B = 131,072 B of cache a token, at 4,096 + 4 - 1 = 4,099 tokens
    // after its fourth draft step.
    const double params = 8'030'261'248.0, norms = 266'240.0, kv_token = 131'072.0, cached = 4'099.0;
    const SpeculativeDecode alone = speculative_decode(two, target, w, Speculation{4, 0.8, 1}, &draft);
    CHECK((alone.memory.weights - alone.verify.memory.weights).in(bytes) == Approx(2 * params).epsilon(1e-12));
    CHECK((alone.memory.kv - alone.verify.memory.kv).in(bytes) == Approx(64 * cached * kv_token).epsilon(1e-12));
    const SpeculativeDecode split = speculative_decode(two, target, w, Speculation{4, 0.8}, &draft);
    CHECK((split.memory.weights - split.verify.memory.weights).in(bytes) == Approx(2 * ((params - norms) / 2 + norms)).epsilon(1e-12));
    CHECK((split.memory.kv - split.verify.memory.kv).in(bytes) == Approx(64 * cached * kv_token / 2).epsilon(1e-12));
    // The budget: 0.9 of the 143,771 MiB an H200 reports (nvidia-smi, the preset's source) less
    // 1 GiB, 134.6 GB. The target alone holds 70.6 GB of weights and 64 x 4,100 x 163,840 B =
    // 43.0 GB of KV (80 layers x 4 KV heads a device x 128 x 2 x 2 B), 113.6 GB: it fits. The
    // whole draft on one of its devices adds 16.1 GB and 34.4 GB, 164 GB: it does not.
    // 134,605,596,262.4 B, in whole bytes.
    CHECK(alone.memory.budget.in(bytes) == 134'605'596'262.0);
    CHECK(alone.verify.memory.fits());
    CHECK_FALSE(alone.fits());
    // In its checkpoint's formats (vLLM loads a draft with its own quantization): beside a target
    // stored and cached in fp8, Llama-3.1-8B's bf16 checkpoint still holds 2 B a weight, while its
    // cache is the target's fp8, 1 B an element: half the bf16 figure above.
    Workload fp8 = w;
    fp8.precision.weights = fp8.precision.kv = formats::fp8;
    const Precision bf16_checkpoint = load_model_with_formats("llama-3.1-8b").precision;
    const SpeculativeDecode own = speculative_decode(two, target, fp8, Speculation{4, 0.8}, &draft, bf16_checkpoint);
    CHECK((own.memory.weights - own.verify.memory.weights).in(bytes) == Approx(2 * ((params - norms) / 2 + norms)).epsilon(1e-12));
    CHECK((own.memory.kv - own.verify.memory.kv).in(bytes) == Approx(64 * cached * kv_token / 2 / 2).epsilon(1e-12));
    // Its embeddings and LM head are its checkpoint's too: a target storing them in fp8 leaves the
    // draft's bf16 figure as it was.
    Workload fp8_tables = fp8;
    fp8_tables.precision.embeddings = fp8_tables.precision.lm_head = formats::fp8;
    const SpeculativeDecode own_tables = speculative_decode(two, target, fp8_tables, Speculation{4, 0.8}, &draft, bf16_checkpoint);
    CHECK((own_tables.memory.weights - own_tables.verify.memory.weights).in(bytes) ==
          Approx(2 * ((params - norms) / 2 + norms)).epsilon(1e-12));
    // A draft computes as its own kernels do (vLLM's fp8.py: W8A8 where the device has an fp8
    // peak; weight-only kernels, AWQ's or GPTQ's, in 16-bit math in the target's 16-bit type),
    // whatever the target computes in.
    const Hardware a100 = load_hardware("a100-80gb");
    const Precision fp8_target{.weights = formats::fp8, .compute = Numeric::fp8};
    CHECK(draft_compute(formats::bf16, fp8_target, load_hardware("h200")) == Numeric::bf16);
    CHECK(draft_compute(Format{Numeric::int4, 16, 128}, fp8_target, load_hardware("h200")) == Numeric::bf16);
    CHECK(draft_compute(formats::fp8, Precision{}, load_hardware("h200")) == Numeric::fp8);
    CHECK(draft_compute(formats::fp8, Precision{}, a100) == Numeric::bf16);  // no fp8 peak: Marlin's 16-bit math
    CHECK(draft_compute(formats::bf16, Precision{.compute = Numeric::fp16}, load_hardware("h200")) == Numeric::fp16);
    // Without its formats the draft is read in the workload's: every weight in fp8, 1 B.
    const SpeculativeDecode as_target = speculative_decode(two, target, fp8, Speculation{4, 0.8}, &draft);
    CHECK((as_target.memory.weights - as_target.verify.memory.weights).in(bytes) == Approx((params - norms) / 2 + norms).epsilon(1e-12));
    // A pipeline with a draft model is refused: each micro-batch in flight needs its own drafts.
    CHECK_THROWS_WITH(speculative_decode(Deployment{load_hardware("h200"), Parallelism{.pipeline = 2}}, target, w, Speculation{}, &draft),
                      "pipeline-parallel degree: got 2, expected 1 with a draft model: its steps for each micro-batch in flight are not "
                      "modelled");
    // Without a draft model (n-grams, prompt lookup) nothing is added.
    const SpeculativeDecode free = speculative_decode(two, target, w, Speculation{4, 0.8});
    CHECK(free.memory.used() == free.verify.memory.used());
    CHECK(free.fits());
}

TEST_CASE("speculation: DeepSeek-V3 drafts with its own MTP module", "[speculative][mtp]") {
    const Model v3 = load_model("deepseek-v3");
    const Deployment h200{load_hardware("h200"), {}};
    const Workload w{.batch = 1, .context = 4096};  // bf16 weights and KV
    const Speculation mtp{1, 0.85, 0, true};
    // One drafted token: the module's one pass runs over both positions the target verified, the
    // draft and the token after it (vLLM's drafter runs over all g + 1). At batch 1 it reads, in
    // bf16 (deepseek-ai/DeepSeek-V3 config.json: hidden 7,168, q_lora 1,536, kv_lora 512, 128
    // heads of 128 + 64 rope dims, v 128; 256 experts of 2,048, 8 a token, 1 shared; vocab 129,280):
    //   MLA: q_a 7,168 x 1,536 + q_b 1,536 x 128 x 192 + kv_a 7,168 x 576 + kv_b 512 x 128 x 256
    //        + o 128 x 128 x 7,168 + its two norms 1,536 + 512         = 187,107,328
    //   MoE: the experts two tokens touch, 256 (1 - (248/256)^2) = 15.75, and the shared one,
    //        16.75 x 3 x 7,168 x 2,048, + router 256 x 7,168 and its
    //        bias (e_score_correction_bias) 256                        = 739,508,480
    //   the layer's two norms 2 x 7,168                                  =      14,336
    //   eh_proj 2 x 7,168 x 7,168, enorm, hnorm, head norm 3 x 7,168     = 102,781,952
    //   the LM head 129,280 x 7,168 and two embedding rows 2 x 7,168     = 926,693,376
    // 1,956,105,472 weights, 3,912,210,944 B, and the module's MLA cache, (512 + 64) x 2 B a token
    // at 4,096 tokens, 4,718,592 B: 3,916,929,536 B at the H200's 4.8 TB/s, 816.0 us.
    const double two_tokens = 187'107'328.0 + 739'508'480.0 + 14'336.0 + 102'781'952.0 + 926'693'376.0;
    const double cache = 576 * 2 * 4096.0;
    const SpeculativeDecode r = speculative_decode(h200, v3, w, mtp);
    CHECK(r.draft_time.in(s) == Approx((2 * two_tokens + cache) / 4.8e12).epsilon(1e-9));
    // Memory: the module's weights but not the embeddings and head it shares (its block with all
    // 257 experts, 257 x 3 x 7,168 x 2,048 + the MLA, router and norms above, its head norm,
    // eh_proj and two norms: 11,610,068,224), and its cache of the 4,097 positions verified.
    CHECK((r.memory.weights - r.verify.memory.weights).in(bytes) == Approx(2 * 11'610'068'224.0).epsilon(1e-12));
    CHECK((r.memory.kv - r.verify.memory.kv).in(bytes) == Approx(576 * 2 * 4097.0).epsilon(1e-12));
    // Three drafted tokens: one pass over the four positions verified (256 (1 - (248/256)^4) =
    // 30.531 experts touched), then two of one token a sequence (8 experts, one embedding row),
    // the one module each time; its cache holds 4,099 positions.
    const double four_tokens = two_tokens + (30.531005859375 - 15.75) * 3 * 7168 * 2048 + 2 * 7168;
    const double one_token = two_tokens - (15.75 - 8) * 3 * 7168 * 2048 - 7168;
    const SpeculativeDecode r3 = speculative_decode(h200, v3, w, Speculation{3, 0.85, 0, true});
    CHECK(r3.draft_time.in(s) == Approx((2 * four_tokens + cache + 2 * (2 * one_token + cache)) / 4.8e12).epsilon(1e-9));
    CHECK((r3.memory.kv - r3.verify.memory.kv).in(bytes) == Approx(576 * 2 * 4099.0).epsilon(1e-12));
    // The pass over four positions multiplies the LM head for the one each sequence samples:
    // four one-token passes' FLOPs less three heads, 3 x 2 x 129,280 x 7,168.
    const Flops one_pass = mtp_draft_step(h200, v3, w).flops;
    const Flops four_pass = mtp_draft_step(h200, v3, verification_workload(w, 3)).flops;
    CHECK((4 * one_pass - four_pass).in(flop) == Approx(3 * 2 * 129280.0 * 7168).epsilon(1e-9));
    // eh_proj is whole on every device: at TP 8 each multiplies it for all 64 sequences, 8 x 64 x
    // 2 x 2 x 7,168^2 FLOPs beside the block's; with the attention in 8 data-parallel ranks each
    // projects only its own 8 sequences, 64 x 2 x 2 x 7,168^2.
    const Workload b64{.batch = 64, .context = 4096};
    for (const std::int64_t ranks : {1, 8}) {
        const Deployment split{load_hardware("h200"), Parallelism{.tensor = 8, .attention_data = ranks}};
        const Flops beside = mtp_draft_step(split, v3, b64).flops - decode_step(split, mtp_block(v3), b64).flops;
        CHECK(beside.in(flop) == Approx(8.0 / static_cast<double>(ranks) * 64 * 4 * 7168.0 * 7168).epsilon(1e-9));
    }
    // Under fp8 weights the projection stays as the checkpoint keeps unquantised layers, the LM
    // head's format: 2 x 7,168^2 + 2 x 7,168 weights at 2 B each beside the block's fp8 bytes.
    Workload fp8 = w;
    fp8.precision.weights = formats::fp8;
    fp8.precision.lm_head = formats::bf16;
    CHECK(mtp_projection_bytes(v3, fp8.precision).in(bytes) == Approx(2 * (2 * 7168.0 * 7168 + 2 * 7168)).epsilon(1e-12));
    // "the acceptance rate of the second token prediction ranges between 85% and 90% ... delivering
    // 1.8 times TPS" (DeepSeek-V3 Technical Report, arXiv 2412.19437, section 5.4.3). Served with
    // every expert read anyway (batch 256 on eight H200s, memory-bound), verifying two tokens reads
    // what one does; the module's step (2% of the step's bytes) and the all-reduces of two tokens a
    // sequence (about 1.7 ms more a step over NVLink) keep the ceiling's speedup under 1 + a, near
    // that figure.
    const Deployment eight{load_hardware("h200"), Parallelism{.tensor = 8}};
    const Workload served{.precision = Precision{.weights = formats::fp8, .kv = formats::fp8}, .batch = 256, .context = 4096};
    for (const double a : {0.85, 0.90}) {
        const SpeculativeDecode at = speculative_decode(eight, v3, served, Speculation{1, a, 0, true});
        CAPTURE(a, at.speedup);
        CHECK(at.verify.bound == Bound::memory);
        CHECK(at.speedup > 1.6);
        CHECK(at.speedup < 1 + a);
    }
    // The module copies the model's last layer, not the last kind of layer met: full, windowed,
    // full attention leave the full layers' group first and the last layer full.
    Model interleaved = dense_model("interleaved", 1, 1024, 8, 8, 128, 4096, 32000);
    const LayerSpec windowed{Gqa{8, 8, 128}, 4096, DenseMlp{4096}};
    interleaved.add_layers(1, windowed).add_layers(1, interleaved.groups[0].spec);
    interleaved.mtp_layers = 1;
    CHECK(mtp_block(interleaved).groups[0].spec.window == 0);
    interleaved.add_layers(1, windowed);
    CHECK(mtp_block(interleaved).groups[0].spec.window == 4096);
    // Refused: a model without modules, a draft model beside them, another split, a pipeline.
    const Model llama = load_model("llama-3.1-8b");
    CHECK_THROWS_WITH(speculative_decode(h200, llama, w, mtp),
                      "model 'llama-3.1-8b' num_nextn_predict_layers: got 0, expected at least 1 to draft with its MTP modules");
    CHECK_THROWS_WITH(speculative_decode(h200, v3, w, mtp, &llama),
                      "draft model: got 'llama-3.1-8b', expected none beside MTP drafting: the target's own modules draft");
    CHECK_THROWS_WITH(speculative_decode(eight, v3, served, Speculation{1, 0.85, 1, true}),
                      "speculation.draft_tensor: got 1, expected 0 or the target's degree (8) with MTP drafting: the modules are split as "
                      "the target's layers");
    CHECK_THROWS_WITH(speculative_decode(Deployment{load_hardware("h200"), Parallelism{.pipeline = 2}}, v3, w, mtp),
                      "pipeline-parallel degree: got 2, expected 1 with MTP drafting: its steps for each micro-batch in flight are not "
                      "modelled");
}

TEST_CASE("speculation: an EAGLE-3 head drafts from the target's hidden states", "[speculative][draft_head]") {
    const Model llama = load_model("llama-3.1-8b");
    const DraftHead head = load_draft_head("eagle3-llama-3.1-8b");
    const Workload w{.batch = 1, .context = 4096};  // bf16 KV and embedding table, Llama 3.1 8B's checkpoint
    // Five drafts at batch 1 on an H100 SXM (3.35 TB/s). Each pass reads the head in its
    // checkpoint's fp16 (SpecForge's llama3-8B-eagle3.json): its layer, q 4,096 x 4,096 + k and v
    // 4,096 x 1,024 each + o 4,096 x 4,096 + the MLP 3 x 4,096 x 14,336 + 2 norms of 4,096
    // = 218,112,000; the first qkv's second input (the hidden state beside the embedding),
    // 4,096 x (4,096 + 2 x 1,024) = 25,165,824; hidden_norm and the final norm, 8,192; its LM head
    // 32,000 x 4,096 = 131,072,000: 374,358,016 weights, 748,716,032 B. Plus a token's embedding
    // row, 4,096 x 2 B, and the one layer's cache, 8 KV heads x 128 x 2 x 2 B = 4,096 B a token at
    // 4,096 tokens. The first pass runs over the six positions verified, with fc
    // (3 x 4,096 x 4,096 = 50,331,648 weights) fusing their hidden states.
    const double weights = 2 * (218'112'000.0 + 25'165'824.0 + 8'192.0 + 131'072'000.0);
    const double fc = 2 * 50'331'648.0, row = 4096 * 2.0, cache = 4096 * 4096.0;
    const SpeculativeDecode r = speculative_decode(Deployment{h100(), {}}, llama, w, Speculation{5, 0.8}, head);
    CHECK(r.draft_time.in(s) == Approx((weights + fc + 6 * row + cache + 4 * (weights + row + cache)) / 3.35e12).epsilon(1e-9));
    // Memory: what the head holds beside the shared table (424,689,664 weights, fp16) and its cache
    // of the 4,096 + 5 positions the verification holds.
    CHECK((r.memory.weights - r.verify.memory.weights).in(bytes) == Approx(2 * 424'689'664.0).epsilon(1e-12));
    CHECK((r.memory.kv - r.verify.memory.kv).in(bytes) == Approx(4096 * 4101.0).epsilon(1e-12));
    // A pass reads 5% of what the 8B target's step does, so five cost a quarter of a step and the
    // speedup stays near the expected tokens, (1 - 0.8^6) / 0.2 = 3.69: 3.69 x 4.64 / (4.64 + 1.17).
    CHECK(r.speedup == Approx(3.68928 * r.plain.step_time.in(s) / (r.verify.step_time + r.draft_time).in(s)).epsilon(1e-12));
    CHECK(r.speedup > 2.5);
    // SGLang's published EAGLE-3 figures for Llama 3.1 8B Instruct on one H100, MT-bench: 158.34
    // tok/s plain, 373.25 with EAGLE-3 (SGLang's speculative decoding docs, "Performance
    // Highlights"; speculative_num_steps defaults to 5). No tree of five steps can beat a chain of
    // five that accepts every draft, so both lie under ridgeline's ceilings.
    const SpeculativeDecode all = speculative_decode(Deployment{h100(), {}}, llama, w, Speculation{5, 1.0}, head);
    CHECK(158.34 < r.plain.tokens_per_s.in(per_s));
    CHECK(373.25 < all.tokens_per_s.in(per_s));

    // Split over two devices as the target's layers: each holds half the layer, the second input
    // and the LM head, the norms whole, and fc whole (a ReplicatedLinear): per device
    // (218,103,808 / 2 + 8,192) + 25,165,824 / 2 + 8,192 + 131,072,000 / 2 + 50,331,648.
    const Deployment two{h100(), Parallelism{.tensor = 2}};
    const SpeculativeDecode split = speculative_decode(two, llama, w, Speculation{5, 0.8}, head);
    CHECK((split.memory.weights - split.verify.memory.weights).in(bytes) ==
          Approx(2 * (218'103'808.0 / 2 + 8'192 + 25'165'824.0 / 2 + 8'192 + 131'072'000.0 / 2 + 50'331'648)).epsilon(1e-12));
    // A pass at TP 2 on one device: half the layer (its norms whole), half the second input, both
    // norms, half the LM head, an embedding row split as the table is (4,096 B), half the cache (4
    // of 8 KV heads); the first pass adds fc whole and five more rows.
    const double per_device = 2 * (218'103'808.0 / 2 + 8'192 + 25'165'824.0 / 2 + 8'192 + 131'072'000.0 / 2);
    Workload head_w = verification_workload(w, 0);
    head_w.precision = draft_head_precision(head, w.precision, h100());
    // A target's attention format is its own: the head's attention is in its checkpoint's format.
    Precision attention_apart = w.precision;
    attention_apart.attention = formats::int4;
    CHECK(draft_head_precision(head, attention_apart, h100()).attention_format() == head_w.precision.weights);
    const Deployment on_two{h100(), Parallelism{.tensor = 2}};
    CHECK(speculative_detail::head_draft_step(on_two, head, head_w, false).bytes_per_device.in(bytes) ==
          Approx(per_device + row / 2 + cache / 2).epsilon(1e-12));
    CHECK(speculative_detail::head_draft_step(on_two, head, verification_workload(head_w, 5), true).bytes_per_device.in(bytes) ==
          Approx(per_device + fc + 6 * row / 2 + cache / 2).epsilon(1e-12));
    // Whole tables charged (the every-parameter accounting): the table a pass charges is the
    // target's, 128,256 x 4,096 in bf16 (Llama 3.1 8B's), not one of the draft vocabulary.
    Workload whole = w;
    whole.assumptions.accounting = WeightAccounting::every_parameter;
    const SpeculativeDecode charged = speculative_decode(Deployment{h100(), {}}, llama, whole, Speculation{5, 0.8}, head);
    const double table = 128256 * 4096 * 2.0;
    CHECK(charged.draft_time.in(s) == Approx((weights + fc + table + cache + 4 * (weights + table + cache)) / 3.35e12).epsilon(1e-9));
    // The head multiplies in 16 bits whatever the target's compute: at batch 256 its first pass
    // (1,536 tokens) is compute-bound, and costs the same beside a target computing in fp8.
    Workload busy{.batch = 256, .context = 128};
    const Seconds bf16_head = speculative_decode(Deployment{h100(), {}}, llama, busy, Speculation{5, 0.8}, head).draft_time;
    busy.precision.compute = Numeric::fp8;
    CHECK(speculative_decode(Deployment{h100(), {}}, llama, busy, Speculation{5, 0.8}, head).draft_time == bf16_head);
    // fc runs once a cycle, in the first pass, over the g + 1 positions, whole on every device: at
    // TP 8 over 64 sequences each of the 8 devices multiplies 64 x 6 x 2 x 50,331,648 (a step's
    // FLOPs are its devices' total); with the attention in 8 data-parallel ranks each device only
    // its rank's 8 sequences.
    const Workload b64{.batch = 64, .context = 4096};
    for (const std::int64_t ranks : {1, 8}) {
        const Deployment eight{load_hardware("h200"), Parallelism{.tensor = 8, .attention_data = ranks}};
        const Workload first = verification_workload(b64, 5);
        const Flops beside = speculative_detail::head_draft_step(eight, head, first, true).flops -
                             speculative_detail::head_draft_step(eight, head, first, false).flops;
        CHECK(beside.in(flop) == Approx(8 * 64.0 / static_cast<double>(ranks) * 6 * 2 * 50'331'648).epsilon(1e-9));
    }
    // The head's format is its own: a target served in fp8 still reads an fp16 head.
    Workload fp8 = w;
    fp8.precision.weights = formats::fp8;
    const SpeculativeDecode on_fp8 = speculative_decode(Deployment{h100(), {}}, llama, fp8, Speculation{5, 0.8}, head);
    CHECK((on_fp8.memory.weights - on_fp8.verify.memory.weights).in(bytes) == Approx(2 * 424'689'664.0).epsilon(1e-12));

    // Refused, in the words the front ends print: another vocabulary, another width, another
    // split, a pipeline, MTP beside it.
    CHECK_THROWS_WITH(speculative_decode(Deployment{h100(), {}}, load_model("qwen3-8b"), w, Speculation{}, head),
                      "draft head: got 'eagle3-llama-3.1-8b' (vocab_size 128256), expected a head for the target's vocabulary (151936 "
                      "tokens): its drafts are mapped into it");
    CHECK_THROWS_WITH(speculative_decode(Deployment{h100(), {}}, llama, w, Speculation{}, load_draft_head("eagle3-llama-3-70b")),
                      "draft head: got 'eagle3-llama-3-70b' (target_hidden_size 8192), expected a head for the target's hidden_size "
                      "(4096): fc reads its hidden states");
    Model narrow = llama;
    narrow.hidden_size = 2048;
    DraftHead wide_fc = head;
    wide_fc.target_hidden = 2048;
    CHECK_THROWS_WITH(speculative_decode(Deployment{h100(), {}}, narrow, w, Speculation{}, wide_fc),
                      "draft head: got 'eagle3-llama-3.1-8b' (hidden_size 4096), expected a head of the target's hidden_size (2048): it "
                      "embeds with the target's table");
    CHECK_THROWS_WITH(speculative_decode(two, llama, w, Speculation{4, 0.8, 1}, head),
                      "speculation.draft_tensor: got 1, expected 0 or the target's degree (2) with an EAGLE-3 head: the head is split "
                      "as the target's layers");
    CHECK_THROWS_WITH(speculative_decode(Deployment{h100(), Parallelism{.pipeline = 2}}, llama, w, Speculation{}, head),
                      "pipeline-parallel degree: got 2, expected 1 with an EAGLE-3 head: its steps for each micro-batch in flight are "
                      "not modelled");
    CHECK_THROWS_WITH(speculative_decode(Deployment{h100(), {}}, llama, w, Speculation{4, 0.8, 0, true}, head),
                      "draft head: got 'eagle3-llama-3.1-8b', expected none beside MTP drafting: the target's own modules draft");
}

TEST_CASE("speculation: a tree of drafts, as SGLang drafts and verifies one", "[speculative][tree]") {
    // What a tree needs, and its bounds, in the words every front end prints.
    CHECK(expected_tokens_per_verification(Speculation{.draft_tokens = 5, .tree_width = 8, .verify_tokens = 32, .accepted_tokens = 4.2}) ==
          4.2);
    CHECK(expected_tokens_per_verification(Speculation{.draft_tokens = 4, .acceptance = 0.5, .accepted_tokens = 2}) == 2);
    // Five steps of width 8 offer 8 + 4 x 8 x 8 = 264 drafts (SGLang's score list), two of width 2
    // offer 2 + 1 x 2 x 2 = 6: at most 265 and 7 verified.
    CHECK_THROWS_WITH(validate(Speculation{.draft_tokens = 5, .tree_width = 8, .accepted_tokens = 4}),
                      "speculation.verify_tokens: got 0 (none given), expected with a tree (tree width 8) the tokens a sequence verifies: from 2 "
                      "to 265 (1 + the drafts the tree offers, at most 1025)");
    CHECK_NOTHROW(validate(Speculation{.draft_tokens = 2, .tree_width = 2, .verify_tokens = 7, .accepted_tokens = 3}));
    CHECK_THROWS_WITH(validate(Speculation{.draft_tokens = 2, .tree_width = 2, .verify_tokens = 8, .accepted_tokens = 3}),
                      "speculation.verify_tokens: got 8, expected with a tree (tree width 2) the tokens a sequence verifies: from 2 to 7 "
                      "(1 + the drafts the tree offers, at most 1025)");
    CHECK_THROWS_WITH(validate(Speculation{.draft_tokens = 5, .tree_width = 8, .verify_tokens = 32}),
                      "speculation.accepted_tokens: got none, expected with a tree (tree width 8) the mean tokens a verification accepts "
                      "(an engine's mean acceptance length): no acceptance rate gives a tree's");
    // A depth of 5 accepts at most 5 drafts and the target's token; 3 verified, at most 2 drafts.
    CHECK_THROWS_WITH(validate(Speculation{.draft_tokens = 5, .tree_width = 8, .verify_tokens = 32, .accepted_tokens = 6.5}),
                      "speculation.accepted_tokens: got 6.5, expected a mean from 1 to 6 (the most drafts a verification can accept, and "
                      "the target's own token)");
    CHECK_THROWS_WITH(validate(Speculation{.draft_tokens = 5, .tree_width = 8, .verify_tokens = 3, .accepted_tokens = 4}),
                      "speculation.accepted_tokens: got 4, expected a mean from 1 to 3 (the most drafts a verification can accept, and the "
                      "target's own token)");
    CHECK_THROWS_WITH(validate(Speculation{.draft_tokens = 4, .verify_tokens = 8}),
                      "speculation.verify_tokens: got 8, expected 0 or the draft tokens + 1 (5) with a chain (tree width 1)");
    CHECK_NOTHROW(validate(Speculation{.draft_tokens = 4, .verify_tokens = 5}));
    CHECK_THROWS_WITH(validate(Speculation{.tree_width = 0}), "speculation.tree_width: got 0, expected an integer from 1 to 1024");
    CHECK_THROWS_WITH(validate(Speculation{.accepted_tokens = -1}),
                      "speculation.accepted_tokens: got -1, expected a mean from 1 to 5 (the most drafts a verification can accept, and the "
                      "target's own token)");

    // SGLang's documented EAGLE-3 setting for Llama 3.1 8B Instruct (5 steps, topk 8, 32 draft
    // tokens; its speculative decoding docs, "EAGLE-3 Decoding") on one H100 SXM (3.35 TB/s), batch
    // 1 at 4,096 tokens. The head's passes as the chain's hand calculation above prices them (the
    // head's 374,358,016 weights in fp16, fc's 50,331,648 in the first pass, an embedding row of
    // 8,192 B a token, 4,096 B of its cache a token), but each of the four passes after the first
    // runs 8 branches, and each branch reads its own copy of the cache: 8 rows, 8 x 4,096 x 4,096 B.
    const Model llama = load_model("llama-3.1-8b");
    const DraftHead head = load_draft_head("eagle3-llama-3.1-8b");
    const Workload w{.batch = 1, .context = 4096};
    const Speculation tree{.draft_tokens = 5, .tree_width = 8, .verify_tokens = 32, .accepted_tokens = 6};
    const SpeculativeDecode r = speculative_decode(Deployment{h100(), {}}, llama, w, tree, head);
    const double weights = 2 * (218'112'000.0 + 25'165'824.0 + 8'192.0 + 131'072'000.0);
    const double fc = 2 * 50'331'648.0, row = 4096 * 2.0, cache = 4096 * 4096.0;
    CHECK(r.draft_time.in(s) == Approx((weights + fc + 6 * row + cache + 4 * (weights + 8 * row + 8 * cache)) / 3.35e12).epsilon(1e-9));
    // The target verifies 32 tokens a sequence in one pass: Llama 3.1 8B's weights but the input
    // table, 8,030,261,248 - 128,256 x 4,096 = 7,504,924,672 in bf16, a row for each of the 32
    // tokens, and the cache once, 32 layers x 8 KV heads x 128 x 2 x 2 B = 131,072 B a token x
    // 4,096 (its config.json); at 32 tokens still bound by the read.
    const double verify_bytes = 2 * 7'504'924'672.0 + 32 * row + 131'072.0 * 4096;
    CHECK(r.verify.bytes_per_device.in(bytes) == Approx(verify_bytes).epsilon(1e-12));
    CHECK(r.verify.step_time.in(s) == Approx(verify_bytes / 3.35e12).epsilon(1e-9));
    // A verification that accepts every level of the tree (6 tokens) bounds the 373.25 tok/s on
    // MT-bench its docs publish for EAGLE-3 on Llama 3.1 8B ("Performance Highlights", which does not
    // say the setting).
    CHECK(r.expected_tokens == 6);
    CHECK(373.25 < r.tokens_per_s.in(per_s));
    CHECK(r.tokens_per_s.in(per_s) == Approx(6 / (r.draft_time + r.verify.step_time).in(s)).epsilon(1e-12));

    // A draft model drafts a tree as SGLang's StandaloneWorker (an EAGLEWorker) does: its first
    // pass over the g + 1 positions verified, each later one a token a branch; a chain as vLLM's,
    // g steps of one token. Llama 3.1 8B drafting for the 70B on one H200 (4.8 TB/s), 3 deep and
    // 4 wide: the first pass reads 3 more embedding rows (4 positions), each of the 2 later passes
    // 3 more rows and 3 more copies of the 8B's cache (131,072 B a token x 4,096) than a chain's,
    // at batch 1 still bound by the read.
    const Deployment h200{load_hardware("h200"), {}};
    const Model big = load_model("llama-3.1-70b");
    const LoadedModel small = load_model_with_formats("llama-3.1-8b");
    const SpeculativeDecode chain = speculative_decode(h200, big, w, Speculation{.draft_tokens = 3, .accepted_tokens = 2.5}, &small.model,
                                                       small.precision);
    const SpeculativeDecode wide = speculative_decode(
        h200, big, w, Speculation{.draft_tokens = 3, .tree_width = 4, .verify_tokens = 10, .accepted_tokens = 2.5}, &small.model,
        small.precision);
    CHECK((wide.draft_time - chain.draft_time).in(s) == Approx((3 * row + 2 * 3 * (row + 131'072.0 * 4096)) / 4.8e12).epsilon(1e-9));
    // The verification holds 10 tokens a sequence, not 4: 6 more tokens of the 70B's cache
    // (80 layers x 8 KV heads x 128 x 2 x 2 B = 327,680 B each) and of its workspace.
    CHECK(wide.verify.memory.kv.in(bytes) - chain.verify.memory.kv.in(bytes) == Approx(6 * 327'680.0).epsilon(1e-12));
    // The branches' workspace is held where it is the largest: 64 branches a sequence over 3
    // verified tokens.
    const Speculation bushy{.draft_tokens = 2, .tree_width = 64, .verify_tokens = 3, .accepted_tokens = 2};
    const SpeculativeDecode bush = speculative_decode(Deployment{h100(), {}}, llama, w, bushy, head);
    CHECK(bush.memory.activations > bush.verify.memory.activations);
    // A branch is a sequence to the batch: a tree wider than 2^40 branches in all is refused.
    CHECK_THROWS_WITH(speculative_decode(h200, big, Workload{.batch = std::int64_t{1} << 32, .context = 4096},
                                         Speculation{.draft_tokens = 3, .tree_width = 512, .verify_tokens = 10, .accepted_tokens = 2.5},
                                         &small.model, small.precision),
                      "batch x tree width: got 4294967296 x 512, expected at most 2^40 branches");
}

TEST_CASE("prefill: 2P per token, causal attention counted physically, weights once per chunk", "[prefill]") {
    const Model m = load_model("llama-3.1-8b");
    const double P = 8'030'261'248.0;
    const Prefill whole = prefill(h100(), m, seed::seed_003(Workload{}), 4096);
    // Attention: 4 * layers * heads * head_dim FLOPs per (query, key) pair, 4096 * 4097 / 2 pairs.
    const double attention = 4.0 * 32 * 32 * 128 * 4096.0 * 4097 / 2;
    CHECK(whole.attention_flops.in(flop) == Approx(attention).epsilon(1e-12));
    // The seeds count 2P a token and no attention FLOPs: reported, not counted.
    CHECK(whole.flops.in(flop) == Approx(2 * P * 4096).epsilon(1e-12));
    CHECK(whole.bytes_per_device.in(bytes) == Approx(2 * P + 4096.0 * 131072).epsilon(1e-12));  // weights + KV written
    CHECK(whole.bound == Bound::compute);
    CHECK(whole.time.in(s) == Approx(2 * P * 4096 / 989e12).epsilon(1e-12));
    // Chunks of 512: the same FLOPs, the weights read 8 times, earlier chunks' KV read again.
    const Prefill chunked = prefill(h100(), m, seed::seed_003(Workload{}), 4096, 512);
    CHECK(chunked.chunks == 8);
    CHECK(chunked.flops.in(flop) == Approx(whole.flops.in(flop)).epsilon(1e-12));
    double reread = 0;
    for (int i = 0; i < 8; ++i) reread += 512.0 * i * 131072;
    CHECK(chunked.bytes_per_device.in(bytes) == Approx(8 * 2 * P + 4096.0 * 131072 + reread).epsilon(1e-12));
    CHECK(chunked.time >= whole.time);
    // A window caps attention: Mistral's 4096-token window over an 8192-token prompt.
    const Prefill windowed = prefill(h100(), load_model("mistral-7b-v0.1"), seed::seed_003(Workload{}), 8192);
    const double pairs = 4096.0 * 4097 / 2 + 4096.0 * 4096;
    CHECK(windowed.attention_flops.in(flop) == Approx(4.0 * 32 * 32 * 128 * pairs).epsilon(1e-12));
    CHECK_THROWS_WITH(prefill(h100(), m, seed::seed_003(Workload{}), 0), "prompt: got 0, expected an integer from 1 to 2^40 tokens");
    // Physically, the LM head runs for the token each prompt samples (engines gather the last
    // position before it), and the input table is a lookup: 2 x (P - 2 x 525,336,576) FLOPs a
    // prompt token, 2 x 525,336,576 once (the untied head and table are 128,256 x 4,096 each,
    // config.json). 66.6 ms counting the head for every token, 62.3 ms as engines run it.
    const double table = 128256.0 * 4096;
    const double engine_flops = 2 * (P - 2 * table) * 4096 + 2 * table + attention;
    const Prefill physical = prefill(h100(), m, Workload{}, 4096);
    CHECK_FALSE(physical.logits_every_token);
    CHECK(physical.flops.in(flop) == Approx(engine_flops).epsilon(1e-12));
    CHECK(physical.time.in(s) == Approx(engine_flops / 989e12).epsilon(1e-12));
    CHECK(physical.time.in(ms) == Approx(62.26).margin(0.01));
    // In chunks, only the last one samples.
    CHECK(prefill(h100(), m, Workload{}, 4096, 1000).flops.in(flop) == Approx(engine_flops).epsilon(1e-12));
    Workload every;
    every.assumptions.prompt_logits = true;
    CHECK(prefill(h100(), m, every, 4096).flops.in(flop) == Approx(2 * (P - table) * 4096 + attention).epsilon(1e-12));
}

TEST_CASE("generation: the closed form equals the step-by-step sum", "[generation]") {
    struct Case {
        const char* model;
        std::int64_t batch, prompt, tokens;
        bool attention;
        std::int64_t tensor;
    };
    const Case cases[] = {
        {"llama-3.1-8b", 1, 4096, 500, false, 1},     {"llama-3.1-8b", 1024, 100, 2000, true, 1},  // crosses to memory-bound
        {"qwen3-32b", 512, 0, 1500, false, 1},         {"gpt-oss-120b", 64, 50, 300, true, 1},      // window corner at 128
        {"mixtral-8x7b", 32, 1000, 200, true, 2},      {"deepseek-v3", 8, 2000, 100, true, 8},
        {"mistral-7b-v0.1", 700, 3000, 2000, true, 1},
        {"llama-4-scout", 64, 7900, 600, true, 1},     {"llama-4-scout", 256, 16000, 500, false, 8},  // chunk starts at 8192, 16384
    };
    for (const Case& k : cases) {
        INFO(k.model << " batch " << k.batch << " prompt " << k.prompt);
        Workload w = seed::seed_003(Workload{.batch = k.batch});
        w.assumptions.attention_flops = k.attention;
        const Deployment dep{h100(), Parallelism{.tensor = k.tensor, .expert = k.tensor == 8 ? 8 : 1}};
        w.efficiency.overhead = us(20);
        const Generation g = decode_steps(dep, load_model(k.model), w, k.prompt, k.tokens);
        double sum = 0;
        std::int64_t compute_bound = 0;
        for (std::int64_t n = k.prompt; n < k.prompt + k.tokens; ++n) {
            w.context = n;
            const DecodeStep d = decode_step(dep, load_model(k.model), w);
            sum += d.step_time.in(s);
            compute_bound += d.bound == Bound::compute ? 1 : 0;
        }
        CHECK(g.decode_time.in(s) == Approx(sum).epsilon(1e-9));
        CHECK(g.compute_bound_steps == compute_bound);
    }
    // With the prefill: time to first token, then the decode.
    const Generation full = generate(h100(), load_model("llama-3.1-8b"), seed::seed_003(Workload{}), 4096, 256);
    CHECK(full.time_to_first_token == prefill(h100(), load_model("llama-3.1-8b"), seed::seed_003(Workload{}), 4096).time);
    CHECK(full.total_time == full.time_to_first_token + full.decode_time);
    // The prefill makes the first of the 256 tokens; 255 decode steps make the rest.
    CHECK(full.decode_time == decode_steps(h100(), load_model("llama-3.1-8b"), seed::seed_003(Workload{}), 4096, 255).decode_time);
    CHECK(full.decode_tokens_per_s.in(per_s) == Approx(255 / full.decode_time.in(s)));
    const Generation one = generate(h100(), load_model("llama-3.1-8b"), seed::seed_003(Workload{}), 4096, 1);
    CHECK(one.decode_time == Seconds{});
    CHECK(one.total_time == one.time_to_first_token);
}

TEST_CASE("efficiency: the realistic estimate beside the ideal ceiling", "[efficiency]") {
    const Model m = load_model("qwen3-32b");
    Workload w = seed::seed_003(Workload{.context = 4096});
    w.efficiency = Efficiency{0.7, 0.5, us(200)};
    const DecodeEstimate e = decode_estimate(h100(), m, w);
    CHECK(e.ideal.memory_time.in(s) == Approx(e.realistic.memory_time.in(s) * 0.7).epsilon(1e-12));
    CHECK(e.realistic.overhead_time == us(200));
    CHECK(e.realistic.step_time.in(s) == Approx(e.ideal.step_time.in(s) / 0.7 + 200e-6).epsilon(1e-12));
    CHECK(e.realistic.tokens_per_s < e.ideal.tokens_per_s);
    // Efficiency moves the ridge: half the FLOP/s doubles each sequence's compute time.
    Workload half = seed::seed_003(Workload{.context = 0});
    half.efficiency.compute = 0.5;
    CHECK(ridge_batch(h100(), m, half).value() == Approx(ridge_batch(h100(), m, seed::seed_003(Workload{})).value() / 2).epsilon(1e-12));
    Workload bad = seed::seed_003(Workload{});
    bad.efficiency.bandwidth = 1.5;
    CHECK_THROWS_WITH(decode_step(h100(), m, bad), "efficiency (bandwidth): got 1.5, expected a fraction in [1e-6, 1]");
}

TEST_CASE("diagnose: seed 003's readings and seed 001's impossible claim", "[diagnose]") {
    const Model qwen = load_model("qwen3-32b").with_parameters(32.8e9);
    const Workload at4k = seed::seed_003(Workload{.context = 4096});
    // Seed 003: "If your measured rate is 50 tok/s on Qwen3-32B at 4k, you are at the budget.
    // If it is 30, you are at 60% of it, and the missing 40% is kernel efficiency ..."
    const Diagnosis at_budget = diagnose(h100(), qwen, at4k, s(1.0 / 50));
    CHECK(at_budget.verdict == Verdict::near_ceiling);
    CHECK(at_budget.fraction_of_ceiling == Approx(50 / 50.24).epsilon(1e-3));
    const Diagnosis slow = diagnose(h100(), qwen, at4k, s(1.0 / 30));
    CHECK(slow.verdict == Verdict::gap);
    CHECK(slow.fraction_of_ceiling == Approx(0.60).margin(0.005));
    CHECK(slow.gap == Approx(0.40).margin(0.005));
    CHECK(slow.implied_bandwidth.in(TB_per_s) == Approx(3.35 * 30 / 50.24).epsilon(1e-3));
    // One device, memory-bound: the implied bandwidth over the H100's 3.35 TB/s, 30 / 50.24.
    CHECK(slow.bandwidth_utilisation == Approx(30 / 50.24).epsilon(1e-3));

    // Seed 001: "70-100 tok/s on H100" for single-stream Llama-3 70B (BF16, one GPU, 4k context).
    const Model llama = load_model("llama-3.3-70b").with_parameters(70.6e9);
    const Diagnosis claim = diagnose(h100(), llama, at4k, s(1.0 / 70));
    REQUIRE(claim.verdict == Verdict::above_ceiling);
    CHECK(claim.fraction_of_ceiling == Approx(70 / 23.50).epsilon(1e-3));
    // What would explain it. Fewer bits for what --weights stores: the input table and the untied
    // LM head (each 128,256 x 8,192 = 1,050,673,152 parameters, config.json) and the 80 x 2 x
    // 8,192 + 8,192 = 1,318,912 norms stay in bf16, as quantisers keep them. The step's 1/70 s
    // reads 47.86 GB, of which 1.34 GB is KV and 4.20 GB the two tables and norms, leaving 42.31 GB
    // for the other 68,497,334,784 declared weights: 4.94 bits each (5.27 if the tables shrank
    // with them, as a review found this once assumed).
    const double table_bytes = (2 * 1050673152.0 + 1318912.0) * 2, rest = 70.6e9 - 2 * 1050673152.0 - 1318912.0;
    const double allowed = 3.35e12 / 70 - 4096.0 * 327680;
    CHECK(*claim.max_bits_per_weight == Approx(8 * (allowed - table_bytes) / rest).epsilon(1e-9));
    CHECK(*claim.max_bits_per_weight == Approx(4.94).margin(0.005));
    // More devices: 142.5 GB a step is 47.9 GB a step on each of 3, but the 64 heads do not split
    // 3 ways, and TP 2 reads 71.3 GB (21.3 ms). TP 4 reads 35.64 GB (10.64 ms at 3.35 TB/s) and
    // its 160 all-reduces take 6 ring steps of 0.6 us + 4,096 B / 450 GB/s each (0.585 ms):
    // 11.22 ms, under the 14.29 ms measured.
    REQUIRE(claim.min_devices.has_value());
    CHECK(*claim.min_devices == 4);
    // Speculation with 4 drafts must keep ~2.98 tokens per verification (a 5-token verification
    // reads the same weights and KV as a plain step): (1 - a^5) / (1 - a) = 2.979 gives a >= 0.737.
    REQUIRE(claim.min_acceptance.has_value());
    CHECK(expected_tokens_per_verification({4, *claim.min_acceptance}) == Approx(claim.fraction_of_ceiling).epsilon(1e-4));
    CHECK(*claim.min_acceptance == Approx(0.7375).margin(0.0001));
    // The same bound as the engines' mean acceptance length: the 2.98 tokens a verification.
    REQUIRE(claim.min_accepted_tokens.has_value());
    CHECK(*claim.min_accepted_tokens == Approx(claim.fraction_of_ceiling).epsilon(1e-4));
    // 100 tok/s: 4.26x, so 4 drafts cannot reach it (at most 5 tokens... they can, barely).
    const Diagnosis hundred = diagnose(h100(), llama, at4k, s(1.0 / 100));
    // 10 ms: TP 4's 11.22 ms is too slow, 5 to 7 do not divide 64, and TP 8 takes 17.82 GB / 3.35
    // TB/s = 5.32 ms plus 2,240 ring steps of 0.6 us + 2,048 B / 450 GB/s (1.35 ms): 6.67 ms.
    REQUIRE(hundred.min_devices.has_value());
    CHECK(*hundred.min_devices == 8);
    CHECK(hundred.min_acceptance.has_value());
    // Many drafts make the verification compute-bound, and then it costs more than a plain step.
    // Llama-3.1-8B at batch 1 and no context on an H100 at a claimed 500 tok/s (2 ms a token)
    // with 1,024 drafts: verifying 1,025 tokens does 1,025 x 2 x 7,504,924,672 FLOPs (its
    // parameters less the input table, config.json) = 15.385 TFLOP, 15.556 ms at 989 TFLOP/s, so
    // each verification must yield 7.78 tokens: 1 / (1 - a) = 7.78 (a^1025 vanishes), a >= 0.8714,
    // not the 0.55 that pricing it as a 4.48 ms plain step would give. speculative agrees.
    const Model llama8 = load_model("llama-3.1-8b");
    const Diagnosis drafts = diagnose(h100(), llama8, Workload{.batch = 1, .context = 0}, ms(2), 0.9, 1024);
    REQUIRE(drafts.min_acceptance.has_value());
    const double verify_ms = 1025 * 2 * 7504924672.0 / 989e12 * 1e3;
    CHECK(*drafts.min_acceptance == Approx(1 - 2 / verify_ms).margin(0.002));
    CHECK(*drafts.min_accepted_tokens == Approx(verify_ms / 2).epsilon(2e-3));  // 7.78 tokens a verification
    const SpeculativeDecode at_least =
        speculative_decode(h100(), llama8, Workload{.batch = 1, .context = 0}, Speculation{1024, *drafts.min_acceptance});
    CHECK(at_least.cycle_time.in(ms) / at_least.expected_tokens == Approx(2.0).epsilon(1e-3));
    const Diagnosis absurd = diagnose(h100(), llama, at4k, s(1.0 / 500));
    CHECK_FALSE(absurd.min_acceptance.has_value());  // 21x: no 4-token draft gets there
    CHECK_FALSE(absurd.min_accepted_tokens.has_value());
    CHECK(*absurd.max_bits_per_weight == Approx(8 * (3.35e12 / 500 - 4096.0 * 327680 - table_bytes) / rest).epsilon(1e-9));  // 0.13 bits
    const Diagnosis impossible = diagnose(h100(), llama, at4k, s(1.0 / 5000));
    CHECK_FALSE(impossible.max_bits_per_weight.has_value());  // reading the KV alone takes 0.4 ms
    CHECK_THROWS_WITH(diagnose(h100(), llama, at4k, s(0)), "measured time per token: got 0 ms, expected a finite time of at least 1 ns");
    // 1e-300 s would imply an infinite bandwidth (a hostile review's case).
    CHECK_THROWS_WITH(diagnose(h100(), llama, at4k, s(1e-300)), "measured time per token: got 1e-297 ms, expected a finite time of at least 1 ns");

    // Compute-bound: Llama-3.1-8B at batch 1,024 and no context on an H100 does 1,024 x 2 x
    // 7,504,924,672 FLOPs (its 8,030,261,248 parameters less the 525,336,576 of the input table,
    // config.json) = 15.37 TFLOP, 15.54 ms at 989 TFLOP/s, against 15.0 GB (4.5 ms) of weights.
    // A 10 ms step is faster than that arithmetic: fewer bits leave it, and verifying g + 1
    // tokens multiplies it, so neither explains the step; two devices sharing the FLOPs would.
    const Diagnosis busy = diagnose(h100(), load_model("llama-3.1-8b"), Workload{.batch = 1024, .context = 0}, ms(10));
    REQUIRE(busy.verdict == Verdict::above_ceiling);
    CHECK(busy.ceiling.bound == Bound::compute);
    CHECK(busy.ceiling.compute_time.in(ms) == Approx(1024 * 2 * 7504924672.0 / 989e12 * 1e3).epsilon(1e-9));
    CHECK_FALSE(busy.max_bits_per_weight.has_value());
    CHECK_FALSE(busy.min_acceptance.has_value());
    // TP 2 halves the arithmetic (7.77 ms) and adds 128 ring steps of 0.6 us + 1,024 x 8,192 B /
    // 2 / 450 GB/s (9.9 us each, 1.27 ms): 9.04 ms.
    REQUIRE(busy.min_devices.has_value());
    CHECK(*busy.min_devices == 2);

    // Below a compute-bound ceiling each term alone fills the 20 ms measured: a fixed 20 - 15.54 =
    // 4.46 ms; the compute at 15.54 / 20 = 78% of peak; or the bandwidth at 15.0 GB / 3.35 TB/s =
    // 4.48 ms over 20 ms, 22% (not 4.48 / (4.48 + 4.46) = 50%: at 50% the step is still 15.54 ms,
    // bound by its arithmetic). A review found the reading offering the 50%.
    const Diagnosis slow_busy = diagnose(h100(), load_model("llama-3.1-8b"), Workload{.batch = 1024, .context = 0}, ms(20));
    REQUIRE(slow_busy.verdict == Verdict::gap);
    const double arithmetic_ms = 1024 * 2 * 7504924672.0 / 989e12 * 1e3;
    CHECK(slow_busy.overhead_alone.in(ms) == Approx(20 - arithmetic_ms).epsilon(1e-9));
    CHECK(slow_busy.compute_efficiency_alone == Approx(arithmetic_ms / 20).epsilon(1e-9));
    CHECK(slow_busy.bandwidth_efficiency_alone == Approx(15.01e9 / 3.35e12 * 1e3 / 20).margin(0.005));
    // Each term alone, set as the workload's efficiency, takes the step to the measured time: the
    // compute-bound case above, and two pipeline stages, whose fixed time is paid once a stage.
    const auto takes = [](const Deployment& dep, const Model& model, Workload w, const Diagnosis& d, Seconds measured) {
        for (int term = 0; term < 3; ++term) {
            Workload at = w;
            if (term == 0) at.efficiency.overhead = d.overhead_alone;
            if (term == 1) at.efficiency.bandwidth = d.bandwidth_efficiency_alone;
            if (term == 2) at.efficiency.compute = d.compute_efficiency_alone;
            CHECK(decode_step(dep, model, at).step_time.in(ms) == Approx(measured.in(ms)).epsilon(1e-9));
        }
    };
    takes(h100(), load_model("llama-3.1-8b"), Workload{.batch = 1024, .context = 0}, slow_busy, ms(20));
    const Deployment staged{h100(), Parallelism{.pipeline = 2}};
    const Diagnosis two_stages = diagnose(staged, load_model("llama-3.1-8b"), Workload{.context = 1024}, ms(12));
    REQUIRE(two_stages.verdict == Verdict::gap);
    CHECK(two_stages.overhead_alone.in(ms) == Approx((12 - two_stages.ceiling.step_time.in(ms)) / 2).epsilon(1e-12));
    takes(staged, load_model("llama-3.1-8b"), Workload{.context = 1024}, two_stages, ms(12));
    // Memory-bound, as seed 003's Qwen3-32B at 30 tok/s: the bandwidth at 60% alone, as the seed
    // says ("you are at 60% of it"), and a fixed time of 1/30 - 1/50.24 s.
    CHECK(slow.bandwidth_efficiency_alone == Approx(30 / 50.24).epsilon(1e-3));
    CHECK(slow.overhead_alone.in(ms) == Approx(1e3 / 30 - 1e3 / 50.24).epsilon(1e-3));

    // A checkpoint of mixed formats: gpt-oss-120b's experts in MXFP4, the rest in bf16 (its
    // config.json), claimed at 900 tok/s at 4,096 tokens on an H100. The 1.111 ms step reads
    // 3.722 GB at 3.35 TB/s; the KV takes about 0.156 GB, the untied bf16 LM head 201,088 x
    // 2,880 x 2 B = 1.158 GB, and the routers (36 x (2,880 x 128 + 128) = 13,275,648) and norms
    // (36 x 2 x 2,880 + 2,880 = 210,240), in bf16 as the table, 0.027 GB, leaving about 2.38 GB
    // for the ~4.54e9 active linear and expert weights: about 4.20 bits each, between int4 (4
    // bits, faster than 900) and MXFP4 (4.25 bits, slower). A review found 11.4 bits here: the
    // checkpoint's bf16 scaled by the ratio.
    {
        const LoadedModel oss = load_model_with_formats("gpt-oss-120b");
        Workload at{.precision = oss.precision, .batch = 1, .context = 4096};
        const Diagnosis mixed = diagnose(h100(), oss.model, at, s(1.0 / 900));
        REQUIRE(mixed.max_bits_per_weight.has_value());
        CHECK(*mixed.max_bits_per_weight == Approx(4.20).margin(0.01));
        const auto tok_s = [&](Format f) {
            Workload stored = at;
            store_weights_as(stored.precision, oss.precision, f);
            return decode_step(h100(), oss.model, stored).tokens_per_s.in(per_s);
        };
        CHECK(tok_s(formats::int4) > 900);
        CHECK(tok_s(formats::mxfp4) < 900);
        CHECK(*mixed.max_bits_per_weight > 4.0);
        CHECK(*mixed.max_bits_per_weight < 4.25);
    }

    // Under tensor parallelism the links keep their time whatever the weights' bits: Llama-3.1-70B
    // in fp8 at TP 4, batch 1, context 1,024, claimed at 320 tok/s (3.125 ms). Each device reads
    // (70,553,706,496 parameters - 1,050,673,152 of the input table - 1,318,912 of norms) / 4 +
    // the norms = 17,376,747,520 weight bytes (config.json), plus 1,024 x 81,920 B of KV and one
    // 2,048 B row of the table; the 160 all-reduces take 0.585 ms (as above). So the weights get
    // (3.125 - 0.585) ms x 3.35 TB/s - 83,886,080 - 2,048 = 8.426 GB. The LM head's quarter,
    // 1,050,673,152 / 4 = 262,668,288 B, stays in its fp8 (what --weights would leave it in), and
    // so do the 1,318,912 norms (as the fp8 table), so the other 17,112,760,320 weights get
    // 8.162 GB: 3.816 bits each, not the 4.78 that ignoring the links gives.
    const Deployment tp4{h100(), Parallelism{.tensor = 4}};
    const Workload fp8{.precision = {formats::fp8}, .batch = 1, .context = 1024};
    const Diagnosis linked = diagnose(tp4, load_model("llama-3.1-70b"), fp8, s(1.0 / 320));
    REQUIRE(linked.verdict == Verdict::above_ceiling);
    const double links = 160 * 6 * (0.6e-6 + 16384.0 / 4 / 450e9);
    CHECK(linked.ceiling.communication_time.in(s) == Approx(links).epsilon(1e-9));
    REQUIRE(linked.max_bits_per_weight.has_value());
    CHECK(*linked.max_bits_per_weight ==
          Approx(8 * ((1.0 / 320 - links) * 3.35e12 - 83886080.0 - 2048 - 262668288.0 - 1318912.0) / 17112760320.0).epsilon(1e-6));
    // And no degree reaches it: TP 8 reads 8.69 GB of weights and 41.9 MB of KV (2.61 ms) and
    // spends 1.35 ms on links, 3.96 ms; past 8 the KV heads stop splitting and the links grow.
    CHECK_FALSE(linked.min_devices.has_value());
    CHECK_FALSE(linked.no_link_figure);
    // A device without a link figure (the RTX 4090's preset has none) cannot cost any split: said
    // so, not blamed on the links' growth. 1,000 tok/s of Llama-3.1-8B is 15x its one-card ceiling.
    const Diagnosis unlinked = diagnose(Deployment{load_hardware("rtx-4090")}, load_model("llama-3.1-8b"), Workload{}, ms(1));
    REQUIRE(unlinked.verdict == Verdict::above_ceiling);
    CHECK_FALSE(unlinked.min_devices.has_value());
    CHECK(unlinked.no_link_figure);
    CHECK_FALSE(unlinked.no_scale_out_figure);
    // Past the H20's 8-GPU NVLink domain its preset has no network: degrees 9 to 15 do not divide
    // Llama-3.3-70B's 64 heads, and 16 has no link, so no degree explains 10,000 tok/s.
    const Diagnosis boxed = diagnose(Deployment{load_hardware("h20"), Parallelism{.tensor = 8}}, load_model("llama-3.3-70b"), Workload{}, ms(0.1));
    REQUIRE(boxed.verdict == Verdict::above_ceiling);
    CHECK_FALSE(boxed.min_devices.has_value());
    CHECK(boxed.no_link_figure);
    CHECK(boxed.no_scale_out_figure);
    // Fewer bits must also fit. Llama-3.1-70B in bf16 on one RTX 4090 at 10 tok/s and 1,024 tokens:
    // the 100 ms step would read 100.8 GB, 11.4 bits a weight, but the card's budget is 0.9 x
    // 24,564 MiB - 1 GiB = 22,107,756,953.6 B (rtx-4090.json), less 1,024 x 327,680 B of KV:
    // 21,772,212,633.6 B. The input table and the LM head (2 x 1,050,673,152 parameters) stay in
    // bf16, 4,202,692,608 B, and so do the 1,318,912 norms, 2,637,824 B; the other 68,451,041,280
    // weights (config.json) get the rest, 2.053 bits (the activations, under 1 MB, left out: a
    // 5e-5 share).
    const Diagnosis crowded = diagnose(Deployment{load_hardware("rtx-4090")}, load_model("llama-3.1-70b"), Workload{.context = 1024}, ms(100));
    REQUIRE(crowded.verdict == Verdict::above_ceiling);
    CHECK(crowded.bits_limited_by_memory);
    REQUIRE(crowded.max_bits_per_weight.has_value());
    CHECK(*crowded.max_bits_per_weight == Approx(8 * (21772212633.6 - 4202692608.0 - 2637824.0) / 68451041280.0).epsilon(1e-4));
    CHECK_FALSE(claim.bits_limited_by_memory);  // seed 001's 4.94 bits: 46.5 GB, within an H100's 71.3 GB budget
    // The stated setting's own memory: 70,553,706,496 x 2 B of bf16 weights alone are over 141 GB,
    // six times the card's budget (22,107,756,953.6 B, whole bytes: 22,107,756,953), so what ran was not this setting.
    CHECK(crowded.memory.budget.in(bytes) == 22107756953.0);
    CHECK(crowded.memory.weights.in(bytes) > 70553706496.0 * 2 * 0.98);  // all but the input table's unread rows
    CHECK_FALSE(crowded.memory.fits());
    // Seed 001's claim is of a setting that cannot run either: 70.6e9 x 2 B of bf16 weights on
    // one 80 GB H100. Seed 003's Qwen3-32B, 32.8e9 x 2 B, fits.
    CHECK_FALSE(claim.memory.fits());
    CHECK(at_budget.memory.fits());
}

TEST_CASE("diagnose: a figure at the ceiling within its own rounding is at it, not above", "[diagnose]") {
    const Model qwen = load_model("qwen3-32b").with_parameters(32.8e9);
    const Workload at4k = seed::seed_003(Workload{.context = 4096});
    // Seed 003's ceiling for this setting is 50.24 tok/s, so it lies in [50.235, 50.245]. A
    // claim of "50.24" may be anything from 50.235: no proof of a step below the ceiling.
    const Diagnosis same = diagnose(h100(), qwen, at4k, s(1.0 / 50.24), 0.9, 4, s(1.0 / 50.235));
    CHECK(same.verdict == Verdict::near_ceiling);
    CHECK(same.overhead_alone >= Seconds{});
    CHECK(same.bandwidth_efficiency_alone <= 1.0);
    // "50.3" is at least 50.25, past any ceiling that rounds to 50.24.
    CHECK(diagnose(h100(), qwen, at4k, s(1.0 / 50.3), 0.9, 4, s(1.0 / 50.25)).verdict == Verdict::above_ceiling);
    // A step a billionth shorter than the ceiling's: above it as an exact figure, at it where
    // the figure's rounding reaches the ceiling's step, with no term read below its peak.
    const Seconds ceiling = same.ceiling.step_time;
    const Diagnosis exact = diagnose(h100(), qwen, at4k, ceiling * (1 - 1e-9));
    CHECK(exact.verdict == Verdict::above_ceiling);
    CHECK_FALSE(exact.within_rounding);
    const Diagnosis rounded = diagnose(h100(), qwen, at4k, ceiling * (1 - 1e-9), 0.9, 4, ceiling);
    CHECK(rounded.verdict == Verdict::near_ceiling);
    CHECK(rounded.within_rounding);
    CHECK(rounded.overhead_alone == Seconds{});
    CHECK(rounded.bandwidth_efficiency_alone == 1.0);
    CHECK(rounded.gap == 0.0);
    CHECK_THROWS_WITH(diagnose(h100(), qwen, at4k, ms(20), 0.9, 4, ms(10)),
                      "longest step the measurement's rounding allows: got 10 ms, expected a finite time no shorter than the measured 20 ms");
}

TEST_CASE("measurements: gpt-fast's rows load, and ridgeline's implied bandwidth matches theirs", "[diagnose][calibrate]") {
    const MeasurementSet set = load_measurements("gpt-fast");
    REQUIRE(set.rows.size() == 10);
    // gpt-fast's "GB/s" is its model size x tok/s, per GPU. Its model size leaves out nn.Embedding
    // tables and adds its preallocated KV buffers, so single-device rows agree within 1.5%
    // (Llama-3.1-8B's 0.5 GB table: use the bytes-read accounting), and tensor-parallel rows,
    // where it also counts what each rank replicates, within 5.5%.
    for (const MeasuredRow& r : set.rows) {
        INFO(r.model << " " << format_name(r.workload.precision.weights) << " tp" << r.parallel.tensor);
        // gpt-fast's model size counts every parameter but its (large) KV buffers make up for the
        // table it leaves out, except on Llama-3.1-8B, whose 0.5 GB table is read a row at a time.
        Workload w = r.workload;
        if (r.model != "llama-3.1-8b") w.assumptions.accounting = WeightAccounting::every_parameter;
        const Diagnosis d = diagnose(Deployment{load_hardware(r.hardware), r.parallel}, load_model(r.model), w, r.measured_step);
        const double tolerance = r.parallel.tensor == 1 ? 0.015 : 0.055;
        CHECK(d.implied_bandwidth.in(GB_per_s) == Approx(*r.source_GB_per_s).epsilon(tolerance));
        CHECK(d.verdict == Verdict::gap);  // 39% to 74% of peak: none near the ceiling
    }
}

TEST_CASE("calibrate: fit efficiency and overhead, residuals, predictions", "[calibrate]") {
    const MeasurementSet set = load_measurements("gpt-fast");
    const Hardware a100 = load_hardware("a100-80gb");
    std::vector<Observation> tensor_parallel, int8, single;
    for (const MeasuredRow& r : set.rows) {
        if (r.hardware != "a100-80gb") continue;
        // The seeds' accounting (every parameter) and no link latency, as these fits were first made.
        Parallelism split = r.parallel;
        split.link_latency = Seconds{};
        const Observation o{load_model(r.model), seed::seed_003(r.workload), split, r.measured_step};
        if (r.parallel.tensor > 1 && r.model == "llama-2-70b") tensor_parallel.push_back(o);
        if (r.parallel.tensor == 1) single.push_back(o);
        if (r.parallel.tensor == 1 && r.workload.precision.weights == formats::int8) int8.push_back(o);
    }
    REQUIRE(tensor_parallel.size() == 3);
    REQUIRE(int8.size() == 2);
    REQUIRE(single.size() == 5);

    // Llama-2-70B bf16 on 2, 4 and 8 A100s: ideal memory times 33.8, 16.9 and 8.5 ms against
    // 46.9, 26.3 and 16.0 ms measured lie nearly on one line: about 82% of peak bandwidth and
    // 5.7 ms a step that does not shrink with more GPUs (a regression guard for the fit; the
    // exact check of the fit is the int8 pair below).
    const Calibration tp = calibrate(a100, tensor_parallel, ceiling_bytes());
    CHECK(tp.bandwidth_efficiency == Approx(0.82).margin(0.01));
    CHECK(tp.overhead.in(ms) == Approx(5.7).margin(0.1));
    CHECK(tp.rms_relative_error < 0.005);
    CHECK(tp.explanation.starts_with("mostly a fixed time per step"));
    REQUIRE(tp.bandwidth_efficiency_error);
    CHECK(*tp.bandwidth_efficiency_error < 0.01);

    // Two int8 rows fix two terms exactly. By hand, at 2,039 GB/s, every parameter charged (the
    // seeds' accounting), int8 linear layers and a bf16 input table, its norms in bf16 as the
    // table (Precision::router_and_norm_format), 5 tokens of KV:
    //   Llama-2-7B:  6,738,415,616 parameters, table 32,000 x 4,096, norms 32 x 2 x 4,096 + 4,096
    //                = 266,240; KV 524,288 B a token
    //   Llama-2-70B: 68,976,648,192 parameters, table 32,000 x 8,192, norms 80 x 2 x 8,192 + 8,192
    //                = 1,318,912; KV 327,680 B a token
    //   measured: 155.58 and 19.13 tok/s (gpt-fast's README)
    const double m7 = (6738415616.0 + 32000.0 * 4096 + 266240 + 5 * 524288.0) / 2039e9;
    const double m70 = (68976648192.0 + 32000.0 * 8192 + 1318912 + 5 * 327680.0) / 2039e9;
    const double y7 = 1 / 155.58, y70 = 1 / 19.13;
    const double slope = (y70 - y7) / (m70 - m7), intercept = y7 - slope * m7;
    const Calibration q = calibrate(a100, int8, ceiling_bytes());
    CHECK(q.bandwidth_efficiency == Approx(1 / slope).epsilon(1e-9));  // 66.7%
    CHECK(q.overhead.in(s) == Approx(intercept).epsilon(1e-9));       // 1.38 ms
    for (const Seconds r : q.residuals) CHECK(std::abs(r.in(s)) < 1e-12);
    CHECK_FALSE(q.bandwidth_efficiency_error);  // two rows, two terms: nothing left to estimate an error from
    // Predicting the bf16 7B row (104.9 tok/s, gpt-fast's README) with the int8 fit: its memory
    // time, every parameter at 2 B and the same 5 tokens of KV, read at the fitted efficiency,
    // plus the fitted time; about 18% over the measurement, as bf16 kernels do better.
    const double m7_bf16 = (2 * 6738415616.0 + 5 * 524288.0) / 2039e9;
    const DecodeStep bf16_7b = predict(a100, single[0].model, single[0].workload, q);
    REQUIRE(single[0].measured_step.in(s) == Approx(1 / 104.9).epsilon(1e-12));
    CHECK(bf16_7b.step_time.in(s) == Approx(slope * m7_bf16 + intercept).epsilon(1e-9));
    CHECK(bf16_7b.step_time.in(s) * 104.9 == Approx(1.18).margin(0.01));

    // All five single-GPU rows: one efficiency fits bf16, int8 and int4 kernels only to ~10%.
    CHECK(calibrate(a100, single, ceiling_bytes()).rms_relative_error > 0.05);

    // One row: the bandwidth held at what BabelStream's Dot kernel measured on an A100-SXM4-80GB,
    // 1.75 TB/s (Azure/AI-benchmarking-guide@8fd0c6e1 ND_A100_v4_results.md; the preset's
    // measured_bandwidth_GB_per_s), the fixed time fitted: Llama-2-7B bf16 reads 6,738,415,616 x 2 B
    // and 5 tokens of KV in 7.70 ms at 1750 GB/s, and takes 1 / 104.9 s.
    const Calibration one = calibrate(a100, {single[0]}, ceiling_bytes());
    CHECK(one.bandwidth_efficiency == Approx(1750.0 / 2039).epsilon(1e-12));
    CHECK(one.overhead.in(s) == Approx(1 / 104.9 - (6738415616.0 * 2 + 5 * 524288.0) / 1750e9).epsilon(1e-9));
    CHECK(one.bandwidth_basis == "held at the device's measured 1750 of 2039 GB/s: one row cannot tell a slower read from a fixed time");
    // The compute efficiency, asked for, cannot move on one row either, and the fit says so.
    CHECK(one.compute_efficiency == 1);
    CHECK(one.compute_basis == "held: one row cannot fit it");
    // Fifty copies of that row, or three measurements of its one setting, say no more than one
    // row: the bandwidth is held as for one, and the fixed time is the fit to them all (for three
    // runs 2% apart, between the fastest's and the slowest's), with an error from their spread.
    const Calibration fifty = calibrate(a100, std::vector<Observation>(50, single[0]), ceiling_bytes());
    CHECK(fifty.bandwidth_efficiency == Approx(1750.0 / 2039).epsilon(1e-12));
    CHECK(fifty.overhead.in(s) == Approx(one.overhead.in(s)).epsilon(1e-9));
    CHECK(fifty.bandwidth_basis == "held at the device's measured 1750 of 2039 GB/s: 50 rows of one setting cannot tell a slower read from a fixed time");
    CHECK(fifty.compute_basis == "held: 50 rows of one setting cannot fit it");
    // Rows of two settings fit it, and say nothing of a hold.
    CHECK(calibrate(a100, single, ceiling_bytes()).compute_basis.empty());
    std::vector<Observation> runs(3, single[0]);
    runs[1].measured_step = 1.02 * runs[0].measured_step;
    runs[2].measured_step = 1.04 * runs[0].measured_step;
    const Calibration three = calibrate(a100, runs, ceiling_bytes());
    CHECK(three.bandwidth_efficiency == Approx(1750.0 / 2039).epsilon(1e-12));
    const double read = (6738415616.0 * 2 + 5 * 524288.0) / 1750e9;
    CHECK(three.overhead.in(s) > runs[0].measured_step.in(s) - read);
    CHECK(three.overhead.in(s) < runs[2].measured_step.in(s) - read);
    REQUIRE(three.overhead_error);
    CHECK(three.overhead_error->in(s) > 0);
    // Without the device's figure, the bandwidth is held at its default (1): 6.61 ms at peak.
    CalibrationTerms at_peak;
    at_peak.one_row_measured_bandwidth = false;
    const Calibration one_at_peak = calibrate(a100, {single[0]}, ceiling_bytes(at_peak));
    CHECK(one_at_peak.bandwidth_efficiency == 1);
    CHECK(one_at_peak.bandwidth_basis.empty());
    CHECK(one_at_peak.overhead.in(s) == Approx(1 / 104.9 - (6738415616.0 * 2 + 5 * 524288.0) / 2039e9).epsilon(1e-9));
    // A row faster than 1750 GB/s allows (the same bytes in 7.0 ms, 1926 GB/s): the bandwidth is
    // fitted to it instead, with no fixed time.
    Observation quick = single[0];
    quick.measured_step = ms(7.0);
    const Calibration fast = calibrate(a100, {quick}, ceiling_bytes());
    CHECK(fast.bandwidth_efficiency == Approx((6738415616.0 * 2 + 5 * 524288.0) / 7.0e-3 / 2039e9).epsilon(1e-9));
    CHECK(fast.overhead == Seconds{});
    CHECK(fast.bandwidth_basis == "fitted: the one row reads faster than the device's measured 1750 GB/s");
    // With no time term free, a slower row keeps the hold (nothing reads faster), and a held fixed
    // time does not stop a faster row from fitting the bandwidth.
    CalibrationTerms no_times;
    no_times.overhead = false;
    Observation slow = single[0];
    slow.measured_step = ms(10.0);
    const Calibration held_slow = calibrate(a100, {slow}, ceiling_bytes(no_times));
    CHECK(held_slow.bandwidth_efficiency == Approx(1750.0 / 2039).epsilon(1e-12));
    CHECK(held_slow.bandwidth_basis.starts_with("held at the device's measured 1750"));
    no_times.held.overhead = ms(0.2);
    const Calibration fast_held = calibrate(a100, {quick}, ceiling_bytes(no_times));
    CHECK(fast_held.bandwidth_efficiency == Approx((6738415616.0 * 2 + 5 * 524288.0) / 6.8e-3 / 2039e9).epsilon(1e-9));
    CHECK(fast_held.bandwidth_basis.starts_with("fitted"));
    // A row whose step is compute-bound even at the measured bandwidth: the held bandwidth moves
    // nothing, so the label says the compute efficiency is what is held (at 1), the fixed time
    // the rest. By hand (the seeds' accounting: 2 FLOPs per parameter, attention not counted):
    // 1,024 sequences x 2 x 6,738,415,616 FLOPs at 312 TFLOP/s (data/hardware/a100-80gb.json) is
    // 44.2 ms, above the 13.5 GB of weights and 2.7 GB of KV at 1,750 GB/s (9.3 ms).
    Observation crowded = single[0];
    crowded.workload.batch = 1024;
    crowded.measured_step = ms(60);
    const Calibration busy = calibrate(a100, {crowded}, ceiling_bytes());
    CHECK(busy.compute_efficiency == 1);
    CHECK(busy.overhead.in(s) == Approx(60e-3 - 1024 * 2 * 6738415616.0 / 312e12).epsilon(1e-9));
    CHECK(busy.bandwidth_basis ==
          "held at the device's measured 1750 of 2039 GB/s, unused: the row's steps are compute-bound, and one row cannot tell "
          "slower arithmetic from a fixed time, so compute is held");
    // The same row held at half the compute: 88.4 ms of arithmetic alone, so a 60 ms step is
    // faster than the hold allows, and no bandwidth moves a compute-bound step: the label says so
    // and the bandwidth stays at the measured figure.
    CalibrationTerms half_compute;
    half_compute.compute = false;
    half_compute.held.compute = 0.5;
    const Calibration held_busy = calibrate(a100, {crowded}, ceiling_bytes(half_compute));
    CHECK(held_busy.bandwidth_efficiency == Approx(1750.0 / 2039).epsilon(1e-12));
    CHECK(held_busy.overhead == Seconds{});
    CHECK(held_busy.bandwidth_basis.ends_with("unused: the row's steps are compute-bound, and faster than the held compute efficiency allows"));
    // A measured figure past the peak, in a Hardware made in code, is refused by name.
    Hardware past_peak = a100;
    past_peak.measured_bandwidth = GB_per_s(4000);
    CHECK_THROWS_WITH(calibrate(past_peak, {single[0]}, ceiling_bytes()),
                      "hardware 'NVIDIA A100 SXM4 80GB' measured_bandwidth: got 4000 GB/s, expected at most the peak memory_bandwidth (2039 GB/s)");
    // The same row twice, or two rows that would need 113% of peak bandwidth: still a fit, with
    // the efficiency at its bound, never above it.
    CHECK(calibrate(a100, {single[0], single[0]}, ceiling_bytes()).rms_relative_error < 1e-9);
    const Calibration capped = calibrate(a100, {single[0], single[1]}, ceiling_bytes());
    CHECK(capped.bandwidth_efficiency <= 1);
    CHECK(capped.overhead >= Seconds{});
    // A row 60 times faster than its own ceiling is set aside by name, and the other fitted.
    Observation impossible = single[0];
    const Seconds ceiling = decode_step(Deployment{a100, impossible.parallel}, impossible.model,
                                        [&] { Workload w = impossible.workload; w.efficiency = Efficiency{}; return w; }()).step_time;
    impossible.measured_step = ceiling / 60.0;
    const Calibration kept = calibrate(a100, {single[1], impossible}, ceiling_bytes());
    REQUIRE(kept.set_aside.size() == 1);
    CHECK(kept.set_aside[0].starts_with("observations[1]: "));
    CHECK(kept.set_aside[0].find("faster than this setting's ideal ceiling of " + number_text(ceiling.in(ms)) + " ms") != std::string::npos);
    CHECK(kept.used == std::vector<std::size_t>{0});
    CHECK_THROWS_WITH(calibrate(a100, {impossible}, ceiling_bytes()), Catch::StartsWith("observations: got no row at or above its own ceiling"));
    // Rows whose times fall as the bytes grow: the bounded fit keeps every term in range.
    Observation slow_small = single[0], fast_big = tensor_parallel[0];
    slow_small.measured_step = 10.0 * decode_step(Deployment{a100, slow_small.parallel}, slow_small.model, slow_small.workload).step_time;
    fast_big.measured_step = 1.01 * decode_step(Deployment{a100, fast_big.parallel}, fast_big.model, fast_big.workload).step_time;
    const Calibration odd = calibrate(a100, {slow_small, fast_big}, ceiling_bytes());
    CHECK(odd.bandwidth_efficiency > 0);
    CHECK(odd.bandwidth_efficiency <= 1);
    CHECK(odd.overhead >= Seconds{});
}

namespace {
// Decode steps of each model at each batch, timed by the overhead model itself with `truth`.
std::vector<Observation> synthetic_steps(const Hardware& hw, std::initializer_list<const char*> models,
                                         std::initializer_list<std::int64_t> batches, std::int64_t context, const Efficiency& truth) {
    std::vector<Observation> rows;
    for (const char* name : models)
        for (const std::int64_t b : batches) {
            const Model m = load_model(name);
            const Workload w{.batch = b, .context = context};
            Workload real = w;
            real.efficiency = truth;
            rows.push_back({m, w, {}, decode_step(hw, m, real).step_time});
        }
    return rows;
}
// One row of each kind a measurement may time: decode steps, whole requests, and served steps
// with the prefill apart and riding the steps.
std::array<Requests, 4> every_timing() {
    return {Requests{}, Requests{Timed::whole_requests, 1024, 60}, Requests{Timed::interleaved_prefill, 2048, 64, PrefillSteps::apart},
            Requests{Timed::interleaved_prefill, 2048, 64, PrefillSteps::mixed}};
}
// Rows of every timing kind for each model, batch and split (`splits(model)`), each timed by the
// overhead model at `truth`: the calibrate tests' synthetic rows, in that order.
template <class Splits>
std::vector<Observation> rows_of_every_timing(const Hardware& hw, std::initializer_list<const char*> models,
                                              std::initializer_list<std::int64_t> batches, Splits&& splits, const Efficiency& truth) {
    std::vector<Observation> rows;
    for (const char* name : models) {
        const Model m = load_model(name);
        for (const std::int64_t batch : batches)
            for (const Requests& q : every_timing())
                for (const Parallelism& p : splits(m)) {
                    Workload w{.batch = batch, .context = 2048};
                    if (q.timed != Timed::decode_steps) w.context = mean_decode_context(q);
                    Observation o{m, w, p, Seconds{}, q};
                    o.measured_step = time_per_output_token(Deployment{hw, p}, o, truth);
                    rows.push_back(o);
                }
    }
    return rows;
}
// The fit of `terms` on rows timed at `truth` (rows_of_every_timing): every term as `truth` has it
// (those it lacks at zero), and no residual.
Calibration recovered(const Hardware& hw, const std::vector<Observation>& rows, const CalibrationTerms& terms, const Efficiency& truth) {
    const Calibration c = calibrate(hw, rows, ceiling_bytes(terms));
    CHECK(c.bandwidth_efficiency == Approx(truth.bandwidth).epsilon(1e-6));
    CHECK(c.overhead.in(ms) == Approx(truth.overhead.in(ms)).epsilon(1e-6));
    CHECK(c.per_layer.in(us) == Approx(truth.per_layer.in(us)).epsilon(1e-6).margin(1e-6));
    CHECK(c.per_moe_layer.in(us) == Approx(truth.per_moe_layer.in(us)).epsilon(1e-6).margin(1e-6));
    CHECK(c.per_sequence.in(us) == Approx(truth.per_sequence.in(us)).epsilon(1e-6).margin(1e-6));
    CHECK(c.per_message.in(us) == Approx(truth.per_message.in(us)).epsilon(1e-6).margin(1e-6));
    CHECK(c.rms_relative_error < 1e-9);
    return c;
}
}  // namespace

TEST_CASE("calibrate: a free compute efficiency must pay for itself (noise buys one)", "[calibrate]") {
    // A seeded simulation: eight memory-bound decode steps of Llama-3.1-8B on an H100, timed by
    // the overhead model at 70% of the bandwidth and 2 ms a step with the compute at peak, each
    // then moved by uniform noise within +/-3% (40 seeds of mt19937_64). Fitted free, the compute
    // efficiency soaks up the noise in many seeds (a batch-64 row read as compute-bound), and the
    // fit then predicts batch 128 far too slow; held unless it pays Akaike's penalty
    // (CalibrationTerms::compute_pays), every seed predicts it within the noise.
    const Hardware h100 = load_hardware("h100-sxm");
    const Model m = load_model("llama-3.1-8b");
    const Efficiency truth{0.7, 1.0, ms(2)};
    const std::pair<std::int64_t, std::int64_t> settings[] = {{1, 512}, {2, 4096}, {4, 1024}, {8, 2048}, {16, 512}, {32, 4096}, {64, 1024}, {1, 16384}};
    Workload big{.batch = 128, .context = 1024};
    big.efficiency = truth;
    const Seconds big_truth = decode_step(h100, m, big).step_time;
    int free_bought = 0, free_far = 0, paid_far = 0, paid_held = 0;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        std::mt19937_64 gen(seed);
        std::vector<Observation> rows;
        for (const auto& [b, c] : settings) {
            Workload w{.batch = b, .context = c};
            Workload real = w;
            real.efficiency = truth;
            const double u = static_cast<double>(gen() >> 11) * 0x1.0p-53;  // [0, 1), the same on every library
            rows.push_back({m, w, {}, decode_step(h100, m, real).step_time * (1 + 0.03 * (2 * u - 1))});
        }
        const auto big_error = [&](const Calibration& c) { return std::abs(static_cast<double>(predict(Deployment{h100}, m, big, c).step_time / big_truth) - 1); };
        CalibrationTerms free_terms;
        const Calibration free_fit = calibrate(h100, rows, free_terms);
        CalibrationTerms paid_terms;
        paid_terms.compute_pays = true;
        const Calibration paid = calibrate(h100, rows, paid_terms);
        free_bought += free_fit.compute_efficiency < 0.5;
        free_far += big_error(free_fit) > 0.1;
        paid_far += big_error(paid) > 0.1;
        paid_held += !paid.compute_basis.empty();
        // Held, the fit says why, and the planted terms come back within three of its standard errors.
        if (!paid.compute_basis.empty()) {
            CHECK(paid.compute_efficiency == 1.0);
            CHECK(paid.compute_basis.starts_with("held: fitted, "));
            REQUIRE(paid.bandwidth_efficiency_error);
            REQUIRE(paid.overhead_error);
            CHECK(std::abs(paid.bandwidth_efficiency - 0.7) <= 3 * *paid.bandwidth_efficiency_error);
            CHECK(std::abs(paid.overhead.in(ms) - 2) <= 3 * paid.overhead_error->in(ms));
        }
    }
    CHECK(free_bought >= 10);  // the defect the penalty answers (18 of these 40 seeds)
    CHECK(free_far >= 10);
    CHECK(paid_far == 0);
    CHECK(paid_held == free_bought);  // each bought compute efficiency was held; none that paid
}

TEST_CASE("calibrate: a time per layer, fitted where the rows differ in depth", "[calibrate]") {
    // Synthetic rows from the overhead model itself at 80% bandwidth, 1 ms a step and 20 us a
    // layer: the fit recovers the three terms (a seeded check of the solver, not of any engine).
    const Hardware h100 = load_hardware("h100-sxm");
    const std::vector<Observation> rows =
        synthetic_steps(h100, {"llama-3.1-8b", "qwen3-8b", "llama-2-13b", "qwen3-32b"}, {1, 8}, 1024, Efficiency{0.8, 1.0, ms(1), us(20)});
    CalibrationTerms terms;
    terms.per_layer = true;
    const Calibration c = calibrate(h100, rows, ceiling_bytes(terms));
    CHECK(c.bandwidth_efficiency == Approx(0.8).epsilon(1e-6));
    CHECK(c.overhead.in(ms) == Approx(1).epsilon(1e-6));
    CHECK(c.per_layer.in(us) == Approx(20).epsilon(1e-5));
    CHECK(c.rms_relative_error < 1e-9);
}

TEST_CASE("calibrate: a time per MoE layer, told from the fixed time by rows on dense and MoE models", "[calibrate]") {
    // Synthetic rows from the overhead model itself at 70% bandwidth, 2 ms a step and 300 us a
    // MoE layer, on two dense and two MoE models: the fit with the term recovers all three (a
    // seeded check of the solver, not of any engine). Without it the MoE rows' extra time has
    // nowhere to go: the fit cannot be exact.
    const Hardware h200 = load_hardware("h200");
    Efficiency truth{0.7, 1.0, ms(2)};
    truth.per_moe_layer = us(300);
    const std::vector<Observation> rows = synthetic_steps(h200, {"llama-3.1-8b", "qwen3-32b", "qwen3-30b-a3b", "mixtral-8x7b"}, {1, 16}, 2048, truth);
    CalibrationTerms terms;
    terms.per_moe_layer = true;
    const Calibration c = calibrate(h200, rows, ceiling_bytes(terms));
    CHECK(c.bandwidth_efficiency == Approx(0.7).epsilon(1e-6));
    CHECK(c.overhead.in(ms) == Approx(2).epsilon(1e-6));
    CHECK(c.per_moe_layer.in(us) == Approx(300).epsilon(1e-6));
    CHECK(c.rms_relative_error < 1e-9);
    CHECK(calibrate(h200, rows, ceiling_bytes()).rms_relative_error > 0.01);
    // Where most of the gap is the MoE layers' time, the words say so: on Mixtral (32 MoE layers,
    // config.json) at 1 ms a MoE layer, 32 ms a step against a ceiling of a few.
    std::vector<Observation> moe_heavy = rows;
    truth.per_moe_layer = ms(1);
    for (Observation& o : moe_heavy) {
        Workload real = o.workload;
        real.efficiency = truth;
        o.measured_step = decode_step(h200, o.model, real).step_time;
    }
    CHECK_THAT(calibrate(h200, moe_heavy, ceiling_bytes(terms)).explanation, Catch::StartsWith("mostly a time per MoE layer (routing and expert kernels)"));
    // Rows on one model cannot tell it from the fixed time (both are paid alike by every row): the
    // fit keeps the simpler, the fixed time, with the MoE layers' time in it.
    std::vector<Observation> moe_only(rows.begin() + 4, rows.begin() + 6);  // Qwen3-30B-A3B at batch 1 and 16
    const Calibration alone = calibrate(h200, moe_only, ceiling_bytes(terms));
    CHECK(alone.per_moe_layer == Seconds{});
    CHECK(alone.overhead.in(ms) == Approx(2 + 48 * 0.3).epsilon(1e-6));  // 48 MoE layers (config.json)
    CHECK(alone.rms_relative_error < 1e-9);
}

TEST_CASE("calibrate: a time per MoE layer, whatever a row timed and however it split the model", "[calibrate]") {
    // Synthetic rows again (a seeded check of the solver and of how rows count what they pay):
    // decode steps, whole requests, prefill apart and prefill riding the steps, each at TP 1, PP 2
    // and TP 2 (and TP 2 with EP 2 on the MoE models), generated with 70% bandwidth, 2 ms a step,
    // 20 us a layer and 300 us a MoE layer. A row that counted its MoE layers per stage, or left
    // out the prefill passes a step waits for, would leave a residual.
    const Hardware h200 = load_hardware("h200");
    Efficiency truth{0.7, 1.0, ms(2), us(20)};
    truth.per_moe_layer = us(300);
    std::vector<Observation> rows = rows_of_every_timing(
        h200, {"llama-3.1-8b", "qwen3-8b", "qwen3-30b-a3b", "mixtral-8x7b"}, {16},
        [](const Model& m) {
            std::vector<Parallelism> splits{Parallelism{}, Parallelism{.pipeline = 2}, Parallelism{.tensor = 2}};
            if (has_routed_experts(m)) splits.push_back(Parallelism{.tensor = 2, .expert = 2});
            return splits;
        },
        truth);
    // What the row's own workload says of the engine is not read (observation.hpp).
    for (Observation& o : rows) o.workload.efficiency.overhead = s(2000);
    CalibrationTerms terms;
    terms.per_layer = terms.per_moe_layer = true;
    terms.kv_reads = false;
    (void)recovered(h200, rows, terms, truth);

    // With both efficiencies held their ratio is fixed, and the fit takes the other path
    // (calibrate_solve.hpp's cut): the MoE term still moves there.
    std::vector<Observation> steps;
    for (const Observation& o : rows)
        if (o.requests.timed == Timed::decode_steps && o.parallel == Parallelism{}) steps.push_back(o);
    REQUIRE(steps.size() == 4);
    CalibrationTerms held;
    held.bandwidth = held.compute = false;
    held.held.bandwidth = 0.7;
    held.held.per_layer = us(20);
    held.per_moe_layer = true;
    const Calibration cut = calibrate(h200, steps, ceiling_bytes(held));
    CHECK(cut.overhead.in(ms) == Approx(2).epsilon(1e-6));
    CHECK(cut.per_moe_layer.in(us) == Approx(300).epsilon(1e-6));
    CHECK(cut.rms_relative_error < 1e-9);
}

TEST_CASE("calibrate: a time per link message, told from the other terms by rows on different splits", "[calibrate]") {
    // Synthetic rows from the overhead model itself (a seeded check of the solver and of how rows
    // count the messages they wait for): decode steps, whole requests, prefill apart and prefill
    // riding the steps, on one device, TP 2, TP 4, PP 2 and TP 2 x PP 2 (and TP 2 with EP 2 on
    // the MoE model), generated with 80% bandwidth, 1 ms a step, 10 us a layer and 25 us a link
    // message. A row that missed a prefill pass's messages or a stage's would leave a residual.
    const Hardware h100 = load_hardware("h100-sxm");
    Efficiency truth{0.8, 1.0, ms(1), us(10)};
    truth.per_message = us(25);
    const std::vector<Observation> rows = rows_of_every_timing(
        h100, {"llama-3.1-8b", "qwen3-30b-a3b"}, {8},
        [](const Model& m) {
            std::vector<Parallelism> splits{Parallelism{}, Parallelism{.tensor = 2}, Parallelism{.tensor = 4}, Parallelism{.pipeline = 2},
                                            Parallelism{.tensor = 2, .pipeline = 2}};
            if (has_routed_experts(m)) splits.push_back(Parallelism{.tensor = 2, .expert = 2});
            return splits;
        },
        truth);
    CalibrationTerms terms;
    terms.per_layer = terms.per_message = true;
    terms.kv_reads = false;
    const Calibration c = recovered(h100, rows, terms, truth);
    REQUIRE(c.per_message_error);
    CHECK(c.efficiency().per_message == c.per_message);
    // Without the term the split rows' extra time has nowhere to go.
    terms.per_message = false;
    CHECK(calibrate(h100, rows, ceiling_bytes(terms)).rms_relative_error > 0.01);

    // Rows on one split cannot tell it from a time per layer (every message goes with a layer):
    // the term does not move there, and the layers' time takes it. Llama-3.1-8B and Qwen3-8B at
    // TP 2 (32 and 36 layers, config.json), each layer all-reducing twice, 2 ring steps each.
    std::vector<Observation> one_split;
    for (const char* name : {"llama-3.1-8b", "qwen3-8b"})
        for (const std::int64_t b : {1, 16}) {
            Observation o{load_model(name), Workload{.batch = b, .context = 1024}, Parallelism{.tensor = 2}, Seconds{}, Requests{}};
            o.measured_step = time_per_output_token(Deployment{h100, o.parallel}, o, truth);
            one_split.push_back(o);
        }
    terms.per_message = true;
    const Calibration same = calibrate(h100, one_split, ceiling_bytes(terms));
    CHECK(same.per_message == Seconds{});
    CHECK_FALSE(same.per_message_error);
    CHECK(same.per_layer.in(us) == Approx(10 + 4 * 25).epsilon(1e-6));
    CHECK(same.rms_relative_error < 1e-9);
}

TEST_CASE("calibrate: rows on uneven pipelines count the pacing stage's layers and messages", "[calibrate]") {
    // Llama-3.1-70B's 80 layers over 3 stages are 27, 27 and 26 (the last with the LM head, whose
    // 128,256 x 8,192 BF16 weights make it the stage that reads most): a step pays the per-layer
    // time for 3 x 26 = 78 layers, not 80, and each stage's 26 x 2 all-reduces at TP 2. Rows of
    // every timing on it and on Llama-3.1-8B (32 layers: 11, 11, 10) at PP 1 and 3, TP 1 and 2,
    // generated with 80% bandwidth, 1 ms a step, 5 us a layer and 10 us a message (a seeded
    // check, small enough that the LM head's stage stays the slowest): the fit is exact.
    const Hardware h100 = load_hardware("h100-sxm");
    const Model llama70 = load_model("llama-3.1-70b");
    const DecodeStep three = decode_step(Deployment{h100, Parallelism{.tensor = 2, .pipeline = 3}}, llama70, Workload{.batch = 4, .context = 1024});
    CHECK(three.stage_layers == 26);
    CHECK(three.links.stage_messages == 26 * 2 * 2);
    Efficiency truth{0.8, 1.0, ms(1), us(5)};
    truth.per_message = us(10);
    const std::vector<Observation> rows = rows_of_every_timing(
        h100, {"llama-3.1-70b", "llama-3.1-8b"}, {4},
        [](const Model&) {
            return std::vector<Parallelism>{Parallelism{.tensor = 2}, Parallelism{.pipeline = 3}, Parallelism{.tensor = 2, .pipeline = 3}, Parallelism{}};
        },
        truth);
    CalibrationTerms terms;
    terms.per_layer = terms.per_message = true;
    terms.kv_reads = false;
    (void)recovered(h100, rows, terms, truth);
}

TEST_CASE("calibrate: a time per sequence, told from the other terms by rows at different batches", "[calibrate]") {
    // Synthetic rows from the overhead model itself (a seeded check of the solver and of how rows
    // count the sequences they pay for): decode steps, whole requests, prefill apart and prefill
    // riding the steps, each at TP 1, PP 2 and TP 2, at batches 4 and 32, on a dense and an MoE
    // model, generated with 75% bandwidth, 1.5 ms a step and 40 us a sequence. A row that paid the
    // sequences once per stage, or left out the prompts a prefill pass samples, would leave a
    // residual; without the term the batch-32 rows' extra time has nowhere to go.
    const Hardware h200 = load_hardware("h200");
    Efficiency truth{0.75, 1.0, ms(1.5)};
    truth.per_sequence = us(40);
    const std::vector<Observation> rows = rows_of_every_timing(
        h200, {"llama-3.1-8b", "qwen3-30b-a3b"}, {4, 32},
        [](const Model&) { return std::vector<Parallelism>{Parallelism{}, Parallelism{.pipeline = 2}, Parallelism{.tensor = 2}}; }, truth);
    CalibrationTerms terms;
    terms.per_sequence = true;
    terms.kv_reads = false;
    (void)recovered(h200, rows, terms, truth);
    CalibrationTerms without;
    without.kv_reads = false;
    CHECK(calibrate(h200, rows, ceiling_bytes(without)).rms_relative_error > 0.01);
    // Where most of the gap is the sequences' time, the words say so: at 1 ms a sequence, batch
    // 32 pays 32 ms a step against a ceiling of a few.
    std::vector<Observation> heavy;
    truth.per_sequence = ms(1);
    for (Observation o : rows)
        if (o.requests.timed == Timed::decode_steps && o.workload.batch == 32) {
            o.measured_step = time_per_output_token(Deployment{h200, o.parallel}, o, truth);
            heavy.push_back(o);
        }
    CHECK_THAT(calibrate(h200, heavy, ceiling_bytes(terms)).explanation, Catch::StartsWith("mostly a time per sequence (the host's work for each request)"));
    // One row fits the fixed time alone, the sequences' time in it: 1.5 ms + 32 x 1 ms.
    const Calibration one = calibrate(h200, {heavy.front()}, ceiling_bytes(terms));
    CHECK(one.per_sequence == Seconds{});
    CHECK(one.rms_relative_error < 1e-9);
}

TEST_CASE("predict: a time per sequence's standard error widens the range by it times the batch", "[calibrate]") {
    // Hand calculation: at 40 +/- 10 us a sequence and no other term with an error, a batch of 8
    // steps 8 x 10 us = 80 us slower at the slow end and 80 us faster at the fast end.
    const Hardware h200 = load_hardware("h200");
    Calibration c;
    c.bandwidth_efficiency = 0.7;
    c.overhead = ms(2);
    c.per_sequence = us(40);
    c.per_sequence_error = us(10);
    const PredictionRange r = predict_range(h200, load_model("llama-3.1-8b"), Workload{.batch = 8, .context = 2048}, c);
    CHECK((r.slowest - r.estimate.step_time).in(us) == Approx(80).epsilon(1e-9));
    CHECK((r.estimate.step_time - r.fastest).in(us) == Approx(80).epsilon(1e-9));
}

namespace {
// The predict tests' setting: Llama-2-7B on an A100 at batch 1 and 128 tokens of context.
struct Setting {
    Hardware hw;
    Model m;
    Workload w;
    // Its step at a bandwidth efficiency and a fixed time: the hand figures' reference.
    [[nodiscard]] Seconds step(double bandwidth, Seconds overhead) const {
        Workload x = w;
        x.efficiency = Efficiency{bandwidth, 1.0, overhead};
        return decode_step(hw, m, x).step_time;
    }
};
Setting llama2_on_a100() { return {load_hardware("a100-80gb"), load_model("llama-2-7b"), Workload{.batch = 1, .context = 128}}; }
}  // namespace

TEST_CASE("predict: an efficiency's range moves its reciprocal, the term the fit estimated", "[calibrate]") {
    // Hand calculation of the rule (calibrate.hpp, PredictionRange): the fit estimates a = 1 / e,
    // and reports e's error as se(a) / a^2, so a moves by error / e^2. At 80% +/- 10%: the slow
    // end is 0.64 / 0.9 = 71.11% and the fast end 0.64 / 0.7 = 91.43%; at 50% +/- 50%, 0.25 / 1
    // = 25% and 100% (1/a would pass 1); at 50% +/- 1e6, the floor of 1e-6. The times move by
    // their errors (3 +/- 0.1 ms).
    const Setting a100 = llama2_on_a100();
    Calibration c;
    c.overhead = ms(3);
    c.overhead_error = ms(0.1);
    for (const auto& [e, error, slow, fast] : {std::tuple{0.8, 0.1, 0.64 / 0.9, 0.64 / 0.7}, std::tuple{0.5, 0.5, 0.25, 1.0},
                                               std::tuple{0.5, 1e6, 1e-6, 1.0}}) {
        INFO(e << " +/- " << error);
        c.bandwidth_efficiency = e;
        c.bandwidth_efficiency_error = error;
        const PredictionRange r = predict_range(a100.hw, a100.m, a100.w, c);
        CHECK(r.slowest.in(s) == Approx(a100.step(slow, ms(3.1)).in(s)).epsilon(1e-12));
        CHECK(r.fastest.in(s) == Approx(a100.step(fast, ms(2.9)).in(s)).epsilon(1e-12));
        CHECK(r.estimate.step_time.in(s) == Approx(a100.step(e, ms(3)).in(s)).epsilon(1e-12));
    }
}

TEST_CASE("predict: a fit that left no term's error is widened by its worst leave-one-out error, never past the ceiling", "[calibrate]") {
    // Two rows fitting two terms leave no degrees of freedom, so no standard errors: the range
    // cannot come from them. Hand calculation: with a worst leave-one-out error of 10% the range
    // is the estimate / 1.1 to x 1.1; at 1000% the fast end would be an eleventh of the estimate,
    // below the ceiling (a 3 ms fixed time alone is above it), so it stops at the ceiling. With
    // neither, the range is the estimate and says it is unknown.
    const Setting a100 = llama2_on_a100();
    Calibration c;
    c.bandwidth_efficiency = 0.8;
    c.overhead = ms(3);
    const Seconds estimate = a100.step(0.8, ms(3)), ceiling = a100.step(1.0, Seconds{});
    const PredictionRange unknown = predict_range(a100.hw, a100.m, a100.w, c);
    CHECK(unknown.basis == RangeBasis::none);
    CHECK(unknown.fastest == unknown.estimate.step_time);
    CHECK(unknown.slowest == unknown.estimate.step_time);
    const PredictionRange ten = predict_range(a100.hw, a100.m, a100.w, c, 0.10);
    CHECK(ten.basis == RangeBasis::leave_one_out);
    CHECK(ten.estimate.step_time.in(s) == Approx(estimate.in(s)).epsilon(1e-12));
    CHECK(ten.slowest.in(s) == Approx(estimate.in(s) * 1.1).epsilon(1e-12));
    CHECK(ten.fastest.in(s) == Approx(estimate.in(s) / 1.1).epsilon(1e-12));
    CHECK(estimate.in(s) / 11 < ceiling.in(s));
    const PredictionRange wide = predict_range(a100.hw, a100.m, a100.w, c, 10.0);
    CHECK(wide.fastest.in(s) == Approx(ceiling.in(s)).epsilon(1e-12));
    CHECK(wide.slowest.in(s) == Approx(estimate.in(s) * 11).epsilon(1e-12));
    // A term's error, where the fit left one, is the range's basis, the leave-one-out error aside.
    c.overhead_error = ms(0.1);
    const PredictionRange errors = predict_range(a100.hw, a100.m, a100.w, c, 0.10);
    CHECK(errors.basis == RangeBasis::term_errors);
    CHECK(errors.slowest.in(s) == Approx(a100.step(0.8, ms(3.1)).in(s)).epsilon(1e-12));
    // A negative spread would put the slow end below the fast one: refused, as a NaN one is.
    c.overhead_error = ms(-1);
    CHECK_THROWS_WITH(predict_range(a100.hw, a100.m, a100.w, c), "overhead_error: got -0.001, expected a standard error: finite and at least 0");
    c.overhead_error.reset();
    CHECK_THROWS_WITH(predict_range(a100.hw, a100.m, a100.w, c, std::nan("")), "leave_one_out_worst: got nan, expected a standard error: finite and at least 0");
}

TEST_CASE("predict: a time per MoE layer's standard error widens the range by it times the MoE layers", "[calibrate]") {
    // Hand calculation: Qwen3-30B-A3B has 48 MoE layers (config.json: 48 layers, decoder_sparse_step
    // 1, no mlp_only_layers). At 300 +/- 50 us a MoE layer, and no other term with an error, the
    // slowest step is 48 x 50 us = 2.4 ms above the estimate and the fastest 2.4 ms below it; on
    // Llama-3.1-8B, with none, the range is the estimate.
    const Hardware h200 = load_hardware("h200");
    Calibration c;
    c.bandwidth_efficiency = 0.7;
    c.overhead = ms(2);
    c.per_moe_layer = us(300);
    c.per_moe_layer_error = us(50);
    const Workload w{.batch = 8, .context = 2048};
    const PredictionRange moe = predict_range(h200, load_model("qwen3-30b-a3b"), w, c);
    CHECK((moe.slowest - moe.estimate.step_time).in(ms) == Approx(2.4).epsilon(1e-9));
    CHECK((moe.estimate.step_time - moe.fastest).in(ms) == Approx(2.4).epsilon(1e-9));
    const PredictionRange dense = predict_range(h200, load_model("llama-3.1-8b"), w, c);
    CHECK(dense.slowest == dense.estimate.step_time);
    CHECK(dense.fastest == dense.estimate.step_time);
}

TEST_CASE("efficiency: a multi-head kernel on grouped-query attention reads each KV head once per query head", "[efficiency]") {
    // Hand calculation. Llama-3.1-8B (config.json: 32 layers, 32 query heads, 8 KV heads, head
    // dim 4096 / 32 = 128) caches 2 (K, V) x 32 x 8 x 128 x 2 bytes (bf16) = 131,072 B a token;
    // at 4096 tokens that is 536,870,912 B a sequence. Read once per query head, each KV head is
    // read 32 / 8 = 4 times: 2,147,483,648 B. What the cache holds does not change.
    const Model m = load_model("llama-3.1-8b");
    Workload w{.batch = 1, .context = 4096};
    Workload per_query = w;
    per_query.efficiency.kv_per_query_head = true;
    CHECK(decode_step(h100(), m, w).kv_bytes.in(bytes) == Approx(536'870'912.0).epsilon(1e-12));
    CHECK(decode_step(h100(), m, per_query).kv_bytes.in(bytes) == Approx(2'147'483'648.0).epsilon(1e-12));
    CHECK(decode_step(h100(), m, per_query).memory.kv == decode_step(h100(), m, w).memory.kv);
    // Over 16 devices the 8 KV heads are replicated, one a device, which serves 32 / 16 = 2 query
    // heads: 2 x 32 x 1 x 128 x 2 = 16,384 B a token a device read twice, 32,768 B.
    const Deployment sixteen{h100(), Parallelism{.tensor = 16}};
    CHECK(step_cost(m, w, sixteen.parallel).kv_bytes(1).in(bytes) == Approx(16'384.0).epsilon(1e-12));
    CHECK(step_cost(m, per_query, sixteen.parallel).kv_bytes(1).in(bytes) == Approx(32'768.0).epsilon(1e-12));
    // Multi-head attention (Llama-2-7B: 32 heads, 32 KV heads) is read once either way.
    const Model mha = load_model("llama-2-7b");
    CHECK(decode_step(h100(), mha, per_query).kv_bytes == decode_step(h100(), mha, w).kv_bytes);
}

TEST_CASE("efficiency: activations written and read back through memory grow with the step's tokens", "[efficiency]") {
    // Hand calculation. Llama-3.1-8B (config.json: 32 layers, hidden 4,096, 32 query heads and 8
    // KV heads of 128, MLP 14,336), per token and layer (model.hpp's layer_activation_traffic):
    // two blocks' residual, norm and matmul ends, 12 x 4,096 = 49,152 elements, and three
    // crossings of q, k, v and the output (2 x 4,096 + 2 x 1,024) and of the gate and up outputs
    // (2 x 14,336): 3 x 38,912 = 116,736. In bf16 over 32 layers: 165,888 x 2 x 32 = 10,616,832 B.
    const Model m = load_model("llama-3.1-8b");
    Workload w{.batch = 768, .context = 2048};
    Workload moving = w;
    moving.efficiency.activation_traffic = true;
    const DecodeStep kept = decode_step(h100(), m, w), moved = decode_step(h100(), m, moving);
    CHECK(kept.activation_bytes == Bytes{});
    CHECK(moved.activation_bytes.in(bytes) == Approx(768 * 10'616'832.0).epsilon(1e-12));  // 8.15 GB, beside 16.06 GB of weights
    CHECK(moved.kv_bytes == kept.kv_bytes);
    CHECK(moved.weight_bytes == kept.weight_bytes);
    CHECK(moved.total_bytes.in(bytes) == Approx((kept.total_bytes + moved.activation_bytes).in(bytes)).epsilon(1e-12));
    CHECK(moved.bytes_per_device.in(bytes) == Approx((kept.bytes_per_device + moved.activation_bytes).in(bytes)).epsilon(1e-12));
    // A calibration that moves them predicts with them; the ceiling it is shown beside keeps them on chip.
    Calibration fitted;
    fitted.bandwidth_efficiency = 0.8;
    fitted.activation_traffic = true;
    const PredictionRange range = predict_range(h100(), m, w, fitted);
    CHECK(range.ceiling.activation_bytes == Bytes{});
    CHECK(range.ceiling.step_time == kept.step_time);
    CHECK(range.estimate.activation_bytes == moved.activation_bytes);
    CHECK(range.estimate.step_time > range.ceiling.step_time / 0.8);
    // Over two devices each holds the hidden state whole and half the heads and MLP:
    // (49,152 + 3 x 19,456) x 2 x 32 = 6,881,280 B a token a device, 13,762,560 B over both.
    const Deployment two{h100(), Parallelism{.tensor = 2}};
    CHECK(step_cost(m, moving, two.parallel).activation_bytes.in(bytes) == Approx(6'881'280.0).epsilon(1e-12));
    CHECK(decode_step(two, m, moving).activation_bytes.in(bytes) == Approx(768 * 13'762'560.0).epsilon(1e-12));
    // Under attention data parallelism over 8 devices (one a rank), each rank keeps its own
    // sequences' residual stream and attention; the FFN's matmuls take every token. At 16
    // sequences the busiest device has 2: per layer, their attention blocks (6 x 4,096 + 3 x
    // 10,240 on one device each) 2 x 55,296, their FFN block's residual and norm 2 x 4 x 4,096,
    // and the FFN's matmul ends and activations for all 16 tokens, 16 x (2 x 4,096 + 3 x 28,672 / 8):
    // 110,592 + 32,768 + 131,072 + 172,032 = 446,464 elements, x 2 B x 32 layers = 28,573,696 B.
    const Deployment ranks{h100(), Parallelism{.tensor = 8, .attention_data = 8}};
    Workload sixteen = moving;
    sixteen.batch = 16;
    CHECK((decode_step(ranks, m, sixteen).bytes_per_device - decode_step(ranks, m, Workload{.batch = 16, .context = 2048}).bytes_per_device)
              .in(bytes) == Approx(28'573'696.0).epsilon(1e-12));
    // A prefill moves every prompt token's: 2,048 tokens x 10,616,832 B more than on chip.
    const Workload one{.batch = 1};
    Workload one_moving = one;
    one_moving.efficiency.activation_traffic = true;
    CHECK((prefill(h100(), m, one_moving, 2048).bytes_per_device - prefill(h100(), m, one, 2048).bytes_per_device).in(bytes) ==
          Approx(2048 * 10'616'832.0).epsilon(1e-9));
    // The sweep gives decode_step's columns, and the operators add up to the step.
    const std::array<std::int64_t, 2> batches{1, 768};
    const std::array<std::int64_t, 1> contexts{2048};
    std::array<double, 2> activation{}, kv{}, total{};
    DecodeColumns out;
    out.activation_bytes = activation.data();
    out.kv_bytes = kv.data();
    out.bytes_per_step = total.data();
    decode_sweep(h100(), m, moving, batches, contexts, out);
    CHECK(activation[1] == Approx(moved.activation_bytes.in(bytes)).epsilon(1e-12));
    CHECK(kv[1] == Approx(moved.kv_bytes.in(bytes)).epsilon(1e-12));
    CHECK(total[1] == Approx(moved.total_bytes.in(bytes)).epsilon(1e-12));
    for (const char* name : {"llama-3.1-8b", "deepseek-v3", "qwen3-next-80b-a3b"}) {
        INFO(name);
        const Model k = load_model(name);
        const Deployment dep{h100(), Parallelism{.tensor = std::string_view(name) == "llama-3.1-8b" ? 1 : 8}};
        Workload x{.batch = 64, .context = 4096};
        x.efficiency.activation_traffic = true;
        const auto ops = operators(dep, k, x);
        double b = 0;
        for (const Operator& o : ops) b += o.bytes.in(bytes);
        CHECK(b == Approx(decode_step(dep, k, x).bytes_per_device.in(bytes)).epsilon(1e-12));
        CHECK(std::any_of(ops.begin(), ops.end(), [](const Operator& o) { return o.name == "activations (written and read back)"; }));
    }
}

TEST_CASE("calibrate: rows that move their activations through memory are fitted with them", "[calibrate]") {
    // A seeded simulation: Llama-3.1-8B on an H100 at batches 1 to 384 of 16 tokens, at 80% of the
    // bandwidth and 2 ms a step, each step also moving its activations (Efficiency::activation_traffic:
    // 4.1 GB at 384 sequences beside 16.1 GB of weights and 0.8 GB of KV), each row off by up to
    // 1%. Fitted with them (the default) the planted terms come back; fitted with the
    // activations on chip, the steps' growth with the batch cannot be followed.
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> noise(-0.01, 0.01);
    Efficiency truth{0.8, 1.0, ms(2)};
    truth.activation_traffic = true;
    const Model m = load_model("llama-3.1-8b");
    std::vector<Observation> rows;
    for (const std::int64_t b : {1, 16, 64, 128, 256, 384}) {
        Observation o{m, Workload{.batch = b, .context = 16}, Parallelism{}, s(1)};
        o.measured_step = (1 + noise(rng)) * time_per_output_token(Deployment{h100(), o.parallel}, o, truth);
        rows.push_back(o);
    }
    CalibrationTerms held;
    held.compute = false;
    // The KV read once per query head also grows with the batch; held, so that only the activations can follow it.
    held.kv_reads = false;
    const Calibration with = calibrate(h100(), rows, held);
    CHECK(with.activation_traffic);
    CHECK(with.efficiency().activation_traffic);
    CHECK(with.bandwidth_efficiency == Approx(0.8).epsilon(0.02));
    CHECK(with.overhead.in(ms) == Approx(2).epsilon(0.1));
    CHECK(with.rms_relative_error < 0.01);
    const Calibration without = calibrate(h100(), rows, ceiling_bytes(held));
    CHECK_FALSE(without.activation_traffic);
    CHECK(without.rms_relative_error > 3 * with.rms_relative_error);
}

TEST_CASE("calibrate: the attention's KV reading is chosen where the rows tell it apart", "[calibrate]") {
    // A seeded simulation: rows of Llama-2-7B (multi-head) and Llama-2-70B (8 KV heads for 64
    // query heads) at batches 1 to 256 and contexts 128 to 8192, timed at 80% bandwidth and 1 ms a
    // step with each KV head read once per query head, each time off by up to +-2% (a fixed seed).
    // The fit keeps the per-query reading and recovers the terms; rows made with the shared
    // reading keep it; rows of multi-head models alone cannot tell and keep the shared one.
    std::mt19937 rng(15);
    std::uniform_real_distribution<double> noise(-0.02, 0.02);
    const auto rows_with = [&](bool per_query, bool gqa) {
        Efficiency truth{0.8, 1.0, ms(1), Seconds{}};
        truth.kv_per_query_head = per_query;
        std::vector<Observation> rows;
        for (const char* name : {"llama-2-7b", "llama-2-70b"}) {
            if (!gqa && std::string(name) == "llama-2-70b") continue;
            const Model m = load_model(name);
            const std::int64_t t = std::string(name) == "llama-2-70b" ? 4 : 1;
            for (std::int64_t b : {1, 16, 64, 256})
                for (std::int64_t n : {128, 2048, 8192}) {
                    if (m.max_context < n) continue;
                    Workload w{.batch = b, .context = n};
                    w.precision.weights = w.precision.kv = formats::fp8;
                    Observation o{m, w, Parallelism{.tensor = t}, s(1)};
                    o.measured_step = (1 + noise(rng)) * time_per_output_token(Deployment{h100(), o.parallel}, o, truth);
                    rows.push_back(o);
                }
        }
        return rows;
    };
    const Calibration per_query = calibrate(h100(), rows_with(true, true), ceiling_bytes());
    CHECK(per_query.kv_per_query_head);
    CHECK(per_query.bandwidth_efficiency == Approx(0.8).epsilon(0.03));
    CHECK(per_query.overhead.in(ms) == Approx(1).epsilon(0.2));
    CHECK(per_query.rms_relative_error < 0.02);
    CHECK(per_query.explanation.find("once per query head") != std::string::npos);
    const Calibration shared = calibrate(h100(), rows_with(false, true), ceiling_bytes());
    CHECK_FALSE(shared.kv_per_query_head);
    CHECK(shared.bandwidth_efficiency == Approx(0.8).epsilon(0.03));
    CHECK_FALSE(calibrate(h100(), rows_with(true, false), ceiling_bytes()).kv_per_query_head);
    // Held instead of chosen: the fit keeps what it is given.
    CalibrationTerms held;
    held.kv_reads = false;
    CHECK_FALSE(calibrate(h100(), rows_with(true, true), ceiling_bytes(held)).kv_per_query_head);
}

namespace {
// nested_leave_one_out against its definition, row by row from the public calls: the set chosen
// on the other rows alone, fitted on them, predicting the row. (It shares each fit without two
// rows between both rows' choices; this checks that the sharing changes nothing.) Returns the
// choice each fold made.
std::vector<std::size_t> check_nested_is_its_definition(const Hardware& hw, const std::vector<Observation>& rows,
                                                        const std::vector<CalibrationTerms>& candidates) {
    const std::vector<double> nested = nested_leave_one_out(hw, rows, candidates);
    REQUIRE(nested.size() == rows.size());
    std::vector<std::size_t> chosen;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::vector<Observation> others = rows;
        others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
        chosen.push_back(choose_terms(hw, others, candidates));
        const Calibration c = calibrate(hw, others, candidates[chosen.back()]);
        const Seconds predicted = time_per_output_token(Deployment{hw, rows[i].parallel}, rows[i], c.efficiency());
        CHECK(nested[i] == Approx(std::abs(static_cast<double>((predicted - rows[i].measured_step) / rows[i].measured_step))).epsilon(1e-12));
    }
    return chosen;
}
}  // namespace

TEST_CASE("calibrate: nested leave-one-out picks the term set without the row it predicts", "[calibrate]") {
    // A seeded simulation: batch-1 rows of models 24 to 80 layers deep, in bf16 and int4 (so the
    // bytes do not follow the depth), at 90% bandwidth and 100 us a layer (no fixed time), each
    // off by up to +-1%. Leave-one-out on these rows prefers the term set with a time per layer,
    // and nested leave-one-out, which chooses without the row it predicts, predicts every row
    // within 5%, where the default terms (a fixed time) miss some row by more.
    std::mt19937 rng(15);
    std::uniform_real_distribution<double> noise(-0.01, 0.01);
    const Efficiency truth{0.9, 1.0, Seconds{}, us(100)};
    std::vector<Observation> rows;
    for (const char* name : {"gpt-oss-20b", "llama-3.1-8b", "llama-2-13b", "qwen3-32b", "llama-2-70b"})
        for (const Format f : {formats::bf16, *parse_format("int4/g64")}) {  // 64 divides gpt-oss's 2,880
            const Model m = load_model(name);
            Workload w{.batch = 1, .context = 1024};
            w.precision.weights = f;
            Observation o{m, w, Parallelism{.tensor = layer_count(m) == 80 ? 2 : 1}, s(1)};
            o.measured_step = (1 + noise(rng)) * time_per_output_token(Deployment{h100(), o.parallel}, o, truth);
            rows.push_back(o);
        }
    CalibrationTerms layered;
    layered.per_layer = true;
    const std::vector<CalibrationTerms> candidates{CalibrationTerms{}, layered};
    CHECK(choose_terms(h100(), rows, candidates) == 1);
    const std::vector<double> nested = nested_leave_one_out(h100(), rows, candidates);
    REQUIRE(nested.size() == rows.size());
    for (double e : nested) CHECK(e < 0.05);
    const std::vector<double> plain = leave_one_out(h100(), rows);
    CHECK(*std::max_element(plain.begin(), plain.end()) > 0.05);
    check_nested_is_its_definition(h100(), rows, candidates);
    // One candidate: nested leave-one-out is leave-one-out. Two rows: nothing to choose with.
    CHECK(nested_leave_one_out(h100(), rows, {layered}) == leave_one_out(h100(), rows, layered));
    CHECK(choose_terms(h100(), {rows[0], rows[9]}, candidates) == 0);
    // Published rows whose folds choose differently (ExLlama on the RTX 4090: two folds keep the
    // fixed time alone, four add a time per layer), so each fold's own choice is what is checked.
    const MeasurementSet set = load_measurements("published");
    std::vector<Observation> exllama;
    for (const MeasuredRow& r : set.rows)
        if (r.engine == "ExLlama" && r.hardware == "rtx-4090" && !r.flagged) exllama.push_back(observation(r));
    const std::vector<std::size_t> chosen = check_nested_is_its_definition(load_hardware("rtx-4090"), exllama, candidates);
    CHECK(std::count(chosen.begin(), chosen.end(), 0) > 0);
    CHECK(std::count(chosen.begin(), chosen.end(), 1) > 0);
}

TEST_CASE("calibrate: rows that timed whole requests are fitted and predicted with their prefill", "[calibrate]") {
    // Hand calculation: one sequence, a 1-token prompt and 2 output tokens. The prefill of one token
    // and the decode step after it each read every weight but the embedding table once: Llama-2-7B's
    // config.json (hidden 4096, vocab 32000) gives 6,738,415,616 parameters, less 32000 x 4096 =
    // 131,072,000 looked up, at 2 bytes = 13,214,687,232 B, over the H100 SXM's 3.35 TB/s = 3.9447 ms.
    // The KV of one or two tokens (0.5 MB each) adds under 0.02%.
    const Model llama2 = load_model("llama-2-7b");
    const Observation tiny{llama2, Workload{}, {}, ms(4), Requests{Timed::whole_requests, 1, 2}};
    CHECK(time_per_output_token(h100(), tiny, Efficiency{}).in(ms) == Approx(13'214'687'232.0 / 3.35e12 * 1e3).epsilon(3e-4));

    // A seeded simulation: rows timed over whole requests at 80% bandwidth, 60% compute and 2 ms a
    // step, from prefill-heavy (batch 256, 2048 in, 16 out) to decode-heavy; the fit recovers the
    // three terms. The decode steps are sampled at 64 contexts (calibrate.hpp), so the recovery is
    // close, not exact.
    const Efficiency truth{0.8, 0.6, ms(2), Seconds{}};
    std::vector<Observation> rows;
    struct Shape {
        const char* model;
        std::int64_t batch, prompt, output;
    };
    for (const Shape& x : {Shape{"llama-2-7b", 256, 2048, 16}, Shape{"llama-2-7b", 64, 128, 2048}, Shape{"llama-2-7b", 1, 512, 512},
                           Shape{"llama-3.1-8b", 768, 128, 128}, Shape{"llama-3.1-8b", 16, 4096, 1000}, Shape{"qwen3-8b", 4, 300, 3000}}) {
        Workload w{.batch = x.batch};
        const Observation o{load_model(x.model), w, {}, s(1), Requests{Timed::whole_requests, x.prompt, x.output}};
        rows.push_back(o);
        rows.back().measured_step = time_per_output_token(h100(), o, truth);
    }
    const Calibration c = calibrate(h100(), rows, ceiling_bytes());
    CHECK(c.used.size() == rows.size());
    CHECK(c.bandwidth_efficiency == Approx(0.8).epsilon(0.01));
    CHECK(c.compute_efficiency == Approx(0.6).epsilon(0.01));
    CHECK(c.overhead.in(ms) == Approx(2).epsilon(0.02));
    for (std::size_t i = 0; i < rows.size(); ++i) CHECK(c.predicted[i].in(s) == Approx(rows[i].measured_step.in(s)).epsilon(0.005));
    // Read as decode steps at the mean context instead, the prefill-heavy row is missed by far:
    // its 2048-token prompts at batch 256 take longer than its 16 output steps.
    Observation as_steps = rows[0];
    as_steps.requests = Requests{};
    as_steps.workload.context = mean_decode_context(rows[0].requests);
    CHECK(time_per_output_token(h100(), as_steps, truth) < 0.5 * rows[0].measured_step);
}

TEST_CASE("calibrate: rows timed under continuous batching carry their share of arriving prompts' prefill", "[calibrate]") {
    // A seeded simulation: inter-token latencies at concurrencies 1 to 64 with 5000-token prompts
    // arriving (the aggregated serving model's TPOT, serving.hpp) at 70% bandwidth, 50% compute and
    // 3 ms a step, on Llama-3.1-70B in fp8 over two H100s. The fit recovers the three terms.
    const Efficiency truth{0.7, 0.5, ms(3), Seconds{}};
    const Model m = load_model("llama-3.1-70b");
    std::vector<Observation> rows;
    for (std::int64_t b : {1, 5, 25, 50, 64}) {
        Workload w{.batch = b};
        w.precision.weights = formats::fp8;
        const Observation o{m, w, Parallelism{.tensor = 2}, s(1), Requests{Timed::interleaved_prefill, 5000, 500}};
        rows.push_back(o);
        rows.back().measured_step = time_per_output_token(Deployment{h100(), o.parallel}, o, truth);
    }
    const Calibration c = calibrate(h100(), rows, ceiling_bytes());
    CHECK(c.bandwidth_efficiency == Approx(0.7).epsilon(0.01));
    CHECK(c.compute_efficiency == Approx(0.5).epsilon(0.01));
    CHECK(c.overhead.in(ms) == Approx(3).epsilon(0.02));
    // Each row is the serving model's TPOT, which at concurrency 50 is far from a decode step's:
    // a turn is a prompt's three chunk steps and 499 decode steps, so 50 x 5000 / 502 = 498 prompt
    // tokens ride a step.
    const Serving served = serve(Deployment{h100(), rows[3].parallel}, m, rows[3].workload, Traffic{5000, 500}, ServingMode::aggregated);
    CHECK(served.prefill_tokens_per_step == Approx(50 * 5000 / 502.0).epsilon(1e-12));
    Observation as_step = rows[3];
    as_step.requests = Requests{};
    as_step.workload.context = 5000 + 250;
    CHECK(time_per_output_token(Deployment{h100(), as_step.parallel}, as_step, truth) < 0.75 * rows[3].measured_step);
}

namespace {
// Inter-token latencies of Llama-3.1-8B on one H100 with 2000-token prompts arriving (200 out)
// at concurrencies 1 to 16, timed with `truth`, each off by up to +-`noise` (a fixed seed). At
// the ideal rates every step is memory-bound (at most 160 prompt tokens a step, under the H100's
// 295 FLOPs a byte); at 12% compute efficiency the steps from concurrency 4 up are compute-bound.
std::vector<Observation> served_rows(const Efficiency& truth, double noise) {
    std::mt19937 rng(15);
    std::uniform_real_distribution<double> off(-noise, noise);
    const Model m = load_model("llama-3.1-8b");
    std::vector<Observation> rows;
    for (std::int64_t b : {1, 2, 4, 8, 16}) {
        const Observation o{m, Workload{.batch = b}, {}, s(1), Requests{Timed::interleaved_prefill, 2000, 200}};
        rows.push_back(o);
        rows.back().measured_step = (1 + off(rng)) * time_per_output_token(h100(), o, truth);
    }
    return rows;
}
}  // namespace

TEST_CASE("calibrate: the fit is global over which steps are compute-bound", "[calibrate]") {
    // A seeded simulation at 85% bandwidth, 12% compute and 2 ms a step. Settling each step's bound
    // by iterating from the ideal bounds (the fit before) stops where every step is memory-bound,
    // at 100% compute; the search over bound assignments recovers the three terms.
    const Efficiency truth{0.85, 0.12, ms(2), Seconds{}};
    const Calibration c = calibrate(h100(), served_rows(truth, 0), ceiling_bytes());
    CHECK(c.compute_efficiency == Approx(0.12).epsilon(0.01));
    CHECK(c.bandwidth_efficiency == Approx(0.85).epsilon(0.01));
    CHECK(c.overhead.in(ms) == Approx(2).epsilon(0.02));
    CHECK(c.rms_relative_error < 0.002);

    // With noise, no (bandwidth, compute) pair on a grid 1% apart, each with its best fixed time
    // (closed form: the weighted mean gap, at least 0), fits better than calibrate does.
    const std::vector<Observation> rows = served_rows(truth, 0.03);
    const Calibration noisy = calibrate(h100(), rows, ceiling_bytes());
    double grid_best = 1e300;
    for (int bi = 40; bi <= 100; bi += 1)
        for (int ci = 5; ci <= 30; ci += 1) {
            const Efficiency e{bi / 100.0, ci / 100.0, Seconds{}, Seconds{}};
            std::vector<double> gap;
            double sum = 0, weights = 0;
            for (const Observation& o : rows) {
                const double m = o.measured_step.in(s), p = time_per_output_token(h100(), o, e).in(s);
                gap.push_back(m - p);
                sum += (m - p) / (m * m);
                weights += 1 / (m * m);
            }
            const double overhead = std::max(0.0, sum / weights);
            double sq = 0;
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const double r = (gap[i] - overhead) / rows[i].measured_step.in(s);
                sq += r * r / static_cast<double>(rows.size());
            }
            grid_best = std::min(grid_best, std::sqrt(sq));
        }
    CHECK(noisy.rms_relative_error <= grid_best * 1.001);
    CHECK(noisy.compute_efficiency == Approx(0.12).epsilon(0.1));
}

TEST_CASE("calibrate: rows that cannot show a compute efficiency keep it at 100%", "[calibrate]") {
    // A seeded simulation: Llama-2-7B decode steps at batches 1 to 8 (memory-bound at any compute
    // efficiency above the floor) timed at 21% bandwidth and 1 ms a step. Every compute efficiency
    // that leaves them memory-bound fits equally well; the fit keeps 100%, as holding it would,
    // and predicts batch 256 as the held fit does.
    const Model m = load_model("llama-2-7b");
    const Efficiency truth{0.21, 1.0, ms(1), Seconds{}};
    std::vector<Observation> rows;
    for (std::int64_t b : {1, 2, 4, 8}) {
        Workload w{.batch = b, .context = 512};
        w.efficiency = truth;
        rows.push_back({m, Workload{.batch = b, .context = 512}, {}, decode_step(h100(), m, w).step_time});
    }
    const Calibration c = calibrate(h100(), rows, ceiling_bytes());
    CHECK(c.compute_efficiency == 1);
    CHECK(c.bandwidth_efficiency == Approx(0.21).epsilon(1e-6));
    CalibrationTerms held;
    held.compute = false;
    const Workload big{.batch = 256, .context = 512};
    CHECK(predict(h100(), m, big, c).step_time.in(s) == Approx(predict(h100(), m, big, calibrate(h100(), rows, ceiling_bytes(held))).step_time.in(s)).epsilon(1e-9));
    // Held efficiencies come back as given, never a rounding past 100% (a one-row fit holds both).
    for (int k = 1; k <= 99; ++k) {
        CalibrationTerms one;
        one.held.bandwidth = k / 100.0;  // set below 1, it wins over the H100 preset's measured figure
        const Calibration f = calibrate(h100(), {rows[0]}, ceiling_bytes(one));
        CHECK(f.bandwidth_efficiency == Approx(k / 100.0).epsilon(1e-15));
        CHECK(f.bandwidth_efficiency <= 1);
        CHECK(f.compute_efficiency == 1);
    }
}

TEST_CASE("calibrate: a fit claims no compute efficiency below its floor", "[calibrate]") {
    // Rows made at 2% compute: the default floor (5%) holds the fit there and says so by the
    // figure; a floor of 1% lets it recover the 2%. A floor outside (0, 1] is refused.
    const Efficiency truth{0.85, 0.02, ms(2), Seconds{}};
    const std::vector<Observation> rows = served_rows(truth, 0);
    const Calibration floored = calibrate(h100(), rows, ceiling_bytes());
    CHECK(floored.compute_efficiency == Approx(0.05).epsilon(1e-9));
    CHECK(floored.rms_relative_error > 0.01);
    CalibrationTerms lower;
    lower.lowest_compute = 0.01;
    CHECK(calibrate(h100(), rows, ceiling_bytes(lower)).compute_efficiency == Approx(0.02).epsilon(0.01));
    CalibrationTerms zero;
    zero.lowest_compute = 0;
    CHECK_THROWS_WITH(calibrate(h100(), rows, ceiling_bytes(zero)), "lowest_compute: got 0, expected a fraction from 0.000001 to 1");
    CHECK_THROWS_WITH(leave_one_out(h100(), rows, ceiling_bytes(zero)), "lowest_compute: got 0, expected a fraction from 0.000001 to 1");
    // Held instead of fitted, the compute efficiency stays at 100% and the rest fit around it.
    CalibrationTerms held;
    held.compute = false;
    CHECK(calibrate(h100(), rows, ceiling_bytes(held)).compute_efficiency == 1);
}

TEST_CASE("measurements: includes_prefill and interleaved_prefill rows give their prompt and output, not a context", "[calibrate][json]") {
    const auto load = [](const char* row) {
        return measurements_from_json(nlohmann::json::parse(std::string(R"({"source": "test", "measurements": [)") + row + "]}"), "m.json");
    };
    const MeasurementSet ok = load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "batch": 64, "includes_prefill": true,
                                       "prompt": 128, "output": 2048, "tokens_per_s": 80})");
    CHECK(ok.rows[0].requests.prompt == 128);
    CHECK(ok.rows[0].requests.output == 2048);
    CHECK(ok.rows[0].workload.context == 128 + 1024);  // the mean a decode step sees, for diagnose
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "includes_prefill": true, "prompt": 128, "output": 128,
                              "context": 192, "tokens_per_s": 80})"),
                      "m.json: /measurements/0/context: got 192, expected no context where includes_prefill is true (it follows from prompt and output)");
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "includes_prefill": true, "prompt": 128, "tokens_per_s": 80})"),
                      "m.json: /measurements/0/output: got nothing (the key is missing), expected the output tokens per request, where includes_prefill is true");
    // An engine named by spaces alone names none.
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "context": 5, "tokens_per_s": 80, "engine": "  "})"),
                      "m.json: /measurements/0/engine: got \"  \" (a string), expected the engine's name, a non-empty string");
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "prompt": 128, "tokens_per_s": 80})"),
                      "m.json: /measurements/0/prompt: got 128, expected no prompt or output unless includes_prefill or interleaved_prefill is true "
                      "(give the decode steps' context)");
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "includes_prefill": true, "prompt": 0, "output": 8, "tokens_per_s": 80})"),
                      "m.json: /measurements/0/prompt: got 0, expected an integer from 1 to 2^40 tokens");
    const MeasurementSet served = load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "batch": 8, "interleaved_prefill": true,
                                           "prompt": 1000, "output": 200, "tpot_ms": 20})");
    CHECK(served.rows[0].requests.timed == Timed::interleaved_prefill);
    CHECK(served.rows[0].workload.context == 1100);
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "includes_prefill": true, "interleaved_prefill": true,
                              "prompt": 1000, "output": 200, "tpot_ms": 20})"),
                      "m.json: /measurements/0/interleaved_prefill: got true (a boolean), expected not both includes_prefill and "
                      "interleaved_prefill (a figure times whole requests or served steps)");
    // How the engine scheduled the prefill: mixed into the decode steps unless the row says apart.
    CHECK(served.rows[0].requests.prefill_steps == PrefillSteps::mixed);
    const MeasurementSet apart = load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "batch": 8, "interleaved_prefill": true,
                                          "prefill_steps": "apart", "prompt": 1000, "output": 200, "tpot_ms": 20})");
    CHECK(apart.rows[0].requests.prefill_steps == PrefillSteps::apart);
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "batch": 8, "interleaved_prefill": true,
                              "prefill_steps": "chunked", "prompt": 1000, "output": 200, "tpot_ms": 20})"),
                      "m.json: /measurements/0/prefill_steps: got \"chunked\" (a string), expected \"mixed\" (prefill rides the decode steps) "
                      "or \"apart\" (in passes of its own)");
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "batch": 8, "includes_prefill": true,
                              "prefill_steps": "apart", "prompt": 1000, "output": 200, "tpot_ms": 20})"),
                      "m.json: /measurements/0/prefill_steps: got \"apart\" (a string), expected no prefill_steps unless interleaved_prefill "
                      "is true (whole requests prefill before they decode)");
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "batch": 8, "interleaved_prefill": true,
                              "prefill_steps": true, "prompt": 1000, "output": 200, "tpot_ms": 20})"),
                      "m.json: /measurements/0/prefill_steps: got true (a boolean), expected \"mixed\" or \"apart\"");
    // A row whose engine ran the model past its config's positions says so (GPT-J's 2,048, run to
    // 4,096 by TensorRT-LLM's build flags): the row's model takes it. Loaded from a file, the
    // rows are checked against their models: without it the 4,096 tokens are refused by the
    // model's own limit, and a max_context short of the row or within that limit is refused.
    const MeasurementSet past = load(R"({"hardware": "h100-sxm", "model": "gpt-j-6b", "batch": 8, "includes_prefill": true,
                                         "prompt": 2048, "output": 2048, "max_context": 4096, "tokens_per_s": 40})");
    CHECK(observation(past.rows[0]).model.max_context == 4096);
    const auto from_file = [](const std::string& tail, const char* lengths = R"("prompt": 2048, "output": 2048)") {
        const std::filesystem::path f = std::filesystem::temp_directory_path() / "ridgeline-max-context.json";
        std::ofstream(f) << R"({"source": "test", "measurements": [{"hardware": "h100-sxm", "model": "gpt-j-6b", "batch": 8,
                               "includes_prefill": true, "tokens_per_s": 40, )" + std::string(lengths) + tail + "}]}";
        return load_measurements(f.string());
    };
    const std::string f = (std::filesystem::temp_directory_path() / "ridgeline-max-context.json").string();
    CHECK(from_file(R"(, "max_context": 4096)").rows.size() == 1);
    CHECK_THROWS_WITH(from_file(""), f + ": /measurements/0/output: got prompt + output 4096, expected at most the "
                                         "max_position_embeddings of model 'gpt-j-6b' (2048), or a max_context saying how far the "
                                         "source's engine ran it");
    CHECK_THROWS_WITH(from_file(R"(, "max_context": 3000)"),
                      f + ": /measurements/0/max_context: got 3000, expected at least the row's prompt + output (4096)");
    CHECK_THROWS_WITH(from_file(R"(, "max_context": 2000)", R"("prompt": 1000, "output": 500)"),
                      f + ": /measurements/0/max_context: got 2000, expected more than the max_position_embeddings of model "
                          "'gpt-j-6b' (2048), or no max_context");
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "gpt-j-6b", "includes_prefill": true, "prompt": 2048, "output": 2048,
                              "max_context": 0, "tokens_per_s": 40})"),
                      "m.json: /measurements/0/max_context: got 0, expected an integer from 1 to 2^40 tokens");
    CHECK_THROWS_WITH(load(R"({"hardware": "h100-sxm", "model": "llama-2-7b", "batch": 8, "context": 100,
                              "prefill_steps": "apart", "tpot_ms": 20})"),
                      "m.json: /measurements/0/prefill_steps: got \"apart\" (a string), expected no prefill_steps unless interleaved_prefill is true");
}

TEST_CASE("serving with prefill apart: the decodes wait for each prompt's prefill", "[calibrate][serving]") {
    // Llama-3.1-8B (config.json: hidden 4096, 32 layers, vocab 128256, 8.03e9 parameters) on one
    // H100 (989 TFLOP/s bf16) at 20% compute efficiency, 16 sequences, 2000-token prompts, 200
    // out. A sequence's turn is its own pass and 199 decode steps, in which the other 15 bring a
    // prompt each: 15 / 200 = 0.075 a step. Apart, their prefill is a pass of its own:
    // at least 2 x (8.03e9 - 2 x 128256 x 4096) x 2000 = 2.79e13 FLOPs (the embedding is a lookup;
    // the LM head counted as not run for every prompt token), 141 ms at 197.8 TFLOP/s, so 10.6 ms
    // a step. The causal attention adds 4 x 32 x 4096 x 2000^2 / 2 = 1.05e12 FLOPs, the LM head
    // over all 2000 tokens 2 x 128256 x 4096 x 2000 = 2.10e12 (1.19 ms a step for both); norms,
    // activations and the softmax add under 1% of the whole.
    const Model m = load_model("llama-3.1-8b");
    Workload w{.batch = 16};
    w.efficiency = Efficiency{1.0, 0.2, Seconds{}, Seconds{}};
    const Traffic traffic{2000, 200};
    const Seconds apart = tpot_prefill_apart(h100(), m, w, traffic);
    const Serving mixed = serve(h100(), m, w, traffic, ServingMode::aggregated);
    const double added = (apart - mixed.decode_tpot).in(ms);
    const double least = 0.075 * 2 * (8.03e9 - 2 * 128256.0 * 4096) * 2000 / (0.2 * 989e12) * 1e3;
    CHECK(least == Approx(10.6).margin(0.05));
    CHECK(added >= least);
    CHECK(added <= 1.01 * (least + 0.075 * (1.05e12 + 2.10e12) / (0.2 * 989e12) * 1e3));
    // Mixed into the decode steps, the same prompt tokens (15 x 2000 / 200 = 150 a step) cost less: the step was
    // memory-bound, and part of their arithmetic hides under its weight read.
    CHECK(mixed.tpot < apart);

    // A seeded simulation: rows timed that way at concurrencies 1 to 16 and prompts of 500 and
    // 8000 tokens (at one prompt length the terms trade off along a line), at 80% bandwidth, 20%
    // compute and 2 ms a pass (prefill passes pay it too). The fit recovers the three terms.
    const Efficiency truth{0.8, 0.2, ms(2), Seconds{}};
    std::vector<Observation> rows;
    for (std::int64_t prompt : {500, 8000})
        for (std::int64_t b : {1, 4, 16}) {
            Requests r{Timed::interleaved_prefill, prompt, 200};
            r.prefill_steps = PrefillSteps::apart;
            rows.push_back(Observation{m, Workload{.batch = b}, {}, s(1), r});
            rows.back().measured_step = time_per_output_token(h100(), rows.back(), truth);
        }
    const Calibration c = calibrate(h100(), rows, ceiling_bytes());
    CHECK(c.bandwidth_efficiency == Approx(0.8).epsilon(0.005));
    CHECK(c.compute_efficiency == Approx(0.2).epsilon(0.005));
    CHECK(c.overhead.in(ms) == Approx(2).epsilon(0.01));
    CHECK(c.rms_relative_error < 1e-5);  // whole generations' decode steps are sampled (calibrate_rows.hpp)
    // The same figures read as mixed steps fit worse: the model would be the wrong one.
    std::vector<Observation> as_mixed = rows;
    for (Observation& o : as_mixed) o.requests.prefill_steps = PrefillSteps::mixed;
    CHECK(calibrate(h100(), as_mixed, ceiling_bytes()).rms_relative_error > 0.005);

    // Over two H100 pairs (TP 2, PP 2) on Llama-3.1-8B and -70B in fp8, with 30 us a layer paid
    // by every pass and the KV read once per query head: the links each prefill pass adds, its
    // per-layer time and the reading are all in the rows, and the fit recovers them (two models,
    // so a time per layer is not a constant of the rows that a bandwidth could stand in for).
    const Efficiency layered{0.8, 0.2, Seconds{}, us(30), true};
    std::vector<Observation> split;
    for (const char* name : {"llama-3.1-8b", "llama-3.1-70b"})
        for (std::int64_t prompt : {500, 8000})
            for (std::int64_t b : {1, 4, 16}) {
                Requests r{Timed::interleaved_prefill, prompt, 200};
                r.prefill_steps = PrefillSteps::apart;
                Workload w{.batch = b};
                w.precision.weights = formats::fp8;
                split.push_back(Observation{load_model(name), w, Parallelism{.tensor = 2, .pipeline = 2}, s(1), r});
                split.back().measured_step = time_per_output_token(Deployment{h100(), split.back().parallel}, split.back(), layered);
            }
    CalibrationTerms per_layer;
    per_layer.overhead = false;  // a fixed time and a time per layer scale alike on one model
    per_layer.per_layer = true;
    const Calibration fit_split = calibrate(h100(), split, ceiling_bytes(per_layer));
    CHECK(fit_split.kv_per_query_head);
    CHECK(fit_split.per_layer.in(us) == Approx(30).epsilon(0.01));
    CHECK(fit_split.bandwidth_efficiency == Approx(0.8).epsilon(0.005));
    CHECK(fit_split.rms_relative_error < 1e-4);
}

TEST_CASE("calibrate: one row cannot choose how the attention reads the KV", "[calibrate]") {
    // Either reading fits a single row exactly, so the choice would be rounding noise: a one-row
    // fit keeps the shared reading, whatever the row's time.
    const Model m = load_model("llama-3.1-70b");
    for (double t : {20.0, 23.7, 31.1, 36.372, 37.057, 40.0, 55.5, 80.0}) {  // 36.372 and 37.057 ms flipped before
        Workload w{.batch = 8, .context = 8000};
        w.precision.weights = formats::fp8;
        const Observation o{m, w, Parallelism{.tensor = 2}, ms(t), {}};
        CHECK_FALSE(calibrate(h100(), {o}).kv_per_query_head);
    }
}

TEST_CASE("operators: bytes and FLOPs add up to the step, and memory-bound times too", "[operators]") {
    for (const char* name : {"llama-3.1-8b", "qwen3-30b-a3b", "deepseek-v3", "gpt-oss-120b", "mistral-7b-v0.1"}) {
        for (const auto accounting : {WeightAccounting::every_parameter, WeightAccounting::bytes_read}) {
            INFO(name << " " << name_of(accounting));
            const Model m = load_model(name);
            Workload w{.batch = 4, .context = 2048};
            w.assumptions.accounting = accounting;
            const Deployment dep{h100(), Parallelism{.tensor = std::string_view(name) == "deepseek-v3" ? 8 : 1}};
            const auto ops = operators(dep, m, w);
            const DecodeStep d = decode_step(dep, m, w);
            double b = 0, f = 0, t = 0;
            for (const Operator& o : ops) b += o.bytes.in(bytes), f += o.flops.in(flop), t += o.time.in(s);
            CHECK(b == Approx(d.bytes_per_device.in(bytes)).epsilon(1e-12));
            CHECK(f == Approx(d.flops.in(flop) / static_cast<double>(d.devices)).epsilon(1e-12));
            REQUIRE(d.bound == Bound::memory);
            CHECK(t == Approx(d.memory_time.in(s)).epsilon(1e-12));  // every operator memory-bound
        }
    }
    // Over pipeline stages each device holds its stage's layers: the operators are the busiest
    // stage's device's, whose FLOPs set the step's compute term (at 989 TFLOP/s), at least the
    // mean device's; and past the vocabulary's tokens the input rows are the table, each row
    // read once (llama-3.1-8b: 128,256 rows; 200,000 tokens).
    for (const std::int64_t stages : {2, 4}) {
        for (const std::int64_t batch : {4, 200000}) {
            INFO(stages << " stages, batch " << batch);
            const Model m = load_model("llama-3.1-8b");
            const Workload w{.batch = batch, .context = 100};
            const Deployment dep{h100(), Parallelism{.tensor = 2, .pipeline = stages}};
            const DecodeStep d = decode_step(dep, m, w);
            double b = 0, f = 0;
            for (const Operator& o : operators(dep, m, w)) b += o.bytes.in(bytes), f += o.flops.in(flop);
            CHECK(b == Approx(d.bytes_per_device.in(bytes)).epsilon(1e-12));
            CHECK(f == Approx(d.compute_time.in(s) * 989e12).epsilon(1e-12));
            CHECK(f >= d.flops.in(flop) / static_cast<double>(d.devices));
        }
    }
    // A BF16 projection turns compute-bound at the device's ops:byte, 295.2 on an H100.
    const auto ops = operators(h100(), load_model("llama-3.1-8b"), seed::seed_003(Workload{.context = 4096}));
    for (const Operator& o : ops) {
        INFO(o.name);
        if (o.name == "attention over the KV cache") CHECK(o.compute_bound_batch.is_never());
        else CHECK(o.compute_bound_batch.value() == Approx(989.0 / 3.35).epsilon(1e-12));
    }
}

TEST_CASE("operators: routed experts turn compute-bound at one batch, whatever the row's", "[operators]") {
    // Qwen3-Next-80B-A3B (config.json): 512 experts of 3 x 2,048 x 512 = 3,145,728 parameters,
    // 10 a token. Once a batch touches all 512, a layer reads 512 x 3,145,728 x 2 B and does
    // 10 x 2 x 3,145,728 FLOPs a token: compute-bound past 512 x 2 / 20 = 51.2 tokens per FLOP/B
    // of the device's ridge, 989 TFLOP/s over 4.8 TB/s on an H200 (h200.json), 10,549.3. At that
    // batch all 512 are touched (1 - (1 - 10/512)^10549 is 1 to 1e-90). A review found the row at
    // batch 1 saying 206, the crossing of the bytes one sequence touches.
    const Model m = load_model("qwen3-next-80b-a3b");
    const Deployment d{load_hardware("h200")};
    for (const std::int64_t batch : {1, 64, 206, 20000}) {
        bool seen = false;
        for (const Operator& o : operators(d, m, Workload{.batch = batch, .context = 4096}))
            if (o.name == "routed experts") {
                seen = true;
                REQUIRE(o.compute_bound_batch.exists());
                CHECK(o.compute_bound_batch.value() == Approx(51.2 * 989.0 / 4.8).epsilon(1e-9));
            }
        CHECK(seen);
    }
}

TEST_CASE("efficiency presets: a bad compute_term or lowest_compute is refused by its path", "[calibrate][json]") {
    const auto load = [](const std::string& extra) {
        return efficiency_from_json(nlohmann::json::parse(std::string(R"({"engine": "e", "hardware": "h100-sxm", "bandwidth_efficiency": 0.8)") +
                                                          extra + "}"),
                                    "p.json");
    };
    CHECK(load("").compute_term);
    CHECK_FALSE(load("").lowest_compute);
    CHECK(*load(R"(, "compute_term": false, "lowest_compute": 0.05)").lowest_compute == 0.05);
    CHECK_THROWS_WITH(load(R"(, "lowest_compute": 2)"), "p.json: /lowest_compute: got 2, expected a fraction in [1e-6, 1]");
    CHECK_THROWS_WITH(load(R"(, "compute_term": "yes")"), Catch::StartsWith("p.json: /compute_term: got \"yes\""));
    // Presets saved before activations were fitted say nothing: they were fitted with them on chip.
    CHECK_FALSE(load("").fit.activation_traffic);
    CHECK_FALSE(load("").fit.efficiency().activation_traffic);
    CHECK(load(R"(, "activation_traffic": true)").fit.efficiency().activation_traffic);
    CHECK_THROWS_WITH(load(R"(, "activation_traffic": "yes")"), "p.json: /activation_traffic: got \"yes\" (a string), expected true or false");
    // A one-row fit's bandwidth basis is read back as written.
    CHECK(load(R"(, "bandwidth_basis": "held at the device's measured 921.9 of 1008 GB/s")").fit.bandwidth_basis ==
          "held at the device's measured 921.9 of 1008 GB/s");
    CHECK(load("").fit.bandwidth_basis.empty());
    CHECK_THROWS_WITH(load(R"(, "bandwidth_basis": 1)"), Catch::StartsWith("p.json: /bandwidth_basis: got 1"));
    // The rows it was fitted on are counted (list efficiency prints the count); none said, none counted.
    // A saved fit (it names its rows) has every term calibrate writes: one missing is a file cut
    // short, refused rather than read as 0.
    const std::string terms = R"(, "compute_efficiency": 1, "overhead_s": 0, "per_layer_s": 0)";
    CHECK(load(terms + R"(, "rows": [39, 40, 115])").rows == 3u);
    CHECK_FALSE(load("").rows);
    CHECK_THROWS_WITH(load(terms + R"(, "rows": 3)"), "p.json: /rows: got 3, expected an array of the measurement rows fitted, by index");
    CHECK_THROWS_WITH(load(terms + R"(, "rows": [1, -2])"), "p.json: /rows/1: got -2, expected a row index >= 0");
    CHECK_THROWS_WITH(load(terms + R"(, "rows": [])"), "p.json: /rows: got an array, expected at least one row index: a fit has "
                                                    "the rows it was fitted on");
    // The filters its rows passed, as calibrate writes them.
    CHECK(load(R"(, "filters": ["model=llama-3.1-8b", "engine=vLLM"])").fit.bandwidth_efficiency > 0);
    CHECK_THROWS_WITH(load(R"(, "filters": "x")"),
                      "p.json: /filters: got \"x\" (a string), expected an array of the filters the fit's rows passed, each a "
                      "\"key=value\" string");
    CHECK_THROWS_WITH(load(R"(, "filters": ["x"])"), "p.json: /filters/0: got \"x\" (a string), expected a \"key=value\" filter");
    CHECK_THROWS_WITH(load(R"(, "filters": ["model="])"), "p.json: /filters/0: got \"model=\" (a string), expected a \"key=value\" filter");
    CHECK_THROWS_WITH(load(R"(, "compute_efficiency": 1, "per_layer_s": 0, "rows": [39])"),
                      "p.json: /overhead_s: got nothing (the key is missing), expected a time in seconds from 0 to 1000");
    CHECK_THROWS_WITH(load(R"(, "overhead_s": 0, "per_layer_s": 0, "rows": [39])"),
                      "p.json: /compute_efficiency: got nothing (the key is missing), expected a fraction in [1e-6, 1]");
    CHECK_THROWS_WITH(load(R"(, "per_sequence_term": true)"),
                      "p.json: /per_sequence_s: got nothing (the key is missing), expected a time in seconds from 0 to 1");
    // Each term within the bound predict puts on it; errors finite and not negative (a fit that
    // bounds nothing has an error past its efficiency, and predict says so: test_cli.cpp).
    CHECK_THROWS_WITH(load(R"(, "per_layer_s": 5)"), "p.json: /per_layer_s: got 5, expected a time in seconds from 0 to 1");
    CHECK_THROWS_WITH(load(R"(, "per_moe_layer_s": -1e-6)"), "p.json: /per_moe_layer_s: got -1e-06, expected a time in seconds from 0 to 1");
    // A term its fit did not move has no time; an efficiency below the floor its fit had is no fit's.
    CHECK_THROWS_WITH(load(R"(, "per_layer_term": false, "per_layer_s": 0.01)"),
                      "p.json: /per_layer_s: got 0.01, expected 0 where per_layer_term is false (the fit did not move it)");
    CHECK(load(R"(, "per_layer_term": false, "per_layer_s": 0)").fit.per_layer == Seconds{});
    CHECK_THROWS_WITH(load(R"(, "per_sequence_term": false, "per_sequence_s": 1e-5)"),
                      "p.json: /per_sequence_s: got 1e-05, expected 0 where per_sequence_term is false (the fit did not move it)");
    CHECK_THROWS_WITH(load(R"(, "compute_efficiency": 0.01, "lowest_compute": 0.05)"),
                      "p.json: /compute_efficiency: got 0.01, expected at least lowest_compute (0.05), the floor its fit had");
    CHECK(load(R"(, "per_moe_layer_s": 0.000535, "per_moe_layer_term": true)").fit.per_moe_layer.in(us) == Approx(535));
    CHECK(load(R"(, "per_moe_layer_term": true, "per_moe_layer_s": 0)").per_moe_layer_term);
    CHECK_FALSE(load("").per_moe_layer_term);
    CHECK(load(R"(, "per_moe_layer_error_s": 5e-5)").fit.per_moe_layer_error->in(us) == Approx(50));
    // The time per link message as the other times: read where given, needed where flagged, zero where not moved.
    CHECK(load(R"(, "per_message_s": 1.5e-5, "per_message_term": true, "per_message_error_s": 8e-6)").fit.per_message.in(us) == Approx(15));
    CHECK(load(R"(, "per_message_s": 1.5e-5, "per_message_term": true, "per_message_error_s": 8e-6)").fit.per_message_error->in(us) == Approx(8));
    CHECK(load(R"(, "per_message_term": true, "per_message_s": 0)").per_message_term);
    CHECK_FALSE(load("").per_message_term);
    CHECK(load("").fit.per_message == Seconds{});
    CHECK_THROWS_WITH(load(R"(, "per_message_term": true)"),
                      "p.json: /per_message_s: got nothing (the key is missing), expected a time in seconds from 0 to 1");
    CHECK_THROWS_WITH(load(R"(, "per_message_s": 2)"), "p.json: /per_message_s: got 2, expected a time in seconds from 0 to 1");
    CHECK_THROWS_WITH(load(R"(, "per_message_term": false, "per_message_s": 1e-5)"),
                      "p.json: /per_message_s: got 1e-05, expected 0 where per_message_term is false (the fit did not move it)");
    CHECK(*load(R"(, "bandwidth_efficiency_error": 0.9)").fit.bandwidth_efficiency_error == 0.9);
    CHECK_THROWS_WITH(load(R"(, "bandwidth_efficiency_error": -0.1)"),
                      "p.json: /bandwidth_efficiency_error: got -0.1, expected a number from 0 to 1e6");
    CHECK_THROWS_WITH(load(R"(, "overhead_error_s": 1e300)"), "p.json: /overhead_error_s: got 1e+300, expected a time in seconds from 0 to 1e6");
    CHECK_THROWS_WITH(load(R"(, "leave_one_out": {"median": 0.3, "worst": 0.2})"),
                      "p.json: /leave_one_out/median: got 0.3, expected at most the worst (0.2)");
    CHECK_THROWS_WITH(load(R"(, "leave_one_out": {"median": "12%"})"),
                      "p.json: /leave_one_out/median: got \"12%\" (a string), expected a relative error from 0 to 1e6, or null");
    CHECK_FALSE(load(R"(, "leave_one_out": {"median": null, "worst": null})").leave_one_out_median);
}

TEST_CASE("efficiency presets: each is the fit of the published rows it names", "[calibrate][presets]") {
    // A regression guard on data/efficiency/: refitting the rows each preset lists gives its terms.
    const MeasurementSet set = load_measurements("published");
    namespace fs = std::filesystem;
    std::size_t presets = 0;
    for (const auto& entry : fs::directory_iterator(data_directory() / "efficiency")) {
        const nlohmann::json j = read_json_file(entry.path());
        const EfficiencyPreset p = efficiency_from_json(j, entry.path().string());
        INFO(entry.path().string());
        std::vector<Observation> obs;
        for (const auto& row : j.at("rows")) {
            const MeasuredRow& r = set.rows.at(row.get<std::size_t>());
            CHECK(r.engine == p.engine);
            CHECK(r.hardware == p.hardware);
            CHECK_FALSE(r.flagged);
            obs.push_back(observation(r));
        }
        CalibrationTerms terms;
        terms.per_layer = p.per_layer_term;
        terms.per_moe_layer = p.per_moe_layer_term;
        terms.per_sequence = p.per_sequence_term;
        terms.per_message = p.per_message_term;
        terms.compute = p.compute_term;
        terms.compute_pays = p.compute_pays;
        terms.activation_traffic = p.fit.activation_traffic;
        REQUIRE(p.lowest_compute);
        terms.lowest_compute = *p.lowest_compute;
        const Calibration c = calibrate(load_hardware(p.hardware), obs, terms);
        CHECK(c.kv_per_query_head == p.fit.kv_per_query_head);
        CHECK(c.per_layer.in(s) == Approx(p.fit.per_layer.in(s)).epsilon(1e-9).margin(1e-15));
        CHECK(c.per_moe_layer.in(s) == Approx(p.fit.per_moe_layer.in(s)).epsilon(1e-9).margin(1e-15));
        CHECK(c.per_sequence.in(s) == Approx(p.fit.per_sequence.in(s)).epsilon(1e-9).margin(1e-15));
        CHECK(c.per_message.in(s) == Approx(p.fit.per_message.in(s)).epsilon(1e-9).margin(1e-15));
        CHECK(c.bandwidth_efficiency == Approx(p.fit.bandwidth_efficiency).epsilon(1e-9));
        CHECK(c.compute_efficiency == Approx(p.fit.compute_efficiency).epsilon(1e-9));
        CHECK(c.overhead.in(s) == Approx(p.fit.overhead.in(s)).epsilon(1e-9).margin(1e-15));
        // An exact fit (two rows, two terms) leaves rounding, which is no fit's to keep.
        CHECK(c.rms_relative_error == Approx(p.fit.rms_relative_error).epsilon(1e-9).margin(1e-12));
        ++presets;
    }
    CHECK(presets >= 10);
}

TEST_CASE("measurements: a row's weights are its linear layers', and tables it does not name are the checkpoint's", "[calibrate][json]") {
    // Llama-3.1-8B's checkpoint stores every tensor in BF16 (its config.json: torch_dtype
    // bfloat16), so an int4/g128 row that names no embeddings or LM head has BF16 ones, as an
    // AWQ or GPTQ checkpoint keeps them; a row that names them (a GGUF's Q6_K head) keeps its own.
    const auto from_file = [](const std::string& extra) {
        const std::filesystem::path f = std::filesystem::temp_directory_path() / "ridgeline-lm-head.json";
        std::ofstream(f) << R"({"source": "test", "measurements": [{"hardware": "rtx-4090", "model": "llama-3.1-8b",
                               "weights": "int4/g128", "batch": 1, "context": 100, "tokens_per_s": 100)" + extra + "}]}";
        return load_measurements(f.string());
    };
    const Precision plain = from_file("").rows[0].workload.precision;
    CHECK(plain.weights == *parse_format("int4/g128"));
    CHECK(plain.embedding_format() == formats::bf16);
    CHECK(plain.lm_head_format() == formats::bf16);
    const Precision named = from_file(R"(, "embeddings": "int4/g32", "lm_head": "int4/g16/s41")").rows[0].workload.precision;
    CHECK(named.embedding_format() == *parse_format("int4/g32"));
    CHECK(named.lm_head_format() == *parse_format("int4/g16/s41"));
    const std::string f = (std::filesystem::temp_directory_path() / "ridgeline-lm-head.json").string();
    CHECK_THROWS_WITH(from_file(R"(, "lm_head": "int5")"), f + ": /measurements/0/lm_head: got \"int5\" (a string), expected a format name: "
                                                          "fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or e.g. int4/g128");
    // Norms and routers likewise: the checkpoint's BF16 unless named (a GGUF's F32).
    CHECK(plain.router_and_norm_format() == formats::bf16);
    CHECK(from_file(R"(, "router_and_norms": "fp32")").rows[0].workload.precision.router_and_norm_format() == formats::fp32);
    CHECK_THROWS_WITH(from_file(R"(, "router_and_norms": 32)"),
                      f + ": /measurements/0/router_and_norms: got 32, expected a format name: "
                          "fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, nvfp4, or e.g. int4/g128");
    // The published llama.cpp rows name F32: Qwen3-30B-A3B in Q4_0 (row 53) reads its 48 routers
    // of 128 x 2,048 whole each step at 4 B, 50,331,648 B, where its 4.5-bit weights would give
    // 7,077,888 B (a review found 43 MB, 2.4% of the step, missing).
    const MeasurementSet set = load_measurements("published");
    const MeasuredRow& q4 = set.rows.at(53);
    REQUIRE(q4.model == "qwen3-30b-a3b");
    REQUIRE(q4.engine == "llama.cpp");
    bool listed = false;
    for (const Operator& o : operators(load_hardware("rtx-4090"), load_model("qwen3-30b-a3b"), q4.workload))
        if (o.name == "router") {
            listed = true;
            CHECK(o.bytes.in(bytes) == 48 * 128 * 2048 * 4.0);
        }
    CHECK(listed);
}

TEST_CASE("measurements: a split over PCIe cards names its link", "[calibrate][json]") {
    const auto load = [](const char* row) {
        return measurements_from_json(nlohmann::json::parse(std::string(R"({"source": "test", "measurements": [)") + row + "]}"), "m.json");
    };
    // Two RTX 4090s (no scale-up link in their preset) over PCIe 4.0 x16: 64 GB/s a card, both ways.
    const MeasurementSet two = load(R"({"hardware": "rtx-4090", "model": "llama-2-70b", "weights": "int4/g32", "tensor_parallel": 2,
                                        "batch": 1, "link_GB_per_s": 64, "tokens_per_s": 34.5})");
    REQUIRE(two.rows[0].parallel.link_bandwidth.has_value());
    CHECK(two.rows[0].parallel.link_bandwidth->in(bytes_per_s) == 64e9);
    CHECK_THROWS_WITH(load(R"({"hardware": "rtx-4090", "model": "llama-2-7b", "batch": 1, "link_GB_per_s": 64, "tokens_per_s": 200})"),
                      "m.json: /measurements/0/link_GB_per_s: got 64, expected no link_GB_per_s for a row on one device");
    CHECK_THROWS_WITH(load(R"({"hardware": "rtx-4090", "model": "llama-2-70b", "tensor_parallel": 2, "batch": 1, "link_GB_per_s": 0,
                              "tokens_per_s": 34.5})"),
                      "m.json: /measurements/0/link_GB_per_s: got 0, expected a number from 0.001 to below 1e9 (in the key's unit)");
}

TEST_CASE("measurements: dstack's DeepSeek-R1 waves are read from their mean e2e latency as whole requests", "[calibrate][json]") {
    // bench_serving with --random-range-ratio 1 and a concurrency cap sends each wave of requests
    // at once, so a request's e2e is the wave's prefill and then its decode steps: a static batch
    // (published-SOURCES.md section 36). mean_e2e_latency_ms as online_results.csv gives it
    // (dstackai/benchmarks@7f37e6697725e58dd09b9ef190b62ce19f01d45e Deepseek-R1/raw_data/).
    struct Wave {
        std::size_t row;
        const char* engine;
        const char* hardware;
        std::int64_t concurrency, output;
        double mean_e2e_ms;
    };
    const Wave waves[] = {
        {111, "TensorRT-LLM", "h200", 4, 800, 45046.00979},  {112, "TensorRT-LLM", "h200", 64, 800, 69395.82473},
        {113, "vLLM", "h200", 4, 800, 21533.89988},          {114, "SGLang", "mi300x", 4, 800, 29559.15776},
        {115, "vLLM", "mi300x", 32, 800, 56595.63629},       {132, "TensorRT-LLM", "h200", 8, 800, 46466.08171},
        {133, "TensorRT-LLM", "h200", 16, 800, 48735.20241}, {134, "TensorRT-LLM", "h200", 32, 800, 55607.53513},
        {135, "vLLM", "h200", 8, 800, 26759.18205},          {136, "vLLM", "h200", 16, 800, 42999.90466},
        {137, "SGLang", "mi300x", 8, 800, 33427.3693},       {138, "SGLang", "mi300x", 16, 800, 41815.61877},
        {158, "SGLang", "mi300x", 128, 1600, 224710.723},    {159, "SGLang", "mi300x", 128, 3200, 417798.7312},
        {170, "vLLM", "mi300x", 4, 800, 38175.3227},         {171, "vLLM", "mi300x", 8, 800, 42880.23323},
        {172, "vLLM", "mi300x", 16, 800, 48662.5076},        {173, "vLLM", "mi300x", 128, 1600, 186545.7201},
        {174, "vLLM", "mi300x", 128, 3200, 352060.0463},     {234, "SGLang", "mi300x", 32, 800, 55037.81219},
        {235, "SGLang", "mi300x", 64, 800, 81796.71108},     {236, "SGLang", "mi300x", 128, 800, 135758.5973},
        {237, "vLLM", "mi300x", 64, 800, 74530.08788},       {238, "vLLM", "mi300x", 128, 800, 109394.1371},
        {239, "vLLM", "mi300x", 128, 6400, 847045.5152},     {240, "vLLM", "h200", 32, 800, 48935.03013},
        {241, "vLLM", "h200", 64, 800, 66592.9405},
    };
    const MeasurementSet set = load_measurements("published");
    std::size_t online = 0;
    for (const MeasuredRow& r : set.rows)
        if (r.source.find("7f37e6697725") != std::string::npos && r.source.find("online_results.csv") != std::string::npos) ++online;
    CHECK(online == std::size(waves));  // every served row of the campaign is one of the waves
    for (const Wave& w : waves) {
        INFO("published.json row " << w.row);
        const MeasuredRow& r = set.rows.at(w.row);
        REQUIRE(r.engine == w.engine);
        REQUIRE(r.hardware == w.hardware);
        CHECK(r.workload.batch == w.concurrency);
        CHECK(r.requests.timed == Timed::whole_requests);
        CHECK(r.requests.prompt == 3200);
        CHECK(r.requests.output == w.output);
        // tokens_per_s is written to three decimals: within 1e-4 of e2e / output.
        CHECK(r.measured_step.in(ms) == Approx(w.mean_e2e_ms / static_cast<double>(w.output)).epsilon(1e-4));
    }
}
