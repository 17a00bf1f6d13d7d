// Interprocess events of the emulated runtime (private to backends/emulated).
//
// Note [Emulated interprocess events]
// An event created with EventFlags::interprocess keeps its state in a small POSIX shared-memory
// object ("/ctorch-ev-<pid>-<n>", one page), so that other processes (and this one) can open it
// from the 64-byte handle, as cudaIpcOpenEventHandle does. The state is lock-free atomics:
// - `recorded`: sequence number of the latest record, bumped when record_event is called;
// - `completed`: the highest sequence whose record task has run on its stream (a max, so a later
//   record completing first also completes earlier ones: CUDA keeps only the latest record);
// - `failed`: the highest sequence whose recording stream had a sticky error;
// - `recorder_pid`: the process of the latest record.
// query = completed >= recorded; synchronize = poll until completed reaches the sequence seen at
// the call; wait(stream) = a task on the stream that polls until completed reaches the sequence
// seen when wait() was called. Polls spin briefly, then sleep (up to 200 us), and fail with an
// Error when the recording process has exited (a zombie still counts as alive) before the work
// completed. The handle holds a magic/version, the creating device index, a nonce that must match
// the shared object's, and the object's name; the shared object also holds the device UUID, so a
// handle opened on another device is refused. The creator shm_unlinks at destroy_event; openers
// (and pending tasks) keep their mapping until they are done. A crashed creator leaves its
// object in /dev/shm.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/device_runtime.h"

namespace ctorch::inline api::backends::emulated {

struct IpcSharedState;
struct DeviceState;

/// One mapping of an interprocess event's shared state (see the Note above).
class IpcEventMapping {
 public:
  /// Where a record stands.
  enum class Status { kPending, kDone, kFailed };

  /// Creates the shared object of a new event on device `device` (UUID `uuid`); throws Error when
  /// the host refuses.
  static std::shared_ptr<IpcEventMapping> create(DeviceIndex device, const std::string& uuid);
  /// Maps the object `handle` names; throws ValueError for a malformed handle and Error when it
  /// names no live event. An object this process has mapped already is not mapped again: the new
  /// mapping shares the first one's address, so every thread here sees one set of atomics (and
  /// ThreadSanitizer sees their ordering).
  static std::shared_ptr<IpcEventMapping> open(const impl::IpcEventBytes& handle);
  /// Unmaps (unless it shares another mapping's address); a creator not yet released unlinks.
  ~IpcEventMapping();
  /// The creator's event is destroyed: unlinks the object's name now, so it can no longer be
  /// opened; mappings (and queued tasks) keep the memory. No-op for opened mappings.
  void release_name() noexcept;
  IpcEventMapping(const IpcEventMapping&) = delete;
  IpcEventMapping& operator=(const IpcEventMapping&) = delete;

  /// The 64-byte handle naming this event.
  const impl::IpcEventBytes& handle() const { return handle_; }
  /// The device index of the event in its creating process.
  DeviceIndex creator_device() const;
  /// The UUID of the event's device.
  std::string uuid() const;
  /// The shared object's name.
  const char* name() const;

  /// Starts a record from this process: returns its sequence number.
  uint64_t begin_record() noexcept;
  /// Marks record `seq` as run on its stream (`failed`: the stream had a sticky error).
  void complete(uint64_t seq, bool failed) noexcept;
  /// Sequence of the latest record (0 when never recorded).
  uint64_t recorded() const noexcept;
  /// Where record `seq` stands.
  Status status(uint64_t seq) const noexcept;
  /// True when record `seq` has completed; throws Error when it ran on a failed stream.
  bool done(uint64_t seq) const;
  /// Blocks until record `seq` has completed; throws Error when it failed or when the recording
  /// process exited first.
  void wait(uint64_t seq) const;

 private:
  IpcEventMapping() = default;
  [[noreturn]] void throw_failed() const;

  IpcSharedState* state_ = nullptr;
  impl::IpcEventBytes handle_{};
  bool owner_ = false;                      // created (not opened) here and not yet released
  std::shared_ptr<IpcEventMapping> shared_;  // the mapping whose address this one uses, if any
};

/// The shared state of a new interprocess event on `dev`; throws ValueError when `flags` enable
/// timing (CUDA refuses cudaEventInterprocess without cudaEventDisableTiming).
std::shared_ptr<IpcEventMapping> new_ipc_event_state(const DeviceState& dev, impl::EventFlags flags);

}  // namespace ctorch::api::backends::emulated
