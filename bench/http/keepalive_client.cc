// One keep-alive HTTP/1.1 connection, sequential requests: the client of bench/http/point_lookup.py
// (docs/benchmarks.md "A warm point lookup over HTTP"). Sends the same request WARMUP + N times
// on one TCP connection (TCP_NODELAY), waits for each whole response before sending the next,
// checks each (status 200 and, when given, a substring of the body), and prints one JSON object
// with the latency percentiles of the last N in microseconds. No library: a blocking socket, so the
// client adds as little as it can to the round trip it measures.
//
//   keepalive_client PORT METHOD PATH BODY_FILE N WARMUP [EXPECT] [HEADER...]
//
// BODY_FILE may be "-" for no body; each HEADER is "Name: value".
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void Fail(const std::string& why) {
  std::cerr << "keepalive_client: " << why << "\n";
  std::exit(1);
}

// Reads one response (Content-Length framing; the servers measured here always send one) into
// `body`; returns the status. `pending` keeps bytes read past the response (none, sequentially).
int ReadResponse(int fd, std::string& pending, std::string& body) {
  char buf[65536];
  size_t header_end;
  while ((header_end = pending.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) Fail("the connection closed before a response header");
    pending.append(buf, static_cast<size_t>(n));
  }
  const std::string head = pending.substr(0, header_end);
  const int status = std::atoi(head.c_str() + head.find(' ') + 1);
  std::string lower = head;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const size_t at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) Fail("a response without Content-Length:\n" + head);
  const size_t length = std::strtoull(lower.c_str() + at + 17, nullptr, 10);
  const size_t total = header_end + 4 + length;
  while (pending.size() < total) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) Fail("the connection closed inside a response body");
    pending.append(buf, static_cast<size_t>(n));
  }
  body = pending.substr(header_end + 4, length);
  pending.erase(0, total);
  return status;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::cerr
        << "usage: keepalive_client PORT METHOD PATH BODY_FILE N WARMUP [EXPECT] [HEADER...]\n";
    return 1;
  }
  const int port = std::atoi(argv[1]);
  std::string body;
  if (std::string(argv[4]) != "-") {
    std::ifstream in(argv[4], std::ios::binary);
    if (!in) Fail(std::string("cannot read ") + argv[4]);
    std::stringstream s;
    s << in.rdbuf();
    body = s.str();
  }
  const int n = std::atoi(argv[5]);
  const int warmup = std::atoi(argv[6]);
  const std::string expect = argc > 7 ? argv[7] : "";
  std::string request = std::string(argv[2]) + " " + argv[3] + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 8; i < argc; ++i) request += std::string(argv[i]) + "\r\n";
  if (!body.empty()) {
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n" + body;

  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Fail("cannot connect");
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  std::vector<double> us;
  us.reserve(static_cast<size_t>(n));
  std::string pending, answer;
  for (int i = 0; i < warmup + n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    size_t sent = 0;
    while (sent < request.size()) {
      const ssize_t w = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (w <= 0) Fail("send failed");
      sent += static_cast<size_t>(w);
    }
    const int status = ReadResponse(fd, pending, answer);
    const auto t1 = std::chrono::steady_clock::now();
    if (status != 200) Fail("status " + std::to_string(status) + ": " + answer);
    if (!expect.empty() && answer.find(expect) == std::string::npos) {
      Fail("the answer lacks '" + expect + "': " + answer);
    }
    if (i >= warmup) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  ::close(fd);
  std::printf(
      "{\"requests\": %d, \"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, "
      "\"min_us\": %.1f, \"answer_bytes\": %zu}\n",
      n, Percentile(us, 50), Percentile(us, 90), Percentile(us, 99), Percentile(us, 0),
      answer.size());
  return 0;
}
