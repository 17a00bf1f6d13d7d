// A fake libnvidia-ml for the NVML path of ctorch's telemetry (tests/unit/nvml_test.cpp): three
// devices with fixed readings; device i reports utilization 10+i %, memory 20+i %, 40+i C,
// 100+i W (limit 250 W), SM clock 1500+i MHz. Device 0 runs processes 111 (1 MiB) and 222
// (3 MiB), device 1 none, device 2 ten (more than a first buffer of 8). nvmlInit_v2 fails with
// NVML_ERROR_DRIVER_NOT_LOADED when CTORCH_FAKE_NVML_NO_DRIVER is set.
#include <cstdlib>
#include <cstring>

namespace {
constexpr unsigned kDevices = 3;
int g_devices[kDevices];  // the handles are pointers to these
const char* kUuids[kDevices] = {"GPU-11111111-aaaa-bbbb-cccc-000000000000", "GPU-22222222-aaaa-bbbb-cccc-000000000000",
                                "GPU-33333333-aaaa-bbbb-cccc-000000000000"};
struct ProcessInfo {
  unsigned pid;
  unsigned long long used;
  unsigned gi;
  unsigned ci;
};
int index_of(void* h) {
  for (unsigned i = 0; i < kDevices; ++i) {
    if (h == &g_devices[i]) return static_cast<int>(i);
  }
  return -1;
}
}  // namespace

extern "C" {
int nvmlInit_v2() { return std::getenv("CTORCH_FAKE_NVML_NO_DRIVER") ? 9 : 0; }
const char* nvmlErrorString(int r) { return r == 2 ? "Invalid Argument" : "Unknown Error"; }
int nvmlDeviceGetCount_v2(unsigned* n) {
  *n = kDevices;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** h) {
  if (i >= kDevices) return 2;
  *h = &g_devices[i];
  return 0;
}
int nvmlDeviceGetUUID(void* h, char* buf, unsigned len) {
  const int i = index_of(h);
  if (i < 0) return 2;
  std::strncpy(buf, kUuids[i], len);
  return 0;
}
int nvmlDeviceGetUtilizationRates(void* h, unsigned* u) {
  const int i = index_of(h);
  if (i < 0) return 2;
  u[0] = 10 + i;
  u[1] = 20 + i;
  return 0;
}
int nvmlDeviceGetTemperature(void* h, unsigned sensor, unsigned* t) {
  const int i = index_of(h);
  if (i < 0 || sensor != 0) return 2;
  *t = 40 + i;
  return 0;
}
int nvmlDeviceGetPowerUsage(void* h, unsigned* mw) {
  const int i = index_of(h);
  if (i < 0) return 2;
  *mw = 100000 + 1000 * i;
  return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(void* h, unsigned* mw) {
  if (index_of(h) < 0) return 2;
  *mw = 250000;
  return 0;
}
int nvmlDeviceGetClockInfo(void* h, unsigned type, unsigned* mhz) {
  const int i = index_of(h);
  if (i < 0 || type != 1) return 2;  // the SM clock only
  *mhz = 1500 + i;
  return 0;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void* h, unsigned* count, ProcessInfo* infos) {
  const int i = index_of(h);
  if (i < 0) return 2;
  const unsigned n = i == 0 ? 2 : i == 1 ? 0 : 10;
  if (*count < n) {
    *count = n;
    return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  }
  for (unsigned k = 0; k < n; ++k) {
    infos[k] = ProcessInfo{i == 0 ? 111u * (k + 1) : 1000u + k, (i == 0 ? 1ull + 2 * k : 5ull) << 20, ~0u, ~0u};
  }
  *count = n;
  return 0;
}
int nvmlSystemGetDriverVersion(char* buf, unsigned len) {
  std::strncpy(buf, "999.99", len);
  return 0;
}
int nvmlSystemGetCudaDriverVersion_v2(int* v) {
  *v = 12020;
  return 0;
}
}
