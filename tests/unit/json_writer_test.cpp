// JsonWriter: what it writes must read back (Boost.JSON's parser as the independent judge) as
// exactly the values written, whatever bytes the strings hold.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <certsteward/adapters/rest/json_writer.hpp>

using certsteward::adapters::rest::JsonWriter;
namespace json = boost::json;

TEST_CASE("json writer: nested values with commas where they belong") {
  std::string out;
  JsonWriter w(out);
  w.beginObject();
  w.key("a").integer(-42);
  w.key("b").boolean(true).key("c").null();
  w.key("list")
      .beginArray()
      .integer(1)
      .string("two")
      .beginObject()
      .endObject()
      .beginArray()
      .endArray()
      .endArray();
  w.key("maybe").optionalString(std::nullopt);
  w.key("raw").raw(R"({"x":[1,2]})");
  w.key("when").timestamp(certsteward::domain::fromUnixSeconds(0));
  w.key("never").timestamp(std::nullopt);
  w.endObject();
  CHECK(out == R"({"a":-42,"b":true,"c":null,"list":[1,"two",{},[]],"maybe":null,)"
               R"("raw":{"x":[1,2]},"when":"1970-01-01T00:00:00.000Z","never":null})");
  CHECK(json::parse(out).is_object());
}

TEST_CASE("json writer: every hostile string round-trips through a real parser") {
  std::string all;
  for (int c = 0; c < 128; ++c)
    all.push_back(static_cast<char>(c));
  const std::vector<std::string> samples{"",
                                         "plain",
                                         "quote \" backslash \\ slash /",
                                         "\n\r\t\b\f",
                                         std::string("nul\0x", 5),
                                         "\x1f\x7f",
                                         "unicode: \xc3\xa9\xe2\x82\xac\xf0\x9f\x94\x92",
                                         "</script><!--",
                                         all};
  for (const auto& sample : samples) {
    std::string out;
    JsonWriter w(out);
    w.beginArray().string(sample).endArray();
    boost::system::error_code ec;
    const auto v = json::parse(out, ec);
    REQUIRE_MESSAGE(!ec, out);
    CHECK(v.as_array().at(0).as_string() == json::string_view(sample));
    for (const char ch : out)
      CHECK(static_cast<unsigned char>(ch) >= 0x20);  // no raw control character left
  }
}
