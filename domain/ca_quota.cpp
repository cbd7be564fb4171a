// CA quotas: activity kinds, published limits and the `acme.rate_limits` syntax.
#include <certsteward/domain/ca_quota.hpp>

#include <algorithm>

#include <certsteward/domain/enum_names.hpp>
#include <certsteward/domain/text.hpp>

namespace certsteward::domain {
namespace {

using KP = std::pair<CaActivityKind, std::string_view>;
constexpr auto kKindNames =
    makeEnumNames<CaActivityKind>(KP{CaActivityKind::order_created, "order_created"},
                                  KP{CaActivityKind::certificate_issued, "certificate_issued"},
                                  KP{CaActivityKind::validation_failed, "validation_failed"},
                                  KP{CaActivityKind::rate_limited, "rate_limited"});

using namespace std::chrono;

// Let's Encrypt's published limits (letsencrypt.org/docs/rate-limits and staging-environment):
// New Certificates per Registered Domain, New Orders per Account, Authorization Failures per
// Identifier per Account.
struct Published {
  std::string_view directory_url;
  QuotaLimit certificates, orders, failed_validations;
};
constexpr Published kPublished[] = {
    {"https://acme-v02.api.letsencrypt.org/directory",
     {50, days{7}},
     {300, hours{3}},
     {5, hours{1}}},
    {"https://acme-staging-v02.api.letsencrypt.org/directory",
     {30000, days{7}},
     {1500, hours{3}},
     {200, hours{1}}},
};

// "50/7d"
std::optional<QuotaLimit> parseLimit(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash > 9) return std::nullopt;
  std::int64_t max = 0;
  for (const char c : text.substr(0, slash)) {
    if (c < '0' || c > '9') return std::nullopt;
    max = max * 10 + (c - '0');
  }
  if (max == 0) return std::nullopt;
  const auto window = parseDuration(text.substr(slash + 1));
  if (!window || *window <= Duration::zero() || *window > kMaxQuotaWindow) return std::nullopt;
  return QuotaLimit{max, *window};
}

CaQuotaLimits defaults(std::string_view directoryUrl) {
  for (const auto& p : kPublished) {
    if (p.directory_url == directoryUrl) {
      return {std::string(directoryUrl), "published", p.certificates, p.orders,
              p.failed_validations};
    }
  }
  return {std::string(directoryUrl), "unknown", {0, days{7}}, {0, hours{3}}, {0, hours{1}}};
}

}  // namespace

std::string_view nameOf(CaActivityKind kind) noexcept {
  return kKindNames.name(kind);
}
std::optional<CaActivityKind> parseCaActivityKind(std::string_view text) noexcept {
  return kKindNames.parse(text);
}

CaQuotaLimits quotaLimitsFor(std::string_view directoryUrl,
                             std::span<const CaQuotaLimits> configured) {
  for (const auto& c : configured) {
    if (c.directory_url == directoryUrl) return c;
  }
  return defaults(directoryUrl);
}

Result<std::vector<CaQuotaLimits>> parseQuotaLimits(std::string_view text) {
  std::vector<CaQuotaLimits> out;
  while (!text.empty()) {
    const auto semi = text.find(';');
    const std::string_view entry = trimBlanks(text.substr(0, semi));
    text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
    if (entry.empty()) continue;
    const auto space = entry.find_first_of(" \t");
    const std::string_view url = entry.substr(0, space);
    if (!url.starts_with("https://") && !url.starts_with("http://")) {
      return makeError(ErrorCode::invalid_argument,
                       "'" + std::string(url) + "' is not a directory URL");
    }
    if (std::any_of(out.begin(), out.end(),
                    [&](const CaQuotaLimits& c) { return c.directory_url == url; })) {
      return makeError(ErrorCode::invalid_argument,
                       "the directory " + std::string(url) + " is listed twice");
    }
    CaQuotaLimits limits = defaults(url);
    limits.source = "configured";
    std::string_view rest =
        space == std::string_view::npos ? std::string_view() : entry.substr(space + 1);
    bool any = false;
    while (!(rest = trimBlanks(rest)).empty()) {
      const auto end = rest.find_first_of(" \t");
      const std::string_view part = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
      const auto eq = part.find('=');
      const std::string_view key = part.substr(0, eq);
      const auto limit =
          eq == std::string_view::npos ? std::nullopt : parseLimit(part.substr(eq + 1));
      QuotaLimit* target = key == "certificates"         ? &limits.certificates
                           : key == "orders"             ? &limits.orders
                           : key == "failed_validations" ? &limits.failed_validations
                                                         : nullptr;
      if (target == nullptr || !limit) {
        return makeError(ErrorCode::invalid_argument,
                         "'" + std::string(part) +
                             "' is not certificates=, orders= or failed_validations= with "
                             "COUNT/WINDOW (COUNT at least 1, WINDOW at most 30d, e.g. 50/7d)");
      }
      *target = *limit;
      any = true;
    }
    if (!any) {
      return makeError(ErrorCode::invalid_argument,
                       "the entry for " + std::string(url) + " sets no limit");
    }
    out.push_back(std::move(limits));
  }
  return out;
}

std::string withoutWildcard(std::string_view name) {
  if (name.starts_with("*.")) name.remove_prefix(2);
  return std::string(name);
}

}  // namespace certsteward::domain
