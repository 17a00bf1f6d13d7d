// tools/ctorch-memory-viz on a real snapshot of an emulated device: the pages it writes are
// self-contained, load and draw in headless Chromium with the snapshot's counts (skipped when no
// chromium is found: CTORCH_CHROMIUM, else chromium / chromium-browser on PATH), and bad inputs
// fail with a message naming the file.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "ctorch/cuda_memory.h"
#include "ctorch/cuda_memory_snapshot.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/emulation.h"
#include "ctorch/torch.h"
#include "device/stream_test_util.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"
#include "unit/json_lite.h"

namespace ctorch {
namespace {

namespace fs = std::filesystem;
namespace json = testing::json;

constexpr size_t kMiB = 1024 * 1024;

std::string viz_exe() {
  if (const char* env = std::getenv("CTORCH_MEMORY_VIZ"); env != nullptr && *env != '\0') return env;
  return CTORCH_MEMORY_VIZ_EXE;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t i = text.find(needle); i != std::string::npos; i = text.find(needle, i + needle.size())) ++n;
  return n;
}

// The value of attribute `name` on the <body> element of a dumped DOM ("" when absent).
std::string body_attribute(const std::string& dom, const std::string& name) {
  const size_t body = dom.find("<body");
  if (body == std::string::npos) return "";
  const std::string tag = dom.substr(body, dom.find('>', body) - body);
  const size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  const size_t start = at + name.size() + 3;
  return tag.substr(start, tag.find('"', start) - start);
}

// Chromium to run: $CTORCH_CHROMIUM, else chromium or chromium-browser on PATH; "" when none.
std::string find_chromium() {
  if (const char* env = std::getenv("CTORCH_CHROMIUM"); env != nullptr && *env != '\0') return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  }
  return "";
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// A scratch directory per test, and helpers to run the tool and Chromium in it.
class VizFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ctorch_memory_viz_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (dir_.empty()) return;
    if (std::getenv("CTORCH_MEMORY_VIZ_KEEP") != nullptr) {  // keep the pages to look at
      std::printf("memory_viz_test: files kept in %s\n", dir_.c_str());
      return;
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  CommandResult run(const std::string& command) const {
    const fs::path out = dir_ / "command_output.txt";
    const int status = std::system((command + " > " + quote(out.string()) + " 2>&1").c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.output = slurp(out);
    return r;
  }
  CommandResult viz(const std::string& plot, const fs::path& input, const fs::path& output) const {
    return run(quote(viz_exe()) + " " + plot + " " + quote(input.string()) + " -o " + quote(output.string()));
  }
  // The DOM after the page's scripts ran (chromium --headless --dump-dom); fails the test on a crash.
  std::string dump_dom(const std::string& chromium, const fs::path& page) const {
    const fs::path dom = dir_ / "dom.html";
    const fs::path log = dir_ / "chromium.log";
    const std::string command = "timeout 180 " + quote(chromium) +
                                " --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=" +
                                quote((dir_ / "chromium-profile").string()) + " --dump-dom " +
                                quote("file://" + fs::absolute(page).string()) + " > " + quote(dom.string()) + " 2> " +
                                quote(log.string());
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << slurp(log);
    return slurp(dom);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  fs::path dir_;
};

// What the pages must show for a snapshot, counted from its JSON.
struct Expected {
  size_t segments = 0, blocks = 0, allocations = 0, ooms = 0;
  std::map<std::string, size_t> blocks_by_state;
  std::set<std::pair<int, long long>> lanes;  // (device, stream) with allocations or frees
};

Expected expected_counts(const std::string& snapshot_json) {
  const json::Value root = json::parse(snapshot_json);
  Expected e;
  for (const json::Value& seg : root["segments"].array()) {
    ++e.segments;
    for (const json::Value& b : seg["blocks"].array()) {
      ++e.blocks;
      ++e.blocks_by_state[b["state"].string()];
    }
  }
  int device = 0;
  for (const json::Value& trace : root["device_traces"].array()) {
    for (const json::Value& ev : trace.array()) {
      const std::string& action = ev["action"].string();
      if (action == "alloc") ++e.allocations;
      if (action == "oom") ++e.ooms;
      if (action == "alloc" || action == "free_requested" || action == "free_completed") {
        e.lanes.insert({device, static_cast<long long>(ev["stream"].number())});
      }
    }
    ++device;
  }
  return e;
}

// A fresh emulated device of 256 MiB per test; history off and cleared afterwards.
class MemoryViz : public VizFiles {
 protected:
  void SetUp() override {
    if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
    VizFiles::SetUp();
    cuda::EmulationConfig c;
    c.devices = 1;
    c.memory = 256 * kMiB;
    cuda::emulate(c);
  }
  void TearDown() override {
    VizFiles::TearDown();
    if (!cuda::is_emulated()) return;
    cuda::memory::record_memory_history(std::nullopt, std::nullopt, "all", SIZE_MAX, /*clear_history=*/true);
    cuda::emulate(2);
  }

  // Allocations and frees on two streams, empty_cache, then a dump while one block is pending free:
  // the snapshot holds allocated, pending-free and inactive blocks and a trace on both streams.
  fs::path make_snapshot() {
    cuda::memory::record_memory_history("all");
    impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
    const TensorOptions opts = TensorOptions().device(Device(DeviceType::CUDA, 0));
    const Stream side = rt.create_stream(0, 0);
    Tensor small = empty({1000}, opts);        // small pool, 2 MiB segment
    Tensor large_a = empty({1 << 20}, opts);   // 4 MiB in a 20 MiB segment
    Tensor large_b = empty({1 << 19}, opts);   // 2 MiB after it
    Tensor side_small, side_large;
    {
      auto block = cuda::stream(cuda::Stream(side));
      side_small = empty({300}, opts);
      side_large = empty({3 << 20}, opts);     // 12 MiB: a segment of its own
      Tensor scratch = empty({5000}, opts);    // freed at once
    }
    large_a = Tensor();                          // an inactive block inside a live segment
    Tensor transient = empty({8 << 20}, opts);   // 32 MiB segment, released by empty_cache
    transient = Tensor();
    cuda::empty_cache();
    testing::Gate gate;
    gate.block(side);
    {
      Tensor pending = empty({256}, opts);
      pending.record_stream(side);               // freed, pending until `side` passes the gate
    }
    const fs::path path = dir_ / "snapshot.json";
    cuda::memory::dump_snapshot(path.string());
    gate.open();
    rt.synchronize_stream(side);
    return path;
  }
};

TEST_F(MemoryViz, WritesSelfContainedPagesForBothPlots) {
  const fs::path snapshot = make_snapshot();
  for (const std::string plot : {"trace_plot", "segment_plot"}) {
    const fs::path page = dir_ / (plot + ".html");
    const CommandResult r = viz(plot, snapshot, page);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string html = slurp(page);
    EXPECT_EQ(count(html, "{{CTORCH_"), 0u) << "a template marker was left in " << page;
    EXPECT_EQ(count(html, "</script>"), 2u) << "the embedded JSON must not close its script element";
    EXPECT_EQ(count(html, "<script src"), 0u);
    EXPECT_EQ(count(html, "http://"), 1u) << "only the SVG namespace URI, nothing fetched";
    EXPECT_NE(html.find("data-plot=\"" + plot + "\""), std::string::npos);
  }
}

TEST_F(MemoryViz, PagesDrawInHeadlessChromiumWithTheSnapshotsCounts) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium (set CTORCH_CHROMIUM or install Debian's chromium)";
  const fs::path snapshot = make_snapshot();
  Expected want = expected_counts(slurp(snapshot));
  // The scenario must exercise every block state and both streams, or the checks below prove little.
  ASSERT_GE(want.blocks_by_state["active_allocated"], 3u);
  ASSERT_GE(want.blocks_by_state["active_pending_free"], 1u);
  ASSERT_GE(want.blocks_by_state["inactive"], 2u);
  ASSERT_EQ(want.lanes.size(), 2u);
  ASSERT_GE(want.segments, 3u);

  const fs::path segment_page = dir_ / "segments.html";
  ASSERT_EQ(viz("segment_plot", snapshot, segment_page).exit_code, 0);
  const std::string seg_dom = dump_dom(chromium, segment_page);
  ASSERT_EQ(body_attribute(seg_dom, "data-rendered"), "ok") << seg_dom.substr(0, 2000);
  EXPECT_EQ(body_attribute(seg_dom, "data-segments"), std::to_string(want.segments));
  EXPECT_EQ(body_attribute(seg_dom, "data-blocks"), std::to_string(want.blocks));
  EXPECT_EQ(count(seg_dom, "class=\"seg\""), want.segments);
  for (const auto& [state, n] : want.blocks_by_state) {
    EXPECT_EQ(count(seg_dom, "class=\"block " + state + "\""), n) << state;
  }
  EXPECT_EQ(body_attribute(seg_dom, "data-pending-free-blocks"),
            std::to_string(want.blocks_by_state["active_pending_free"]));

  const fs::path trace_page = dir_ / "trace.html";
  ASSERT_EQ(viz("trace_plot", snapshot, trace_page).exit_code, 0);
  const std::string trace_dom = dump_dom(chromium, trace_page);
  ASSERT_EQ(body_attribute(trace_dom, "data-rendered"), "ok") << trace_dom.substr(0, 2000);
  EXPECT_EQ(body_attribute(trace_dom, "data-lanes"), std::to_string(want.lanes.size()));
  EXPECT_EQ(body_attribute(trace_dom, "data-allocations"), std::to_string(want.allocations));
  EXPECT_EQ(count(trace_dom, "class=\"alloc\""), want.allocations);
  EXPECT_EQ(count(trace_dom, "class=\"lane\""), want.lanes.size());
  EXPECT_EQ(body_attribute(trace_dom, "data-ooms"), std::to_string(want.ooms));
  // Hover text: every allocation has a tooltip with its size, address and frames.
  EXPECT_GE(count(trace_dom, "<title>"), want.allocations + 1);
  EXPECT_NE(trace_dom.find("allocated from:"), std::string::npos);
}

TEST_F(MemoryViz, TracePlotOfASnapshotWithoutTraceSaysSo) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium (set CTORCH_CHROMIUM or install Debian's chromium)";
  cuda::memory::record_memory_history("state");  // blocks' frames only, no trace
  Tensor t = empty({1000}, TensorOptions().device(Device(DeviceType::CUDA, 0)));
  const fs::path snapshot = dir_ / "no_trace.json";
  cuda::memory::dump_snapshot(snapshot.string());
  const fs::path page = dir_ / "no_trace.html";
  ASSERT_EQ(viz("trace_plot", snapshot, page).exit_code, 0);
  const std::string dom = dump_dom(chromium, page);
  ASSERT_EQ(body_attribute(dom, "data-rendered"), "ok") << dom.substr(0, 2000);
  EXPECT_EQ(body_attribute(dom, "data-allocations"), "0");
  EXPECT_NE(dom.find("has no allocation trace"), std::string::npos);
  EXPECT_NE(dom.find("id=\"no-trace\""), std::string::npos);
}

// A frame name that closes the script element must stay data: the page still draws, and the
// injected script never runs.
TEST_F(VizFiles, ScriptEndTagsInTheSnapshotStayInsideTheJson) {
  const fs::path snapshot = write("evil.json", R"({"segments": [{"device": 0, "address": 4096, "total_size": 2097152,
    "stream": 0, "segment_type": "small", "blocks": [{"address": 4096, "size": 512, "requested_size": 500,
    "state": "active_allocated", "frames": [{"filename": "x", "line": 1,
    "name": "f</script><script>document.body.dataset.rendered='injected'</script><!--"}]}]}],
    "device_traces": [[]]})");
  const fs::path page = dir_ / "evil.html";
  const CommandResult r = viz("segment_plot", snapshot, page);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(slurp(page), "</script>"), 2u);
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium (set CTORCH_CHROMIUM or install Debian's chromium)";
  const std::string dom = dump_dom(chromium, page);
  EXPECT_EQ(body_attribute(dom, "data-rendered"), "ok") << dom.substr(0, 2000);
  EXPECT_EQ(body_attribute(dom, "data-blocks"), "1");
}

TEST_F(VizFiles, BadInputsFailWithAMessageNamingTheFile) {
  const fs::path out = dir_ / "out.html";
  struct Case {
    std::string name, text, message;
  };
  const Case cases[] = {
      {"not_json.json", "this is not JSON", "is not valid JSON"},
      {"truncated.json", R"({"segments": [{"device": 0)", "is not valid JSON: expected '}'"},
      {"empty.json", "", "is not valid JSON: unexpected end of input"},
      {"no_keys.json", R"({"device_traces": [], "other": 1})", "has no \"segments\" array"},
      {"segments_not_array.json", R"({"segments": {}, "device_traces": []})", "has no \"segments\" array"},
      {"traces_not_array.json", R"({"segments": [], "device_traces": 3})", "\"device_traces\" is not an array"},
      {"array.json", "[1, 2, 3]", "is not a JSON object"},
      {"bad_escape.json", R"({"segments": ["\q"]})", "invalid escape in a string"},
      {"nul_escape.json", std::string("{\"segments\": [\"\\\0\"]}", 20), "invalid escape in a string"},
      {"deep.json", std::string(100000, '[') + std::string(100000, ']'), "nesting deeper than"},
  };
  for (const Case& c : cases) {
    const fs::path input = write(c.name, c.text);
    const CommandResult r = viz("segment_plot", input, out);
    EXPECT_EQ(r.exit_code, 1) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find("'" + input.string() + "'"), std::string::npos) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.name << ": " << r.output;
    EXPECT_FALSE(fs::exists(out)) << c.name;
  }
  const fs::path missing = dir_ / "missing.json";
  const CommandResult r = viz("trace_plot", missing, out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot read '" + missing.string() + "'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));

  const CommandResult no_args = run(quote(viz_exe()));
  EXPECT_EQ(no_args.exit_code, 2);
  EXPECT_NE(no_args.output.find("usage:"), std::string::npos);
  const CommandResult bad_plot = run(quote(viz_exe()) + " pie_plot " + quote(missing.string()));
  EXPECT_EQ(bad_plot.exit_code, 2);
  EXPECT_NE(bad_plot.output.find("unknown plot 'pie_plot'"), std::string::npos) << bad_plot.output;
}

}  // namespace
}  // namespace ctorch
