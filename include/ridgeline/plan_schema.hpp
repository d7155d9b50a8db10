// The planner's output schema, defined once: every field a plan row has, its key (which names
// its unit: SI base units, as all of ridgeline's JSON), the column header a table shows, and how
// to read it from a PlanRow. The CLI's table, CSV and JSON and the page's plan tab are all built
// from this list, so they cannot disagree on a key or a value.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "plan.hpp"

namespace ridgeline {

// A field's value: a number in SI base units, an integer, a word, or nothing (no price given).
using PlanValue = std::variant<std::monostate, double, std::int64_t, std::string>;

enum class PlanUnit { none, count, bytes, seconds, per_second, money };

struct PlanField {
    const char* key;
    const char* header;
    PlanUnit unit;
    PlanValue (*get)(const PlanRow&);
};

namespace plan_schema_detail {
inline PlanValue optional(const std::optional<double>& v) { return v ? PlanValue{*v} : PlanValue{}; }
}  // namespace plan_schema_detail

inline const std::vector<PlanField>& plan_fields() {
    using U = PlanUnit;
    static const std::vector<PlanField> fields{
        {"hardware", "hardware", U::none, [](const PlanRow& r) { return PlanValue{r.device}; }},
        {"devices", "devices", U::count, [](const PlanRow& r) { return PlanValue{static_cast<std::int64_t>(r.devices)}; }},
        {"replicas", "replicas", U::count, [](const PlanRow& r) { return PlanValue{r.replicas}; }},
        {"tp", "tp", U::count, [](const PlanRow& r) { return PlanValue{r.parallel.tensor}; }},
        {"pp", "pp", U::count, [](const PlanRow& r) { return PlanValue{r.parallel.pipeline}; }},
        {"ep", "ep", U::count, [](const PlanRow& r) { return PlanValue{r.parallel.expert}; }},
        {"weights", "weights", U::none, [](const PlanRow& r) { return PlanValue{format_name(r.weights)}; }},
        {"mode", "mode", U::none, [](const PlanRow& r) { return PlanValue{std::string(mode_name(r.mode))}; }},
        {"batch", "batch", U::count, [](const PlanRow& r) { return PlanValue{r.serving.batch}; }},
        {"users", "users", U::count, [](const PlanRow& r) { return PlanValue{static_cast<std::int64_t>(r.users())}; }},
        {"prefill_devices", "prefill devices", U::count,
         [](const PlanRow& r) { return PlanValue{r.devices - static_cast<double>(r.replicas) * r.serving.replica_devices}; }},
        {"memory_per_device_bytes", "memory/device", U::bytes, [](const PlanRow& r) { return PlanValue{r.serving.memory.used().in(bytes)}; }},
        {"memory_budget_bytes", "budget", U::bytes, [](const PlanRow& r) { return PlanValue{r.serving.memory.budget.in(bytes)}; }},
        {"tpot_s", "TPOT", U::seconds, [](const PlanRow& r) { return PlanValue{r.serving.tpot.in(s)}; }},
        {"ttft_s", "TTFT", U::seconds, [](const PlanRow& r) { return PlanValue{r.serving.ttft.in(s)}; }},
        {"tokens_per_s_per_user", "tok/s/user", U::per_second,
         [](const PlanRow& r) { return PlanValue{r.serving.tokens_per_s_per_user.in(per_s)}; }},
        {"tokens_per_s_per_device", "tok/s/device", U::per_second,
         [](const PlanRow& r) { return PlanValue{r.serving.tokens_per_s_per_device.in(per_s)}; }},
        {"cost_per_hour", "cost/hour", U::money, [](const PlanRow& r) { return plan_schema_detail::optional(r.cost_per_hour); }},
        {"cost_per_million_tokens", "cost/Mtok", U::money,
         [](const PlanRow& r) { return plan_schema_detail::optional(r.cost_per_million_tokens); }},
    };
    return fields;
}

}  // namespace ridgeline
