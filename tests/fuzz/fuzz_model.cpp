// libFuzzer target: a ridgeline model preset, a HuggingFace config.json or an EAGLE-3 head's from
// arbitrary bytes.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ridgeline;
    static const Hardware device = fuzz::reference_device();
    try {
        const nlohmann::json j = parse_json_text(fuzz::text(data, size), "fuzz.json");
        if (json_detail::names_eagle3_head_config(j)) {  // an EAGLE-3 head reads as a draft, never as a model
            const DraftHead d = draft_head_from_config(j, "fuzz.json");
            FUZZ_REQUIRE(std::isfinite(draft_head_parameters(d)) && draft_head_parameters(d) > 0);
            const DecodeStep pass = speculative_detail::head_draft_step(Deployment{device, {}}, d, Workload{.batch = 4, .context = 1024}, true);
            FUZZ_REQUIRE(fuzz::finite_non_negative(pass.step_time) && pass.step_time > Seconds{});
            return 0;
        }
        const Model m = model_from_config(j, "fuzz.json");
        FUZZ_REQUIRE(model_from_config(nlohmann::json(m)) == m);  // round trip
        const ParameterBreakdown p = derived_parameters(m);
        FUZZ_REQUIRE(std::isfinite(p.total()) && p.total() > 0);
        FUZZ_REQUIRE(std::isfinite(active_parameters(m).total()));
        FUZZ_REQUIRE(is_finite(kv_bytes_per_token(m, formats::bf16)));
        fuzz::exercise(device, m);
    } catch (const error&) {
    }
    return 0;
}
