// Contract of Transactions on every store: all or nothing, reads that see the transaction's own
// writes, nested calls that join, and guards that make check-then-insert atomic.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_STORE_FACTORIES as the list of store factories to run it against
// (testing/contract/store_fixture.hpp says what a factory provides).
#pragma once

#ifndef CERTSTEWARD_STORE_FACTORIES
#error "define CERTSTEWARD_STORE_FACTORIES (the store factories) before including a contract suite"
#endif

#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

#include <certsteward/services/audit_sealer.hpp>
#include <certsteward/testing/contract/store_fixture.hpp>
#include <certsteward/testing/fakes.hpp>

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

template <class F>
Certificate makeCert(testing::StoreFixture<F>& fx, const Id& project) {
  Certificate c;
  c.id = fx.ids.next();
  c.project_id = project;
  c.common_name = "tx.example.test";
  c.sans = {c.common_name};
  c.status = CertificateStatus::issuing;
  c.created_at = c.updated_at = fx.now();
  return c;
}

template <class F>
AuditEntry makeEntry(testing::StoreFixture<F>& fx, const Id& project) {
  AuditEntry e;
  e.id = fx.ids.next();
  e.timestamp = fx.now();
  e.action = "certificate.create";
  e.resource_type = "certificate";
  e.project_id = project;
  return e;
}

// Writes a project, a certificate, its job, a membership change and an audit entry.
template <class F>
Status writeEverything(testing::StoreFixture<F>& fx, const AuditChainSealer& sealer,
                       const Id& project, const Id& certId) {
  ports::Store& s = *fx.store;
  if (auto r = s.projects().create(Project{project, "tx " + project, "", fx.now(), fx.now()}); !r)
    return r;
  Certificate c = makeCert(fx, project);
  c.id = certId;
  if (auto r = s.certificates().create(c); !r) return r;
  Job job = newJob(fx.ids.next(), project, JobType::issue_certificate, fx.now());
  job.certificate_id = certId;
  if (auto r = s.jobs().enqueue(job); !r) return r.error();
  if (auto r = s.memberships().put(Membership{project, "u-tx", ProjectRole::admin, fx.now()}); !r)
    return r;
  if (auto r = s.auditLog().append(makeEntry(fx, project), sealer); !r) return r.error();
  return {};
}

}  // namespace

TEST_CASE_TEMPLATE("transactions: a failing body leaves nothing of what it wrote", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  testing::FakeMac mac("audit key");
  AuditSealer sealer(mac);
  const Id project = fx.ids.next();
  const Id cert = fx.ids.next();
  const Status result = fx.store->transactions().run([&]() -> Status {
    if (auto s = writeEverything(fx, sealer, project, cert); !s) return s;
    return makeError(ErrorCode::unavailable, "the audit entry could not be written");
  });
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message == "the audit entry could not be written");
  CHECK(fx.store->projects().get(project).error().code == ErrorCode::not_found);
  CHECK(fx.store->certificates().get(project, cert).error().code == ErrorCode::not_found);
  CHECK(*fx.store->certificates().countAll() == 0);
  CHECK(fx.store->jobs().list(project, {}, fx.page())->total == 0);
  CHECK(fx.store->memberships().get(project, "u-tx").error().code == ErrorCode::not_found);
  CHECK(fx.store->auditLog().list({}, fx.page())->total == 0);
  // The chain goes on from where it was: the rolled-back entry left no gap or fork.
  REQUIRE(fx.store->auditLog().append(makeEntry(fx, project), sealer).ok());
  const auto chain = fx.store->auditLog().chainPage(std::nullopt, 10);
  REQUIRE(chain->entries.size() == 1);
  CHECK(chain->entries[0].sequence == 1);
}

TEST_CASE_TEMPLATE("transactions: a successful body commits everything, nested calls join", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  testing::FakeMac mac("audit key");
  AuditSealer sealer(mac);
  const Id project = fx.ids.next();
  const Id cert = fx.ids.next();
  const Status result = fx.store->transactions().run([&]() -> Status {
    if (auto s = writeEverything(fx, sealer, project, cert); !s) return s;
    // Reads inside see the transaction's own writes.
    if (*fx.store->certificates().countAll() != 1) return makeError(ErrorCode::internal, "count");
    return fx.store->transactions().run([&]() -> Status {
      auto c = fx.store->certificates().get(project, cert);
      if (!c) return c.error();
      c->status = CertificateStatus::active;
      return fx.store->certificates().update(*c).ok() ? Status{}
                                                      : makeError(ErrorCode::internal, "update");
    });
  });
  REQUIRE(result.ok());
  CHECK(fx.store->projects().get(project).ok());
  CHECK(fx.store->certificates().get(project, cert)->status == CertificateStatus::active);
  CHECK(fx.store->jobs().list(project, {}, fx.page())->total == 1);
  CHECK(fx.store->memberships().get(project, "u-tx").ok());
  CHECK(fx.store->auditLog().list({}, fx.page())->total == 1);
}

TEST_CASE_TEMPLATE("transactions: a failing nested call rolls back the whole transaction", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  const Id project = fx.ids.next();
  const Status result = fx.store->transactions().run([&]() -> Status {
    if (auto s = fx.store->projects().create(Project{project, "nested", "", fx.now(), fx.now()});
        !s)
      return s;
    return fx.store->transactions().run(
        [&]() -> Status { return makeError(ErrorCode::conflict, "inner refusal"); });
  });
  CHECK(result.error().code == ErrorCode::conflict);
  CHECK(fx.store->projects().get(project).error().code == ErrorCode::not_found);
}

TEST_CASE_TEMPLATE("transactions: a guarded count-then-insert never passes the cap", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  const Id project = fx.ids.next();
  constexpr int kThreads = 8;
  std::vector<Id> ids;
  for (int i = 0; i < kThreads; ++i)
    ids.push_back(fx.ids.next());
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const Status s = fx.store->transactions().run({"license"}, [&]() -> Status {
        auto n = fx.store->certificates().countAll();
        if (!n) return n.error();
        if (*n >= 1) return makeError(ErrorCode::resource_exhausted, "cap reached");
        Certificate c = makeCert(fx, project);
        c.id = ids[static_cast<std::size_t>(t)];
        return fx.store->certificates().create(c);
      });
      if (s) ++admitted;
    });
  }
  for (auto& t : threads)
    t.join();
  CHECK(admitted.load() == 1);
  CHECK(*fx.store->certificates().countAll() == 1);
}
