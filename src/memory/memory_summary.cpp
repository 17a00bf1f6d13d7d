// memory_summary, rendered as torch/cuda/memory.py does: units chosen per column from the "all"
// row (pref), integer division, Python's format widths.
#include "memory/memory_summary.h"

#include <cinttypes>
#include <cstdio>
#include <vector>

#include "ctorch/error.h"

namespace ctorch::inline api::memory {
namespace {

// _format_size(sz, pref_sz): f"{sz:6d} {prefix}".
std::string format_size_cell(int64_t sz, double pref) {
  static const char* const kPrefixes[] = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const char* prefix = kPrefixes[0];
  for (int i = 1; i < 6; ++i) {
    if (pref < 768.0 * 1024) break;
    prefix = kPrefixes[i];
    sz = sz >= 0 ? sz / 1024 : -((-sz + 1023) / 1024);  // Python floor division
    pref /= 1024;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%6" PRId64 " %s", sz, prefix);
  return buf;
}

// _format_count(cnt, pref_cnt): f"{cnt:7d} {prefix} ".
std::string format_count_cell(int64_t cnt, double pref) {
  static const char* const kPrefixes[] = {" ", "K", "M"};
  const char* prefix = kPrefixes[0];
  for (int i = 1; i < 3; ++i) {
    if (pref < 750.0 * 1000) break;
    prefix = kPrefixes[i];
    cnt = cnt >= 0 ? cnt / 1000 : -((-cnt + 999) / 1000);
    pref /= 1000;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%7" PRId64 " %s ", cnt, prefix);
  return buf;
}

using Formatter = std::string (*)(int64_t, double);

int64_t at(const std::map<std::string, int64_t>& stats, const std::string& key) {
  auto it = stats.find(key);
  CTORCH_CHECK_VALUE(it != stats.end(), "memory_summary: the statistics have no key '", key, "'");
  return it->second;
}

// Python's f"{s:<n}".
std::string left(const std::string& s, size_t n) { return s.size() >= n ? s : s + std::string(n - s.size(), ' '); }

std::string row(const std::string& name, Formatter fmt, int64_t c, int64_t p, int64_t a, int64_t f, double cp,
                double pp, double ap, double fp) {
  return " " + left(name, 21) + " | " + fmt(c, cp) + " | " + fmt(p, pp) + " | " + fmt(a, ap) + " | " + fmt(f, fp) +
         " ";
}

}  // namespace

std::string format_memory_summary(const std::map<std::string, int64_t>& stats, int device, bool abbreviated) {
  struct Metric {
    const char* key;
    const char* name;
    Formatter fmt;
  };
  static const Metric kPooled[] = {
      {"allocated_bytes", "Allocated memory", &format_size_cell},
      {"active_bytes", "Active memory", &format_size_cell},
      {"requested_bytes", "Requested memory", &format_size_cell},
      {"reserved_bytes", "GPU reserved memory", &format_size_cell},
      {"inactive_split_bytes", "Non-releasable memory", &format_size_cell},
      {"allocation", "Allocations", &format_count_cell},
      {"active", "Active allocs", &format_count_cell},
      {"segment", "GPU reserved segments", &format_count_cell},
      {"inactive_split", "Non-releasable allocs", &format_count_cell},
  };
  static const Metric kPlain[] = {
      {"oversize_allocations", "Oversize allocations", &format_count_cell},
      {"oversize_segments", "Oversize GPU segments", &format_count_cell},
  };
  const std::string eq(75, '='), dash(75, '-');
  std::vector<std::string> lines;
  lines.push_back(eq);
  char buf[160];
  std::snprintf(buf, sizeof buf, " %16s PyTorch CUDA memory summary, device ID %-17d ", "", device);
  lines.emplace_back(buf);
  lines.push_back(dash);
  std::snprintf(buf, sizeof buf, "  %9s CUDA OOMs: %-12" PRId64 " | %6s cudaMalloc retries: %-8" PRId64 "  ", "",
                at(stats, "num_ooms"), "", at(stats, "num_alloc_retries"));
  lines.emplace_back(buf);
  lines.push_back(eq);
  lines.emplace_back("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");
  for (const Metric& m : kPooled) {
    lines.push_back(dash);
    const std::string all = std::string(m.key) + ".all.";
    const auto pc = static_cast<double>(at(stats, all + "current")), pp = static_cast<double>(at(stats, all + "peak"));
    const auto pa = static_cast<double>(at(stats, all + "allocated")),
               pf = static_cast<double>(at(stats, all + "freed"));
    std::vector<std::pair<const char*, const char*>> subs = {{"all", m.name}};
    if (!abbreviated) {
      subs.emplace_back("large_pool", "      from large pool");
      subs.emplace_back("small_pool", "      from small pool");
    }
    for (const auto& [sub, name] : subs) {
      const std::string prefix = std::string(m.key) + "." + sub + ".";
      lines.push_back(row(name, m.fmt, at(stats, prefix + "current"), at(stats, prefix + "peak"),
                          at(stats, prefix + "allocated"), at(stats, prefix + "freed"), pc, pp, pa, pf));
    }
  }
  for (const Metric& m : kPlain) {
    lines.push_back(dash);
    const std::string prefix = std::string(m.key) + ".";
    const int64_t c = at(stats, prefix + "current"), p = at(stats, prefix + "peak"),
                  a = at(stats, prefix + "allocated"), f = at(stats, prefix + "freed");
    lines.push_back(row(m.name, m.fmt, c, p, a, f, static_cast<double>(c), static_cast<double>(p),
                        static_cast<double>(a), static_cast<double>(f)));
  }
  lines.push_back(eq);
  std::string out = "|";
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "|\n|";
    out += lines[i];
  }
  return out + "|\n";
}

}  // namespace ctorch::api::memory
