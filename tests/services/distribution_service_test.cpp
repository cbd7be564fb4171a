// DistributionService in process: a distribution joins a certificate of the project to a module
// configuration of the project (anything else is refused and nothing stored), needs a project
// operator, is audited, and is invisible from another project.
#include <doctest/doctest.h>

#include <certsteward/services/distribution_service.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct DistributionFixture : testing::ServiceFixture {
  DistributionService distributions{
      {store.distributions(), store.certificates(), store.moduleConfigs(), ids, clock},
      work,
      access,
      audit};
  Id certificateId;
  Id moduleId;
  DistributionFixture() {
    project("p1");
    project("p2");
    servedZone("p1");
    CertificateRequest request;
    request.common_name = "www.example.com";
    auto created = certificates.create(owner(), ctx(), "p1", request);
    REQUIRE(created.ok());
    certificateId = created->certificate.id;
    moduleId = module("p1");
  }
  Id module(const Id& projectId) {
    ModuleConfig m;
    m.id = ids.next();
    m.project_id = projectId;
    m.name = "web";
    m.module = "ssh";
    REQUIRE(store.moduleConfigs().create(m).ok());
    return m.id;
  }
  std::int64_t stored() { return store.distributions().list("p1", {1, 10})->total; }
};

}  // namespace

TEST_CASE("distributions: a certificate and a module of the project, by an operator, audited") {
  DistributionFixture fx;
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  CHECK(
      fx.distributions.create(viewer, fx.ctx(), "p1", fx.certificateId, fx.moduleId).error().code ==
      ErrorCode::permission_denied);
  const auto operatorUser = fx.member("p1", ProjectRole::operator_);
  auto created =
      fx.distributions.create(operatorUser, fx.ctx(), "p1", fx.certificateId, fx.moduleId);
  REQUIRE(created.ok());
  CHECK(fx.audited("distribution.create").size() == 1);
  auto listed = fx.distributions.forCertificate(viewer, "p1", fx.certificateId);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK((*listed)[0].module_config_id == fx.moduleId);
  REQUIRE(
      fx.distributions.remove(operatorUser, fx.ctx(), "p1", fx.certificateId, created->id).ok());
  CHECK(fx.stored() == 0);
}

TEST_CASE("distributions: another project's module or an unknown certificate is refused") {
  DistributionFixture fx;
  const Id foreignModule = fx.module("p2");
  auto foreign =
      fx.distributions.create(fx.owner(), fx.ctx(), "p1", fx.certificateId, foreignModule);
  REQUIRE_FALSE(foreign.ok());
  CHECK(foreign.error().code == ErrorCode::invalid_argument);
  CHECK(fx.distributions.create(fx.owner(), fx.ctx(), "p1", "0123456789abcdef0123ffff", fx.moduleId)
            .error()
            .code == ErrorCode::not_found);
  CHECK(fx.stored() == 0);
  const auto outsider = fx.member("p2", ProjectRole::admin);
  CHECK(fx.distributions.list(outsider, "p1", {1, 10}).error().code == ErrorCode::not_found);
}

TEST_CASE("distributions: lists name the certificate and the module, and say nothing of the gone") {
  DistributionFixture fx;
  auto created = fx.distributions.create(fx.owner(), fx.ctx(), "p1", fx.certificateId, fx.moduleId);
  REQUIRE(created.ok());
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  auto page = fx.distributions.list(viewer, "p1", {1, 10});
  REQUIRE(page.ok());
  REQUIRE(page->items.size() == 1);
  CHECK(page->items[0].certificate_name == "www.example.com");
  CHECK(page->items[0].module_name == "web");
  auto forCertificate = fx.distributions.forCertificate(viewer, "p1", fx.certificateId);
  REQUIRE(forCertificate.ok());
  CHECK((*forCertificate)[0].module_name == "web");
  // The module configuration gone from under it (as a store holding older data may have it).
  REQUIRE(fx.store.moduleConfigs().remove("p1", fx.moduleId).ok());
  page = fx.distributions.list(viewer, "p1", {1, 10});
  REQUIRE(page.ok());
  CHECK(page->items[0].module_name.empty());
  CHECK(page->items[0].certificate_name == "www.example.com");
}
