#include <certsteward/adapters/http/compression.hpp>

#include <zlib.h>

#include <optional>
#include <stdexcept>

#include <certsteward/domain/text.hpp>

namespace certsteward::adapters::http {
namespace {

bool hasHeader(const HttpResponse& r, std::string_view lowerName) {
  for (const auto& [name, value] : r.headers) {
    if (domain::asciiLower(name) == lowerName) return true;
  }
  return false;
}

}  // namespace

bool acceptsGzip(std::string_view value) {
  std::optional<bool> gzip;
  std::optional<bool> any;
  const std::string v = domain::asciiLower(value);
  std::string_view rest = v;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto semi = item.find(';');
    const std::string_view coding = domain::trimBlanks(item.substr(0, semi));
    bool accepted = true;
    std::string_view params =
        semi == std::string_view::npos ? std::string_view{} : item.substr(semi + 1);
    while (!params.empty()) {
      const auto next = params.find(';');
      const std::string_view param = domain::trimBlanks(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view{} : params.substr(next + 1);
      if (param.starts_with("q=")) {
        // q=0, q=0.0, q=0.000 refuse; any other weight accepts.
        accepted = param.substr(2).find_first_not_of("0.") != std::string_view::npos;
      }
    }
    if (coding == "gzip") gzip = gzip.value_or(false) || accepted;
    if (coding == "*") any = any.value_or(false) || accepted;
  }
  return gzip ? *gzip : any.value_or(false);
}

std::string gzip(std::string_view data, int level) {
  z_stream z{};
  // 15 + 16: the largest window, with a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);  // one call: deflateBound leaves room for all of it
  const auto written = out.size() - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  out.resize(written);
  return out;
}

struct GzipWriter::State {
  z_stream z{};
  bool ended = false;
};

GzipWriter::GzipWriter(int level) : state_(std::make_unique<State>()) {
  if (deflateInit2(&state_->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
}

GzipWriter::~GzipWriter() {
  deflateEnd(&state_->z);
}

void GzipWriter::write(std::string_view data, std::string& out, bool finish) {
  if (state_->ended) return;
  z_stream& z = state_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  const int flush = finish ? Z_FINISH : Z_NO_FLUSH;
  int rc = Z_OK;
  do {  // until deflate has taken all of `data` (and, finishing, written the trailer)
    const std::size_t before = out.size();
    const std::size_t room = deflateBound(&z, z.avail_in) + 64;
    out.resize(before + room);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    z.avail_out = static_cast<uInt>(room);
    rc = deflate(&z, flush);
    out.resize(before + room - z.avail_out);
    if (rc == Z_STREAM_ERROR) throw std::runtime_error("deflate failed");
  } while (z.avail_in > 0 || (finish && rc != Z_STREAM_END));
  state_->ended = finish;
}

bool compressible(const HttpResponse& r) {
  if ((r.body.size() < kCompressMinBytes && !r.stream) || r.status == 204 || r.status == 304)
    return false;
  const std::string_view type = r.content_type;
  const bool text = type.starts_with("application/json") || type.starts_with("text/csv") ||
                    type.starts_with("text/plain");
  return text && !hasHeader(r, "content-encoding");
}

void compressFor(const HttpRequest& request, HttpResponse& response) {
  if (!compressible(response)) return;
  response.headers.emplace_back("Vary", "Accept-Encoding");
  const auto accept = request.header("accept-encoding");
  if (!accept || !acceptsGzip(*accept)) return;
  if (response.stream) {
    auto writer = std::make_shared<GzipWriter>();
    std::string first;
    writer->write(response.body, first, false);
    response.body = std::move(first);
    response.stream = [writer, source = std::move(response.stream)](std::string& out) {
      std::string plain;
      const BodyStep step = source(plain);
      // A failed source leaves the member unfinished: the answer is cut short either way.
      writer->write(plain, out, step == BodyStep::done);
      return step;
    };
    response.headers.emplace_back("Content-Encoding", "gzip");
    return;
  }
  response.body = gzip(response.body);
  response.headers.emplace_back("Content-Encoding", "gzip");
}

}  // namespace certsteward::adapters::http
