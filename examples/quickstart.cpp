// The README's first example: one model, one device, three batch sizes, the ridge and n*.
#include <fmt/core.h>

#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

using namespace ridgeline;

int main() {
    const Hardware h100 = load_hardware("h100-sxm");  // data/hardware/h100-sxm.json
    const Model llama = load_model("llama-3.1-8b");   // data/models/llama-3.1-8b.json (a config.json)

    for (std::int64_t batch : {1, 64, 512}) {
        const DecodeStep d = decode_step(h100, llama, Workload{.batch = batch, .context = 4096});
        fmt::print("batch {:>3} at 4k: {:6.2f} GB/step {:6.2f} ms {:6.1f} tok/s/seq {:6.0f} tok/s  {}-bound\n", batch,
                   d.total_bytes.in(GB), d.step_time.in(ms), d.tokens_per_s.in(per_s), d.total_tokens_per_s.in(per_s),
                   limit_name(d));
    }
    const RidgeBatch at_256 = ridge_batch(h100, llama, Workload{.context = 256});
    const RidgeBatch at_4k = ridge_batch(h100, llama, Workload{.context = 4096});
    fmt::print("ridge batch: {:.0f} at 256 tokens of context, {} at 4k; n* = {:.0f} tokens\n", at_256.value(),
               at_4k.is_never() ? "never" : "some", *n_star(h100, llama, Workload{}));
}
