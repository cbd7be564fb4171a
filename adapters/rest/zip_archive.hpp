// A ZIP archive (PKZIP 2.0, entries stored uncompressed) built in memory for certificate
// downloads: a handful of small PEM files, so compression would buy nothing.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace certsteward::adapters::rest {

struct ZipEntry {
  std::string name;  // ASCII, no directories
  std::string data;
};

// `unixSeconds` becomes every entry's MS-DOS modification time (UTC).
std::string makeZip(const std::vector<ZipEntry>& entries, std::int64_t unixSeconds);

// CRC-32 (IEEE 802.3), as ZIP stores it.
std::uint32_t crc32(const std::string& data);

}  // namespace certsteward::adapters::rest
