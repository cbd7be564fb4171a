// The expiry check and its fan-out.
#include <certsteward/services/expiration_check.hpp>

#include <charconv>

#include <certsteward/domain/notification_rules.hpp>

namespace certsteward::services {
namespace {

std::optional<std::int64_t> payloadNumber(const domain::Job& job, const std::string& key) {
  const auto it = job.payload.find(key);
  if (it == job.payload.end()) return std::nullopt;
  std::int64_t value = 0;
  const auto* end = it->second.data() + it->second.size();
  const auto [ptr, ec] = std::from_chars(it->second.data(), end, value);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

ports::CertificateFilter expiringBefore(domain::Timestamp cutoff) {
  ports::CertificateFilter filter;
  filter.expires_before = cutoff;
  filter.sort = ports::CertificateSort::expires_at;
  filter.order = domain::SortOrder::asc;
  return filter;
}

}  // namespace

domain::Status ExpirationCheck::raisePage(const domain::Job& job, domain::Timestamp cutoff,
                                          const domain::PageRequest& page, const Log& log) {
  auto certs = p_.certificates.list(job.project_id, expiringBefore(cutoff), page);
  if (!certs) return certs.error();
  const domain::Timestamp now = p_.clock.now();
  int raised = 0;
  for (const auto& cert : certs->items) {
    if (!cert.expires_at) continue;
    const auto days =  // to the nearest whole day
        (std::chrono::duration_cast<std::chrono::hours>(*cert.expires_at - now).count() + 12) / 24;
    const std::string when = *cert.expires_at <= now
                                 ? "expired at " + domain::formatTimestamp(*cert.expires_at)
                                 : "expires at " + domain::formatTimestamp(*cert.expires_at) +
                                       " (in " + std::to_string(days) + " day(s))";
    auto s = p_.notifier.notify(domain::Event{
        {},
        domain::EventKind::cert_expiring_soon,
        job.project_id,
        cert.id,
        cert.common_name + " " + when + ", status " + std::string(nameOf(cert.status)),
        now,
        certificateVariables(cert, now),
        {}});
    if (!s) return s;
    ++raised;
  }
  log(domain::LogLevel::info, std::to_string(raised) + " certificate(s) expire before " +
                                  domain::formatTimestamp(cutoff) +
                                  ": cert.expiring_soon raised for each");
  return {};
}

domain::Status ExpirationCheck::run(const domain::Job& job, const Log& log) {
  const std::int64_t batch = std::max<std::int64_t>(1, certificatePolicy_.expiry_check_batch);
  if (job.parent_id) {  // a batch child: its page of the parent's window
    const auto cutoff = payloadNumber(job, "cutoff");
    const auto page = payloadNumber(job, "page");
    const auto size = payloadNumber(job, "page_size");
    if (!cutoff || !page || !size || *page < 1 || *size < 1) {
      return makeError(domain::ErrorCode::invalid_argument,
                       "the batch job's payload lacks cutoff, page or page_size");
    }
    return raisePage(job, domain::fromUnixSeconds(*cutoff), domain::PageRequest{*page, *size}, log);
  }
  const domain::Timestamp now = p_.clock.now();
  domain::Duration window = certificatePolicy_.expiring_soon_window;
  if (p_.notifications != nullptr) {
    auto wider = p_.notifications->expiryLookahead(job.project_id, window);
    if (!wider) return wider.error();
    window = *wider;
  }
  const domain::Timestamp cutoff = domain::fromUnixSeconds(domain::unixSeconds(now + window));
  auto first =
      p_.certificates.list(job.project_id, expiringBefore(cutoff), domain::PageRequest{1, 1});
  if (!first) return first.error();
  if (first->total <= batch) return raisePage(job, cutoff, domain::PageRequest{1, batch}, log);

  const std::int64_t pages = (first->total + batch - 1) / batch;
  for (std::int64_t page = 1; page <= pages; ++page) {
    domain::Job child = newJob(p_.ids.next(), job.project_id,
                               domain::JobType::certificate_expiration_check, now, jobPolicy_);
    child.parent_id = job.id;
    child.idempotency_key = "expiry-check:" + job.id + ":" + std::to_string(page);
    child.payload = {{"cutoff", std::to_string(domain::unixSeconds(cutoff))},
                     {"page", std::to_string(page)},
                     {"page_size", std::to_string(batch)}};
    if (auto queued = p_.jobs.enqueue(child); !queued) return queued.error();
  }
  log(domain::LogLevel::info, std::to_string(first->total) + " certificate(s) expire before " +
                                  domain::formatTimestamp(cutoff) + ": fanned out into " +
                                  std::to_string(pages) + " batch job(s) of " +
                                  std::to_string(batch));
  return {};
}

}  // namespace certsteward::services
