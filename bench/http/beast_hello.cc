// A minimal Boost.Beast server for scripts/http-compare.sh: the asynchronous keep-alive session
// of Beast's examples on an io_context run by one thread per core; GET /hello answers a small
// JSON body.
#include <utility>  // Boost 1.74 asio/awaitable.hpp uses std::exchange without it (C++20).

#include <boost/asio.hpp>
#include <boost/beast.hpp>

#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(tcp::socket socket) : stream_(std::move(socket)) {}
  void Run() { Read(); }

 private:
  void Read() {
    req_ = {};
    http::async_read(stream_, buffer_, req_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->Close();
                       self->Respond();
                     });
  }
  void Respond() {
    auto res =
        std::make_shared<http::response<http::string_body>>(http::status::ok, req_.version());
    res->set(http::field::content_type, "application/json");
    res->keep_alive(req_.keep_alive());
    res->body() = "{\"hello\":\"world\"}";
    res->prepare_payload();
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code ec, size_t) {
                        if (ec || !res->keep_alive()) return self->Close();
                        self->Read();
                      });
  }
  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
};

void Accept(tcp::acceptor& acceptor) {
  acceptor.async_accept([&acceptor](beast::error_code ec, tcp::socket socket) {
    if (!ec) std::make_shared<Session>(std::move(socket))->Run();
    Accept(acceptor);
  });
}

int main(int argc, char** argv) {
  const unsigned short port = argc > 1 ? std::atoi(argv[1]) : 18081;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  asio::io_context ioc(threads);
  tcp::acceptor acceptor(ioc, {asio::ip::make_address("127.0.0.1"), port});
  Accept(acceptor);
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (auto& t : pool) t.join();
}
