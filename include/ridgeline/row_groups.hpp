// Whether a weight format's groups fit the rows a device holds. GPTQ's and AWQ's integer groups
// run along a row's inputs, so every linear layer must hold a whole number of them in each row on
// each device: vLLM's AWQ and GPTQ linear methods refuse to load otherwise ("The input size is
// not aligned with the quantized weight shape. This can be caused by too large tensor parallel
// size."; vllm/model_executor/layers/quantization/awq.py and gptq.py, create_weights, when
// input_size_per_partition % group_size != 0). Not checked: FP4's blocks (vLLM's and SGLang's
// MXFP4 MoE methods pad each slice to whole blocks: "pad the intermediate size to be a multiple
// of 2 * mxfp4_block", mxfp4.py), an FP8 block (a tile of a matrix, weight_block_size [128, 128],
// whose sides the format does not keep), and routed experts in integer groups (whether the MoE
// kernels refuse or pad was not confirmed).
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "error.hpp"
#include "formats.hpp"
#include "model.hpp"
#include "workload.hpp"

namespace ridgeline {

constexpr bool groups_along_rows(const Format& f) noexcept {
    return f.block > 0 && (f.element == Numeric::int4 || f.element == Numeric::int8);
}

// Refuses linear layers (routed experts aside) or an LM head stored in groups that do not divide
// each row's inputs on a device of `par` (tensor-parallel splits of a row-parallel layer's
// inputs). A split that leaves a device a fraction of a row is validate(Deployment, Model)'s to
// refuse, not this.
constexpr void require_whole_groups(const Model& m, const Precision& p, const Parallelism& par) {
    if (!groups_along_rows(p.weights) && !groups_along_rows(p.lm_head_format())) return;
    const auto check = [&](const char* what, const Format& f, const char* matrix, std::int64_t inputs, std::int64_t split) {
        if (!groups_along_rows(f) || split < 1 || inputs % split != 0) return;
        const std::int64_t per_device = inputs / split;
        if (per_device % f.block == 0) return;
        std::string where = std::string(matrix) + ": " + std::to_string(per_device) + " inputs a row";
        if (split > 1) where += " on each of " + std::to_string(split) + " devices (" + std::to_string(inputs) + " in all)";
        throw error("", what, format_name(f),
                    "groups of a size that divides every row a device holds, as engines require (" + where + ", not a multiple of " +
                        std::to_string(f.block) + ")");
    };
    const auto visit = [&](const char* matrix, Part part, std::int64_t inputs, std::int64_t split) {
        if (part != Part::experts) check("weights format", p.weights, matrix, inputs, split);
    };
    for (const LayerGroup& g : m) {
        std::visit([&](const auto& k) { k.row_inputs(m.hidden_size, par.attention_tensor(), par.expert, visit); }, g.spec.attention);
        std::visit([&](const auto& k) { k.row_inputs(m.hidden_size, par.tensor, par.expert, visit); }, g.spec.ffn);
    }
    check("LM head format", p.lm_head_format(), "lm_head", m.hidden_size, 1);
}

}  // namespace ridgeline
