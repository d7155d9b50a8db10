// Compile-time checks of the activations an engine's kernels hand on through memory
// (Efficiency::activation_traffic, model.hpp's layer_activation_traffic), by hand.
#include <ridgeline/decode.hpp>

#include "../seed_inputs.hpp"

namespace {
using namespace ridgeline;
using seed::llama2_7b;

// Llama-2-7B (config.json: hidden 4,096, 32 query and 32 KV heads of 128, MLP 11,008), one
// layer, one token, one device: two blocks add their residual and norm it and feed their
// matmuls, 2 x 6 x 4,096 = 49,152 elements; attention's q, k, v and output are 4 x 4,096 and
// the MLP's gate and up outputs 2 x 11,008, each crossing three times: 3 x 38,400 = 115,200.
constexpr LayerSpec llama2_7b_layer = llama2_7b().groups[0].spec;
static_assert(layer_activation_traffic(llama2_7b_layer, 4096, 1) == 49'152 + 115'200);
// Over two devices the heads and the MLP split; the hidden state each device holds whole.
static_assert(layer_activation_traffic(llama2_7b_layer, 4096, 2) == 49'152 + 57'600);

// The ceiling keeps activations on chip; an efficiency that moves them is not the ideal one.
static_assert(Efficiency{}.is_ideal() && !Efficiency{}.activation_traffic);
static_assert(!Efficiency{.activation_traffic = true}.is_ideal());

// Per token of a step at batch 1: 32 layers x 164,352 elements x 2 bytes (bf16) = 10,518,528 B.
constexpr Workload moving{.efficiency = Efficiency{.activation_traffic = true}};
static_assert(step_cost(llama2_7b(), moving).activation_bytes.in(bytes) == 10'518'528);
static_assert(step_cost(llama2_7b(), Workload{}).activation_bytes.in(bytes) == 0);
}  // namespace
