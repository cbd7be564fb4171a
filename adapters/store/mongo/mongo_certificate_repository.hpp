// MongoCertificateRepository: certificates in the `certificates` collection. An update is a
// compare-and-set on the version, so it holds across instances. Thread-safe: each call borrows a
// pooled client.
#pragma once

#include <certsteward/adapters/common/generation_memo.hpp>
#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/certificate_repository.hpp>

namespace certsteward::adapters::mongo {

class MongoCertificateRepository : public ports::CertificateRepository {
 public:
  explicit MongoCertificateRepository(MongoDatabase& db) : db_(db) {}
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
  // A counter document per project, incremented right after each certificate write.
  domain::Result<std::int64_t> generation(const domain::Id& projectId) const override;
  domain::Result<std::vector<domain::Certificate>> dueForRenewal(domain::Timestamp now,
                                                                 std::int64_t limit) const override;
  domain::Result<std::vector<domain::Certificate>> dueForRenewalInfo(
      domain::Timestamp now, std::int64_t limit) const override;
  domain::Result<std::vector<domain::Certificate>> distributionPendingSince(
      domain::Timestamp before, std::int64_t limit) const override;

 private:
  MongoDatabase& db_;
  // Generations are remembered for 100 ms; this repository's own writes invalidate at once.
  mutable common::GenerationMemo generations_;
};

}  // namespace certsteward::adapters::mongo
