// Test support: an omnigraph-server's Service and Listener run inside the test process, over real
// HTTP on a free loopback port, with a cpp-httplib client (server_graphs_test.cc,
// server_policy_test.cc). The test links listener.cc.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "omnigraph/omnigraph.h"
#include "server/auth.h"
#include "server/listener.h"
#include "server/registry.h"
#include "server/service.h"

namespace omnigraph::server {

// A Service and Listener over `registry`, on a free loopback port, until destroyed.
class InProcessServer {
 public:
  InProcessServer(std::shared_ptr<const GraphRegistry> registry, Auth auth)
      : service_(std::move(registry), std::move(auth), ServiceOptions{}),
        listener_(service_, ListenerOptions{}) {
    api::Result<int> port = listener_.Bind("127.0.0.1", 0);
    EXPECT_TRUE(port.ok());
    port_ = port.ok() ? *port : 0;
    thread_ = std::thread([this] { listener_.Run(); });
  }
  ~InProcessServer() {
    listener_.Stop();
    thread_.join();
  }
  httplib::Client Client(const char* token = nullptr) const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    if (token != nullptr) c.set_bearer_token_auth(token);
    return c;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  Service service_;
  Listener listener_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace omnigraph::server
