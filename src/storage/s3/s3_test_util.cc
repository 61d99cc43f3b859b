#include "storage/s3/s3_test_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "storage/uri.h"

namespace omnigraph::storage::s3 {

namespace {

constexpr char kHowToStart[] =
    "start the S3 test server first: `source scripts/servers.sh && servers_start` (Ceph RGW on "
    "127.0.0.1; exports OMNIGRAPH_TEST_S3_URI and AWS_*), or run `bash scripts/test.sh`, which "
    "does it";

std::atomic<int> unique_counter{0};

}  // namespace

std::string UniqueSuffix() {
  return std::to_string(::getpid()) + "-" + std::to_string(unique_counter.fetch_add(1)) + "-" +
         std::to_string(SystemClock::Default()->NowMicros() % 1'000'000'000);
}

Result<S3TestTarget> S3TestTargetFromEnvironment() {
  const char* uri = std::getenv("OMNIGRAPH_TEST_S3_URI");
  if (uri == nullptr || *uri == '\0') {
    return Status(Code::kConfiguration,
                  std::string("OMNIGRAPH_TEST_S3_URI is not set, so there is no S3 server to "
                              "test against: ") +
                      kHowToStart);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(StoreUri parsed, ParseStoreUri(uri));
  if (parsed.scheme != Scheme::kS3) {
    return Status(
        Code::kConfiguration,
        "OMNIGRAPH_TEST_S3_URI must be s3://bucket[/prefix], not '" + std::string(uri) + "'");
  }
  Result<S3Config> config = S3Config::FromEnvironment();
  if (!config.ok()) return config.status().WithContext(kHowToStart);
  return S3TestTarget{std::move(*config), parsed.location, parsed.prefix};
}

std::string S3TestServerMissing() {
  Result<S3TestTarget> target = S3TestTargetFromEnvironment();
  return target.ok() ? std::string() : target.status().message();
}

Result<std::shared_ptr<S3Store>> OpenTestStore(std::string_view label) {
  OMNIGRAPH_ASSIGN_OR_RETURN(S3TestTarget target, S3TestTargetFromEnvironment());
  std::string prefix = (target.prefix.empty() ? "" : target.prefix + "/") + std::string(label) +
                       "-" + UniqueSuffix();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<S3Store> store,
                             S3Store::Open(target.config, target.bucket, prefix));
  return std::shared_ptr<S3Store>(std::move(store));
}

Result<std::shared_ptr<S3Store>> OpenFreshBucketStore() {
  OMNIGRAPH_ASSIGN_OR_RETURN(S3TestTarget target, S3TestTargetFromEnvironment());
  std::string bucket = "og-test-" + UniqueSuffix();
  OMNIGRAPH_RETURN_IF_ERROR(S3Store::CreateBucket(target.config, bucket));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<S3Store> store,
                             S3Store::Open(target.config, bucket, ""));
  return std::shared_ptr<S3Store>(std::move(store));
}

RealServer S3Server() {
  return RealServer{"S3", &S3TestServerMissing,
                    [](std::string_view label) -> Result<std::shared_ptr<ObjectStore>> {
                      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<S3Store> store,
                                                 OpenTestStore(label));
                      return std::shared_ptr<ObjectStore>(std::move(store));
                    }};
}

std::string S3ErrorBody(std::string_view code) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + std::string(code) +
         "</Code><Message></Message></Error>";
}

ScriptedHttpServer::ScriptedHttpServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  OMNIGRAPH_CHECK(listen_fd_ >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  OMNIGRAPH_CHECK(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  OMNIGRAPH_CHECK(::listen(listen_fd_, 64) == 0);
  socklen_t len = sizeof(addr);
  OMNIGRAPH_CHECK(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

ScriptedHttpServer::~ScriptedHttpServer() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  {
    std::lock_guard lock(mu_);
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  }
  for (std::thread& t : threads_) t.join();
}

std::vector<ScriptedHttpServer::Request> ScriptedHttpServer::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

void ScriptedHttpServer::AcceptLoop() {
  while (!stopping_) {
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    std::lock_guard lock(mu_);
    connections_.push_back(fd);
    threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void ScriptedHttpServer::CloseConnection(int fd) {
  std::lock_guard lock(mu_);
  connections_.erase(std::find(connections_.begin(), connections_.end(), fd));
  ::close(fd);
}

void ScriptedHttpServer::Serve(int fd) {
  std::string buffer;
  char chunk[8192];
  while (true) {
    size_t header_end;
    while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = ::read(fd, chunk, sizeof(chunk));
      if (n <= 0) {
        CloseConnection(fd);
        return;
      }
      buffer.append(chunk, static_cast<size_t>(n));
    }
    Request request;
    std::string head = buffer.substr(0, header_end);
    size_t line_end = head.find("\r\n");
    std::string first = head.substr(0, line_end);
    size_t sp1 = first.find(' '), sp2 = first.rfind(' ');
    request.method = first.substr(0, sp1);
    request.target = first.substr(sp1 + 1, sp2 - sp1 - 1);
    size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t end = head.find("\r\n", pos);
      if (end == std::string::npos) end = head.size();
      std::string line = head.substr(pos, end - pos);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        size_t value = line.find_first_not_of(' ', colon + 1);
        request.headers[name] = value == std::string::npos ? "" : line.substr(value);
      }
      pos = end + 2;
    }
    size_t length = 0;
    if (request.headers.count("content-length")) {
      length = std::stoul(request.headers["content-length"]);
    }
    buffer.erase(0, header_end + 4);
    while (buffer.size() < length) {
      ssize_t n = ::read(fd, chunk, sizeof(chunk));
      if (n <= 0) {
        CloseConnection(fd);
        return;
      }
      buffer.append(chunk, static_cast<size_t>(n));
    }
    request.body = buffer.substr(0, length);
    buffer.erase(0, length);
    {
      std::lock_guard lock(mu_);
      requests_.push_back(request);
    }
    Reply reply = handler_(request);
    if (reply.drop) {
      CloseConnection(fd);
      return;
    }
    std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " Scripted\r\n";
    bool has_length = false;
    for (const auto& [name, value] : reply.headers) {
      out += name + ": " + value + "\r\n";
      has_length |= name == "Content-Length";
    }
    if (!has_length) out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
    out += "\r\n";
    if (request.method != "HEAD") out += reply.body;
    size_t sent = 0;
    while (sent < out.size()) {
      ssize_t n = ::write(fd, out.data() + sent, out.size() - sent);
      if (n <= 0) {
        CloseConnection(fd);
        return;
      }
      sent += static_cast<size_t>(n);
    }
  }
}

}  // namespace omnigraph::storage::s3
