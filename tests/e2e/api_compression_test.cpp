// Compression over the wire: the packaged server gzips API answers above 1 KiB for a client
// that asks, as nginx's gzip module would, and sends the same bytes plainly to one that does
// not. The answers are read back with zlib's own inflate.
#include <doctest/doctest.h>

#include "e2e/api_support.hpp"
#include "support/gunzip.hpp"

using namespace certsteward::testing::api;
using certsteward::testing::gunzip;

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
