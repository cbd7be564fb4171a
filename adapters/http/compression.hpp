// Compression of answers, as nginx's gzip module does it: gzip when the client accepts it, for
// text types above a small size, at a fast level.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <certsteward/adapters/http/http_types.hpp>

namespace certsteward::adapters::http {

// Answers smaller than this are sent as they are (the gzip header and a round of deflate cost
// more than they save); nginx's usual gzip_min_length.
inline constexpr std::size_t kCompressMinBytes = 1024;
// zlib level 1, nginx's default gzip_comp_level: most of the gain for the least CPU.
inline constexpr int kCompressLevel = 1;

// Whether an Accept-Encoding value accepts gzip (RFC 9110 12.5.3: an explicit "gzip" decides,
// otherwise "*" does; a q of 0 refuses).
bool acceptsGzip(std::string_view acceptEncoding);

// `data` as one gzip member (RFC 1952) at `level`.
std::string gzip(std::string_view data, int level = kCompressLevel);

// A gzip member (RFC 1952) written piece by piece, for a streamed answer: each call deflates
// `data` and appends what deflate has ready to `out`; the call with `finish` ends the member.
class GzipWriter {
 public:
  explicit GzipWriter(int level = kCompressLevel);
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;
  void write(std::string_view data, std::string& out, bool finish);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Whether `response` is worth compressing: a body of kCompressMinBytes or more (or a streamed
// one, whatever its first piece), of a text type (JSON, CSV, plain text, Prometheus'
// exposition), not already encoded.
bool compressible(const HttpResponse& response);

// Compresses `response` in place (a streamed one as it is written, through a GzipWriter) when
// it is compressible and `request` accepts gzip, setting Content-Encoding; a compressible answer
// gets Vary: Accept-Encoding either way, so a cache between keeps the two apart.
void compressFor(const HttpRequest& request, HttpResponse& response);

}  // namespace certsteward::adapters::http
