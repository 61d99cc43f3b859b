// Test support for the S3 backend: where the test server is (from the environment that
// scripts/servers.sh exports), fresh stores on it, and a scripted HTTP server on loopback for the
// failure mapping that a real server will not produce on demand.
//
// A test that needs the S3 server starts with OMNIGRAPH_REQUIRE_S3(): when the server is not
// configured it fails under CI (CI=true) and skips elsewhere, both with a message saying how to
// start it. Thread-safe.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "storage/real_server.h"
#include "storage/s3/s3_store.h"

namespace omnigraph::storage::s3 {

// The test server: OMNIGRAPH_TEST_S3_URI (s3://bucket[/prefix]) plus the AWS_* variables.
struct S3TestTarget {
  S3Config config;
  std::string bucket;
  std::string prefix;
};

// The target, or a message saying what is missing and how to start RGW.
Result<S3TestTarget> S3TestTargetFromEnvironment();
using storage::InCi;
// "{pid}-{n}-{time}": unique across the processes and stores of one test run (for prefixes,
// buckets and containers).
std::string UniqueSuffix();
// Empty when the server is configured; otherwise what is missing and how to start it.
std::string S3TestServerMissing();

// A store on the test server under a prefix no other test uses ("{prefix}/{label}-{pid}-{n}").
Result<std::shared_ptr<S3Store>> OpenTestStore(std::string_view label);
// The RGW server as a RealServer test parameter.
RealServer S3Server();
// A fresh, empty bucket on the test server and a store on it without a prefix (so the whole
// 1,024-byte key space is available to names, as the contract suite needs).
Result<std::shared_ptr<S3Store>> OpenFreshBucketStore();

// A minimal HTTP/1.1 server on 127.0.0.1 answering each request with a scripted handler.
class ScriptedHttpServer {
 public:
  struct Request {
    std::string method;
    // The raw request target ("/bucket/key?query").
    std::string target;
    // By lower-case name.
    std::map<std::string, std::string> headers;
    std::string body;
  };
  struct Reply {
    long status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    // Close the connection without answering (a lost acknowledgement).
    bool drop = false;
  };
  using Handler = std::function<Reply(const Request&)>;

  explicit ScriptedHttpServer(Handler handler);
  ~ScriptedHttpServer();
  ScriptedHttpServer(const ScriptedHttpServer&) = delete;
  ScriptedHttpServer& operator=(const ScriptedHttpServer&) = delete;

  int port() const { return port_; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Every request received so far, in arrival order.
  std::vector<Request> requests() const;

 private:
  void AcceptLoop();
  void Serve(int fd);
  void CloseConnection(int fd);

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::vector<Request> requests_;
  std::vector<int> connections_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

// An S3 error document body.
std::string S3ErrorBody(std::string_view code);

}  // namespace omnigraph::storage::s3

// Fails under CI, skips elsewhere, when the S3 test server is not configured.
#define OMNIGRAPH_REQUIRE_S3()                                                           \
  do {                                                                                   \
    std::string omnigraph_s3_missing_ = ::omnigraph::storage::s3::S3TestServerMissing(); \
    if (!omnigraph_s3_missing_.empty()) {                                                \
      if (::omnigraph::storage::s3::InCi()) FAIL() << omnigraph_s3_missing_;             \
      GTEST_SKIP() << omnigraph_s3_missing_;                                             \
    }                                                                                    \
  } while (0)
