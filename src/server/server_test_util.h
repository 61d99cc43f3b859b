// Test support for omnigraph-server over real HTTP on loopback (server_http_test.cc,
// server_abuse_test.cc): a temporary folder, a server child process started from
// build/<preset>/bin (OMNIGRAPH_BIN_DIR) whose port is read from the line it prints, and raw
// socket helpers, so that a test controls when each byte is sent.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/omnigraph.h"

namespace omnigraph::api {
namespace server_test {

inline constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I64? }
edge Knows: Person -> Person { }
)";
inline constexpr const char* kAliceToken = "alice-secret-token";
inline constexpr const char* kBobToken = "bob-secret-token";
inline constexpr const char* kTokens = R"({"alice":"alice-secret-token","bob":"bob-secret-token"})";
inline constexpr std::string_view kAddPerson =
    "query add($name: String) { insert Person { name: $name } }";
inline constexpr std::string_view kNames =
    "query names() { match { $p: Person } return { $p.name } order { $p.name } }";

inline std::string BinDir() {
  const char* dir = std::getenv("OMNIGRAPH_BIN_DIR");
  return dir ? dir : "build/debug/bin";
}

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> next{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = (std::filesystem::temp_directory_path() /
             ("omnigraph-server-test-" + std::string(info->name()) + "-" +
              std::to_string(::getpid()) + "-" + std::to_string(next++)))
                .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One omnigraph-server child process; its port is read from the line it prints when listening.
class ServerProcess {
 public:
  ServerProcess(const std::vector<std::string>& args,
                const std::map<std::string, std::string>& env = {
                    {"OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", kTokens}}) {
    int out[2];
    if (::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      ::unsetenv("OMNIGRAPH_SERVER_BEARER_TOKEN");
      ::unsetenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON");
      ::unsetenv("OMNIGRAPH_SERVER_BEARER_TOKENS_FILE");
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      std::vector<std::string> all = {BinDir() + "/omnigraph-server"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (std::string& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    out_ = out[0];
    // The first line says where it listens (or the process exits, e.g. refusing to start).
    std::string line;
    char c;
    while (::read(out_, &c, 1) == 1 && c != '\n') line += c;
    first_line_ = line;
    const std::string marker = "listening on http://127.0.0.1:";
    const size_t at = line.find(marker);
    if (at != std::string::npos) port_ = std::atoi(line.c_str() + at + marker.size());
  }
  ~ServerProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) ::close(out_);
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // The process's peak resident set (VmHWM), in KiB; 0 when it cannot be read.
  long PeakRssKiB() const {
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
    }
    return 0;
  }
  const std::string& first_line() const { return first_line_; }
  // SIGTERM, then the exit status (-1 when it did not exit normally).
  int Terminate() {
    ::kill(pid_, SIGTERM);
    return Wait();
  }
  int Wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    exited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  httplib::Client Client(const char* token = kAliceToken) const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(120, 0);
    if (token != nullptr) client.set_bearer_token_auth(token);
    return client;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  int port_ = 0;
  bool exited_ = false;
  std::string first_line_;
};

inline Json Parse(const std::string& body) {
  Result<Json> parsed = ParseJson(body, "response");
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString() << ": " << body;
  return parsed.ok() ? *parsed : Json();
}

// A raw HTTP/1.1 exchange, so the test controls when each byte is sent. A receive buffer size,
// when given, is set before connecting, so that the window the server sees is that small.
inline int Connect(int port, int receive_buffer_bytes = 0) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (receive_buffer_bytes > 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer_bytes, sizeof receive_buffer_bytes);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

inline void SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    ASSERT_GT(n, 0);
    data.remove_prefix(static_cast<size_t>(n));
  }
}

inline std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

}  // namespace server_test
}  // namespace omnigraph::api
