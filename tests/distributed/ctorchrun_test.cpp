// ctorchrun: the environment of each rank, prefixed output, failure handling; and examples/ddp
// under it (2 ranks equal 1 process; a rank that exits mid-step ends the job naming it).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <regex>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

struct ProcRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
  double seconds = 0;
};

ProcRun run(const std::string& cmd) {
  ProcRun r;
  const auto start = Clock::now();
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

const std::string kRun = CTORCH_RUN_EXE;

TEST(Ctorchrun, SetsTheRankEnvironmentAndPrefixesEachLine) {
  const ProcRun r = run(kRun + " --nproc-per-node 2 --master-port 29731 /bin/sh -c "
                           "'echo $MASTER_ADDR $MASTER_PORT $RANK $LOCAL_RANK $WORLD_SIZE $LOCAL_WORLD_SIZE; "
                           "echo to-stderr >&2'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[rank0]:127.0.0.1 29731 0 0 2 2\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[rank1]:127.0.0.1 29731 1 1 2 2\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[rank1]:to-stderr\n"), std::string::npos) << r.output;
  // Node 1 of 2: global ranks 2 and 3; --standalone picks a port other than the default.
  const ProcRun n = run(kRun + " --nnodes=2 --node_rank=1 --nproc_per_node=2 /bin/sh -c 'echo $RANK $WORLD_SIZE $GROUP_RANK'");
  EXPECT_NE(n.output.find("[rank3]:3 4 1"), std::string::npos) << n.output;
  const ProcRun s = run(kRun + " --standalone --nproc-per-node 1 /bin/sh -c 'echo port $MASTER_PORT'");
  EXPECT_EQ(s.output.find("port 29500"), std::string::npos) << s.output;
  EXPECT_NE(s.output.find("[rank0]:port "), std::string::npos) << s.output;
}

TEST(Ctorchrun, AFailedRankTerminatesTheOthersAndIsNamed) {
  const ProcRun r = run(kRun + " --nproc-per-node 3 /bin/sh -c 'if [ $RANK = 1 ]; then sleep 0.2; exit 3; fi; sleep 60'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_LT(r.seconds, 10) << r.output;  // the sleeping ranks were terminated
  EXPECT_NE(r.output.find("rank 1 (local_rank: 1, pid: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("failed (exitcode: 3)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Root Cause (first observed failure):\n  rank      : 1 (local_rank: 1)\n  exitcode  : 3"),
            std::string::npos)
      << r.output;
  const ProcRun k = run(kRun + " --nproc-per-node 2 /bin/sh -c 'if [ $RANK = 0 ]; then kill -9 $$; fi; sleep 60'");
  EXPECT_EQ(k.exit_code, 1) << k.output;
  EXPECT_NE(k.output.find("exitcode  : -9, signal 9 (SIGKILL)"), std::string::npos) << k.output;
  const ProcRun bad = run(kRun + " --nproc-per-node 0 /bin/true");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("--nproc-per-node must be >= 1, got 0"), std::string::npos) << bad.output;
}

#ifdef CTORCH_DDP_EXE
const std::string kDdp = CTORCH_DDP_EXE;

// "rank R final loss L weights W" of rank R in `out`.
std::pair<double, double> final_line(const std::string& out, int rank) {
  std::smatch m;
  const std::regex re("rank " + std::to_string(rank) + " final loss ([0-9.]+) weights ([0-9.]+)");
  if (!std::regex_search(out, m, re)) return {-1, -1};
  return {std::stod(m[1]), std::stod(m[2])};
}

void expect_two_ranks_match_one(const std::string& extra) {
  const ProcRun one = run(kDdp + " --steps 40" + extra);
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const ProcRun two = run(kRun + " --standalone --nproc-per-node 2 " + kDdp + " --steps 40" + extra);
  ASSERT_EQ(two.exit_code, 0) << two.output;
  const auto [loss, weights] = final_line(one.output, 0);
  ASSERT_GT(loss, 0) << one.output;
  EXPECT_NE(two.output.find("[rank0]:world_size 2"), std::string::npos) << two.output;
  for (int r = 0; r < 2; ++r) {
    const auto [l, w] = final_line(two.output, r);
    EXPECT_NEAR(l, loss, 1e-5 + 1e-4 * loss) << "rank " << r << "\n" << one.output << "\n" << two.output;
    EXPECT_NEAR(w, weights, 1e-4 * weights) << "rank " << r << "\n" << one.output << "\n" << two.output;
  }
  EXPECT_LT(loss, 0.2) << one.output;  // it learned something
}

TEST(CtorchrunDdp, TwoRanksMatchOneProcessOnCpu) { expect_two_ranks_match_one(""); }

TEST(CtorchrunDdp, TwoRanksMatchOneProcessOnEmulatedDevices) { expect_two_ranks_match_one(" --emulate 2"); }

TEST(CtorchrunDdp, ARankExitingMidStepEndsTheJobNamingIt) {
  const ProcRun r = run(kRun + " --standalone --nproc-per-node 2 " + kDdp +
                    " --steps 1000 --fail-rank 1 --fail-step 3 --timeout 5");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_LT(r.seconds, 15) << r.output;
  EXPECT_NE(r.output.find("[rank1]:rank 1 exits in the middle of step 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Root Cause (first observed failure):\n  rank      : 1 (local_rank: 1)\n  exitcode  : 3"),
            std::string::npos)
      << r.output;
}
#endif

}  // namespace
