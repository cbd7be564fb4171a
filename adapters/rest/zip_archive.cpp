// ZIP layout (APPNOTE.TXT 6.3): local header + data per entry, then the central directory and
// its end record. Little-endian throughout.
#include <certsteward/adapters/rest/zip_archive.hpp>

#include <array>
#include <ctime>

namespace certsteward::adapters::rest {
namespace {

constexpr std::array<std::uint32_t, 256> makeCrcTable() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k)
      c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}
constexpr auto kCrcTable = makeCrcTable();

void put16(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v & 0xFFU));
  out.push_back(static_cast<char>((v >> 8) & 0xFFU));
}
void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xFFFFU);
  put16(out, v >> 16);
}

struct DosTime {
  std::uint32_t time = 0;
  std::uint32_t date = (1U << 5) | 1U;  // 1980-01-01
};

DosTime dosTime(std::int64_t unixSeconds) {
  const std::time_t t = static_cast<std::time_t>(unixSeconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  if (tm.tm_year < 80) return {};
  DosTime d;
  d.time = static_cast<std::uint32_t>((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
  d.date =
      static_cast<std::uint32_t>(((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
  return d;
}

}  // namespace

std::uint32_t crc32(const std::string& data) {
  std::uint32_t c = 0xFFFFFFFFU;
  for (const char ch : data)
    c = kCrcTable[(c ^ static_cast<unsigned char>(ch)) & 0xFFU] ^ (c >> 8);
  return c ^ 0xFFFFFFFFU;
}

std::string makeZip(const std::vector<ZipEntry>& entries, std::int64_t unixSeconds) {
  const DosTime when = dosTime(unixSeconds);
  std::string out;
  std::string central;
  for (const auto& e : entries) {
    const auto crc = crc32(e.data);
    const auto size = static_cast<std::uint32_t>(e.data.size());
    const auto nameSize = static_cast<std::uint32_t>(e.name.size());
    const auto offset = static_cast<std::uint32_t>(out.size());
    put32(out, 0x04034b50U);  // local file header
    put16(out, 20);           // version needed: 2.0
    put16(out, 0);            // flags
    put16(out, 0);            // method: stored
    put16(out, when.time);
    put16(out, when.date);
    put32(out, crc);
    put32(out, size);  // compressed
    put32(out, size);  // uncompressed
    put16(out, nameSize);
    put16(out, 0);  // extra
    out += e.name;
    out += e.data;

    put32(central, 0x02014b50U);      // central directory header
    put16(central, (3U << 8) | 20U);  // made by: Unix, 2.0
    put16(central, 20);
    put16(central, 0);
    put16(central, 0);
    put16(central, when.time);
    put16(central, when.date);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, nameSize);
    put16(central, 0);               // extra
    put16(central, 0);               // comment
    put16(central, 0);               // disk
    put16(central, 0);               // internal attributes
    put32(central, 0100600U << 16);  // external: a regular file, rw-------
    put32(central, offset);
    central += e.name;
  }
  const auto centralOffset = static_cast<std::uint32_t>(out.size());
  const auto centralSize = static_cast<std::uint32_t>(central.size());
  out += central;
  put32(out, 0x06054b50U);  // end of central directory
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<std::uint32_t>(entries.size()));
  put16(out, static_cast<std::uint32_t>(entries.size()));
  put32(out, centralSize);
  put32(out, centralOffset);
  put16(out, 0);  // comment
  return out;
}

}  // namespace certsteward::adapters::rest
