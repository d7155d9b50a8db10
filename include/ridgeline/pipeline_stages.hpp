// Which layers each pipeline stage holds. Layers are not alike (a dense first layer, MoE layers
// between dense ones, NAS blocks that skip attention), so a stage's weights and cache are those
// of its own layers, in the model's order, not an average layer's.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "model.hpp"

namespace ridgeline {

// One stage's layers: how many of each layer group, and whether it is the first stage (which
// holds the input table) or the last (the final norm and the LM head).
struct StageLayers {
    std::array<std::int64_t, Model::max_groups> counts{};
    std::int64_t layers = 0;
    bool first = false;
    bool last = false;
};

// The first layer of `stage` as vLLM places them (get_pp_indices,
// vllm-project/vllm@5a6541db9bfa77756459722f69e8c89a0b47a14d vllm/distributed/utils.py):
// layers / stages a stage, and the r = layers mod stages left over one more each on stages
// stages - 1 - r to stages - 2 (partitions[-2], [-3], ...): never the last, which holds the LM
// head; the middle ones first, the first stage only when every stage between has one.
constexpr std::int64_t stage_first_layer(std::int64_t layers, std::int64_t stages, std::int64_t stage) noexcept {
    const std::int64_t base = layers / stages, extra = layers % stages;
    const std::int64_t from = stages - 1 - extra;  // the first stage given one more
    const std::int64_t before = stage <= from ? 0 : (stage - from < extra ? stage - from : extra);
    return stage * base + before;
}

// The layers of stage `stage` of `stages` (0-based), from the model's layer order. More stages
// than layers are no pipeline, refused as validate(Deployment, Model) refuses them, before any
// caller walks a million empty stages (a fuzzer found one).
constexpr StageLayers stage_layers(const Model& m, std::int64_t stages, std::int64_t stage) {
    const std::int64_t all = layer_count(m);
    if (stages > all)
        throw error("", "pipeline-parallel degree", std::to_string(stages),
                    "at most the layers (" + std::to_string(all) + ") of model '" + std::string(m.name.view()) + "'");
    const std::int64_t begin = stage_first_layer(all, stages, stage), end = stage_first_layer(all, stages, stage + 1);
    StageLayers s;
    s.first = stage == 0;
    s.last = stage == stages - 1;
    s.layers = end - begin;
    std::int64_t at = 0;
    for_each_layer_run(m, [&](std::size_t group, std::int64_t count) {
        const std::int64_t lo = at > begin ? at : begin, hi = at + count < end ? at + count : end;
        if (hi > lo) s.counts[group] += hi - lo;
        at += count;
    });
    return s;
}

}  // namespace ridgeline
