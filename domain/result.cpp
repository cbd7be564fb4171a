// Names of the canonical error codes, as they appear in logs and documentation.
#include <certsteward/domain/result.hpp>

namespace certsteward::domain {

std::string_view nameOf(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::not_found:
      return "not_found";
    case ErrorCode::conflict:
      return "conflict";
    case ErrorCode::invalid_argument:
      return "invalid_argument";
    case ErrorCode::failed_precondition:
      return "failed_precondition";
    case ErrorCode::permission_denied:
      return "permission_denied";
    case ErrorCode::unauthenticated:
      return "unauthenticated";
    case ErrorCode::resource_exhausted:
      return "resource_exhausted";
    case ErrorCode::unavailable:
      return "unavailable";
    case ErrorCode::internal:
      return "internal";
  }
  return "internal";
}

}  // namespace certsteward::domain
