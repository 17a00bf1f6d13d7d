#include "memory/backtrace.h"

#include "core/demangle.h"
#include <execinfo.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace ctorch::inline api::memory {
namespace {

// "binary(mangled+0x1f) [0xaddr]" -> {binary, 0, demangled or mangled or "??"}.
cuda::Frame parse_symbol(const char* text) {
  cuda::Frame f;
  const std::string s = text ? text : "";
  const size_t open = s.find('(');
  const size_t plus = s.find('+', open == std::string::npos ? 0 : open);
  const size_t close = s.find(')', open == std::string::npos ? 0 : open);
  f.filename = s.substr(0, open == std::string::npos ? s.find(' ') : open);
  if (open != std::string::npos && close != std::string::npos) {
    const size_t end = plus != std::string::npos && plus < close ? plus : close;
    const std::string mangled = s.substr(open + 1, end - open - 1);
    if (!mangled.empty()) {
      f.name = ::ctorch::detail::demangle(mangled.c_str());
    }
  }
  if (f.name.empty()) f.name = "??";
  return f;
}

}  // namespace

FramesPtr capture_frames(int skip, int max_frames) {
  void* buf[32 + 8];
  const int n = ::backtrace(buf, std::min(std::min(max_frames, 32) + skip + 1, 40));
  const int first = std::min(n, skip + 1);  // +1: this function
  return std::make_shared<const RawFrames>(buf + first, buf + n);
}

std::vector<cuda::Frame> FrameSymbolizer::operator()(const FramesPtr& frames) {
  std::vector<cuda::Frame> out;
  if (!frames) return out;
  std::vector<void*> missing;
  for (void* a : *frames) {
    if (!cache_.count(a)) missing.push_back(a);
  }
  if (!missing.empty()) {
    char** syms = ::backtrace_symbols(missing.data(), static_cast<int>(missing.size()));
    for (size_t i = 0; i < missing.size(); ++i) cache_[missing[i]] = parse_symbol(syms ? syms[i] : nullptr);
    std::free(syms);
  }
  out.reserve(frames->size());
  for (void* a : *frames) out.push_back(cache_[a]);
  return out;
}

}  // namespace ctorch::api::memory
