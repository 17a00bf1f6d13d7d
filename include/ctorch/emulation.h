// Emulated CUDA devices: N virtual GPUs in host memory, for machines without a GPU and for tests.
//
// Enable them with the environment variable CTORCH_EMULATED_CUDA (read once, at first use of
// CUDA) or with ctorch::cuda::emulate(). The variable holds a device count ("2") or a spec of
// comma-separated keys:
//
//   CTORCH_EMULATED_CUDA="devices=4,memory=8GiB,name=Test GPU,capability=9.0,sms=132,peer=0-1;1-0"
//
//   devices=N        number of devices (0..64; default 1)
//   memory=SIZE      capacity per device: bytes, or with a unit B, K/KiB, M/MiB, G/GiB, T/TiB (1024)
//                    or KB, MB, GB, TB (1000); default 8GiB. Virtual: pages are committed on use.
//   name=TEXT        device name (no commas); " (emulated)" is appended when missing
//   capability=M.m   compute capability (default 8.0)
//   sms=N            multi_processor_count (default 108)
//   peer=all|none|a-b;c-d;...
//                    peer access: "a-b" lets device a access memory of device b (one direction);
//                    default all
//   reorder=0|1      debug mode: random 0-2 ms delays before each stream task (default 0)
//   seed=N           seed of the reorder delays (default 0)
//
// An empty value or "0" disables emulation. Bad keys or values throw ValueError naming them.
//
// The configured devices are the machine's physical ones. CUDA_VISIBLE_DEVICES, read whenever
// the devices are configured, selects and orders those the process sees, as on real GPUs:
// with devices=4 and CUDA_VISIBLE_DEVICES=2,0, cuda:0 is physical device 2 (its UUID and PCI
// bus id) and cuda:1 is physical device 0; the peer matrix is given in physical ordinals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ctorch::cuda {

/// How many emulated devices there are and what they look like.
struct EmulationConfig {
  /// Number of devices (0..64).
  int devices = 1;
  /// Capacity of each device in bytes (virtual; committed only when touched).
  size_t memory = size_t{8} << 30;
  /// Device name; empty means "ctorch Virtual GPU (emulated)".
  std::string name;
  /// Compute capability major.
  int major = 8;
  /// Compute capability minor.
  int minor = 0;
  /// multi_processor_count of every device.
  int multi_processor_count = 108;
  /// Pairs (a, b): device a may access memory of device b. nullopt: every pair may.
  std::optional<std::vector<std::pair<int, int>>> peer_access;
  /// Debug delay-and-reorder mode: random short sleeps before stream tasks.
  bool reorder = false;
  /// Seed of the reorder-mode delays.
  uint64_t seed = 0;
};

/// Makes the CUDA device type run on emulated devices configured by `config` (0 devices turns
/// emulation off). Throws ctorch::Error while emulated allocations, events or work are alive.
void emulate(const EmulationConfig& config);
/// Same as emulate() with `devices` devices and default properties.
void emulate(int devices);
/// True when the CUDA device type runs on emulated devices.
bool is_emulated() noexcept;

}  // namespace ctorch::cuda
