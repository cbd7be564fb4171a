// Reads a gzip member back with zlib's own inflate, as an independent judge of what the server
// compressed. Throws std::runtime_error on anything that is not one whole gzip member.
#pragma once

#include <zlib.h>

#include <stdexcept>
#include <string>

namespace certsteward::testing {

inline std::string gunzip(const std::string& in, std::size_t capacity = 8 << 20) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw std::runtime_error("inflateInit2 failed");
  std::string out(capacity, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  const auto n = out.size() - z.avail_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("not one whole gzip member");
  out.resize(n);
  return out;
}

}  // namespace certsteward::testing
