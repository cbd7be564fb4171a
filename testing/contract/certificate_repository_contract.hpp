// Contract of CertificateRepository, run against every store adapter.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_STORE_FACTORIES as the list of store factories to run it against
// (testing/contract/store_fixture.hpp says what a factory provides).
#pragma once

#ifndef CERTSTEWARD_STORE_FACTORIES
#error "define CERTSTEWARD_STORE_FACTORIES (the store factories) before including a contract suite"
#endif

#include <doctest/doctest.h>

#include <certsteward/testing/contract/store_fixture.hpp>

using namespace certsteward;
using namespace certsteward::domain;
using namespace std::chrono_literals;

namespace {

template <class F>
Certificate makeCert(testing::StoreFixture<F>& fx, const Id& project, const std::string& cn,
                     CertificateStatus status = CertificateStatus::active,
                     std::optional<Duration> expiresIn = std::nullopt) {
  Certificate c;
  c.id = fx.ids.next();
  c.project_id = project;
  c.common_name = cn;
  c.sans = {cn};
  c.status = status;
  c.created_at = fx.now();
  c.updated_at = fx.now();
  if (expiresIn) {
    c.expires_at = fx.now() + *expiresIn;
    c.next_renewal_at = renewalTime(*c.expires_at, c.renewal_threshold_days);
  }
  c.private_key_sealed = "v1:sealed";
  return c;
}

template <class F>
std::vector<std::string> names(testing::StoreFixture<F>& fx, const Id& project,
                               const ports::CertificateFilter& filter, PageRequest page) {
  auto result = fx.store->certificates().list(project, filter, page);
  REQUIRE(result.ok());
  std::vector<std::string> out;
  for (const auto& c : result->items)
    out.push_back(c.common_name);
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("certificate repository: create, get, tenancy and duplicates", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  Certificate c = makeCert(fx, "p1", "a.example.com", CertificateStatus::issuing);
  c.sans = {"a.example.com", "b.example.com"};
  c.key_type = KeyType::rsa_3072;
  c.acme_account_id = "acct";
  REQUIRE(repo.create(c).ok());
  const auto got = repo.get("p1", c.id);
  REQUIRE(got.ok());
  CHECK(got->common_name == "a.example.com");
  CHECK(got->sans == c.sans);
  CHECK(got->key_type == KeyType::rsa_3072);
  CHECK(got->status == CertificateStatus::issuing);
  CHECK(got->acme_account_id == c.acme_account_id);
  CHECK(got->private_key_sealed == "v1:sealed");
  CHECK(got->created_at == c.created_at);
  CHECK(got->version == 1);
  CHECK(repo.get("p2", c.id).error().code == ErrorCode::not_found);
  CHECK(repo.get("p1", fx.ids.next()).error().code == ErrorCode::not_found);
  CHECK(repo.create(c).error().code == ErrorCode::conflict);
  CHECK(*repo.countAll() == 1);
  CHECK(repo.remove("p2", c.id).error().code == ErrorCode::not_found);
  REQUIRE(repo.remove("p1", c.id).ok());
  CHECK(repo.get("p1", c.id).error().code == ErrorCode::not_found);
  CHECK(*repo.countAll() == 0);
}

TEST_CASE_TEMPLATE("certificate repository: update is compare-and-set on the version", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  Certificate c = makeCert(fx, "p1", "a.example.com");
  REQUIRE(repo.create(c).ok());
  Certificate first = *repo.get("p1", c.id);
  Certificate second = first;
  first.last_error = "from writer one";
  const auto updated = repo.update(first);
  REQUIRE(updated.ok());
  CHECK(updated->version == 2);
  second.last_error = "from writer two";
  CHECK(repo.update(second).error().code == ErrorCode::conflict);
  CHECK(repo.get("p1", c.id)->last_error == "from writer one");
  Certificate other = *updated;
  other.project_id = "p2";
  CHECK(repo.update(other).error().code == ErrorCode::not_found);
}

TEST_CASE_TEMPLATE("certificate repository: list filters, sorts and pages", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  REQUIRE(
      repo.create(makeCert(fx, "p1", "c.example.com", CertificateStatus::active, 30 * 24h)).ok());
  fx.clock.advance(1s);
  REQUIRE(
      repo.create(makeCert(fx, "p1", "a.example.com", CertificateStatus::renewal_failed, 5 * 24h))
          .ok());
  fx.clock.advance(1s);
  REQUIRE(repo.create(makeCert(fx, "p1", "b.example.com", CertificateStatus::issuing)).ok());
  fx.clock.advance(1s);
  REQUIRE(
      repo.create(makeCert(fx, "p1", "d.example.com", CertificateStatus::active, 90 * 24h)).ok());
  REQUIRE(repo.create(makeCert(fx, "p2", "other.example.com")).ok());

  ports::CertificateFilter all;
  CHECK(names(fx, "p1", all, fx.page()) ==
        std::vector<std::string>{"d.example.com", "b.example.com", "a.example.com",
                                 "c.example.com"});  // default: newest first

  ports::CertificateFilter statuses;
  statuses.statuses = {CertificateStatus::renewal_failed, CertificateStatus::issuing};
  statuses.sort = ports::CertificateSort::common_name;
  statuses.order = SortOrder::asc;
  CHECK(names(fx, "p1", statuses, fx.page()) ==
        std::vector<std::string>{"a.example.com", "b.example.com"});

  ports::CertificateFilter byExpiry;
  byExpiry.sort = ports::CertificateSort::expires_at;
  byExpiry.order = SortOrder::asc;
  CHECK(names(fx, "p1", byExpiry, fx.page()) ==
        std::vector<std::string>{"a.example.com", "c.example.com", "d.example.com",
                                 "b.example.com"});  // no expiry sorts last
  byExpiry.order = SortOrder::desc;
  CHECK(
      names(fx, "p1", byExpiry, fx.page()) ==
      std::vector<std::string>{"d.example.com", "c.example.com", "a.example.com", "b.example.com"});

  ports::CertificateFilter expiring;
  expiring.expires_before = fx.now() + 31 * 24h;
  expiring.sort = ports::CertificateSort::expires_at;
  expiring.order = SortOrder::asc;
  CHECK(names(fx, "p1", expiring, fx.page()) ==
        std::vector<std::string>{"a.example.com", "c.example.com"});

  ports::CertificateFilter issuer;
  issuer.issuer_type = "msca";
  CHECK(names(fx, "p1", issuer, fx.page()).empty());
  issuer.issuer_type = "acme";
  CHECK(names(fx, "p1", issuer, fx.page()).size() == 4);

  ports::CertificateFilter search;
  search.name_contains = "d.ex";
  CHECK(names(fx, "p1", search, fx.page()) == std::vector<std::string>{"d.example.com"});
  CHECK(repo.list("p1", search, fx.page())->total == 1);
  search.name_contains = "exampl..com";  // '.' is literal, not "any character"
  CHECK(repo.list("p1", search, fx.page())->total == 0);
  search.name_contains = ".example.";
  CHECK(repo.list("p1", search, fx.page())->total == 4);
  CHECK(repo.countMatching("p1", search).value() == 4);
  search.name_contains = "a.*";  // a pattern's characters are plain text
  CHECK(repo.list("p1", search, fx.page())->total == 0);
  search.name_contains = "%";
  CHECK(repo.list("p1", search, fx.page())->total == 0);
  search.statuses = {CertificateStatus::active};
  search.name_contains = "example";
  CHECK(repo.list("p1", search, fx.page())->total == 2);
  CHECK(repo.countMatching("p1", search).value() == 2);
  CHECK(repo.countMatching("p1", expiring).value() == 2);
  CHECK(repo.countMatching("p1", all).value() == 4);
  CHECK(repo.countMatching("p2", all).value() == 1);
  CHECK(repo.countMatching("nobody", all).value() == 0);

  ports::CertificateFilter paged;
  paged.sort = ports::CertificateSort::common_name;
  paged.order = SortOrder::asc;
  const auto p2 = repo.list("p1", paged, fx.page(2, 3));
  REQUIRE(p2.ok());
  CHECK(p2->total == 4);
  CHECK(p2->page == 2);
  CHECK(p2->page_size == 3);
  REQUIRE(p2->items.size() == 1);
  CHECK(p2->items[0].common_name == "d.example.com");
  CHECK(repo.list("p1", paged, fx.page(9, 3))->items.empty());
  CHECK(repo.list("nobody", paged, fx.page())->total == 0);
}

TEST_CASE_TEMPLATE("certificate repository: the search finds a certificate by any of its names", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  Certificate shop = makeCert(fx, "p1", "www.shop.example");
  shop.sans = {"www.shop.example", "api.internal.example", "*.cdn.example"};
  REQUIRE(repo.create(shop).ok());
  REQUIRE(repo.create(makeCert(fx, "p1", "mail.example")).ok());
  Certificate elsewhere = makeCert(fx, "p2", "www.other.example");
  elsewhere.sans = {"www.other.example", "api.internal.example"};
  REQUIRE(repo.create(elsewhere).ok());

  ports::CertificateFilter search;
  search.name_contains = "internal";  // a SAN only
  CHECK(names(fx, "p1", search, fx.page()) == std::vector<std::string>{"www.shop.example"});
  CHECK(repo.countMatching("p1", search).value() == 1);
  search.name_contains = "*.cdn";  // a wildcard SAN, its '*' as plain text
  CHECK(names(fx, "p1", search, fx.page()) == std::vector<std::string>{"www.shop.example"});
  search.name_contains = "shop.example";  // the common name
  CHECK(repo.countMatching("p1", search).value() == 1);
  search.name_contains = "exampleapi";  // never across two names
  CHECK(repo.countMatching("p1", search).value() == 0);
  search.name_contains = "example";  // each certificate once, however many names match
  CHECK(repo.list("p1", search, fx.page())->total == 2);
  CHECK(repo.list("p1", search, fx.page())->items.size() == 2);

  // A change of names is searched at once.
  auto stored = repo.get("p1", shop.id);
  REQUIRE(stored.ok());
  stored->sans = {"www.shop.example", "status.shop.example"};
  REQUIRE(repo.update(*stored).ok());
  search.name_contains = "internal";
  CHECK(repo.countMatching("p1", search).value() == 0);
  CHECK(repo.countMatching("p2", search).value() == 1);
  search.name_contains = "status.";
  CHECK(names(fx, "p1", search, fx.page()) == std::vector<std::string>{"www.shop.example"});
}

TEST_CASE_TEMPLATE("certificate repository: the renewal sweep reads only what is due", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  auto due1 = makeCert(fx, "p1", "due1.example.com", CertificateStatus::active, 10 * 24h);
  auto due2 = makeCert(fx, "p2", "due2.example.com", CertificateStatus::renewal_failed, 20 * 24h);
  auto notDue = makeCert(fx, "p1", "later.example.com", CertificateStatus::active, 60 * 24h);
  auto manual = makeCert(fx, "p1", "manual.example.com", CertificateStatus::active, 1 * 24h);
  manual.auto_renew = false;
  auto busy = makeCert(fx, "p1", "busy.example.com", CertificateStatus::renewal_pending, 1 * 24h);
  auto issuing = makeCert(fx, "p1", "new.example.com", CertificateStatus::issuing);
  for (const auto& c : {due1, due2, notDue, manual, busy, issuing})
    REQUIRE(repo.create(c).ok());
  const auto due = repo.dueForRenewal(fx.now(), 100);
  REQUIRE(due.ok());
  REQUIRE(due->size() == 2);
  CHECK((*due)[0].id == due1.id);  // earliest next_renewal_at first
  CHECK((*due)[1].id == due2.id);
  CHECK(repo.dueForRenewal(fx.now(), 1)->size() == 1);
  CHECK(repo.dueForRenewal(fx.now() - 365 * 24h, 100)->empty());
}

TEST_CASE_TEMPLATE("certificate repository: renewal windows due to be asked again (RFC 9773)", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  auto first = makeCert(fx, "p1", "first.example.com", CertificateStatus::active, 60 * 24h);
  first.ari_poll_at = fx.now() - 2h;
  auto second = makeCert(fx, "p2", "second.example.com", CertificateStatus::active, 60 * 24h);
  second.ari_poll_at = fx.now() - 1h;
  auto later = makeCert(fx, "p1", "later.example.com", CertificateStatus::active, 60 * 24h);
  later.ari_poll_at = fx.now() + 1h;
  auto never = makeCert(fx, "p1", "never.example.com", CertificateStatus::active, 60 * 24h);
  for (const auto& c : {first, second, later, never})
    REQUIRE(repo.create(c).ok());
  auto due = repo.dueForRenewalInfo(fx.now(), 100);
  REQUIRE(due.ok());
  REQUIRE(due->size() == 2);
  CHECK((*due)[0].id == first.id);  // earliest first
  CHECK((*due)[1].id == second.id);
  CHECK(repo.dueForRenewalInfo(fx.now(), 1)->size() == 1);
  // Asked: the next time is stored with the certificate; cleared, it is never due.
  auto asked = *repo.get("p1", first.id);
  asked.ari_poll_at = fx.now() + 6h;
  REQUIRE(repo.update(asked).ok());
  auto cleared = *repo.get("p2", second.id);
  cleared.ari_poll_at.reset();
  REQUIRE(repo.update(cleared).ok());
  CHECK(repo.dueForRenewalInfo(fx.now(), 100)->empty());
  due = repo.dueForRenewalInfo(fx.now() + 7h, 100);
  REQUIRE(due->size() == 2);
  CHECK((*due)[0].id == later.id);
  CHECK((*due)[1].id == first.id);
  CHECK(repo.get("p1", first.id)->ari_poll_at == fx.now() + 6h);
}

TEST_CASE_TEMPLATE("certificate repository: stale distribution_pending", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  auto old = makeCert(fx, "p1", "old.example.com");
  setDistributionPending(old, true, fx.now() - 10min);
  auto fresh = makeCert(fx, "p1", "fresh.example.com");
  setDistributionPending(fresh, true, fx.now() - 1min);
  auto none = makeCert(fx, "p1", "none.example.com");
  for (const auto& c : {old, fresh, none})
    REQUIRE(repo.create(c).ok());
  const auto stale = repo.distributionPendingSince(fx.now() - 5min, 100);
  REQUIRE(stale.ok());
  REQUIRE(stale->size() == 1);
  CHECK((*stale)[0].id == old.id);
  CHECK((*stale)[0].distribution_pending_since == fx.now() - 10min);
}

TEST_CASE_TEMPLATE("certificate repository: counts by status across projects", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  REQUIRE(repo.create(makeCert(fx, "p1", "a.example.com", CertificateStatus::active, 24h)).ok());
  REQUIRE(repo.create(makeCert(fx, "p2", "b.example.com", CertificateStatus::active, 24h)).ok());
  auto c = makeCert(fx, "p1", "c.example.com", CertificateStatus::issuing);
  REQUIRE(repo.create(c).ok());
  auto stored = *repo.get("p1", c.id);
  stored.status = CertificateStatus::renewal_failed;
  REQUIRE(repo.update(stored).ok());
  const auto counts = repo.countByStatus();
  REQUIRE(counts.ok());
  CHECK(counts->at(CertificateStatus::active) == 2);
  CHECK(counts->at(CertificateStatus::renewal_failed) == 1);
  CHECK(counts->count(CertificateStatus::issuing) ==
        0);  // statuses without certificates are absent
}

TEST_CASE_TEMPLATE(
    "certificate repository: issued certificates expiring before an instant, all projects", F,
    CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  CHECK(*repo.countExpiringBefore(fx.now() + 24h) == 0);
  REQUIRE(repo.create(makeCert(fx, "p1", "gone.example.com", CertificateStatus::active, -1h)).ok());
  REQUIRE(repo.create(makeCert(fx, "p1", "soon.example.com", CertificateStatus::active, 2h)).ok());
  REQUIRE(repo.create(makeCert(fx, "p2", "week.example.com", CertificateStatus::renewal_failed,
                               5 * 24h))
              .ok());
  REQUIRE(repo.create(makeCert(fx, "p2", "later.example.com", CertificateStatus::active, 60 * 24h))
              .ok());
  REQUIRE(repo.create(makeCert(fx, "p3", "new.example.com", CertificateStatus::issuing)).ok());
  const auto at = [&](Duration d) { return *repo.countExpiringBefore(fx.now() + d); };
  CHECK(at(0h) == 1);  // the expired one
  CHECK(at(24h) == 2);
  CHECK(at(7 * 24h) == 3);
  CHECK(at(30 * 24h) == 3);
  CHECK(at(90 * 24h) == 4);  // never the one without an expiry
  CHECK(at(2h) == 1);        // strictly before
}

TEST_CASE_TEMPLATE("certificate repository: the generation moves with every write of its project",
                   F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->certificates();
  CHECK(*repo.generation("p1") == 0);
  Certificate c = makeCert(fx, "p1", "gen.example.com");
  {
    auto created = repo.create(c);
    REQUIRE_MESSAGE(created.ok(), (created.ok() ? "" : created.error().message));
  }
  const auto afterCreate = *repo.generation("p1");
  CHECK(afterCreate != 0);
  CHECK(*repo.generation("p1") == afterCreate);  // reading does not move it
  CHECK(*repo.generation("p2") == 0);            // other projects are untouched

  c = *repo.get("p1", c.id);
  c.last_error = "changed";
  auto updated = repo.update(c);
  REQUIRE(updated.ok());
  const auto afterUpdate = *repo.generation("p1");
  CHECK(afterUpdate != afterCreate);

  // A lost compare-and-set writes nothing and moves nothing.
  CHECK(repo.update(c).error().code == ErrorCode::conflict);
  CHECK(*repo.generation("p1") == afterUpdate);

  Certificate other = makeCert(fx, "p2", "other.example.com");
  REQUIRE(repo.create(other).ok());
  CHECK(*repo.generation("p1") == afterUpdate);
  CHECK(*repo.generation("p2") != 0);

  REQUIRE(repo.remove("p1", c.id).ok());
  const auto afterRemove = *repo.generation("p1");
  CHECK(afterRemove != afterUpdate);
  CHECK(afterRemove != afterCreate);
  CHECK(repo.remove("p1", c.id).error().code == ErrorCode::not_found);
  CHECK(*repo.generation("p1") == afterRemove);
}
