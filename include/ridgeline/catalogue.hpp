// Files and the preset catalogue: reading a JSON file safely (a regular file of at most 64 MiB,
// no key twice in one object), where data/ is, the presets in it, and what a name or path
// given by a user means.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(RIDGELINE_DATA_DIR_FROM_MODULE) && defined(__unix__)
#include <dlfcn.h>  // dladdr: where a loadable module was loaded from
#endif

#include "hardware_json.hpp"
#include "json_node.hpp"
#include "model_json.hpp"

namespace ridgeline {

// ---------------------------------------------------------------------------------------------
// Files and the preset catalogue
// ---------------------------------------------------------------------------------------------

namespace json_detail {

// Rejects a key seen twice in one object (nlohmann's parse would keep the last silently), giving
// the JSON pointer of the second and both members' positions in the object, counted from 1, and
// nesting deeper than max_depth. A SAX pass of its own, before the document is built: nlohmann's
// parse with a callback rescans each array for discarded values as every element object ends,
// so a 640 KB array of 160,000 empty objects took 14 s (quadratic), where this pass is linear.
class DuplicateKeys {
public:
    static constexpr std::size_t max_depth = 1000;
    explicit DuplicateKeys(std::string file) : file_(std::move(file)) {}

    bool null() { return element_done(); }
    bool boolean(bool) { return element_done(); }
    bool number_integer(json::number_integer_t) { return element_done(); }
    bool number_unsigned(json::number_unsigned_t) { return element_done(); }
    bool number_float(json::number_float_t, const json::string_t&) { return element_done(); }
    bool string(json::string_t&) { return element_done(); }
    bool binary(json::binary_t&) { return element_done(); }
    bool start_object(std::size_t) { return open(false); }
    bool start_array(std::size_t) { return open(true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(json::string_t& k) {
        Frame& f = frames_.back();
        f.key = k;
        const std::size_t ordinal = f.keys.size() + 1;
        const auto [at, inserted] = f.keys.emplace(f.key, ordinal);
        if (!inserted)
            throw error(file_, pointer(), "a second " + printable(f.key) + " (the key appears twice in the same object, as members " +
                                              std::to_string(at->second) + " and " + std::to_string(ordinal) + ")",
                        "each key once");
        return true;
    }
    // Syntax errors, thrown as nlohmann's parse would throw them; a number out of range (1e999)
    // at its JSON pointer, which nlohmann's message lacks.
    template <class Exception>
    bool parse_error(std::size_t, const std::string& token, const Exception& e) {
        if constexpr (std::is_same_v<Exception, json::out_of_range>)
            throw error(file_, pointer(), printable(token) + " (beyond the range a double holds)", "a finite number");
        throw e;
    }

private:
    struct Frame {
        bool array;
        std::size_t index;  // arrays: the element being read
        std::string key;    // objects: the member being read
        std::unordered_map<std::string, std::size_t> keys;  // objects: each key's position
    };
    bool open(bool array) {
        if (frames_.size() == max_depth)
            throw error(file_, "", "values nested deeper than " + std::to_string(max_depth) + " levels",
                        "JSON nested at most " + std::to_string(max_depth) + " deep");
        frames_.push_back(Frame{array, 0, {}, {}});
        return true;
    }
    bool close() {
        frames_.pop_back();
        return element_done();
    }
    bool element_done() {
        if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
        return true;
    }
    [[nodiscard]] std::string pointer() const {
        std::string p;
        for (const Frame& f : frames_) {  // piece by piece: "/" + string trips g++ 12's -Wrestrict at -O2
            p += '/';
            p += f.array ? std::to_string(f.index) : pointer_token(f.key);
        }
        return p;
    }
    std::string file_;
    std::vector<Frame> frames_;
};

// Python's json module writes a non-finite float as a bare NaN, Infinity or -Infinity, which is
// not JSON; transformers' Mamba-2 configs carry one ("time_step_limit": [0.0, Infinity] in the
// Hub's Nemotron-H and Bamba files). Each such value (after a ':', ',' or '[', outside strings) is
// read as the string "NaN", "Infinity" or "-Infinity": a key ridgeline reads then names it as a
// string that is not the number it expects, and none becomes a NaN or an infinity.
inline std::string quote_python_constants(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 16);
    bool in_string = false, escaped = false;
    char previous = '\0';  // the last character outside strings that is not whitespace
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    const auto ends_word = [&](std::size_t i) {
        if (i >= text.size()) return true;
        const char c = text[i];
        return !(c == '_' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'));
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            out += c;
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (previous == ':' || previous == ',' || previous == '[') {
            bool quoted = false;
            for (const std::string_view word : {std::string_view{"NaN"}, std::string_view{"Infinity"}, std::string_view{"-Infinity"}})
                if (text.substr(i, word.size()) == word && ends_word(i + word.size())) {
                    out += '"';
                    out += word;
                    out += '"';
                    i += word.size() - 1;
                    previous = '"';
                    quoted = true;
                    break;
                }
            if (quoted) continue;
        }
        out += c;
        if (c == '"') in_string = true;
        if (!is_space(c)) previous = c;
    }
    return out;
}

}  // namespace json_detail

// Parses JSON text; bad JSON, or a key twice in one object, is a ridgeline::error naming `file`.
// Python's bare NaN, Infinity and -Infinity values are read as strings (quote_python_constants).
inline nlohmann::json parse_json_text(std::string_view text, const std::string& file = "") {
    const std::string name = json_detail::printable(file);
    json_detail::DuplicateKeys duplicates{name};
    const bool python = text.find("NaN") != std::string_view::npos || text.find("Infinity") != std::string_view::npos;
    const std::string quoted = python ? json_detail::quote_python_constants(text) : std::string{};
    if (python) text = quoted;
    try {
        nlohmann::json::sax_parse(text, &duplicates);
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // syntax errors, and numbers out of range
        // nlohmann quotes the bytes it stopped at, which may not be UTF-8.
        throw error(name, "", "text that is not JSON (" + json_detail::printable(e.what()) + ")", "a JSON document");
    }
}

// The largest JSON file read_json_file reads: ten times the largest config.json in use.
inline constexpr std::uintmax_t json_file_limit = std::uintmax_t{64} << 20;  // 64 MiB

// Parses a JSON file; a missing file or bad JSON is a ridgeline::error naming the file. Only a
// regular file (or a link to one) is read: a FIFO, a device, a directory or a socket is refused
// before it is opened, so nothing blocks or reads forever. A file over json_file_limit is refused
// before reading, and so is one that grows past it while it is read.
inline nlohmann::json read_json_file(const std::filesystem::path& file) {
    namespace fs = std::filesystem;
    const std::string name = json_detail::printable(file.string());
    const std::string limit = "a JSON file of at most 64 MiB (67108864 bytes)";
    std::error_code ec;
    const fs::file_status st = fs::status(file, ec);
    if (st.type() == fs::file_type::not_found) throw error(name, "", "no such file", "a readable JSON file");
    if (ec || !fs::exists(st)) throw error(name, "", "a file that cannot be opened", "a readable JSON file");
    if (!fs::is_regular_file(st)) {
        const char* what = fs::is_directory(st)       ? "a directory"
                           : fs::is_fifo(st)          ? "a FIFO"
                           : fs::is_character_file(st) ? "a character device"
                           : fs::is_block_file(st)    ? "a block device"
                           : fs::is_socket(st)        ? "a socket"
                                                      : "something";
        throw error(name, "", std::string(what) + ", not a regular file", "a regular JSON file");
    }
    const std::uintmax_t size = fs::file_size(file, ec);
    if (!ec && size > json_file_limit) throw error(name, "", "a file of " + std::to_string(size) + " bytes", limit);
    std::ifstream in(file, std::ios::binary);
    if (!in) throw error(name, "", "a file that cannot be opened", "a readable JSON file");
    std::string text;
    char chunk[65536];
    while (in) {
        in.read(chunk, sizeof chunk);
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
        if (text.size() > json_file_limit) throw error(name, "", "a file that grew past 64 MiB while it was read", limit);
    }
    if (in.bad()) throw error(name, "", "a file that cannot be read", "a readable JSON file");
    return parse_json_text(text, name);
}

// Where presets are looked up, the first that exists winning: $RIDGELINE_DATA_DIR if set (and
// then it must exist); else share/ridgeline next to the running program's bin/ (Linux), so an
// installed prefix still works after it is moved (for a loadable module built with
// RIDGELINE_DATA_DIR_FROM_MODULE, such as the Python module, relative to the module's own file
// instead, since the running program is the interpreter); else the installed share/ridgeline
// known at compile time (the package config sets it from where find_package found ridgeline);
// else the source tree's data/ (in-tree builds).
inline std::filesystem::path data_directory() {
    namespace fs = std::filesystem;
    if (const char* env = std::getenv("RIDGELINE_DATA_DIR"); env && *env) {
        if (!fs::is_directory(env))
            throw error("", "RIDGELINE_DATA_DIR", json_detail::printable(env), "a directory holding hardware/ and models/");
        return env;
    }
    std::vector<fs::path> candidates;
#if defined(RIDGELINE_DATA_DIR_FROM_MODULE) && defined(__unix__)
    {
        // The file this code was loaded from: dladdr on an object of its own.
        static const char anchor = 0;
        Dl_info info{};
        if (dladdr(&anchor, &info) != 0 && info.dli_fname && *info.dli_fname) {
            std::error_code ec;
            const fs::path module = fs::absolute(info.dli_fname, ec);
            if (!ec) candidates.push_back((module.parent_path() / RIDGELINE_DATA_DIR_FROM_MODULE).lexically_normal());
        }
    }
#elif defined(__linux__)
    {
        // CMAKE_INSTALL_DATADIR/ridgeline relative to CMAKE_INSTALL_BINDIR, as CMakeLists.txt sets it.
#ifdef RIDGELINE_DATA_DIR_FROM_BINDIR
        const fs::path from_bindir = RIDGELINE_DATA_DIR_FROM_BINDIR;
#else
        const fs::path from_bindir = "../share/ridgeline";
#endif
        std::error_code ec;  // no /proc (chroots, sandboxes): skip this place, do not throw
        const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
        if (!ec && exe.is_absolute())
            candidates.push_back((exe.parent_path() / from_bindir).lexically_normal());
    }
#endif
#ifdef RIDGELINE_INSTALLED_DATA_DIR
    candidates.emplace_back(RIDGELINE_INSTALLED_DATA_DIR);
#endif
#ifdef RIDGELINE_SOURCE_DATA_DIR
    candidates.emplace_back(RIDGELINE_SOURCE_DATA_DIR);
#endif
    std::string tried;
    for (const auto& c : candidates) {
        std::error_code ec;
        if (fs::is_directory(c, ec)) return c;
        tried += (tried.empty() ? "" : ", ") + c.string();
    }
    throw error("", "data directory", tried.empty() ? "nothing" : "nothing at " + json_detail::printable(tried),
                "RIDGELINE_DATA_DIR set to ridgeline's data/ (a program built outside CMake needs it), or ridgeline installed");
}

// The kinds of preset, each a folder of JSON files under the data directory.
enum class PresetKind { hardware, model, efficiency, measurements, draft_head };

inline const char* preset_folder(PresetKind kind) {
    switch (kind) {
        case PresetKind::hardware: return "hardware";
        case PresetKind::model: return "models";
        case PresetKind::efficiency: return "efficiency";
        case PresetKind::measurements: return "measurements";
        case PresetKind::draft_head: return "drafts";
    }
    return "";
}

// How an error names the argument: "hardware preset", "efficiency preset", ...
inline std::string preset_what(PresetKind kind) {
    switch (kind) {
        case PresetKind::hardware: return "hardware preset";
        case PresetKind::model: return "model preset";
        case PresetKind::efficiency: return "efficiency preset";
        case PresetKind::measurements: return "measurement set";
        case PresetKind::draft_head: return "draft-head preset";
    }
    return "";
}

// Whether a preset argument is a path ("./my-gpu.json", "cfg/config.json", "./Qwen3-8B")
// rather than a name.
inline bool looks_like_path(std::string_view s) {
    return s.find('/') != std::string_view::npos || (s.size() > 5 && s.ends_with(".json"));
}

inline std::vector<std::string> list_presets(PresetKind kind) {
    namespace fs = std::filesystem;
    const fs::path dir = data_directory() / preset_folder(kind);
    std::vector<std::string> names;
    if (fs::is_directory(dir))
        for (const auto& e : fs::directory_iterator(dir))
            if (e.is_regular_file() && e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

// What a user's argument names: the JSON file to read and the name it gets.
struct ResolvedPreset {
    std::filesystem::path file;
    std::string name;  // the preset's name, the file's name less ".json", or the directory's name
};

namespace json_detail {
// A path: for a model (checkpoint_directory) a directory means its config.json, named after the
// directory; other kinds read the path as given, so a directory is refused as not a file. A
// file is named after its whole name less a ".json" ending ("llama-3.1-8b.json" is
// "llama-3.1-8b"; a config.json after its directory).
inline ResolvedPreset resolve_path(const std::string& s, bool checkpoint_directory) {
    namespace fs = std::filesystem;
    fs::path p(s);
    std::error_code ec;
    if (checkpoint_directory && fs::is_directory(p, ec)) {
        const fs::path dir = p.lexically_normal();
        const fs::path named = dir.has_filename() ? dir : dir.parent_path();
        std::string name = named.filename().string();
        if (name.empty() || name == "." || name == "..") name = fs::absolute(dir, ec).lexically_normal().filename().string();
        if (name.empty()) name = "model";
        return {p / "config.json", name};
    }
    std::string name = p.filename().string();
    if (name.size() > 5 && name.ends_with(".json")) name.resize(name.size() - 5);
    if (name == "config" && p.has_parent_path()) {
        const std::string dir = fs::absolute(p, ec).lexically_normal().parent_path().filename().string();
        if (!dir.empty()) name = dir;
    }
    return {p, name};
}
}  // namespace json_detail

// `names`, the closest to `s` first, ignoring case: names `s` begins, then names that contain it
// or that it contains (fewest edits first among them: "gb200-nvl72" lists gb200 before b200),
// then fewest single-character edits; as "a, b, c".
inline std::string closest_first(std::vector<std::string> names, const std::string& s) {
    const std::string wanted = json_detail::ascii_lower(s);
    const auto score = [&](const std::string& n) -> std::pair<int, std::size_t> {
        const std::string l = json_detail::ascii_lower(n);
        if (l.starts_with(wanted)) return {0, 0};
        // What was typed holds the name ("v100-sxm2-32gb" for v100), or the other way round.
        const std::size_t edits = json_detail::edit_distance(l, wanted);
        if (l.find(wanted) != std::string::npos || wanted.find(l) != std::string::npos) return {1, edits};
        return {2, edits};
    };
    std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) { return score(a) < score(b); });
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return list;
}

// A preset name ("h100-sxm", "vllm-h200", "published") or a path to a JSON file ("./my-gpu.json")
// or, for models, to a checkpoint directory holding a config.json ("./Qwen3-8B"). A bare name
// is a preset; a bare name that is also a file or directory here, and no preset, is that file;
// one that is both is refused, naming both, since either reading could be the one meant.
inline ResolvedPreset resolve(PresetKind kind, std::string_view name_or_path) {
    namespace fs = std::filesystem;
    const std::string s(name_or_path);
    if (looks_like_path(s)) return json_detail::resolve_path(s, kind == PresetKind::model);
    auto names = list_presets(kind);
    const bool preset = std::find(names.begin(), names.end(), s) != names.end();
    std::error_code ec;
    const bool here = !s.empty() && fs::exists(fs::path(s), ec);
    const std::string what = preset_what(kind);
    if (preset && here)
        throw error("", what, "\"" + json_detail::printable(s) + "\"",
                    "a name that is not also a file or directory here: write ./" + json_detail::printable(s) +
                        " for the one here, or move it, to use the preset");
    if (here) return json_detail::resolve_path(s, kind == PresetKind::model);
    if (!preset) {
        if (names.empty())
            throw error("", what, "\"" + json_detail::printable(s) + "\"",
                        "a preset in " + json_detail::printable((data_directory() / preset_folder(kind)).string()) + ", which has none (is the data directory right?)");
        throw error("", what, "\"" + json_detail::printable(s) + "\"", "one of (closest first): " + closest_first(names, s));
    }
    return {data_directory() / preset_folder(kind) / (s + ".json"), s};
}

// The file alone, for callers that name things themselves.
inline std::filesystem::path resolve_preset(PresetKind kind, std::string_view name_or_path) {
    return resolve(kind, name_or_path).file;
}

inline Hardware load_hardware(std::string_view name_or_path) {
    const auto file = resolve(PresetKind::hardware, name_or_path).file;
    return hardware_from_json(read_json_file(file), file.string());
}

inline Model load_model(std::string_view name_or_path) {
    const ResolvedPreset r = resolve(PresetKind::model, name_or_path);
    return model_from_config(read_json_file(r.file), r.file.string(), r.name);
}

}  // namespace ridgeline
