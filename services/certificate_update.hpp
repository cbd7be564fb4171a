// A change to a stored certificate outside a request, as the workers make them: compare-and-set,
// read again on a concurrent update.
#pragma once

#include <functional>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>

namespace certsteward::services {

// Reads the certificate, lets `apply` change it (false: nothing to change, nothing written; an
// error: returned as it is) and writes it with a new updated_at. A concurrent update (conflict)
// starts again from a fresh read, at most 5 times, then `unavailable`. True when written; a
// certificate that no longer exists is `not_found`.
domain::Result<bool> updateCertificate(
    ports::CertificateRepository& certificates, const ports::Clock& clock,
    const domain::Id& projectId, const domain::Id& id,
    const std::function<domain::Result<bool>(domain::Certificate&)>& apply);

}  // namespace certsteward::services
