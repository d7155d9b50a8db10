// Keeps the README from going stale: every quoted command and program output is produced again
// and compared, every preset is in its tables, and every JSON key the CLI prints is named in it.
//     check_readme README.md CLI BIN_DIR [OPTIONAL_PROGRAM...]
// Rules:
//  - "    $ ridgeline ARGS" followed by indented lines: the lines are the first lines of what
//    `CLI ARGS` prints (stdout and stderr); a quoted line ending in "..." matches any line it begins.
//  - "<!-- output of: PROGRAM -->" before a block (fenced, indented, or a Markdown table): each of its lines appears in
//    PROGRAM's output, in order (the README may leave lines out). Where CTest already diffs
//    PROGRAM's whole output against tests/examples/PROGRAM.expected (beside the README), that
//    file is read instead of running PROGRAM again (the accuracy table takes minutes); the two
//    checks together say the same. Otherwise PROGRAM is run from BIN_DIR; one
//    named after BIN_DIR on the command line may be absent (the Python example, when the build
//    has no Python module): then its quote is skipped, and said to be.
//  - Every preset `ridgeline list` shows is named in the README, in backticks.
//  - Every key of the JSON that decode, ridge, capacity, generate and plan print is named in it.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {
int failures = 0;
void fail(const std::string& what) {
    std::cerr << "README: " << what << "\n";
    ++failures;
}

std::vector<std::string> run(const std::string& command) {
    std::vector<std::string> lines;
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((command + " 2>&1").c_str(), "r"), pclose);
    if (!pipe) return lines;
    std::string line;
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), buf.size(), pipe.get())) {
        line += buf.data();
        if (!line.empty() && line.back() == '\n') {
            line.pop_back();
            lines.push_back(line);
            line.clear();
        }
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

bool matches(const std::string& quoted, const std::string& actual) {
    if (quoted.size() >= 3 && quoted.ends_with("...")) return actual.starts_with(quoted.substr(0, quoted.size() - 3));
    return quoted == actual;
}

std::string rtrim(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
    return s;
}

void json_keys(const nlohmann::json& j, std::set<std::string>& keys) {
    if (j.is_object())
        for (const auto& [k, v] : j.items()) {
            keys.insert(k);
            json_keys(v, keys);
        }
    else if (j.is_array())
        for (const auto& v : j) json_keys(v, keys);
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: check_readme README.md CLI BIN_DIR [OPTIONAL_PROGRAM...]\n";
        return 2;
    }
    const std::string cli = argv[2], bin = argv[3];
    const std::set<std::string> optional(argv + 4, argv + argc);
    std::ifstream in(argv[1]);
    std::vector<std::string> readme;
    for (std::string line; std::getline(in, line);) readme.push_back(rtrim(line));
    std::string text;
    for (const auto& l : readme) text += l + "\n";

    for (std::size_t i = 0; i < readme.size(); ++i) {
        const std::string& line = readme[i];
        // A quoted command and its output.
        if (line.starts_with("    $ ridgeline ")) {
            const std::string args = line.substr(16);
            std::vector<std::string> quoted;
            for (std::size_t k = i + 1; k < readme.size() && readme[k].starts_with("    ") && !readme[k].starts_with("    $ "); ++k)
                quoted.push_back(readme[k].substr(4));
            const auto actual = run(cli + " " + args);
            for (std::size_t k = 0; k < quoted.size(); ++k)
                if (k >= actual.size() || !matches(quoted[k], rtrim(actual[k])))
                    fail("line " + std::to_string(i + 2 + k) + ": `ridgeline " + args + "` prints\n  " +
                         (k < actual.size() ? actual[k] : "(nothing)") + "\nnot\n  " + quoted[k]);
        }
        // A program's output, quoted in part.
        if (line.starts_with("<!-- output of: ")) {
            const std::string program = line.substr(16, line.find(" -->") - 16);
            std::size_t k = i + 1;
            while (k < readme.size() && readme[k].empty()) ++k;
            std::vector<std::string> quoted;
            if (k < readme.size() && readme[k].starts_with("```")) {
                for (++k; k < readme.size() && !readme[k].starts_with("```"); ++k) quoted.push_back(readme[k]);
            } else if (k < readme.size() && readme[k].starts_with("|")) {  // a Markdown table the program prints
                for (; k < readme.size() && readme[k].starts_with("|"); ++k) quoted.push_back(readme[k]);
            } else {
                for (; k < readme.size() && readme[k].starts_with("    "); ++k) quoted.push_back(readme[k].substr(4));
            }
            const std::filesystem::path golden = std::filesystem::path(argv[1]).parent_path() / "tests" / "examples" / (program + ".expected");
            std::vector<std::string> actual;
            if (std::filesystem::exists(golden)) {
                std::ifstream g(golden);
                for (std::string l; std::getline(g, l);) actual.push_back(l);
            } else if (optional.contains(program) && !std::filesystem::exists(bin + "/" + program)) {
                std::cout << "README: " << program << " is not built: its output quoted at line " << i + 1 << " is not checked\n";
                continue;
            } else {
                actual = run(bin + "/" + program);
            }
            std::size_t at = 0;
            for (const auto& q : quoted) {
                while (at < actual.size() && !matches(q, rtrim(actual[at]))) ++at;
                if (at == actual.size()) {
                    fail("the output of " + program + " quoted at line " + std::to_string(i + 1) + " has no line (in order)\n  " + q);
                    break;
                }
                ++at;
            }
        }
    }

    // Every preset, by name.
    for (const char* kind : {"hardware", "models"})
        for (const auto& row : run(cli + " list " + kind + " --format csv")) {
            const std::string name = row.substr(0, row.find(','));
            if (name == "name" || name == "preset" || name.empty()) continue;
            if (text.find("`" + name + "`") == std::string::npos) fail(std::string(kind) + " preset `" + name + "` is not in the README");
        }

    // Every JSON key the subcommands print.
    std::set<std::string> keys;
    for (const char* args : {"decode -m llama-3.1-8b", "ridge -m llama-3.1-8b", "capacity -m llama-3.1-8b -c 4096",
                             "generate -m llama-3.1-8b --prompt 64 --new 8",
                             "plan -m llama-3.1-8b -H h100-sxm --users 8 --price h100-sxm=2 --top 1"}) {
        std::string out;
        for (const auto& l : run(cli + " " + args + " --format json")) out += l + "\n";
        try {
            json_keys(nlohmann::json::parse(out), keys);
        } catch (const std::exception&) {
            fail(std::string("`ridgeline ") + args + " --format json` is not JSON");
        }
    }
    for (const auto& k : keys)
        if (text.find("`" + k + "`") == std::string::npos) fail("JSON key `" + k + "` is not named in the README");

    if (failures > 0) std::cerr << failures << " README problem(s)\n";
    return failures == 0 ? 0 : 1;
}
