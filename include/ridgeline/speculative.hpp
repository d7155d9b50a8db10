// Speculative decoding: a draft proposes g tokens (a chain) or a tree of them g deep, the target
// model scores them all in one pass that reads its weights and KV once, and keeps the accepted
// path plus one token.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "decode.hpp"
#include "draft_head.hpp"
#include "memory.hpp"

namespace ridgeline {

struct Speculation {
    std::int64_t draft_tokens = 4;  // g: draft passes a cycle, the depth of the drafts
    double acceptance = 0.8;        // a: chance each drafted token of a chain is accepted, independently
    // A draft model's tensor-parallel degree: 0, the target's (vLLM's default, and the only other
    // value it takes is 1: vllm-project/vllm@f19b16d95e4395790661f4835e4436bc3dd5d9c7
    // vllm/config/speculative.py, _verify_and_get_draft_tp), or 1, one device of the deployment.
    std::int64_t draft_tensor = 0;
    // Draft with the target's own multi-token-prediction modules (num_nextn_predict_layers, as
    // DeepSeek-V3's), as vLLM's and SGLang's MTP drafting does, instead of a draft model.
    bool mtp = false;
    // A tree of drafts, as SGLang drafts (--speculative-eagle-topk): every pass after the first
    // extends this many branches a sequence. 1: a chain, as vLLM drafts.
    std::int64_t tree_width = 1;
    // Tokens a sequence the target verifies, the last verified one included
    // (--speculative-num-draft-tokens): 0 for a chain's g + 1; a tree's best-scored drafts.
    std::int64_t verify_tokens = 0;
    // Tokens a verification gains a sequence on average, the target's own one included (the mean
    // acceptance length engines report): 0 to derive it from `acceptance` over a chain. A tree's
    // must be given: no one acceptance rate says what its branches accept.
    double accepted_tokens = 0;
};

// Most tokens a sequence the target verifies in one pass: a chain's longest, 1024 drafts + 1.
inline constexpr std::int64_t most_verify_tokens = 1025;

// Tokens a sequence each verification scores: a chain's g + 1, or the tree's verify_tokens.
constexpr std::int64_t verified_tokens(const Speculation& s) noexcept {
    return s.verify_tokens > 0 ? s.verify_tokens : s.draft_tokens + 1;
}

// The drafts a tree of depth g and width k offers for verification, as SGLang scores them: k
// from the first pass and k x k from each later one (select_top_k_tokens and
// organize_draft_results, sgl-project/sglang@2dd501d149552ea85135d4eeb7dd740c5e691091
// python/sglang/srt/speculative/spec_utils.py; sgl-project/sglang@263bc85d64baa38d82ec20f58a61f2982c78075d
// python/sglang/srt/speculative/eagle_utils.py). For a validated speculation: both at most 1024,
// so it stays under 2^31.
constexpr std::int64_t tree_candidates(const Speculation& s) noexcept {
    return s.tree_width + (s.draft_tokens - 1) * s.tree_width * s.tree_width;
}

constexpr void validate(const Speculation& s) {
    if (s.draft_tokens < 1 || s.draft_tokens > 1024)
        throw error("", "speculation.draft_tokens", std::to_string(s.draft_tokens), "an integer from 1 to 1024");
    if (!(s.acceptance >= 0 && s.acceptance <= 1))
        throw error("", "speculation.acceptance", number_text(s.acceptance), "a probability in [0, 1]");
    if (s.draft_tensor < 0)
        throw error("", "speculation.draft_tensor", std::to_string(s.draft_tensor), "0 (the target's degree), 1, or the target's degree");
    if (s.tree_width < 1 || s.tree_width > 1024)
        throw error("", "speculation.tree_width", std::to_string(s.tree_width), "an integer from 1 to 1024");
    if (s.tree_width == 1) {
        // A chain verifies its g drafts and the token before them: fewer leave drafts unscored.
        if (s.verify_tokens != 0 && s.verify_tokens != s.draft_tokens + 1)
            throw error("", "speculation.verify_tokens", std::to_string(s.verify_tokens),
                        "0 or the draft tokens + 1 (" + std::to_string(s.draft_tokens + 1) + ") with a chain (tree width 1)");
    } else {
        const std::int64_t most = std::min(tree_candidates(s) + 1, most_verify_tokens);
        const auto tree = [&s] { return "with a tree (tree width " + std::to_string(s.tree_width) + ") "; };  // only to throw
        if (s.verify_tokens < 2 || s.verify_tokens > most)
            throw error("", "speculation.verify_tokens", s.verify_tokens == 0 ? "0 (none given)" : std::to_string(s.verify_tokens),
                        tree() + "the tokens a sequence verifies: from 2 to " + std::to_string(most) +
                            " (1 + the drafts the tree offers, at most " + std::to_string(most_verify_tokens) + ")");
        if (s.accepted_tokens == 0)
            throw error("", "speculation.accepted_tokens", "none",
                        tree() + "the mean tokens a verification accepts (an engine's mean acceptance length): no acceptance rate "
                               "gives a tree's");
    }
    // The longest path a verification can accept: the tree's depth, or fewer drafts if fewer are
    // verified, and the target's own token after them.
    const std::int64_t longest = std::min(s.draft_tokens, verified_tokens(s) - 1) + 1;
    if (s.accepted_tokens != 0 && !(s.accepted_tokens >= 1 && s.accepted_tokens <= static_cast<double>(longest)))
        throw error("", "speculation.accepted_tokens", number_text(s.accepted_tokens),
                    "a mean from 1 to " + std::to_string(longest) + " (the most drafts a verification can accept, and the target's own token)");
}

// Expected tokens a sequence gains per verification: as given (accepted_tokens), or over a chain
// 1 + a + a^2 + ... + a^g = (1 - a^(g+1)) / (1 - a).
constexpr double expected_tokens_per_verification(const Speculation& s) {
    validate(s);
    if (s.accepted_tokens > 0) return s.accepted_tokens;
    double sum = 0, term = 1;
    for (std::int64_t i = 0; i <= s.draft_tokens; ++i, term *= s.acceptance) sum += term;
    return sum;
}

// The bytes one device holds of a multi-token-prediction module's eh_proj and the two norms that
// feed it. As vLLM and SGLang build it (vllm-project/vllm@03356f8cb59ba27f3d0ce8866d7516b5e32cff65
// vllm/model_executor/models/deepseek_mtp.py), eh_proj is an nn.Linear without a quantization
// config: unsplit, every device holds it whole, in the format the checkpoint keeps unquantised
// layers in, the LM head's.
constexpr Bytes mtp_projection_bytes(const Model& target, const Precision& p) {
    return mtp_projection_parameters(target) * p.lm_head_format().bytes_per_element();
}

namespace speculative_detail {
// A pass over several positions a sequence samples only its last: the LM head multiplies one
// token a sequence (vllm-project/vllm@008603a39fff2a383a293c62eec0c752c42199f2
// vllm/v1/spec_decode/eagle.py, compute_logits over last_token_indices).
constexpr void sample_last_only(StepCost& c, const Workload& w) {
    const auto q = static_cast<double>(w.tokens_per_sequence);
    c.flops_per_token -= (q - 1) / q * c.head_flops_per_token;
    c.head_flops_per_token = c.head_flops_per_token / q;
}

// mtp_draft_step with its block built (mtp_block) and validated on the deployment once by the caller.
constexpr DecodeStep mtp_draft_step(const Deployment& dep, const Model& target, const Model& block, const Workload& w) {
    StepCost c = step_cost(block, w, dep.parallel);
    c.fixed_bytes += mtp_projection_bytes(target, w.precision);
    // 2 FLOPs a weight of the 2h x h projection, on every device for its sequences: all of the
    // batch, or under attention data parallelism its rank's own (as the attention's projections).
    const double h = static_cast<double>(target.hidden_size);
    const Flops projection = flop(2 * 2 * h * h / static_cast<double>(dep.parallel.attention_data));
    c.flops_per_token += projection;
    if (dep.parallel.attention_data > 1) c.rank_flops_per_token += projection;
    sample_last_only(c, w);
    return decode_detail::step_from_cost(dep, block, w, c, false);
}

// One pass of an EAGLE-3 head for every sequence of the batch, w.tokens_per_sequence tokens a
// sequence, on `on` (the target's devices, split as its attention), with `w` already in the
// head's formats (draft_head_precision). `fuse`: the cycle's first pass, which also runs fc over
// those positions (combine_hidden_states before the first forward, vLLM's eagle.py).
constexpr DecodeStep head_draft_step(const Deployment& on, const DraftHead& d, const Workload& w, bool fuse) {
    StepCost c = step_cost(d.block, w, on.parallel);
    const double h = static_cast<double>(d.block.hidden_size);
    const auto T = static_cast<double>(on.parallel.tensor);
    const double second = draft_head_detail::second_input_parameters_per_device(d, on.parallel.attention_tensor());
    const double fc = fuse ? draft_head_detail::fc_parameters(d) : 0.0;
    c.fixed_bytes += (second + h + fc) * w.precision.weights.bytes_per_element();  // + hidden_norm
    // The input table is the target's, of target_vocab rows, not the block's draft vocabulary:
    // its rows stop growing there, and a whole-table accounting charges all of it.
    const double more_rows = static_cast<double>(d.target_vocab - d.block.vocab_size);
    if (c.embedding_rows > 0) c.embedding_rows = static_cast<double>(d.target_vocab);
    if (w.assumptions.accounting == WeightAccounting::every_parameter)
        c.fixed_bytes += more_rows * h / T * w.precision.embedding_format().bytes_per_element();
    if (w.assumptions.embedding_lookup_flops) c.flops_per_token += flop(2 * more_rows * h / T);
    // 2 FLOPs a weight a token, each device for its sequences (all of them, or its attention
    // rank's): the second input split as the heads, fc whole on every device.
    const Flops extra = flop(2 * (second + fc) / static_cast<double>(on.parallel.attention_data));
    c.flops_per_token += extra;
    if (on.parallel.attention_data > 1) c.rank_flops_per_token += extra;
    sample_last_only(c, w);
    return decode_detail::step_from_cost(on, d.block, w, c, false);
}
}  // namespace speculative_detail

// One draft step of a multi-token-prediction module for every sequence of the batch, on the
// target's devices as its layers are split: its block (a copy of the last layer, with that
// layer's cache), eh_proj and the LM head the module shares with the target, each read once,
// for w.tokens_per_sequence tokens a sequence.
constexpr DecodeStep mtp_draft_step(const Deployment& dep, const Model& target, const Workload& w) {
    const Model block = mtp_block(target);
    validate(dep, block);
    return speculative_detail::mtp_draft_step(dep, target, block, w);
}

struct SpeculativeDecode {
    double expected_tokens = 1;  // per sequence per verification
    DecodeStep plain{};          // the target decoding one token
    DecodeStep verify{};         // the target scoring verified_tokens (a chain's g + 1) per sequence
    Seconds draft_time{};        // the draft's g passes (0 for a free draft)
    // What the draft was priced in: a draft model's formats (its checkpoint's, or the workload's),
    // an EAGLE-3 head's, or MTP modules' (the target's); none for a free draft.
    std::optional<Precision> draft_precision{};
    Seconds cycle_time{};        // draft + verify
    PerSecond tokens_per_s{};        // per sequence
    PerSecond total_tokens_per_s{};  // all sequences
    double speedup = 1;              // over plain decode of the same batch
    // One device: the target's verification pass (decode's memory), plus the draft's weights
    // (a draft model's, MTP modules' or an EAGLE-3 head's) and its cache of every sequence in
    // flight on the device that holds it (with a one-device draft, on the target's busiest device
    // too). The passes run in turn, so the workspace is the largest of theirs (a tree's branch
    // passes among them).
    MemoryUse memory{};
    [[nodiscard]] constexpr bool fits() const noexcept { return memory.fits(); }
};

// One verification's workload: each sequence's drafts and the token before them, read by the
// target in one pass over draft_tokens + 1 positions (speculative_decode, with a tree's
// verify_tokens - 1 drafts; diagnose's least acceptance).
constexpr Workload verification_workload(Workload w, std::int64_t draft_tokens) {
    w.tokens_per_sequence = draft_tokens + 1;
    return w;
}

namespace speculative_detail {
// What every speculation shares: the expected tokens, the plain step, the verification and its
// memory (a draft's is added by the caller).
constexpr SpeculativeDecode verification(const Deployment& hw, const Model& target, const Workload& w, const Speculation& s) {
    validate(s);
    // The verification reads the cache through context + g: the model's positions must reach it.
    if (w.context > max_context - s.draft_tokens)
        throw error("", "context + draft tokens", std::to_string(w.context) + " + " + std::to_string(s.draft_tokens), "at most 2^40 tokens");
    require_context_within(target, w.context + s.draft_tokens, "context + draft tokens");
    SpeculativeDecode r;
    r.expected_tokens = expected_tokens_per_verification(s);
    r.plain = decode_step(hw, target, verification_workload(w, 0));
    r.verify = decode_step(hw, target, verification_workload(w, verified_tokens(s) - 1));
    r.memory = r.verify.memory;
    return r;
}

// A draft that runs where the target's layers run, split as they are (MTP modules, an EAGLE-3
// head): no pipeline, no other split.
constexpr void require_target_split(const Deployment& hw, const Speculation& s, const char* drafting, const char* who) {
    if (hw.parallel.pipeline > 1)
        throw error("", "pipeline-parallel degree", std::to_string(hw.parallel.pipeline),
                    std::string("1 with ") + drafting + ": its steps for each micro-batch in flight are not modelled");
    if (s.draft_tensor > 0 && s.draft_tensor != hw.parallel.tensor)
        throw error("", "speculation.draft_tensor", std::to_string(s.draft_tensor),
                    "0 or the target's degree (" + std::to_string(hw.parallel.tensor) + ") with " + drafting + ": " + who +
                        " split as the target's layers");
}

// A pass after the first over a tree's branches: SGLang runs each sequence's k branches as k
// sequences of one token, each with its own copy of the sequence's cache indices, so each reads
// the context again (generate_draft_decode_kv_indices, sgl-project/sglang@2dd501d149552ea85135d4eeb7dd740c5e691091
// python/sglang/srt/speculative/spec_utils.py), as its FlashInfer and Triton backends do; those
// are its default with a tree, FA3 only without one (is_no_spec_infer_or_topk_one,
// sgl-project/sglang@4e75f4684b6b67cbb5a02b4106cf1b629d616dba python/sglang/srt/utils/common.py).
// FA3, asked for, reads each sequence's prefix once, so there this overstates the draft's cache
// read. A chain's is the plain step.
constexpr Workload branches(Workload plain, const Speculation& s) {
    if (plain.batch > max_batch / s.tree_width)
        throw error("", "batch x tree width", std::to_string(plain.batch) + " x " + std::to_string(s.tree_width), "at most 2^40 branches");
    plain.batch *= s.tree_width;
    return plain;
}

// g drafts from a draft that reads the target's state (MTP modules, an EAGLE-3 head), as vLLM's
// and SGLang's drafters run them: the first pass over all g + 1 positions the target just
// verified (it also fills the draft's cache for them; the rejected ones as padding, SGLang's over
// the accepted ones), then g - 1 passes of one token a branch (branches). `pass(workload, first)`
// costs one.
template <class Pass>
constexpr Seconds chained_draft_time(const Speculation& s, const Workload& plain, Pass pass) {
    Seconds t = pass(verification_workload(plain, s.draft_tokens), true).step_time;
    if (s.draft_tokens > 1) t += static_cast<double>(s.draft_tokens - 1) * pass(branches(plain, s), false).step_time;
    return t;
}

constexpr void add_draft_memory(SpeculativeDecode& r, Bytes weights, const MemoryUse& drafting) {
    r.memory.weights += weights;
    r.memory.kv += drafting.kv;
    if (drafting.activations > r.memory.activations) r.memory.activations = drafting.activations;
}

// A tree's later passes run batch x k tokens of `drafter` on `on`: their workspace, when larger
// than the verification's and the first pass's, is the one held. (The tree's g x k temporary
// cache slots a sequence are not counted.)
constexpr void add_branch_workspace(SpeculativeDecode& r, const Deployment& on, const Model& drafter, const Workload& plain,
                                    const Speculation& s) {
    if (s.tree_width == 1 || s.draft_tokens == 1) return;
    const Bytes branch = memory_use(on, drafter, branches(plain, s)).activations;
    if (branch > r.memory.activations) r.memory.activations = branch;
}

constexpr SpeculativeDecode finish(SpeculativeDecode r, const Deployment& hw, const Workload& w) {
    r.cycle_time = r.draft_time + r.verify.step_time;
    r.tokens_per_s = r.expected_tokens / r.cycle_time;
    r.total_tokens_per_s = static_cast<double>(w.batch) * static_cast<double>(hw.parallel.pipeline * hw.parallel.data) * r.tokens_per_s;
    r.speedup = static_cast<double>(r.tokens_per_s / r.plain.tokens_per_s);
    return r;
}
}  // namespace speculative_detail

// `draft`, if given, runs g steps of its own with the same workload on the deployment's devices,
// split `s.draft_tensor` ways (the target's degree unless set; no pipeline or expert split), as
// decode costs it; it must share the target's vocabulary, as vLLM requires of a draft model.
// `draft_formats`, if given, are the draft checkpoint's own (LoadedModel::precision): vLLM builds
// the draft's ModelConfig from the draft's own path and quantization (SpeculativeConfig.quantization,
// None by default: the checkpoint's; vllm-project/vllm@f19b16d95e4395790661f4835e4436bc3dd5d9c7
// vllm/config/speculative.py), so its weights are read in them, its cache is kept in the target's
// KV format (one cache config for both), and it computes as draft_compute says. Without them, the
// workload's formats.
// With `s.mtp` the target's own multi-token-prediction modules draft (mtp_draft_step).
// Without either the draft is free (prompt lookup, n-grams), which is the upper bound. At
// batches where the target is compute-bound, verifying g + 1 tokens costs about g + 1 steps and
// the speedup falls below 1. With a tree (s.tree_width > 1), each pass after a draft model's first
// runs over every branch (branches) and the target verifies s.verify_tokens a sequence.
constexpr SpeculativeDecode speculative_decode(const Deployment& hw, const Model& target, const Workload& w,
                                               const Speculation& s, const Model* draft = nullptr,
                                               const std::optional<Precision>& draft_formats = std::nullopt) {
    SpeculativeDecode r = speculative_detail::verification(hw, target, w, s);
    const Workload plain = verification_workload(w, 0);
    if (s.mtp) {
        if (draft)
            throw error("", "draft model", "'" + std::string(draft->name.view()) + "'",
                        "none beside MTP drafting: the target's own modules draft");
        if (target.mtp_layers == 0)
            throw error("", "model '" + std::string(target.name.view()) + "' num_nextn_predict_layers", "0", "at least 1 to draft with its MTP modules");
        speculative_detail::require_target_split(hw, s, "MTP drafting", "the modules are");
        // Each draft token runs one module (past the last, vLLM starts again from the first), in
        // a chain (chained_draft_time).
        const Model block = mtp_block(target);
        validate(hw, block);
        const Workload first = verification_workload(plain, s.draft_tokens);
        r.draft_time = speculative_detail::chained_draft_time(
            s, plain, [&](const Workload& pass, bool) { return speculative_detail::mtp_draft_step(hw, target, block, pass); });
        r.draft_precision = w.precision;
        // Every module is loaded with its cache of the positions the verification holds, through
        // context + g (its first pass writes them all; engines size it as the target's); the
        // embeddings and LM head are the target's: SGLang hands the module the target's (set_embed_and_head,
        // sgl-project/sglang@00559eacbf0841146db7e27e445d1971e35e6294
        // python/sglang/srt/speculative/eagle_worker.py), and DeepSeek counts them once ("11.5B
        // unique parameters (excluding the shared 0.9B Embedding and 0.9B output Head)",
        // DeepSeek-V3's README_WEIGHTS.md).
        const double modules = static_cast<double>(target.mtp_layers);
        const MemoryUse drafting = memory_use(hw, block, first);
        const Bytes head_norm = static_cast<double>(target.hidden_size) * w.precision.router_and_norm_format().bytes_per_element();
        speculative_detail::add_draft_memory(
            r, modules * (layer_weights_per_device(block, w.precision, hw.parallel) + head_norm + mtp_projection_bytes(target, w.precision)),
            MemoryUse{{}, {}, {}, {}, modules * drafting.kv, drafting.activations});
        speculative_detail::add_branch_workspace(r, hw, block, plain, s);
    } else if (draft) {
        if (draft->vocab_size != target.vocab_size)
            throw error("", "draft model", "'" + std::string(draft->name.view()) + "' (" + std::to_string(draft->vocab_size) + " tokens)",
                        "a model with the target's vocabulary (" + std::to_string(target.vocab_size) + " tokens): its drafts are the "
                        "target's tokens");
        // The draft reads its own cache up to context + g - 1; a limit raised for the target
        // (max_context_lever) is not the draft's.
        if (draft->max_context > 0 && w.context + s.draft_tokens - 1 > draft->max_context)
            throw error("", "draft model", "'" + std::string(draft->name.view()) + "' (max_position_embeddings " +
                                               std::to_string(draft->max_context) + ")",
                        "a draft whose max_position_embeddings reaches the context + draft tokens - 1 (" +
                            std::to_string(w.context + s.draft_tokens - 1) + "), or a shorter context");
        // A pipeline keeps a micro-batch in flight per stage, each needing its own drafts: which
        // devices draft for which, and when, is not modelled, so no answer is given for it.
        if (hw.parallel.pipeline > 1)
            throw error("", "pipeline-parallel degree", std::to_string(hw.parallel.pipeline),
                        "1 with a draft model: its steps for each micro-batch in flight are not modelled");
        // As vLLM: the target's degree or one device, no other (the deployment has no other devices).
        if (s.draft_tensor > 1 && s.draft_tensor != hw.parallel.tensor)
            throw error("", "speculation.draft_tensor", std::to_string(s.draft_tensor),
                        "0 (the target's degree), 1, or the target's degree (" + std::to_string(hw.parallel.tensor) + ")");
        Parallelism split = hw.parallel;
        split.tensor = s.draft_tensor > 0 ? s.draft_tensor : hw.parallel.tensor;
        // The draft runs tensor-parallel (or on one device) whatever the target's attention split.
        split.pipeline = split.expert = split.data = split.attention_data = 1;
        const Deployment on{hw.device, split};
        Workload drafting_w = plain;
        if (draft_formats) drafting_w.precision = draft_model_precision(*draft_formats, w.precision, hw.device);
        // A chain's g steps of one token a sequence, as vLLM drafts. A tree as SGLang drafts one
        // with a draft model (its StandaloneWorker is an EAGLEWorker,
        // sgl-project/sglang@d0979b91f9e55721cb7606e38ae91fc67d4911dc
        // python/sglang/srt/speculative/standalone_worker.py): the first pass over the g + 1
        // positions verified, then g - 1 over the branches (chained_draft_time).
        if (s.tree_width == 1)
            r.draft_time = static_cast<double>(s.draft_tokens) * decode_step(on, *draft, drafting_w).step_time;
        else
            r.draft_time = speculative_detail::chained_draft_time(
                s, drafting_w, [&](const Workload& pass, bool) { return decode_step(on, *draft, pass); });
        r.draft_precision = drafting_w.precision;
        // vLLM's draft shares the target's memory budget (gpu_memory_utilization covers both): its
        // weights and its cache of every sequence at its last step's context, n + g - 1.
        Workload last = drafting_w;
        last.context = w.context + s.draft_tokens - 1;
        const MemoryUse drafting = memory_use(on, *draft, last);
        speculative_detail::add_draft_memory(r, drafting.weights, drafting);
        speculative_detail::add_branch_workspace(r, on, *draft, drafting_w, s);
    }
    return speculative_detail::finish(r, hw, w);
}

// Drafting with an EAGLE-3 head (draft_head.hpp) on the target's devices, split as its layers
// (the experts aside: the head has none), in its own checkpoint's formats. A cycle runs g passes
// of the head (chained_draft_time), fc fusing the target's hidden states in the first; the target
// verifies verified_tokens a sequence.
constexpr SpeculativeDecode speculative_decode(const Deployment& hw, const Model& target, const Workload& w,
                                               const Speculation& s, const DraftHead& head) {
    validate(head);
    const auto name = [&head] { return "'" + std::string(head.block.name.view()) + "'"; };  // only to throw
    if (s.mtp) throw error("", "draft head", name(), "none beside MTP drafting: the target's own modules draft");
    const auto refuse = [&](const char* key, std::int64_t v, const std::string& expected) {
        throw error("", "draft head", name() + " (" + key + " " + std::to_string(v) + ")", expected);
    };
    if (head.target_vocab != target.vocab_size)
        refuse("vocab_size", head.target_vocab,
               "a head for the target's vocabulary (" + std::to_string(target.vocab_size) + " tokens): its drafts are mapped into it");
    if (head.fuses_hidden_states && head.target_hidden != target.hidden_size)
        refuse("target_hidden_size", head.target_hidden,
               "a head for the target's hidden_size (" + std::to_string(target.hidden_size) + "): fc reads its hidden states");
    // The head embeds its tokens with the target's table, and without fc reads the target's
    // hidden state as it is: either way its width must be the target's.
    if (head.block.hidden_size != target.hidden_size)
        refuse("hidden_size", head.block.hidden_size,
               "a head of the target's hidden_size (" + std::to_string(target.hidden_size) + "): it embeds with the target's table");
    SpeculativeDecode r = speculative_detail::verification(hw, target, w, s);
    speculative_detail::require_target_split(hw, s, "an EAGLE-3 head", "the head is");
    Parallelism split = hw.parallel;
    split.expert = 1;
    const Deployment on{hw.device, split};
    validate(on, head.block);
    Workload plain = verification_workload(w, 0);
    plain.precision = draft_head_precision(head, w.precision, hw.device);
    const Workload first = verification_workload(plain, s.draft_tokens);
    r.draft_time = speculative_detail::chained_draft_time(
        s, plain, [&](const Workload& pass, bool fuse) { return speculative_detail::head_draft_step(on, head, pass, fuse); });
    r.draft_precision = plain.precision;
    // Its weights beside the shared table, and its cache of every position the verification
    // holds (the first pass writes them all).
    const Bytes held = layer_weights_per_device(head.block, plain.precision, split) + draft_head_extra_bytes(head, split) +
                       static_cast<double>(head.block.vocab_size) * static_cast<double>(head.block.hidden_size) /
                           static_cast<double>(split.tensor) * head.lm_head.bytes_per_element();
    speculative_detail::add_draft_memory(r, held, memory_use(on, head.block, first));
    speculative_detail::add_branch_workspace(r, on, head.block, plain, s);
    return speculative_detail::finish(r, hw, w);
}

}  // namespace ridgeline
