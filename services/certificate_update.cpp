// Compare-and-set on a stored certificate, retried on a concurrent update.
#include <certsteward/services/certificate_update.hpp>

namespace certsteward::services {

domain::Result<bool> updateCertificate(
    ports::CertificateRepository& certificates, const ports::Clock& clock,
    const domain::Id& projectId, const domain::Id& id,
    const std::function<domain::Result<bool>(domain::Certificate&)>& apply) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto cert = certificates.get(projectId, id);
    if (!cert) return cert.error();
    auto changed = apply(*cert);
    if (!changed) return changed.error();
    if (!*changed) return false;
    cert->updated_at = clock.now();
    auto written = certificates.update(*cert);
    if (written) return true;
    if (written.error().code != domain::ErrorCode::conflict) return written.error();
  }
  return domain::makeError(domain::ErrorCode::unavailable,
                           "the certificate kept changing; try again");
}

}  // namespace certsteward::services
