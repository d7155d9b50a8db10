// libFuzzer target: a ridgeline model preset or a HuggingFace config.json from arbitrary bytes.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ridgeline;
    static const Hardware device = fuzz::reference_device();
    try {
        const Model m = model_from_config(parse_json_text(fuzz::text(data, size), "fuzz.json"), "fuzz.json");
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
