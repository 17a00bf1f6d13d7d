// Helpers for the distributed tests: ranks as threads of this process, each with its own group.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ctorch/distributed.h"

namespace ctorch::testing {

/// Which store the ranks meet in.
enum class StoreKind { File, Tcp };

/// A fresh directory under the temp dir, removed at destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("ctorch_dist_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  /// The directory.
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Stores for `world` ranks: one FileStore per rank on one file, or a TCPStore master (rank 0) and clients.
class RankStores {
 public:
  RankStores(StoreKind kind, int world, std::chrono::milliseconds timeout = std::chrono::seconds(20))
      : kind_(kind), world_(world), timeout_(timeout) {
    if (kind_ == StoreKind::Tcp) {
      master_ = std::make_shared<distributed::TCPStore>("127.0.0.1", 0, world, true, timeout, false);
    }
  }
  /// The store rank `rank` opens (call from the rank's thread).
  std::shared_ptr<distributed::Store> open(int rank) {
    if (kind_ == StoreKind::File) {
      return std::make_shared<distributed::FileStore>((dir_.path() / "store").string(), world_, timeout_);
    }
    if (rank == 0) return master_;
    return std::make_shared<distributed::TCPStore>("127.0.0.1", master_->port(), world_, false, timeout_);
  }

 private:
  StoreKind kind_;
  int world_;
  std::chrono::milliseconds timeout_;
  TempDir dir_;
  std::shared_ptr<distributed::TCPStore> master_;
};

/// Runs fn(rank) on `world` threads; rethrows the first rank's exception (by rank order).
inline void run_ranks(int world, const std::function<void(int)>& fn) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        fn(r);
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

/// A unique group name per call (stores may be shared between tests).
inline std::string unique_group(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "_" + std::to_string(counter++);
}

}  // namespace ctorch::testing
