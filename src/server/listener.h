// The HTTP listener: cpp-httplib under the Service (the only file that includes httplib.h is
// listener.cc, so the library's header is compiled once). A pool of worker threads, sized by the
// caller, serves connections with keep-alive; each request goes through Service::Admit before its
// body is read and Service::Handle after. Stop() is async-signal-safe: the listening socket
// closes at once, requests in flight finish (their responses are sent), idle keep-alive
// connections close, and Run returns. Thread-safety: Stop from any thread or a signal handler;
// the rest from one thread.
#pragma once

#include <memory>
#include <string>

#include "omnigraph/status.h"
#include "server/service.h"

namespace omnigraph::server {

class Listener {
 public:
  Listener(const Service& service, size_t workers);
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
