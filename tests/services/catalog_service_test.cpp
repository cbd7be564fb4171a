// CatalogService in process: the event kinds it lists are exactly the model's, each with a
// summary, for every member and no one else.
#include <doctest/doctest.h>

#include <set>

#include <certsteward/services/catalog_service.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

TEST_CASE("catalog: every event kind of the model, in its order, each with a summary") {
  testing::ServiceFixture fx;
  CatalogService catalog(fx.access);
  User viewer;
  viewer.id = "viewer-1";
  viewer.username = "viewer";
  viewer.org_role = OrgRole::viewer;
  const auto described = catalog.describe(Principal{viewer, "s"});
  REQUIRE(described.ok());
  REQUIRE(described->event_kinds.size() == std::size(kEventKinds));
  std::set<std::string> summaries;
  for (std::size_t i = 0; i < std::size(kEventKinds); ++i) {
    const auto& entry = described->event_kinds[i];
    CAPTURE(nameOf(entry.kind));
    CHECK(entry.kind == kEventKinds[i]);
    CHECK(entry.summary.size() > 20);
    CHECK(entry.failure == isFailure(entry.kind));
    summaries.insert(entry.summary);
  }
  CHECK(summaries.size() == std::size(kEventKinds));  // none copied from another

  viewer.disabled = true;  // a disabled account reads nothing: its identity no longer counts
  CHECK(catalog.describe(Principal{viewer, "s"}).error().code == ErrorCode::unauthenticated);
}
