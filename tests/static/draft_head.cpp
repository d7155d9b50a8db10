// Compile-only: an EAGLE-3 head's costs are constexpr like the rest of the core. The head is
// SpecForge's llama3-8B-eagle3.json (data/drafts/eagle3-llama-3.1-8b.json) built by hand.
#include <type_traits>

#include <ridgeline/ridgeline.hpp>

#include "../seed_inputs.hpp"

namespace {
using namespace ridgeline;

constexpr DraftHead llama_head() {
    DraftHead d;
    d.block = dense_model("eagle3-llama-3.1-8b", 1, 4096, 32, 8, 128, 14336, 32000);
    d.target_vocab = 128256;
    d.target_hidden = 4096;
    d.weights = d.lm_head = formats::fp16;
    return d;
}

// q 8,192 x 4,096, k and v 8,192 x 1,024 (the first layer reads 2h), o 4,096 x 4,096, the MLP
// 3 x 4,096 x 14,336, four norms of 4,096, fc 3 x 4,096 x 4,096, the head 32,000 x 4,096.
static_assert(draft_head_parameters(llama_head()) ==
              8192.0 * 4096 + 2 * 8192.0 * 1024 + 4096.0 * 4096 + 3 * 4096.0 * 14336 + 4 * 4096.0 + 3 * 4096.0 * 4096 + 32000.0 * 4096);

// Drafting costs time and a free draft is the bound: at batch 1 on seed 003's H100, five
// head passes for Llama 3.1 8B leave the speedup under the free draft's.
constexpr SpeculativeDecode with_head =
    speculative_decode(Deployment{seed::h100_seed003(), {}}, seed::llama31_8b_seed003(), Workload{.context = 4096}, Speculation{5, 0.8}, llama_head());
constexpr SpeculativeDecode free_draft =
    speculative_decode(Deployment{seed::h100_seed003(), {}}, seed::llama31_8b_seed003(), Workload{.context = 4096}, Speculation{5, 0.8});
static_assert(with_head.draft_time > Seconds{} && with_head.speedup < free_draft.speedup);

// A tree costs more drafting than a chain of the same depth (each later pass runs 8 branches,
// each reading the head's cache) and verifies 32 tokens a sequence, not 6; both are constexpr.
constexpr SpeculativeDecode with_tree =
    speculative_decode(Deployment{seed::h100_seed003(), {}}, seed::llama31_8b_seed003(), Workload{.context = 4096},
                       Speculation{.draft_tokens = 5, .tree_width = 8, .verify_tokens = 32, .accepted_tokens = 4.5}, llama_head());
static_assert(with_tree.draft_time > with_head.draft_time && with_tree.expected_tokens == 4.5);
static_assert(verified_tokens(Speculation{.draft_tokens = 5}) == 6 && tree_candidates(Speculation{.draft_tokens = 5, .tree_width = 8}) == 8 + 4 * 64);

// A head is no model, nor a model a head: each answer takes the one it prices.
static_assert(!std::is_convertible_v<DraftHead, Model>);
static_assert(!std::is_convertible_v<Model, DraftHead>);
}  // namespace
