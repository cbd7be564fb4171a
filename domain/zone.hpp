// A DNS zone the project controls, answered through one DNS credential.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

// The zones that could answer for `name`, longest first: the name itself, then each parent
// ("a.b.example.com" -> "a.b.example.com", "b.example.com", "example.com", "com").
std::vector<std::string> zoneCandidates(std::string_view name);

struct Zone {
  Id id;
  Id project_id;
  std::string domain;    // e.g. "example.com"
  Id dns_credential_id;  // must name a valid, active DNS credential
  Timestamp created_at{};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
