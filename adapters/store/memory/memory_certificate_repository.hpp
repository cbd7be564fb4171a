// MemoryCertificateRepository: certificates in a map; queries scan under one mutex. Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include <certsteward/ports/certificate_repository.hpp>

namespace certsteward::adapters::memory {

class MemoryCertificateRepository : public ports::CertificateRepository {
 public:
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
  void restore(const domain::Certificate& old);  // undo of a write inside a transaction
  mutable std::mutex mu_;
  std::map<domain::Id, domain::Certificate> items_;
  std::map<domain::Id, std::int64_t> generations_;  // by project
};

}  // namespace certsteward::adapters::memory
