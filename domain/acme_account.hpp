// An ACME account at a CA, owned by a project.
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

struct AcmeAccount {
  Id id;
  Id project_id;
  std::string name;
  Id ca_provider_id;          // the CA provider (domain/ca_provider.hpp) it belongs to
  std::string directory_url;  // the provider's, copied when the account is made
  std::string email;
  std::string status = "pending";  // "valid"/"active" once registered; "deactivated", "revoked"
  bool is_registered = false;
  std::string account_url;  // the CA's kid for this account
  std::string key_sealed;   // SecretBox ciphertext of the account key
  std::string eab_kid;
  std::string eab_hmac_sealed;  // SecretBox ciphertext of the EAB MAC key
  std::optional<Timestamp> last_validated_at;
  Timestamp created_at{};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
