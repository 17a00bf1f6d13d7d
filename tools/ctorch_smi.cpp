// ctorch-smi: nvidia-smi's table for the CUDA devices ctorch sees (real ones through NVML, emulated
// ones with their modelled readings; docs/telemetry.md).
// Usage: ctorch-smi [--emulate N] [-q] [-l SEC | --loop[=SEC]] [--count N]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include <ctorch/ctorch.h>
#include <ctorch/emulation.h>

using namespace ctorch;

namespace {

constexpr const char* kLine = "+-----------------------------------------------------------------------------+\n";
constexpr const char* kCells = "+-------------------------------+----------------------+----------------------+\n";

std::string fit(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  return s.substr(0, width - 3) + "...";
}

std::string watts(int mw) { return mw < 0 ? std::string("N/A") : std::to_string((mw + 500) / 1000) + "W"; }

std::string process_name(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string name;
  std::getline(in, name, '\0');
  return name.empty() ? std::string("N/A") : name;
}

void print_table(int n) {
  const std::time_t now = std::time(nullptr);
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "%a %b %e %H:%M:%S %Y", std::localtime(&now));
  std::printf("%s\n", stamp);
  std::printf("%s", kLine);
  // "NVIDIA-SMI 511.79       Driver Version: 511.79       CUDA Version: 11.6": three fields spread over 75 columns.
  const std::string left = std::string("CTORCH-SMI ") + version();
  const std::string mid = "Driver Version: " + cuda::driver_version();
  const std::string right = "CUDA Version: " + cuda::cuda_driver_version();
  const size_t used = left.size() + mid.size() + right.size();
  const size_t gap = used + 2 <= 75 ? (75 - used) / 2 : 1;
  const std::string head = left + std::string(gap, ' ') + mid + std::string(gap, ' ') + right;
  std::printf("| %-75.75s |\n", head.c_str());
  std::printf("|-------------------------------+----------------------+----------------------+\n");
  std::printf("| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n");
  std::printf("| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n");
  std::printf("|                               |                      |               MIG M. |\n");
  std::printf("|===============================+======================+======================|\n");
  for (int i = 0; i < n; ++i) {
    const cuda::DeviceStatus s = cuda::device_status(i);
    const std::string temp = s.temperature < 0 ? "N/A" : std::to_string(s.temperature) + "C";
    const std::string util = s.utilization < 0 ? "N/A" : std::to_string(s.utilization) + "%";
    std::printf("| %3d  %-18.18s  %-4s | %16s Off |                  N/A |\n", i, fit(s.name, 18).c_str(),
                s.emulated ? "Emu" : "N/A", s.bus_id.c_str());
    std::printf("| N/A  %4s    P0  %5s / %4s | %6lluMiB / %5lluMiB | %7s      Default |\n", temp.c_str(),
                watts(s.power_draw).c_str(), watts(s.power_limit).c_str(),
                static_cast<unsigned long long>(s.memory_used >> 20),
                static_cast<unsigned long long>(s.memory_total >> 20), util.c_str());
    std::printf("|                               |                      |                  N/A |\n");
    std::printf("%s", kCells);
  }
  std::printf("\n%s", kLine);
  std::printf("| Processes:                                                                  |\n");
  std::printf("|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |\n");
  std::printf("|        ID   ID                                                   Usage      |\n");
  std::printf("|=============================================================================|\n");
  int rows = 0;
  for (int i = 0; i < n; ++i) {
    for (const cuda::GpuProcess& p : cuda::gpu_processes(i)) {
      std::printf("|  %3d   N/A  N/A  %9lld      C   %-28.28s %7lluMiB |\n", i, static_cast<long long>(p.pid),
                  fit(process_name(p.pid), 28).c_str(), static_cast<unsigned long long>(p.used_memory >> 20));
      ++rows;
    }
  }
  if (rows == 0) std::printf("|  No running processes found                                                 |\n");
  std::printf("%s", kLine);
}

void print_details(int n) {
  for (int i = 0; i < n; ++i) {
    const cuda::DeviceProperties p = cuda::get_device_properties(i);
    std::cout << "cuda:" << i << " " << p << "\n";
    std::printf("       uuid %s, pci %04x:%02x:%02x, warp %d, max threads/SM %d, L2 %zu KiB, SM clock %d MHz\n",
                p.uuid.c_str(), p.pci_domain_id, p.pci_bus_id, p.pci_device_id, p.warp_size,
                p.max_threads_per_multi_processor, p.L2_cache_size >> 10, cuda::clock_rate(i));
    std::printf("       peer access:");
    for (int j = 0; j < n; ++j) {
      if (j != i) std::printf(" cuda:%d=%s", j, cuda::can_device_access_peer(i, j) ? "yes" : "no");
    }
    std::printf("\n");
  }
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--emulate N] [-q|--query] [-l SEC | --loop[=SEC]] [--count N]\n"
               "  --emulate N   use N emulated devices (as CTORCH_EMULATED_CUDA=N)\n"
               "  -q, --query   also print each device's properties and peer access\n"
               "  -l SEC, --loop[=SEC]  print again every SEC seconds (default 5) until interrupted\n"
               "  --count N     with a loop, stop after N tables\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool query = false;
  double loop_seconds = 0;
  long count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--emulate" && i + 1 < argc) {
      cuda::emulate(std::atoi(argv[++i]));
    } else if (arg == "-q" || arg == "--query") {
      query = true;
    } else if ((arg == "-l" || arg == "--loop") && i + 1 < argc && std::atof(argv[i + 1]) > 0) {
      loop_seconds = std::atof(argv[++i]);
    } else if (arg == "-l" || arg == "--loop") {
      loop_seconds = 5;
    } else if (arg.rfind("--loop=", 0) == 0 && std::atof(arg.c_str() + 7) > 0) {
      loop_seconds = std::atof(arg.c_str() + 7);
    } else if (arg == "--count" && i + 1 < argc && std::atol(argv[i + 1]) > 0) {
      count = std::atol(argv[++i]);
    } else {
      return usage(argv[0]);
    }
  }
  const int n = cuda::device_count();
  if (n == 0) {
    std::printf("ctorch-smi has failed because it found no CUDA device: no NVIDIA driver or GPU is usable, and no "
                "emulated devices were asked for.\nSet CTORCH_EMULATED_CUDA=N or pass --emulate N for N emulated "
                "devices.\n");
    return 9;  // nvidia-smi's exit code when it cannot reach the driver
  }
  for (long done = 0;;) {
    try {
      print_table(n);
      if (query) print_details(n);
    } catch (const DeviceError& e) {  // NVML missing on real devices
      std::printf("ctorch-smi has failed: %s\n", e.what());
      return 9;
    }
    std::fflush(stdout);
    if (loop_seconds <= 0 || (count > 0 && ++done >= count)) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(loop_seconds));
    std::printf("\n");
  }
  return 0;
}
