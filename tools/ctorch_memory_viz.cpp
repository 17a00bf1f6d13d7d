// ctorch-memory-viz: turns a memory snapshot (ctorch::cuda::memory::dump_snapshot, JSON) into one
// self-contained HTML page drawn as inline SVG, like `python -m torch.cuda._memory_viz`.
// Usage: ctorch-memory-viz {trace_plot|segment_plot} SNAPSHOT.json [-o OUTPUT.html]
//   trace_plot:   live allocations stacked over time, one lane per (device, stream)
//   segment_plot: every segment as a bar of its blocks (allocated, pending free, free)
// The page needs no network: the template (memory_viz_template.html) is compiled in and the
// snapshot is embedded in a <script type="application/json"> element.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "memory_viz_template.h"  // generated: kMemoryVizTemplate

namespace {

constexpr int kExitInputError = 1;
constexpr int kExitUsage = 2;
constexpr int kMaxJsonDepth = 512;

/// A malformed input, reported as "ctorch-memory-viz: <message>" with exit code 1.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A JSON syntax checker that also records the top-level object's keys and the kind of their values.
class JsonChecker {
 public:
  explicit JsonChecker(std::string_view text) : s_(text) {}

  /// Checks the whole text; throws InputError naming line and column on the first error.
  void check() {
    ws();
    value(0);
    ws();
    if (i_ != s_.size()) fail("unexpected text after the JSON value");
  }
  /// First character of the value of `key` in the top-level object ('[', '{', '"', 't', ...); 0 when absent.
  char top_level_kind(const std::string& key) const {
    const auto it = top_level_keys_.find(key);
    return it == top_level_keys_.end() ? 0 : it->second;
  }
  /// True when the top-level value is an object.
  bool top_level_is_object() const { return top_is_object_; }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    size_t line = 1, column = 1;
    for (size_t k = 0; k < i_ && k < s_.size(); ++k) {
      if (s_[k] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw InputError(what + " at line " + std::to_string(line) + ", column " + std::to_string(column));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c) {
    if (i_ >= s_.size() || s_[i_] != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  void literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) fail("invalid literal");
    i_ += word.size();
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated string");
      const char e = s_[i_++];
      if (e == 'u') {
        for (int k = 0; k < 4; ++k, ++i_) {
          if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_]))) fail("invalid \\u escape");
        }
        out += '?';
      } else if (e != '\0' && std::strchr("\"\\/bfnrt", e) != nullptr) {
        out += e;
      } else {
        --i_;
        fail("invalid escape in a string");
      }
    }
  }
  void digits() {
    if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("expected a digit");
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void number() {
    if (s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else {
      digits();
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      digits();
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      digits();
    }
  }
  void value(int depth) {
    if (depth > kMaxJsonDepth) fail("nesting deeper than " + std::to_string(kMaxJsonDepth));
    if (i_ >= s_.size()) fail("unexpected end of input");
    const char c = s_[i_];
    if (c == '{') {
      if (depth == 0) top_is_object_ = true;
      ++i_;
      ws();
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return;
      }
      while (true) {
        ws();
        const std::string key = string();
        ws();
        expect(':');
        ws();
        if (depth == 0 && i_ < s_.size()) top_level_keys_[key] = s_[i_];
        value(depth + 1);
        ws();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        expect('}');
        return;
      }
    }
    if (c == '[') {
      ++i_;
      ws();
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return;
      }
      while (true) {
        ws();
        value(depth + 1);
        ws();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        expect(']');
        return;
      }
    }
    if (c == '"') {
      string();
    } else if (c == 't') {
      literal("true");
    } else if (c == 'f') {
      literal("false");
    } else if (c == 'n') {
      literal("null");
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      number();
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  bool top_is_object_ = false;
  std::map<std::string, char> top_level_keys_;  // key -> first character of its value
};

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw InputError("reading '" + path + "' failed");
  return ss.str();
}

/// Throws InputError unless `text` is a JSON memory snapshot: an object with a "segments" array and,
/// when present, a "device_traces" array.
void validate_snapshot(const std::string& path, const std::string& text) {
  if (!text.empty() && static_cast<unsigned char>(text[0]) == 0x80) {
    throw InputError("'" + path + "' looks like a Python pickle (torch.cuda.memory._dump_snapshot); this tool reads "
                     "the JSON written by ctorch::cuda::memory::dump_snapshot");
  }
  JsonChecker json(text);
  try {
    json.check();
  } catch (const InputError& e) {
    throw InputError("'" + path + "' is not valid JSON: " + e.what());
  }
  const char* const hint = " (expected a memory snapshot from ctorch::cuda::memory::dump_snapshot)";
  if (!json.top_level_is_object()) throw InputError("'" + path + "' is not a JSON object" + hint);
  if (json.top_level_kind("segments") != '[') throw InputError("'" + path + "' has no \"segments\" array" + hint);
  const char traces = json.top_level_kind("device_traces");
  if (traces != 0 && traces != '[') throw InputError("'" + path + "': \"device_traces\" is not an array" + hint);
}

/// `text` with every '<' written as \u003c: valid JSON still, and no "</script" or "<!--" in the page.
std::string escape_for_script(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (const char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_html(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// The page: the template with its three markers replaced.
std::string render_page(const std::string& plot, const std::string& source, const std::string& snapshot_json) {
  const std::string_view tmpl(kMemoryVizTemplate, sizeof kMemoryVizTemplate - 1);
  const std::pair<std::string_view, std::string> markers[] = {
      {"{{CTORCH_PLOT}}", plot},
      {"{{CTORCH_SOURCE}}", escape_html(source)},
      {"{{CTORCH_SNAPSHOT}}", escape_for_script(snapshot_json)},
  };
  std::string out;
  out.reserve(tmpl.size() + snapshot_json.size() + 64);
  size_t i = 0;
  while (i < tmpl.size()) {
    const size_t open = tmpl.find("{{CTORCH_", i);
    if (open == std::string_view::npos) break;
    out.append(tmpl.substr(i, open - i));
    bool replaced = false;
    for (const auto& [marker, value] : markers) {
      if (tmpl.substr(open, marker.size()) == marker) {
        out += value;
        i = open + marker.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      out += tmpl[open];
      i = open + 1;
    }
  }
  out.append(tmpl.substr(i));
  return out;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw InputError("cannot open '" + path + "' for writing: " + std::strerror(errno));
  f << text;
  f.close();
  if (f.fail()) throw InputError("writing '" + path + "' failed");
}

int usage(const char* argv0, const std::string& problem) {
  if (!problem.empty()) std::cerr << argv0 << ": " << problem << "\n";
  std::cerr << "usage: " << argv0 << " {trace_plot|segment_plot} SNAPSHOT.json [-o OUTPUT.html]\n"
            << "  trace_plot    allocation timeline: live allocations over time, one lane per stream\n"
            << "  segment_plot  segment map: every segment with its allocated, pending-free and free blocks\n"
            << "  -o OUTPUT     the HTML page to write (default output.html, as torch.cuda._memory_viz)\n"
            << "SNAPSHOT.json comes from ctorch::cuda::memory::dump_snapshot(path).\n";
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  const char* argv0 = "ctorch-memory-viz";
  std::string plot, input, output = "output.html";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      usage(argv0, "");
      return 0;
    }
    if (arg == "-o" || arg == "--output") {
      if (i + 1 >= argc) return usage(argv0, "-o needs a file name");
      output = argv[++i];
    } else if (plot.empty()) {
      plot = arg;
    } else if (input.empty()) {
      input = arg;
    } else {
      return usage(argv0, "unexpected argument '" + arg + "'");
    }
  }
  if (plot.empty()) return usage(argv0, "no plot given");
  if (plot != "trace_plot" && plot != "segment_plot") {
    return usage(argv0, "unknown plot '" + plot + "' (expected trace_plot or segment_plot)");
  }
  if (input.empty()) return usage(argv0, "no snapshot file given");
  try {
    const std::string json = read_file(input);
    validate_snapshot(input, json);
    write_file(output, render_page(plot, input, json));
    std::cout << argv0 << ": wrote " << plot << " of '" << input << "' to '" << output << "'\n";
    return 0;
  } catch (const InputError& e) {
    std::cerr << argv0 << ": " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << argv0 << ": failed on '" << input << "': " << e.what() << "\n";
  }
  return kExitInputError;
}
