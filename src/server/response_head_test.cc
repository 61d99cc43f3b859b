// The direct writer of a response's head (server/response_head.h) against its oracle, Beast's
// serializer (server/beast_response.h): over statuses, HTTP versions, keep-alive decisions,
// content types, handler headers, bodies and declared lengths, every head the writer writes is
// byte for byte Beast's, and it declines exactly the responses it documents.
#include "server/response_head.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/beast_response.h"

namespace omnigraph::server {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

TEST(ResponseHeadTest, EveryPhraseIsBeasts) {
  int known = 0;
  for (int status = 100; status < 600; ++status) {
    const std::string_view phrase = ReasonPhrase(status);
    if (phrase.empty()) continue;
    ++known;
    const auto beast =
        boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
    EXPECT_EQ(phrase, std::string_view(beast.data(), beast.size())) << status;
  }
  EXPECT_EQ(known, 26);
}

TEST(ResponseHeadTest, EveryHeadWrittenIsBeastsAndTheRestAreDeclined) {
  const std::vector<int> statuses = {100, 200, 201, 204, 206, 302, 304, 400, 401, 403,
                                     404, 405, 408, 409, 410, 412, 413, 414, 415, 416,
                                     428, 429, 431, 500, 503, 299, 418, 599};
  const std::vector<Headers> header_sets = {
      {},
      {{"Omnigraph-Graph-Commit", "c-0000000000000042"}},
      {{"WWW-Authenticate", "Bearer"}},
      {{"Allow", "GET, HEAD"}, {"Retry-After", "1"}},
      {{"Deprecation", "true"}, {"Link", "</query>; rel=\"successor-version\""}},
      {{"ETag", "\"abc\""}, {"Accept-Ranges", "bytes"}, {"Content-Range", "bytes 0-1/2"}},
      {{"Connection", "close"}, {"Location", "https://example.com/x"}},
      {{"content-type", "text/plain"}},
      // Declined: Beast replaces these, or they would split a line.
      {{"Keep-Alive", "timeout=1"}},
      {{"content-length", "3"}},
      {{"Transfer-Encoding", "chunked"}},
      {{"X-Evil", "a\r\nSet-Cookie: x"}},
  };
  const size_t kPlainSets = 8;  // the sets above the declined ones
  const std::vector<std::string> bodies = {"", std::string(167, 'x')};
  const std::vector<std::optional<uint64_t>> lengths = {std::nullopt, 0, 12345};
  int written = 0, declined = 0;
  for (int status : statuses) {
    for (unsigned version : {10u, 11u, 9u}) {
      for (bool keep : {true, false}) {
        for (const std::string& type : {std::string("application/json"), std::string()}) {
          for (size_t set = 0; set < header_sets.size(); ++set) {
            const Headers& headers = header_sets[set];
            const bool plain = set < kPlainSets;
            for (const std::string& body : bodies) {
              for (const auto& length : lengths) {
                HttpResponse r{.status = status,
                               .content_type = type,
                               .body = body,
                               .headers = headers,
                               .content_length = length};
                std::string direct = "kept";
                const bool wrote = WriteResponseHead(r, body.size(), version, keep, 5, direct);
                const bool bodiless = status < 200 || status == 204 || status == 304;
                const bool expect_written = version != 9 && !ReasonPhrase(status).empty() &&
                                            !(bodiless && !body.empty()) && plain;
                EXPECT_EQ(wrote, expect_written) << status << " " << version << " " << set;
                if (!wrote) {
                  EXPECT_EQ(direct, "kept");  // unchanged
                  ++declined;
                  continue;
                }
                ++written;
                std::string moved = body;
                const std::string beast =
                    beast_response::SerializedHead(r, moved, version, keep, 5);
                EXPECT_EQ(direct, "kept" + beast);
                EXPECT_EQ(moved, body);
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(written, 1000);
  EXPECT_GT(declined, 1000);
}

}  // namespace
}  // namespace omnigraph::server
