// Credentials for a DNS provider (RFC 2136 TSIG key, exec command, ...), owned by a project.
#pragma once

#include <map>
#include <string>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

struct DnsCredential {
  Id id;
  Id project_id;
  std::string name;
  std::string provider;                         // "rfc2136", "exec", ...
  std::map<std::string, std::string> settings;  // non-secret settings (server, key name, ...)
  std::string secret_sealed;                    // SecretBox ciphertext of the secret part
  bool active = true;
  Timestamp created_at{};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
