// omnigraph-server under abuse, on loopback (docs/design/server.md "Connections, limits and
// threads"): hundreds of idle keep-alive connections and clients trickling a request beside a
// health check and a point query; idle and slow connections closed by their timeouts; headers,
// targets and bodies at and over their limits; malformed chunked bodies; a write cut at every byte
// offset; a connection limit; one caller flooding beside another's reads. Every socket read has a
// timeout, so a server that stops answering fails the test instead of hanging it; no assertion is
// on time.
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "omnigraph/omnigraph.h"
#include "server_test_util.h"

namespace omnigraph::api {
namespace {

using namespace server_test;  // The helpers shared with server_http_test.cc.

// Long enough for a loaded machine; a server that does not answer fails within it.
constexpr int kReadTimeoutS = 20;
// Must match kHeaderBytesMax and kTargetBytesMax of server/listener.h.
constexpr size_t kHeaderLimit = 16384;
constexpr size_t kTargetLimit = 8192;

// A connection with read and write timeouts; `receive_buffer_bytes` as Connect's.
int Open(int port, int receive_buffer_bytes = 0) {
  const int fd = Connect(port, receive_buffer_bytes);
  if (fd < 0) return fd;
  timeval tv{kReadTimeoutS, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  return fd;
}

// Sends what it can; false once the server has closed (or reset) the connection.
bool TrySend(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

struct Response {
  int status = -1;  // -1: the connection closed (or timed out) before a whole response
  std::string head;
  std::string body;
};

// Reads one response with a Content-Length body (every response but an export's has one).
Response ReadResponse(int fd) {
  Response out;
  std::string data;
  char buf[8192];
  size_t end = std::string::npos;
  while ((end = data.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return out;
    data.append(buf, static_cast<size_t>(n));
  }
  out.head = data.substr(0, end + 4);
  std::string lower = out.head;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t cl = lower.find("content-length:");
  const size_t length = cl == std::string::npos ? 0 : std::stoul(lower.substr(cl + 15));
  out.body = data.substr(end + 4);
  while (out.body.size() < length) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return out;
    out.body.append(buf, static_cast<size_t>(n));
  }
  if (out.head.rfind("HTTP/1.", 0) == 0) out.status = std::atoi(out.head.c_str() + 9);
  return out;
}

// True when the server closes the connection (EOF or reset) within the read timeout; what it
// sent before closing goes to `sent`.
bool ServerCloses(int fd, std::string* sent = nullptr) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
    if (sent != nullptr) sent->append(buf, static_cast<size_t>(n));
  }
}

std::string Request(std::string_view method, std::string_view target, std::string_view body = {},
                    std::string extra_headers = {}, const char* token = kAliceToken) {
  std::string out = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: x\r\n";
  if (token != nullptr) out += "Authorization: Bearer " + std::string(token) + "\r\n";
  if (!body.empty() || method == "POST") {
    out += "Content-Type: application/json\r\n";
    if (extra_headers.find("Transfer-Encoding") == std::string::npos) {
      out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    }
  }
  return out + extra_headers + "\r\n" + std::string(body);
}

std::string Mutation(const std::string& name) {
  return Json{{"query", std::string(kAddPerson)}, {"params", Json{{"name", name}}}}.dump();
}

// `body` as one chunk and the last chunk.
std::string Chunked(std::string_view body) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx", body.size());
  return std::string(size) + "\r\n" + std::string(body) + "\r\n0\r\n\r\n";
}

int Exchange(int port, const std::string& request, std::string* body = nullptr) {
  const int fd = Open(port);
  if (fd < 0) return -2;
  if (!TrySend(fd, request)) {
    ::close(fd);
    return -3;
  }
  Response r = ReadResponse(fd);
  ::close(fd);
  if (body != nullptr) *body = r.body;
  return r.status;
}

// The CPU time a process's main thread (the server's event loop) has used, in nanoseconds: the
// scheduler's exact count when the kernel keeps it, else user and system ticks; -1 when neither
// can be read.
int64_t LoopCpuNs(pid_t pid) {
  const std::string task = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid);
  std::ifstream schedstat(task + "/schedstat");
  int64_t ns = -1;
  if (schedstat >> ns) return ns;
  std::ifstream stat_file(task + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  const size_t end = stat.rfind(')');  // the command name may hold spaces
  if (end == std::string::npos) return -1;
  std::istringstream fields(stat.substr(end + 2));
  std::string field;
  int64_t user = 0, system = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {  // utime and stime are fields 14 and 15
    if (i == 14) user = std::stoll(field);
    if (i == 15) system = std::stoll(field);
  }
  return (user + system) * (1'000'000'000 / ::sysconf(_SC_CLK_TCK));
}

class ServerAbuseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = dir_.path() + "/g";
    Result<std::unique_ptr<Database>> db = Database::Init(uri_, kSchema);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
  }
  std::vector<std::string> Args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> out = {uri_, "--bind", "127.0.0.1:0", "--allow-writes", "alice"};
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  }
  // Commits on main, through the server.
  size_t Commits(int port) {
    std::string body;
    EXPECT_EQ(Exchange(port, Request("GET", "/commits?limit=10000"), &body), 200) << body;
    return Parse(body)["commits"].size();
  }
  TempDir dir_;
  std::string uri_;
};

const std::string kPointQuery = Json{
    {"query", "query one($n: String) { match { $p: Person { name: $n } } return { $p.name } }"},
    {"params", Json{{"n", "p7"}}}}.dump();

std::string People(int count) {
  std::string rows;
  for (int i = 0; i < count; ++i) {
    rows += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) + "\"}}\n";
  }
  return rows;
}

void LoadPeople(int port, int count) {
  const std::string rows = People(count);
  const std::string req =
      "POST /load/ndjson?mode=append HTTP/1.1\r\nHost: x\r\nAuthorization: "
      "Bearer " +
      std::string(kAliceToken) +
      "\r\nContent-Type: application/x-ndjson\r\nContent-Length: " + std::to_string(rows.size()) +
      "\r\n\r\n" + rows;
  std::string body;
  ASSERT_EQ(Exchange(port, req, &body), 200) << body;
}

// 300 idle keep-alive connections (each has had a response and stays open) and 64 clients
// trickling a request header: a health check and a point query on a new connection are still
// answered, an idle connection still serves its next request, and SIGTERM closes them all and
// exits 0. (With a thread per connection from a fixed pool, the pool is exhausted and nothing is
// answered.) The full-size run, 1,000 idle and 256 trickling, is decision 83's measurement.
TEST_F(ServerAbuseTest, IdleAndTricklingConnectionsDoNotStopAHealthCheckOrARead) {
  ServerProcess server(Args({"--keep-alive-timeout", "300", "--header-timeout", "300"}));
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  LoadPeople(port, 20);
  constexpr int kIdle = 300;
  constexpr int kTrickling = 64;
  std::vector<int> idle;
  for (int i = 0; i < kIdle; ++i) {
    const int fd = Open(port);
    ASSERT_GE(fd, 0) << i;
    ASSERT_TRUE(TrySend(fd, Request("GET", "/healthz", {}, {}, nullptr)));
    ASSERT_EQ(ReadResponse(fd).status, 200) << "idle connection " << i;
    idle.push_back(fd);
  }
  std::vector<int> trickling;
  for (int i = 0; i < kTrickling; ++i) {
    const int fd = Open(port);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(TrySend(fd, "POST /query HTTP/1.1\r\nHost: x\r\nX-Slow: "));
    trickling.push_back(fd);
  }
  std::atomic<bool> stop{false};
  std::thread trickler([&] {
    while (!stop.load()) {
      for (int fd : trickling) TrySend(fd, "a");
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  });
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    std::string body;
    EXPECT_EQ(Exchange(port, Request("GET", "/healthz", {}, {}, nullptr), &body), 200);
    const auto health = std::chrono::steady_clock::now();
    EXPECT_EQ(Exchange(port, Request("POST", "/query", kPointQuery), &body), 200) << body;
    EXPECT_EQ(Parse(body)["row_count"], 1);
    const auto query = std::chrono::steady_clock::now();
    using std::chrono::duration_cast;
    using us = std::chrono::microseconds;
    std::cout << "with " << kIdle << " idle and " << kTrickling << " trickling: healthz "
              << duration_cast<us>(health - start).count() << " us, point query "
              << duration_cast<us>(query - health).count() << " us\n";
  }
  // An idle connection serves its next request.
  ASSERT_TRUE(TrySend(idle[kIdle / 2], Request("POST", "/query", kPointQuery)));
  EXPECT_EQ(ReadResponse(idle[kIdle / 2]).status, 200);
  stop = true;
  trickler.join();
  for (int fd : trickling) ::close(fd);
  std::cout << "server peak RSS: " << server.PeakRssKiB() << " KiB\n";
  EXPECT_EQ(server.Terminate(), 0);
  int closed = 0;
  for (int fd : idle) {
    closed += ServerCloses(fd);
    ::close(fd);
  }
  EXPECT_EQ(closed, kIdle);
}

// Sends `request` a byte every `gap` until the server closes the connection; what it sent.
std::string TrickleUntilClosed(int fd, std::string_view request, std::chrono::milliseconds gap) {
  std::string sent;
  for (size_t i = 0;; ++i) {
    if (i < request.size() && !TrySend(fd, request.substr(i, 1))) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(gap.count())) > 0) break;
    if (i > 200) break;  // Bound: the timeouts below are a few seconds.
  }
  ServerCloses(fd, &sent);
  return sent;
}

// A connection idle after its response, one that never sends, a header trickled a byte every
// half second and a body trickled likewise are each closed by their timeout; the slow request
// gets 408 and nothing is published.
TEST_F(ServerAbuseTest, IdleAndSlowConnectionsAreClosedByTheirTimeouts) {
  ServerProcess server(
      Args({"--keep-alive-timeout", "1", "--header-timeout", "2", "--body-timeout", "2"}));
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  const size_t before = Commits(port);

  const int after_response = Open(port);
  ASSERT_TRUE(TrySend(after_response, Request("GET", "/healthz", {}, {}, nullptr)));
  EXPECT_EQ(ReadResponse(after_response).status, 200);
  std::string sent;
  EXPECT_TRUE(ServerCloses(after_response, &sent));
  EXPECT_EQ(sent, "");
  ::close(after_response);

  const int silent = Open(port);
  sent.clear();
  EXPECT_TRUE(ServerCloses(silent, &sent));
  EXPECT_EQ(sent, "");
  ::close(silent);

  const int slow_header = Open(port);
  sent = TrickleUntilClosed(slow_header, Request("POST", "/mutate", Mutation("slow-header")),
                            std::chrono::milliseconds(500));
  EXPECT_EQ(sent.rfind("HTTP/1.1 408", 0), 0u) << sent;
  EXPECT_NE(sent.find("Connection: close"), std::string::npos) << sent;
  ::close(slow_header);

  const std::string request = Request("POST", "/mutate", Mutation("slow-body"));
  const size_t header_end = request.find("\r\n\r\n") + 4;
  const int slow_body = Open(port);
  ASSERT_TRUE(TrySend(slow_body, request.substr(0, header_end)));
  sent = TrickleUntilClosed(slow_body, request.substr(header_end), std::chrono::milliseconds(500));
  EXPECT_EQ(sent.rfind("HTTP/1.1 408", 0), 0u) << sent;
  EXPECT_NE(sent.find("body"), std::string::npos) << sent;
  ::close(slow_body);

  EXPECT_EQ(Commits(port), before);  // Nothing published.
}

// A connection's deadlines share one timer that is re-armed only when a deadline comes earlier
// (decision 226), so each phase's deadline must still count from that phase's start: a kept
// connection whose requests come 0.8 s apart goes on past its keep-alive time (2 s) and header
// time (3 s) in total; after those requests, a header trickled a byte every half second still
// gets its 408, and an idle connection after its responses is still closed with nothing sent.
TEST_F(ServerAbuseTest, AKeptConnectionsDeadlinesCountFromEachPhase) {
  ServerProcess server(Args({"--keep-alive-timeout", "2", "--header-timeout", "3"}));
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  const int kept = Open(port);
  for (int i = 0; i < 6; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(800));
    ASSERT_TRUE(TrySend(kept, Request("POST", "/query", kPointQuery))) << i;
    Response r = ReadResponse(kept);
    ASSERT_EQ(r.status, 200) << i << ": " << r.body;
    EXPECT_NE(r.head.find("Keep-Alive: timeout=2\r\n"), std::string::npos) << r.head;
  }
  std::string sent = TrickleUntilClosed(kept, Request("POST", "/query", kPointQuery),
                                        std::chrono::milliseconds(500));
  EXPECT_EQ(sent.rfind("HTTP/1.1 408", 0), 0u) << sent;
  ::close(kept);

  const int idle = Open(port);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(TrySend(idle, Request("GET", "/healthz", {}, {}, nullptr)));
    EXPECT_EQ(ReadResponse(idle).status, 200);
  }
  sent.clear();
  EXPECT_TRUE(ServerCloses(idle, &sent));
  EXPECT_EQ(sent, "");
  ::close(idle);
}

// A request whose header (request line, fields, blank line) is `size` bytes.
std::string HeaderOfSize(size_t size) {
  std::string out = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ";
  const size_t fixed = out.size() + 4;  // the pad line's CRLF and the blank line
  out += std::string(size - fixed, 'a');
  return out + "\r\n\r\n";
}

// A mutation body padded with spaces (valid JSON) to `size` bytes.
std::string MutationOfSize(const std::string& name, size_t size) {
  std::string body = Mutation(name);
  return body + std::string(size - body.size(), ' ');
}

TEST_F(ServerAbuseTest, HeadersTargetsAndBodiesAtAndOverTheirLimits) {
  ServerProcess server(Args({"--max-body-bytes", "4096"}));
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  const size_t before = Commits(port);
  std::string body;
  // Headers: at the limit served; a byte over, or many small fields over, 431.
  EXPECT_EQ(Exchange(port, HeaderOfSize(kHeaderLimit), &body), 200) << body;
  EXPECT_EQ(Exchange(port, HeaderOfSize(kHeaderLimit + 1), &body), 431) << body;
  EXPECT_EQ(Parse(body)["code"], "bad_request");
  std::string fields = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; fields.size() < 4 * kHeaderLimit; ++i)
    fields += "X-F" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(Exchange(port, fields + "\r\n", &body), 431) << body;
  // A header that never ends is refused once it passes the limit, not read on.
  const int endless = Open(port);
  std::string endless_head = "GET /healthz HTTP/1.1\r\nX-Endless: ";
  TrySend(endless, endless_head);
  for (int i = 0; i < 64 && TrySend(endless, std::string(1024, 'b')); ++i) {
  }
  EXPECT_EQ(ReadResponse(endless).status, 431);
  ::close(endless);
  // Targets: at today's URI limit routed (404: no such path), a byte over 414.
  EXPECT_EQ(Exchange(port, Request("GET", "/" + std::string(kTargetLimit - 1, 'a'))), 404);
  EXPECT_EQ(Exchange(port, Request("GET", "/" + std::string(kTargetLimit, 'a'))), 414);
  // Bodies, declared: at the limit published, a byte over 413 naming the limit.
  EXPECT_EQ(Exchange(port, Request("POST", "/mutate", MutationOfSize("cl-at", 4096)), &body), 200)
      << body;
  EXPECT_EQ(Exchange(port, Request("POST", "/mutate", MutationOfSize("cl-over", 4097)), &body),
            413);
  EXPECT_EQ(Parse(body)["resource_limit"]["limit"], 4096);
  EXPECT_EQ(Parse(body)["resource_limit"]["actual"], 4097);
  // A declared terabyte is refused from its header: the test sends no body at all.
  const std::string huge = "POST /mutate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                           std::string(kAliceToken) +
                           "\r\nContent-Type: application/json\r\nContent-Length: "
                           "1099511627776\r\n\r\n";
  EXPECT_EQ(Exchange(port, huge, &body), 413);
  // Chunked: at the limit published, a byte over 413; an endless chunked body is cut off.
  const std::string te = "Transfer-Encoding: chunked\r\n";
  EXPECT_EQ(
      Exchange(port, Request("POST", "/mutate", Chunked(MutationOfSize("ch-at", 4096)), te), &body),
      200)
      << body;
  EXPECT_EQ(Exchange(port, Request("POST", "/mutate", Chunked(MutationOfSize("ch-over", 4097)), te),
                     &body),
            413);
  EXPECT_EQ(Parse(body)["resource_limit"]["limit"], 4096);
  const int flood = Open(port);
  TrySend(flood, Request("POST", "/mutate", {}, te));
  const std::string chunk = "400\r\n" + std::string(1024, ' ') + "\r\n";
  for (int i = 0; i < 1024 && TrySend(flood, chunk); ++i) {
  }
  EXPECT_EQ(ReadResponse(flood).status, 413);
  ::close(flood);
  // Expect: 100-continue: the interim response, then the body; refused without it when the
  // declared length is over.
  const int expect = Open(port);
  const std::string body_text = Mutation("continued");
  const std::string head = Request("POST", "/mutate", body_text, "Expect: 100-continue\r\n");
  TrySend(expect, head.substr(0, head.size() - body_text.size()));
  char interim[64] = {};
  ASSERT_GT(::recv(expect, interim, 25, MSG_WAITALL), 0);
  EXPECT_EQ(std::string(interim), "HTTP/1.1 100 Continue\r\n\r\n");
  TrySend(expect, body_text);
  EXPECT_EQ(ReadResponse(expect).status, 200);
  ::close(expect);
  EXPECT_EQ(Exchange(port, Request("POST", "/mutate", MutationOfSize("ex-over", 5000),
                                   "Expect: 100-continue\r\n")),
            413);
  EXPECT_EQ(Commits(port), before + 3);  // cl-at, ch-at, continued.
}

// Malformed chunked bodies: each is 400 (a size that is not hex, overflows or is negative, data
// not followed by CRLF, a bad extension, chunked together with Content-Length), the server stays
// up and nothing is published. (A bare LF is no line end: such a body is incomplete, and the body
// deadline closes it.)
TEST_F(ServerAbuseTest, MalformedChunkedBodiesAre400AndPublishNothing) {
  ServerProcess server(Args());
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  const size_t before = Commits(port);
  const std::string m = Mutation("chunky");
  char size[16];
  std::snprintf(size, sizeof size, "%zx", m.size());
  const std::string hex = size;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"size not hex", "zz\r\n" + m + "\r\n0\r\n\r\n"},
      {"size overflows", "1ffffffffffffffff\r\n" + m + "\r\n0\r\n\r\n"},
      {"negative size", "-" + hex + "\r\n" + m + "\r\n0\r\n\r\n"},
      {"no CRLF after data", hex + "\r\n" + m + "XX0\r\n\r\n"},
      {"bad extension", hex + ";\x01=\r\n" + m + "\r\n0\r\n\r\n"},
      {"space before size", " " + hex + "\r\n" + m + "\r\n0\r\n\r\n"},
  };
  for (const auto& [what, body] : cases) {
    std::string reply;
    EXPECT_EQ(
        Exchange(port, Request("POST", "/mutate", body, "Transfer-Encoding: chunked\r\n"), &reply),
        400)
        << what << ": " << reply;
  }
  // Both a length and chunked.
  const std::string both = "POST /mutate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                           std::string(kAliceToken) +
                           "\r\nContent-Type: application/json\r\nContent-Length: 5\r\n"
                           "Transfer-Encoding: chunked\r\n\r\n" +
                           Chunked(m);
  EXPECT_EQ(Exchange(port, both), 400);
  EXPECT_EQ(Exchange(port, Request("GET", "/healthz", {}, {}, nullptr)), 200);
  EXPECT_EQ(Commits(port), before);
}

// A small write cut at every byte offset, plain and chunked, the client half-closing or
// resetting: no response is a success, the server stays up, and nothing is published; the whole
// request then publishes exactly once.
TEST_F(ServerAbuseTest, AWriteCutAtEveryByteOffsetPublishesNothing) {
  ServerProcess server(Args());
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  const size_t before = Commits(port);
  const std::string plain = Request("POST", "/mutate", Mutation("cut"));
  const std::string chunked =
      Request("POST", "/mutate", Chunked(Mutation("cut")), "Transfer-Encoding: chunked\r\n");
  for (const std::string* request : {&plain, &chunked}) {
    for (size_t cut = 0; cut < request->size(); ++cut) {
      const int fd = Open(port);
      ASSERT_GE(fd, 0) << cut;
      TrySend(fd, std::string_view(*request).substr(0, cut));
      if (cut % 2 == 0) {
        ::shutdown(fd, SHUT_WR);
        std::string sent;
        EXPECT_TRUE(ServerCloses(fd, &sent)) << cut;
        EXPECT_EQ(sent.find("HTTP/1.1 200"), std::string::npos) << cut << ": " << sent;
      } else {
        linger reset{1, 0};  // close() sends RST
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
      }
      ::close(fd);
    }
  }
  EXPECT_EQ(Exchange(port, Request("GET", "/healthz", {}, {}, nullptr)), 200);
  EXPECT_EQ(Commits(port), before);
  EXPECT_EQ(Exchange(port, plain), 200);
  EXPECT_EQ(Commits(port), before + 1);
}

// Connections over --max-connections get 503 with the error envelope and are closed; once one
// closes, a new connection is served.
TEST_F(ServerAbuseTest, ConnectionsOverTheLimitGet503) {
  ServerProcess server(Args({"--max-connections", "8"}));
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  std::vector<int> open;
  for (int i = 0; i < 8; ++i) {
    open.push_back(Open(port));
    ASSERT_TRUE(TrySend(open.back(), Request("GET", "/healthz", {}, {}, nullptr)));
    ASSERT_EQ(ReadResponse(open.back()).status, 200) << i;
  }
  std::string body;
  EXPECT_EQ(Exchange(port, Request("GET", "/healthz", {}, {}, nullptr), &body), 503);
  EXPECT_NE(Parse(body)["error"].string_value().find("--max-connections"), std::string::npos);
  ::close(open.back());
  open.pop_back();
  int status = 0;
  for (int attempt = 0; attempt < 100 && status != 200; ++attempt) {
    status = Exchange(port, Request("GET", "/healthz", {}, {}, nullptr));
    if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(status, 200);
  for (int fd : open) ::close(fd);
}

// One caller (alice) floods two workers with reads from 32 connections; another (bob) reads
// beside it. The worker queue serves callers in turn, so while one of bob's reads waits, only the
// requests already running and about one more of alice's finish — not the whole queue of 32.
TEST_F(ServerAbuseTest, OneCallersFloodDoesNotStarveAnothersReads) {
  ServerProcess server(Args({"--workers", "2"}));
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  LoadPeople(port, 3000);
  const std::string heavy = Request("POST", "/query", Json{{"query", std::string(kNames)}}.dump());
  constexpr int kFlooders = 32;
  std::atomic<bool> stop{false};
  std::atomic<int> flooded{0};
  std::atomic<int> flood_failures{0};
  std::vector<std::thread> flooders;
  for (int i = 0; i < kFlooders; ++i) {
    flooders.emplace_back([&] {
      const int fd = Open(port);
      while (!stop.load()) {
        if (!TrySend(fd, heavy) || ReadResponse(fd).status != 200) {
          ++flood_failures;
          break;
        }
        ++flooded;
      }
      ::close(fd);
    });
  }
  while (flooded.load() < 2 * kFlooders) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const int bob = Open(port);
  int worst = 0;
  for (int i = 0; i < 10; ++i) {
    const int start = flooded.load();
    ASSERT_TRUE(TrySend(bob, Request("POST", "/query", kPointQuery, {}, kBobToken)));
    Response r = ReadResponse(bob);
    worst = std::max(worst, flooded.load() - start);
    EXPECT_EQ(r.status, 200) << r.body;
  }
  ::close(bob);
  stop = true;
  for (std::thread& t : flooders) t.join();
  std::cout << "flood: " << flooded.load() << " reads; the most that finished while one of bob's "
            << "waited: " << worst << "\n";
  EXPECT_EQ(flood_failures.load(), 0);
  EXPECT_LE(worst, 12);  // A first-come queue lets about 32 finish.
}

// An otherwise idle server answers a request on its event loop (decision 220); one that runs past
// the loop's lease hands the loop to its standby, which reads and dispatches other connections'
// requests meanwhile, and takes it back. One connection asks for every name (a read of a few
// milliseconds, longer under a sanitizer) over and over, each usually on the loop; beside it,
// point reads, health checks and writes on other connections, each on a new connection or a kept
// one. Every answer is whole and right, and every write is published once.
TEST_F(ServerAbuseTest, LongReadsOnTheLoopAndOtherConnectionsRequestsAllGetTheirAnswers) {
  ServerProcess server(Args());
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  LoadPeople(port, 3000);
  const size_t commits_before = Commits(port);
  std::atomic<bool> stop{false};
  std::atomic<int> long_reads{0};
  std::thread heavy([&] {
    const int fd = Open(port);
    const std::string request =
        Request("POST", "/query", Json{{"query", std::string(kNames)}}.dump());
    while (!stop.load()) {
      ASSERT_TRUE(TrySend(fd, request));
      Response r = ReadResponse(fd);
      ASSERT_EQ(r.status, 200) << r.body;
      EXPECT_GE(Parse(r.body)["rows"].size(), 3000u);  // and the writes made so far
      ++long_reads;
    }
    ::close(fd);
  });
  while (long_reads.load() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const int kept = Open(port);
  for (int i = 0; i < 30; ++i) {
    std::string body;
    ASSERT_TRUE(TrySend(kept, Request("POST", "/query", kPointQuery, {}, kBobToken)));
    Response r = ReadResponse(kept);
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_EQ(Parse(r.body)["rows"].size(), 1u) << r.body;
    EXPECT_EQ(Parse(r.body)["rows"][0]["p.name"].string_value(), "p7") << r.body;
    ASSERT_EQ(Exchange(port, Request("GET", "/healthz", {}, {}, nullptr), &body), 200) << body;
    ASSERT_EQ(Exchange(port, Request("POST", "/mutate", Mutation("w" + std::to_string(i))), &body),
              200)
        << body;
  }
  ::close(kept);
  stop = true;
  heavy.join();
  std::cout << "long reads beside the others: " << long_reads.load() << "\n";
  EXPECT_EQ(Commits(port), commits_before + 30);
}

// After its last work the event loop polls for more, without sleeping, for at most
// PollWindow::kMax (100 µs), then sleeps (decision 231): after a run of point reads on a kept
// connection and a pause of thousands of such windows, the loop's thread (the process's main
// thread) uses no CPU over a further half second of idleness — a loop that kept polling would use
// most of it — and the kept connection still serves its next request.
TEST_F(ServerAbuseTest, AnIdleServersLoopSleepsAfterItsPollWindow) {
  ServerProcess server(Args());
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  LoadPeople(port, 100);
  const int fd = Open(port);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(TrySend(fd, Request("POST", "/query", kPointQuery)));
    Response r = ReadResponse(fd);
    ASSERT_EQ(r.status, 200) << r.body;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int64_t before = LoopCpuNs(server.pid());
  ASSERT_GE(before, 0) << "cannot read the server's CPU time from /proc";
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const int64_t used = LoopCpuNs(server.pid()) - before;
  std::cout << "the idle loop's CPU over 500 ms: " << used << " ns\n";
  EXPECT_LT(used, 1'000'000);
  ASSERT_TRUE(TrySend(fd, Request("POST", "/query", kPointQuery)));
  Response r = ReadResponse(fd);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Parse(r.body)["rows"][0]["p.name"].string_value(), "p7") << r.body;
  ::close(fd);
}

// A worker writes a response itself only when the socket takes all of it at once; the loop writes
// the rest (docs/design/server.md "Connections, limits and threads"). A client with a small
// receive window asks for an answer of a few megabytes and reads nothing for a moment: the
// answer arrives whole, and the connection stays open and serves the next request.
TEST_F(ServerAbuseTest, AnAnswerTheSocketCannotTakeAtOnceArrivesWholeAndTheConnectionGoesOn) {
  ServerProcess server(Args());
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  // About 6 MB: more than a loopback socket's send buffer grows to (tcp_wmem's 4 MiB at most).
  constexpr int kPeople = 10000;
  const std::string pad(600, 'x');
  std::string rows;
  for (int i = 0; i < kPeople; ++i) {
    rows += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) + pad + "\"}}\n";
  }
  std::string body;
  const std::string load =
      "POST /load/ndjson?mode=append HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
      std::string(kAliceToken) +
      "\r\nContent-Type: application/x-ndjson\r\nContent-Length: " + std::to_string(rows.size()) +
      "\r\n\r\n" + rows;
  ASSERT_EQ(Exchange(port, load, &body), 200) << body;

  const int fd = Open(port, 4096);  // A window of a few KiB: what is not read stays queued.
  ASSERT_GE(fd, 0);
  const std::string big = Request("POST", "/query", Json{{"query", std::string(kNames)}}.dump());
  const std::string point =
      Request("POST", "/query",
              Json{{"query",
                    "query one($n: String) { match { $p: Person { name: $n } } "
                    "return { $p.name } }"},
                   {"params", Json{{"n", "p7" + pad}}}}
                  .dump());
  ASSERT_TRUE(TrySend(fd, big));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // The window fills meanwhile.
  Response first = ReadResponse(fd);
  ASSERT_EQ(first.status, 200) << first.head;
  // The next request goes at once: parsing 6 MB of JSON in a sanitizer build on a busy machine
  // can outlast the keep-alive timeout (5 s), after which the server rightly closes the idle
  // connection.
  ASSERT_TRUE(TrySend(fd, point));
  ASSERT_GT(first.body.size(), size_t{kPeople} * pad.size());
  const Json names = Parse(first.body);
  EXPECT_EQ(names["row_count"], kPeople);
  EXPECT_EQ(names["rows"].size(), size_t{kPeople});
  Response second = ReadResponse(fd);
  ASSERT_EQ(second.status, 200) << second.head;
  EXPECT_EQ(Parse(second.body)["row_count"], 1) << second.body;
  ::close(fd);
}

// Per-actor admission (docs/design/server.md "Per-actor admission control"): alice holds her one
// mutating slot with a load whose body has not come; her next write is 429 with Retry-After, while
// her reads and bob's write are served; once the held request goes, her writes are admitted again.
TEST_F(ServerAbuseTest, AnActorOverItsInFlightBoundIs429AndOthersAreUnaffected) {
  ServerProcess server({uri_, "--bind", "127.0.0.1:0", "--allow-writes", "alice,bob",
                        "--per-actor-inflight-max", "1", "--per-actor-bytes-max", "4096"});
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  const int held = Open(port);
  ASSERT_TRUE(
      TrySend(held, "POST /load/ndjson?mode=append HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                        std::string(kAliceToken) +
                        "\r\nContent-Type: application/x-ndjson\r\nContent-Length: 100\r\n\r\n"));
  // The held request is admitted once its header is read: poll until alice's write is refused.
  Response refused;
  for (int attempt = 0; attempt < 100 && refused.status != 429; ++attempt) {
    const int fd = Open(port);
    ASSERT_TRUE(TrySend(fd, Request("POST", "/mutate", Mutation("a0"))));
    refused = ReadResponse(fd);
    ::close(fd);
    if (refused.status != 429) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(refused.status, 429) << refused.head << refused.body;
  EXPECT_NE(refused.head.find("Retry-After: 1\r\n"), std::string::npos) << refused.head;
  EXPECT_EQ(Parse(refused.body)["code"], "too_many_requests") << refused.body;
  EXPECT_NE(Parse(refused.body)["error"].string_value().find("alice"), std::string::npos);
  std::string body;
  EXPECT_EQ(Exchange(port, Request("POST", "/query", kPointQuery), &body), 200) << body;
  EXPECT_EQ(Exchange(port, Request("POST", "/mutate", Mutation("b1"), {}, kBobToken), &body), 200)
      << body;
  // Over the byte bound on its own: refused before its body is read.
  const std::string big = Mutation(std::string(5000, 'x'));
  EXPECT_EQ(Exchange(port, Request("POST", "/mutate", big, {}, kBobToken), &body), 429) << body;
  ::close(held);
  int status = 0;
  for (int attempt = 0; attempt < 100 && status != 200; ++attempt) {
    status = Exchange(port, Request("POST", "/mutate", Mutation("a1")), &body);
    if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(status, 200) << body;
  // Nothing of a refused write was published: a0 is absent, a1 and b1 are there.
  const std::string names = Request(
      "POST", "/query",
      Json{{"query", "query n() { match { $p: Person } return { $p.name } order { $p.name } }"}}
          .dump());
  ASSERT_EQ(Exchange(port, names, &body), 200) << body;
  EXPECT_EQ(body.find("\"a0\""), std::string::npos) << body;
  EXPECT_NE(body.find("\"a1\""), std::string::npos) << body;
  EXPECT_NE(body.find("\"b1\""), std::string::npos) << body;
}

// The rate bound: a burst of 2 at 1 per second; the third request at once is 429 with
// Retry-After, another actor's is not.
TEST_F(ServerAbuseTest, AnActorOverItsRateIs429WithRetryAfter) {
  ServerProcess server(Args({"--per-actor-rate", "1", "--per-actor-burst", "2"}));
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  const int fd = Open(port);
  std::vector<int> statuses;
  std::string head;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(TrySend(fd, Request("POST", "/query", kPointQuery)));
    Response r = ReadResponse(fd);
    statuses.push_back(r.status);
    head = r.head;
  }
  ::close(fd);
  EXPECT_EQ(statuses, (std::vector<int>{200, 200, 429}));
  EXPECT_NE(head.find("Retry-After: 1\r\n"), std::string::npos) << head;
  std::string body;
  EXPECT_EQ(Exchange(port, Request("POST", "/query", kPointQuery, {}, kBobToken), &body), 200)
      << body;
  // The health check is the server's, not a graph request: never metered.
  EXPECT_EQ(Exchange(port, Request("GET", "/healthz", {}, {}, kAliceToken)), 200);
}

// A connection remembers what its bearer token authenticated as (server/auth.h, AuthMemo), so
// each request's own token must still decide: on one keep-alive connection, alternating tokens
// are each their own actor, with that actor's grants (alice may write, bob may not); an unknown
// token and a missing one are 401 between them, and the connection goes on (a refused write,
// whose body is left unread, closes it: last).
TEST_F(ServerAbuseTest, EachRequestOnOneConnectionIsItsOwnTokensActor) {
  ServerProcess server(Args());
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  const size_t before = Commits(port);
  const int fd = Open(port);
  auto actor_of = [fd](const char* token) {
    EXPECT_TRUE(TrySend(fd, Request("GET", "/access", {}, {}, token)));
    Response r = ReadResponse(fd);
    if (r.status != 200) return std::to_string(r.status);
    return Parse(r.body)["actor"].string_value();
  };
  auto write_as = [fd](const char* token, const std::string& name) {
    EXPECT_TRUE(TrySend(fd, Request("POST", "/mutate", Mutation(name), {}, token)));
    return ReadResponse(fd).status;
  };
  EXPECT_EQ(actor_of(kAliceToken), "alice");
  EXPECT_EQ(actor_of(kAliceToken), "alice");
  EXPECT_EQ(actor_of(kBobToken), "bob");
  EXPECT_EQ(actor_of("alice-secret-tokeX"), "401");  // alice's length, one byte off
  EXPECT_EQ(actor_of(nullptr), "401");
  EXPECT_EQ(write_as(kAliceToken, "by-alice"), 200);
  EXPECT_EQ(actor_of(kBobToken), "bob");
  EXPECT_EQ(write_as(kBobToken, "by-bob"), 403);
  EXPECT_TRUE(ServerCloses(fd));
  ::close(fd);
  EXPECT_EQ(Commits(port), before + 1);  // alice's write only
}

}  // namespace
}  // namespace omnigraph::api
