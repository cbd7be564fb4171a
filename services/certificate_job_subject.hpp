// What a job.failed event about a certificate's job names: the certificate (the subject whose
// recovery ends the failure) and its variables (certificate.common_name, .expires_at, ...).
#pragma once

#include <certsteward/domain/job.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/services/job_handler.hpp>

namespace certsteward::services {

// The job itself when it names no certificate; without the variables when the certificate cannot
// be read.
JobFailureSubject certificateJobSubject(const ports::CertificateRepository& certificates,
                                        const ports::Clock& clock, const domain::Job& job);

}  // namespace certsteward::services
