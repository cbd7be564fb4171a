// Compression over the wire: the packaged server gzips API answers above 1 KiB for a client
// that asks, as nginx's gzip module would, and sends the same bytes plainly to one that does
// not. The answers are read back with zlib's own inflate.
#include <doctest/doctest.h>

#include <zlib.h>

#include "e2e/api_support.hpp"

using namespace certsteward::testing::api;

namespace {

std::string gunzip(const std::string& in) {
  z_stream z{};
  REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);
  std::string out(8 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  const auto n = out.size() - z.avail_out;
  inflateEnd(&z);
  REQUIRE(rc == Z_STREAM_END);
  out.resize(n);
  return out;
}

}  // namespace

TEST_CASE("api: answers above 1 KiB are gzip-compressed for a client that asks, and only then") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);

  const auto plain = http.request("GET", "/api/v1/catalog", "", {bearer(owner)});
  REQUIRE(plain.status == 200);
  REQUIRE(plain.body.size() > 1024);
  CHECK(plain.header("content-encoding").empty());
  CHECK(plain.header("vary") == "Accept-Encoding");

  const auto packed = http.request("GET", "/api/v1/catalog", "",
                                   {bearer(owner), "Accept-Encoding: gzip, deflate, br"});
  REQUIRE(packed.status == 200);
  CHECK(packed.header("content-encoding") == "gzip");
  CHECK(packed.header("vary") == "Accept-Encoding");
  CHECK(packed.header("content-type").rfind("application/json", 0) == 0);
  CHECK(packed.body.size() * 3 < plain.body.size());
  CHECK(gunzip(packed.body) == plain.body);

  // Refused by weight, or not offered: sent as it is.
  const auto refused =
      http.request("GET", "/api/v1/catalog", "", {bearer(owner), "Accept-Encoding: gzip;q=0"});
  CHECK(refused.header("content-encoding").empty());
  CHECK(refused.body == plain.body);

  // A small answer is not worth it.
  const auto smallPlain = http.request("GET", "/api/v1/license/status", "", {bearer(owner)});
  REQUIRE(smallPlain.status == 200);
  REQUIRE(smallPlain.body.size() < 1024);
  const auto small =
      http.request("GET", "/api/v1/license/status", "", {bearer(owner), "Accept-Encoding: gzip"});
  CHECK(small.header("content-encoding").empty());
  CHECK(small.header("vary").empty());
  CHECK(small.body == smallPlain.body);
}
