// The storage formats a config.json says its checkpoint ships in (torch_dtype and
// quantization_config), as the default Precision for that model.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "catalogue.hpp"
#include "formats.hpp"
#include "hardware.hpp"
#include "json_node.hpp"
#include "workload.hpp"

namespace ridgeline {

// ---------------------------------------------------------------------------------------------
// Checkpoint formats: the storage formats a config.json says its checkpoint ships in.
// ---------------------------------------------------------------------------------------------

// A model with the formats its checkpoint ships in, and where those came from. The default
// Precision a caller should start from for this model; a caller's own --weights, --experts and
// --embeddings still override it. kv and compute are left at Precision's defaults: a
// checkpoint's files do not fix them.
struct LoadedModel {
    Model model;
    Precision precision{};
    std::string precision_source;  // e.g. "torch_dtype bfloat16; quantization_config fp8, ..."
    std::string notes;             // how the file was read, when that needs saying (model_json.hpp)
};

namespace json_detail {

// torch_dtype (or dtype, its newer name): the format of every tensor left unquantised.
inline Format dtype_format(const Node& n) {
    const std::string expected = "one of: bfloat16, float16, float32";
    const std::string d = n.string(expected);
    if (d == "bfloat16") return formats::bf16;
    if (d == "float16") return formats::fp16;
    if (d == "float32") return formats::fp32;
    n.fail(expected);
}

inline int small_positive(const Node& n, const std::string& expected) {
    // An integer from 1 to 1,000,000 (bits, group sizes, block sides).
    const json& v = n.value();
    if (!v.is_number_integer()) n.fail(expected);
    // nlohmann reads a non-negative integer (0 too) as unsigned, so both kinds are checked for 0.
    if (v.is_number_unsigned() ? (v.get<std::uint64_t>() == 0 || v.get<std::uint64_t>() > 1000000)
                               : (v.get<std::int64_t>() <= 0 || v.get<std::int64_t>() > 1000000))
        n.fail(expected);
    return static_cast<int>(v.get<std::int64_t>());
}

// A grouped format read from a config: as parse_format, scales that take as many bits as the
// values they scale are refused (int4 in groups of 4 with a 16-bit scale is 8 bits a weight),
// so every format a checkpoint gives has a name that reads back.
inline Format scaled_format(const Node& n, Numeric element, int scale_bits, int block, const std::string& what) {
    const int least = scale_bits / static_cast<int>(element_bits(element)) + 1;
    if (block < least)
        n.fail(what + " of at least " + std::to_string(least) + " (a " + std::to_string(scale_bits) + "-bit scale for fewer " +
               std::string(name_of(element)) + " weights takes as many bits as they do)");
    return Format{element, scale_bits, block};
}

// One compressed-tensors weights scheme ({"num_bits", "type", "group_size", "strategy"}).
inline Format compressed_tensors_weights(const Node& w) {
    w.require_object("a weights scheme object");
    const int bits = small_positive(w.need("num_bits", "4 or 8"), "4 or 8");
    const std::string type = w.need("type", "\"float\" or \"int\"").string("\"float\" or \"int\"");
    const bool grouped = w.has("group_size") && !w.at("group_size").value().is_null();
    const int group = grouped ? small_positive(w.at("group_size"), "a positive group size of at most 1,000,000") : 0;
    if (type == "float" && bits == 4 && group == 16) return formats::nvfp4;  // NVFP4: FP8 scale per 16
    if (type == "float" && bits == 8 && !grouped) return formats::fp8;       // per tensor or channel
    const Numeric element = bits == 4 ? Numeric::int4 : Numeric::int8;
    if (type == "int" && (bits == 4 || bits == 8))
        return grouped ? scaled_format(w.at("group_size"), element, 16, group, "a group size") : Format{element};
    w.fail("a scheme ridgeline models: float 4-bit in groups of 16 (nvfp4), float 8-bit without groups (fp8), "
           "or int 4/8-bit (optionally grouped)");
}

// A key that is not null at the top level, else in a wrapper's text_config (its language
// model's), with the prefix that says where ("" or "text_config."); none where neither has it.
inline std::optional<std::pair<Node, std::string>> own_or_text(const Node& root, const char* key) {
    if (root.has(key) && !root.at(key).value().is_null()) return std::pair{root.at(key), std::string()};
    if (root.has("text_config") && root.at("text_config").value().is_object()) {
        const Node text = root.at("text_config");
        if (text.has(key) && !text.at(key).value().is_null()) return std::pair{text.at(key), std::string("text_config.")};
    }
    return std::nullopt;
}

// Whether a config.json's language model has routed experts: one of the families' expert-count
// keys, at the top or in a wrapper's text_config, above 0.
inline bool has_routed_experts(const json& j) {
    const auto in = [](const json& n) {
        for (const char* key : {"num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts"})
            if (n.contains(key) && n.at(key).is_number_integer() && n.at(key).get<std::int64_t>() > 0) return true;
        return false;
    };
    return in(j) || (j.contains("text_config") && j.at("text_config").is_object() && in(j.at("text_config")));
}

// Checkpoints whose quantization_config gives config_groups' weights schemes and an `ignore`
// list of modules (or patterns) kept at torch_dtype: compressed-tensors (llm-compressor's) and
// NVIDIA's Model Optimizer (quant_method "modelopt", the same groups). The schemes must agree.
// Where `ignore` keeps every layer's attention (self_attn, linear_attn) on a model with routed
// experts, only those experts take the scheme: NVIDIA's NVFP4 releases (MiniMax-M2.5, Qwen3.5,
// GLM-5.1) and Moonshot's INT4 Kimi-K2-Thinking and K2.5 (which keep the shared experts and
// dense MLPs too). A dense model's linear layers have one format here, the scheme's, and the
// source says its attention was kept. modelopt's MIXED_PRECISION (a format per layer) is refused.
inline std::pair<Precision, std::string> grouped_formats(const json& j, const Node& q, Precision p, Format dtype, std::string source,
                                                         const std::string& method) {
    if (method == "modelopt" && q.has("quant_algo") && q.at("quant_algo").value().is_string() &&
        q.at("quant_algo").value() == "MIXED_PRECISION")
        q.at("quant_algo").fail("NVFP4 or FP8 (MIXED_PRECISION gives each layer a format of its own, which ridgeline's formats "
                                "do not hold; give --weights and --experts)");
    const Node groups = q.need("config_groups", "an object of quantisation groups");
    groups.require_object("an object of quantisation groups");
    if (groups.value().empty()) groups.fail("at least one quantisation group");
    std::optional<Format> all;
    for (const auto& item : groups.value().items()) {
        const Node w = groups.at(item.key()).need("weights", "a weights scheme object");
        const Format f = compressed_tensors_weights(w);
        if (all && *all != f) w.fail("the same weights scheme as the other groups (" + format_name(*all) + ")");
        all = f;
    }
    bool attention_kept = false, head_kept = false;
    if (q.has("ignore") && !q.at("ignore").value().is_null()) {
        const Node ignore = q.at("ignore");
        if (!ignore.value().is_array()) ignore.fail("an array of module names or patterns");
        for (std::size_t i = 0; i < ignore.value().size(); ++i) {
            const std::string name = ignore.at(i).string("a module name or pattern (a string)");
            head_kept = head_kept || name == "lm_head" || name.ends_with(".lm_head");
            attention_kept = attention_kept || name.find("self_attn") != std::string::npos || name.find("linear_attn") != std::string::npos;
        }
    }
    const bool experts_only = attention_kept && has_routed_experts(j);
    p.weights = experts_only ? dtype : *all;
    if (experts_only) p.experts = *all;
    if (head_kept) p.lm_head = dtype;
    else if (experts_only) p.lm_head = *all;  // a Linear the scheme quantises, where the weights are not
    p.router_and_norms = dtype;  // quantisers convert linear layers only
    p.embeddings = dtype;
    source += "; quantization_config " + method + ": ";
    if (experts_only) source += "routed experts " + format_name(*all) + " (ignore keeps attention at " + format_name(dtype) + ")";
    else source += "weights " + format_name(*all);
    if (attention_kept && !experts_only) source += " (ignore keeps attention at " + format_name(dtype) + "; priced in the weights' format)";
    source += ", embeddings, norms and routers " + format_name(dtype);
    if (p.lm_head) source += ", lm_head " + format_name(*p.lm_head);
    if (q.has("kv_cache_scheme") && !q.at("kv_cache_scheme").value().is_null())
        source += "; kv_cache_scheme ignored: the KV format is --kv's";
    return {p, source};
}

}  // namespace json_detail

// The formats a config.json's torch_dtype and quantization_config give a checkpoint:
//  - torch_dtype (or dtype): bfloat16 / float16 / float32, the format of every tensor left
//    unquantised: weights when there is no quantization_config, embeddings always; float32 is
//    served as bf16 (as serving engines downcast it). Absent: bf16, Precision's default.
//  - quant_method "fp8": FP8 (E4M3) weights; with weight_block_size [a, b] one FP32 scale per
//    a x b block (DeepSeek-V3 stores weight_scale_inv in float32), i.e. fp8/g(a*b)/s32. Experts
//    follow the weights; embeddings and the LM head stay at torch_dtype (DeepSeek-V3's
//    inference code builds its head in the default dtype; transformers' FP8 quantizer skips
//    lm_head).
//  - "mxfp4": the routed experts in MXFP4 (what transformers' Mxfp4 quantizer converts, and all
//    gpt-oss ships so: attention, router, embeddings and head are in modules_to_not_convert);
//    everything else at torch_dtype.
//  - "awq", "gptq": bits 4 or 8 in groups of group_size with one 16-bit scale each (int4/g128);
//    group_size -1 (per channel) is plain int4. Zero points are not counted. Embeddings stay at
//    torch_dtype, and so does the LM head (AutoAWQ never quantises it; GPTQ only with
//    "lm_head": true).
//  - "compressed-tensors": config_groups' weights schemes, all alike: nvfp4, fp8 or intN/gG; the
//    LM head at torch_dtype where "ignore" names lm_head (as llm-compressor writes it), else in
//    the scheme's format.
//  - "modelopt": as compressed-tensors; where `ignore` keeps attention at torch_dtype (NVIDIA's
//    NVFP4 releases of MoE models), only the routed experts take the scheme (grouped_formats).
inline std::pair<Precision, std::string> checkpoint_formats(const nlohmann::json& j, const std::string& file = "") {
    using json_detail::Node;
    const Node root{j, file, ""};
    root.require_object("a config.json object");
    Precision p{};
    std::string source;
    Format dtype = formats::bf16;
    // The top level's torch_dtype or dtype; else a wrapper's text_config's (a vision-language
    // model's language model, which is what is costed; llava-hf's files name it in both places,
    // and a file trimmed to its text_config's dtype was read as bf16 assumed).
    std::optional<Node> dtype_node;
    std::string dtype_key;
    const auto find_dtype = [&](const Node& in, const std::string& prefix) {
        for (const char* key : {"torch_dtype", "dtype"})
            if (!dtype_node && in.has(key) && !in.at(key).value().is_null()) {
                dtype_node = in.at(key);
                dtype_key = prefix + key;
            }
    };
    find_dtype(root, "");
    if (!dtype_node && root.has("text_config") && root.at("text_config").value().is_object()) find_dtype(root.at("text_config"), "text_config.");
    if (dtype_node) {
        dtype = json_detail::dtype_format(*dtype_node);
        source = dtype_key + " " + dtype_node->value().get<std::string>();
        // Engines serve a float32 checkpoint in 16 bits: vLLM's dtype "auto" downcasts it to the
        // device's first supported format (bf16 from compute capability 8.0, fp16 before: the same
        // two bytes a weight). --weights fp32 (with --embeddings and --lm-head fp32) asks for 32 bits.
        if (dtype == formats::fp32) {
            dtype = formats::bf16;
            source += ": served in bf16 (16 bits, as vLLM's dtype auto serves float32 checkpoints; fp16 on a device without bf16, "
                      "the same bytes)";
        }
    } else {
        source = "no torch_dtype: bf16 assumed";
    }
    p.weights = dtype;
    // The recurrent state in the model's dtype (vLLM's mamba_cache_dtype "auto"), its matrices in
    // the config's mamba_ssm_cache_dtype where it names one (Nemotron-H's float32; vLLM keeps the
    // SSM state in it unless told otherwise, as NemotronHForCausalLMConfig reads it).
    p.state = StateFormats{dtype, dtype};
    if (root.has("mamba_ssm_cache_dtype") && !root.at("mamba_ssm_cache_dtype").value().is_null()) {
        p.state.matrices = json_detail::dtype_format(root.at("mamba_ssm_cache_dtype"));
        source += "; mamba_ssm_cache_dtype " + root.at("mamba_ssm_cache_dtype").value().get<std::string>() + ": recurrent state " +
                  format_name(p.state.matrices);
    } else if (const auto ssm = json_detail::own_or_text(root, "mamba_ssm_dtype")) {
        // Qwen3.5's text_config names mamba_ssm_dtype, and both engines keep the Gated DeltaNet
        // state in it: vLLM's Qwen3_5ForConditionalGenerationConfig copies it into
        // mamba_ssm_cache_dtype "auto" (vllm-project/vllm PR #34489), SGLang's mamba2_state_dtype
        // reads text_config.mamba_ssm_dtype (sgl-project/sglang@02e208de
        // python/sglang/srt/configs/mamba_utils.py). The conv state stays at the model's dtype.
        p.state.matrices = json_detail::dtype_format(ssm->first);
        source += "; " + ssm->second + "mamba_ssm_dtype " + ssm->first.value().get<std::string>() + ": recurrent state " +
                  format_name(p.state.matrices);
    }
    // The top level's, else a wrapper's text_config's (Kimi-K2.5 quantises its language model there).
    const auto quantization = json_detail::own_or_text(root, "quantization_config");
    if (!quantization) return {p, source};

    const Node q = quantization->first;
    q.require_object("a quantization_config object");
    const std::string methods = "one of: fp8, mxfp4, awq, gptq, compressed-tensors, modelopt";
    const std::string method = q.need("quant_method", methods).string(methods);
    Format quantised{};
    if (method == "fp8") {
        quantised = formats::fp8;
        if (q.has("weight_block_size") && !q.at("weight_block_size").value().is_null()) {
            const Node b = q.at("weight_block_size");
            const std::string expected = "two positive block sides, e.g. [128, 128]";
            if (!b.value().is_array() || b.value().size() != 2) b.fail(expected);
            const int rows = json_detail::small_positive(b.at(0), expected), cols = json_detail::small_positive(b.at(1), expected);
            if (static_cast<std::int64_t>(rows) * cols > 1000000) b.fail(expected + " of at most 1,000,000 elements");
            quantised = json_detail::scaled_format(b, Numeric::fp8, 32, rows * cols, "blocks (rows x columns)");
        }
        p.weights = quantised;
        p.router_and_norms = dtype;  // quantisers convert linear layers only
        p.embeddings = dtype;
        p.lm_head = dtype;
    } else if (method == "mxfp4") {
        quantised = formats::mxfp4;
        p.experts = quantised;
    } else if (method == "awq" || method == "gptq") {
        const int bits = json_detail::small_positive(q.need("bits", "4 or 8"), "4 or 8");
        if (bits != 4 && bits != 8) q.at("bits").fail("4 or 8");
        const Numeric element = bits == 4 ? Numeric::int4 : Numeric::int8;
        const Node g = q.need("group_size", "a positive group size of at most 1,000,000, or -1 for per-channel scales");
        if (g.value().is_number_integer() && g.value().get<std::int64_t>() == -1) quantised = Format{element};
        else quantised = json_detail::scaled_format(g, element, 16, json_detail::small_positive(g, "a positive group size of at most 1,000,000, or -1 for per-channel scales"),
                                                    "a group size");
        p.weights = quantised;
        p.router_and_norms = dtype;  // quantisers convert linear layers only
        p.embeddings = dtype;
        const bool head_quantised = method == "gptq" && q.has("lm_head") && q.at("lm_head").boolean();
        if (!head_quantised) p.lm_head = dtype;
    } else if (method == "compressed-tensors" || method == "modelopt") {
        return json_detail::grouped_formats(j, q, p, dtype, source, method);
    } else {
        q.at("quant_method").fail(methods);
    }
    source += "; quantization_config " + method + ": " + (method == "mxfp4" ? "experts " : "weights ") + format_name(quantised);
    // Routers and norms are stored as the table (Precision::router_and_norm_format).
    if (p.embeddings || method == "mxfp4") source += ", embeddings, norms and routers " + format_name(dtype);
    if (p.lm_head) source += ", lm_head " + format_name(*p.lm_head);
    return {p, source};
}

// What a checkpoint's record of formats adds for a model with recurrent layers whose config names
// no format for their matrices (checkpoint_formats says the one it names): the model's dtype, not
// the KV's; nothing for a model without such layers.
inline std::string state_dtype_source(const Model& m, const Precision& checkpoint) {
    if (checkpoint.state.matrices != checkpoint.state.conv || !(state_bytes_per_sequence(m, checkpoint.state) > Bytes{})) return "";
    return "; recurrent state " + format_name(checkpoint.state.conv) + " (the model's dtype, whatever the KV's)";
}

// What a record of formats that a weights flag set adds for the checkpoint's recurrent state,
// which the flag leaves (a cache's format, not a weight's): "; recurrent state fp32 (...)", or
// nothing. The CLI, Python and the page say it alike.
inline std::string kept_state_source(const Model& m, const Precision& checkpoint) {
    // The matrices apart from the rest: the config named their format.
    if (checkpoint.state.matrices != checkpoint.state.conv)
        return "; recurrent state " + format_name(checkpoint.state.matrices) + " (the config's mamba_ssm_cache_dtype)";
    return state_dtype_source(m, checkpoint);
}

// What a record of formats adds where no compute format was asked for and the device's default
// is not bf16 (hardware.hpp's default_compute): "; compute fp16 (...)", or nothing. The CLI and
// Python say it alike.
inline std::string default_compute_note(const Hardware& hw) {
    const Numeric n = default_compute(hw);
    if (n == Numeric::bf16) return "";
    return "; compute " + std::string(name_of(n)) + " (" + std::string(hw.name.view()) +
           " has no bf16 peak: engines run 16-bit models in fp16 there)";
}

// A model read from its file's JSON, with the formats the file says its checkpoint ships in.
inline LoadedModel loaded_model(const nlohmann::json& j, const ResolvedPreset& r) {
    ConfigReading reading = read_config(j, r.file.string(), r.name);
    LoadedModel out{reading.model, {}, {}, std::move(reading.notes)};
    std::tie(out.precision, out.precision_source) = checkpoint_formats(j, r.file.string());
    out.precision_source += state_dtype_source(out.model, out.precision);
    return out;
}

// load_model, with the formats the file gives its checkpoint.
inline LoadedModel load_model_with_formats(std::string_view name_or_path) {
    const ResolvedPreset r = resolve(PresetKind::model, name_or_path);
    return loaded_model(read_json_file(r.file), r);
}

}  // namespace ridgeline
