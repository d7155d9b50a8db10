// The planner's output schema (output_schema.hpp), defined once: the CLI's table, CSV and JSON,
// the page's plan tab and the Python module's rows are all built from this list.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "output_schema.hpp"
#include "plan.hpp"

namespace ridgeline {

using PlanField = Field<PlanRow>;

namespace plan_schema_detail {
inline FieldValue optional(const std::optional<double>& v) { return v ? FieldValue{*v} : FieldValue{Null{}}; }
}  // namespace plan_schema_detail

inline const std::vector<PlanField>& plan_fields() {
    using U = Show;
    using V = FieldValue;
    static const std::vector<PlanField> fields{
        {"hardware", "hardware", U::word, [](const PlanRow& r) { return V{r.device}; }},
        {"devices", "devices", U::count, [](const PlanRow& r) { return V{static_cast<std::int64_t>(r.devices)}; }},
        {"replicas", "replicas", U::count, [](const PlanRow& r) { return V{r.replicas}; }},
        {"tp", "tp", U::count, [](const PlanRow& r) { return V{r.parallel.tensor}; }},
        {"pp", "pp", U::count, [](const PlanRow& r) { return V{r.parallel.pipeline}; }},
        {"ep", "ep", U::count, [](const PlanRow& r) { return V{r.parallel.expert}; }},
        {"attention_dp", "attn dp", U::count, [](const PlanRow& r) { return V{r.parallel.attention_data}; }},
        {"weights", "weights", U::word, [](const PlanRow& r) { return V{r.weights_name}; }},
        {"compute", "compute", U::word, [](const PlanRow& r) { return V{std::string(name_of(r.compute))}; }},
        {"mode", "mode", U::word, [](const PlanRow& r) { return V{std::string(mode_name(r.mode))}; }},
        {"batch", "batch", U::count, [](const PlanRow& r) { return V{r.serving.batch}; }},
        {"users", "users", U::count, [](const PlanRow& r) { return V{static_cast<std::int64_t>(r.users())}; }},
        {"prefill_devices", "prefill devices", U::count,
         // Whole devices (plan rounds them up per replica), so an integer as `devices` is.
         [](const PlanRow& r) { return V{static_cast<std::int64_t>(r.devices - static_cast<double>(r.replicas) * r.serving.replica_devices + 0.5)}; }},
        {"memory_per_device_bytes", "memory/device", U::bytes, [](const PlanRow& r) { return V{r.serving.memory.used().in(bytes)}; }},
        {"memory_budget_bytes", "budget", U::bytes, [](const PlanRow& r) { return V{r.serving.memory.budget.in(bytes)}; }},
        // None with one token a request: no time between tokens (Serving::streams).
        {"tpot_s", "TPOT", U::milliseconds,
         [](const PlanRow& r) { return r.serving.streams() ? V{r.serving.tpot.in(s)} : V{Null{}}; }, 2},
        {"max_itl_s", "max ITL", U::milliseconds,
         [](const PlanRow& r) { return r.serving.streams() ? V{r.serving.max_itl.in(s)} : V{Null{}}; }, 2},
        {"ttft_s", "TTFT", U::milliseconds, [](const PlanRow& r) { return V{r.serving.ttft.in(s)}; }, 2},
        {"tokens_per_s_per_user", "tok/s/user", U::number,
         [](const PlanRow& r) { return V{r.serving.tokens_per_s_per_user.in(per_s)}; }, 1},
        {"tokens_per_s_per_device", "tok/s/device", U::number,
         [](const PlanRow& r) { return V{r.serving.tokens_per_s_per_device.in(per_s)}; }, 1},
        {"cost_per_hour", "cost/hour", U::number, [](const PlanRow& r) { return plan_schema_detail::optional(r.cost_per_hour); }, 3},
        {"cost_per_million_tokens", "cost/Mtok", U::number,
         [](const PlanRow& r) { return plan_schema_detail::optional(r.cost_per_million_tokens); }, 3},
    };
    return fields;
}

}  // namespace ridgeline
