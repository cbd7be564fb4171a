// CA quotas: what an ACME CA counts against a registered domain (certificates issued, orders,
// failed validations) and its rate-limit refusals, as this service records them
// (ports::CaActivityLog), and the limits those counts are compared with: the CA's published
// defaults for its directory, or the operator's `acme.rate_limits`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

enum class CaActivityKind { order_created, certificate_issued, validation_failed, rate_limited };

std::string_view nameOf(CaActivityKind kind) noexcept;
std::optional<CaActivityKind> parseCaActivityKind(std::string_view text) noexcept;

// One thing the CA was asked or answered, for one registered domain of an order's names.
struct CaActivity {
  Id id;
  std::string directory_url;
  std::string registered_domain;  // "example.co.uk" for "www.example.co.uk"
  CaActivityKind kind = CaActivityKind::order_created;
  Timestamp at{};
  Id project_id;                         // the project whose job asked
  Id account_id;                         // the ACME account the order went through
  std::optional<Timestamp> retry_until;  // rate_limited: the CA's Retry-After, when it sent one
  std::string detail;                    // rate_limited, validation_failed: the CA's words
};

// How long records are kept: longer than any window a limit may have.
inline constexpr Duration kCaActivityRetention = std::chrono::days{31};
inline constexpr Duration kMaxQuotaWindow = std::chrono::days{30};

// At most `max` in any `window`; max 0 when the CA publishes no such limit (counted anyway).
struct QuotaLimit {
  std::int64_t max = 0;
  Duration window{};
  friend bool operator==(const QuotaLimit&, const QuotaLimit&) = default;
};

struct CaQuotaLimits {
  std::string directory_url;
  std::string source;  // "published", "configured" or "unknown"
  QuotaLimit certificates;
  QuotaLimit orders;
  QuotaLimit failed_validations;
};

// The limits for `directoryUrl`: the operator's entry for it, else the CA's published defaults
// (Let's Encrypt production and staging), else source "unknown" with the Let's Encrypt windows
// (7 days, 3 hours, 1 hour) and no maximum.
CaQuotaLimits quotaLimitsFor(std::string_view directoryUrl,
                             std::span<const CaQuotaLimits> configured);

// Parses `acme.rate_limits`: entries separated by ';', each a directory URL followed by any of
// `certificates=N/WINDOW`, `orders=N/WINDOW`, `failed_validations=N/WINDOW` (WINDOW as
// parseDuration, at most 30 days). Kinds an entry omits keep the published default, else no
// maximum. invalid_argument naming the part that is wrong.
Result<std::vector<CaQuotaLimits>> parseQuotaLimits(std::string_view text);

// The name an order asks for without a wildcard label ("*.example.com" -> "example.com").
std::string withoutWildcard(std::string_view name);

}  // namespace certsteward::domain
