// The HTTP listener: an event loop on Boost.Asio with Boost.Beast's parser under the Service (the
// only file that includes Boost is listener.cc). One thread (the one that calls Run) accepts
// every connection and reads every request on the loop, with explicit limits: header bytes, the
// route's body bytes, a deadline for a request's header and one for its body, an idle timeout
// between keep-alive requests, and a maximum count of open connections (503 beyond it). A
// complete request goes to a bounded pool of worker threads, fair between callers (round robin
// over each bearer token, or peer address, with work queued), which run Service::Handle (the
// engine may block for long); the worker writes a whole response itself when the socket takes
// it at once, and the loop writes the rest, or a streamed body chunk by chunk. A request that
// finds nothing queued or running is run by the loop itself, with no thread handoff; a standby
// thread runs the loop meanwhile if that request runs past 2 to 4 ms (server/loop_relief.h,
// decision 220). After any work the loop polls for more without sleeping for up to 100 µs while a
// core is spare, so a client's next request finds its core awake (server/poll_window.h, decision
// 231). Server routes
// that need no engine call (/healthz, /openapi.json, /graphs) are answered on the loop itself, so
// a health check does not queue behind the engine.
// docs/design/server.md "Connections, limits and threads".
//
// Stop() is async-signal-safe (it writes a byte to a pipe the loop watches): the listening socket
// closes, idle keep-alive connections close, requests being read or handled finish (their
// responses are sent, with Connection: close), and Run returns. Thread-safety: Stop from any
// thread or a signal handler; the rest from one thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "omnigraph/status.h"
#include "server/service.h"

namespace omnigraph::server {

// The request header (request line and fields) is at most this many bytes (431 beyond), its
// target at most kTargetBytesMax (414 beyond: cpp-httplib's URI limit, which the server had).
inline constexpr size_t kHeaderBytesMax = size_t{16} << 10;
inline constexpr size_t kTargetBytesMax = 8192;
inline constexpr size_t kConnectionsMaxDefault = 8192;

struct ListenerOptions {
  size_t workers = 8;
  // Open connections beyond this get 503 and are closed.
  size_t connections_max = kConnectionsMaxDefault;
  // A keep-alive connection with no request started for this long is closed.
  int keep_alive_timeout_s = 5;
  // A request's header must be whole within this long of its first byte (408 otherwise).
  int header_timeout_s = 10;
  // A request's body must be whole within this long of its header (408 otherwise): 32 MiB (the
  // load limit) needs about 0.5 MiB/s.
  int body_timeout_s = 60;
  // Each response write (a whole response, or one chunk of a stream) must finish in this long.
  int write_timeout_s = 30;
};

class Listener {
 public:
  Listener(const Service& service, ListenerOptions options);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds host:port (port 0: a free port); the port bound. Configuration when it cannot bind.
  api::Result<int> Bind(const std::string& host, int port);
  // Serves until Stop; returns once every in-flight request has finished. False when the
  // listening socket failed for another reason than Stop.
  bool Run();
  // Stops accepting (see above).
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace omnigraph::server
