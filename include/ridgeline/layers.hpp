// The layer kinds a model is built from (attention_layers.hpp, ffn_layers.hpp), each owning its
// costs in one place (layer_kind.hpp). A model's answers are sums over its layers, reached
// through std::visit, so a new kind is one new type, one alternative below, and its tests.
#pragma once

#include <variant>

#include "attention_layers.hpp"
#include "ffn_layers.hpp"
#include "layer_kind.hpp"

namespace ridgeline {

using Attention = std::variant<Gqa, Mla, GatedDeltaNet, Mamba2, NoAttention>;
using FeedForward = std::variant<DenseMlp, NonGatedMlp, Moe, NoFfn>;

}  // namespace ridgeline
