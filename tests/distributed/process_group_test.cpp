// init_process_group, the default group, stores, and failures: wrong backend, missing environment,
// mismatched world size, a rank that hangs or leaves (errors within the timeout, naming the rank).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdlib>
#include <optional>

#include "ctorch/ctorch.h"
#include "distributed/dist_test_util.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

namespace dist = ctorch::distributed;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// Sets (or unsets, with nullopt) environment variables for a scope.
class EnvScope {
 public:
  EnvScope(std::initializer_list<std::pair<const char*, std::optional<std::string>>> vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name);
      saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
      if (value) {
        ::setenv(name, value->c_str(), 1);
      } else {
        ::unsetenv(name);
      }
    }
  }
  ~EnvScope() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(s);
  return ntohs(addr.sin_port);
}

TEST(InitProcessGroup, RefusesBackendsItDoesNotHave) {
  if (!dist::is_nccl_available()) {  // built without the real CUDA backend
    const std::string nccl = error_of([] { dist::init_process_group("nccl"); });
    EXPECT_NE(nccl.find("Distributed package doesn't have NCCL built in"), std::string::npos) << nccl;
  } else if (cuda::is_emulated() || cuda::device_count() == 0) {
    // NCCL is built in but needs real GPUs: emulated devices take the Gloo backend.
    const std::string path = ::testing::TempDir() + "ctorch_nccl_store";
    std::remove(path.c_str());
    const std::string nccl = error_of([&] {
      dist::init_process_group("nccl", "", 1, 0, std::chrono::seconds(5), std::make_shared<dist::FileStore>(path, 1));
    });
    EXPECT_NE(nccl.find("ProcessGroupNCCL is only supported with GPUs, no GPUs found!"), std::string::npos) << nccl;
    EXPECT_FALSE(dist::is_initialized());
    std::remove(path.c_str());
  }
  EXPECT_NE(error_of([] { dist::init_process_group("mpi"); }).find("doesn't have MPI built in"), std::string::npos);
  EXPECT_NE(error_of<ValueError>([] { dist::init_process_group("foo"); }).find("Invalid backend: 'foo'"),
            std::string::npos);
  EXPECT_TRUE(dist::is_gloo_available());
  EXPECT_FALSE(dist::is_initialized());
}

TEST(InitProcessGroup, EnvNamesTheMissingVariable) {
  {
    EnvScope env({{"RANK", std::nullopt}, {"WORLD_SIZE", "1"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "1"}});
    EXPECT_NE(error_of<ValueError>([] { dist::init_process_group("gloo", "env://"); })
                  .find("Error initializing torch.distributed using env:// rendezvous: environment variable RANK "
                        "expected, but not set"),
              std::string::npos);
  }
  {
    EnvScope env({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_ADDR", std::nullopt}, {"MASTER_PORT", "1"}});
    EXPECT_NE(error_of<ValueError>([] { dist::init_process_group(); }).find("environment variable MASTER_ADDR"),
              std::string::npos);
  }
  {
    EnvScope env({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", std::nullopt}});
    EXPECT_NE(error_of<ValueError>([] { dist::init_process_group(); }).find("environment variable MASTER_PORT"),
              std::string::npos);
  }
  {
    EnvScope env({{"RANK", "0"}, {"WORLD_SIZE", std::nullopt}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "1"}});
    EXPECT_NE(error_of<ValueError>([] { dist::init_process_group(); }).find("environment variable WORLD_SIZE"),
              std::string::npos);
  }
  {
    EnvScope env({{"RANK", "3"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "1"}});
    EXPECT_NE(error_of<ValueError>([] { dist::init_process_group(); }).find("Invalid rank 3"), std::string::npos);
  }
  EXPECT_NE(error_of<ValueError>([] { dist::init_process_group("gloo", "tcp://127.0.0.1:1234"); })
                .find("tcp:// rendezvous: rank parameter missing"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([] { dist::init_process_group("gloo", "file:///tmp/x", -1, 0); })
                .find("file:// rendezvous: world size parameter missing"),
            std::string::npos);
  EXPECT_FALSE(dist::is_initialized());
}

TEST(InitProcessGroup, EnvRendezvousOfOneRankAndTheDefaultGroup) {
  EXPECT_NE(error_of<Error>([] { dist::get_rank(); }).find("Default process group has not been initialized"),
            std::string::npos);
  EXPECT_THROW(dist::get_world_size(), Error);
  EXPECT_NE(error_of<Error>([] { dist::all_reduce(ones({2})); }).find("Default process group has not been initialized"),
            std::string::npos);
  EnvScope env({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_ADDR", "127.0.0.1"},
                {"MASTER_PORT", std::to_string(free_port())}});
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(10));
  EXPECT_TRUE(dist::is_initialized());
  EXPECT_EQ(dist::get_rank(), 0);
  EXPECT_EQ(dist::get_world_size(), 1);
  EXPECT_EQ(dist::get_backend(), "gloo");
  EXPECT_NE(error_of([] { dist::init_process_group(); }).find("trying to initialize the default process group twice!"),
            std::string::npos);
  Tensor t = arange(4, TensorOptions().dtype(kFloat));
  EXPECT_EQ(dist::all_reduce(t), nullptr);  // synchronous: no Work
  EXPECT_TRUE(t.equal(arange(4, TensorOptions().dtype(kFloat))));
  auto work = dist::all_reduce(t, dist::ReduceOp::SUM, nullptr, true);
  ASSERT_NE(work, nullptr);
  work->wait();
  data::DistributedSampler sampler(10);  // num_replicas and rank from the default group
  EXPECT_EQ(sampler.size(), 10u);
  auto group = dist::new_group();
  EXPECT_EQ(group->size(), 1);
  dist::barrier(group);
  dist::destroy_process_group();
  EXPECT_FALSE(dist::is_initialized());
}

TEST(InitProcessGroup, FileAndStoreInitMethods) {
  TempDir dir;
  const std::string url = "file://" + (dir.path() / "init").string();
  dist::init_process_group("gloo", url, 1, 0, std::chrono::seconds(10));
  EXPECT_EQ(dist::get_world_size(), 1);
  dist::destroy_process_group();
  auto store = std::make_shared<dist::FileStore>((dir.path() / "s").string(), 1);
  EXPECT_NE(error_of<ValueError>([&] { dist::init_process_group("gloo", url, 1, 0, milliseconds(1000), store); })
                .find("Cannot specify both init_method and store."),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([&] { dist::init_process_group("gloo", "", -1, 0, milliseconds(1000), store); })
                .find("world_size must be positive if using store"),
            std::string::npos);
  dist::init_process_group("gloo", "", 1, 0, std::chrono::seconds(10), store);
  EXPECT_TRUE(dist::is_initialized());
  dist::destroy_process_group();
}

class Stores : public ::testing::TestWithParam<StoreKind> {};

TEST_P(Stores, SetGetAddCheckWaitDelete) {
  RankStores stores(GetParam(), 2, milliseconds(300));
  auto a = stores.open(0);
  std::shared_ptr<dist::Store> b;
  std::thread t([&] { b = stores.open(1); });
  t.join();
  a->set("k", std::string("value"));
  EXPECT_EQ(b->get_string("k"), "value");
  EXPECT_EQ(a->add("n", 5), 5);
  EXPECT_EQ(b->add("n", -2), 3);
  EXPECT_TRUE(b->check({"k", "n"}));
  EXPECT_FALSE(b->check({"k", "absent"}));
  EXPECT_TRUE(a->delete_key("k"));
  EXPECT_FALSE(b->delete_key("k"));
  EXPECT_FALSE(b->check({"k"}));
  // A waiter wakes when another rank sets the key.
  std::thread setter([&] {
    std::this_thread::sleep_for(milliseconds(50));
    b->set("late", std::string("x"));
  });
  a->wait({"late"}, std::chrono::seconds(5));
  setter.join();
  // A key nobody sets: DistStoreError once the timeout passed, not a hang.
  const auto start = Clock::now();
  const std::string err = error_of<dist::DistStoreError>([&] { a->get("never"); });
  const auto took = Clock::now() - start;
  EXPECT_NE(err.find("never"), std::string::npos) << err;
  EXPECT_GE(took, milliseconds(250));
  EXPECT_LT(took, milliseconds(3000));
  // The store still works after a timeout.
  a->set("after", std::string("ok"));
  EXPECT_EQ(a->get_string("after"), "ok");
  dist::PrefixStore p("pre", a);
  p.set("x", std::string("1"));
  EXPECT_EQ(b->get_string("pre/x"), "1");
}

INSTANTIATE_TEST_SUITE_P(, Stores, ::testing::Values(StoreKind::File, StoreKind::Tcp),
                         [](const auto& info) { return info.param == StoreKind::File ? "file" : "tcp"; });

TEST(TCPStoreErrors, ClientWithoutServerTimesOut) {
  const auto start = Clock::now();
  const std::string err = error_of<dist::DistNetworkError>(
      [] { dist::TCPStore("127.0.0.1", free_port(), 2, false, milliseconds(300)); });
  EXPECT_NE(err.find("has timed out after 300ms while trying to connect"), std::string::npos) << err;
  EXPECT_LT(Clock::now() - start, milliseconds(3000));
  const std::string waiting =
      error_of<dist::DistStoreError>([] { dist::TCPStore("127.0.0.1", 0, 2, true, milliseconds(300)); });
  EXPECT_NE(waiting.find("waiting for clients. 1/2 clients joined."), std::string::npos) << waiting;
}

TEST(ProcessGroupFailures, MismatchedWorldSize) {
  TempDir dir;
  const std::string path = (dir.path() / "store").string();
  std::string err0, err1;
  const auto start = Clock::now();
  run_ranks(2, [&](int rank) {
    auto store = std::make_shared<dist::FileStore>(path, 2, milliseconds(1500));
    if (rank == 0) {
      err0 = error_of<dist::DistBackendError>([&] { dist::new_gloo_group(store, 0, 2, milliseconds(1500), "ws"); });
    } else {
      err1 = error_of<ValueError>([&] { dist::new_gloo_group(store, 1, 3, milliseconds(1500), "ws"); });
    }
  });
  EXPECT_NE(err1.find("[Rank 1]: mismatched world_size in group 'ws': rank 0 was initialized with world_size=2, "
                      "this rank with world_size=3"),
            std::string::npos)
      << err1;
  // Rank 1 never connects: rank 0 times out naming it.
  EXPECT_NE(err0.find("[Rank 0]: Gloo rendezvous of group 'ws' (world_size=2, timeout=1500ms) failed: rank(s) 1 did "
                      "not join"),
            std::string::npos)
      << err0;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(6));
}

TEST(ProcessGroupFailures, HungRankFailsThePeersWithinTheTimeout) {
  RankStores stores(StoreKind::Tcp, 2, std::chrono::seconds(10));
  const milliseconds timeout(1500);
  std::string err, second;
  Clock::duration took{};
  std::atomic<bool> done{false};
  run_ranks(2, [&](int rank) {
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 2, timeout, "hung");
    if (rank == 1) {  // joins, then never calls the collective
      while (!done) std::this_thread::sleep_for(milliseconds(10));
      return;
    }
    Tensor t = ones({16});
    const auto start = Clock::now();
    err = error_of<dist::DistBackendError>([&] { pg->all_reduce(t)->wait(); });
    took = Clock::now() - start;
    const auto start2 = Clock::now();
    second = error_of<dist::DistBackendError>([&] { pg->all_reduce(t)->wait(); });
    EXPECT_LT(Clock::now() - start2, milliseconds(500));  // a broken group fails at once
    done = true;
  });
  EXPECT_NE(err.find("[Rank 0]: Gloo all_reduce (SeqNum=1, world_size=2, timeout=1500ms) failed"), std::string::npos)
      << err;
  EXPECT_NE(err.find("Timed out"), std::string::npos) << err;
  EXPECT_NE(err.find("; rank(s) 1 did not report this failure within 750ms: dead, hung, or not in this collective"),
            std::string::npos)
      << err;
  EXPECT_GE(took, milliseconds(1400));
  EXPECT_LT(took, milliseconds(5000));
  EXPECT_NE(second.find("failed earlier"), std::string::npos) << second;
}

// Four ranks: rank 2 joins but never calls the collective; the three others fail naming it.
TEST(ProcessGroupFailures, HungRankAmongFourIsNamedByEveryPeer) {
  RankStores stores(StoreKind::File, 4, std::chrono::seconds(10));
  std::vector<std::string> errs(4);
  std::atomic<int> finished{0};
  const auto start = Clock::now();
  run_ranks(4, [&](int rank) {
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 4, milliseconds(1500), "hung4");
    if (rank == 2) {
      while (finished < 3) std::this_thread::sleep_for(milliseconds(10));
      return;
    }
    Tensor t = ones({1024});
    errs[static_cast<size_t>(rank)] = error_of<dist::DistBackendError>([&] { pg->all_reduce(t)->wait(); });
    ++finished;
  });
  EXPECT_LT(Clock::now() - start, milliseconds(6000));
  for (int r : {0, 1, 3}) {
    const std::string& e = errs[static_cast<size_t>(r)];
    EXPECT_NE(e.find("[Rank " + std::to_string(r) + "]: Gloo all_reduce (SeqNum=1, world_size=4"), std::string::npos) << e;
    EXPECT_NE(e.find("; rank(s) 2 did not report this failure"), std::string::npos) << e;
  }
}

// Four ranks: rank 3 leaves after a successful collective; the others fail at once naming it.
TEST(ProcessGroupFailures, RankThatLeavesIsNamedByEveryPeer) {
  RankStores stores(StoreKind::Tcp, 4, std::chrono::seconds(10));
  std::vector<std::string> errs(4);
  std::vector<Clock::duration> took(4);
  run_ranks(4, [&](int rank) {
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 4, milliseconds(2000), "leaves4");
    Tensor t = ones({1024});
    pg->all_reduce(t)->wait();  // all alive: works
    EXPECT_TRUE(t.equal(full({1024}, 4.0)));
    if (rank == 3) {
      pg.reset();  // rank 3 leaves: its connections close
      return;
    }
    std::this_thread::sleep_for(milliseconds(100));
    const auto start = Clock::now();
    errs[static_cast<size_t>(rank)] = error_of<dist::DistBackendError>([&] { pg->all_reduce(t)->wait(); });
    took[static_cast<size_t>(rank)] = Clock::now() - start;
  });
  for (int r : {0, 1, 2}) {
    const std::string& e = errs[static_cast<size_t>(r)];
    EXPECT_NE(e.find("[Rank " + std::to_string(r) + "]: Gloo all_reduce (SeqNum=2"), std::string::npos) << e;
    EXPECT_NE(e.find("; rank(s) 3 did not report this failure within 1000ms"), std::string::npos) << e;
    // The connection closes at once: well before the 2000 ms timeout, plus the 1000 ms grace.
    EXPECT_LT(took[static_cast<size_t>(r)], milliseconds(1900)) << e;
  }
}

}  // namespace
}  // namespace ctorch::testing
