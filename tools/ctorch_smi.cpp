// ctorch-smi: lists the CUDA devices ctorch sees (real or emulated), their memory and properties.
// Usage: ctorch-smi [--emulate N]     (N emulated devices; CTORCH_EMULATED_CUDA works too)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <ctorch/ctorch.h>
#include <ctorch/emulation.h>

using namespace ctorch;

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--emulate") == 0 && i + 1 < argc) {
      cuda::emulate(std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--emulate N]\n", argv[0]);
      return 2;
    }
  }
  const int n = cuda::device_count();
  std::printf("ctorch-smi (ctorch %s, torch %s API): %d CUDA device%s%s\n", version(), CTORCH_TORCH_API_VERSION, n,
              n == 1 ? "" : "s", n > 0 && cuda::is_emulated() ? " (emulated)" : "");
  if (n == 0) {
    std::printf("No CUDA devices. Set CTORCH_EMULATED_CUDA=N or pass --emulate N for emulated devices.\n");
    return 0;
  }
  std::printf("+-----+----------------------------------------+---------+----------------------+-----+\n");
  std::printf("| GPU | Name                                   | CC      |  Memory used / total | SMs |\n");
  std::printf("+-----+----------------------------------------+---------+----------------------+-----+\n");
  for (int i = 0; i < n; ++i) {
    const cuda::DeviceProperties p = cuda::get_device_properties(i);
    const auto [free_bytes, total_bytes] = cuda::mem_get_info(i);
    std::printf("| %3d | %-38.38s | %3d.%-3d | %8zuMiB / %6zuMiB | %3d |\n", i, p.name.c_str(), p.major, p.minor,
                (total_bytes - free_bytes) >> 20, total_bytes >> 20, p.multi_processor_count);
  }
  std::printf("+-----+----------------------------------------+---------+----------------------+-----+\n");
  for (int i = 0; i < n; ++i) {
    const cuda::DeviceProperties p = cuda::get_device_properties(i);
    std::cout << "cuda:" << i << " " << p << "\n";
    std::printf("       uuid %s, pci %04x:%02x:%02x, warp %d, max threads/SM %d, L2 %zu KiB\n", p.uuid.c_str(),
                p.pci_domain_id, p.pci_bus_id, p.pci_device_id, p.warp_size, p.max_threads_per_multi_processor,
                p.L2_cache_size >> 10);
    std::printf("       peer access:");
    for (int j = 0; j < n; ++j) {
      if (j != i) std::printf(" cuda:%d=%s", j, cuda::can_device_access_peer(i, j) ? "yes" : "no");
    }
    std::printf("\n");
  }
  return 0;
}
