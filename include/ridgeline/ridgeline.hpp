// ridgeline: decode-speed arithmetic for LLMs. Standard library only; every answer but the
// planner (plan.hpp, which returns vectors), the operator table and the columnar decode_sweep is
// constexpr. JSON and the presets are json.hpp; pictures roofline_svg.hpp and plan_svg.hpp.
#pragma once

#include "calibrate.hpp"  // IWYU pragma: export
#include "capacity.hpp"   // IWYU pragma: export
#include "decode.hpp"     // IWYU pragma: export
#include "decode_sweep.hpp"  // IWYU pragma: export
#include "deployment.hpp"  // IWYU pragma: export
#include "draft_head.hpp"  // IWYU pragma: export
#include "diagnose.hpp"   // IWYU pragma: export
#include "error.hpp"      // IWYU pragma: export
#include "formats.hpp"    // IWYU pragma: export
#include "gemm.hpp"       // IWYU pragma: export
#include "generation.hpp"  // IWYU pragma: export
#include "hardware.hpp"   // IWYU pragma: export
#include "layers.hpp"     // IWYU pragma: export
#include "memory.hpp"     // IWYU pragma: export
#include "model.hpp"      // IWYU pragma: export
#include "name.hpp"       // IWYU pragma: export
#include "operators.hpp"  // IWYU pragma: export
#include "plan.hpp"       // IWYU pragma: export
#include "pipeline_stages.hpp"  // IWYU pragma: export
#include "prefill.hpp"    // IWYU pragma: export
#include "ridge.hpp"      // IWYU pragma: export
#include "serving.hpp"    // IWYU pragma: export
#include "speculative.hpp"  // IWYU pragma: export
#include "step_cost.hpp"  // IWYU pragma: export
#include "units.hpp"      // IWYU pragma: export
#include "workload.hpp"   // IWYU pragma: export
