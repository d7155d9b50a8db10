// The linear cost model every decode question is read from:
//     bytes(B, n) = shared + B * (per_sequence + n * kv_per_token)
//     flops(B, n) = B * (per_token + n * attention_per_context_token)
// Weights are shared by the batch; each sequence's KV is not.
#pragma once

#include <algorithm>

#include "model.hpp"
#include "units.hpp"
#include "workload.hpp"

namespace ridgeline {

struct StepCost {
    WeightAccounting accounting = WeightAccounting::every_parameter;
    double charged_parameters = 0;  // parameters whose bytes the step is charged once
    Bytes shared_bytes{};           // read once per step, whatever the batch
    Bytes per_sequence_bytes{};     // each sequence's own weight reads (its embedding row)
    Bytes kv_per_token{};           // each sequence, per token of context
    Flops flops_per_token{};        // matmul FLOPs per sequence: 2 per charged parameter
    Flops attention_flops_per_context_token{};  // 0 unless the workload counts attention FLOPs
};

constexpr StepCost step_cost(const Model& m, const Workload& w) {
    validate(m);
    validate(w);
    const double P = parameter_count(m);
    const Bytes per_weight = w.precision.weights.bytes_per_element();

    StepCost c;
    c.accounting = w.accounting;
    c.kv_per_token = kv_bytes_per_token(m, w.precision.kv);
    if (w.count_attention_flops) c.attention_flops_per_context_token = attention_flops_per_token(m, 1.0);

    if (w.accounting == WeightAccounting::bytes_read && !m.tied_embeddings) {
        // The input table is a lookup: one row per sequence, no matmul.
        const double table = derived_parameters(m).embeddings;
        c.charged_parameters = P - table;
        c.per_sequence_bytes = static_cast<double>(m.hidden_size) * per_weight;
    } else {
        c.charged_parameters = P;
    }
    c.shared_bytes = c.charged_parameters * per_weight;
    c.flops_per_token = flop(2.0 * c.charged_parameters);
    return c;
}

}  // namespace ridgeline
