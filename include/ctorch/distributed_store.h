// torch.distributed stores: the key-value rendezvous every rank of a job shares (FileStore,
// TCPStore, PrefixStore), and the distributed error classes.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ctorch/error.h"

namespace ctorch::distributed {

/// Base of the distributed errors (torch.distributed.DistError, a RuntimeError).
class DistError : public Error { using Error::Error; };
/// A collective failed in the backend: a peer died, hung or disagreed (torch.distributed.DistBackendError).
class DistBackendError : public DistError { using DistError::DistError; };
/// A store operation failed or timed out (torch.distributed.DistStoreError).
class DistStoreError : public DistError { using DistError::DistError; };
/// A socket could not be opened, bound or connected (torch.distributed.DistNetworkError).
class DistNetworkError : public DistError { using DistError::DistError; };

/// PyTorch's default timeout of stores and process groups (30 minutes).
inline constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::minutes(30);

/// A key-value store shared by the ranks of a job (torch.distributed.Store). Thread-safe.
class Store {
 public:
  /// A store whose blocking calls give up after `timeout`.
  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// Sets `key` to `value` (overwrites).
  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  /// The value of `key`, waiting up to timeout() for it to be set (DistStoreError after).
  virtual std::vector<uint8_t> get(const std::string& key) = 0;
  /// Adds `amount` to the integer stored at `key` (0 when absent); returns the new value.
  virtual int64_t add(const std::string& key, int64_t amount) = 0;
  /// True when every key in `keys` is set (does not wait).
  virtual bool check(const std::vector<std::string>& keys) = 0;
  /// Removes `key`; true when it existed.
  virtual bool delete_key(const std::string& key) = 0;
  /// Waits until every key in `keys` is set, up to `timeout` (DistStoreError after).
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;
  /// Waits with the store's own timeout.
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

  /// Sets a string value.
  void set(const std::string& key, const std::string& value);
  /// The value of `key` as a string.
  std::string get_string(const std::string& key);
  /// The timeout of blocking calls.
  std::chrono::milliseconds timeout() const { return timeout_; }
  /// Changes the timeout of blocking calls.
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

 protected:
  std::chrono::milliseconds timeout_;
};

/// A store in a file every rank can open (torch.distributed.FileStore): an append-only log of
/// records guarded by flock. The last user to close the store removes the file, as PyTorch's.
class FileStore : public Store {
 public:
  /// Opens (or creates) the store at `path` for `num_workers` users (-1: unknown, never removed).
  FileStore(std::string path, int num_workers = -1, std::chrono::milliseconds timeout = kDefaultTimeout);
  ~FileStore() override;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  using Store::wait;
  using Store::set;
  /// The file's path.
  const std::string& path() const { return path_; }
  /// The open file and the replayed map (defined in file_store.cpp).
  struct State;

 private:
  std::string path_;
  int num_workers_;
  std::unique_ptr<State> state_;
};

/// A store served over TCP by the master rank (torch.distributed.TCPStore): the master runs a
/// small key-value server on a background thread; every instance (master included) is a client.
class TCPStore : public Store {
 public:
  /// Connects to (or, with is_master, serves on) host:port; port 0 with is_master picks a free port.
  /// `world_size` (-1: unknown) is the number of clients the master waits for when wait_for_workers.
  TCPStore(std::string host, int port, int world_size = -1, bool is_master = false,
           std::chrono::milliseconds timeout = kDefaultTimeout, bool wait_for_workers = true);
  ~TCPStore() override;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  using Store::wait;
  using Store::set;
  /// The port the server listens on (the chosen one when constructed with port 0).
  int port() const { return port_; }
  /// The host the clients connect to.
  const std::string& host() const { return host_; }

 private:
  struct Server;
  struct Client;
  std::string host_;
  int port_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Client> client_;
};

/// Prefixes every key with "prefix/" before passing it to `store` (torch.distributed.PrefixStore).
class PrefixStore : public Store {
 public:
  /// Wraps `store`; keys become prefix + "/" + key.
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  using Store::wait;
  using Store::set;
  /// The wrapped store.
  const std::shared_ptr<Store>& underlying_store() const { return store_; }

 private:
  std::string key(const std::string& k) const { return prefix_ + "/" + k; }
  std::vector<std::string> keys(const std::vector<std::string>& ks) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace ctorch::distributed
