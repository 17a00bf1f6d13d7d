// CudaVirtualMemory: see Note [CUDA virtual memory] in virtual_memory.h. Compiled only (no GPU here).
#include "backends/cuda/virtual_memory.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <type_traits>

#include "backends/cuda/stream.h"
#include "ctorch/error.h"

namespace ctorch::inline api::backends::cuda {
namespace {

// The driver functions used, resolved once through the runtime (no link to libcuda).
struct DriverApi {
  PFN_cuMemAddressReserve_v10020 address_reserve = nullptr;
  PFN_cuMemAddressFree_v10020 address_free = nullptr;
  PFN_cuMemCreate_v10020 create = nullptr;
  PFN_cuMemRelease_v10020 release = nullptr;
  PFN_cuMemMap_v10020 map = nullptr;
  PFN_cuMemUnmap_v10020 unmap = nullptr;
  PFN_cuMemSetAccess_v10020 set_access = nullptr;
  PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
};

// The driver API, or null when an entry point is missing (no driver, or one older than CUDA 10.2).
const DriverApi* driver() noexcept {
  static const DriverApi* api = []() -> const DriverApi* {
    static DriverApi a;
    auto get = [](const char* name, auto* fn) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult status{};
      if (cudaGetDriverEntryPointByVersion(name, &p, 10020, cudaEnableDefault, &status) != cudaSuccess ||
          status != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        return false;
      }
      *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(p);
      return true;
    };
    const bool ok = get("cuMemAddressReserve", &a.address_reserve) && get("cuMemAddressFree", &a.address_free) &&
                    get("cuMemCreate", &a.create) && get("cuMemRelease", &a.release) && get("cuMemMap", &a.map) &&
                    get("cuMemUnmap", &a.unmap) && get("cuMemSetAccess", &a.set_access) &&
                    get("cuMemGetAllocationGranularity", &a.granularity);
    return ok ? &a : nullptr;
  }();
  return api;
}

void check(CUresult r, const char* what, DeviceIndex index) {
  CTORCH_CHECK(r == CUDA_SUCCESS, "CUDA driver error ", static_cast<int>(r), " in ", what, " on cuda:",
               static_cast<int>(index));
}

CUmemAllocationProp allocation_prop(DeviceIndex index) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = static_cast<int>(index);
  return prop;
}

}  // namespace

void* CudaVirtualMemory::reserve_address_range(DeviceIndex index, size_t bytes, size_t page_size) {
  const DriverApi* api = driver();
  if (api == nullptr) return nullptr;
  const CUmemAllocationProp prop = allocation_prop(index);
  size_t granularity = 0;
  check(api->granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity",
        index);
  CTORCH_CHECK_VALUE(granularity > 0 && page_size % granularity == 0 && bytes % page_size == 0,
                     "[reserve_address_range] Expected pages that are a multiple of cuda:", static_cast<int>(index),
                     "'s allocation granularity ", granularity, ", but got ", bytes, " bytes in pages of ", page_size);
  CUdeviceptr ptr = 0;
  const CUresult r = api->address_reserve(&ptr, bytes, 0, 0, 0);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) return nullptr;
  check(r, "cuMemAddressReserve", index);
  Reservation res{index, bytes, page_size, std::vector<uint64_t>(bytes / page_size, 0)};
  std::lock_guard<std::mutex> lock(mu_);
  reservations_.emplace(static_cast<uintptr_t>(ptr), std::move(res));
  return reinterpret_cast<void*>(ptr);
}

bool CudaVirtualMemory::map_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) {
  const DriverApi* api = driver();
  CTORCH_CHECK(api != nullptr, "[map_pages] the CUDA driver's virtual memory API is not available");
  std::lock_guard<std::mutex> lock(mu_);
  auto it = reservations_.find(reinterpret_cast<uintptr_t>(base));
  CTORCH_CHECK(it != reservations_.end() && it->second.device == index, "[map_pages] ", base,
               " is not an address range reserved on cuda:", static_cast<int>(index));
  Reservation& r = it->second;
  CTORCH_CHECK(offset % r.page == 0 && bytes % r.page == 0 && bytes > 0 && offset + bytes <= r.size,
               "[map_pages] [", offset, ", ", offset + bytes, ") is not whole pages of the reserved range");
  const size_t first = offset / r.page, last = (offset + bytes) / r.page;
  const CUmemAllocationProp prop = allocation_prop(index);
  const auto at = [&](size_t page) { return static_cast<CUdeviceptr>(it->first + page * r.page); };
  for (size_t i = first; i < last; ++i) {
    CTORCH_CHECK(r.handles[i] == 0, "[map_pages] page ", i, " is already mapped");
    CUmemGenericAllocationHandle h = 0;
    const CUresult res = api->create(&h, r.page, &prop, 0);
    if (res == CUDA_ERROR_OUT_OF_MEMORY) {
      for (size_t j = first; j < i; ++j) {
        (void)api->release(r.handles[j]);
        r.handles[j] = 0;
      }
      return false;
    }
    check(res, "cuMemCreate", index);
    r.handles[i] = h;
  }
  for (size_t i = first; i < last; ++i) check(api->map(at(i), r.page, 0, r.handles[i], 0), "cuMemMap", index);
  CUmemAccessDesc desc = {};
  desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  desc.location.id = static_cast<int>(index);
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(api->set_access(at(first), bytes, &desc, 1), "cuMemSetAccess", index);
  return true;
}

void CudaVirtualMemory::unmap_locked(Reservation& r, uintptr_t base, size_t first, size_t last) noexcept {
  const DriverApi* api = driver();
  if (api == nullptr) return;
  try {
    ScopedDevice guard(r.device);
    if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
  } catch (...) {  // a lost device: unmap anyway
  }
  for (size_t i = first; i < last && i < r.handles.size(); ++i) {
    if (r.handles[i] == 0) continue;
    (void)api->unmap(static_cast<CUdeviceptr>(base + i * r.page), r.page);
    (void)api->release(r.handles[i]);
    r.handles[i] = 0;
  }
}

void CudaVirtualMemory::unmap_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) noexcept {
  (void)index;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = reservations_.find(reinterpret_cast<uintptr_t>(base));
  if (it == reservations_.end()) return;
  Reservation& r = it->second;
  unmap_locked(r, it->first, offset / r.page, (offset + bytes) / r.page);
}

void CudaVirtualMemory::release_address_range(DeviceIndex index, void* base) noexcept {
  (void)index;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = reservations_.find(reinterpret_cast<uintptr_t>(base));
  if (it == reservations_.end()) return;
  Reservation& r = it->second;
  unmap_locked(r, it->first, 0, r.handles.size());
  if (const DriverApi* api = driver()) (void)api->address_free(static_cast<CUdeviceptr>(it->first), r.size);
  reservations_.erase(it);
}

}  // namespace ctorch::api::backends::cuda
