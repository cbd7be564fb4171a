// ProjectService in process: names follow the one rule, members are managed by project admins,
// and a project is deleted only when it holds nothing — its memberships go with it and it is
// then 404 for everyone.
#include <doctest/doctest.h>

#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

TEST_CASE("projects: created by org admins with valid names, listed to their members only") {
  testing::ServiceFixture fx;
  auto created = fx.projects.create(fx.owner(), fx.ctx(), "web", "the web servers");
  REQUIRE(created.ok());
  CHECK(fx.audited("project.create").size() == 1);
  for (const char* bad : {"", "a\nb", "bidi\u202ename"}) {
    CAPTURE(bad);
    CHECK(fx.projects.create(fx.owner(), fx.ctx(), bad, "").error().code ==
          ErrorCode::invalid_argument);
  }
  const auto member = fx.member(created->id, ProjectRole::viewer);
  CHECK(fx.projects.create(member, fx.ctx(), "mine", "").error().code ==
        ErrorCode::permission_denied);
  auto other = fx.projects.create(fx.owner(), fx.ctx(), "other", "");
  REQUIRE(other.ok());
  auto listed = fx.projects.list(member, {1, 20});
  REQUIRE(listed.ok());
  REQUIRE(listed->items.size() == 1);
  CHECK(listed->items[0].id == created->id);
  CHECK(fx.projects.get(member, other->id).error().code == ErrorCode::not_found);
}

TEST_CASE("projects: members are managed by project admins") {
  testing::ServiceFixture fx;
  auto project = fx.projects.create(fx.owner(), fx.ctx(), "web", "");
  REQUIRE(project.ok());
  const auto admin = fx.member(project->id, ProjectRole::admin);
  const auto operatorUser = fx.member(project->id, ProjectRole::operator_);
  User newcomer;
  newcomer.id = fx.ids.next();
  newcomer.username = "newcomer";
  REQUIRE(fx.store.users().create(newcomer).ok());
  CHECK(fx.projects.putMember(operatorUser, fx.ctx(), project->id, newcomer.id, ProjectRole::viewer)
            .error()
            .code == ErrorCode::permission_denied);
  CHECK(fx.projects.putMember(admin, fx.ctx(), project->id, newcomer.id, ProjectRole::operator_)
            .ok());
  CHECK(fx.store.memberships().get(project->id, newcomer.id)->role == ProjectRole::operator_);
  CHECK(fx.projects.removeMember(admin, fx.ctx(), project->id, newcomer.id).ok());
  CHECK_FALSE(fx.store.memberships().get(project->id, newcomer.id).ok());
}

TEST_CASE("projects: a project that holds something cannot be deleted, an empty one goes whole") {
  testing::ServiceFixture fx;
  auto project = fx.projects.create(fx.owner(), fx.ctx(), "web", "");
  REQUIRE(project.ok());
  const auto member = fx.member(project->id, ProjectRole::admin);
  CertificateRequest request;
  request.common_name = "www.example.com";
  const Id zone = fx.servedZone(project->id);
  auto cert = fx.certificates.create(fx.owner(), fx.ctx(), project->id, request);
  REQUIRE(cert.ok());
  // Only the certificate is left holding the project.
  REQUIRE(fx.store.zones().remove(project->id, zone).ok());
  const auto credentials = fx.store.dnsCredentials().list(project->id, PageRequest{1, 10});
  REQUIRE(credentials.ok());
  REQUIRE(credentials->items.size() == 1);
  REQUIRE(fx.store.dnsCredentials().remove(project->id, credentials->items.front().id).ok());
  auto refused = fx.projects.remove(fx.owner(), fx.ctx(), project->id);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().reason == "DEPENDENCY_CONFLICT");
  CHECK(refused.error().references ==
        std::vector<std::string>{"certificate " + cert->certificate.id});
  REQUIRE(fx.certificates.remove(fx.owner(), fx.ctx(), project->id, cert->certificate.id).ok());
  REQUIRE(fx.projects.remove(fx.owner(), fx.ctx(), project->id).ok());
  CHECK(fx.projects.get(fx.owner(), project->id).error().code == ErrorCode::not_found);
  CHECK_FALSE(fx.store.memberships().get(project->id, member.user.id).ok());
  // A create under the deleted project is refused: nothing is written there any more.
  CHECK(fx.certificates.create(fx.owner(), fx.ctx(), project->id, request).error().code ==
        ErrorCode::not_found);
}
