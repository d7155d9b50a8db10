// The CLI's machine outputs against the library: its JSON equals what the library computes for
// the same inputs, and its SVG is well-formed XML with the elements a roofline needs.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <ridgeline/json.hpp>
#include <ridgeline/ridgeline.hpp>
#include <ridgeline/roofline_svg.hpp>

#include "../../examples/ridgeline/table.hpp"

using namespace ridgeline;

namespace {
struct Run {
    int status;
    std::string out;
};
Run run_cli(const std::string& args, bool with_stderr = false) {
    const std::string command = std::string(RIDGELINE_CLI_PATH) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    REQUIRE(pipe);
    std::string out;
    std::array<char, 4096> buf{};
    while (const auto n = std::fread(buf.data(), 1, buf.size(), pipe.get())) out.append(buf.data(), n);
    const int status = pclose(pipe.release());
    return {WEXITSTATUS(status), out};
}

// A minimal XML reader: elements with attributes, text skipped; throws on anything malformed.
struct Element {
    std::string name;
    std::map<std::string, std::string> attributes;
    std::vector<Element> children;
};
class Xml {
public:
    explicit Xml(std::string text) : s_(std::move(text)) {}
    Element document() {
        skip_space();
        if (s_.compare(i_, 5, "<?xml") == 0) i_ = s_.find("?>", i_) + 2;
        skip_space();
        Element root = element();
        skip_space();
        if (i_ != s_.size()) fail("content after the root element");
        return root;
    }

private:
    [[noreturn]] void fail(const std::string& why) { throw std::runtime_error("XML: " + why + " at " + std::to_string(i_)); }
    void skip_space() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    std::string name() {
        const std::size_t start = i_;
        while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' || s_[i_] == ':' || s_[i_] == '_')) ++i_;
        if (i_ == start) fail("expected a name");
        return s_.substr(start, i_ - start);
    }
    Element element() {
        if (s_[i_] != '<') fail("expected '<'");
        ++i_;
        Element e;
        e.name = name();
        for (;;) {
            skip_space();
            if (s_.compare(i_, 2, "/>") == 0) return i_ += 2, e;
            if (s_[i_] == '>') break;
            const std::string key = name();
            if (s_[i_++] != '=' || s_[i_++] != '"') fail("expected =\" after attribute " + key);
            const std::size_t end = s_.find('"', i_);
            if (end == std::string::npos) fail("unterminated attribute");
            const std::string value = s_.substr(i_, end - i_);
            if (value.find('<') != std::string::npos) fail("'<' in an attribute");
            if (!e.attributes.emplace(key, value).second) fail("duplicate attribute " + key);
            i_ = end + 1;
        }
        ++i_;
        for (;;) {
            while (i_ < s_.size() && s_[i_] != '<') {
                if (s_[i_] == '&' && s_.compare(i_, 5, "&amp;") && s_.compare(i_, 4, "&lt;") && s_.compare(i_, 4, "&gt;") &&
                    s_.compare(i_, 6, "&quot;"))
                    fail("a bare '&'");
                ++i_;
            }
            if (i_ >= s_.size()) fail("unterminated element " + e.name);
            if (s_.compare(i_, 2, "</") == 0) {
                i_ += 2;
                if (name() != e.name) fail("mismatched end tag for " + e.name);
                if (s_[i_++] != '>') fail("expected '>'");
                return e;
            }
            e.children.push_back(element());
        }
    }
    std::string s_;
    std::size_t i_ = 0;
};

void collect(const Element& e, const std::string& name, const std::string& cls, std::vector<const Element*>& out) {
    if (e.name == name && (cls.empty() || (e.attributes.count("class") && e.attributes.at("class") == cls))) out.push_back(&e);
    for (const auto& c : e.children) collect(c, name, cls, out);
}
std::size_t count(const Element& root, const std::string& name, const std::string& cls = "") {
    std::vector<const Element*> found;
    collect(root, name, cls, found);
    return found.size();
}
}  // namespace

TEST_CASE("cli: a value that is not zero is never shown as zero", "[cli]") {
    // With one decimal, 0.05 and up round to 0.1; below it a table would print 0.0 for, say, a
    // step of 55,000 s (1.8e-05 tok/s), so two significant figures say how small it is instead.
    CHECK(cli::fixed(0, 1) == "0.0");
    CHECK(cli::fixed(0.05, 1) == "0.1");
    CHECK(cli::fixed(0.049, 1) == "0.049");
    CHECK(cli::fixed(1.8e-5, 1) == "1.8e-05");
    CHECK(cli::fixed(-0.0004, 2, true) == "-0.0004");
    CHECK(cli::fixed(0.0004, 3, true) == "+0.0004");
    CHECK(cli::fixed(215.53, 1) == "215.5");
    CHECK(cli::fixed(0.5, 0) == "0.5");  // {:.0f} rounds half to even: "0"
    CHECK(cli::fixed(-0.5, 0) == "-0.5");
    CHECK(cli::fixed(1.5, 0) == "2");
    CHECK(cli::shown(0.00012, 3, "{} ms") == "0.00012 ms");
}

TEST_CASE("cli: decode JSON equals the library's numbers, in SI units, with inputs echoed", "[cli]") {
    const Run r = run_cli("decode -m llama-3.1-8b -b 1,64 -c 4096,32768 --format json");
    REQUIRE(r.status == 0);
    const auto rows = nlohmann::json::parse(r.out);
    REQUIRE(rows.size() == 4);
    const Hardware h = load_hardware("h100-sxm");
    const Model m = load_model("llama-3.1-8b");
    for (const auto& row : rows) {
        const Workload w{.batch = row.at("batch").get<std::int64_t>(), .context = row.at("context_tokens").get<std::int64_t>()};
        const DecodeStep d = decode_step(h, m, w);
        CHECK(row.at("hardware") == "h100-sxm");
        CHECK(row.at("model") == "llama-3.1-8b");
        CHECK(row.at("weights") == "bf16");
        CHECK(row.at("tp") == 1);
        CHECK(row.at("weight_bytes").get<double>() == Approx(d.weight_bytes.in(bytes)).epsilon(1e-12));
        CHECK(row.at("bytes_per_step").get<double>() == Approx(d.total_bytes.in(bytes)).epsilon(1e-12));
        CHECK(row.at("step_time_s").get<double>() == Approx(d.step_time.in(s)).epsilon(1e-12));
        CHECK(row.at("tokens_per_s").get<double>() == Approx(d.tokens_per_s.in(per_s)).epsilon(1e-12));
        CHECK(row.at("total_tokens_per_s").get<double>() == Approx(d.total_tokens_per_s.in(per_s)).epsilon(1e-12));
        CHECK(row.at("bound") == name_of(d.bound));
    }
}

TEST_CASE("cli: ridge JSON says never with null, and carries n*", "[cli]") {
    const Run r = run_cli("ridge -m qwen3-32b -c 0,4096 --format json");
    REQUIRE(r.status == 0);
    const auto rows = nlohmann::json::parse(r.out);
    REQUIRE(rows.size() == 2);
    const Hardware h = load_hardware("h100-sxm");
    const Model m = load_model("qwen3-32b");
    CHECK(rows[0].at("ridge_batch").get<double>() == Approx(ridge_batch(h, m, Workload{}).value()).epsilon(1e-12));
    CHECK(rows[1].at("ridge_batch").is_null());
    CHECK(rows[0].at("n_star_tokens").get<double>() == Approx(*n_star(h, m, Workload{})).epsilon(1e-12));
}

TEST_CASE("cli: model and list JSON carry parameter counts", "[cli]") {
    const Run r = run_cli("list models --format json");
    REQUIRE(r.status == 0);
    const auto rows = nlohmann::json::parse(r.out);
    REQUIRE(rows.size() == list_presets(PresetKind::model).size());
    for (const auto& row : rows) {
        const Model m = load_model(row.at("name").get<std::string>());
        CHECK(row.at("total_params").get<double>() == derived_parameters(m).total());
        CHECK(row.at("active_params").get<double>() == active_parameters(m).total());
        CHECK(row.at("kv_bytes_per_token").get<double>() == kv_bytes_per_token(m, formats::bf16).in(bytes));
    }
}

TEST_CASE("cli: plot writes a well-formed SVG roofline", "[cli][svg]") {
    const Run r = run_cli("plot -m llama-3.1-8b -b 1..1024x2 -c 0,4096,32768 -o -");
    REQUIRE(r.status == 0);
    Element svg;
    REQUIRE_NOTHROW(svg = Xml(r.out).document());
    CHECK(svg.name == "svg");
    CHECK(svg.attributes.at("xmlns") == "http://www.w3.org/2000/svg");
    CHECK(count(svg, "title") == 1);
    CHECK(count(svg, "line", "bandwidth") == 1);
    CHECK(count(svg, "line", "ceiling") == 2);   // bf16 = fp16 989, fp8 = int8 1979 on the H100 preset
    CHECK(r.out.find("bf16, fp16 989 TFLOP/s") != std::string::npos);
    CHECK(count(svg, "circle", "ridge") == 1);
    CHECK(count(svg, "circle", "step") == 33);   // 11 batches x 3 contexts
    CHECK(count(svg, "polyline", "per-sequence") == 3);
    CHECK(count(svg, "polyline", "total") == 3);
    CHECK(count(svg, "text", "tick-label") >= 12);
    CHECK(r.out.find("ridge 295.2 FLOP/byte") != std::string::npos);
    CHECK(r.out.find("context 4096: ridge batch never") != std::string::npos);
    CHECK(r.out.find("nan") == std::string::npos);
    CHECK(r.out.find("inf") == std::string::npos);
    // Steps whose setup does not fit are hollow: one per batch past the largest that fits, per
    // context (the library's largest_batch, which the capacity tests check by hand).
    const Hardware h = load_hardware("h100-sxm");
    const Model m = load_model("llama-3.1-8b");
    std::size_t not_fitting = 0;
    for (std::int64_t n : {4096, 32768}) {
        const auto most = largest_batch(h, m, Workload{}, n);
        for (std::int64_t b = 1; b <= 1024; b *= 2) not_fitting += (!most || b > *most) ? 1 : 0;
    }
    std::size_t hollow = 0;
    for (std::size_t at = r.out.find("data-fits=\"false\""); at != std::string::npos; at = r.out.find("data-fits=\"false\"", at + 1)) ++hollow;
    CHECK(not_fitting > 0);
    CHECK(hollow == not_fitting);
}

// Issue 12: every input, however hostile.

TEST_CASE("cli: every integer option takes plain decimal digits only", "[cli][hostile]") {
    const std::vector<std::pair<std::string, std::string>> options{
        {"decode -m llama-3.1-8b", "--tp"},          {"decode -m llama-3.1-8b", "--pp"},
        {"decode -m llama-3.1-8b", "--ep"},          {"decode -m llama-3.1-8b", "--dp"},
        {"decode -m llama-3.1-8b", "--max-context"}, {"generate -m llama-3.1-8b", "--prompt"},
        {"generate -m llama-3.1-8b", "--new"},       {"generate -m llama-3.1-8b --prompt 64", "--chunk"},
        {"diagnose -m llama-3.1-8b --measured-tok-s 50", "--draft-tokens"},
        {"decode -m llama-3.1-8b", "-b"},            {"decode -m llama-3.1-8b", "-c"}};
    for (const auto& [command, option] : options)
        for (const std::string value : {"0x8", "010", "+8", "-8", "8.0", "1e1", " 8", "8 ", "", "99999999999999999999"}) {
            const Run r = run_cli(command + " " + option + " '" + value + "'", true);
            INFO(command << " " << option << " '" << value << "': " << r.out);
            CHECK(r.status == 2);
            const std::string flag = option == "-b" ? "--batch" : option == "-c" ? "--context" : option;
            CHECK(r.out.find("ridgeline: " + flag + ": got \"" + value + "\", expected ") != std::string::npos);
        }
    // "0" itself is a plain number where zero is allowed.
    CHECK(run_cli("generate -m llama-3.1-8b --prompt 0 --chunk 0").status == 0);
    CHECK(run_cli("decode -m llama-3.1-8b -c 0").status == 0);
}

TEST_CASE("cli: the roofline's axes survive zero, subnormal and infinite values", "[cli][svg][hostile]") {
    using namespace ridgeline::svg_detail;
    CHECK(floor_decade(0.0) == min_decade);
    CHECK(floor_decade(std::numeric_limits<double>::denorm_min()) == min_decade);
    CHECK(floor_decade(-1.0) == min_decade);
    CHECK(floor_decade(std::nan("")) == min_decade);
    CHECK(ceil_decade(std::numeric_limits<double>::infinity()) == max_decade);
    CHECK(ceil_decade(1e300) == max_decade);
    CHECK(floor_decade(1e-300) == min_decade);
    CHECK(floor_decade(150.0) == 2);
    // A degenerate or reversed range still spans a decade and has a bounded number of ticks.
    const Panel flat{0, 0, 100, 100, 3, 3, 7, -5};
    CHECK(flat.x_hi == 4);
    CHECK(flat.y_hi == 8);
    const Panel wide{0, 0, 100, 100, min_decade - 1000, max_decade + 1000, min_decade, max_decade};
    CHECK(wide.x_lo == min_decade);
    CHECK(wide.x_hi == max_decade);
    std::string out;
    axes(out, wide, "x", "y", "");
    std::size_t ticks = 0;
    for (std::size_t at = out.find("class=\"tick\""); at != std::string::npos; at = out.find("class=\"tick\"", at + 1)) ++ticks;
    CHECK(ticks <= 30);
    CHECK(number(wide.x(0.0)) == "0.00");
    CHECK(number(wide.y(std::nan(""))) == "100.00");
    CHECK(number(std::numeric_limits<double>::infinity()) == "0.00");
    CHECK(decade_label(25) == "1e25");
    CHECK(decade_label(-7) == "1e-7");
    CHECK(decade_label(-2) == "0.01");
    CHECK(out.find("nan") == std::string::npos);
    CHECK(out.find("inf") == std::string::npos);

    // A whole picture at the slowest efficiency the library takes, on a device with the least
    // bandwidth it takes (1 MB/s): tiny throughputs, finite coordinates, well-formed XML.
    Hardware h = load_hardware("h100-sxm");
    h.memory_bandwidth = GB_per_s(1e-3);
    h.measured_bandwidth.reset();  // the preset's 3,180 GB/s would exceed it
    Workload w;
    w.efficiency.bandwidth = 1e-6;
    const std::string svg = roofline_svg(Deployment{h, {}}, load_model("llama-3.1-8b"), w, {1, 1024}, {0, 4096});
    CHECK_NOTHROW(Xml(svg).document());
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("inf") == std::string::npos);
}

TEST_CASE("cli: names with control characters or invalid UTF-8 are escaped everywhere", "[cli][hostile]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "ridgeline-cli-hostile-names";
    fs::create_directories(dir);
    const std::string bell = (dir / "gpu\x07\x1b[31m.json").string(), latin1 = (dir / "gpu\xff\xfe.json").string();
    fs::copy_file("data/hardware/h100-sxm.json", bell, fs::copy_options::overwrite_existing);
    fs::copy_file("data/hardware/h100-sxm.json", latin1, fs::copy_options::overwrite_existing);

    for (const char* format : {"table", "csv"}) {
        const Run r = run_cli("decode -m llama-3.1-8b -H '" + bell + "' --format " + format);
        INFO(r.out);
        CHECK(r.status == 0);
        CHECK(r.out.find('\x07') == std::string::npos);
        CHECK(r.out.find('\x1b') == std::string::npos);
        CHECK(r.out.find("gpu\\x07\\x1b[31m.json") != std::string::npos);
    }
    // An error message names the file escaped too.
    const Run missing = run_cli("decode -m llama-3.1-8b -H '" + (dir / "no\x01such.json").string() + "'", true);
    CHECK(missing.status == 1);
    CHECK(missing.out.find('\x01') == std::string::npos);
    CHECK(missing.out.find("no\\x01such.json") != std::string::npos);

    // JSON replaces invalid UTF-8 rather than throwing, and the document parses.
    const Run json = run_cli("decode -m llama-3.1-8b -H '" + latin1 + "' --format json");
    REQUIRE(json.status == 0);
    const auto rows = nlohmann::json::parse(json.out);
    CHECK(rows.at(0).at("hardware") == (dir / "gpu\xEF\xBF\xBD\xEF\xBF\xBD.json").string());

    // The SVG title takes a name the same way: escaped, replaced, well-formed.
    const std::string svg = roofline_svg(load_hardware(latin1), load_model("llama-3.1-8b"), Workload{}, {1}, {0});
    CHECK_NOTHROW(Xml(svg).document());
    fs::remove_all(dir);
}

TEST_CASE("cli: a displayed value must be finite in the unit it is shown in", "[cli][hostile]") {
    // 1e306 s is finite; in ms it is not. Neither "inf ms" nor "nan" may reach the table.
    CHECK_THROWS_AS(cli::converted(1e306, 1e306 * 1e3, 3, "{} ms"), std::logic_error);
    CHECK_THROWS_AS(cli::converted(std::nan(""), 1.0, 3, "{} ms"), std::logic_error);
    CHECK_THROWS_AS(cli::shown(std::numeric_limits<double>::infinity(), 1, "{}%"), std::logic_error);
    CHECK(cli::converted(0.0123, 12.3, 1, "{} ms").text == "12.3 ms");
    CHECK(cli::shown(-0.5, 2, "{} ms", true) == "-0.50 ms");
    CHECK(cli::shown(0.5, 2, "{} ms", true) == "+0.50 ms");
    CHECK(cli::printable("a\tb\x7f") == "a\\x09b\\x7f");
}

TEST_CASE("cli: a record's row kept from the table is in JSON and CSV, and widens no column", "[cli][table]") {
    cli::Table t({{"field", "field", false}, {"value", "value", false}});
    t.add({cli::text("model"), cli::text("m")});
    t.add({cli::text("a_longer_key_than_any_shown"), cli::text("x")}, false);
    const auto printed = [&](cli::Output format) {
        std::FILE* f = std::tmpfile();
        REQUIRE(f != nullptr);
        t.print(format, f);
        std::rewind(f);
        std::string out;
        for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) out += static_cast<char>(c);
        std::fclose(f);
        return out;
    };
    CHECK(printed(cli::Output::table) == "field  value\nmodel  m\n");
    CHECK(printed(cli::Output::csv) == "field,value\nmodel,m\na_longer_key_than_any_shown,x\n");
    CHECK(printed(cli::Output::json) == "{\n  \"model\": \"m\",\n  \"a_longer_key_than_any_shown\": \"x\"\n}\n");
}

TEST_CASE("cli: a fit that bounds nothing saves, loads, and predicts a finite slow end", "[cli][calibrate]") {
    // Four made-up rows no setting fits: what calibrate --save writes, predict must read.
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "ridgeline-unfittable-preset.json";
    const Run saved = run_cli("calibrate --measurements tests/data/measurements-unfittable.json --save " + file.string());
    REQUIRE(saved.status == 0);
    const EfficiencyPreset p = load_efficiency(file.string());
    REQUIRE(p.fit.bandwidth_efficiency_error);
    CHECK(*p.fit.bandwidth_efficiency_error >= p.fit.bandwidth_efficiency);
    const Run predicted = run_cli("predict -m llama-2-7b -H a100-80gb -b 32 -c 128 --calibration " + file.string());
    CHECK(predicted.status == 0);
    // The slow end's line, whatever its padding, gives a time, not "unbounded".
    const std::size_t slowest = predicted.out.find("\nslowest_step_s ");
    REQUIRE(slowest != std::string::npos);
    const std::string line = predicted.out.substr(slowest + 1, predicted.out.find('\n', slowest + 1) - slowest - 1);
    CHECK(line.find("unbounded") == std::string::npos);
    CHECK(line.ends_with(" ms"));
    std::filesystem::remove(file);
}

TEST_CASE("cli: a one-row fit saved as a preset predicts, naming its bandwidth basis", "[cli][calibrate]") {
    // gpt-fast's rows name no engine: the preset still loads, and carries why its bandwidth is held.
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "ridgeline-one-row-preset.json";
    const Run saved = run_cli("calibrate --measurements gpt-fast --model llama-2-7b --where weights=int8 --save " + file.string());
    REQUIRE(saved.status == 0);
    const EfficiencyPreset p = load_efficiency(file.string());
    CHECK(p.engine == "(engine not stated in gpt-fast)");
    CHECK(p.fit.bandwidth_efficiency == Approx(1750.0 / 2039).epsilon(1e-12));  // a100-80gb's measured_bandwidth_GB_per_s
    CHECK(p.fit.bandwidth_basis.starts_with("held at the device's measured 1750 of 2039 GB/s"));
    const Run predicted = run_cli("predict -m llama-2-7b -H a100-80gb --weights int8 -c 5 --calibration " + file.string());
    CHECK(predicted.status == 0);
    std::filesystem::remove(file);
}
