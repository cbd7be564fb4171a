// A credential used by distribution modules (SSH key, API token, ...), owned by a project.
#pragma once

#include <string>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

struct Credential {
  Id id;
  Id project_id;
  std::string name;
  std::string kind;           // "ssh_key", "password", "token", ...
  std::string username;       // non-secret part, when the kind has one
  std::string secret_sealed;  // SecretBox ciphertext
  Timestamp created_at{};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
