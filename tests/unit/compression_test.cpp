// Compression of answers: gzip that zlib's own inflate reads back, and the rule of which answers
// are compressed (size, type, already encoded, what the client accepts).
#include <doctest/doctest.h>

#include <string>

#include <certsteward/adapters/http/compression.hpp>
#include "support/gunzip.hpp"

namespace http = certsteward::adapters::http;
using certsteward::testing::gunzip;

namespace {

std::string header(const http::HttpResponse& r, const std::string& name) {
  std::string all;
  for (const auto& [n, v] : r.headers) {
    if (n == name) all += (all.empty() ? "" : ",") + v;
  }
  return all;
}

std::string bigJson() {
  std::string s = "{\"certificates\":[";
  for (int i = 0; i < 200; ++i)
    s += std::string(i == 0 ? "" : ",") + "{\"common_name\":\"host" + std::to_string(i) +
         ".example.com\",\"status\":\"active\"}";
  return s + "]}";
}

}  // namespace

TEST_CASE("compression: gzip reads back as the same bytes, and is smaller for JSON") {
  const std::string json = bigJson();
  const std::string packed = http::gzip(json);
  REQUIRE(packed.size() > 18);
  CHECK(static_cast<unsigned char>(packed[0]) == 0x1f);  // the gzip magic
  CHECK(static_cast<unsigned char>(packed[1]) == 0x8b);
  CHECK(packed.size() * 4 < json.size());
  CHECK(gunzip(packed) == json);
  CHECK(gunzip(http::gzip("")).empty());
  const std::string binary("\x00\xff\x01 binary \x00", 12);
  CHECK(gunzip(http::gzip(binary, 9)) == binary);
}

TEST_CASE("compression: which answers are compressed, for which clients") {
  struct Case {
    const char* what;
    std::string accept;  // "" : no Accept-Encoding header
    std::string type;
    std::size_t size;
    bool encoded;  // already has a Content-Encoding
    int status;
    bool gzipped;
    bool vary;
  };
  const Case cases[] = {
      {"JSON, gzip asked", "gzip, deflate, br", "application/json", 4000, false, 200, true, true},
      {"CSV", "gzip", "text/csv; charset=utf-8", 4000, false, 200, true, true},
      {"metrics text", "*", "text/plain; version=0.0.4", 4000, false, 200, true, true},
      {"an error body", "gzip", "application/json", 4000, false, 500, true, true},
      {"no header", "", "application/json", 4000, false, 200, false, true},
      {"gzip refused", "gzip;q=0, identity", "application/json", 4000, false, 200, false, true},
      {"only br", "br", "application/json", 4000, false, 200, false, true},
      {"just below the minimum", "gzip", "application/json", 1023, false, 200, false, false},
      {"at the minimum", "gzip", "application/json", 1024, false, 200, true, true},
      {"not text", "gzip", "application/octet-stream", 4000, false, 200, false, false},
      {"a PKCS#12 file", "gzip", "application/x-pkcs12", 4000, false, 200, false, false},
      {"already encoded", "gzip", "application/json", 4000, true, 200, false, false},
      {"no content", "gzip", "application/json", 4000, false, 204, false, false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    http::HttpRequest request;
    if (!c.accept.empty()) request.headers["accept-encoding"] = c.accept;
    http::HttpResponse response;
    response.status = c.status;
    response.content_type = c.type;
    response.body = bigJson().substr(0, c.size);
    response.body.resize(c.size, ' ');
    if (c.encoded) response.headers.emplace_back("Content-Encoding", "br");
    const std::string plain = response.body;
    http::compressFor(request, response);
    CHECK((header(response, "Content-Encoding") == "gzip") == c.gzipped);
    CHECK((header(response, "Vary") == "Accept-Encoding") == c.vary);
    if (c.gzipped) {
      CHECK(gunzip(response.body) == plain);
    } else {
      CHECK(response.body == plain);
    }
  }
}

TEST_CASE("compression: a gzip member written piece by piece reads back whole") {
  http::GzipWriter writer;
  std::string packed;
  std::string plain;
  for (int i = 0; i < 50; ++i) {
    const std::string piece = bigJson().substr(0, 100 + 97 * i);
    plain += piece;
    writer.write(piece, packed, false);
  }
  writer.write("", packed, false);  // an empty piece changes nothing
  writer.write("the end", packed, true);
  plain += "the end";
  CHECK(gunzip(packed) == plain);
  CHECK(packed.size() < plain.size() / 4);
  const auto size = packed.size();
  writer.write("more", packed, true);  // after the end, nothing more is written
  CHECK(packed.size() == size);
}

TEST_CASE("compression: a streamed answer is compressed as it is written, whatever its size") {
  http::HttpRequest request;
  request.headers["accept-encoding"] = "gzip";
  http::HttpResponse response;
  response.content_type = "text/csv; charset=utf-8";
  response.body = "id,name\r\n";  // under the minimum: a stream is compressed all the same
  int calls = 0;
  response.stream = [&calls](std::string& out) {
    out += "row " + std::to_string(++calls) + "\r\n";
    return calls == 3 ? http::BodyStep::done : http::BodyStep::more;
  };
  http::compressFor(request, response);
  CHECK(header(response, "Content-Encoding") == "gzip");
  CHECK(header(response, "Vary") == "Accept-Encoding");
  std::string packed = response.body;
  http::BodyStep step = http::BodyStep::more;
  while (step == http::BodyStep::more)
    step = response.stream(packed);
  CHECK(step == http::BodyStep::done);
  CHECK(gunzip(packed) == "id,name\r\nrow 1\r\nrow 2\r\nrow 3\r\n");

  http::HttpRequest plainClient;  // a client that does not ask: the stream is left as it is
  http::HttpResponse untouched;
  untouched.content_type = "text/csv";
  untouched.stream = [](std::string& out) {
    out += "x";
    return http::BodyStep::done;
  };
  http::compressFor(plainClient, untouched);
  CHECK(header(untouched, "Content-Encoding").empty());
  std::string raw;
  CHECK(untouched.stream(raw) == http::BodyStep::done);
  CHECK(raw == "x");
}
