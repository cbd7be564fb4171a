// PgCertificateRepository: certificates as indexed columns plus the JSON document; a trigger
// keeps the counts and generations in the writing transaction. Thread-safe.
#pragma once

#include <certsteward/adapters/common/generation_memo.hpp>
#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/certificate_repository.hpp>

namespace certsteward::adapters::postgres {

class PgCertificateRepository : public ports::CertificateRepository {
 public:
  explicit PgCertificateRepository(PgDatabase& db) : db_(db) {}

  domain::Status create(const domain::Certificate& cert) override;
  domain::Result<domain::Certificate> get(const domain::Id& projectId,
                                          const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Certificate>> list(
      const domain::Id& projectId, const ports::CertificateFilter& filter,
      const domain::PageRequest& page) const override;
  domain::Result<domain::Certificate> update(const domain::Certificate& cert) override;
  domain::Status remove(const domain::Id& projectId, const domain::Id& id) override;
  domain::Result<std::map<domain::CertificateStatus, std::int64_t>> countByStatus() const override;
  domain::Result<std::int64_t> countMatching(const domain::Id& projectId,
                                             const ports::CertificateFilter& filter) const override;
  domain::Result<std::int64_t> countAll() const override;
  domain::Result<std::int64_t> countExpiringBefore(domain::Timestamp before) const override;
  domain::Result<std::int64_t> generation(const domain::Id& projectId) const override;
  domain::Result<std::vector<domain::Certificate>> dueForRenewal(domain::Timestamp now,
                                                                 std::int64_t limit) const override;
  domain::Result<std::vector<domain::Certificate>> dueForRenewalInfo(
      domain::Timestamp now, std::int64_t limit) const override;
  domain::Result<std::vector<domain::Certificate>> distributionPendingSince(
      domain::Timestamp before, std::int64_t limit) const override;

 private:
  PgDatabase& db_;
  // Generations are remembered for 100 ms; this repository's own writes invalidate at once.
  mutable common::GenerationMemo generations_;
};

}  // namespace certsteward::adapters::postgres
