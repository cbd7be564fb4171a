// Asking the CA for a certificate's renewal window again (RFC 9773).
#include <certsteward/services/renewal_info_job_handler.hpp>

#include <mutex>
#include <random>

#include <certsteward/services/certificate_update.hpp>

namespace certsteward::services {

RenewalInfoJobHandler::RenewalInfoJobHandler(Ports ports, std::function<double()> random)
    : p_(ports), random_(std::move(random)) {
  if (!random_) {
    random_ = [] {
      static std::mutex mutex;
      static std::mt19937_64 engine{std::random_device{}()};
      const std::lock_guard lock(mutex);
      return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
    };
  }
}

domain::Result<bool> RenewalInfoJobHandler::change(
    const domain::Job& job, const std::function<bool(domain::Certificate&)>& apply) {
  auto changed =
      updateCertificate(p_.certificates, p_.clock, job.project_id, *job.certificate_id,
                        [&](domain::Certificate& c) -> domain::Result<bool> { return apply(c); });
  if (!changed) {
    if (changed.error().code == domain::ErrorCode::not_found) return false;
    return changed.error();
  }
  return true;  // written, or nothing to change
}

domain::Status RenewalInfoJobHandler::attempt(const domain::Job& job,
                                              const domain::StopSignal& /*stop*/, const Log& log,
                                              AttemptNotes& /*notes*/) {
  if (!job.certificate_id) {
    return makeError(domain::ErrorCode::failed_precondition, "no certificate");
  }
  auto cert = p_.certificates.get(job.project_id, *job.certificate_id);
  if (!cert) {
    if (cert.error().code != domain::ErrorCode::not_found) return cert.error();
    log(domain::LogLevel::info, "the certificate no longer exists: nothing to ask");
    return {};
  }
  const auto now = p_.clock.now();
  // Only a certificate waiting for its renewal has a window to move; one whose renewal is queued
  // or running, or that no longer renews by itself, is asked again after its next issuance.
  const auto stillAsked = [](const domain::Certificate& c) {
    return c.status == domain::CertificateStatus::active && c.auto_renew && c.ari_poll_at &&
           !c.certificate_pem.empty();
  };
  if (!stillAsked(*cert)) {
    auto cleared = change(job, [&](domain::Certificate& c) {
      if (stillAsked(c) || !c.ari_poll_at) return false;
      c.ari_poll_at.reset();
      return true;
    });
    if (!cleared) return cleared.error();
    log(domain::LogLevel::info, "the certificate is not waiting for a renewal: not asked");
    return {};
  }
  // The answer is about this version: a renewal that stores a new one meanwhile makes it moot.
  const std::string askedAbout = cert->certificate_pem;
  const auto sameVersion = [&](const domain::Certificate& c) {
    return stillAsked(c) && c.certificate_pem == askedAbout;
  };
  domain::Id accountId = cert->issued_by_account_id;
  if (accountId.empty() && cert->acme_account_id) accountId = *cert->acme_account_id;
  std::optional<domain::Error> failure;
  std::optional<ports::RenewalInfo> info;
  if (accountId.empty()) {
    failure = makeError(domain::ErrorCode::failed_precondition,
                        "the certificate names no ACME account to ask through");
  } else if (auto account = p_.accounts.get(job.project_id, accountId); !account) {
    failure = account.error();
  } else if (auto answer = p_.issuer.renewalInfo(*account, cert->certificate_pem); !answer) {
    failure = answer.error();
  } else {
    info = *answer;
  }
  if (failure) {
    const auto next = domain::nextRenewalInfoPoll(now, std::nullopt, random_(), true);
    log(domain::LogLevel::warn, "the renewal window could not be read (" + failure->message +
                                    "): the renewal stays at its time; asking again at " +
                                    domain::formatTimestamp(next));
    auto rescheduled = change(job, [&](domain::Certificate& c) {
      if (!sameVersion(c)) return false;
      c.ari_poll_at = next;
      return true;
    });
    return rescheduled ? domain::Status{} : domain::Status(rescheduled.error());
  }
  const double pick = random_();
  const auto next = domain::nextRenewalInfoPoll(now, info->retry_after, random_(), false);
  bool moved = false;
  std::optional<domain::Timestamp> before;
  bool current = true;
  auto stored = change(job, [&](domain::Certificate& c) {
    if (!sameVersion(c)) {
      current = false;
      return false;
    }
    before = c.next_renewal_at;
    moved = domain::takeRenewalWindow(c, info->window_start, info->window_end, pick, now);
    c.ari_poll_at = next;
    return true;
  });
  if (!stored) return stored.error();
  if (!*stored) {
    log(domain::LogLevel::info, "the certificate no longer exists: the answer is not used");
    return {};
  }
  if (!current) {
    log(domain::LogLevel::info,
        "the certificate changed while its window was read (a new version, or its renewal "
        "started): the answer is not used");
    return {};
  }
  std::string line = "renewal window " + domain::formatTimestamp(info->window_start) + " to " +
                     domain::formatTimestamp(info->window_end);
  if (moved) {
    auto after = p_.certificates.get(job.project_id, *job.certificate_id);
    line += ": earlier than the renewal planned for " +
            (before ? domain::formatTimestamp(*before) : std::string("-")) + ", which moves to " +
            (after && after->next_renewal_at ? domain::formatTimestamp(*after->next_renewal_at)
                                             : std::string("-"));
    if (!info->explanation_url.empty()) line += " (the CA explains: " + info->explanation_url + ")";
  } else {
    line += ": the renewal stays at its time";
  }
  log(moved ? domain::LogLevel::warn : domain::LogLevel::info,
      line + "; asking again at " + domain::formatTimestamp(next));
  return {};
}

}  // namespace certsteward::services
