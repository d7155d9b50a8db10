// Whether a weight format's groups fit the rows a device holds. GPTQ's and AWQ's integer groups
// run along a row's inputs, so every linear layer must hold a whole number of them in each row on
// each device: vLLM's AWQ and GPTQ linear methods refuse to load otherwise ("The input size is
// not aligned with the quantized weight shape. This can be caused by too large tensor parallel
// size."; vllm/model_executor/layers/quantization/awq.py and gptq.py, create_weights, when
// input_size_per_partition % group_size != 0). Not checked in weights: FP4's blocks (vLLM's and SGLang's
// MXFP4 MoE methods pad each slice to whole blocks: "pad the intermediate size to be a multiple
// of 2 * mxfp4_block", mxfp4.py), an FP8 block (a tile of a matrix, weight_block_size [128, 128],
// whose sides the format does not keep), and routed experts in integer groups (vLLM's
// MoeWNA16Method halves a group that does not divide a slice until one does, down to 32, and
// loads it: vllm/model_executor/layers/quantization/moe_wna16.py, create_weights).
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

// Refuses linear layers (routed experts aside), an LM head or an input table stored in groups that
// do not divide each row's inputs on a device of `par` (tensor-parallel splits of a row-parallel
// layer's inputs; a table's row is one token's hidden_size values, split by vocabulary, not along
// it). A split that leaves a device a fraction of a row is validate(Deployment, Model)'s to
// refuse, not this.
constexpr void require_whole_groups(const Model& m, const Precision& p, const Parallelism& par) {
    // A declared count has no layers to hold the attention apart in: its format would be shown and never read.
    if (m.declared_parameters && p.attention && *p.attention != p.weights)
        throw error("", "attention format", format_name(*p.attention),
                    "the weights' (" + format_name(p.weights) + "): model '" + std::string(m.name.view()) +
                        "' declares its parameter count, so no part of it is attention apart from the rest");
    if (!groups_along_rows(p.weights) && !groups_along_rows(p.attention_format()) && !groups_along_rows(p.lm_head_format()) &&
        !groups_along_rows(p.embedding_format()))
        return;
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
        if (part == Part::attention && p.attention) check("attention format", *p.attention, matrix, inputs, split);
        else if (part != Part::experts) check("weights format", p.weights, matrix, inputs, split);
    };
    for (const LayerGroup& g : m) {
        std::visit([&](const auto& k) { k.row_inputs(m.hidden_size, par.attention_tensor(), par.expert, visit); }, g.spec.attention);
        std::visit([&](const auto& k) { k.row_inputs(m.hidden_size, par.tensor, par.expert, visit); }, g.spec.ffn);
    }
    check("LM head format", p.lm_head_format(), "lm_head", m.hidden_size, 1);
    check("embedding format", p.embedding_format(), "embed_tokens", m.hidden_size, 1);
}

// Refuses a KV format in blocks or groups that do not divide what a layer caches for one token on
// one device. A cache is written a token at a time, so its scales are taken along each token's
// own vector (LMDeploy's int8 and int4 KV are "applied on a per-head, per-token basis":
// lmdeploy.readthedocs.io/en/v0.13.0/quantization/kv_quant.html), and a group straddling two
// tokens' vectors is no layout a kernel writes (a review's --kv int4/g7 gave Llama-3.1-8B
// 1,609.14 bytes a token a layer for its 2,048 K and V elements). Laxer than a head at a time:
// the K and V of a layer's heads on the device together. A stream stored in a format of its own
// (layer_kind.hpp's ContextRead::format) is not held in the KV format; MLA's 576-element latent
// and rope key refuse groups of 128 (plain fp8 takes FlashMLA's own layout, fp8_bytes_per_token).
constexpr void require_whole_kv_groups(const Model& m, const Precision& p, const Parallelism& par) {
    if (p.kv.block <= 0) return;
    const std::int64_t block = p.kv.block;
    for (const LayerGroup& g : m)
        std::visit([&](const auto& k) {
            k.reads(par.attention_tensor(), [&](const ContextRead& r) {
                if (r.format) return;
                const auto whole = static_cast<std::int64_t>(r.elements_per_token);
                if (static_cast<double>(whole) != r.elements_per_token || whole % block == 0) return;
                const std::string split = par.attention_tensor() > 1 ? " on each of " + std::to_string(par.attention_tensor()) + " devices" : "";
                throw error("", "KV format", format_name(p.kv),
                            "groups of a size that divides what a layer caches for a token on a device (" + std::string(r.name) + ": " +
                                std::to_string(whole) + " elements" + split + ", not a multiple of " + std::to_string(block) + ")");
            });
        }, g.spec.attention);
}

}  // namespace ridgeline
