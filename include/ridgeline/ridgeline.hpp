// ridgeline: decode-speed arithmetic for LLMs. Standard library only; everything constexpr.
#pragma once

#include "capacity.hpp"   // IWYU pragma: export
#include "decode.hpp"     // IWYU pragma: export
#include "error.hpp"      // IWYU pragma: export
#include "formats.hpp"    // IWYU pragma: export
#include "gemm.hpp"       // IWYU pragma: export
#include "hardware.hpp"   // IWYU pragma: export
#include "model.hpp"      // IWYU pragma: export
#include "name.hpp"       // IWYU pragma: export
#include "ridge.hpp"      // IWYU pragma: export
#include "step_cost.hpp"  // IWYU pragma: export
#include "units.hpp"      // IWYU pragma: export
#include "workload.hpp"   // IWYU pragma: export
