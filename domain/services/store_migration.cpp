// StoreMigration: copy through the ports, then count again.
#include "domain/services/store_migration.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "domain/services/scheduler.hpp"

namespace certsteward::domain {
namespace {

constexpr std::int64_t kBatch = kMaxPageSize;

// Reads every page of a list (page-number pagination, stable while nothing writes) and hands
// each item to `visit`; stops at the first short page or the first error.
template <class Fetch, class Visit>
Status eachItem(Fetch fetch, Visit visit) {
  for (std::int64_t page = 1;; ++page) {
    auto got = fetch(PageRequest{page, kBatch, 0});
    if (!got) return got.error();
    for (const auto& item : got->items) {
      if (auto s = visit(item); !s) return s;
    }
    if (static_cast<std::int64_t>(got->items.size()) < kBatch) return {};
  }
}

Status counted(std::int64_t& n) {
  ++n;
  return {};
}

// A kind held per project: how to copy one project's share, and how to count it in a store.
struct ProjectKind {
  std::string name;
  std::function<Status(ports::Store& from, ports::Store& to, const Id& project, std::int64_t& n)>
      copy;
  std::function<Status(ports::Store& store, const Id& project, std::int64_t& n)> count;
};

// The project-scoped repositories (create / list), chosen by the Store accessor.
template <class Repo>
ProjectKind scoped(std::string name, Repo& (ports::Store::*of)()) {
  return {std::move(name),
          [of](ports::Store& from, ports::Store& to, const Id& project, std::int64_t& n) {
            auto& source = (from.*of)();
            auto& target = (to.*of)();
            return eachItem([&](const PageRequest& r) { return source.list(project, r); },
                            [&](const auto& entity) {
                              ++n;
                              return target.create(entity);
                            });
          },
          [of](ports::Store& store, const Id& project, std::int64_t& n) {
            auto& repo = (store.*of)();
            return eachItem([&](const PageRequest& r) { return repo.list(project, r); },
                            [&](const auto&) { return counted(n); });
          }};
}

// Oldest first (created_at, then id): the order the store had them in.
ports::CertificateFilter allCertificates() {
  ports::CertificateFilter filter;
  filter.order = SortOrder::asc;
  return filter;
}

Status eachJob(ports::Store& store, const Id& project,
               const std::function<Status(const Job&)>& visit) {
  return eachItem(
      [&](const PageRequest& r) { return store.jobs().list(project, ports::JobFilter{}, r); },
      visit);
}

Status eachJobLog(ports::Store& store, const Id& job,
                  const std::function<Status(const JobLogEntry&)>& visit) {
  return eachItem([&](const PageRequest& r) { return store.jobLogs().list(job, r); }, visit);
}

std::vector<ProjectKind> projectKinds() {
  std::vector<ProjectKind> kinds;
  kinds.push_back(
      {"memberships",
       [](ports::Store& from, ports::Store& to, const Id& project, std::int64_t& n) {
         return eachItem(
             [&](const PageRequest& r) { return from.memberships().listForProject(project, r); },
             [&](const Membership& m) {
               ++n;
               return to.memberships().put(m);
             });
       },
       [](ports::Store& store, const Id& project, std::int64_t& n) {
         return eachItem(
             [&](const PageRequest& r) { return store.memberships().listForProject(project, r); },
             [&](const Membership&) { return counted(n); });
       }});
  kinds.push_back(scoped("acme_accounts", &ports::Store::acmeAccounts));
  kinds.push_back(scoped("dns_credentials", &ports::Store::dnsCredentials));
  kinds.push_back(scoped("zones", &ports::Store::zones));
  kinds.push_back(scoped("credentials", &ports::Store::credentials));
  kinds.push_back(scoped("module_configs", &ports::Store::moduleConfigs));
  kinds.push_back(
      {"certificates",
       [](ports::Store& from, ports::Store& to, const Id& project, std::int64_t& n) {
         const auto filter = allCertificates();
         return eachItem(
             [&](const PageRequest& r) { return from.certificates().list(project, filter, r); },
             [&](const Certificate& c) {
               ++n;
               return to.certificates().create(c);
             });
       },
       [](ports::Store& store, const Id& project, std::int64_t& n) {
         const auto filter = allCertificates();
         return eachItem(
             [&](const PageRequest& r) { return store.certificates().list(project, filter, r); },
             [&](const Certificate&) { return counted(n); });
       }});
  kinds.push_back(scoped("distributions", &ports::Store::distributions));
  kinds.push_back(scoped("notification_channels", &ports::Store::notificationChannels));
  kinds.push_back(scoped("notification_rules", &ports::Store::notificationRules));
  kinds.push_back(scoped("notification_deliveries", &ports::Store::notificationDeliveries));
  kinds.push_back(scoped("notification_states", &ports::Store::notificationStates));
  // Jobs are listed newest first; they are added oldest first, each exactly as it was (status,
  // attempts, lock), so a job that was running is reclaimed once its lock has expired.
  kinds.push_back({"jobs",
                   [](ports::Store& from, ports::Store& to, const Id& project, std::int64_t& n) {
                     std::vector<Job> jobs;
                     if (auto s = eachJob(from, project,
                                          [&](const Job& j) {
                                            jobs.push_back(j);
                                            return Status{};
                                          });
                         !s)
                       return s;
                     for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) {
                       auto added = to.jobs().enqueue(*it);
                       if (!added) return Status(added.error());
                       if (!added->created) {
                         return Status(makeError(ErrorCode::conflict,
                                                 "job " + it->id +
                                                     " shares its idempotency key with another "
                                                     "unfinished job in the target"));
                       }
                       ++n;
                     }
                     return Status{};
                   },
                   [](ports::Store& store, const Id& project, std::int64_t& n) {
                     return eachJob(store, project, [&](const Job&) { return counted(n); });
                   }});
  kinds.push_back({"job_logs",
                   [](ports::Store& from, ports::Store& to, const Id& project, std::int64_t& n) {
                     return eachJob(from, project, [&](const Job& job) {
                       return eachJobLog(from, job.id, [&](const JobLogEntry& line) {
                         ++n;
                         return to.jobLogs().append(line);
                       });
                     });
                   },
                   [](ports::Store& store, const Id& project, std::int64_t& n) {
                     return eachJob(store, project, [&](const Job& job) {
                       return eachJobLog(store, job.id,
                                         [&](const JobLogEntry&) { return counted(n); });
                     });
                   }});
  kinds.push_back(
      {"events",
       [](ports::Store& from, ports::Store& to, const Id& project, std::int64_t& n) {
         return eachItem(
             [&](const PageRequest& r) { return from.events().listInOrder(project, r); },
             [&](const Event& e) {
               ++n;
               return to.events().record(e);
             });
       },
       [](ports::Store& store, const Id& project, std::int64_t& n) {
         return eachItem(
             [&](const PageRequest& r) { return store.events().listInOrder(project, r); },
             [&](const Event&) { return counted(n); });
       }});
  return kinds;
}

Status eachProject(ports::Store& store, const std::function<Status(const Project&)>& visit) {
  return eachItem([&](const PageRequest& r) { return store.projects().list(r); }, visit);
}

Status eachUser(ports::Store& store, const std::function<Status(const User&)>& visit) {
  return eachItem([&](const PageRequest& r) { return store.users().list(r); }, visit);
}

// The org-wide documents: the licence and the settings. @return how many the store holds.
Result<std::int64_t> countOrgDocuments(ports::Store& store) {
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
class CopiedEntrySealer : public AuditChainSealer {
 public:
  CopiedEntrySealer(const AuditEntry& source, const std::string& predecessor)
      : source_(source), predecessor_(predecessor) {}
  void seal(const std::string& previousChecksum, AuditEntry& entry) const override {
    linked_ = previousChecksum == predecessor_;
    entry.checksum = source_.checksum;
    entry.mac = source_.mac;
  }
  bool linked() const { return linked_; }

 private:
  const AuditEntry& source_;
  const std::string& predecessor_;
  mutable bool linked_ = false;
};

}  // namespace

const std::vector<std::string>& StoreMigration::settingKeys() {
  static const std::vector<std::string> keys{"ldap", "oidc", Scheduler::kExpiryCheckDay};
  return keys;
}

Status StoreMigration::preflight() {
  const auto now = clock_.now();
  for (auto* store : {&from_, &to_}) {
    auto holder = store->leaderLock().holder(Scheduler::kLockName, now);
    if (!holder) return holder.error();
    if (*holder) {
      return makeError(ErrorCode::failed_precondition,
                       std::string(store == &from_ ? "the source" : "the target") +
                           " store is in use (its scheduler lease is current); stop every "
                           "instance first");
    }
  }
  auto users = to_.users().count();
  if (!users) return users.error();
  auto projects = to_.projects().list(PageRequest{1, 1, 0});
  if (!projects) return projects.error();
  auto head = to_.auditLog().head();
  if (!head) return head.error();
  auto documents = countOrgDocuments(to_);
  if (!documents) return documents.error();
  if (*users > 0 || !projects->items.empty() || *head || *documents > 0) {
    return makeError(ErrorCode::failed_precondition,
                     "the target store is not empty; migrate copies into an empty store only");
  }
  return {};
}

Status StoreMigration::copyAuditLog(MigrationReport& report) {
  std::optional<Timestamp> since;
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
        return makeError(ErrorCode::internal, "audit entry " + std::to_string(entry.sequence) +
                                                  " did not keep its place in the target's chain");
      }
      predecessor = entry.checksum;
      ++report.audit_entries;
    }
    if (!page->next_since) return {};
    since = page->next_since;
  }
}

Result<MigrationReport> StoreMigration::run(
    const std::function<void(const std::string&)>& progress) {
  if (auto s = preflight(); !s) return s.error();
  MigrationReport report;
  auto tell = [&](const MigratedKind& k) {
    if (progress) {
      progress(k.kind + ": " + std::to_string(k.source) + " copied, " + std::to_string(k.target) +
               " in the target");
    }
  };

  // Org-wide first: users, projects, the licence and settings.
  MigratedKind users{"users"};
  if (auto s = eachUser(from_,
                        [&](const User& u) {
                          ++users.source;
                          return to_.users().create(u);
                        });
      !s)
    return s.error();
  MigratedKind projects{"projects"};
  std::vector<Id> projectIds;
  if (auto s = eachProject(from_,
                           [&](const Project& p) {
                             ++projects.source;
                             projectIds.push_back(p.id);
                             return to_.projects().create(p);
                           });
      !s)
    return s.error();
  MigratedKind documents{"org_documents"};
  {
    auto license = from_.license().get();
    if (!license) return license.error();
    if (*license) {
      if (auto s = to_.license().put(**license); !s) return s.error();
    }
    for (const auto& key : settingKeys()) {
      auto setting = from_.settings().get(key);
      if (!setting) return setting.error();
      if (*setting) {
        if (auto s = to_.settings().put(**setting); !s) return s.error();
      }
    }
    auto n = countOrgDocuments(from_);
    if (!n) return n.error();
    documents.source = *n;
  }

  // Then each project's share of every kind.
  const auto kinds = projectKinds();
  std::vector<MigratedKind> perKind;
  for (const auto& kind : kinds)
    perKind.push_back({kind.name});
  for (const auto& project : projectIds) {
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (auto s = kinds[i].copy(from_, to_, project, perKind[i].source); !s) return s.error();
    }
  }

  // The audit log, entry by entry.
  if (auto s = copyAuditLog(report); !s) return s.error();

  // Counted again, in the target.
  if (auto s = eachUser(to_, [&](const User&) { return counted(users.target); }); !s)
    return s.error();
  std::vector<Id> targetProjects;
  if (auto s = eachProject(to_,
                           [&](const Project& p) {
                             targetProjects.push_back(p.id);
                             return counted(projects.target);
                           });
      !s)
    return s.error();
  auto targetDocuments = countOrgDocuments(to_);
  if (!targetDocuments) return targetDocuments.error();
  documents.target = *targetDocuments;
  for (const auto& project : targetProjects) {
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (auto s = kinds[i].count(to_, project, perKind[i].target); !s) return s.error();
    }
  }
  report.kinds.push_back(users);
  report.kinds.push_back(projects);
  report.kinds.push_back(documents);
  for (auto& k : perKind)
    report.kinds.push_back(std::move(k));
  for (const auto& k : report.kinds)
    tell(k);

  auto sourceHead = from_.auditLog().head();
  if (!sourceHead) return sourceHead.error();
  auto targetHead = to_.auditLog().head();
  if (!targetHead) return targetHead.error();
  bool sameChain = sourceHead->has_value() == targetHead->has_value();
  if (*targetHead) {
    report.audit_head = AuditHead{(*targetHead)->sequence, (*targetHead)->checksum};
    sameChain = sameChain && (*sourceHead)->sequence == (*targetHead)->sequence &&
                (*sourceHead)->checksum == (*targetHead)->checksum;
  }
  report.complete =
      sameChain && std::all_of(report.kinds.begin(), report.kinds.end(),
                               [](const MigratedKind& k) { return k.source == k.target; });
  return report;
}

}  // namespace certsteward::domain
