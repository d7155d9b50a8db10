// The config.json families ridgeline reads, one line each: the model_type, the ...ForCausalLM
// class its files name (a file whose model_type is unknown but whose architectures names one of
// these is read as that family, and says so), whether its embeddings are tied when the key is
// absent, and its reader (family_*.hpp). Adding a family is one header and one line here.
#pragma once

#include <string>
#include <string_view>

#include "config_reader.hpp"
#include "family_deepseek.hpp"
#include "family_gemma.hpp"
#include "family_gemma4.hpp"
#include "family_glm4_moe.hpp"
#include "family_gpt_oss.hpp"
#include "family_gptj.hpp"
#include "family_granitemoe.hpp"
#include "family_granitemoehybrid.hpp"
#include "family_llama.hpp"
#include "family_llama4.hpp"
#include "family_minimax_m2.hpp"
#include "family_nemotron_h.hpp"
#include "family_nemotron_nas.hpp"
#include "family_phi3.hpp"
#include "family_qwen3_next.hpp"

namespace ridgeline::json_detail {

struct Family {
    std::string_view model_type;
    std::string_view architecture;  // "" where the family ships only inside a wrapper's text_config
    bool tied_by_default;           // tie_word_embeddings when absent
    void (*read)(const ConfigReader&, Model&);
    KeyMap file_key = nullptr;      // the file's names for the common sizes, where they differ
};

inline constexpr Family families[] = {
    {"llama", "LlamaForCausalLM", false, read_llama_like},
    {"mistral", "MistralForCausalLM", false, read_llama_like},
    {"mixtral", "MixtralForCausalLM", false, read_llama_like},
    {"qwen2", "Qwen2ForCausalLM", false, read_llama_like},
    {"qwen3", "Qwen3ForCausalLM", false, read_llama_like},
    {"qwen3_moe", "Qwen3MoeForCausalLM", false, read_llama_like},
    {"qwen3_vl_text", "", false, read_llama_like},
    {"qwen3_vl_moe_text", "", false, read_llama_like},
    {"mimo", "MiMoForCausalLM", false, read_llama_like},
    {"deepseek_v2", "DeepseekV2ForCausalLM", false, read_deepseek},
    {"deepseek_v3", "DeepseekV3ForCausalLM", false, read_deepseek},
    {"deepseek_v32", "DeepseekV32ForCausalLM", false, read_deepseek},
    {"gpt_oss", "GptOssForCausalLM", false, read_gpt_oss},
    {"gptj", "GPTJForCausalLM", false, read_gptj, gptj_key},
    {"gemma2", "Gemma2ForCausalLM", true, read_gemma},
    {"gemma3_text", "Gemma3ForCausalLM", true, read_gemma},
    {"gemma4_text", "Gemma4ForCausalLM", true, read_gemma4},
    {"phi3", "Phi3ForCausalLM", false, read_phi3},
    {"phimoe", "PhimoeForCausalLM", false, read_phi3},
    {"llama4_text", "Llama4ForCausalLM", false, read_llama4},
    {"glm4_moe", "Glm4MoeForCausalLM", false, read_glm4_moe},
    {"qwen3_next", "Qwen3NextForCausalLM", false, read_qwen3_next},
    {"qwen3_5_text", "", false, read_qwen3_next},
    {"qwen3_5_moe_text", "", false, read_qwen3_next},
    {"granitemoe", "GraniteMoeForCausalLM", false, read_granitemoe},
    {"nemotron-nas", "DeciLMForCausalLM", false, read_nemotron_nas},
    {"granitemoehybrid", "GraniteMoeHybridForCausalLM", false, read_granitemoehybrid},
    {"nemotron_h", "NemotronHForCausalLM", false, read_nemotron_h},
    {"minimax_m2", "MiniMaxM2ForCausalLM", false, read_minimax_m2},
    {"glm_moe_dsa", "GlmMoeDsaForCausalLM", false, read_deepseek},
};

inline const Family* find_family(std::string_view model_type) {
    for (const Family& f : families)
        if (f.model_type == model_type) return &f;
    return nullptr;
}

inline const Family* family_for_architecture(std::string_view architecture) {
    for (const Family& f : families)
        if (!f.architecture.empty() && f.architecture == architecture) return &f;
    return nullptr;
}

// For messages: every model_type read, and ridgeline's own form.
inline std::string family_list() {
    std::string s;
    for (const Family& f : families) s += (s.empty() ? "" : ", ") + std::string(f.model_type);
    return s + ", ridgeline";
}

}  // namespace ridgeline::json_detail
