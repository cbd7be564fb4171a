// In-memory certificates, with the list filters and sorts of the API.
#include <certsteward/adapters/store/memory/memory_certificate_repository.hpp>

#include <algorithm>
#include <tuple>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/paginate.hpp>

namespace certsteward::adapters::memory {
namespace {

using domain::Certificate;

domain::Error notFound() {
  return domain::makeError(domain::ErrorCode::not_found, "certificate not found");
}

bool matches(const Certificate& c, const ports::CertificateFilter& f) {
  if (!f.statuses.empty() &&
      std::find(f.statuses.begin(), f.statuses.end(), c.status) == f.statuses.end()) {
    return false;
  }
  if (f.expires_before && !(c.expires_at && *c.expires_at < *f.expires_before)) return false;
  if (f.issuer_type && c.issuer_type != *f.issuer_type) return false;
  if (f.name_contains && c.common_name.find(*f.name_contains) == std::string::npos &&
      std::none_of(c.sans.begin(), c.sans.end(), [&](const std::string& san) {
        return san.find(*f.name_contains) != std::string::npos;
      })) {
    return false;
  }
  return true;
}

// Compares by the sort key only; -1, 0, 1. Missing timestamps sort last in either order.
int compareKey(const Certificate& a, const Certificate& b, ports::CertificateSort sort,
               bool& bothPresent) {
  bothPresent = true;
  auto cmpOpt = [&](const std::optional<domain::Timestamp>& x,
                    const std::optional<domain::Timestamp>& y) {
    if (x && y) return *x < *y ? -1 : (*y < *x ? 1 : 0);
    bothPresent = false;
    if (!x && !y) return 0;
    return x ? -1 : 1;  // present before missing, regardless of order
  };
  switch (sort) {
    case ports::CertificateSort::created_at:
      return a.created_at < b.created_at ? -1 : (b.created_at < a.created_at ? 1 : 0);
    case ports::CertificateSort::expires_at:
      return cmpOpt(a.expires_at, b.expires_at);
    case ports::CertificateSort::next_renewal_at:
      return cmpOpt(a.next_renewal_at, b.next_renewal_at);
    case ports::CertificateSort::common_name:
      return a.common_name.compare(b.common_name);
    case ports::CertificateSort::status:
      return std::string(nameOf(a.status)).compare(std::string(nameOf(b.status)));
  }
  return 0;
}

}  // namespace

domain::Status MemoryCertificateRepository::create(const Certificate& cert) {
  std::lock_guard lock(mu_);
  Certificate stored = cert;
  stored.version = 1;
  if (!items_.emplace(cert.id, std::move(stored)).second) {
    return domain::makeError(domain::ErrorCode::conflict, "a certificate with this id exists");
  }
  ++generations_[cert.project_id];
  undoInTransaction([this, id = cert.id, projectId = cert.project_id] {
    std::lock_guard relock(mu_);
    items_.erase(id);
    ++generations_[projectId];  // never back: readers compare generations for equality
  });
  return {};
}

domain::Result<Certificate> MemoryCertificateRepository::get(const domain::Id& projectId,
                                                             const domain::Id& id) const {
  std::lock_guard lock(mu_);
  const auto it = items_.find(id);
  if (it == items_.end() || it->second.project_id != projectId) return notFound();
  return it->second;
}

domain::Result<domain::Page<Certificate>> MemoryCertificateRepository::list(
    const domain::Id& projectId, const ports::CertificateFilter& filter,
    const domain::PageRequest& page) const {
  std::vector<Certificate> selected;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, c] : items_) {
      if (c.project_id == projectId && matches(c, filter)) selected.push_back(c);
    }
  }
  const bool desc = filter.order == domain::SortOrder::desc;
  std::sort(selected.begin(), selected.end(), [&](const Certificate& a, const Certificate& b) {
    bool bothPresent = true;
    int c = compareKey(a, b, filter.sort, bothPresent);
    if (c != 0) return bothPresent && desc ? c > 0 : c < 0;
    return desc ? a.id > b.id : a.id < b.id;
  });
  return paginate(std::move(selected), page);
}

domain::Result<Certificate> MemoryCertificateRepository::update(const Certificate& cert) {
  std::lock_guard lock(mu_);
  const auto it = items_.find(cert.id);
  if (it == items_.end() || it->second.project_id != cert.project_id) return notFound();
  if (it->second.version != cert.version) {
    return domain::makeError(domain::ErrorCode::conflict,
                             "the certificate was changed concurrently; re-read and retry");
  }
  undoInTransaction([this, old = it->second] { restore(old); });
  it->second = cert;
  it->second.version = cert.version + 1;
  ++generations_[cert.project_id];
  return it->second;
}

domain::Status MemoryCertificateRepository::remove(const domain::Id& projectId,
                                                   const domain::Id& id) {
  std::lock_guard lock(mu_);
  const auto it = items_.find(id);
  if (it == items_.end() || it->second.project_id != projectId) return notFound();
  undoInTransaction([this, old = it->second] { restore(old); });
  items_.erase(it);
  ++generations_[projectId];
  return {};
}

void MemoryCertificateRepository::restore(const Certificate& old) {
  std::lock_guard lock(mu_);
  items_[old.id] = old;
  ++generations_[old.project_id];
}

domain::Result<std::map<domain::CertificateStatus, std::int64_t>>
MemoryCertificateRepository::countByStatus() const {
  std::lock_guard lock(mu_);
  std::map<domain::CertificateStatus, std::int64_t> counts;
  for (const auto& [id, c] : items_)
    ++counts[c.status];
  return counts;
}

domain::Result<std::int64_t> MemoryCertificateRepository::countMatching(
    const domain::Id& projectId, const ports::CertificateFilter& filter) const {
  std::lock_guard lock(mu_);
  std::int64_t n = 0;
  for (const auto& [id, c] : items_)
    n += c.project_id == projectId && matches(c, filter) ? 1 : 0;
  return n;
}

domain::Result<std::int64_t> MemoryCertificateRepository::countAll() const {
  std::lock_guard lock(mu_);
  return static_cast<std::int64_t>(items_.size());
}

domain::Result<std::int64_t> MemoryCertificateRepository::countExpiringBefore(
    domain::Timestamp before) const {
  std::lock_guard lock(mu_);
  std::int64_t n = 0;
  for (const auto& [id, c] : items_)
    n += c.expires_at && *c.expires_at < before ? 1 : 0;
  return n;
}

domain::Result<std::int64_t> MemoryCertificateRepository::generation(
    const domain::Id& projectId) const {
  std::lock_guard lock(mu_);
  const auto it = generations_.find(projectId);
  return it == generations_.end() ? 0 : it->second;
}

domain::Result<std::vector<Certificate>> MemoryCertificateRepository::dueForRenewal(
    domain::Timestamp now, std::int64_t limit) const {
  std::vector<Certificate> due;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, c] : items_) {
      if (domain::isDueForRenewal(c, now)) due.push_back(c);
    }
  }
  std::sort(due.begin(), due.end(), [](const Certificate& a, const Certificate& b) {
    return std::tie(*a.next_renewal_at, a.id) < std::tie(*b.next_renewal_at, b.id);
  });
  if (static_cast<std::int64_t>(due.size()) > limit) due.resize(static_cast<std::size_t>(limit));
  return due;
}

domain::Result<std::vector<Certificate>> MemoryCertificateRepository::dueForRenewalInfo(
    domain::Timestamp now, std::int64_t limit) const {
  std::vector<Certificate> due;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, c] : items_) {
      if (c.ari_poll_at && *c.ari_poll_at <= now) due.push_back(c);
    }
  }
  std::sort(due.begin(), due.end(), [](const Certificate& a, const Certificate& b) {
    return std::tie(*a.ari_poll_at, a.id) < std::tie(*b.ari_poll_at, b.id);
  });
  if (static_cast<std::int64_t>(due.size()) > limit) due.resize(static_cast<std::size_t>(limit));
  return due;
}

domain::Result<std::vector<Certificate>> MemoryCertificateRepository::distributionPendingSince(
    domain::Timestamp before, std::int64_t limit) const {
  std::vector<Certificate> stale;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, c] : items_) {
      if (c.distribution_pending && c.distribution_pending_since &&
          *c.distribution_pending_since < before) {
        stale.push_back(c);
      }
    }
  }
  std::sort(stale.begin(), stale.end(), [](const Certificate& a, const Certificate& b) {
    return std::tie(*a.distribution_pending_since, a.id) <
           std::tie(*b.distribution_pending_since, b.id);
  });
  if (static_cast<std::int64_t>(stale.size()) > limit) {
    stale.resize(static_cast<std::size_t>(limit));
  }
  return stale;
}

}  // namespace certsteward::adapters::memory
