// JsonWriter: JSON text appended straight to a string, without building a DOM first — for the
// hot responses (certificate lists). Commas are placed by the writer; strings are escaped as
// RFC 8259 requires (", \, control characters), other bytes pass through like Boost.JSON's
// serializer does. Misuse (a value where a key is due) is a programming error, not checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::rest {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);
  JsonWriter& string(std::string_view text);
  JsonWriter& optionalString(const std::optional<std::string>& text);  // null when absent
  JsonWriter& boolean(bool value);
  JsonWriter& integer(std::int64_t value);
  JsonWriter& null();
  // Already serialized JSON, inserted as one value.
  JsonWriter& raw(std::string_view json);
  // RFC 3339 with milliseconds (domain::appendTimestamp); null when absent.
  JsonWriter& timestamp(const std::optional<domain::Timestamp>& t);

 private:
  void separate();
  std::string& out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool afterKey_ = false;
};

// `text` as a JSON string literal, quotes included, appended to `out`.
void appendJsonString(std::string& out, std::string_view text);

}  // namespace certsteward::adapters::rest
