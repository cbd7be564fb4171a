// StoreMigration: copy through the ports, then count again.
#include <certsteward/services/store_migration.hpp>

#include <algorithm>
#include <map>
#include <utility>

#include <certsteward/services/scheduler.hpp>

namespace certsteward::services {
namespace {

constexpr std::int64_t kBatch = domain::kMaxPageSize;

// Reads every page of a list (page-number pagination, stable while nothing writes) and hands
// each item to `visit`; stops at the first short page or the first error.
template <class Fetch, class Visit>
domain::Status eachItem(Fetch fetch, Visit visit) {
  for (std::int64_t page = 1;; ++page) {
    auto got = fetch(domain::PageRequest{page, kBatch, 0});
    if (!got) return got.error();
    for (const auto& item : got->items) {
      if (auto s = visit(item); !s) return s;
    }
    if (static_cast<std::int64_t>(got->items.size()) < kBatch) return {};
  }
}

domain::Status counted(std::int64_t& n) {
  ++n;
  return {};
}

// A kind held per project: how to copy one project's share, and how to count it in a store.
struct ProjectKind {
  std::string name;
  std::function<domain::Status(ports::Store& from, ports::Store& to, const domain::Id& project)>
      copy;
  std::function<domain::Status(ports::Store& store, const domain::Id& project, std::int64_t& n)>
      count;
};

// A kind read page by page with `list(store, project, page)` and written an item at a time with
// `write(store, item)`.
template <class List, class Write>
ProjectKind listed(std::string name, List list, Write write) {
  return {std::move(name),
          [list, write](ports::Store& from, ports::Store& to, const domain::Id& project) {
            return eachItem([&](const domain::PageRequest& r) { return list(from, project, r); },
                            [&](const auto& item) { return write(to, item); });
          },
          [list](ports::Store& store, const domain::Id& project, std::int64_t& n) {
            return eachItem([&](const domain::PageRequest& r) { return list(store, project, r); },
                            [&](const auto&) { return counted(n); });
          }};
}

// The project-scoped repositories (create / list), chosen by the Store accessor.
template <class Repo>
ProjectKind scoped(std::string name, Repo& (ports::Store::*of)()) {
  return listed(
      std::move(name),
      [of](ports::Store& s, const domain::Id& project, const domain::PageRequest& r) {
        return (s.*of)().list(project, r);
      },
      [of](ports::Store& s, const auto& entity) { return (s.*of)().create(entity); });
}

// Oldest first (created_at, then id): the order the store had them in.
ports::CertificateFilter allCertificates() {
  ports::CertificateFilter filter;
  filter.order = domain::SortOrder::asc;
  return filter;
}

domain::Status eachJob(ports::Store& store, const domain::Id& project,
                       const std::function<domain::Status(const domain::Job&)>& visit) {
  return eachItem(
      [&](const domain::PageRequest& r) {
        return store.jobs().list(project, ports::JobFilter{}, r);
      },
      visit);
}

domain::Status eachJobLog(ports::Store& store, const domain::Id& job,
                          const std::function<domain::Status(const domain::JobLogEntry&)>& visit) {
  return eachItem([&](const domain::PageRequest& r) { return store.jobLogs().list(job, r); },
                  visit);
}

// Jobs are listed newest first. They are added finished ones first, then the unfinished, each
// oldest first and exactly as it was (status, attempts, next run, lock), so that enqueue's
// idempotency check (one unfinished job per key) meets the same jobs it met in the source; a
// job that was running is reclaimed once its lock has expired.
domain::Status copyJobs(ports::Store& from, ports::Store& to, const domain::Id& project) {
  std::vector<domain::Job> jobs;
  if (auto s = eachJob(from, project,
                       [&](const domain::Job& j) {
                         jobs.push_back(j);
                         return domain::Status{};
                       });
      !s)
    return s;
  std::reverse(jobs.begin(), jobs.end());
  std::stable_partition(jobs.begin(), jobs.end(),
                        [](const domain::Job& j) { return isTerminal(j.status); });
  for (const auto& job : jobs) {
    auto added = to.jobs().enqueue(job);
    if (!added) return domain::Status(added.error());
    if (!added->created) {
      return domain::Status(
          makeError(domain::ErrorCode::conflict,
                    "job " + job.id +
                        " shares its idempotency key with another unfinished job in "
                        "the target"));
    }
  }
  return domain::Status{};
}

std::vector<ProjectKind> projectKinds() {
  std::vector<ProjectKind> kinds;
  kinds.push_back(listed(
      "memberships",
      [](ports::Store& s, const domain::Id& project, const domain::PageRequest& r) {
        return s.memberships().listForProject(project, r);
      },
      [](ports::Store& s, const domain::Membership& m) { return s.memberships().put(m); }));
  kinds.push_back(scoped("acme_accounts", &ports::Store::acmeAccounts));
  kinds.push_back(scoped("dns_credentials", &ports::Store::dnsCredentials));
  kinds.push_back(scoped("zones", &ports::Store::zones));
  kinds.push_back(scoped("credentials", &ports::Store::credentials));
  kinds.push_back(scoped("module_configs", &ports::Store::moduleConfigs));
  kinds.push_back(listed(
      "certificates",
      [](ports::Store& s, const domain::Id& project, const domain::PageRequest& r) {
        return s.certificates().list(project, allCertificates(), r);
      },
      [](ports::Store& s, const domain::Certificate& c) { return s.certificates().create(c); }));
  kinds.push_back(scoped("distributions", &ports::Store::distributions));
  kinds.push_back(scoped("notification_channels", &ports::Store::notificationChannels));
  kinds.push_back(scoped("notification_rules", &ports::Store::notificationRules));
  kinds.push_back(scoped("notification_deliveries", &ports::Store::notificationDeliveries));
  kinds.push_back(scoped("notification_states", &ports::Store::notificationStates));
  kinds.push_back(
      {"jobs", copyJobs, [](ports::Store& store, const domain::Id& project, std::int64_t& n) {
         return eachJob(store, project, [&](const domain::Job&) { return counted(n); });
       }});
  kinds.push_back({"job_logs",
                   [](ports::Store& from, ports::Store& to, const domain::Id& project) {
                     return eachJob(from, project, [&](const domain::Job& job) {
                       return eachJobLog(from, job.id, [&](const domain::JobLogEntry& line) {
                         return to.jobLogs().append(line);
                       });
                     });
                   },
                   [](ports::Store& store, const domain::Id& project, std::int64_t& n) {
                     return eachJob(store, project, [&](const domain::Job& job) {
                       return eachJobLog(store, job.id,
                                         [&](const domain::JobLogEntry&) { return counted(n); });
                     });
                   }});
  kinds.push_back(listed(
      "events",
      [](ports::Store& s, const domain::Id& project, const domain::PageRequest& r) {
        return s.events().listInOrder(project, r);
      },
      [](ports::Store& s, const domain::Event& e) { return s.events().record(e); }));
  return kinds;
}

domain::Status eachProject(ports::Store& store,
                           const std::function<domain::Status(const domain::Project&)>& visit) {
  return eachItem([&](const domain::PageRequest& r) { return store.projects().list(r); }, visit);
}

domain::Status eachUser(ports::Store& store,
                        const std::function<domain::Status(const domain::User&)>& visit) {
  return eachItem([&](const domain::PageRequest& r) { return store.users().list(r); }, visit);
}

// The org-wide documents: the licence and the settings. @return how many the store holds.
domain::Result<std::int64_t> countOrgDocuments(ports::Store& store) {
  std::int64_t n = 0;
  auto license = store.license().get();
  if (!license) return license.error();
  if (*license) ++n;
  for (const auto& key : StoreMigration::settingKeys()) {
    auto setting = store.settings().get(key);
    if (!setting) return setting.error();
    if (*setting) ++n;
  }
  return n;
}

// Appends the source's entry unchanged: its checksum and MAC are kept, not computed again (the
// migration needs no key), and whether the target chained it onto the same predecessor is
// noted.
class CopiedEntrySealer : public domain::AuditChainSealer {
 public:
  CopiedEntrySealer(const domain::AuditEntry& source, const std::string& predecessor)
      : source_(source), predecessor_(predecessor) {}
  void seal(const std::string& previousChecksum, domain::AuditEntry& entry) const override {
    linked_ = previousChecksum == predecessor_;
    entry.checksum = source_.checksum;
    entry.mac = source_.mac;
  }
  bool linked() const { return linked_; }

 private:
  const domain::AuditEntry& source_;
  const std::string& predecessor_;
  mutable bool linked_ = false;
};

}  // namespace

const std::vector<std::string>& StoreMigration::settingKeys() {
  static const std::vector<std::string> keys{"ldap", "oidc", "ca_providers",
                                             Scheduler::kExpiryCheckDay};
  return keys;
}

namespace {

// Long enough for a slow page of a remote store, short enough that a migration that died lets
// the instances' schedulers take over soon; renewed after every project and audit page.
constexpr auto kLeaseTtl = std::chrono::minutes(2);

}  // namespace

domain::Status StoreMigration::preflight() {
  const auto now = clock_.now();
  for (auto* store : {&from_, &to_}) {
    auto holder = store->leaderLock().holder(Scheduler::kLockName, now);
    if (!holder) return holder.error();
    if (*holder) {
      return makeError(domain::ErrorCode::failed_precondition,
                       std::string(store == &from_ ? "the source" : "the target") +
                           " store is in use (its scheduler lease is current); stop every "
                           "instance first");
    }
  }

  // The source: not empty, and a chain without gaps (entries keep their sequence numbers, which
  // their MACs cover, so a gap could not be copied).
  auto sourceUsers = from_.users().count();
  if (!sourceUsers) return sourceUsers.error();
  auto sourceHead = from_.auditLog().head();
  if (!sourceHead) return sourceHead.error();
  if (*sourceUsers == 0 && !*sourceHead) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the source store is empty (no user, no audit entry): check --from");
  }
  std::optional<domain::Timestamp> since;
  std::int64_t expected = 1;
  for (;;) {
    auto page = from_.auditLog().chainPage(since, 1000);
    if (!page) return page.error();
    for (const auto& entry : page->entries) {
      if (entry.sequence != expected) {
        return makeError(domain::ErrorCode::failed_precondition,
                         "the source's audit chain has a gap: entry " + entry.id +
                             " has sequence " + std::to_string(entry.sequence) + " where " +
                             std::to_string(expected) +
                             " was expected; run `certsteward audit verify` on it");
      }
      ++expected;
    }
    if (!page->next_since) break;
    since = page->next_since;
  }

  // The target: empty.
  auto users = to_.users().count();
  if (!users) return users.error();
  auto projects = to_.projects().list(domain::PageRequest{1, 1, 0});
  if (!projects) return projects.error();
  auto head = to_.auditLog().head();
  if (!head) return head.error();
  auto certificates = to_.certificates().countAll();
  if (!certificates) return certificates.error();
  auto jobs = to_.jobs().countByTypeAndStatus();
  if (!jobs) return jobs.error();
  auto documents = countOrgDocuments(to_);
  if (!documents) return documents.error();
  if (*users > 0 || !projects->items.empty() || *head || *certificates > 0 || !jobs->empty() ||
      *documents > 0) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the target store is not empty; migrate copies into an empty store only");
  }
  return {};
}

domain::Status StoreMigration::holdLeases() {
  const auto now = clock_.now();
  for (auto* store : {&from_, &to_}) {
    auto held = store->leaderLock().tryAcquire(Scheduler::kLockName, kLeaseHolder, now, kLeaseTtl);
    if (!held) return held.error();
    if (!*held) {
      return makeError(domain::ErrorCode::failed_precondition,
                       std::string(store == &from_ ? "the source" : "the target") +
                           " store's scheduler lease was taken by an instance that started");
    }
  }
  return {};
}

void StoreMigration::releaseLeases() {
  for (auto* store : {&from_, &to_})
    (void)store->leaderLock().release(Scheduler::kLockName, kLeaseHolder);
}

domain::Status StoreMigration::copyAuditLog(MigrationReport& report) {
  std::optional<domain::Timestamp> since;
  std::string predecessor;
  for (;;) {
    auto page = from_.auditLog().chainPage(since, 1000);
    if (!page) return page.error();
    for (const auto& entry : page->entries) {
      CopiedEntrySealer sealer(entry, predecessor);
      auto stored = to_.auditLog().append(entry, sealer);
      if (!stored) return stored.error();
      if (!sealer.linked() || stored->sequence != entry.sequence ||
          stored->timestamp != entry.timestamp || stored->checksum != entry.checksum ||
          stored->mac != entry.mac) {
        return makeError(domain::ErrorCode::internal,
                         "audit entry " + std::to_string(entry.sequence) +
                             " did not keep its place in the target's chain");
      }
      predecessor = entry.checksum;
      ++report.audit_entries;
    }
    if (auto s = holdLeases(); !s) return s;
    if (!page->next_since) return {};
    since = page->next_since;
  }
}

domain::Status StoreMigration::copyEverything(MigrationReport& report) {
  // Org-wide first: users, projects, the licence and settings.
  if (auto s = eachUser(from_, [&](const domain::User& u) { return to_.users().create(u); }); !s)
    return s;
  std::vector<domain::Id> projectIds;
  if (auto s = eachProject(from_,
                           [&](const domain::Project& p) {
                             projectIds.push_back(p.id);
                             return to_.projects().create(p);
                           });
      !s)
    return s;
  auto license = from_.license().get();
  if (!license) return license.error();
  if (*license) {
    if (auto s = to_.license().put(**license); !s) return s;
  }
  for (const auto& key : settingKeys()) {
    auto setting = from_.settings().get(key);
    if (!setting) return setting.error();
    if (*setting) {
      if (auto s = to_.settings().put(**setting); !s) return s;
    }
  }
  // Then each project's share of every kind.
  const auto kinds = projectKinds();
  for (const auto& project : projectIds) {
    for (const auto& kind : kinds) {
      if (auto s = kind.copy(from_, to_, project); !s) return s;
    }
    if (auto s = holdLeases(); !s) return s;
  }
  // The audit log, entry by entry.
  return copyAuditLog(report);
}

domain::Status StoreMigration::countAgain(MigrationReport& report) {
  MigratedKind users{"users"}, projects{"projects"}, documents{"org_documents"};
  const auto kinds = projectKinds();
  std::vector<MigratedKind> perKind;
  for (const auto& kind : kinds)
    perKind.push_back({kind.name});
  for (auto* store : {&from_, &to_}) {
    const bool source = store == &from_;
    auto slot = [&](MigratedKind& k) -> std::int64_t& { return source ? k.source : k.target; };
    if (auto s = eachUser(*store, [&](const domain::User&) { return counted(slot(users)); }); !s)
      return s;
    std::vector<domain::Id> projectIds;
    if (auto s = eachProject(*store,
                             [&](const domain::Project& p) {
                               projectIds.push_back(p.id);
                               return counted(slot(projects));
                             });
        !s)
      return s;
    auto n = countOrgDocuments(*store);
    if (!n) return n.error();
    slot(documents) = *n;
    for (const auto& project : projectIds) {
      for (std::size_t i = 0; i < kinds.size(); ++i) {
        if (auto s = kinds[i].count(*store, project, slot(perKind[i])); !s) return s;
      }
    }
  }
  report.kinds = {users, projects, documents};
  for (auto& k : perKind)
    report.kinds.push_back(std::move(k));

  auto sourceHead = from_.auditLog().head();
  if (!sourceHead) return sourceHead.error();
  auto targetHead = to_.auditLog().head();
  if (!targetHead) return targetHead.error();
  bool sameChain = sourceHead->has_value() == targetHead->has_value();
  if (*targetHead) {
    report.audit_head = domain::AuditHead{(*targetHead)->sequence, (*targetHead)->checksum};
    sameChain = sameChain && (*sourceHead)->sequence == (*targetHead)->sequence &&
                (*sourceHead)->checksum == (*targetHead)->checksum;
  }
  report.complete =
      sameChain && std::all_of(report.kinds.begin(), report.kinds.end(),
                               [](const MigratedKind& k) { return k.source == k.target; });
  return {};
}

domain::Result<MigrationReport> StoreMigration::run(
    const std::function<void(const std::string&)>& progress) {
  if (auto s = preflight(); !s) return s.error();
  if (auto s = holdLeases(); !s) {
    releaseLeases();
    return s.error();
  }
  MigrationReport report;
  if (auto s = copyEverything(report); !s) {
    releaseLeases();
    report.stopped = s.error();
    return report;
  }
  auto counted = countAgain(report);
  releaseLeases();
  if (!counted) return counted.error();
  if (progress) {
    for (const auto& k : report.kinds) {
      progress(k.kind + ": " + std::to_string(k.source) + " in the source, " +
               std::to_string(k.target) + " in the target");
    }
  }
  return report;
}

}  // namespace certsteward::services
