// A DNS zone the project controls, answered through one DNS credential.
#pragma once

#include <string>

#include "domain/id.hpp"
#include "domain/time.hpp"

namespace certsteward::domain {

struct Zone {
  Id id;
  Id project_id;
  std::string domain;    // e.g. "example.com"
  Id dns_credential_id;  // must name a valid, active DNS credential
  Timestamp created_at{};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
