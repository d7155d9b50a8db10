// libFuzzer target: a measurements file from arbitrary bytes (the rows' settings, not the presets).
#include "fuzz_common.hpp"

#include <ridgeline/diagnose.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ridgeline;
    static const Hardware device = fuzz::reference_device();
    static const Model model = dense_model("fuzz", 4, 256, 8, 2, 32, 512, 1000);
    try {
        const MeasurementSet set = measurements_from_json(parse_json_text(fuzz::text(data, size), "fuzz.json"), "fuzz.json");
        for (const MeasuredRow& r : set.rows) {
            FUZZ_REQUIRE(is_finite(r.measured_step) && r.measured_step > Seconds{});
            try {
                const Diagnosis d = diagnose(device, model, r.workload, r.measured_step);
                FUZZ_REQUIRE(std::isfinite(d.fraction_of_ceiling) && is_finite(d.implied_bandwidth));
            } catch (const error&) {
            }
        }
    } catch (const error&) {
    }
    return 0;
}
