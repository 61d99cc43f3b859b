// A minimal cpp-httplib server for scripts/http-compare.sh: POST /hello answers a small JSON body.
#include <httplib.h>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 18080;
  httplib::Server server;
  // Without TCP_NODELAY a response waits out the peer's delayed ACK (about 40 ms on Linux).
  server.set_tcp_nodelay(true);
  server.set_keep_alive_max_count(1000000);
  server.Post("/hello", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"hello\":\"world\"}", "application/json");
  });
  server.Get("/hello", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"hello\":\"world\"}", "application/json");
  });
  return server.listen("127.0.0.1", port) ? 0 : 1;
}
