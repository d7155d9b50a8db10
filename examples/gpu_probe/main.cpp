// gpu_probe: measures synthetic decode steps of a dense model on the local GPU and writes them
// in ridgeline's measurements schema, with ridgeline's ideal and calibrated predictions beside
// each row. Built only with -DRIDGELINE_GPU_PROBE=ON where CMake finds CUDA.
//
//     gpu_probe --model llama-3.1-8b --hardware h200 --batch 1..512x2 --context 0,512,4096,32768 --out DIR
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include <ridgeline/calibrate.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>

#include "../ridgeline/args.hpp"
#include "kernels.hpp"

using namespace ridgeline;

namespace {

struct Options {
    std::string model = "llama-3.1-8b", hardware = "h200", batch = "1..512x2", context = "0,512,4096,32768", out = ".";
    int repeats = 10, warmup = 3;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw cli::usage_error(a + ": needs a value");
            return argv[++i];
        };
        if (a == "--model") o.model = value();
        else if (a == "--hardware") o.hardware = value();
        else if (a == "--batch") o.batch = value();
        else if (a == "--context") o.context = value();
        else if (a == "--out") o.out = value();
        else if (a == "--repeats") o.repeats = static_cast<int>(cli::parse_integer("--repeats", value(), 1, "an integer >= 1"));
        else throw cli::usage_error("unknown option " + a + " (see the comment at the top of main.cpp)");
    }
    return o;
}

std::string today() {
    const std::time_t t = std::time(nullptr);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options o = parse(argc, argv);
        const Model m = load_model(o.model);
        const Hardware h = load_hardware(o.hardware);
        if (m.group_count != 1 || !std::holds_alternative<Gqa>(m.groups[0].spec.attention) ||
            !std::holds_alternative<DenseMlp>(m.groups[0].spec.ffn) || m.groups[0].spec.window != 0)
            throw error("", "--model", o.model, "a dense GQA model without windows (the probe builds only that shape)");
        const Gqa& a = std::get<Gqa>(m.groups[0].spec.attention);
        if (a.heads / a.kv_heads > 8) throw error("", "--model", o.model, "at most 8 query heads per KV head");
        const probe::Shape shape{static_cast<int>(m.groups[0].count), static_cast<int>(m.hidden_size), static_cast<int>(a.heads),
                                 static_cast<int>(a.kv_heads), static_cast<int>(a.head_dim),
                                 static_cast<int>(std::get<DenseMlp>(m.groups[0].spec.ffn).intermediate), static_cast<int>(m.vocab_size)};
        const auto batches = cli::parse_list("--batch", o.batch, 1);
        const auto contexts = cli::parse_list("--context", o.context, 0);

        const probe::DeviceInfo dev = probe::device_info();
        fmt::print("device: {} (driver {}, runtime {}), {:.1f} GiB free\n", dev.name, dev.driver_version, dev.runtime_version,
                   static_cast<double>(dev.free_bytes) / (1u << 30));
        const double copy = probe::copy_bytes_per_s(std::size_t{4} << 30, 10);
        const double read = probe::read_bytes_per_s(std::size_t{4} << 30, 10);
        const double gemm = probe::gemm_flop_per_s(8192, 10);
        fmt::print("reference: copy {:.0f} GB/s (read + write), streaming read {:.0f} GB/s, bf16 GEMM 8192^3 {:.0f} TFLOP/s\n",
                   copy / 1e9, read / 1e9, gemm / 1e12);

        // The KV cache: as many tokens per layer as the largest B x n asks for and memory allows.
        const double weight_bytes = 2.0 * derived_parameters(m).total();
        const double per_token = kv_bytes_per_token(m, formats::bf16).in(bytes);
        std::int64_t wanted = 0;
        for (auto b : batches)
            for (auto n : contexts) wanted = std::max(wanted, b * n);
        const double room = static_cast<double>(dev.free_bytes) - weight_bytes - 4e9;  // activations and headroom
        const auto kv_tokens = static_cast<std::size_t>(std::max(1.0, std::min(static_cast<double>(wanted), room / per_token)));
        probe::DecodeProbe decode(shape, kv_tokens);

        MeasurementSet set;
        set.source = fmt::format("examples/gpu_probe on {} (driver {}), {}", dev.name, dev.driver_version, today());
        std::vector<Observation> observations;
        struct Row {
            std::int64_t batch, context;
            double measured_ms;
        };
        std::vector<Row> rows;
        for (auto b : batches)
            for (auto n : contexts) {
                if (static_cast<std::size_t>(b * n) > kv_tokens) {
                    fmt::print("skip B={} n={}: its KV ({:.1f} GB) does not fit beside the weights\n", b, n,
                               static_cast<double>(b * n) * per_token / 1e9);
                    continue;
                }
                const probe::StepTiming t = decode.time_step(static_cast<int>(b), static_cast<int>(n), o.warmup, o.repeats);
                rows.push_back({b, n, t.median_ms});
                Workload w{.batch = b, .context = n};  // the default assumptions read bytes as the probe does
                observations.push_back({m, w, Parallelism{}, ms(t.median_ms)});
                fmt::print("B={:4} n={:6}: {:8.3f} ms (min {:.3f})\n", b, n, t.median_ms, t.min_ms);
            }

        // The measurements file (ridgeline's schema) and the side-by-side report.
        nlohmann::ordered_json doc{{"source", set.source},
                                   {"notes", fmt::format("Synthetic decode steps (cuBLAS bf16 GEMMs, split-K/V attention kernel, LM head) "
                                                         "with random weights; reference: copy {:.0f} GB/s, read {:.0f} GB/s, "
                                                         "GEMM {:.0f} TFLOP/s; median of {} after {} warm-ups.",
                                                         copy / 1e9, read / 1e9, gemm / 1e12, o.repeats, o.warmup)},
                                   {"measurements", nlohmann::ordered_json::array()}};
        for (const Row& r : rows)
            doc["measurements"].push_back({{"hardware", o.hardware}, {"model", o.model}, {"weights", "bf16"}, {"kv", "bf16"},
                                           {"batch", r.batch}, {"context", r.context}, {"tpot_ms", r.measured_ms}});
        const std::string base = o.out + "/" + o.model + "-" + o.hardware;
        std::ofstream(base + ".json") << doc.dump(2) << "\n";

        std::ofstream report(base + ".csv");
        report << "batch,context_tokens,measured_ms,ideal_ms,calibrated_ms,measured_over_ideal,calibrated_error,bound\n";
        const Calibration c = observations.size() >= 2 ? calibrate(h, observations) : Calibration{};
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const DecodeStep ideal = decode_step(h, m, observations[i].workload);
            const double calibrated = observations.size() >= 2 ? c.predicted[i].in(ms) : ideal.step_time.in(ms);
            report << fmt::format("{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{}\n", rows[i].batch, rows[i].context, rows[i].measured_ms,
                                  ideal.step_time.in(ms), calibrated, rows[i].measured_ms / ideal.step_time.in(ms),
                                  (calibrated - rows[i].measured_ms) / rows[i].measured_ms, limit_name(ideal));
        }
        if (observations.size() >= 2)
            fmt::print("calibrated: {:.1f}% of peak bandwidth, {:.3f} ms per step, rms error {:.1f}%\n", 100 * c.bandwidth_efficiency,
                       c.overhead.in(ms), 100 * c.rms_relative_error);
        fmt::print("wrote {}.json and {}.csv\n", base, base);
        return 0;
    } catch (const cli::usage_error& e) {
        fmt::print(stderr, "gpu_probe: {}\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "gpu_probe: {}\n", e.what());
        return 1;
    }
}
