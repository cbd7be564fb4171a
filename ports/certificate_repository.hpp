// CertificateRepository: certificates of all projects, with the queries of the list endpoint
// and of the scheduler's sweeps (each answered from an index, never by reading everything).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

enum class CertificateSort { created_at, expires_at, next_renewal_at, common_name, status };

struct CertificateFilter {
  std::vector<domain::CertificateStatus> statuses;  // OR; empty = any
  std::optional<domain::Timestamp> expires_before;  // issued and expiring before this instant
  std::optional<std::string> issuer_type;
  std::optional<std::string> name_contains;  // in common_name or any SAN (names are lower-case)
  CertificateSort sort = CertificateSort::created_at;
  domain::SortOrder order = domain::SortOrder::desc;
};

// The member of domain::Certificate a sort orders by, by its name in the model.
inline const char* sortField(CertificateSort sort) noexcept {
  switch (sort) {
    case CertificateSort::created_at:
      return "created_at";
    case CertificateSort::expires_at:
      return "expires_at";
    case CertificateSort::next_renewal_at:
      return "next_renewal_at";
    case CertificateSort::common_name:
      return "common_name";
    case CertificateSort::status:
      return "status";
  }
  return "created_at";
}

// Whether some listed certificates may lack the sort field (those come last): expires_at and
// next_renewal_at can be missing, unless expires_before already excludes certificates without
// expires_at.
inline bool sortFieldMayBeMissing(const CertificateFilter& filter) noexcept {
  return (filter.sort == CertificateSort::expires_at && !filter.expires_before) ||
         filter.sort == CertificateSort::next_renewal_at;
}

class CertificateRepository {
 public:
  virtual ~CertificateRepository() = default;

  /** Stores a new certificate (version 1). @return conflict when the id exists. Thread-safe. */
  virtual domain::Status create(const domain::Certificate& cert) = 0;

  /** @return it; not_found when absent or in another project. Thread-safe. */
  virtual domain::Result<domain::Certificate> get(const domain::Id& projectId,
                                                  const domain::Id& id) const = 0;

  /**
   * @return one page matching `filter`, ordered by its sort then id; ties never reorder
   * between pages. Certificates without the sort field (e.g. no expires_at) sort last.
   */
  virtual domain::Result<domain::Page<domain::Certificate>> list(
      const domain::Id& projectId, const CertificateFilter& filter,
      const domain::PageRequest& page) const = 0;

  /**
   * Replaces the stored certificate if its version still equals `cert.version`.
   * @return the stored certificate with the version incremented; conflict when another
   * writer got there first (re-read and re-apply); not_found. Thread-safe.
   */
  virtual domain::Result<domain::Certificate> update(const domain::Certificate& cert) = 0;

  /** Deletes it. @return not_found. Thread-safe. */
  virtual domain::Status remove(const domain::Id& projectId, const domain::Id& id) = 0;

  /** @return how many certificates of the project match `filter` (its sort is ignored), counted
   * by the store without reading them. Thread-safe. */
  virtual domain::Result<std::int64_t> countMatching(const domain::Id& projectId,
                                                     const CertificateFilter& filter) const = 0;

  /** @return how many certificates of each status exist in all projects (metrics); statuses
   * without certificates are absent. */
  virtual domain::Result<std::map<domain::CertificateStatus, std::int64_t>> countByStatus()
      const = 0;

  /** @return how many certificates exist in all projects (the licence counts them). */
  virtual domain::Result<std::int64_t> countAll() const = 0;

  /** @return how many issued certificates of all projects expire before `before` (expired ones
   * included; metrics), counted by the store through an index without reading them. */
  virtual domain::Result<std::int64_t> countExpiringBefore(domain::Timestamp before) const = 0;

  /**
   * @return a number that changes whenever a certificate of the project is created, updated or
   * deleted (0 before the first). Readers use it to tell whether something they derived from
   * the project's certificates is still current: read the generation first, then the data.
   * Thread-safe.
   */
  virtual domain::Result<std::int64_t> generation(const domain::Id& projectId) const = 0;

  /**
   * @return at most `limit` certificates with auto_renew, status active or renewal_failed and
   * next_renewal_at <= now, earliest first.
   */
  virtual domain::Result<std::vector<domain::Certificate>> dueForRenewal(
      domain::Timestamp now, std::int64_t limit) const = 0;

  /**
   * @return at most `limit` certificates whose ari_poll_at <= now (the CA is to be asked for
   * their renewal window again), earliest first.
   */
  virtual domain::Result<std::vector<domain::Certificate>> dueForRenewalInfo(
      domain::Timestamp now, std::int64_t limit) const = 0;

  /**
   * @return at most `limit` certificates whose distribution_pending started before `before`,
   * oldest first.
   */
  virtual domain::Result<std::vector<domain::Certificate>> distributionPendingSince(
      domain::Timestamp before, std::int64_t limit) const = 0;
};

}  // namespace certsteward::ports
