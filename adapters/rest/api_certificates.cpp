// /api/v1/projects/<project_id>/certificates.
#include <algorithm>
#include <array>
#include <chrono>
#include <sstream>
#include <utility>

#include <spdlog/spdlog.h>

#include <certsteward/adapters/http/compression.hpp>
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/csv.hpp>
#include <certsteward/adapters/rest/jobs_json.hpp>
#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/adapters/rest/json_writer.hpp>
#include <certsteward/adapters/rest/zip_archive.hpp>
#include <certsteward/domain/text.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::rest {
namespace {

// `now` decides the derived `failed_renewal` flag (docs/architecture.md, State machines:
// Certificate). Written without a DOM: certificate lists are the hottest responses.
void writeJson(JsonWriter& w, const domain::Certificate& c, domain::Timestamp now) {
  w.beginObject();
  w.key("id").string(c.id);
  w.key("project_id").string(c.project_id);
  w.key("common_name").string(c.common_name);
  w.key("sans").beginArray();
  for (const auto& san : c.sans)
    w.string(san);
  w.endArray();
  w.key("key_type").string(nameOf(c.key_type));
  w.key("status").string(nameOf(c.status));
  w.key("auto_renew").boolean(c.auto_renew);
  w.key("issuer_type").string(c.issuer_type);
  w.key("acme_account_id").optionalString(c.acme_account_id);
  w.key("acme_account_ids").beginArray();
  for (const auto& id : c.acme_account_ids)
    w.string(id);
  w.endArray();
  w.key("profile").string(c.profile);
  w.key("preferred_chain").string(c.preferred_chain);
  const auto idOrNull = [](const std::string& id) {
    return id.empty() ? std::nullopt : std::optional<std::string>(id);
  };
  w.key("issued_by_account_id").optionalString(idOrNull(c.issued_by_account_id));
  w.key("issued_by_provider_id").optionalString(idOrNull(c.issued_by_provider_id));
  w.key("failover_account_id").optionalString(idOrNull(c.failover_account_id));
  w.key("failover_at").timestamp(c.failover_at);
  w.key("challenge").string(nameOf(c.challenge));
  w.key("http01_module_config_id")
      .optionalString(c.http01_module_config_id.empty()
                          ? std::nullopt
                          : std::optional<std::string>(c.http01_module_config_id));
  w.key("issued_at").timestamp(c.issued_at);
  w.key("expires_at").timestamp(c.expires_at);
  w.key("next_renewal_at").timestamp(c.next_renewal_at);
  w.key("renewal_threshold_days").integer(c.renewal_threshold_days);
  if (c.renew_at_fraction > 0) {
    w.key("renew_at_fraction").raw(json::serialize(json::value(c.renew_at_fraction)));
  } else {
    w.key("renew_at_fraction").null();
  }
  w.key("renewal_attempts").integer(c.renewal_attempts);
  w.key("last_error").string(c.last_error);
  w.key("failed_renewal").boolean(domain::isFailedRenewal(c, now));
  w.key("distribution_pending").boolean(c.distribution_pending);
  w.key("serial_number").string(c.serial_number);
  w.key("created_at").timestamp(c.created_at);
  w.key("updated_at").timestamp(c.updated_at);
  w.endObject();
}

// {"certificate": {...}} plus, when given, "job": {...}.
HttpResponse certificateResponse(int status, const domain::Certificate& cert, domain::Timestamp now,
                                 const domain::Job* job = nullptr) {
  HttpResponse r;
  r.status = status;
  JsonWriter w(r.body);
  w.beginObject().key("certificate");
  writeJson(w, cert, now);
  if (job != nullptr) w.key("job").raw(json::serialize(toJson(*job)));
  w.endObject();
  return r;
}

// {"certificates": [...], "total", "page", "page_size"}
HttpResponse certificatePageResponse(const domain::Page<domain::Certificate>& page,
                                     domain::Timestamp now) {
  HttpResponse r;
  r.headers.emplace_back("Vary", "Accept");  // the same address answers CSV too
  r.body.reserve(256 + page.items.size() * 640);
  JsonWriter w(r.body);
  w.beginObject().key("certificates").beginArray();
  for (const auto& cert : page.items)
    writeJson(w, cert, now);
  w.endArray();
  w.key("total").integer(page.total);
  w.key("page").integer(page.page);
  w.key("page_size").integer(page.page_size);
  w.endObject();
  return r;
}

// Whether the client asks for CSV rather than JSON; 400 for a format that is neither.
bool wantsCsv(const HttpRequest& request) {
  if (const auto format = queryParam(request, "format");
      format && *format != "json" && *format != "csv") {
    throw BadRequest("format must be json or csv");
  }
  return asksForCsv(request);
}

constexpr std::string_view kCsvHeader =
    "id,common_name,sans,status,days_left,expires_at,next_renewal_at,issuer_type,auto_renew,"
    "renewal_attempts,failed_renewal,last_error,created_at\r\n";

void csvRow(std::string& out, const domain::Certificate& c, domain::Timestamp now) {
  const auto time = [&](const std::optional<domain::Timestamp>& t) {
    if (t) appendCsvField(out, domain::formatTimestamp(*t));
    out += ',';
  };
  appendCsvField(out, c.id);
  out += ',';
  appendCsvField(out, c.common_name);
  out += ',';
  std::string sans;
  for (const auto& san : c.sans)
    sans += (sans.empty() ? "" : " ") + san;
  appendCsvField(out, sans);
  out += ',';
  out += nameOf(c.status);
  out += ',';
  if (c.expires_at) {  // whole days left, rounded down (negative once expired)
    const auto left = std::chrono::floor<std::chrono::days>(*c.expires_at - now);
    out += std::to_string(left.count());
  }
  out += ',';
  time(c.expires_at);
  time(c.next_renewal_at);
  appendCsvField(out, c.issuer_type);
  out += c.auto_renew ? ",true," : ",false,";
  out += std::to_string(c.renewal_attempts);
  out += domain::isFailedRenewal(c, now) ? ",true," : ",false,";
  appendCsvField(out, c.last_error);
  out += ',';
  out += domain::formatTimestamp(c.created_at);
  out += "\r\n";
}

// Every certificate the filter matches (page and page_size are ignored), in the filter's order,
// as CSV, at most kCsvMaxRows: read from the store a thousand at a time. The first batch is read
// here (an error is still a status); the rest are streamed, each batch read when the client has
// taken the one before, so an export of any size holds one batch in memory.
HttpResponse certificateCsv(services::CertificateService& certificates, const Call& c,
                            const domain::Id& project, const ports::CertificateFilter& filter,
                            domain::Timestamp now) {
  constexpr std::int64_t kBatch = 1000;
  constexpr std::int64_t kCsvMaxRows = 100000;
  auto first = certificates.list(c.who(), project, filter,
                                 domain::PageRequest{.page = 1, .page_size = kBatch});
  if (!first) return errorResponse(first.error());
  HttpResponse r;
  r.content_type = "text/csv; charset=utf-8";
  r.body = kCsvHeader;
  for (const auto& cert : first->items)
    csvRow(r.body, cert, now);
  const std::int64_t total = first->total;  // the count when the export began
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"certificates.csv\"");
  r.headers.emplace_back("Vary", "Accept");
  r.headers.emplace_back("X-Total-Count", std::to_string(total));
  if (total > kCsvMaxRows) r.headers.emplace_back("X-Truncated", "true");
  if (static_cast<std::int64_t>(first->items.size()) < kBatch) return r;
  // Each later batch is its own read, with the caller's project membership checked again: a
  // caller removed from the project meanwhile gets an answer cut short. (The account itself is as
  // it was when the export began.)
  r.stream = [&certificates, who = c.who(), project, filter, now, page = std::int64_t{1},
              written = kBatch](std::string& out) mutable {
    if (written >= kCsvMaxRows) return http::BodyStep::done;
    auto batch = certificates.list(who, project, filter,
                                   domain::PageRequest{.page = ++page, .page_size = kBatch});
    if (!batch) {
      spdlog::warn("a CSV export of project {} ended after {} rows: {}", project, written,
                   batch.error().message);
      return http::BodyStep::failed;
    }
    for (const auto& cert : batch->items) {
      if (written == kCsvMaxRows) break;
      csvRow(out, cert, now);
      ++written;
    }
    return static_cast<std::int64_t>(batch->items.size()) < kBatch ? http::BodyStep::done
                                                                   : http::BodyStep::more;
  };
  return r;
}

ports::CertificateFilter filterFrom(const HttpRequest& request, domain::Timestamp now) {
  ports::CertificateFilter filter;
  if (auto statuses = queryParam(request, "status")) {
    std::stringstream ss(*statuses);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item.empty()) continue;
      auto status = domain::parseCertificateStatus(item);
      if (!status) throw BadRequest("unknown status: '" + item.substr(0, 40) + "'");
      filter.statuses.push_back(*status);
    }
  }
  auto days = queryInt(request, "expiring_within_days");
  if (!days) days = queryInt(request, "expiring_days");
  if (days) {
    if (*days < 0 || *days > 36500) throw BadRequest("expiring_within_days must be 0..36500");
    filter.expires_before = now + std::chrono::days{*days};
  }
  filter.issuer_type = queryParam(request, "issuer_type");
  if (auto search = queryParam(request, "search"); search && !search->empty()) {
    if (search->size() > 253) throw BadRequest("search may be at most 253 characters");
    // A piece of a DNS name (IDNs are stored in their ASCII form): nothing else can match.
    const std::string lowered = domain::asciiLower(*search);
    const bool nameCharacters = std::all_of(lowered.begin(), lowered.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' ||
             ch == '_' || ch == '*';
    });
    if (!nameCharacters) {
      throw BadRequest("search may hold only letters, digits and . - _ * (a piece of a DNS name)");
    }
    filter.name_contains = lowered;
  }
  if (auto sort = queryParam(request, "sort")) {
    static const std::map<std::string, ports::CertificateSort> sorts{
        {"created_at", ports::CertificateSort::created_at},
        {"expires_at", ports::CertificateSort::expires_at},
        {"next_renewal_at", ports::CertificateSort::next_renewal_at},
        {"common_name", ports::CertificateSort::common_name},
        {"status", ports::CertificateSort::status}};
    const auto it = sorts.find(*sort);
    if (it == sorts.end()) throw BadRequest("unknown sort: '" + sort->substr(0, 40) + "'");
    filter.sort = it->second;
  }
  if (auto order = queryParam(request, "order")) {
    if (*order == "asc") {
      filter.order = domain::SortOrder::asc;
    } else if (*order == "desc") {
      filter.order = domain::SortOrder::desc;
    } else {
      throw BadRequest("order must be asc or desc");
    }
  }
  return filter;
}

std::vector<std::string> stringArray(const json::object& o, const char* key) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) throw BadRequest(std::string(key) + " must be an array of strings");
  if (v->as_array().size() > 100)
    throw BadRequest(std::string(key) + " may hold at most 100 names");
  for (const auto& item : v->as_array()) {
    if (!item.is_string() || item.as_string().size() > 253) {
      throw BadRequest(std::string(key) + " must be an array of DNS names");
    }
    out.emplace_back(item.as_string());
  }
  return out;
}

// A number in (0, 1) or null; 400 for another type (the range is the service's rule).
std::optional<double> optionalFraction(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_number()) throw BadRequest(std::string(key) + " must be a number");
  return v->to_number<double>();
}

std::optional<int> optionalInt(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_int64() || v->as_int64() < -1000000 || v->as_int64() > 1000000) {
    throw BadRequest(std::string(key) + " must be an integer");
  }
  return static_cast<int>(v->as_int64());
}

// The parameters that shape a list page, in a fixed order (std::map), after the project.
std::string pageCacheKey(const std::string& project, const HttpRequest& request) {
  static constexpr std::array kShaping{"expiring_days", "expiring_within_days",
                                       "issuer_type",   "order",
                                       "page",          "page_size",
                                       "search",        "sort",
                                       "status"};
  std::string key = project;
  for (const char* name : kShaping) {
    const auto it = request.query.find(name);
    key += '\n';
    if (it != request.query.end()) key += it->second;
  }
  return key;
}

// How long a rendered page may be served: 5 s at most; 1 s when the filter moves with the
// clock (expiring_within_days); never past the moment a listed active certificate reaches
// next_renewal_at (its derived failed_renewal flag turns true then).
domain::Timestamp pageValidUntil(const domain::Page<domain::Certificate>& page,
                                 const ports::CertificateFilter& filter, domain::Timestamp now) {
  auto until = now + std::chrono::seconds{filter.expires_before ? 1 : 5};
  for (const auto& cert : page.items) {
    if (cert.status == domain::CertificateStatus::active && cert.next_renewal_at &&
        *cert.next_renewal_at >= now) {
      until = std::min(until, *cert.next_renewal_at);
    }
  }
  return until;
}

enum class BundleFormat { pem, zip, pkcs12 };

BundleFormat bundleFormat(const std::string& name) {
  if (name == "pem") return BundleFormat::pem;
  if (name == "zip") return BundleFormat::zip;
  if (name == "pkcs12" || name == "p12" || name == "pfx") return BundleFormat::pkcs12;
  throw BadRequest("unknown format: '" + name.substr(0, 40) + "' (pem, zip, pkcs12)");
}

// "*.example.com" -> "_.example.com"; anything but [A-Za-z0-9.-] becomes '_'.
std::string fileStem(const std::string& commonName) {
  std::string stem;
  for (const char ch : commonName.substr(0, 100)) {
    const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                       (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
    stem.push_back(plain ? ch : '_');
  }
  while (!stem.empty() && stem.front() == '.')
    stem.erase(stem.begin());
  return stem.empty() ? "certificate" : stem;
}

std::string withNewline(std::string pem) {
  if (!pem.empty() && pem.back() != '\n') pem.push_back('\n');
  return pem;
}

HttpResponse fileResponse(std::string contentType, const std::string& fileName, std::string body) {
  HttpResponse r;
  r.content_type = std::move(contentType);
  r.body = std::move(body);
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"" + fileName + "\"");
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

// The download in `format`, with the encrypted key when the material carries it.
HttpResponse bundleResponse(const services::CertificateMaterial& m, BundleFormat format,
                            domain::Timestamp now) {
  const std::string stem = fileStem(m.common_name);
  const std::string leaf = withNewline(m.certificate_pem);
  const std::string chain = withNewline(m.chain_pem);
  const std::string& encryptedKey = m.encrypted_private_key_pem;
  switch (format) {
    case BundleFormat::pem:
      return fileResponse("application/x-pem-file", stem + ".pem", leaf + chain + encryptedKey);
    case BundleFormat::zip: {
      std::vector<ZipEntry> files{
          {"cert.pem", leaf}, {"chain.pem", chain}, {"fullchain.pem", leaf + chain}};
      if (!encryptedKey.empty()) files.push_back({"privkey.pem", encryptedKey});
      return fileResponse("application/zip", stem + ".zip",
                          makeZip(files, domain::unixSeconds(now)));
    }
    case BundleFormat::pkcs12:
      return fileResponse("application/x-pkcs12", stem + ".p12", m.pkcs12);
  }
  return errorResponse(500, "internal error");
}

}  // namespace

void Api::addCertificateRoutes() {
  // Public material only: the leaf and its chain.
  router_.add(
      "GET", "/api/v1/projects/:project_id/certificates/:cert_id/download", [this](const Call& c) {
        const auto format = bundleFormat(queryParam(c.request, "format").value_or("pem"));
        if (format == BundleFormat::pkcs12) {
          throw BadRequest("a PKCS#12 file holds the private key: use POST with a password");
        }
        auto material =
            s_.certificates.material(c.who(), c.context, c.param("project_id"), c.param("cert_id"));
        if (!material) return errorResponse(material.error());
        return bundleResponse(*material, format, s_.clock.now());
      });

  // With the private key, encrypted under the caller's password (project admin, audited).
  router_.add(
      "POST", "/api/v1/projects/:project_id/certificates/:cert_id/download", [this](const Call& c) {
        const auto body = parseBody(c.request);
        const auto format = bundleFormat(optionalString(body, "format", 20).value_or("pem"));
        services::MaterialRequest what;
        if (format == BundleFormat::pkcs12) {
          what.key = services::KeyExport::pkcs12;
        } else if (optionalBool(body, "include_private_key").value_or(false)) {
          what.key = services::KeyExport::encrypted_pem;
        }
        if (what.key != services::KeyExport::none) {
          what.password = optionalString(body, "password", 1024).value_or("");
        }
        auto material = s_.certificates.material(c.who(), c.context, c.param("project_id"),
                                                 c.param("cert_id"), what);
        if (!material) return errorResponse(material.error());
        return bundleResponse(*material, format, s_.clock.now());
      });

  // The dashboard's counts (docs/api.md, Certificates).
  router_.add("GET", "/api/v1/projects/:project_id/summary", [this](const Call& c) {
    auto summary = s_.certificates.summary(c.who(), c.param("project_id"));
    if (!summary) return errorResponse(summary.error());
    json::object byStatus;
    for (const auto& [status, n] : summary->by_status)
      byStatus[std::string(nameOf(status))] = n;
    json::object within;
    for (const auto& [days, n] : summary->expiring_within)
      within[std::to_string(days)] = n;
    json::array weeks;
    for (const auto n : summary->expiring_by_week)
      weeks.push_back(n);
    return jsonResponse(200, json::object{{"certificates", json::object{
                                                               {"total", summary->total},
                                                               {"by_status", byStatus},
                                                               {"expired", summary->expired},
                                                               {"expiring_within_days", within},
                                                               {"expiring_by_week", weeks},
                                                           }}});
  });

  router_.add("GET", "/api/v1/projects/:project_id/certificates", [this](const Call& c) {
    const auto now = s_.clock.now();
    const auto filter = filterFrom(c.request, now);  // bad parameters are 400 before anything
    const auto pageRequest = pageFrom(c.request);
    const auto& project = c.param("project_id");
    if (wantsCsv(c.request)) return certificateCsv(s_.certificates, c, project, filter, now);
    // Generation first, then the data: a page stored under a generation is at least that new.
    auto generation = s_.certificates.generation(c.who(), project);
    if (!generation) return errorResponse(generation.error());
    const std::string key = pageCacheKey(project, c.request);
    // A page filled by a client that asked for gzip is kept compressed too: a hit is then sent
    // without compressing it again (a page filled by a plain client is compressed on the way
    // out, by Api::serve, for each gzip client until the page is filled again).
    const auto encodings = c.request.header("accept-encoding");
    const bool gzipAccepted = encodings && http::acceptsGzip(*encodings);
    const auto gzipped = [](HttpResponse r, const std::string& bytes) {
      r.body = bytes;
      r.headers.emplace_back("Content-Encoding", "gzip");
      r.headers.emplace_back("Vary", "Accept-Encoding");
      return r;
    };
    if (auto hit = certificatePages_.find(key, now); hit && hit->generation == *generation) {
      HttpResponse r;
      r.headers.emplace_back("Vary", "Accept");  // the same address answers CSV too
      if (gzipAccepted && hit->gzipped) return gzipped(std::move(r), *hit->gzipped);
      r.body = *hit->body;  // compressed on the way out when asked (filled by a plain client)
      return r;
    }
    auto page = s_.certificates.list(c.who(), project, filter, pageRequest);
    if (!page) return errorResponse(page.error());
    auto response = certificatePageResponse(*page, now);
    CachedPage cached{*generation, std::make_shared<const std::string>(response.body), nullptr};
    if (gzipAccepted && http::compressible(response)) {
      cached.gzipped = std::make_shared<const std::string>(http::gzip(response.body));
    }
    certificatePages_.put(key, cached, pageValidUntil(*page, filter, now), now);
    if (cached.gzipped) return gzipped(std::move(response), *cached.gzipped);
    return response;
  });

  router_.add("POST", "/api/v1/projects/:project_id/certificates", [this](const Call& c) {
    const auto body = parseBody(c.request);
    services::CertificateRequest request;  // its defaults are the service's
    request.common_name = requiredString(body, "common_name", 253);
    request.sans = stringArray(body, "sans");
    if (auto k = optionalEnum<domain::KeyType>(body, "key_type", domain::parseKeyType)) {
      request.key_type = *k;
    }
    request.renewal_threshold_days = optionalInt(body, "renewal_threshold_days");
    request.renew_at_fraction = optionalFraction(body, "renew_at_fraction");
    if (auto renew = optionalBool(body, "auto_renew")) request.auto_renew = *renew;
    request.acme_account_id = optionalString(body, "acme_account_id", 64);
    if (body.contains("acme_account_ids"))
      request.acme_account_ids = stringArray(body, "acme_account_ids");
    request.profile = optionalString(body, "profile", 64).value_or("");
    request.preferred_chain = optionalString(body, "preferred_chain", 200).value_or("");
    if (auto challenge =
            optionalEnum<domain::ChallengeType>(body, "challenge", domain::parseChallengeType)) {
      request.challenge = *challenge;
    }
    request.http01_module_config_id =
        optionalString(body, "http01_module_config_id", 64).value_or("");
    if (auto issuer = optionalString(body, "issuer_type", 40); issuer && *issuer != "acme") {
      throw BadRequest("unknown issuer_type: '" + issuer->substr(0, 40) + "' (acme)");
    }
    auto queued = s_.certificates.create(c.who(), c.context, c.param("project_id"), request);
    if (!queued) return errorResponse(queued.error());
    return certificateResponse(202, queued->certificate, s_.clock.now(), &queued->job);
  });

  router_.add("PATCH", "/api/v1/projects/:project_id/certificates/:cert_id", [this](const Call& c) {
    // A certificate the caller cannot see is 404 whatever the body says.
    if (auto visible = s_.certificates.get(c.who(), c.param("project_id"), c.param("cert_id"));
        !visible) {
      return errorResponse(visible.error());
    }
    const auto body = parseBody(c.request);
    static constexpr std::array kFields{"auto_renew",        "renewal_threshold_days",
                                        "renew_at_fraction", "acme_account_ids",
                                        "profile",           "preferred_chain"};
    for (const auto& [key, value] : body) {
      (void)value;
      if (std::find(kFields.begin(), kFields.end(), std::string_view(key)) == kFields.end()) {
        throw BadRequest("unknown or unchangeable field: " + std::string(key).substr(0, 40));
      }
    }
    services::CertificateChanges changes;
    changes.auto_renew = optionalBool(body, "auto_renew");
    changes.renewal_threshold_days = optionalInt(body, "renewal_threshold_days");
    if (const auto* v = body.if_contains("renew_at_fraction"); v != nullptr) {
      changes.renew_at_fraction = v->is_null() ? 0.0 : optionalFraction(body, "renew_at_fraction");
    }
    if (body.contains("acme_account_ids")) {
      changes.acme_account_ids = stringArray(body, "acme_account_ids");
    }
    changes.profile = optionalString(body, "profile", 64);
    changes.preferred_chain = optionalString(body, "preferred_chain", 200);
    auto cert = s_.certificates.update(c.who(), c.context, c.param("project_id"),
                                       c.param("cert_id"), changes);
    if (!cert) return errorResponse(cert.error());
    return certificateResponse(200, *cert, s_.clock.now());
  });

  router_.add("GET", "/api/v1/projects/:project_id/certificates/:cert_id", [this](const Call& c) {
    auto cert = s_.certificates.get(c.who(), c.param("project_id"), c.param("cert_id"));
    if (!cert) return errorResponse(cert.error());
    return certificateResponse(200, *cert, s_.clock.now());
  });

  // Where each name's DNS-01 challenge goes now, CNAME delegations followed (docs/api.md).
  router_.add("GET", "/api/v1/projects/:project_id/certificates/:cert_id/challenge-plan",
              [this](const Call& c) {
                auto plan = s_.certificates.challengePlan(c.who(), c.param("project_id"),
                                                          c.param("cert_id"));
                if (!plan) return errorResponse(plan.error());
                json::array items;
                for (const auto& entry : *plan) {
                  json::object item{{"name", entry.name}};
                  if (entry.challenge == domain::ChallengeType::http_01) {
                    item["challenge"] = "http-01";
                    item["answered_by"] = entry.http01_via;
                    item["problem"] =
                        entry.problem.empty() ? json::value() : json::value(entry.problem);
                  } else if (entry.route) {
                    const auto& r = *entry.route;
                    json::array cnames;
                    for (const auto& hop : r.cnames)
                      cnames.emplace_back(hop);
                    item["challenge"] = "dns-01";
                    item["challenge_name"] = r.challenge_name;
                    item["delegated_via"] = std::move(cnames);
                    item["record_name"] = r.record_name;
                    item["zone_id"] = r.zone.id;
                    item["zone"] = r.zone.domain;
                    item["dns_credential_id"] = r.zone.dns_credential_id;
                    item["note"] = r.note.empty() ? json::value() : json::value(r.note);
                    item["problem"] = nullptr;
                  } else {
                    item["challenge"] = nullptr;
                    item["problem"] = entry.problem;
                  }
                  items.push_back(std::move(item));
                }
                return jsonResponse(200, json::object{{"items", std::move(items)}});
              });

  router_.add("DELETE", "/api/v1/projects/:project_id/certificates/:cert_id",
              [this](const Call& c) {
                if (auto s = s_.certificates.remove(c.who(), c.context, c.param("project_id"),
                                                    c.param("cert_id"));
                    !s) {
                  return errorResponse(s.error());
                }
                HttpResponse r;
                r.status = 204;
                return r;
              });

  router_.add(
      "POST", "/api/v1/projects/:project_id/certificates/:cert_id/renew", [this](const Call& c) {
        auto queued =
            s_.certificates.renew(c.who(), c.context, c.param("project_id"), c.param("cert_id"));
        if (!queued) return errorResponse(queued.error());
        return certificateResponse(202, queued->certificate, s_.clock.now(), &queued->job);
      });
}

}  // namespace certsteward::adapters::rest
