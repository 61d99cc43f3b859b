// omnigraph-bench: the benchmark binary (release preset). Each subcommand lives in its own file
// and registers itself with a static Registrar; bench/main.cc dispatches on the first argument.
//
// Every benchmark measures our operation side by side with a reference run in the same process
// (a raw store operation, SQLite, plain decompression) and reports ratios. Timing is reported,
// never asserted. Results go to stdout (a table, or JSON with --json); scripts keep the JSON in
// bench/results/ with the date and commit.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace omnigraph::bench {

// A subcommand: receives the arguments after its name; returns the process exit code.
using BenchMain = int (*)(const std::vector<std::string>& args);

struct Registrar {
  Registrar(const char* name, const char* help, BenchMain main);
};

// Simple "--flag value" / "--flag" parsing shared by the subcommands.
class Flags {
 public:
  // Parses; unknown flags are an error reported by Check().
  Flags(const std::vector<std::string>& args, const std::vector<std::string>& known);
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::string Get(const std::string& name, const std::string& fallback = {}) const;
  int64_t GetInt(const std::string& name, int64_t fallback) const;
  std::vector<int64_t> GetIntList(const std::string& name, std::vector<int64_t> fallback) const;
  // Empty when every flag was known and well formed; else the error to print.
  const std::string& error() const { return error_; }

 private:
  std::map<std::string, std::string> values_;
  std::string error_;
};

inline int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The p-th percentile (0..100) of the samples (sorted in place).
double Percentile(std::vector<double>& samples, double p);

}  // namespace omnigraph::bench
