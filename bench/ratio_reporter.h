// The side-by-side benchmarks' reporter: prints as the console reporter does and keeps each run's
// real time (and bytes/s when counted) by name, for the ratio table printed after the run.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace ctorch_bench {

/// Console output plus real time per benchmark name (a repetition's median when repeated).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration || r.aggregate_name == "median") {
        std::string name = r.run_name.str();  // without the aggregate suffix
        const std::string real_time = "/real_time";
        if (auto at = name.find(real_time); at != std::string::npos) name.erase(at, real_time.size());
        times_[name] = r.GetAdjustedRealTime();
        if (r.counters.count("bytes_per_second")) bw_[name] = r.counters.at("bytes_per_second");
      }
    }
  }
  std::map<std::string, double> times_, bw_;
};

}  // namespace ctorch_bench
