// libFuzzer target: a hardware preset from arbitrary bytes.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ridgeline;
    try {
        const Hardware h = hardware_from_json(parse_json_text(fuzz::text(data, size), "fuzz.json"), "fuzz.json");
        FUZZ_REQUIRE(hardware_from_json(nlohmann::json(h)) == h);  // round trip
        fuzz::exercise(h, dense_model("fuzz", 4, 256, 8, 2, 32, 512, 1000));
    } catch (const error&) {
    }
    return 0;
}
