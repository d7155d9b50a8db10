// Deployments: per-device memory under each kind of plan by hand, capacity and decode agreeing,
// expert parallelism against a seeded simulation of routing, link costs per ring step, MLA in
// both forms, and the assumptions that flip DeepSeek-V3's n*.
//
// Architectures are the presets' config.json values (each file's "ridgeline.source" names
// the Hub file): Llama-3.1-70B h 8192, 80 layers, 64 heads, 8 KV heads x 128, MLP 28,672,
// vocab 128,256, untied; Llama-3.1-8B h 4096, 32 layers, 32 heads, 8 KV heads x 128, MLP
// 14,336; DeepSeek-V3 h 7168, 61 layers (3 dense), 128 heads, q_lora 1536, kv_lora 512, nope
// 128, rope 64, v 128, 256 routed experts of 2048, top-8; gpt-oss-20b h 2880, 24 layers
// alternating 128-token windows and full attention, 8 KV heads x 64.
// The h100-sxm preset reports 81,559 MiB (nvidia-smi, cited in data/hardware/h100-sxm.json),
// with NVLink at 900 GB/s both ways and 0.6 us per ring step (NCCL's NVLink latency).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include "../seed_inputs.hpp"
#include "h100.hpp"

using namespace ridgeline;
using ridgeline_tests::h100;

namespace {
Deployment h100_split(std::int64_t t, std::int64_t p = 1, std::int64_t e = 1) {
    return Deployment{h100(), Parallelism{.tensor = t, .pipeline = p, .expert = e}};
}
// 0.9 x 81,559 MiB - 1 GiB, the default budget on an H100 SXM: 75,894,987,161.6 B, in whole bytes.
constexpr double h100_budget = 75'894'987'161.0;
}  // namespace

TEST_CASE("deployment: the default memory budget is 0.9 of the reported memory less 1 GiB", "[deployment][memory]") {
    const MemoryUse u = memory_budget(h100(), Assumptions{});
    CHECK(u.capacity.in(bytes) == 81559.0 * 1048576);
    CHECK(u.budget.in(bytes) == h100_budget);
    // The seeds budget the datasheet's 80 GB whole.
    CHECK(memory_budget(h100(), assumptions::seed_003).budget.in(bytes) == 80e9);
}

TEST_CASE("deployment: tensor parallelism, Llama-3.1-70B in FP8 on 4 H100s, by hand", "[deployment][memory]") {
    const Model m = load_model("llama-3.1-70b");
    const Workload w{.precision = {.weights = formats::fp8}, .batch = 1, .context = 8192};
    // Per layer, per device, 1 byte per FP8 weight: q and o 2 x 8192 x 8192 / 4; k and v
    // 2 x 8192 x 1024 / 4 (8 KV heads over 4 devices); MLP 3 x 8192 x 28672 / 4; the two norms
    // 2 x 8192 replicated: 213,925,888 B. Embeddings and LM head 128,256 x 8192 / 4 each, the
    // final norm 8192: 17,114,071,040 + 525,336,576 + 8,192 = 17,639,415,808 B.
    const double layer = 2.0 * 8192 * 8192 / 4 + 2.0 * 8192 * 1024 / 4 + 3.0 * 8192 * 28672 / 4 + 2.0 * 8192;
    CHECK(layer == 213'925'888.0);
    const double weights = 80 * layer + 2 * 128256.0 * 8192 / 4 + 8192;
    CHECK(weights == 17'639'415'808.0);
    const MemoryUse u = memory_use(h100_split(4), m, w);
    CHECK(u.weights.in(bytes) == weights);
    // KV: 80 layers x K and V x 2 of the 8 KV heads x 128 x 2 bytes = 81,920 B per token.
    const double kv = 80 * 2 * 2 * 128 * 2.0 * 8192;
    CHECK(u.kv.in(bytes) == kv);  // 671,088,640 B
    // Activations per token: (2h + the widest layer's (q, k, v, attention out, gate, up) / 4)
    // x 2 bytes, plus the logits of 128,256 / 4 words in fp32.
    const double act = (2 * 8192 + (2 * 8192 + 2 * 1024 + 2 * 28672) / 4.0) * 2 + 128256 / 4.0 * 4;
    CHECK(u.activations.in(bytes) == act);  // 198,912 B
    // The largest batch: floor((75,894,987,161.6 - 17,639,415,808) / 671,287,552) = 86.
    CHECK(largest_batch(h100_split(4), m, w, 8192) == static_cast<std::int64_t>((h100_budget - weights) / (kv + act)));
    CHECK(largest_batch(h100_split(4), m, w, 8192) == 86);
}

TEST_CASE("deployment: a mesh gives a group only the direct links among its devices", "[deployment][links]") {
    // MI300X: 896 GB/s of Infinity Fabric, both directions, as 7 links, one to each peer (AMD;
    // 64 GB/s each way per peer). A pair of GPUs has one link, 64 GB/s each way; four have 3, 192;
    // the whole node 7, 448. A pipeline's hop goes from one device to one other: one link.
    const Hardware mi300x = load_hardware("mi300x");
    const Model m = load_model("llama-3.1-70b");
    Workload w{.batch = 256, .context = 4096};
    const auto links = [&](Parallelism p) { return decode_step(Deployment{mi300x, p}, m, w).links; };
    CHECK(links(Parallelism{.tensor = 2}).tensor_link.one_way.in(GB_per_s) == Approx(64));
    CHECK(links(Parallelism{.tensor = 4}).tensor_link.one_way.in(GB_per_s) == Approx(192));
    CHECK(links(Parallelism{.tensor = 8}).tensor_link.one_way.in(GB_per_s) == Approx(448));
    CHECK(links(Parallelism{.tensor = 4, .pipeline = 2}).pipeline_link.one_way.in(GB_per_s) == Approx(64));
    // At TP 2, 160 all-reduces a step (2 a layer, 80 layers) of 256 tokens x 8,192 x 2 B =
    // 4,194,304 B: two ring steps, each half of it at 64 GB/s plus RCCL's 0.8 us, 67.14 us; 10.74 ms.
    CHECK(links(Parallelism{.tensor = 2}).per_stage.in(ms) == Approx(160 * 2 * (2097152 / 64e9 + 0.8e-6) * 1e3).epsilon(1e-9));
    // An H100's NVSwitch gives a pair the whole link: 900 / 2 = 450 GB/s each way.
    CHECK(decode_step(Deployment{load_hardware("h100-sxm"), Parallelism{.tensor = 2}}, m, w).links.tensor_link.one_way.in(GB_per_s) == Approx(450));
}

TEST_CASE("deployment: capacity and decode agree under every plan", "[deployment][memory]") {
    struct Case {
        const char* model;
        Deployment plan;
        Format weights;
    };
    const Case cases[] = {
        {"llama-3.1-70b", h100_split(4), formats::fp8}, {"llama-3.1-70b", h100_split(2, 2), formats::bf16},
        {"llama-3.1-8b", h100_split(16), formats::bf16}, {"llama-3.3-70b", h100_split(1, 3), formats::bf16},
        {"deepseek-v3", Deployment{load_hardware("b200"), Parallelism{.tensor = 8, .expert = 8}}, formats::fp8},
        {"qwen3-30b-a3b", h100_split(4, 1, 4), formats::bf16}, {"gpt-oss-20b", h100_split(1), formats::bf16},
    };
    for (const Case& k : cases) {
        INFO(k.model << " tp " << k.plan.parallel.tensor << " pp " << k.plan.parallel.pipeline << " ep " << k.plan.parallel.expert);
        const Model m = load_model(k.model);
        Workload w{.precision = {.weights = k.weights}, .context = 4096};
        const auto most = largest_batch(k.plan, m, w, 4096);
        REQUIRE(most.has_value());
        w.batch = *most;
        CHECK(decode_step(k.plan, m, w).fits());
        w.batch = *most + 1;
        CHECK_FALSE(decode_step(k.plan, m, w).fits());
        CHECK(decode_step(k.plan, m, w).memory.used() == memory_use(k.plan, m, w).used());
    }
}

TEST_CASE("deployment: tensor parallelism past the KV heads replicates them", "[deployment][memory]") {
    const Model m = load_model("llama-3.1-8b");
    // At t = 16 each device keeps one whole KV head of the 8: its k and v weights are
    // 2 x 4096 x 128 per layer, not 2 x 4096 x 1024 / 16, and it caches 32 x 2 x 128 x 2 B per token.
    const double per_layer = 2.0 * 4096 * 4096 / 16 + 2.0 * 4096 * 128 + 3.0 * 4096 * 14336 / 16 + 2 * 4096;
    const double weights = 32 * per_layer + 2 * 128256.0 * 4096 / 16 + 4096;
    CHECK(weights_per_device(m, Precision{}, Parallelism{.tensor = 16}).in(bytes) == 2 * weights);
    CHECK(kv_per_sequence_per_device(m, formats::bf16, 1000, Parallelism{.tensor = 16}).in(bytes) == 1000.0 * 32 * 2 * 128 * 2);
}

TEST_CASE("deployment: pipeline stages hold their own layers, as vLLM places them, and the table or the head", "[deployment][memory]") {
    const Model m = load_model("llama-3.3-70b");  // Llama-3.1-70B's shape
    // 80 layers over 3 stages as vLLM's get_pp_indices places them: 26 each, and the 2 left over
    // on the stages before the last, so [27, 27, 26]. Layers of 855,654,400 BF16 parameters; the
    // first stage holds the input table, 128,256 x 8192, the last the LM head and final norm,
    // (128,256 x 8192 + 8192): the first is the busiest, by 8192 x 2 B.
    const double layer = 2.0 * 8192 * 8192 + 2.0 * 8192 * 1024 + 3.0 * 8192 * 28672 + 2 * 8192;
    CHECK(layer == 855'654'400.0);
    const double stage = 27 * layer * 2 + 128256.0 * 8192 * 2;
    CHECK(weights_per_device(m, Precision{}, Parallelism{.pipeline = 3}).in(bytes) == Approx(stage).epsilon(1e-15));
    CHECK(stage_weights_per_device(m, Precision{}, Parallelism{.pipeline = 3}, stage_layers(m, 3, 2)).in(bytes) ==
          Approx(26 * layer * 2 + (128256.0 * 8192 + 8192) * 2).epsilon(1e-15));
    CHECK(kv_per_sequence_per_device(m, formats::bf16, 100, Parallelism{.pipeline = 3}).in(bytes) ==
          Approx(100.0 * 27 * 2 * 8 * 128 * 2).epsilon(1e-15));
    // Tensor x pipeline: 40 layers of a TP-2 slice and the larger end over 2.
    const double tp_layer = 2.0 * 8192 * 8192 / 2 + 2.0 * 8192 * 1024 / 2 + 3.0 * 8192 * 28672 / 2 + 2 * 8192;
    const double tp_pp = 40 * tp_layer * 2 + (128256.0 * 8192 / 2 + 8192) * 2;
    CHECK(weights_per_device(m, Precision{}, Parallelism{.tensor = 2, .pipeline = 2}).in(bytes) == Approx(tp_pp).epsilon(1e-15));
    // A 3-stage pipeline keeps 3 micro-batches of 4 sequences in flight: the busiest stage holds
    // its 27 layers' KV for all 12 (context 1000, plus the token the step writes).
    Workload w;
    w.batch = 4;
    w.context = 1000;
    const MemoryUse u = memory_use(Deployment{load_hardware("h100-sxm"), Parallelism{.pipeline = 3}}, m, w);
    CHECK(u.kv.in(bytes) == Approx(12 * 1000.0 * 27 * 2 * 8 * 128 * 2).epsilon(1e-15));
}

TEST_CASE("deployment: a generation under a pipeline is paced by each step's own busiest stage", "[deployment][pipeline]") {
    // A review found a generation and serving's mean step costed with the stage chosen at one
    // context. Llama-3.3-70B over 3 stages ([27, 27, 26], above) at 64 sequences in BF16: a step
    // of the first stage reads 27 layers of 1,711,308,800 B, a 16,384-byte table row a sequence
    // (1,048,576 B) and 27 layers' cache; the last 26 layers, the head and final norm
    // ((128,256 x 8,192 + 8,192) x 2 = 2,101,362,688 B) and 26 layers' cache. The first's extra
    // layer reads 64 x 8 KV heads x 128 x 2 x 2 B = 262,144 B a cached token, so it passes the
    // last once (2,101,362,688 - 1,711,308,800 - 1,048,576) / 262,144 = 1,483.9 tokens are cached:
    // the last stage paces the steps before, the first those after.
    const Model m = load_model("llama-3.3-70b");
    const Deployment d{load_hardware("h200"), Parallelism{.pipeline = 3}};
    CHECK((2'101'362'688.0 - 1'711'308'800.0 - 1'048'576.0) / 262'144.0 == Approx(1483.9).margin(0.05));
    Workload w{.batch = 64, .context = 1400};
    CHECK(step_cost(m, w, d.parallel).stage == 2);
    w.context = 1600;
    CHECK(step_cost(m, w, d.parallel).stage == 0);
    // A thousand steps from 1,000 tokens cross it: their time is the sum of the steps each costed
    // alone (decode_step takes each step's own busiest stage), not the first step's stage's.
    double alone = 0;
    for (std::int64_t n = 1000; n < 2000; ++n) {
        w.context = n;
        alone += decode_step(d, m, w).step_time.in(s);
    }
    w.context = 0;
    const Generation g = decode_steps(d, m, w, 1000, 1000);
    CHECK(g.decode_time.in(s) == Approx(alone).epsilon(1e-9));
    CHECK(g.decode_tokens_per_s.in(per_s) == Approx(1000 / alone).epsilon(1e-9));
    // Serving's mean pure decode step over the same contexts, prompt 1,000 and 1,000 new tokens.
    const Serving served = serve(d, m, w, Traffic{.prompt = 1000, .output = 1000}, ServingMode::aggregated);
    CHECK(served.decode_tpot.in(s) == Approx(alone / 1000).epsilon(1e-9));

    // Back and forth: Llama-4-Maverick's chunked layers (8,192 tokens) make each stage's bytes a
    // sawtooth, and over five stages at 1,024 sequences the busiest stage changes again and again
    // (a review found the first change alone taken, 4.7% short over 256 to 8,192 tokens).
    const Model maverick = load_model("llama-4-maverick");
    const Deployment five{load_hardware("h200"), Parallelism{.pipeline = 5}};
    Workload many{.batch = 1024};
    double each = 0;
    int changes = 0, last_stage = -2;
    for (std::int64_t n = 6000; n < 10000; ++n) {
        many.context = n;
        each += decode_step(five, maverick, many).step_time.in(s);
        const int stage = step_cost(maverick, many, five.parallel).stage;
        if (last_stage != -2 && stage != last_stage) ++changes;
        last_stage = stage;
    }
    CHECK(changes >= 2);
    many.context = 0;
    CHECK(decode_steps(five, maverick, many, 6000, 4000).decode_time.in(s) == Approx(each).epsilon(1e-9));
    // The longest wait is the last step's, at its own busiest stage: Gemma 3 27B over eight stages
    // at 256 sequences, 2,048 tokens out of no prompt (a review found it priced at the mid step's
    // stage, 7.6% short).
    const Model gemma = load_model("gemma-3-27b");
    const Deployment eight{load_hardware("h200"), Parallelism{.pipeline = 8}};
    Workload busy{.batch = 256, .context = 2047};
    const Serving gemma_served = serve(eight, gemma, busy, Traffic{.prompt = 0, .output = 2048}, ServingMode::aggregated);
    CHECK(gemma_served.max_itl.in(s) == Approx(decode_step(eight, gemma, busy).step_time.in(s)).epsilon(1e-9));
    // A chunk riding that last step adds to it, not to the mid step's stage (a review found
    // Llama-3.3-70B over TP 4 x PP 3 with a 1,000-token prompt and 100,000 out giving a longest
    // wait below the bare last step).
    const Deployment tp4_pp3{load_hardware("h200"), Parallelism{.tensor = 4, .pipeline = 3}};
    Workload alone_one{.batch = 1, .context = 100'999};
    const Serving long_run = serve(tp4_pp3, m, alone_one, Traffic{.prompt = 1000, .output = 100'000}, ServingMode::aggregated);
    CHECK(long_run.max_itl >= decode_step(tp4_pp3, m, alone_one).step_time);

    // Stages that turn compute-bound at different contexts: DeepSeek-V3 (its FP8 checkpoint)
    // over two B200s at 3,156 sequences changes its slowest stage twice in 6,000 tokens, there and
    // back inside one stretch without a corner (a review found neither taken, 0.17% short).
    const LoadedModel dsv3 = load_model_with_formats("deepseek-v3");
    const Deployment b200_two{load_hardware("b200"), Parallelism{.pipeline = 2}};
    Workload wide{.precision = dsv3.precision, .batch = 3156};
    double summed = 0;
    int turns = 0;
    std::int64_t before = -2;
    for (std::int64_t n = 1; n <= 6000; ++n) {
        wide.context = n;
        summed += decode_step(b200_two, dsv3.model, wide).step_time.in(s);
        const std::int64_t stage = decode_detail::device_step_cost(b200_two, dsv3.model, wide).stage;
        if (before != -2 && stage != before) ++turns;
        before = stage;
    }
    CHECK(turns >= 2);
    wide.context = 0;
    CHECK(decode_steps(b200_two, dsv3.model, wide, 1, 6000).decode_time.in(s) == Approx(summed).epsilon(1e-9));
}

TEST_CASE("deployment: the slowest stage counts its links and fixed times, not its roofline alone", "[deployment][pipeline]") {
    // Llama-3.1-8B in BF16 over TP 8 x PP 3 H100s ([11, 11, 10] layers), one sequence, no cache.
    // Per device a layer is 218,103,808 parameters split 8 ways and its two 4,096-wide norms whole:
    // 54,542,336 B. The first stage reads 11 layers and a 1,024-byte share of a table row,
    // 599,966,720 B; the last 10 layers, its share of the 128,256 x 4,096 head and the final norm,
    // 676,765,696 B: 22.9 us more at 3.35 TB/s. The first has two all-reduces more, each a ring of
    // 14 steps over NVLink, 0.6 us (NCCL's figure, the preset) and 1,024 B at 450 GB/s a step:
    // 16.9 us. So on the roofline and links the last stage is the slowest; with 30 us a layer
    // (kernel launches, as a calibration fits them) the first is, by 30 - 22.9 + 16.9 us.
    const Model m = load_model("llama-3.1-8b");
    const Deployment d{load_hardware("h100-sxm"), Parallelism{.tensor = 8, .pipeline = 3}};
    const double ring = 14 * (0.6e-6 + 1024 / 450e9);
    const double first = 599'966'720 / 3.35e12 + 22 * ring, last = 676'765'696 / 3.35e12 + 20 * ring;
    REQUIRE(last > first);
    Workload plain{.batch = 1};
    CHECK(decode_detail::device_step_cost(d, m, plain).stage == 2);
    Workload launched = plain;
    launched.efficiency.per_layer = us(30);
    CHECK(decode_detail::device_step_cost(d, m, launched).stage == 0);
    // Three stages a step: the per-layer time adds 3 x (the first stage's time with it - the
    // last stage's without), 971.8 us, not 3 x 10 x 30 us (the last stage kept).
    const double added = decode_step(d, m, launched).step_time.in(s) - decode_step(d, m, plain).step_time.in(s);
    CHECK(added == Approx(3 * (first + 11 * 30e-6 - last)).epsilon(1e-9));
    CHECK(added * 1e6 == Approx(971.8).margin(0.05));
    // A generation over many contexts, and serving's mean step, take it too.
    double alone = 0;
    for (std::int64_t n = 100; n < 300; ++n) {
        launched.context = n;
        alone += decode_step(d, m, launched).step_time.in(s);
    }
    CHECK(decode_steps(d, m, launched, 100, 200).decode_time.in(s) == Approx(alone).epsilon(1e-9));
}

TEST_CASE("deployment: a stage's weights and cache are its own layers', in the model's order", "[deployment][memory]") {
    // A review found a pipeline's busiest stage taken as the average layer: Llama-3.3-Nemotron-
    // Super-49B over two stages read 49.87 GB a device and 15 sequences of 8k fitting, where its
    // first 40 layers hold 37 of its 49 attention blocks and most of its wide MLPs. A model of two
    // kinds shows it by hand: A, a GQA layer (8 heads of 128 over 8 KV heads) with a 4096-wide
    // gated MLP; B, the same MLP without attention; hidden 1024, vocabulary 1000, untied.
    //   A: attention 4 x 1024 x 1024 = 4,194,304, MLP 3 x 1024 x 4096 = 12,582,912, norms 2,048:
    //      16,779,264 parameters, and 2 x 8 x 128 x 2 B = 4,096 B of BF16 cache a token.
    //   B: 12,582,912 + 2,048 = 12,584,960, no cache.
    //   table and head 1,024,000 each; the final norm 1,024.
    const LayerSpec a{Gqa{8, 8, 128}, 0, DenseMlp{4096}};
    const LayerSpec b{NoAttention{}, 0, DenseMlp{4096}};
    const auto built = [&](std::initializer_list<const LayerSpec*> order) {
        Model m;
        m.name = Name{"two-kinds"};
        m.hidden_size = 1024;
        m.vocab_size = 1000;
        for (const LayerSpec* spec : order) m.add_layers(1, *spec);
        return m;
    };
    const Model grouped = built({&a, &a, &b, &b}), alternating = built({&a, &b, &a, &b});
    CHECK(grouped.group_count == 2);  // the same two groups, in another order
    CHECK(derived_parameters(grouped).total() == derived_parameters(alternating).total());
    const Parallelism two{.pipeline = 2};
    // A A | B B: the first stage holds both A layers and the table, 2 x 16,779,264 + 1,024,000
    // parameters, 69,165,056 B; the second 2 x 12,584,960 + 1,024,000 + 1,024, 52,389,888 B.
    CHECK(weights_per_device(grouped, Precision{}, two).in(bytes) == 69'165'056.0);
    CHECK(stage_weights_per_device(grouped, Precision{}, two, stage_layers(grouped, 2, 1)).in(bytes) == 52'389'888.0);
    // A B | A B: 16,779,264 + 12,584,960 + 1,024,000 = 30,388,224 parameters on the first,
    // and 1,024 more (the final norm) on the last: 60,778,496 B.
    CHECK(weights_per_device(alternating, Precision{}, two).in(bytes) == 60'778'496.0);
    // The cache at 1,000 tokens: both A layers' on one stage, 8,192,000 B, or one on each.
    CHECK(kv_per_sequence_per_device(grouped, formats::bf16, 1000, two).in(bytes) == 8'192'000.0);
    CHECK(kv_per_sequence_per_device(alternating, formats::bf16, 1000, two).in(bytes) == 4'096'000.0);
    // The busiest stage at a batch is the one whose weights and cache together are the most:
    // with 2 micro-batches of 3 sequences at 1,000 tokens, the first stage of A A | B B holds
    // 69,165,056 + 6 x 8,192,000 B, the second none of the cache.
    Workload w{.batch = 3, .context = 1000};
    w.assumptions.activation_workspace = false;
    const MemoryUse u = memory_use(Deployment{load_hardware("h100-sxm"), two}, grouped, w);
    CHECK(u.weights.in(bytes) == 69'165'056.0);
    CHECK(u.kv.in(bytes) == 6 * 8'192'000.0);
    // The order survives ridgeline's own JSON form: entries in layer order, merged into groups.
    const Model back = model_from_config(nlohmann::json(alternating));
    CHECK(back == alternating);
    CHECK(weights_per_device(back, Precision{}, two).in(bytes) == 60'778'496.0);
    // A step runs at its busiest stage's pace: the one reading the most. A A | B B: the first,
    // its two A layers (67,117,056 B), a BF16 row a token (2,048 B) and their cache at 1,000
    // tokens (8,192,000 B); A B | A B: the second, A + B with the head and norm (60,778,496 B)
    // and one A layer's cache (4,096,000 B).
    const Deployment pair{load_hardware("h100-sxm"), two};
    const Workload one_sequence{.batch = 1, .context = 1000};
    CHECK(decode_step(pair, grouped, one_sequence).bytes_per_device.in(bytes) == 67'117'056.0 + 2'048 + 8'192'000);
    CHECK(decode_step(pair, alternating, one_sequence).bytes_per_device.in(bytes) == 60'778'496.0 + 4'096'000);
    // The step's totals are every layer's once, whichever the order.
    CHECK(decode_step(pair, grouped, one_sequence).total_bytes == decode_step(pair, alternating, one_sequence).total_bytes);
    // Which stage is busiest moves with the batch: a model A A M M, M an MoE layer (the same
    // attention, 64 experts of 3 x 1024 x 512 = 1,572,864 parameters, top-2, a 1024 x 64 router),
    // holds far more on its second stage, but at one sequence that stage reads only 2 experts a
    // layer (a review found the stage chosen by what it holds). By hand, BF16, context 0:
    //   first:  2 x 16,779,264 x 2 B + a row, 2,048 B                        = 67,119,104 B
    //   second: 2 x (4,194,304 + 2,048 + 65,536) x 2 B + 2 x 2 x 1,572,864 x 2 B
    //           + the head and norm, 2,050,048 B                                = 31,680,512 B
    // and at 4,096 sequences the second reads all 64 experts a layer: 17,047,552 +
    // 2 x 64 x 1,572,864 x 2 + 2,050,048 = 421,750,784 B (the first: 67,117,056 B and the
    // table's 1,000 rows, 2,048,000 B). But there the steps are compute-bound, and a step is as
    // slow as its slowest stage at the device's rates: the first multiplies 2 x 16,779,264 x 2
    // FLOPs a token, 274.9 GFLOP for 4,096 (0.278 ms at the H100's 989 TFLOP/s), the second
    // 2 x (4,194,304 + 2 x 1,572,864 + 65,536) x 2 + 1,024,000 x 2 a token, 130.6 GFLOP, and reads
    // its 421.75 MB in 0.126 ms: the first paces it.
    const LayerSpec moe{Gqa{8, 8, 128}, 0, Moe{64, 2, 512}};
    Model routed;
    routed.name = Name{"dense-then-moe"};
    routed.hidden_size = 1024;
    routed.vocab_size = 1000;
    routed.add_layers(2, a).add_layers(2, moe);
    CHECK(decode_step(pair, routed, Workload{.batch = 1}).bytes_per_device.in(bytes) == 67'119'104.0);
    const Workload crowd{.batch = 4096};
    const StepCost by_bytes = step_cost(routed, crowd, pair.parallel);
    CHECK(by_bytes.stage == 1);
    CHECK((by_bytes.weight_bytes(4096) + by_bytes.step_kv_bytes(4096, 0)).in(bytes) == Approx(421'750'784.0).epsilon(1e-12));
    const DecodeStep crowded = decode_step(pair, routed, crowd);
    CHECK(crowded.bound == Bound::compute);
    CHECK(crowded.bytes_per_device.in(bytes) == Approx(67'117'056.0 + 2'048'000).epsilon(1e-12));
    CHECK(crowded.step_time.in(s) >= 2 * 4096 * 2.0 * 2 * 16'779'264 / 989e12);
    CHECK(decode_step(pair, routed, Workload{.batch = 1}).step_time >= decode_step(Deployment{load_hardware("h100-sxm")}, routed, Workload{.batch = 1}).step_time);
    // A prefill is paced by the stage doing the most FLOPs a prompt token (the head only for the
    // token sampled): over two stages its first token takes at least as long as on one device.
    const Model ds = load_model("deepseek-v3");
    const Workload four{.batch = 4};
    CHECK(prefill(Deployment{load_hardware("h200"), Parallelism{.tensor = 8, .pipeline = 2}}, ds, four, 8192).time >=
          prefill(Deployment{load_hardware("h200"), Parallelism{.tensor = 8}}, ds, four, 8192).time);
    // More stages than layers are refused at once, not walked (a fuzzer found 2^20 of them slow).
    CHECK_THROWS_WITH(weights_per_device(grouped, Precision{}, Parallelism{.pipeline = 1 << 20}),
                      "pipeline-parallel degree: got 1048576, expected at most the layers (4) of model 'two-kinds'");
    CHECK_THROWS_WITH(step_cost(grouped, Workload{}, Parallelism{.pipeline = 5}),
                      "pipeline-parallel degree: got 5, expected at most the layers (4) of model 'two-kinds'");
    // vLLM's placement (get_pp_indices): 10 layers over 4 stages are [2, 3, 3, 2]; 11 are
    // [3, 3, 3, 2]: the last stage never takes one left over.
    CHECK(stage_first_layer(10, 4, 1) == 2);
    CHECK(stage_first_layer(10, 4, 2) == 5);
    CHECK(stage_first_layer(10, 4, 3) == 8);
    CHECK(stage_first_layer(11, 4, 3) == 9);
    CHECK(stage_first_layer(11, 4, 4) == 11);
}

TEST_CASE("deployment: MLA replicates its down-projections and latent cache over tensor ranks", "[deployment][memory][mla]") {
    const Mla mla{128, 1536, 512, 128, 64, 128};
    // Replicated: kv down 7168 x (512 + 64), its norm 512, q down 7168 x 1536, its norm 1536.
    const double replicated = 7168.0 * 576 + 512 + 7168.0 * 1536 + 1536;
    // Split over 8: q up 1536 x 128 x 192, kv up 512 x 128 x 256, o 128 x 128 x 7168.
    const double split = 1536.0 * 128 * 192 + 512.0 * 128 * 256 + 128.0 * 128 * 7168;
    CHECK(kind_parameters_per_device(mla, 7168, 8) == Approx(replicated + split / 8).epsilon(1e-15));  // 36,636,672
    CHECK(kind_parameters(mla, 7168) == Approx(replicated + split).epsilon(1e-15));
    const Model ds = load_model("deepseek-v3");
    CHECK(kv_per_sequence_per_device(ds, formats::bf16, 1, Parallelism{.tensor = 8}).in(bytes) == 61 * 576 * 2.0);
}

TEST_CASE("deployment: windowed layers hold at most their window, so sequences and tokens agree", "[deployment][memory]") {
    const Model oss = load_model("gpt-oss-20b");
    // 12 windowed layers keep 128 tokens, 12 full layers all 131,072; 2 x 8 x 64 x 2 = 2,048 B
    // per token and layer.
    const double per_sequence = 12 * 2048.0 * 131072 + 12 * 2048.0 * 128;
    CHECK(kv_per_sequence_per_device(oss, formats::bf16, 131072).in(bytes) == per_sequence);
    const Workload w{};
    const auto most = largest_batch(h100(), oss, w, 131072);
    REQUIRE(most.has_value());
    // What those sequences hold fits the budget beside the weights; one more does not.
    const MemoryUse u = memory_use(h100(), oss, Workload{.batch = *most, .context = 131072});
    CHECK(u.fits());
    CHECK(u.kv.in(bytes) == Approx(static_cast<double>(*most) * per_sequence).epsilon(1e-15));
    CHECK_FALSE(memory_use(h100(), oss, Workload{.batch = *most + 1, .context = 131072}).fits());
}

TEST_CASE("deployment: 405B on one H100 is marked as not fitting, with its bytes", "[deployment][memory]") {
    const DecodeStep d = decode_step(h100(), load_model("llama-3.1-405b"), Workload{.context = 4096});
    CHECK_FALSE(d.fits());
    CHECK(d.memory.weights.in(bytes) > 800e9);  // 405.9e9 parameters x 2 B
    CHECK(d.memory.free() == Bytes{});
}

namespace {
// A seeded simulation of top-k routing: each token picks k distinct experts of E uniformly;
// experts are split into `groups` equal contiguous groups; the mean over trials of the busiest
// group's count of touched experts.
double simulate_busiest(int experts, int k, int tokens, int groups, int trials, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int> ids(static_cast<std::size_t>(experts));
    std::vector<char> touched(static_cast<std::size_t>(experts));
    double sum = 0;
    for (int trial = 0; trial < trials; ++trial) {
        std::fill(touched.begin(), touched.end(), 0);
        for (int t = 0; t < tokens; ++t) {
            for (int i = 0; i < experts; ++i) ids[static_cast<std::size_t>(i)] = i;
            for (int i = 0; i < k; ++i) {  // partial Fisher-Yates: k distinct experts
                std::uniform_int_distribution<int> pick(i, experts - 1);
                std::swap(ids[static_cast<std::size_t>(i)], ids[static_cast<std::size_t>(pick(rng))]);
                touched[static_cast<std::size_t>(ids[static_cast<std::size_t>(i)])] = 1;
            }
        }
        int busiest = 0;
        const int per_group = experts / groups;
        for (int g = 0; g < groups; ++g) {
            int count = 0;
            for (int i = g * per_group; i < (g + 1) * per_group; ++i) count += touched[static_cast<std::size_t>(i)];
            busiest = std::max(busiest, count);
        }
        sum += busiest;
    }
    return sum / trials;
}
}  // namespace

TEST_CASE("expert parallelism: the busiest device's experts match a seeded simulation within 3%", "[deployment][moe]") {
    // DeepSeek-V3's routing: 256 experts, top-8, over 8 devices. The simulation's busiest device
    // touches 2.58 experts at one token (the mean is 1) and 10.66 at eight (mean 7.2).
    for (const auto& [tokens, trials] : {std::pair{1, 20000}, std::pair{8, 4000}, std::pair{64, 1000}, std::pair{512, 200}}) {
        INFO("tokens " << tokens);
        const double simulated = simulate_busiest(256, 8, tokens, 8, trials, 20261129);
        CHECK(expected_busiest_group_experts(256, 8, tokens, 8) == Approx(simulated).epsilon(0.03));
    }
    // One group is the plain expectation E (1 - (1 - k/E)^B); at batch 1 exactly k.
    CHECK(expected_busiest_group_experts(256, 8, 1, 1) == Approx(8).epsilon(1e-12));
    CHECK(expected_busiest_group_experts(256, 8, 100000, 8) == Approx(32).epsilon(1e-12));  // all touched
    CHECK_THROWS_AS(expected_experts_touched(0, 0, 1), ridgeline::error);  // no NaN from the fast path
}

TEST_CASE("expert parallelism: groups of one or two experts, by hand and by simulation", "[deployment][moe]") {
    // Mixtral's routing, 8 experts and top-2, over 8 devices: one expert a device. A token
    // touches two distinct experts, so the busiest device holds exactly one at any batch: 1,
    // where treating the experts as independent gives 1 - (1 - 2/8)^8 = 0.90 at one token.
    for (int tokens : {1, 2, 3, 64}) {
        INFO("tokens " << tokens);
        CHECK(expected_busiest_group_experts(8, 2, tokens, 8) == Approx(1).epsilon(1e-12));
    }
    // Over 4 devices, two experts each: at one token both picks share a device with probability
    // 4 / C(8, 2) = 1/7, so the busiest holds 1 + 1/7 = 8/7 on average. The independent-experts
    // estimate is 1.127, 1.4% under; at more tokens a seeded simulation says how far it drifts.
    CHECK(expected_busiest_group_experts(8, 2, 1, 4) == Approx(8.0 / 7.0).epsilon(0.02));
    for (int tokens : {2, 4, 16}) {
        INFO("tokens " << tokens);
        CHECK(expected_busiest_group_experts(8, 2, tokens, 4) == Approx(simulate_busiest(8, 2, tokens, 4, 20000, 20261202)).epsilon(0.03));
    }
}

namespace {
// The same routing, counting what each group's devices multiply: the mean over trials of the
// busiest group's token-expert assignments.
double simulate_busiest_assignments(int experts, int k, int tokens, int groups, int trials, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int> ids(static_cast<std::size_t>(experts));
    std::vector<int> count(static_cast<std::size_t>(groups));
    const int per_group = experts / groups;
    double sum = 0;
    for (int trial = 0; trial < trials; ++trial) {
        std::fill(count.begin(), count.end(), 0);
        for (int t = 0; t < tokens; ++t) {
            for (int i = 0; i < experts; ++i) ids[static_cast<std::size_t>(i)] = i;
            for (int i = 0; i < k; ++i) {
                std::uniform_int_distribution<int> pick(i, experts - 1);
                std::swap(ids[static_cast<std::size_t>(i)], ids[static_cast<std::size_t>(pick(rng))]);
                ++count[static_cast<std::size_t>(ids[static_cast<std::size_t>(i)] / per_group)];
            }
        }
        sum += *std::max_element(count.begin(), count.end());
    }
    return sum / trials;
}
}  // namespace

TEST_CASE("expert parallelism: the busiest group's assignments, by hand and by a seeded simulation", "[deployment][moe]") {
    // By hand. One group gets every assignment: tokens x k.
    CHECK(expected_busiest_group_assignments(256, 8, 100, 1) == 800.0);
    // Mixtral's 8 experts, top-2, over 8 devices, one token: two devices get one each, so the
    // busiest gets exactly 1 (the mean is 2/8).
    CHECK(expected_busiest_group_assignments(8, 2, 1, 8) == 1.0);
    // Two tokens over those 8 devices: the busiest device gets 2 when the tokens' pairs share an
    // expert, with probability 1 - C(6,2) / C(8,2) = 13/28, else 1: E[max] = 1 + 13/28 = 1.464.
    CHECK(expected_busiest_group_assignments(8, 2, 2, 8) == Approx(1.0 + 13.0 / 28.0).epsilon(0.01));
    // One token over 2 devices of 4 experts: both picks on one device with probability
    // 2 x C(4,2) / C(8,2) = 3/7, so E[max] = 1 + 3/7 = 1.429 (the normal scaling gives 1.49 here).
    CHECK(expected_busiest_group_assignments(8, 2, 1, 2) == Approx(1.0 + 3.0 / 7.0).epsilon(0.05));
    // Against the simulation: the excess over the mean (what the step adds) within 5%, from one
    // token to 1,024 (past 114 tokens DeepSeek-V3's count is scaled from a variance of 100), for
    // groups of one expert (Mixtral over 8, DeepSeek-V3 over 256) up to half the experts.
    struct Case {
        int experts, k, groups, tokens, trials;
    };
    for (const Case& c : {Case{256, 8, 8, 1, 20000}, Case{256, 8, 8, 16, 4000}, Case{256, 8, 8, 64, 2000},
                          Case{256, 8, 8, 256, 1000}, Case{256, 8, 8, 1024, 300}, Case{8, 2, 8, 64, 4000},
                          Case{8, 2, 4, 64, 4000}, Case{8, 2, 2, 1024, 1000}, Case{128, 8, 32, 512, 400},
                          Case{256, 8, 256, 64, 1000}}) {
        INFO(c.experts << " experts, top-" << c.k << ", " << c.groups << " groups, " << c.tokens << " tokens");
        const double mean = static_cast<double>(c.tokens) * c.k / c.groups;
        const double simulated = simulate_busiest_assignments(c.experts, c.k, c.tokens, c.groups, c.trials, 20261202);
        CHECK(expected_busiest_group_assignments(c.experts, c.k, c.tokens, c.groups) - mean == Approx(simulated - mean).epsilon(0.05));
    }
    // Never more than every token's m = min(k, E / groups) pairs: one expert a device, one token,
    // at most 1 (the normal scaling alone gives a little more).
    CHECK(expected_busiest_group_assignments(256, 8, 1, 256) == 1.0);
    // Groups that do not divide the experts are refused, not answered below the mean.
    CHECK_THROWS_WITH(expected_busiest_group_assignments(10, 9, 10, 4),
                      "expected_busiest_group_assignments: got 10.000000 experts, 9.000000 per token, 4 groups, expected a whole "
                      "number of experts, 1 to all of them per token, and groups dividing the experts");
    // The experts' count refuses the same (it gave 0 touched for 16 groups of 8 experts).
    CHECK_THROWS_WITH(expected_busiest_group_experts(8, 2, 10, 16),
                      "expected_busiest_group_experts: got 8.000000 experts, 16 groups, expected a whole number of experts, and groups dividing them");
    CHECK_THROWS_AS(expected_busiest_group_experts(8, 2, 10, -2), ridgeline::error);
    // Any number of tokens costs the same and stays finite (a prefill's 2^62).
    const double huge = expected_busiest_group_assignments(256, 8, std::int64_t{1} << 62, 8);
    CHECK(std::isfinite(huge));
    CHECK(huge >= 0x1p62);  // at least the mean, 2^62 x 8 / 8
}

TEST_CASE("expert parallelism: EP 8 and EP 1 differ for DeepSeek-V3 as the routing says", "[deployment][moe]") {
    const Model ds = load_model("deepseek-v3");
    const Hardware b200 = load_hardware("b200");
    const Workload w{.precision = {.weights = formats::fp8}, .batch = 1, .context = 4096};
    const DecodeStep ep1 = decode_step(Deployment{b200, Parallelism{.tensor = 8}}, ds, w);
    const DecodeStep ep8 = decode_step(Deployment{b200, Parallelism{.tensor = 8, .expert = 8}}, ds, w);
    // Memory per device is the same: each holds 1/8 of every expert, or 32 whole ones.
    CHECK(ep1.memory.weights == ep8.memory.weights);
    // Bytes read differ by the routed experts: at batch 1, EP 1 reads 1/8 of each of the 8
    // chosen experts, EP 8 whole experts on the busiest device (2.54 expected of its 32).
    const double expert = 3.0 * 7168 * 2048;  // one routed expert, FP8: 1 B per parameter
    const double delta = 58 * (expected_busiest_group_experts(256, 8, 1, 8) - 8.0 / 8) * expert;
    CHECK((ep8.bytes_per_device - ep1.bytes_per_device).in(bytes) == Approx(delta).epsilon(1e-12));
    CHECK(ep8.step_time != ep1.step_time);
    // In total the eight devices read the same bytes and do the same FLOPs either way: the 8
    // chosen experts whole, once (expert parallelism moves which device reads them, not how
    // many); only the busiest device's share, which sets the time, differs. The total is not
    // 8 x the busiest device's bytes (2.54 of 1 expected experts on each of the other seven).
    CHECK(ep8.weight_bytes.in(bytes) == Approx(ep1.weight_bytes.in(bytes)).epsilon(1e-12));
    CHECK(ep8.total_bytes.in(bytes) == Approx(ep1.total_bytes.in(bytes)).epsilon(1e-12));
    CHECK(ep8.arithmetic_intensity.in(flop_per_byte) == Approx(ep1.arithmetic_intensity.in(flop_per_byte)).epsilon(1e-12));
    CHECK(ep8.total_bytes < 8.0 * ep8.bytes_per_device);
    // The same at batch 64, where each device's group touches 222.4 / 8 experts on average.
    Workload w64 = w;
    w64.batch = 64;
    CHECK(decode_step(Deployment{b200, Parallelism{.tensor = 8, .expert = 8}}, ds, w64).weight_bytes.in(bytes) ==
          Approx(decode_step(Deployment{b200, Parallelism{.tensor = 8}}, ds, w64).weight_bytes.in(bytes)).epsilon(1e-12));
}

TEST_CASE("expert parallelism: the compute term is the device sent the most tokens", "[deployment][moe]") {
    // DeepSeek-V3 at batch 1,024 on 8 B200s: at EP 1 each device does an eighth of every token's
    // 8 experts; at EP 8 a device does its 32 experts' tokens whole, and the layer waits for the
    // one sent the most. The mean is 1,024 x 8 / 8 = 1,024 token-expert pairs a device; the
    // extra FLOPs are 58 MoE layers x (busiest - 1,024) pairs x 2 x 3 x 7,168 x 2,048 (one
    // expert's matmuls). The total over the devices is the same either way.
    const Model ds = load_model("deepseek-v3");
    const Hardware b200 = load_hardware("b200");
    const Workload w{.precision = {.weights = formats::fp8}, .batch = 1024, .context = 4096};
    const DecodeStep ep1 = decode_step(Deployment{b200, Parallelism{.tensor = 8}}, ds, w);
    const DecodeStep ep8 = decode_step(Deployment{b200, Parallelism{.tensor = 8, .expert = 8}}, ds, w);
    const double busiest = expected_busiest_group_assignments(256, 8, 1024, 8);
    // The README's 1.04x. By hand, for normal counts: 1,024 + E[max of 8 standard normals] 1.424 x
    // sd sqrt(1,024 x 8/8 x 7/8 x 248/255) = 29.5, over sqrt(1 - 1/8) for counts that sum to
    // 8,192: 1,068.9, 1.044x (the seeded simulation above: 1,070.2).
    CHECK(busiest == Approx(1024 + 1.424 * std::sqrt(1024 * 7.0 / 8 * 248 / 255) / std::sqrt(7.0 / 8)).epsilon(0.002));
    const double extra = 58 * (busiest - 1024) * 2 * 3.0 * 7168 * 2048;
    CHECK((ep8.compute_time - ep1.compute_time).in(s) == Approx(extra / b200.require_peak(w.precision.compute).in(flop_per_s)).epsilon(1e-9));
    CHECK(ep8.flops.in(flop) == Approx(ep1.flops.in(flop)).epsilon(1e-12));
    // And at batch 64, the README's 1.18x: 64 + 1.424 x sqrt(64 x 7/8 x 248/255) / sqrt(7/8) = 75.2
    // by the normal form (simulated: 75.4; the count is a small one, so the form is a guide).
    CHECK(expected_busiest_group_assignments(256, 8, 64, 8) == Approx(64 + 1.424 * std::sqrt(64 * 248.0 / 255)).epsilon(0.01));
    // Without expert parallelism no device waits for another's experts: no extra.
    CHECK(step_cost(ds, w, Parallelism{.tensor = 8}).routed_imbalance_flops(1024) == Flops{});
}

TEST_CASE("expert parallelism: a mixed step charges the busiest group once, for all its tokens", "[deployment][moe][serving]") {
    // DeepSeek-V3 on 8 H200s, batch 64 decoding with prompts of 2,048 riding the steps. At EP 1
    // and EP 8 the mean device does the same FLOPs; at EP 8 the step waits for the group sent the
    // most of the 64 + 2,048 tokens' pairs: by the normal form, 2,112 + 1.424 x sqrt(2,112 x 7/8
    // x 248/255) / sqrt(7/8) = 2,176.5 of a mean of 2,112, each pair 2 x 3 x 7,168 x 2,048 FLOPs
    // in 58 MoE layers; within 2%, as the form leaves out the count's skew (about 1% more here).
    // The prefill's own chunks do not add theirs a second time (that was 2x).
    const Model ds = load_model("deepseek-v3");
    const Hardware h200 = load_hardware("h200");
    const Workload w{.precision = {.weights = formats::fp8}, .batch = 64};
    const Traffic traffic{.prompt = 2048, .output = 1024};
    const auto compute = [&](std::int64_t ep, double tokens) {
        const Deployment d{h200, Parallelism{.tensor = 8, .expert = ep}};
        const StepCost cost = serving_detail::cost_of(d, ds, w, traffic.prompt + traffic.output / 2);
        return serving_detail::aggregated(d, ds, w, traffic, cost).mixed(d, ds).with(tokens).compute;
    };
    const double busiest = 2112 + 1.424 * std::sqrt(2112 * 7.0 / 8 * 248 / 255) / std::sqrt(7.0 / 8);
    const double extra = 58 * (busiest - 2112) * 2 * 3.0 * 7168 * 2048 / h200.require_peak(w.precision.compute).in(flop_per_s);
    CHECK((compute(8, 2048) - compute(1, 2048)).in(s) == Approx(extra).epsilon(0.02));
}

TEST_CASE("expert parallelism: decode_sweep equals decode_step to the bit with attention ranks", "[deployment][moe][sweep]") {
    // The busiest expert group's FLOPs join the batch's and the busiest rank's in one order in
    // both (StepCost::step_flops); a different order differs in the last bit at some points.
    const Model ds = load_model("deepseek-v3");
    const Hardware h200 = load_hardware("h200");
    const Workload base{.precision = {.weights = formats::fp8}};
    std::vector<std::int64_t> batches;
    for (std::int64_t b = 1; b <= 8192; b += 97) batches.push_back(b);
    const std::vector<std::int64_t> contexts{0, 1000, 70000};
    for (const std::int64_t ranks : {2, 4, 8}) {
        const Deployment dep{h200, Parallelism{.tensor = 8, .expert = 8, .attention_data = ranks}};
        std::vector<double> step(batches.size() * contexts.size());
        decode_sweep(dep, ds, base, batches, contexts, DecodeColumns{.step_time = step.data()});
        for (std::size_t b = 0; b < batches.size(); ++b)
            for (std::size_t c = 0; c < contexts.size(); ++c) {
                Workload w = base;
                w.batch = batches[b];
                w.context = contexts[c];
                INFO("attention ranks " << ranks << ", batch " << w.batch << ", context " << w.context);
                CHECK(step[b * contexts.size() + c] == decode_step(dep, ds, w).step_time.in(s));
            }
    }
}

TEST_CASE("tensor parallelism: what a device holds whole it multiplies whole", "[deployment][flops]") {
    // Llama-3.1-8B (config.json: 32 layers, hidden 4096, 8 KV heads of 128) has 8,030,261,248
    // parameters, 7,504,924,672 without its 128,256 x 4096 input table (a lookup, no FLOPs).
    const Model llama = load_model("llama-3.1-8b");
    const double active = 7504924672.0;
    // At TP 8 each device holds an eighth of everything it multiplies: 2 x active / 8 a token.
    CHECK(step_cost(llama, Workload{}, Parallelism{.tensor = 8}).flops(0).in(flop) == Approx(2 * active / 8).epsilon(1e-12));
    // At TP 32 each device still keeps one whole KV head: 4096 x 128 of k_proj and of v_proj,
    // 524,288 each, where a 32nd would be 131,072. Over 32 layers it multiplies 2 x 393,216 x 32
    // = 25,165,824 parameters more than a 32nd of the model.
    const double extra = 32 * 2 * (4096.0 * 128 - 4096.0 * 1024 / 32);
    CHECK(extra == 25165824);
    CHECK(step_cost(llama, Workload{}, Parallelism{.tensor = 32}).flops(0).in(flop) == Approx(2 * (active / 32 + extra)).epsilon(1e-12));
}

TEST_CASE("links: the engine's time a message is paid by every ring step, dispatch, combine and hop", "[deployment][links]") {
    // Efficiency::per_message adds to each latency-paying message. Counts from config.json:
    // Llama-3.1-8B has 32 layers, each all-reducing after attention and after its MLP; Mixtral
    // 8x7B has 32 layers, each all-reducing after attention and routing every layer's experts.
    const Model llama = load_model("llama-3.1-8b");
    const Model mixtral = load_model("mixtral-8x7b");
    Workload with{.batch = 4, .context = 1024};
    with.efficiency.per_message = us(15);
    const Workload without{.batch = 4, .context = 1024};
    const auto added = [&](const Deployment& d, const Model& m) {
        return (decode_step(d, m, with).step_time - decode_step(d, m, without).step_time).in(us);
    };
    // TP 2: 32 x 2 all-reduces of 2 (2 - 1) = 2 ring steps: 128 messages, 1,920 us.
    CHECK(added(h100_split(2), llama) == Approx(128 * 15).epsilon(1e-9));
    // TP 4: 6 ring steps each: 384 messages.
    CHECK(added(h100_split(4), llama) == Approx(384 * 15).epsilon(1e-9));
    // PP 2 over 2 devices: no all-reduce, one hop between the stages.
    CHECK(added(h100_split(1, 2), llama) == Approx(1 * 15).epsilon(1e-9));
    // TP 2 x PP 2: each stage's 16 layers x 2 all-reduces x 2 steps, on both stages (a step
    // passes through each in turn), and the hop: 64 x 2 + 1 = 129 messages.
    CHECK(added(h100_split(2, 2), llama) == Approx(129 * 15).epsilon(1e-9));
    // Mixtral at TP 2 x EP 2: each layer's attention all-reduce (2 steps) and its experts'
    // dispatch and combine (one message each; each expert whole on one device, no slice
    // all-reduce): 32 x 4 = 128 messages.
    CHECK(added(h100_split(2, 1, 2), mixtral) == Approx(128 * 15).epsilon(1e-9));
    // One device sends nothing.
    CHECK(added(h100_split(1), llama) == 0);
    // The messages counted for calibration (calibrate_rows.hpp) are these.
    CHECK(decode_step(h100_split(2, 2), llama, without).links.messages == 129);
    CHECK(decode_step(h100_split(2, 2), llama, without).links.stage_messages == 64);
    // Prefill pays it the same way: one pass of a 512-token prompt at TP 2 x PP 2 waits for one
    // stage's 64 messages on each of the 2 stages and the hop.
    CHECK((prefill(h100_split(2, 2), llama, with, 512).time - prefill(h100_split(2, 2), llama, without, 512).time).in(us) ==
          Approx(129 * 15).epsilon(1e-9));
    // In 4 chunks of 128 the stages overlap: each chunk's 64 on the first stage, the last's 64
    // on the second, and its hop: (4 + 1) x 64 + 1 = 321.
    CHECK((prefill(h100_split(2, 2), llama, with, 512, 128).time - prefill(h100_split(2, 2), llama, without, 512, 128).time).in(us) ==
          Approx(321 * 15).epsilon(1e-9));
    CHECK(prefill(h100_split(2, 2), llama, without, 512, 128).messages == 321);
    // Out of range, refused by name.
    Workload negative = with;
    negative.efficiency.per_message = us(-1);
    CHECK_THROWS_WITH(decode_step(h100_split(2), llama, negative), "overhead per link message: got -1 us, expected a time from 0 to 1 s");
}

TEST_CASE("links: all-reduces pay the latency on each ring step, and EP dispatches and combines", "[deployment][links]") {
    const Model ds = load_model("deepseek-v3");
    const Workload w{.precision = {.weights = formats::fp8}, .batch = 8, .context = 1024};
    const DecodeStep d = decode_step(h100_split(8, 1, 8), ds, w);
    // 8 tokens x 7168 x 2 B = 114,688 B. Every layer all-reduces after attention and the 3 dense
    // layers after their MLP: 64 all-reduces of 14 ring steps, each 0.6 us + 114,688 / 8 B over
    // 450 GB/s. The 58 MoE layers dispatch and combine instead: each device sends its 1/8 of the
    // tokens' 8 copies, 7/8 of them away, 100,352 B, one message each way.
    const double ring_step = 0.6e-6 + 114688.0 / 8 / 450e9;
    const double all_to_all = 0.6e-6 + 114688.0 / 8 * 8 * 7 / 8 / 450e9;
    CHECK(d.communication_time.in(s) == Approx(64 * 14 * ring_step + 58 * 2 * all_to_all).epsilon(1e-12));
    CHECK(d.links.messages == 64 * 14 + 58 * 2);
    // Past the 8-GPU NVLink domain a 16-way group crosses the scale-out network: 100 GB/s both
    // ways per GPU (the preset's figure), each of the 30 ring steps moving 4096 x 2 / 16 B at it.
    // NCCL's ring model (v2.20.3, src/graph/tuning.cc) charges the network's 2.7 us (the preset's)
    // on 2 x 2 steps, those crossing between the two domains, and the other 26 the NVLink's 0.6 us
    // raised to the network proxy's 1 us launch (getNetOverhead, x86 Intel).
    const Model llama = load_model("llama-3.1-8b");
    const DecodeStep wide = decode_step(h100_split(16), llama, Workload{});
    CHECK(wide.links.tensor_link.scale_out);
    CHECK(wide.links.tensor_link.domains == 2);
    CHECK(wide.communication_time.in(s) == Approx(2 * 32 * (4 * 2.7e-6 + 26 * 1.0e-6 + 30 * (4096.0 * 2 / 16 / 50e9))).epsilon(1e-12));
    // That is 2.4 ms a step, against a 16th of 16.06 GB of bf16 weights at 3,350 GB/s, 0.30 ms: the
    // step is the links', and says so; at TP 2 over NVLink (2 x 32 all-reduces of one 0.6 us ring
    // step, 0.04 ms, against 2.4 ms of weights) it is the memory's.
    CHECK(wide.links_bound);
    CHECK(std::string(limit_name(wide)) == "links");
    // Under the seeds' assumptions an unknown network costs nothing a message, and a step inside a
    // domain no more than one across it: 16 H20s (no scale-out figure in the preset) on a given
    // 100 GB/s network pay only the bytes, 30 steps of 4096 x 2 / 16 B at 50 GB/s an all-reduce.
    Deployment h20{load_hardware("h20"), Parallelism{.tensor = 16}};
    h20.parallel.link_bandwidth = GB_per_s(100);
    Workload seeds{};
    seeds.assumptions = assumptions::seed_003;
    const DecodeStep free_links = decode_step(h20, llama, seeds);
    CHECK(free_links.links.tensor_link.within_latency == Seconds{});
    CHECK(free_links.communication_time.in(s) == Approx(2 * 32 * 30 * (4096.0 * 2 / 16 / 50e9)).epsilon(1e-12));
    // Pipeline stages sit in order: at TP 2 and PP 8 over 16 H100s only the hop between the two
    // 8-GPU domains crosses the network (2.7 us, 50 GB/s one way); the other 6 stay on NVLink
    // (0.6 us, 450 GB/s one way). One token's activations: 4096 x 2 B.
    const DecodeStep staged = decode_step(h100_split(2, 8), llama, Workload{});
    CHECK(staged.links.pipeline_hops.in(s) == Approx(1 * (2.7e-6 + 8192 / 50e9) + 6 * (0.6e-6 + 8192 / 450e9)).epsilon(1e-12));
    const DecodeStep pair = decode_step(h100_split(2), llama, Workload{});
    CHECK_FALSE(pair.links_bound);
    CHECK(std::string(limit_name(pair)) == "memory");
}

TEST_CASE("links: past the NVLink domain only the copies for the other domain's experts take the network", "[deployment][links]") {
    // DeepSeek-V3 on 16 H100s, two 8-GPU NVLink domains (data/hardware/h100-sxm.json: 450 GB/s
    // and 0.6 us one way inside one, 50 GB/s and 2.7 us one way over the network). 16 tokens x
    // 7168 x 2 B = 229,376 B of activations. Each device sends its 1/16 of the tokens' 8 copies,
    // 114,688 B: at EP 16 each device holds its own experts, so 8/16 of the copies go to the
    // other domain over the network and 7/16 to its own domain's peers over NVLink, at once.
    const Model ds = load_model("deepseek-v3");
    const Workload w{.precision = {.weights = formats::fp8}, .batch = 16, .context = 1024};
    const double copies = 229376.0 / 16 * 8;
    const double network = 2.7e-6 + copies * 8 / 16 / 50e9;
    const double nvlink = 0.6e-6 + copies * 7 / 16 / 450e9;
    CHECK(network > nvlink);
    // The 61 attention and 3 dense FFN all-reduces cross the network as a 16-device ring: 4 of its
    // 30 steps between the domains at 2.7 us, 26 inside at the network proxy's 1 us, each moving
    // 229,376 / 16 B at 50 GB/s (the test above).
    const double ring = 4 * 2.7e-6 + 26 * 1.0e-6 + 30 * (229376.0 / 16 / 50e9);
    CHECK(decode_step(h100_split(16, 1, 16), ds, w).communication_time.in(s) == Approx(64 * ring + 58 * 2 * network).epsilon(1e-12));
    // At EP 2 each expert is sliced over one whole domain: every copy that leaves a device's
    // group leaves its domain, 1/2 of them over the network, and the slices all-reduce over
    // NVLink (14 steps of 0.6 us, 229,376 / 8 B at 450 GB/s).
    const double to_other_group = 2.7e-6 + copies / 2 / 50e9;
    const double slices = 14 * (0.6e-6 + 229376.0 / 8 / 450e9);
    CHECK(decode_step(h100_split(16, 1, 2), ds, w).communication_time.in(s) ==
          Approx(64 * ring + 58 * (2 * to_other_group + slices)).epsilon(1e-12));
}

TEST_CASE("attention data parallelism: DeepSeek-V3's latent cache split over 8 ranks, by hand", "[deployment][mla][attention-dp]") {
    // DeepSeek-V3 on 8 H100s, experts over all 8 (EP 8), the attention either tensor-parallel
    // over the 8 (TP 8) or data-parallel in 8 ranks of one device each (as SGLang's
    // --enable-dp-attention and TensorRT-LLM's enable_attention_dp run it).
    const Model ds = load_model("deepseek-v3");
    const Deployment tp{h100(), Parallelism{.tensor = 8, .expert = 8}};
    const Deployment dp{h100(), Parallelism{.tensor = 8, .expert = 8, .attention_data = 8}};
    const auto at = [](std::int64_t batch) {
        return Workload{.precision = {.weights = formats::fp8, .kv = formats::bf16}, .batch = batch, .context = 4096};
    };
    // The latent and rope key, 512 + 64 elements x 2 B x 61 layers = 70,272 B a token, held
    // whole on every device that runs the sequence's attention: all 8 under TP, one under DP.
    const double kv_token = 61 * 576 * 2.0;
    CHECK(kv_token == 70272);
    CHECK(memory_use(tp, ds, at(64)).kv.in(bytes) == 64 * 4096 * kv_token);
    CHECK(memory_use(dp, ds, at(64)).kv.in(bytes) == 8 * 4096 * kv_token);
    // 9 sequences over 8 ranks: the busiest holds 2.
    CHECK(memory_use(dp, ds, at(9)).kv.in(bytes) == 2 * 4096 * kv_token);
    // Each rank holds its attention whole: the per-head up-projections and the output, which TP
    // splits 8 ways, q_up 1536 x 128 x 192, kv_up 512 x 128 x (128 + 128), o 128 x 128 x 7168
    // = 171,966,464 a layer, 7/8 of it more on each device, 1 B each in FP8.
    const double split = 1536.0 * 128 * 192 + 512.0 * 128 * 256 + 128.0 * 128 * 7168;
    CHECK(split == 171966464);
    const double extra_weights = 61 * split * 7 / 8;
    CHECK(memory_use(dp, ds, at(1)).weights.in(bytes) - memory_use(tp, ds, at(1)).weights.in(bytes) == extra_weights);
    // The step's bytes on the busiest device: at batch 64, 56 sequences' caches fewer less the
    // larger attention weights; at batch 1 the one rank reads the whole cache as under TP.
    const auto read = [&](const Deployment& d, std::int64_t b) { return decode_step(d, ds, at(b)).bytes_per_device.in(bytes); };
    CHECK(read(dp, 64) - read(tp, 64) == Approx(extra_weights - 56 * 4096 * kv_token).epsilon(1e-12));
    CHECK(read(dp, 1) - read(tp, 1) == Approx(extra_weights).epsilon(1e-12));
    CHECK(read(dp, 9) - read(tp, 9) == Approx(extra_weights - 7 * 4096 * kv_token).epsilon(1e-12));
    // FLOPs: under TP every device recomputes the replicated down-projections (q 7168 x 1536 and
    // its 1536 norm, kv 7168 x 576 and its 512 norm) for every token; a rank does them once for
    // its own: 2 x 61 x 7/8 x 15,140,864 fewer a token on each of the 8 devices.
    const double down = 7168.0 * 1536 + 1536 + 7168.0 * 576 + 512;
    CHECK(down == 15140864);
    CHECK(decode_step(tp, ds, at(64)).flops.in(flop) - decode_step(dp, ds, at(64)).flops.in(flop) ==
          Approx(8 * 64 * 2 * 61 * down * 7 / 8).epsilon(1e-9));
    // Links: a one-device rank has no all-reduce after its attention, 61 layers x 14 ring steps.
    CHECK(decode_step(tp, ds, at(64)).links.messages - decode_step(dp, ds, at(64)).links.messages == 61 * 14);
    // Capacity on 8 H200s (8 H100s do not hold it), the activation workspace aside: each rank
    // holds as many sequences of 4,096 tokens as its budget, 0.9 x 143,771 MiB - 1 GiB (the
    // H200's reported memory), holds beside its weights, so the group 8 times that; under TP
    // every device holds every sequence.
    CHECK_FALSE(memory_use(tp, ds, at(1)).fits());
    const auto no_workspace = [&](std::int64_t b) {
        Workload w = at(b);
        w.assumptions.activation_workspace = false;
        return w;
    };
    const double h200_budget = 134'605'596'262.0;  // 0.9 x 143,771 MiB - 1 GiB = 134,605,596,262.4 B, in whole bytes
    for (const std::int64_t ranks : {1, 8}) {
        const Deployment d{load_hardware("h200"), Parallelism{.tensor = 8, .expert = 8, .attention_data = ranks}};
        const MemoryUse one = memory_use(d, ds, no_workspace(1));
        CHECK(one.budget.in(bytes) == h200_budget);
        const double per_rank = std::floor((h200_budget - one.weights.in(bytes)) / (4096 * kv_token));
        CHECK(largest_batch(d, ds, no_workspace(1), 4096) == static_cast<std::int64_t>(ranks * per_rank));
    }
    // The operator table adds up to the step with the busiest rank's caches (batch 4: one rank holds 1).
    for (const std::int64_t b : {4, 64}) {
        const DecodeStep d = decode_step(dp, ds, at(b));
        double sum_bytes = 0, sum_flops = 0;
        for (const Operator& o : operators(dp, ds, at(b))) sum_bytes += o.bytes.in(bytes), sum_flops += o.flops.in(flop);
        CHECK(sum_bytes == Approx(d.bytes_per_device.in(bytes)).epsilon(1e-12));
        // The busiest device's FLOPs: its compute time at the peak.
        CHECK(sum_flops == Approx(d.compute_time.in(s) * effective_rates(h100(), at(b)).peak.in(flop_per_s)).epsilon(1e-12));
    }
}

TEST_CASE("attention data parallelism: the ridge batch is where the step, busiest rank and all, turns compute-bound for good", "[deployment][ridge][attention-dp]") {
    // The definition, against decode_step's own bound: the whole batch below the ridge is
    // memory-bound and every one above it, through 64 periods of the ranks, compute-bound.
    // The busiest rank holds ceil(B / ranks) sequences, so its cache steps up past each multiple
    // of the ranks and the bound can turn back to memory there (2 ranks at 1,792: batches 19,252
    // to 19,257 alternate); the mean rank's crossing (the ridge before this test) said 139.45
    // for 8 ranks verifying 8 tokens a sequence at 4,096, where batch 137 is already
    // compute-bound, and 2,034.61 at 1 token and context 0, where 2,033 is.
    const Model ds = load_model("deepseek-v3");
    for (const std::int64_t ranks : {2, 4, 8}) {
        const Deployment dp{load_hardware("h200"), Parallelism{.tensor = 8, .expert = 8, .attention_data = ranks}};
        for (const std::int64_t tokens : {1, 8, 64})
            for (const std::int64_t context : {0, 1024, 1792, 4096, 15616}) {
                INFO(ranks << " ranks, " << tokens << " tokens a sequence at context " << context);
                Workload w{.precision = {.weights = formats::fp8}, .context = context, .tokens_per_sequence = tokens};
                const RidgeBatch ridge = ridge_batch(dp, ds, w);
                if (!ridge.exists()) continue;
                const auto below = static_cast<std::int64_t>(ridge.value());
                if (below >= 1) {
                    w.batch = below;
                    CHECK(decode_step(dp, ds, w).bound == Bound::memory);
                }
                for (std::int64_t b = below + 1; b <= below + 64 * ranks; ++b) {
                    w.batch = b;
                    INFO("batch " << b << " above the ridge " << ridge.value());
                    CHECK(decode_step(dp, ds, w).bound == Bound::compute);
                }
            }
    }
    const Deployment eight{load_hardware("h200"), Parallelism{.tensor = 8, .expert = 8, .attention_data = 8}};
    Workload verify{.precision = {.weights = formats::fp8}, .batch = 137, .context = 4096, .tokens_per_sequence = 8};
    CHECK(decode_step(eight, ds, verify).bound == Bound::compute);
    CHECK(ridge_batch(eight, ds, verify).value() < 137);
    Workload plain{.precision = {.weights = formats::fp8}, .batch = 2033};
    CHECK(decode_step(eight, ds, plain).bound == Bound::compute);
    CHECK(ridge_batch(eight, ds, plain).value() < 2033);
}

TEST_CASE("attention data parallelism: degrees the model or the group cannot take are refused", "[deployment][errors][attention-dp]") {
    const Model ds = load_model("deepseek-v3");
    CHECK_THROWS_WITH(decode_step(Deployment{h100(), Parallelism{.tensor = 8, .attention_data = 3}}, ds, Workload{}),
                      "attention data-parallel degree: got 3, expected a divisor of the tensor-parallel degree (8)");
    CHECK_THROWS_WITH(decode_step(Deployment{h100(), Parallelism{.tensor = 24, .attention_data = 8}}, ds, Workload{}),
                      "tensor-parallel degree / attention data-parallel degree: got 24 / 8 = 3, expected a divisor of the attention "
                      "heads (128) of model 'deepseek-v3'");
    CHECK_THROWS_WITH(decode_step(Deployment{h100(), Parallelism{.tensor = 8, .attention_data = 0}}, ds, Workload{}),
                      "attention data-parallel degree: got 0, expected an integer from 1 to 1048576");
    // A draft model on one device beside a target whose attention is split in ranks: the draft
    // runs as it would beside any target, its attention unsplit.
    const Model target = load_model("llama-3.1-70b"), draft = load_model("llama-3.1-8b");
    const Deployment ranks{h100(), Parallelism{.tensor = 4, .attention_data = 4}};
    const Workload w{.precision = {.weights = formats::fp8}, .batch = 8, .context = 4096};
    const SpeculativeDecode beside = speculative_decode(ranks, target, w, Speculation{.draft_tensor = 1}, &draft);
    CHECK(beside.draft_time == 4.0 * decode_step(h100(), draft, w).step_time);  // g = 4 steps of the draft alone
}

TEST_CASE("assumptions: attention FLOPs flip DeepSeek-V3's conclusion, and the seeds' reproduce 3,620", "[deployment][mla]") {
    const Model ds = load_model("deepseek-v3");
    // Absorbed MLA decode does 2 x 128 x (2 x 512 + 64) = 278,528 FLOPs per cached token and
    // layer against 576 x 2 = 1,152 KV bytes: 241.8 FLOP/B, near the H100's 295.2, so counting
    // them multiplies n* by about 1 / (1 - 241.8 / 295.2) = 5.5: "about 20,000 tokens".
    CHECK(Mla{128, 1536, 512, 128, 64, 128}.decode_flops_per_cached_token() == 278528);
    const auto physical = n_star(h100(), ds, Workload{});
    REQUIRE(physical.has_value());
    CHECK(*physical > 19000);
    CHECK(*physical < 21000);
    const auto seeds = n_star(h100(), ds, seed::seed_003(Workload{}));
    REQUIRE(seeds.has_value());
    CHECK(*seeds == Approx(3620).margin(0.5));  // the figure under the seeds' 2P
}

TEST_CASE("MLA prefill runs the expanded form: 3.4x fewer attention FLOPs than absorbed", "[deployment][mla]") {
    const Mla mla{128, 1536, 512, 128, 64, 128};
    // Expanded: 2 x 128 x (128 + 64 + 128) = 81,920 per query and cached token; absorbed 278,528.
    CHECK(mla.prefill_flops_per_cached_token() == 81920);
    CHECK(mla.decode_flops_per_cached_token() / mla.prefill_flops_per_cached_token() == Approx(3.4).epsilon(1e-12));
    // A whole 32,768-token prompt: causal pairs 32,768 x 32,769 / 2, over 61 layers.
    const Model ds = load_model("deepseek-v3");
    const Prefill p = prefill(h100_split(8), ds, Workload{}, 32768);
    CHECK(p.attention_flops.in(flop) == Approx(32768.0 * 32769 / 2 * 81920 * 61).epsilon(1e-12));
    // In chunks of 8,192, the later chunks also up-project the cached latents again:
    // 2 x 512 x 128 x (128 + 128) per cached token and layer, at 8,192 + 16,384 + 24,576 of them.
    const Prefill chunked = prefill(h100_split(8), ds, Workload{}, 32768, 8192);
    const double reexpand = 2.0 * 512 * 128 * 256 * 61 * (8192 + 16384 + 24576);
    CHECK(chunked.attention_flops.in(flop) == Approx(32768.0 * 32769 / 2 * 81920 * 61 + reexpand).epsilon(1e-12));
}

TEST_CASE("deployment: splits the model cannot take are refused with the reason", "[deployment][errors]") {
    const Model ds = load_model("deepseek-v3");
    CHECK_THROWS_WITH(decode_step(h100_split(3), ds, Workload{}),
                      "tensor-parallel degree: got 3, expected a divisor of the attention heads (128) of model 'deepseek-v3'");
    CHECK_THROWS_WITH(decode_step(Deployment{h100(), Parallelism{.tensor = 8, .expert = 8, .data = 0}}, ds, Workload{}),
                      "data-parallel degree: got 0, expected an integer from 1 to 1048576");
    const Model qwen = load_model("qwen3-30b-a3b");  // 128 experts
    CHECK_THROWS_AS(decode_step(Deployment{h100(), Parallelism{.tensor = 1024, .expert = 256}}, qwen, Workload{}), ridgeline::error);
}

TEST_CASE("generation: its memory is the whole sequences' KV and the larger workspace", "[deployment][memory]") {
    const Model m = load_model("llama-3.1-8b");
    const Generation g = generate(h100(), m, Workload{.batch = 32}, 4096, 512);
    // The last step reads 4096 + 510 cached tokens and writes one more: 4,607 x 131,072 B each.
    CHECK(g.memory.kv.in(bytes) == 32 * 4607 * 131072.0);
    // The prefill's 32 x 4096 tokens each hold (2 x 4096 + 2 x 4096 + 2 x 1024 + 2 x 14336) x 2
    // = 94,208 B of layer activations; only the 32 last tokens are sampled, with 128,256 fp32 logits.
    CHECK(g.memory.activations.in(bytes) == 32 * 4096 * 94208.0 + 32 * 128256 * 4.0);
    CHECK(g.fits());
    CHECK_FALSE(generate(h100(), load_model("llama-3.1-405b"), Workload{}, 128, 16).fits());
}

TEST_CASE("generation: with no prompt the first token is a decode step at context 0", "[deployment][generation]") {
    // Llama-2-7B in fp16 on an H100: 6,738M parameters less the 32,000 x 4,096 embedding table a
    // lookup does not read, 13.22 GB, at 3,350 GB/s: 3.95 ms for the first token, not 0 (no
    // prefill runs, but the token still takes a step). The next two steps read one and two
    // cached tokens more, 0.5 MB each (32 layers x 2 x 4,096 x 2 B), a hair longer.
    const Model m = load_model("llama-2-7b");
    const Generation g = generate(h100(), m, Workload{}, 0, 3);
    const double weights = (6738415616.0 - 32000.0 * 4096) * 2;
    CHECK(g.time_to_first_token.in(s) == Approx(weights / 3350e9).epsilon(1e-3));
    CHECK(g.decode_time.in(s) == Approx(2 * weights / 3350e9).epsilon(1e-3));
    CHECK(g.decode_time > 2.0 * g.time_to_first_token);  // the cache grows
    CHECK(g.total_time == g.time_to_first_token + g.decode_time);
    // One new token after a prompt: no decode steps, so no rate to take over them.
    CHECK(generate(h100(), m, Workload{}, 16, 1).decode_time == Seconds{});
}

TEST_CASE("composer: prefill chunks overlap across pipeline stages", "[deployment][prefill]") {
    // Llama-3.3-70B, a 32k prompt in 4 chunks of 8k, over 4 pipeline stages of 20 layers, under
    // the seeds' accounting (the table's lookup and the LM head 2 FLOPs a parameter for every
    // token). Chunk i takes t_i on one device holding all layers: its layers' FLOPs, and H for
    // the table and H for the head (2 x 128,256 x 8,192 x 8,192 each) and N for the final norm
    // (2 x 8,192 x 8,192). The last stage, the busiest, does a quarter of the layers' and the
    // head's and norm's: t_i / 4 + (H / 2 + 3 N / 4) / 989 TFLOP/s. Every stage is paced by it,
    // so the last chunk leaves the last stage after the four chunks' sum and 3 x the longest,
    // plus 3 hops of 8,192 x 8,192 x 2 B activations (0.6 us + 134,217,728 B / 450 GB/s each).
    const Model m = load_model("llama-3.3-70b");
    const Workload w = seed::seed_003(Workload{});
    const Prefill one = prefill(h100(), m, w, 32768, 8192);
    std::vector<double> t;
    for (int i = 0; i < 4; ++i) {  // each chunk alone: a prompt's chunk i costs the difference of prefixes
        const double upto = i == 0 ? 0.0 : prefill(h100(), m, w, 8192 * i, 8192).time.in(s);
        t.push_back(prefill(h100(), m, w, 8192 * (i + 1), 8192).time.in(s) - upto);
    }
    const double longest = *std::max_element(t.begin(), t.end());
    const double hop = 0.6e-6 + 8192.0 * 8192 * 2 / 450e9;
    const double H = 2.0 * 128256 * 8192 * 8192, N = 2.0 * 8192 * 8192;
    const double extra = (H / 2 + 3 * N / 4) / 989e12;  // the last stage's beyond a quarter of t_i
    const Prefill four = prefill(Deployment{h100(), Parallelism{.pipeline = 4}}, m, w, 32768, 8192);
    CHECK(four.time.in(s) == Approx(one.time.in(s) / 4 + 4 * extra + 3 * (longest / 4 + extra) + 3 * hop).epsilon(1e-9));
    CHECK(four.time < one.time);  // pipelined, not 4 x 4 chunk-stages in turn
}

TEST_CASE("helpers refuse a device or a split that cannot be, as the answers do", "[deployment][errors]") {
    // A hostile review's cases: each gave an infinite or negative figure.
    Hardware no_bandwidth = load_hardware("h100-sxm");
    no_bandwidth.memory_bandwidth = GB_per_s(0);
    CHECK_THROWS_AS(ops_per_byte(no_bandwidth, Numeric::bf16), ridgeline::error);
    CHECK_THROWS_AS(scaling_book_tokens_per_s(no_bandwidth, load_model("llama-3.1-8b"), Workload{}), ridgeline::error);
    Hardware negative = load_hardware("h100-sxm");
    negative.memory_capacity = GB(-1);
    CHECK_THROWS_AS(memory_budget(negative, assumptions::physical), ridgeline::error);
    CHECK_THROWS_AS(activation_bytes_per_token(load_model("llama-3.1-8b"), Parallelism{.tensor = 0}), ridgeline::error);
}

// serve() prices every step of one workload from one step cost, computed at context 0, because a
// cost does not depend on the context (decode_detail::step_from_cost). Should it come to, these
// steps would differ from decode_step's, which computes its cost at the step's own context.
TEST_CASE("a step priced from the workload's shared cost is the step priced alone", "[deployment][serving]") {
    for (const char* name : {"llama-3.1-8b", "gemma-2-9b", "deepseek-v3", "qwen3-next-80b-a3b", "gpt-oss-20b"}) {
        const Model m = load_model(name);
        const Deployment d{load_hardware("h200"), Parallelism{.tensor = 2}};
        Workload w{.precision = {.weights = formats::fp8}, .batch = 48};
        const StepCost cost = serving_detail::cost_of(d, m, w, 0);  // no pipeline: any context
        for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{4095}, std::int64_t{4097}, std::int64_t{7000}}) {
            w.context = n;
            const DecodeStep shared = decode_detail::step_from_cost(d, m, w, cost), alone = decode_step(d, m, w);
            INFO(name << " at context " << n);
            CHECK(shared.step_time.in(s) == alone.step_time.in(s));
            CHECK(shared.bytes_per_device.in(bytes) == alone.bytes_per_device.in(bytes));
            CHECK(shared.flops.in(flop) == alone.flops.in(flop));
            CHECK(shared.memory.used().in(bytes) == alone.memory.used().in(bytes));
            const Generation g = decode_steps(d, m, w, n, 1000);  // past gemma-2's 4,096-token window from 4,095
            CHECK(generation_detail::steps_from_cost(d, m, w, n, 1000, cost).decode_time.in(s) == g.decode_time.in(s));
        }
    }
}

TEST_CASE("formats: the attention in a format of its own, as NVFP4 checkpoints keep it", "[deployment][formats]") {
    // Llama-3.1-8B's shape (config.json: hidden 4,096, 32 layers, 32 heads, 8 KV heads of 128,
    // intermediate 14,336, vocabulary 128,256, untied): a layer's attention is q and o of
    // 4,096 x 4,096 and k and v of 4,096 x 1,024, 41,943,040 parameters; its MLP 3 x 4,096 x
    // 14,336; its two norms 2 x 4,096.
    const Model m = load_model("llama-3.1-8b");
    const double attention = 2 * 4096.0 * 4096 + 2 * 4096.0 * 1024, mlp = 3 * 4096.0 * 14336;
    const double kept = 32 * 2 * 4096.0 + 4096, tables = 2 * 128256.0 * 4096;
    Precision p{.weights = formats::nvfp4, .embeddings = formats::bf16, .attention = formats::bf16, .lm_head = formats::bf16,
                .router_and_norms = formats::bf16};
    CHECK(weights_per_device(m, p).in(bytes) == 32 * (attention * 2 + mlp * 0.5625) + (kept + tables) * 2);
    // Split over 2 devices: each holds half of every matrix (8 KV heads over 2), the norms whole.
    CHECK(weights_per_device(m, p, Parallelism{.tensor = 2}).in(bytes) == 32 * (attention * 2 + mlp * 0.5625) / 2 + (kept + tables / 2) * 2);
    // A step reads the same weights (every parameter charged, the table too), and the per-operator
    // table adds up to it, the attention's rows in bf16.
    const Workload w{.precision = p, .assumptions = {.accounting = WeightAccounting::every_parameter}};
    CHECK(step_cost(m, w).fixed_bytes.in(bytes) == Approx(32 * (attention * 2 + mlp * 0.5625) + (kept + tables) * 2).epsilon(1e-14));
    double read = 0;
    int seen = 0;
    for (const Operator& o : operators(h100(), m, w)) {
        read += o.bytes.in(bytes);
        if (o.name == "o_proj") {
            CHECK(o.bytes.in(bytes) == 32 * 4096.0 * 4096 * 2);
            ++seen;
        }
        if (o.name == "mlp (gate, up, down)") {
            CHECK(o.bytes.in(bytes) == 32 * mlp * 0.5625);
            ++seen;
        }
    }
    CHECK(seen == 2);
    CHECK(read == Approx(decode_step(h100(), m, w).bytes_per_device.in(bytes)).epsilon(1e-12));
    // Named after the weights, and set back by a weights flag as the experts are.
    CHECK(precision_name(p, false) == "nvfp4, attention bf16, embeddings bf16, lm_head bf16");
    Precision flagged = p;
    store_weights_as(flagged, p, formats::fp8);
    CHECK(flagged.attention_format() == formats::fp8);
    // Its groups must divide a device's rows too, under its own name.
    CHECK_THROWS_WITH(step_cost(m, Workload{.precision = {.attention = *parse_format("int4/g100")}}),
                      "attention format: got int4/g100, expected groups of a size that divides every row a device holds, as engines "
                      "require (q_proj, k_proj and v_proj: 4096 inputs a row, not a multiple of 100)");
    // A declared count has no attention apart from the rest: a format for it is refused.
    const Model declared = Model(m).with_parameters(8.03e9);
    CHECK_THROWS_WITH(step_cost(declared, Workload{.precision = p}),
                      "attention format: got bf16, expected the weights' (nvfp4): model 'llama-3.1-8b' declares its parameter count, "
                      "so no part of it is attention apart from the rest");
    CHECK_THROWS_WITH(memory_use(h100(), declared, Workload{.precision = p}),
                      "attention format: got bf16, expected the weights' (nvfp4): model 'llama-3.1-8b' declares its parameter count, "
                      "so no part of it is attention apart from the rest");
    CHECK_THROWS_WITH(validate(Precision{.attention = Format{Numeric::int4, 16, 4}}),
                      "attention format: got int4 with 16-bit scales per 4, expected no block scales, or 1 to 64 bits of scale per "
                      "block of 1 to 1000000 values, fewer than the values' own bits");
}

TEST_CASE("formats: groups along a row must divide every row a device holds", "[deployment][formats]") {
    // Qwen2-72B (config.json: hidden 8,192, intermediate 29,568, 64 heads, 8 KV heads of 128, 80
    // layers, vocabulary 152,064, untied). In AWQ's int4 with groups of 128, down_proj's 29,568
    // inputs are 231 groups, an odd number: split over 2, 4 or 8 devices a row holds a fraction of
    // one, which vLLM refuses ("The input size is not aligned with the quantized weight shape",
    // awq.py and gptq.py create_weights), so Qwen's AWQ checkpoints pad the MLP by 128 to 29,696
    // (bingzhenpan/llm-note@7db95f9fd027fe2abfb99acf1c4c6f0bc598be3d awq.md, after
    // huggingface.co/Qwen/Qwen2-72B-Instruct-AWQ discussion 3).
    const auto qwen2_72b = [](std::int64_t intermediate) {
        Model m;
        m.name = Name{"qwen2-72b-shape"};
        m.hidden_size = 8192;
        m.vocab_size = 152064;
        m.add_layers(80, LayerSpec{Gqa{64, 8, 128, true}, 0, DenseMlp{intermediate}});
        return m;
    };
    const Workload awq{.precision = {.weights = *parse_format("int4/g128")}};
    const Model plain = qwen2_72b(29568), padded = qwen2_72b(29696);
    CHECK_NOTHROW(step_cost(plain, awq, Parallelism{.tensor = 1}));
    for (const std::int64_t t : {2, 4, 8}) {
        INFO("TP " << t);
        CHECK_NOTHROW(step_cost(padded, awq, Parallelism{.tensor = t}));
        CHECK_THROWS_WITH(step_cost(plain, awq, Parallelism{.tensor = t}),
                          "weights format: got int4/g128, expected groups of a size that divides every row a device holds, as engines "
                          "require (down_proj: " + std::to_string(29568 / t) + " inputs a row on each of " + std::to_string(t) +
                              " devices (29568 in all), not a multiple of 128)");
    }
    // A group that divides no row at all: 100 into the hidden state's 8,192 (a review typed
    // int4/g100, and GPTQ's group_size 100, and read a cost).
    CHECK_THROWS_WITH(decode_step(h100(), plain, Workload{.precision = {.weights = *parse_format("int4/g100")}}),
                      "weights format: got int4/g100, expected groups of a size that divides every row a device holds, as engines "
                      "require (q_proj, k_proj and v_proj: 8192 inputs a row, not a multiple of 100)");
    // The input table's rows too: a token's row is its 8,192 hidden values, 81.92 groups of 100
    // (a review gave --embeddings int4/g7 and read a cost). 64 groups of 128 load.
    CHECK_THROWS_WITH(decode_step(h100(), plain, Workload{.precision = {.embeddings = *parse_format("int4/g100")}}),
                      "embedding format: got int4/g100, expected groups of a size that divides every row a device holds, as engines "
                      "require (embed_tokens: 8192 inputs a row, not a multiple of 100)");
    CHECK_NOTHROW(step_cost(plain, Workload{.precision = {.embeddings = *parse_format("int4/g128")}}, Parallelism{.tensor = 8}));
    // The KV cache's groups hold whole token vectors: this shape caches K and V of 8 heads of 128
    // a layer, 2,048 elements a token (1,024 a device at TP 2), and 2,048 = 7 x 292 + 4, so groups
    // of 7 straddle tokens (a review's --kv int4/g7 read 1,609.14 bytes a token a layer); 64 fit.
    const Workload kv7{.precision = {.kv = *parse_format("int4/g7")}};
    CHECK_THROWS_WITH(step_cost(plain, kv7),
                      "KV format: got int4/g7, expected groups of a size that divides what a layer caches for a token on a device "
                      "(attention over the KV cache: 2048 elements, not a multiple of 7)");
    CHECK_THROWS_WITH(step_cost(plain, kv7, Parallelism{.tensor = 2}),
                      "KV format: got int4/g7, expected groups of a size that divides what a layer caches for a token on a device "
                      "(attention over the KV cache: 1024 elements on each of 2 devices, not a multiple of 7)");
    CHECK_NOTHROW(step_cost(plain, Workload{.precision = {.kv = *parse_format("int4/g64")}}, Parallelism{.tensor = 8}));
    CHECK_NOTHROW(step_cost(plain, Workload{.precision = {.kv = formats::nvfp4}}, Parallelism{.tensor = 8}));
    // Not checked: FP4 blocks, which engines pad (vLLM's MXFP4 MoE method rounds each expert's
    // slice up to whole blocks), so gpt-oss-120b's MXFP4 experts (2,880 wide) serve at TP 4, 720
    // inputs a slice, 22.5 blocks of 32; and FP8's 128 x 128 tiles, which are not rows.
    const LoadedModel oss = load_model_with_formats("gpt-oss-120b");
    CHECK_NOTHROW(step_cost(oss.model, Workload{.precision = oss.precision}, Parallelism{.tensor = 4}));
    CHECK_NOTHROW(step_cost(plain, Workload{.precision = {.weights = formats::mxfp4}}, Parallelism{.tensor = 8}));
    CHECK_NOTHROW(step_cost(plain, Workload{.precision = {.weights = *parse_format("fp8/g16384/s32")}}, Parallelism{.tensor = 8}));
}
