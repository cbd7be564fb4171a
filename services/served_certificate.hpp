// The server's own certificate, when it is one of the certificates it manages
// (server.tls.certificate_id): found in whichever project holds it, and read again as it is
// renewed. The listener asks for what changed since the serial it serves; the material comes
// with the private key opened, for the TLS context only (never logged, never answered).
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/secret_box.hpp>

namespace certsteward::services {

struct ServedMaterial {
  std::string serial;     // as the store holds it
  std::string chain_pem;  // the leaf, then its intermediates
  std::string key_pem;
};

class ServedCertificate {
 public:
  ServedCertificate(const ports::ProjectRepository& projects,
                    const ports::CertificateRepository& certificates,
                    const ports::SecretBox& secrets, domain::Id certificateId);

  // The certificate's material when its serial differs from `servedSerial` (compared without
  // case or leading zeros), nullopt when it is the one served. not_found when no project holds
  // it (deleted, or a wrong id); failed_precondition when it has not been issued yet; internal
  // when its stored key cannot be opened.
  domain::Result<std::optional<ServedMaterial>> changedSince(const std::string& servedSerial);

  const domain::Id& id() const { return id_; }

 private:
  domain::Result<domain::Certificate> find();
  const ports::ProjectRepository& projects_;
  const ports::CertificateRepository& certificates_;
  const ports::SecretBox& secrets_;
  domain::Id id_;
  std::optional<domain::Id> project_;  // where it was found last
};

// Serials as the same number: upper case, leading zeros and separators dropped.
std::string normalizedSerial(const std::string& serial);

}  // namespace certsteward::services
