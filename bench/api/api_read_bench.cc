// omnigraph-api-bench: one read query through the embedded public API, in one process, from
// several threads sharing one Database for a fixed time — the baseline scripts/loadtest.sh
// divides the server's numbers by (the HTTP overhead as a ratio). Prints one JSON object:
// {"requests_per_s", "p50_us", "p90_us", "p99_us", "requests", "errors"}.
//
//   omnigraph-api-bench URI QUERY_FILE NAME PARAMS_JSON THREADS SECONDS
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "omnigraph/omnigraph.h"

int main(int argc, char** argv) {
  using namespace omnigraph::api;
  if (argc != 7) {
    std::cerr << "usage: omnigraph-api-bench URI QUERY_FILE NAME PARAMS_JSON THREADS SECONDS\n";
    return 1;
  }
  std::ifstream in(argv[2]);
  std::stringstream source;
  source << in.rdbuf();
  Result<Json> params = ParseJson(argv[4], "PARAMS_JSON");
  if (!params.ok()) {
    std::cerr << params.status().ToString() << "\n";
    return 1;
  }
  Result<std::unique_ptr<Database>> db = Database::Open(argv[1]);
  if (!db.ok()) {
    std::cerr << db.status().ToString() << "\n";
    return 1;
  }
  const std::string name = argv[3];
  const int threads = std::max(1, std::atoi(argv[5]));
  const auto duration = std::chrono::duration<double>(std::atof(argv[6]));
  const std::string text = source.str();
  // Warm the handle and the execution cache as a running server would be.
  if (!(*db)->Query(text, name, *params).ok()) {
    std::cerr << (*db)->Query(text, name, *params).status().ToString() << "\n";
    return 1;
  }
  std::mutex mu;
  std::vector<double> latencies_us;
  std::atomic<uint64_t> errors{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      std::vector<double> mine;
      while (std::chrono::steady_clock::now() - start < duration) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!(*db)->Query(text, name, *params).ok()) ++errors;
        mine.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count());
      }
      std::lock_guard<std::mutex> lock(mu);
      latencies_us.insert(latencies_us.end(), mine.begin(), mine.end());
    });
  }
  for (std::thread& t : pool) t.join();
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(latencies_us.begin(), latencies_us.end());
  auto pct = [&](double p) {
    if (latencies_us.empty()) return 0.0;
    return latencies_us[std::min(
        latencies_us.size() - 1,
        static_cast<size_t>(p * static_cast<double>(latencies_us.size())))];
  };
  std::printf(
      "{\"requests_per_s\": %.1f, \"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, "
      "\"requests\": %zu, \"errors\": %llu}\n",
      static_cast<double>(latencies_us.size()) / elapsed_s, pct(0.50), pct(0.90), pct(0.99),
      latencies_us.size(), static_cast<unsigned long long>(errors.load()));
  return 0;
}
