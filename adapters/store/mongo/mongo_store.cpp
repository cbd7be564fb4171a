// Connects, checks the server version, creates the indexes, and wires the repositories.
#include <certsteward/adapters/store/mongo/mongo_store.hpp>

#include <charconv>

#include <certsteward/adapters/store/mongo/mongo_audit_log.hpp>
#include <certsteward/adapters/store/mongo/mongo_ca_activity_log.hpp>
#include <certsteward/adapters/store/mongo/mongo_certificate_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_challenge_tokens.hpp>
#include <certsteward/adapters/store/mongo/mongo_distribution_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_event_log.hpp>
#include <certsteward/adapters/store/mongo/mongo_idempotency_store.hpp>
#include <certsteward/adapters/store/mongo/mongo_job_log_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_job_queue.hpp>
#include <certsteward/adapters/store/mongo/mongo_leader_lock.hpp>
#include <certsteward/adapters/store/mongo/mongo_license_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_membership_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_notification_delivery_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_notification_rule_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_notification_state_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_project_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_rate_limit_counter.hpp>
#include <certsteward/adapters/store/mongo/mongo_refresh_token_store.hpp>
#include <certsteward/adapters/store/mongo/mongo_resource_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_settings_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_transactions.hpp>
#include <certsteward/adapters/store/mongo/mongo_user_repository.hpp>
#include <certsteward/adapters/store/mongo/mongo_zone_repository.hpp>

namespace certsteward::adapters::mongo {
namespace {

struct IndexSpec {
  const char* collection;
  const char* name;
  const char* keys;     // JSON
  const char* options;  // JSON merged into the index spec ("{}" for none)
};

// Every query of the repositories has an index; uniqueness where the domain needs it; TTL
// indexes drop expired idempotency records, challenge tokens, rate-limit windows, refresh tokens
// and CA activity.
constexpr IndexSpec kIndexes[] = {
    {"certificates", "project_status_expires",
     R"({"project_id":1,"status":1,"expires_at":1,"id":1})", "{}"},
    {"certificates", "project_created", R"({"project_id":1,"created_at":1,"id":1})", "{}"},
    {"certificates", "project_expires", R"({"project_id":1,"expires_at":1,"id":1})", "{}"},
    {"certificates", "project_renewal", R"({"project_id":1,"next_renewal_at":1,"id":1})", "{}"},
    {"certificates", "project_name", R"({"project_id":1,"common_name":1,"id":1})", "{}"},
    {"certificates", "expires", R"({"expires_at":1})", "{}"},
    {"certificates", "due", R"({"next_renewal_at":1,"id":1})",
     R"({"partialFilterExpression":{"auto_renew":true}})"},
    {"certificates", "renewal_info", R"({"ari_poll_at":1,"id":1})",
     R"({"partialFilterExpression":{"ari_poll_at":{"$exists":true}}})"},
    {"certificates", "distribution_pending", R"({"distribution_pending_since":1,"id":1})",
     R"({"partialFilterExpression":{"distribution_pending":true}})"},
    {"jobs", "waiting", R"({"lane":1,"status":1,"next_run_at":1,"id":1})", "{}"},
    {"jobs", "locked", R"({"lane":1,"status":1,"lock_expires_at":1,"id":1})", "{}"},
    {"jobs", "project", R"({"project_id":1,"id":-1})", "{}"},
    {"jobs", "status_type", R"({"status":1,"type":1})", "{}"},
    {"jobs", "project_status", R"({"project_id":1,"status":1,"id":-1})", "{}"},
    {"jobs", "project_type", R"({"project_id":1,"type":1,"id":-1})", "{}"},
    {"jobs", "project_certificate", R"({"project_id":1,"certificate_id":1,"id":-1})", "{}"},
    {"jobs", "unfinished_key", R"({"unfinished_key":1})",
     R"({"unique":true,"partialFilterExpression":{"unfinished_key":{"$exists":true}}})"},
    {"job_logs", "job", R"({"job_id":1,"ts":1,"_id":1})", "{}"},
    {"events", "project_at", R"({"project_id":1,"at":-1,"id":-1})", "{}"},
    {"projects", "name", R"({"name":1})", R"({"unique":true})"},
    {"projects", "id", R"({"id":1})", "{}"},
    {"users", "username", R"({"username":1})", R"({"unique":true})"},
    {"users", "id", R"({"id":1})", "{}"},
    {"memberships", "project_created", R"({"project_id":1,"created_at":1,"user_id":1})", "{}"},
    {"memberships", "user", R"({"user_id":1})", "{}"},
    {"resources", "project", R"({"kind":1,"project_id":1,"id":1})", "{}"},
    {"resources", "ref", R"({"kind":1,"project_id":1,"ref":1})", "{}"},
    // A page of one ref newest first (a channel's deliveries) without sorting in memory. It
    // makes "ref" a prefix, but an index's key cannot change under its name.
    {"resources", "ref_id", R"({"kind":1,"project_id":1,"ref":1,"id":1})", "{}"},
    {"resources", "ref2", R"({"kind":1,"project_id":1,"ref2":1,"id":1})",
     R"({"partialFilterExpression":{"ref2":{"$exists":true}}})"},
    {"audit_log", "sequence", R"({"sequence":1})", R"({"unique":true})"},
    {"audit_log", "timestamp", R"({"timestamp":1})", "{}"},
    {"audit_log", "action", R"({"action":1,"sequence":-1})", "{}"},
    {"audit_log", "actor", R"({"actor_user_id":1,"sequence":-1})", "{}"},
    {"refresh_tokens", "family", R"({"family_id":1})", "{}"},
    {"refresh_tokens", "user", R"({"user_id":1})", "{}"},
    {"refresh_tokens", "ttl", R"({"expire_at":1})", R"({"expireAfterSeconds":0})"},
    {"idempotency", "ttl", R"({"expire_at":1})", R"({"expireAfterSeconds":0})"},
    {"challenge_tokens", "ttl", R"({"expire_at":1})", R"({"expireAfterSeconds":0})"},
    {"rate_limits", "ttl", R"({"expire_at":1})", R"({"expireAfterSeconds":0})"},
    {"ca_activity", "domain",
     R"({"directory_url":1,"registered_domain":1,"kind":1,"at":-1,"_id":-1})", "{}"},
    {"ca_activity", "ttl", R"({"expire_at":1})", R"({"expireAfterSeconds":0})"},
};

domain::Status createIndexes(Client& c) {
  for (const auto& spec : kIndexes) {
    Bson index = Bson::fromJson(spec.options);
    index.doc("key", Bson::fromJson(spec.keys)).str("name", spec.name);
    bson_t indexes;
    Bson cmd;
    cmd.str("createIndexes", spec.collection);
    bson_append_array_begin(cmd.get(), "indexes", -1, &indexes);
    bson_append_document(&indexes, "0", -1, index.get());
    bson_append_array_end(cmd.get(), &indexes);
    c.command(cmd);
  }
  return {};
}

}  // namespace

bool isSupportedServerVersion(const std::string& version) {
  int major = 0;
  const auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
  if (ec != std::errc{} || end == version.data()) return false;
  return major >= 6;
}

struct MongoStore::Parts {
  explicit Parts(std::unique_ptr<MongoDatabase> database)
      : db(std::move(database)),
        certificates(*db),
        jobs(*db),
        jobLogs(*db),
        events(*db),
        projects(*db),
        users(*db),
        memberships(*db),
        acmeAccounts(*db, "acme_account"),
        dnsCredentials(*db, "dns_credential"),
        zones(*db),
        credentials(*db, "credential"),
        moduleConfigs(*db, "module_config"),
        distributions(*db),
        notificationChannels(*db, "notification_channel"),
        notificationRules(*db),
        notificationDeliveries(*db),
        notificationStates(*db),
        auditLog(*db),
        license(*db),
        refreshTokens(*db),
        idempotency(*db),
        challengeTokens(*db),
        rateLimits(*db),
        caActivity(*db),
        leaderLock(*db),
        settings(*db),
        transactions(*db) {}

  std::unique_ptr<MongoDatabase> db;
  MongoCertificateRepository certificates;
  MongoJobQueue jobs;
  MongoJobLogRepository jobLogs;
  MongoEventLog events;
  MongoProjectRepository projects;
  MongoUserRepository users;
  MongoMembershipRepository memberships;
  MongoResourceRepository<ports::AcmeAccountRepository, domain::AcmeAccount> acmeAccounts;
  MongoResourceRepository<ports::DnsCredentialRepository, domain::DnsCredential> dnsCredentials;
  MongoZoneRepository zones;
  MongoResourceRepository<ports::CredentialRepository, domain::Credential> credentials;
  MongoResourceRepository<ports::ModuleConfigRepository, domain::ModuleConfig> moduleConfigs;
  MongoDistributionRepository distributions;
  MongoResourceRepository<ports::NotificationChannelRepository, domain::NotificationChannel>
      notificationChannels;
  MongoNotificationRuleRepository notificationRules;
  MongoNotificationDeliveryRepository notificationDeliveries;
  MongoNotificationStateRepository notificationStates;
  MongoAuditLog auditLog;
  MongoLicenseRepository license;
  MongoRefreshTokenStore refreshTokens;
  MongoIdempotencyStore idempotency;
  MongoChallengeTokens challengeTokens;
  MongoRateLimitCounter rateLimits;
  MongoCaActivityLog caActivity;
  MongoLeaderLock leaderLock;
  MongoSettingsRepository settings;
  MongoTransactions transactions;
};

domain::Result<std::unique_ptr<MongoStore>> MongoStore::open(const std::string& uri) {
  auto database = MongoDatabase::open(uri);
  if (!database) return database.error();
  return guarded([&]() -> domain::Result<std::unique_ptr<MongoStore>> {
    {
      auto c = (*database)->client();
      Bson reply;
      c.command(Bson().i64("buildInfo", 1), &reply);
      bson_iter_t it;
      std::string version;
      if (bson_iter_init_find(&it, reply.get(), "version") && BSON_ITER_HOLDS_UTF8(&it)) {
        version = bson_iter_utf8(&it, nullptr);
      }
      if (!isSupportedServerVersion(version)) {
        return domain::makeError(domain::ErrorCode::failed_precondition,
                                 "MongoDB " +
                                     (version.empty() ? std::string("(unknown)") : version) +
                                     " is too old: CertSteward needs MongoDB 6.0 or newer");
      }
      if (auto indexed = createIndexes(c); !indexed) return indexed.error();
    }
    return std::unique_ptr<MongoStore>(
        new MongoStore(std::make_unique<Parts>(std::move(*database))));
  });
}

MongoStore::MongoStore(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
MongoStore::~MongoStore() = default;

domain::Status MongoStore::ping() {
  return guarded([&]() -> domain::Status {
    auto c = parts_->db->client();
    c.command(Bson().i64("ping", 1));
    return {};
  });
}

domain::Status MongoStore::dropDatabaseForTest() {
  return guarded([&]() -> domain::Status {
    auto c = parts_->db->client();
    c.command(Bson().i64("dropDatabase", 1));
    return {};
  });
}

ports::CertificateRepository& MongoStore::certificates() {
  return parts_->certificates;
}
ports::JobQueue& MongoStore::jobs() {
  return parts_->jobs;
}
ports::JobLogRepository& MongoStore::jobLogs() {
  return parts_->jobLogs;
}

ports::EventLog& MongoStore::events() {
  return parts_->events;
}
ports::ProjectRepository& MongoStore::projects() {
  return parts_->projects;
}
ports::UserRepository& MongoStore::users() {
  return parts_->users;
}
ports::MembershipRepository& MongoStore::memberships() {
  return parts_->memberships;
}
ports::AcmeAccountRepository& MongoStore::acmeAccounts() {
  return parts_->acmeAccounts;
}
ports::DnsCredentialRepository& MongoStore::dnsCredentials() {
  return parts_->dnsCredentials;
}
ports::ZoneRepository& MongoStore::zones() {
  return parts_->zones;
}
ports::CredentialRepository& MongoStore::credentials() {
  return parts_->credentials;
}
ports::ModuleConfigRepository& MongoStore::moduleConfigs() {
  return parts_->moduleConfigs;
}
ports::DistributionRepository& MongoStore::distributions() {
  return parts_->distributions;
}
ports::NotificationChannelRepository& MongoStore::notificationChannels() {
  return parts_->notificationChannels;
}
ports::NotificationRuleRepository& MongoStore::notificationRules() {
  return parts_->notificationRules;
}
ports::NotificationDeliveryRepository& MongoStore::notificationDeliveries() {
  return parts_->notificationDeliveries;
}
ports::NotificationStateRepository& MongoStore::notificationStates() {
  return parts_->notificationStates;
}
ports::AuditLog& MongoStore::auditLog() {
  return parts_->auditLog;
}
ports::LicenseRepository& MongoStore::license() {
  return parts_->license;
}
ports::RefreshTokenStore& MongoStore::refreshTokens() {
  return parts_->refreshTokens;
}
ports::IdempotencyStore& MongoStore::idempotency() {
  return parts_->idempotency;
}
ports::ChallengeTokens& MongoStore::challengeTokens() {
  return parts_->challengeTokens;
}
ports::CaActivityLog& MongoStore::caActivity() {
  return parts_->caActivity;
}
ports::RateLimitCounter& MongoStore::rateLimits() {
  return parts_->rateLimits;
}
ports::LeaderLock& MongoStore::leaderLock() {
  return parts_->leaderLock;
}
ports::SettingsRepository& MongoStore::settings() {
  return parts_->settings;
}
ports::Transactions& MongoStore::transactions() {
  return parts_->transactions;
}

}  // namespace certsteward::adapters::mongo
