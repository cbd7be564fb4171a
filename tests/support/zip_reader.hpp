// An independent reader for the stored-only ZIP files of certificate downloads: walks the
// central directory, checks both headers and every CRC (doctest assertions), returns the files.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>

#include <certsteward/adapters/rest/zip_archive.hpp>

namespace certsteward::testing {

inline std::uint32_t le(const std::string& s, std::size_t at, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(s.at(at + static_cast<std::size_t>(i)));
  return v;
}

// Reads a stored-only ZIP through its central directory; checks every CRC and both headers.
inline std::map<std::string, std::string> readZip(const std::string& zip) {
  REQUIRE(zip.size() >= 22);
  const std::size_t end = zip.size() - 22;
  REQUIRE(le(zip, end, 4) == 0x06054b50U);
  const auto count = le(zip, end + 10, 2);
  std::size_t at = le(zip, end + 16, 4);
  CHECK(at + le(zip, end + 12, 4) == end);
  std::map<std::string, std::string> files;
  for (std::uint32_t i = 0; i < count; ++i) {
    REQUIRE(le(zip, at, 4) == 0x02014b50U);
    CHECK(le(zip, at + 10, 2) == 0);  // stored
    const auto crc = le(zip, at + 16, 4);
    const auto size = le(zip, at + 20, 4);
    const auto nameLength = le(zip, at + 28, 2);
    const auto offset = le(zip, at + 42, 4);
    const std::string name = zip.substr(at + 46, nameLength);
    REQUIRE(le(zip, offset, 4) == 0x04034b50U);
    CHECK(le(zip, offset + 14, 4) == crc);
    CHECK(zip.substr(offset + 30, nameLength) == name);
    const std::string data = zip.substr(offset + 30 + nameLength, size);
    CHECK(adapters::rest::crc32(data) == crc);
    files[name] = data;
    at += 46 + nameLength;
  }
  return files;
}

}  // namespace certsteward::testing
