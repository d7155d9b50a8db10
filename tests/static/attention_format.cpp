// Compile-time checks of the attention's own storage format (Precision::attention), by hand.
#include <ridgeline/decode.hpp>

#include "../seed_inputs.hpp"

namespace {
using namespace ridgeline;
using seed::llama2_7b;

// Unset, it is the weights'; set, the attention's projections alone take it.
static_assert(Precision{}.attention_format() == formats::bf16);
static_assert(Precision{.weights = formats::nvfp4}.attention_format() == formats::nvfp4);
static_assert(Precision{.weights = formats::nvfp4, .attention = formats::bf16}.attention_format() == formats::bf16);

// Llama-2-7B (config.json: hidden 4,096, 32 query and 32 KV heads of 128, MLP 11,008), one
// layer on one device: attention 4 x 4,096 x 4,096 = 67,108,864 parameters at 2 B, the MLP
// 3 x 4,096 x 11,008 = 135,266,304 at 0.5625 B (NVFP4), the two norms' 8,192 at 2 B.
constexpr LayerSpec llama2_7b_layer = llama2_7b().groups[0].spec;
static_assert(layer_attention_parameters_per_device(llama2_7b_layer, 4096, 1) == 67'108'864);
static_assert(layer_bytes_outside_experts(llama2_7b_layer, 4096, 1, 0, 0.5625, 2, 2) == 67'108'864 * 2 + 76'087'296 + 16'384);
// On two devices each holds half of both (32 KV heads split), the norms whole.
static_assert(layer_bytes_outside_experts(llama2_7b_layer, 4096, 2, 0, 0.5625, 2, 2) == 33'554'432 * 2 + 38'043'648 + 16'384);
// One format for both is the weights' alone.
static_assert(layer_bytes_outside_experts(llama2_7b_layer, 4096, 1, 0, 2, 2, 2) == (67'108'864 + 135'266'304 + 8'192) * 2.0);
}  // namespace
