// A distribution: one certificate delivered through one module configuration, and the outcome
// of its last run per target.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/id.hpp"
#include "domain/time.hpp"

namespace certsteward::domain {

struct TargetResult {
  std::string target_name;
  std::string status;  // "succeeded", "failed", "skipped"
  std::string error;
  std::string error_code;  // e.g. "CREDENTIAL_MISSING"
  std::int64_t duration_ms = 0;
};

struct Distribution {
  Id id;
  Id project_id;
  Id certificate_id;
  Id module_config_id;
  std::string last_status = "never_run";  // "succeeded", "failed", "partial", "rolled_back"
  std::string last_error;
  std::optional<Timestamp> last_error_at;
  std::optional<Timestamp> last_run_at;
  std::vector<TargetResult> last_target_results;
  Timestamp created_at{};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
