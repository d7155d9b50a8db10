// What every fuzz target checks: an input either loads or throws ridgeline::error (anything
// else escapes and the fuzzer reports it), what loads round-trips through to_json, and every
// result computed from it is finite.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

namespace fuzz {

inline void require(bool ok) {
    if (!ok) std::abort();  // the fuzzer records the input that got here
}

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// A fixed device with every format, so any model can be evaluated.
inline ridgeline::Hardware reference_device() {
    using namespace ridgeline;
    Hardware h{"fuzz device", GB(80), TB_per_s(3.35)};
    for (Numeric n : all_numerics) h.with_peak(n, TFLOP_per_s(989));
    h.interconnect_bandwidth = GB_per_s(900);
    return h;
}

inline void check_step(const ridgeline::DecodeStep& d) {
    using namespace ridgeline;
    require(is_finite(d.step_time) && d.step_time > Seconds{});
    require(is_finite(d.total_bytes) && is_finite(d.flops) && is_finite(d.tokens_per_s) && is_finite(d.total_tokens_per_s));
}

// Runs the decode formulas over a few settings and checks the results are finite. Errors the
// library documents (a context past the model's limit, a tensor degree that does not fit the
// heads) are fine; anything else is not.
inline void exercise(const ridgeline::Hardware& h, const ridgeline::Model& m) {
    using namespace ridgeline;
    for (std::int64_t batch : {1, 7, 256})
        for (std::int64_t context : {0, 100, 5000}) {
            Workload w{.batch = batch, .context = context};
            w.assumptions.attention_flops = batch != 7;
            try {
                check_step(decode_step(h, m, w));
                const RidgeBatch r = ridge_batch(h, m, w);
                if (r.exists()) require(std::isfinite(r.value()) && r.value() > 0);
                if (const auto n = n_star(h, m, w)) require(std::isfinite(*n) && *n >= 0);
            } catch (const error&) {
            }
        }
}

}  // namespace fuzz
