// Uses the installed headers and the installed presets (share/ridgeline).
#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include <cstdio>

int main() {
    using namespace ridgeline;
    const Hardware h100 = load_hardware("h100-sxm");
    const Model llama = load_model("llama-3.1-8b");
    // Seed 003's assumptions (every parameter read, no attention FLOPs), as its table counts.
    const DecodeStep step = decode_step(h100, llama, Workload{.context = 4096, .assumptions = assumptions::seed_003});
    std::printf("%s on %s at 4k context: %.1f tok/s\n", std::string(llama.name.view()).c_str(),
                std::string(h100.name.view()).c_str(), step.tokens_per_s.in(per_s));
    // From the architecture: 8,030,261,248 parameters -> 201.8 tok/s (seed 003's table).
    return step.tokens_per_s.in(per_s) > 201.7 && step.tokens_per_s.in(per_s) < 201.9 ? 0 : 1;
}
