// TCPStore (ctorch/distributed_store.h). The master runs a single-threaded poll() server holding
// the map; every TCPStore (the master's too) is a client with one connection. Requests are
// [u8 command][u32 length, bytes]...; GET and WAIT are answered by the server once their keys
// exist, so clients do not poll. A client that times out drops its connection (the late answer
// would desynchronize it) and reconnects on its next call.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "ctorch/distributed_store.h"

namespace ctorch::distributed {
namespace {

enum Command : uint8_t { kSet = 0, kGet = 1, kAdd = 2, kCheck = 3, kDelete = 4, kWait = 5 };

using Bytes = std::vector<uint8_t>;

void put_u32(Bytes& out, uint32_t v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + 4);
}
void put_str(Bytes& out, const std::string& s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}
void put_bytes(Bytes& out, const Bytes& b) {
  put_u32(out, static_cast<uint32_t>(b.size()));
  out.insert(out.end(), b.begin(), b.end());
}

bool send_all(int fd, const uint8_t* data, size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, data, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    data += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

// Parses one request from `buf` at `pos`; false when incomplete.
struct Request {
  uint8_t cmd = 0;
  std::vector<Bytes> fields;
};
bool parse_request(const Bytes& buf, size_t& pos, Request& req) {
  size_t p = pos;
  if (p >= buf.size()) return false;
  req.cmd = buf[p++];
  req.fields.clear();
  auto field = [&]() -> bool {
    if (p + 4 > buf.size()) return false;
    uint32_t len;
    std::memcpy(&len, buf.data() + p, 4);
    p += 4;
    if (p + len > buf.size()) return false;
    req.fields.emplace_back(buf.begin() + static_cast<std::ptrdiff_t>(p), buf.begin() + static_cast<std::ptrdiff_t>(p + len));
    p += len;
    return true;
  };
  // SET: key, value; GET/DELETE: key; ADD: key, amount; CHECK/WAIT: count, keys...
  if (req.cmd == kSet || req.cmd == kAdd) {
    if (!field() || !field()) return false;
  } else if (req.cmd == kGet || req.cmd == kDelete) {
    if (!field()) return false;
  } else {
    if (!field()) return false;
    uint32_t count = 0;
    if (req.fields[0].size() == 4) std::memcpy(&count, req.fields[0].data(), 4);
    for (uint32_t i = 0; i < count; ++i) {
      if (!field()) return false;
    }
  }
  pos = p;
  return true;
}

std::string as_string(const Bytes& b) { return std::string(b.begin(), b.end()); }

std::string join_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i];
  return out;
}

}  // namespace

struct TCPStore::Server {
  int listen_fd = -1;
  int wake[2] = {-1, -1};
  std::thread thread;
  std::map<std::string, Bytes> map;  // touched only by `thread`
  struct Waiter {
    int fd;
    uint8_t cmd;  // kGet or kWait
    std::vector<std::string> keys;
  };
  std::vector<Waiter> waiters;
  std::map<int, Bytes> inbox;  // per client: bytes received, not yet parsed

  bool ready(const Waiter& w) const {
    for (const auto& k : w.keys) {
      if (!map.count(k)) return false;
    }
    return true;
  }
  void answer(const Waiter& w) {
    Bytes out;
    if (w.cmd == kGet) {
      put_bytes(out, map.at(w.keys[0]));
    } else {
      out.push_back(1);
    }
    send_all(w.fd, out.data(), out.size());
  }
  void wake_waiters() {
    for (size_t i = 0; i < waiters.size();) {
      if (ready(waiters[i])) {
        answer(waiters[i]);
        waiters.erase(waiters.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }
  void handle(int fd, const Request& r) {
    Bytes out;
    switch (r.cmd) {
      case kSet:
        map[as_string(r.fields[0])] = r.fields[1];
        out.push_back(1);
        break;
      case kAdd: {
        const std::string key = as_string(r.fields[0]);
        int64_t amount = 0;
        std::memcpy(&amount, r.fields[1].data(), std::min<size_t>(8, r.fields[1].size()));
        int64_t value = 0;
        if (auto it = map.find(key); it != map.end()) value = std::stoll(as_string(it->second));
        value += amount;
        const std::string text = std::to_string(value);
        map[key] = Bytes(text.begin(), text.end());
        const auto* p = reinterpret_cast<const uint8_t*>(&value);
        out.insert(out.end(), p, p + 8);
        break;
      }
      case kDelete:
        out.push_back(map.erase(as_string(r.fields[0])) > 0 ? 1 : 0);
        break;
      case kCheck: {
        bool all = true;
        for (size_t i = 1; i < r.fields.size(); ++i) all = all && map.count(as_string(r.fields[i])) > 0;
        out.push_back(all ? 1 : 0);
        break;
      }
      case kGet:
      case kWait: {
        Waiter w{fd, r.cmd, {}};
        for (size_t i = (r.cmd == kGet ? 0 : 1); i < r.fields.size(); ++i) w.keys.push_back(as_string(r.fields[i]));
        if (ready(w)) {
          answer(w);
        } else {
          waiters.push_back(std::move(w));
        }
        return;
      }
      default:
        return;
    }
    send_all(fd, out.data(), out.size());
    if (r.cmd == kSet || r.cmd == kAdd) wake_waiters();
  }
  void drop(int fd) {
    ::close(fd);
    inbox.erase(fd);
    std::erase_if(waiters, [fd](const Waiter& w) { return w.fd == fd; });
  }
  void run() {
    for (;;) {
      std::vector<pollfd> fds{{wake[0], POLLIN, 0}, {listen_fd, POLLIN, 0}};
      for (auto& [fd, _] : inbox) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[0].revents) return;  // shutdown
      if (fds[1].revents & POLLIN) {
        const int c = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c >= 0) {
          int one = 1;
          ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          inbox[c];
        }
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        const int fd = fds[i].fd;
        uint8_t tmp[65536];
        const ssize_t n = ::recv(fd, tmp, sizeof(tmp), 0);
        if (n <= 0) {
          if (n < 0 && errno == EINTR) continue;
          drop(fd);
          continue;
        }
        Bytes& buf = inbox[fd];
        buf.insert(buf.end(), tmp, tmp + n);
        size_t pos = 0;
        Request req;
        while (parse_request(buf, pos, req)) handle(fd, req);
        buf.erase(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(pos));
      }
    }
  }
  ~Server() {
    if (thread.joinable()) {
      const char c = 1;
      (void)!::write(wake[1], &c, 1);
      thread.join();
    }
    for (auto& [fd, _] : inbox) ::close(fd);
    if (listen_fd >= 0) ::close(listen_fd);
    if (wake[0] >= 0) ::close(wake[0]);
    if (wake[1] >= 0) ::close(wake[1]);
  }
};

struct TCPStore::Client {
  std::string host;
  int port = 0;
  int fd = -1;
  std::mutex mutex;  // one request at a time on `fd`

  void connect(std::chrono::milliseconds timeout) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      addrinfo hints{};
      hints.ai_family = AF_UNSPEC;
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* res = nullptr;
      if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) == 0) {
        for (addrinfo* a = res; a; a = a->ai_next) {
          const int s = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
          if (s < 0) continue;
          if (::connect(s, a->ai_addr, a->ai_addrlen) == 0) {
            int one = 1;
            ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            fd = s;
            break;
          }
          ::close(s);
        }
        ::freeaddrinfo(res);
      }
      if (fd >= 0) return;
      if (std::chrono::steady_clock::now() - start > timeout) {
        throw DistNetworkError("The client socket has timed out after " + std::to_string(timeout.count()) +
                               "ms while trying to connect to (" + host + ", " + std::to_string(port) + ").");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  // Sends `req` and reads exactly `n` bytes of answer (n = 0: a length-prefixed value).
  Bytes call(const Bytes& req, size_t n, std::chrono::milliseconds timeout, const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    if (fd < 0) connect(timeout);
    if (!send_all(fd, req.data(), req.size())) {
      reset();
      throw DistNetworkError("TCPStore: connection to (" + host + ", " + std::to_string(port) + ") lost during " + what);
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    Bytes out;
    size_t want = n == 0 ? 4 : n;
    bool have_len = n != 0;
    while (out.size() < want) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{fd, POLLIN, 0};
      const int r = ::poll(&p, 1, timeout.count() > 0 ? static_cast<int>(std::max<int64_t>(left.count(), 0)) : -1);
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) {
        reset();
        throw DistStoreError("Wait timeout after " + std::to_string(timeout.count()) + "ms, " + what);
      }
      uint8_t tmp[65536];
      const ssize_t k = ::recv(fd, tmp, std::min(sizeof(tmp), want - out.size()), 0);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        reset();
        throw DistNetworkError("TCPStore: connection to (" + host + ", " + std::to_string(port) +
                               ") closed by the server during " + what);
      }
      out.insert(out.end(), tmp, tmp + k);
      if (!have_len && out.size() == 4) {
        uint32_t len;
        std::memcpy(&len, out.data(), 4);
        out.clear();
        want = len;
        have_len = true;
      }
    }
    return out;
  }
  ~Client() { reset(); }
};

TCPStore::TCPStore(std::string host, int port, int world_size, bool is_master, std::chrono::milliseconds timeout,
                   bool wait_for_workers)
    : Store(timeout), host_(std::move(host)), port_(port), client_(std::make_unique<Client>()) {
  CTORCH_CHECK_VALUE(port_ >= 0 && port_ <= 65535, "TCPStore: port must be in [0, 65535], got ", port_);
  CTORCH_CHECK_VALUE(world_size == -1 || world_size > 0, "TCPStore: world_size must be positive or -1, got ",
                     world_size);
  CTORCH_CHECK_VALUE(is_master || port_ != 0, "TCPStore: a client needs the master's port, got 0");
  if (is_master) {
    server_ = std::make_unique<Server>();
    server_->listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(server_->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    if (::bind(server_->listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(server_->listen_fd, 128) != 0) {
      const std::string err = std::strerror(errno);
      throw DistNetworkError("The server socket has failed to listen on any local network address. port: " +
                             std::to_string(port_) + ", useIpv6: 0, code: -98, name: " + err);
    }
    socklen_t len = sizeof(addr);
    ::getsockname(server_->listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    if (::pipe2(server_->wake, O_CLOEXEC) != 0) throw DistNetworkError("TCPStore: pipe failed");
    server_->thread = std::thread([s = server_.get()] { s->run(); });
  }
  client_->host = host_;
  client_->port = port_;
  {
    std::lock_guard<std::mutex> lock(client_->mutex);
    client_->connect(timeout_);
  }
  add("init/", 1);
  if (is_master && wait_for_workers && world_size > 0) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      const int64_t joined = add("init/", 0);
      if (joined >= world_size) break;
      if (std::chrono::steady_clock::now() - start > timeout_) {
        throw DistStoreError("Timed out after " + std::to_string(timeout_.count() / 1000) +
                             " seconds waiting for clients. " + std::to_string(joined) + "/" +
                             std::to_string(world_size) + " clients joined.");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

TCPStore::~TCPStore() {
  client_.reset();
  server_.reset();
}

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  Bytes req{kSet};
  put_str(req, key);
  put_bytes(req, value);
  client_->call(req, 1, timeout_, "set " + key);
}

std::vector<uint8_t> TCPStore::get(const std::string& key) {
  Bytes req{kGet};
  put_str(req, key);
  return client_->call(req, 0, timeout_, "keys: " + key);
}

int64_t TCPStore::add(const std::string& key, int64_t amount) {
  Bytes req{kAdd};
  put_str(req, key);
  Bytes a(8);
  std::memcpy(a.data(), &amount, 8);
  put_bytes(req, a);
  const Bytes out = client_->call(req, 8, timeout_, "add " + key);
  int64_t v;
  std::memcpy(&v, out.data(), 8);
  return v;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  Bytes req{kCheck};
  Bytes count(4);
  const auto n = static_cast<uint32_t>(keys.size());
  std::memcpy(count.data(), &n, 4);
  put_bytes(req, count);
  for (const auto& k : keys) put_str(req, k);
  return client_->call(req, 1, timeout_, "check " + join_keys(keys))[0] != 0;
}

bool TCPStore::delete_key(const std::string& key) {
  Bytes req{kDelete};
  put_str(req, key);
  return client_->call(req, 1, timeout_, "delete " + key)[0] != 0;
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  Bytes req{kWait};
  Bytes count(4);
  const auto n = static_cast<uint32_t>(keys.size());
  std::memcpy(count.data(), &n, 4);
  put_bytes(req, count);
  for (const auto& k : keys) put_str(req, k);
  client_->call(req, 1, timeout, "keys: " + join_keys(keys));
}

}  // namespace ctorch::distributed
