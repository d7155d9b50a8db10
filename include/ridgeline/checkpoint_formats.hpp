// The storage formats a config.json says its checkpoint ships in (torch_dtype and
// quantization_config), as the default Precision for that model.
#pragma once

#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The formats a config.json (and an hf_quant_config.json beside it) give a checkpoint, and
// where they came from.
struct CheckpointFormats {
    Precision precision{};
    std::string source{};
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

// What a quantiser's list of modules kept at torch_dtype names (compressed-tensors' `ignore`,
// modelopt's `exclude_modules`: names or fnmatch patterns, which vLLM also matches as
// substrings, vllm-project/vllm@00155cd modelopt.py is_layer_excluded).
struct KeptModules {
    bool head = false;                  // lm_head
    bool attention_everywhere = false;  // attention named without a layer index ("re:.*self_attn.*")
    std::int64_t attention_layers = 0;  // else the language model's layers whose attention is named
    bool beside_experts = false;        // shared experts, a dense MLP or a whole layer
    [[nodiscard]] bool attention() const { return attention_everywhere || attention_layers > 0; }
};

// The layer index in a module name ("model.layers.12.self_attn*": 12), and where the text after
// its digits starts; -1 where the name has none.
inline std::pair<std::int64_t, std::size_t> layer_index(const std::string& name) {
    const std::size_t at = name.rfind("layers.");
    if (at == std::string::npos) return {-1, 0};
    const std::size_t digits = at + 7, end = name.find_first_not_of("0123456789", digits);
    if (end == digits || end == std::string::npos || end - digits > 9) return {-1, 0};
    return {std::stoll(name.substr(digits, end - digits)), end};
}

// Whether a module name (or pattern) lies outside the language model's `layers` layers: an MTP
// block, a vision, audio or projector tower, or a layer numbered past the model's (an MTP layer).
inline bool not_costed(const std::string& name, std::int64_t layers) {
    for (const char* part : {"mtp", "visual", "vision", "audio", "projector", "patch_merge"})
        if (name.find(part) != std::string::npos) return true;
    const std::int64_t layer = layer_index(name).first;
    return layer >= 0 && layers > 0 && layer >= layers;
}

// The LM head, however a list writes it ("lm_head", "language_model.lm_head", "*lm_head", "re:.*lm_head").
inline bool names_head(const std::string& name) { return name.find("lm_head") != std::string::npos; }

// A layer's attention or recurrent mixer (Nemotron-H names its attention and Mamba projections
// mixer.q_proj ... mixer.out_proj).
inline bool names_attention(const std::string& name) {
    for (const char* part : {"self_attn", "linear_attn", "mixer.q_proj", "mixer.o_proj", "mixer.in_proj", "mixer.out_proj"})
        if (name.find(part) != std::string::npos) return true;
    return false;
}

// "; kv_cache_scheme ignored: ..." for each of `keys` the quantisation object sets: a checkpoint's
// KV format is the caller's choice (--kv), as engines let it be.
inline std::string kv_ignored(const Node& q, std::initializer_list<const char*> keys) {
    std::string out;
    for (const char* key : keys)
        if (q.has(key) && !q.at(key).value().is_null()) out += std::string("; ") + key + " ignored: the KV format is --kv's";
    return out;
}

// `layers`: the language model's layer count; a layer past it (an MTP module) keeps nothing
// that is costed.
inline KeptModules kept_modules(const Node& list, std::int64_t layers) {
    if (!list.value().is_array()) list.fail("an array of module names or patterns");
    KeptModules k;
    std::set<std::int64_t> attention;
    for (std::size_t i = 0; i < list.value().size(); ++i) {
        const std::string name = list.at(i).string("a module name or pattern (a string)");
        k.head = k.head || names_head(name);
        if (not_costed(name, layers)) continue;
        const auto [layer, rest] = layer_index(name);
        if (names_attention(name)) {
            if (layer < 0) k.attention_everywhere = true;
            else attention.insert(layer);
        }
        // "model.layers.0*" or "model.layers.0.*": the whole layer (GLM-5.1 keeps its dense ones so).
        const bool whole_layer = layer >= 0 && (name.substr(rest) == "*" || name.substr(rest) == ".*");
        if (whole_layer) attention.insert(layer);
        // A whole dense MLP ("layers.3.mlp*": DeepSeek's first layers, Gemma 4's beside its experts).
        const bool mlp = name.ends_with(".mlp") || name.ends_with(".mlp*") || name.ends_with(".mlp.*");
        // A shared expert's one-output gate is no MLP (Qwen3.5 keeps it beside the expert).
        const bool shared = name.find("shared_expert") != std::string::npos && !name.ends_with("shared_expert_gate");
        k.beside_experts = k.beside_experts || shared || whole_layer || mlp;
    }
    k.attention_layers = static_cast<std::int64_t>(attention.size());
    return k;
}

// The language model's layer count for kept_modules: num_hidden_layers at the top or in a
// wrapper's text_config; 0 where neither gives one as a number.
inline std::int64_t layer_count(const json& j) {
    const auto n = own_or_text(Node{j, "", ""}, "num_hidden_layers");
    return n && n->first.value().is_number_integer() ? n->first.value().get<std::int64_t>() : 0;
}

// A quantiser's one weights format `scheme` over a checkpoint: every linear layer takes it but
// those `kept` names, at torch_dtype. ridgeline holds a format for the attention (and recurrent
// mixers), one for the routed experts and one for the rest of the linear layers (shared
// experts, dense MLPs), so a list that keeps whole parts is priced exactly: NVIDIA's NVFP4
// releases keep attention (Gemma 4 31B, MiniMax-M2.5, GLM-5), some the shared experts and
// dense layers too (GLM-5.1, Qwen3.5), as Moonshot's INT4 Kimi-K2.5 does. A list that keeps the
// attention of some layers only prices every layer's at torch_dtype, and the source says so.
// `label` says where the scheme came from ("quantization_config modelopt").
inline CheckpointFormats apply_scheme(const json& j, const KeptModules& kept, Format scheme, Precision p, Format dtype,
                                      std::string source, const std::string& label, const char* list_key) {
    const bool experts = has_routed_experts(j);
    const std::int64_t layers = layer_count(j);
    p.weights = experts && kept.beside_experts ? dtype : scheme;
    if (experts) p.experts = scheme;
    p.attention = kept.attention() ? dtype : scheme;
    p.lm_head = kept.head ? dtype : scheme;  // unkept, a Linear the scheme quantises
    p.router_and_norms = dtype;  // quantisers convert linear layers only
    p.embeddings = dtype;
    const std::string kept_at = format_name(dtype);
    source += "; " + label + ": ";
    if (experts && p.weights != scheme) source += "routed experts " + format_name(scheme) + ", other linear layers " + format_name(p.weights);
    else source += "linear layers " + format_name(scheme);
    if (kept.attention()) {
        const bool partly = !kept.attention_everywhere && layers > 0 && kept.attention_layers < layers;
        source += ", attention " + kept_at + " (" + list_key + " keeps it" +
                  (partly ? " on " + std::to_string(kept.attention_layers) + " of " + std::to_string(layers) +
                                " layers; ridgeline prices every layer's at " + kept_at
                          : "") +
                  ")";
    }
    source += ", embeddings, norms and routers " + kept_at + ", lm_head " + format_name(*p.lm_head);
    return {p, source};
}

// One Model Optimizer quant_algo as a format: FP8 and FP8_PER_CHANNEL_PER_TOKEN (E4M3, a scale
// per tensor or channel), NVFP4 and W4A16_NVFP4 (E2M1 in groups of 16, an FP8 scale each),
// MXFP8 (E4M3 in blocks of 32, an 8-bit power-of-two scale each); the algorithms vLLM loads
// (vllm-project/vllm@00155cd modelopt.py QUANT_ALGOS) that are one format. `group_size`, where
// given beside it, must be the format's.
inline Format modelopt_algorithm(const Node& algo, const Node* group_size) {
    const std::string algos = "one of: FP8, FP8_PER_CHANNEL_PER_TOKEN, NVFP4, W4A16_NVFP4, MXFP8";
    std::string name = algo.string(algos);
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));  // ModelOpt may write lower case
    if (name == "FP8" || name == "FP8_PER_CHANNEL_PER_TOKEN") return formats::fp8;
    if (name == "MXFP8") return Format{Numeric::fp8, 8, 32};
    if (name == "NVFP4" || name == "W4A16_NVFP4") {
        if (group_size && !group_size->value().is_null() &&
            !(group_size->value().is_number_integer() && group_size->value().get<std::int64_t>() == 16))
            group_size->fail("16 (NVFP4 scales every 16 weights)");
        return formats::nvfp4;
    }
    algo.fail(algos);
}

// A checkpoint whose quantiser gives modules formats of their own (modelopt's MIXED_PRECISION
// quantized_layers; compressed-tensors groups of different schemes, each with its targets):
// `modules` names each module and its format. Each part ridgeline holds a format for (the
// attention and recurrent mixers, the routed experts, the other linear layers, the LM head)
// must have one; a part no module names stays at torch_dtype (as `ignore` keeps it), and
// attention named on some layers only is priced at torch_dtype on every layer, and said.
// NVIDIA's Qwen3.6 NVFP4 releases: attention FP8, MLPs, shared and routed experts and the head
// NVFP4. Modules of an MTP block or a vision tower are not costed.
inline CheckpointFormats mixed_formats(const json& j, const Node& where, const std::vector<std::pair<std::string, Format>>& modules,
                                       Precision p, Format dtype, std::string source, const std::string& label) {
    const std::int64_t layers = layer_count(j);
    enum Part { attention, experts, other, head, parts };
    const char* names[parts] = {"attention", "routed experts", "other linear layers", "lm_head"};
    std::optional<Format> format[parts];
    std::set<std::int64_t> attention_layers;
    bool attention_everywhere = false;
    for (const auto& [name, f] : modules) {
        if (not_costed(name, layers)) continue;
        Part part = other;
        if (names_head(name)) part = head;
        else if (name.find("experts") != std::string::npos && name.find("shared_expert") == std::string::npos) part = experts;
        else if (names_attention(name)) {
            part = attention;
            const std::int64_t layer = layer_index(name).first;
            if (layer < 0) attention_everywhere = true;
            else attention_layers.insert(layer);
        }
        if (format[part] && *format[part] != f)
            where.fail("one format for the " + std::string(names[part]) + " (" + name + " is " + format_name(f) + ", another " +
                       format_name(*format[part]) + "): ridgeline holds one for the attention, one for the routed experts and one "
                       "for the other linear layers; give --weights, --attention and --experts");
        format[part] = f;
    }
    const auto a = static_cast<std::int64_t>(attention_layers.size());
    const bool partly = format[attention] && !attention_everywhere && layers > 0 && a < layers;
    const bool routed = has_routed_experts(j);
    p.weights = format[other].value_or(dtype);
    p.attention = partly ? dtype : format[attention].value_or(dtype);
    if (routed) p.experts = format[experts].value_or(dtype);
    p.lm_head = format[head].value_or(dtype);
    p.router_and_norms = dtype;  // quantisers convert linear layers only
    p.embeddings = dtype;
    source += "; " + label + ": ";
    if (routed) source += "routed experts " + format_name(p.expert_format()) + ", ";
    source += (routed ? "other linear layers " : "linear layers ") + format_name(p.weights) + ", attention " +
              format_name(p.attention_format());
    if (partly)
        source += " (" + format_name(*format[attention]) + " on " + std::to_string(a) + " of " + std::to_string(layers) +
                  " layers; ridgeline prices every layer's at " + format_name(dtype) + ")";
    source += ", embeddings, norms and routers " + format_name(dtype) + ", lm_head " + format_name(*p.lm_head);
    return {p, source};
}

// Checkpoints whose quantization_config gives config_groups' weights schemes and an `ignore`
// list of modules (or patterns) kept at torch_dtype: compressed-tensors (llm-compressor's) and
// NVIDIA's Model Optimizer (quant_method "modelopt", the same groups). Groups of one scheme
// take apply_scheme; groups of different schemes (modelopt's MIXED_PRECISION) mixed_formats,
// by the modules each targets.
inline CheckpointFormats grouped_formats(const json& j, const Node& q, Precision p, Format dtype, std::string source,
                                                         const std::string& method) {
    const Node groups = q.need("config_groups", "an object of quantisation groups");
    groups.require_object("an object of quantisation groups");
    if (groups.value().empty()) groups.fail("at least one quantisation group");
    std::optional<Format> all;
    bool alike = true;
    std::vector<std::pair<std::string, Format>> modules;
    for (const auto& item : groups.value().items()) {
        const Node group = groups.at(item.key());
        const Format f = compressed_tensors_weights(group.need("weights", "a weights scheme object"));
        alike = alike && (!all || *all == f);
        all = all.value_or(f);
        if (group.has("targets") && group.at("targets").value().is_array())
            for (std::size_t i = 0; i < group.at("targets").value().size(); ++i)
                modules.emplace_back(group.at("targets").at(i).string("a module name or pattern (a string)"), f);
    }
    if (!alike) {
        // Groups of different schemes name their modules: each part's format is its targets'.
        for (const auto& [name, f] : modules)
            if (name == "Linear" || name.starts_with("re:"))
                groups.fail("targets named module by module where the groups' schemes differ (\"" + name +
                            "\" spans parts ridgeline gives formats of their own)");
        auto out = mixed_formats(j, groups, modules, p, dtype, std::move(source), "quantization_config " + method + " (groups)");
        out.source += kv_ignored(q, {"kv_cache_scheme"});
        return out;
    }
    KeptModules kept;
    if (q.has("ignore") && !q.at("ignore").value().is_null()) kept = kept_modules(q.at("ignore"), layer_count(j));
    auto out = apply_scheme(j, kept, *all, p, dtype, std::move(source), "quantization_config " + method, "ignore");
    out.source += kv_ignored(q, {"kv_cache_scheme"});
    return out;
}

// NVIDIA Model Optimizer's own form: one quant_algo (modelopt_algorithm) for every linear layer
// but those a list keeps, or MIXED_PRECISION's quantized_layers, a quant_algo a module
// (mixed_formats), as hf_quant_config.json's "quantization" object gives it (beside a
// config.json without a quantization_config: NVIDIA's FP8 and NVFP4 releases) or a
// config.json's quantization_config with quant_method "modelopt" and no config_groups.
// `list_key` is the list's name there ("exclude_modules", or "ignore" in a config.json); none
// means every linear layer, the head too.
inline CheckpointFormats modelopt_formats(const json& j, const Node& q, Precision p, Format dtype, std::string source,
                                                          const std::string& label, const char* list_key) {
    q.require_object("a quantization object");
    const Node a = q.need("quant_algo", "one of: FP8, FP8_PER_CHANNEL_PER_TOKEN, NVFP4, W4A16_NVFP4, MXFP8, MIXED_PRECISION");
    if (a.value().is_string() && a.value() == "MIXED_PRECISION") {
        // Each quantised module with its own quant_algo (and group_size); the rest at torch_dtype.
        const Node layers = q.need("quantized_layers", "an object of module names, each with its quant_algo");
        layers.require_object("an object of module names, each with its quant_algo");
        std::vector<std::pair<std::string, Format>> modules;
        for (const auto& item : layers.value().items()) {
            const Node m = layers.at(item.key());
            m.require_object("an object with the module's quant_algo");
            const auto size = m.has("group_size") ? std::optional<Node>(m.at("group_size")) : std::nullopt;
            modules.emplace_back(item.key(), modelopt_algorithm(m.need("quant_algo", "the module's quant_algo"), size ? &*size : nullptr));
        }
        auto out = mixed_formats(j, layers, modules, p, dtype, std::move(source), label + " MIXED_PRECISION");
        out.source += kv_ignored(q, {"kv_cache_quant_algo", "kv_cache_scheme"});
        return out;
    }
    const auto size = q.has("group_size") ? std::optional<Node>(q.at("group_size")) : std::nullopt;
    const Format scheme = modelopt_algorithm(a, size ? &*size : nullptr);
    KeptModules kept;
    if (q.has(list_key) && !q.at(list_key).value().is_null()) kept = kept_modules(q.at(list_key), layer_count(j));
    auto out = apply_scheme(j, kept, scheme, p, dtype, std::move(source), label + " " + a.value().get<std::string>(), list_key);
    out.source += kv_ignored(q, {"kv_cache_quant_algo", "kv_cache_scheme"});
    return out;
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
//  - "compressed-tensors": config_groups' weights schemes: nvfp4, fp8 or intN/gG; the LM head at
//    torch_dtype where "ignore" names lm_head (as llm-compressor writes it), else in the scheme's.
//  - "modelopt": as compressed-tensors (grouped_formats); without config_groups, its own form:
//    one quant_algo (modelopt_formats) or MIXED_PRECISION's quantized_layers (mixed_formats).
//  For both, what `ignore` keeps is read by part (apply_scheme): the attention (Precision::attention),
//  the shared experts and dense MLPs, the routed experts; groups of different schemes are read
//  by their targets (mixed_formats).
// With no quantization_config, `hf_quant` (an hf_quant_config.json beside the config.json, named
// `hf_quant_file`) gives Model Optimizer's formats, as vLLM and TensorRT-LLM read that file.
inline CheckpointFormats read_checkpoint_formats(const nlohmann::json& j, const std::string& file = "",
                                                 const nlohmann::json* hf_quant = nullptr, const std::string& hf_quant_file = "") {
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
    if (!quantization && hf_quant) {
        const Node h{*hf_quant, hf_quant_file, ""};
        h.require_object("an hf_quant_config.json object");
        if (h.has("producer") && h.at("producer").value().is_object() && h.at("producer").has("name")) {
            const Node producer = h.at("producer").at("name");
            if (producer.string("\"modelopt\"") != "modelopt") producer.fail("\"modelopt\" (NVIDIA Model Optimizer writes this file)");
        }
        return json_detail::modelopt_formats(j, h.need("quantization", "a quantization object"), p, dtype, source, "hf_quant_config.json",
                                             "exclude_modules");
    }
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
    } else if (method == "modelopt" && !q.has("config_groups") && q.has("quant_algo")) {
        return json_detail::modelopt_formats(j, q, p, dtype, source, "quantization_config modelopt",
                                             q.has("exclude_modules") ? "exclude_modules" : "ignore");
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

// read_checkpoint_formats' formats and their source.
inline std::pair<Precision, std::string> checkpoint_formats(const nlohmann::json& j, const std::string& file = "") {
    CheckpointFormats f = read_checkpoint_formats(j, file);
    return {f.precision, std::move(f.source)};
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

// The hf_quant_config.json NVIDIA's Model Optimizer writes beside a config.json (the same
// folder; "<x>_hf_quant_config.json" beside "<x>_config.json", as aiconfigurator keeps pairs),
// where it exists and the config.json names no quantization_config; none otherwise.
inline std::optional<std::filesystem::path> hf_quant_config_beside(const nlohmann::json& j, const std::filesystem::path& config) {
    namespace fs = std::filesystem;
    const std::string name = config.filename().string();
    if (!name.ends_with("config.json") || name.ends_with("hf_quant_config.json")) return std::nullopt;
    if (j.is_object() && json_detail::own_or_text(json_detail::Node{j, "", ""}, "quantization_config")) return std::nullopt;
    const fs::path beside = config.parent_path() / (name.substr(0, name.size() - 11) + "hf_quant_config.json");
    std::error_code ec;
    if (!fs::exists(beside, ec)) return std::nullopt;
    return beside;
}

// A model read from a config.json's JSON (`file`, named `name`), with the formats it says its
// checkpoint ships in, or `hf_quant` (an hf_quant_config.json's, named `hf_quant_file`) where it
// has no quantization_config. The CLI, Python and the page read a model so.
inline LoadedModel loaded_model(const nlohmann::json& j, const std::string& file, const std::string& name,
                                const nlohmann::json* hf_quant = nullptr, const std::string& hf_quant_file = "") {
    ConfigReading reading = read_config(j, file, name);
    LoadedModel out{reading.model, {}, {}, std::move(reading.notes)};
    CheckpointFormats f = read_checkpoint_formats(j, file, hf_quant, hf_quant_file);
    out.precision = f.precision;
    out.precision_source = std::move(f.source);
    out.precision_source += state_dtype_source(out.model, out.precision);
    return out;
}

// A model read from its file's JSON, with the formats the file (and an hf_quant_config.json
// beside it) says its checkpoint ships in.
inline LoadedModel loaded_model(const nlohmann::json& j, const ResolvedPreset& r) {
    if (const auto beside = hf_quant_config_beside(j, r.file)) {
        const nlohmann::json q = read_json_file(*beside);
        return loaded_model(j, r.file.string(), r.name, &q, beside->string());
    }
    return loaded_model(j, r.file.string(), r.name);
}

// load_model, with the formats the file gives its checkpoint.
inline LoadedModel load_model_with_formats(std::string_view name_or_path) {
    const ResolvedPreset r = resolve(PresetKind::model, name_or_path);
    return loaded_model(read_json_file(r.file), r);
}

}  // namespace ridgeline
