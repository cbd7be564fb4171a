// What the end-to-end suites share for reading answers and waiting: an answer's JSON object, a
// string field of one, and a bounded poll.
#pragma once

#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <chrono>
#include <string>
#include <thread>

#include "e2e/http_client.hpp"

namespace certsteward::testing {

// The answer's body as a JSON object (the test fails when it is not one).
inline boost::json::object parseObject(const HttpResult& r) {
  boost::system::error_code ec;
  auto v = boost::json::parse(r.body, ec);
  REQUIRE_MESSAGE((!ec && v.is_object()), r.body);
  return v.as_object();
}

// The string at `key`, empty when absent or not a string.
inline std::string field(const boost::json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Polls `pred` every 100 ms for at most `limit`; whether it held.
template <class P>
bool eventually(P pred, std::chrono::milliseconds limit) {
  for (auto waited = std::chrono::milliseconds{0}; waited < limit;
       waited += std::chrono::milliseconds{100}) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  return pred();
}

}  // namespace certsteward::testing
