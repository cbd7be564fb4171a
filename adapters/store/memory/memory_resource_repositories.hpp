// The in-memory project-scoped resource repositories: plain instantiations of
// MemoryProjectScopedRepository, plus the few queries some of them add.
#pragma once

#include <algorithm>

#include <certsteward/adapters/store/memory/memory_project_scoped_repository.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/credential_repository.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/ports/notification_channel_repository.hpp>
#include <certsteward/ports/notification_delivery_repository.hpp>
#include <certsteward/ports/notification_rule_repository.hpp>
#include <certsteward/ports/notification_state_repository.hpp>
#include <certsteward/ports/zone_repository.hpp>

namespace certsteward::adapters::memory {

using MemoryAcmeAccountRepository =
    MemoryProjectScopedRepository<ports::AcmeAccountRepository, domain::AcmeAccount>;
using MemoryDnsCredentialRepository =
    MemoryProjectScopedRepository<ports::DnsCredentialRepository, domain::DnsCredential>;
using MemoryCredentialRepository =
    MemoryProjectScopedRepository<ports::CredentialRepository, domain::Credential>;
using MemoryModuleConfigRepository =
    MemoryProjectScopedRepository<ports::ModuleConfigRepository, domain::ModuleConfig>;
using MemoryNotificationChannelRepository =
    MemoryProjectScopedRepository<ports::NotificationChannelRepository,
                                  domain::NotificationChannel>;

// True when `name` is `zone` or a subdomain of it.
bool isInZone(const std::string& name, const std::string& zone);

class MemoryZoneRepository
    : public MemoryProjectScopedRepository<ports::ZoneRepository, domain::Zone> {
 public:
  domain::Result<std::optional<domain::Zone>> findForName(const domain::Id& projectId,
                                                          const std::string& name) const override;
};

class MemoryDistributionRepository
    : public MemoryProjectScopedRepository<ports::DistributionRepository, domain::Distribution> {
 public:
  domain::Result<std::vector<domain::Distribution>> listForCertificate(
      const domain::Id& projectId, const domain::Id& certificateId) const override;
};

class MemoryNotificationRuleRepository
    : public MemoryProjectScopedRepository<ports::NotificationRuleRepository,
                                           domain::NotificationRule> {
 public:
  domain::Result<std::vector<domain::NotificationRule>> matching(
      const domain::Id& projectId, domain::EventKind kind) const override;
};

class MemoryNotificationDeliveryRepository
    : public MemoryProjectScopedRepository<ports::NotificationDeliveryRepository,
                                           domain::NotificationDelivery> {
 public:
  domain::Result<domain::Page<domain::NotificationDelivery>> listForChannel(
      const domain::Id& projectId, const domain::Id& channelId,
      const domain::PageRequest& page) const override;
  domain::Result<std::vector<domain::NotificationDelivery>> heldForRule(
      const domain::Id& projectId, const domain::Id& ruleId, std::int64_t limit) const override;
};

class MemoryNotificationStateRepository
    : public MemoryProjectScopedRepository<ports::NotificationStateRepository,
                                           domain::NotificationState> {
 public:
  domain::Result<std::optional<domain::NotificationState>> find(
      const domain::Id& projectId, const domain::Id& ruleId,
      const domain::Id& subject) const override;
};

}  // namespace certsteward::adapters::memory
