// What a job.failed event about a certificate's job names: the certificate (the subject whose
// recovery ends the failure) and its variables (certificate.common_name, .expires_at, ...).
#pragma once

#include "domain/job.hpp"
#include "domain/services/job_handler.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"

namespace certsteward::domain {

// The job itself when it names no certificate; without the variables when the certificate cannot
// be read.
JobFailureSubject certificateJobSubject(const ports::CertificateRepository& certificates,
                                        const ports::Clock& clock, const Job& job);

}  // namespace certsteward::domain
