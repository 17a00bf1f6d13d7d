// ctorch_api_fuzz: a deterministic random driver over ctorch's public API (tests/fuzz/README.md).
//
//   ctorch_api_fuzz [--seed S] [--cases N] [--first K] [--case K] [--verbose] [--timeout SECONDS]
//                   [--max-findings M] [--include-known]
//
// Case K of seed S is generated from its own mt19937_64 (seeded with case_seed(S, K)), so a failing
// case replays alone with --seed S --case K. Exit status: 0 when no case found anything, 1 otherwise.
// A case that runs longer than the timeout (default 10 s) aborts the process with its seed and
// index; a crash prints them before dying (ASan: through its death callback).
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>

#include "fuzz/fuzz_core.h"
#include "fuzz/known_bugs.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CTORCH_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CTORCH_FUZZ_ASAN 1
#endif
#ifdef CTORCH_FUZZ_ASAN
#include <sanitizer/common_interface_defs.h>
// Huge tensors (4 TiB) are part of the fuzzing: the allocator must fail them as without ASan (so
// that ctorch reports OutOfMemoryError), not abort the process. ASAN_OPTIONS still adds to this.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif
#if defined(__SANITIZE_THREAD__)
// The same for ThreadSanitizer's allocator.
extern "C" const char* __tsan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<uint64_t> g_seed{0};
std::atomic<int64_t> g_case{-1};
std::atomic<int64_t> g_case_start_ms{0};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

// Async-signal-safe: "<prefix> case K of seed S (replay: ctorch_api_fuzz --seed S --case K --verbose)".
void write_case(const char* prefix) {
  char buf[256];
  size_t n = 0;
  auto put = [&](const char* s) {
    while (*s && n < sizeof buf - 1) buf[n++] = *s++;
  };
  auto put_u = [&](uint64_t v) {
    char tmp[24];
    int k = 0;
    do {
      tmp[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v && k < 24);
    while (k && n < sizeof buf - 1) buf[n++] = tmp[--k];
  };
  const int64_t c = g_case.load();
  const uint64_t s = g_seed.load();
  put("\n");
  put(prefix);
  put(" in case ");
  put_u(static_cast<uint64_t>(c < 0 ? 0 : c));
  put(" of seed ");
  put_u(s);
  put(" (replay: ctorch_api_fuzz --seed ");
  put_u(s);
  put(" --case ");
  put_u(static_cast<uint64_t>(c < 0 ? 0 : c));
  put(" --verbose)\n");
  ssize_t ignored = ::write(2, buf, n);
  (void)ignored;
}

void on_fatal_signal(int sig) {
  write_case(sig == SIGABRT ? "ABORT" : "CRASH (fatal signal)");
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_crash_reporting() {
#ifdef CTORCH_FUZZ_ASAN
  __sanitizer_set_death_callback([] { write_case("SANITIZER REPORT"); });
#else
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, on_fatal_signal);
#endif
}

// Aborts the process when one case runs longer than `timeout_s` seconds.
void start_watchdog(double timeout_s) {
  std::thread([timeout_s] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const int64_t c = g_case.load();
      const int64_t start = g_case_start_ms.load();
      if (c >= 0 && static_cast<double>(now_ms() - start) > timeout_s * 1000.0 && g_case.load() == c) {
        write_case("HANG (case exceeded the per-case timeout)");
        std::_Exit(3);
      }
    }
  }).detach();
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: ctorch_api_fuzz [--seed S] [--cases N] [--first K] [--case K] [--verbose] "
               "[--timeout SECONDS] [--max-findings M] [--include-known]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int64_t cases = 1000, first = 0, max_findings = 20;
  bool verbose = false;
  double timeout = 10.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--seed") seed = std::strtoull(value(), nullptr, 0);
    else if (a == "--cases") cases = std::strtoll(value(), nullptr, 0);
    else if (a == "--first") first = std::strtoll(value(), nullptr, 0);
    else if (a == "--case") first = std::strtoll(value(), nullptr, 0), cases = 1;
    else if (a == "--verbose") verbose = true;
    else if (a == "--include-known") ctorch::fuzz::include_known_bugs(true);
    else if (a == "--timeout") timeout = std::strtod(value(), nullptr);
    else if (a == "--max-findings") max_findings = std::strtoll(value(), nullptr, 0);
    else usage();
  }
  if (const char* scale = std::getenv("CTORCH_FUZZ_CASES_SCALE")) {  // e.g. 0.25 under slow sanitizers
    cases = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(cases) * std::strtod(scale, nullptr)));
  }
  ctorch::cuda::emulate(2);
  ctorch::cuda::init();
  std::vector<ctorch::fuzz::OpEntry> ops;
  ctorch::fuzz::add_elementwise_ops(ops);
  ctorch::fuzz::add_reduction_ops(ops);
  ctorch::fuzz::add_shape_ops(ops);
  ctorch::fuzz::add_factory_ops(ops);
  g_seed = seed;
  install_crash_reporting();
  start_watchdog(timeout);

  const auto t0 = Clock::now();
  int64_t findings = 0, errors = 0;
  std::map<std::string, int64_t> per_op;
  for (int64_t k = first; k < first + cases; ++k) {
    if (verbose) {  // before running it, so that a crash or hang still shows the call
      const ctorch::fuzz::CaseReport d = ctorch::fuzz::run_case(seed, static_cast<uint64_t>(k), ops, true);
      std::printf("case %lld [%s] %s\n", static_cast<long long>(k), d.op.c_str(), d.call.c_str());
      std::fflush(stdout);
    }
    g_case_start_ms = now_ms();
    g_case = k;
    const ctorch::fuzz::CaseReport rep = ctorch::fuzz::run_case(seed, static_cast<uint64_t>(k), ops);
    g_case = -1;
    ++per_op[rep.op];
    errors += rep.errored;
    if (verbose) std::printf("  -> %s\n", rep.finding.empty() ? (rep.errored ? "ok (the cpu run threw a ctorch error)" : "ok") : "FINDING");
    if (!rep.finding.empty()) {
      ++findings;
      std::printf("FINDING case %lld of seed %llu [%s]\n  call: %s\n  %s\n  replay: ctorch_api_fuzz --seed %llu --case %lld --verbose\n",
                  static_cast<long long>(k), static_cast<unsigned long long>(seed), rep.op.c_str(), rep.call.c_str(),
                  rep.finding.c_str(), static_cast<unsigned long long>(seed), static_cast<long long>(k));
      std::fflush(stdout);
      if (findings >= max_findings) {
        std::printf("stopping after %lld findings\n", static_cast<long long>(findings));
        break;
      }
    }
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  int64_t total = 0;
  for (const auto& [name, n] : per_op) total += n;
  std::printf("ctorch_api_fuzz: seed %llu, cases %lld..%lld: %lld cases in %.1f s (%.0f cases/s), %lld with a ctorch error "
              "in the reference run, %lld findings\n",
              static_cast<unsigned long long>(seed), static_cast<long long>(first),
              static_cast<long long>(first + total - 1), static_cast<long long>(total), secs,
              secs > 0 ? static_cast<double>(total) / secs : 0.0, static_cast<long long>(errors),
              static_cast<long long>(findings));
  std::printf("  per op:");
  for (const auto& [name, n] : per_op) std::printf(" %s=%lld", name.c_str(), static_cast<long long>(n));
  std::printf("\n");
  return findings ? 1 : 0;
}
