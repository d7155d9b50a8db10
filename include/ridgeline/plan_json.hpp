// A plan search's answer as JSON, from the output schema (plan_schema.hpp): the CLI's
// `plan --format json` and the page's plan tab both print this, so they agree bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan_schema.hpp"
#include "schema_json.hpp"

namespace ridgeline {

inline nlohmann::ordered_json plan_row_json(const PlanRow& row) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    put_fields(o, plan_fields(), row);
    return o;
}

// At most `top` rows of the ranked plans and of the Pareto front.
inline nlohmann::ordered_json plan_json(const PlanResult& result, const Model& m, std::int64_t top) {
    const auto rows = [&](const std::vector<PlanRow>& list) {
        nlohmann::ordered_json arr = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < list.size() && static_cast<std::int64_t>(i) < top; ++i) arr.push_back(plan_row_json(list[i]));
        return arr;
    };
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["model"] = std::string(m.name.view());
    j["verdict"] = result.verdict;
    j["evaluated"] = result.evaluated;
    j["assumptions"] = result.assumptions;
    j["notes"] = result.notes;
    // Each device's engine terms, as the assumptions say them in words.
    j["times"] = nlohmann::ordered_json::array();
    for (const PlanTimes& t : result.times) {
        const Efficiency& e = t.efficiency;
        nlohmann::ordered_json o = nlohmann::ordered_json::object();
        o["hardware"] = t.hardware;
        o["source"] = t.source.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.source);
        o["bandwidth_efficiency"] = e.bandwidth;
        o["compute_efficiency"] = e.compute;
        o["overhead_s"] = e.overhead.in(s);
        o["per_layer_s"] = e.per_layer.in(s);
        o["per_moe_layer_s"] = e.per_moe_layer.in(s);
        o["per_sequence_s"] = e.per_sequence.in(s);
        o["per_message_s"] = e.per_message.in(s);
        o["kv_per_query_head"] = e.kv_per_query_head;
        o["activation_traffic"] = e.activation_traffic;
        j["times"].push_back(std::move(o));
    }
    j["plans"] = rows(result.plans);
    j["pareto"] = rows(result.pareto);
    return j;
}

}  // namespace ridgeline
