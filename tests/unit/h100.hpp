// The device most unit tests price against, loaded once for every test file (a unity batch
// compiles several files as one, so each cannot define its own).
#pragma once

#include <ridgeline/ridgeline.hpp>

namespace ridgeline_tests {
inline const ridgeline::Hardware& h100() {
    static const ridgeline::Hardware h = ridgeline::load_hardware("h100-sxm");
    return h;
}
}  // namespace ridgeline_tests
