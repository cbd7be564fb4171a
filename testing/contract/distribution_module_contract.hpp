// Contract of DistributionModule on every adapter (and on an embedding team's own module): a
// dry-run changes nothing a client of the target can see, deliver makes the target serve the
// version (and again is harmless), restore with the earlier version serves it again, check
// answers without changing anything, an unreachable target fails with its code, and a target
// never delivered to has nothing to restore.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_DISTRIBUTION_HARNESSES as the list of harnesses to run it against. A harness is
// default-constructible and provides:
//   bool available(); std::string reason();            // its servers run here, or why not
//   ports::DistributionModule& module();
//   ports::TargetAccess target();       // reachable, serving first() now (a module that
//                                       // rolls back with the version it is given: or nothing)
//   ports::TargetAccess pristine();     // reachable, never delivered to
//   ports::TargetAccess unreachable();  std::string unreachableCode();
//   domain::CertificateVersion first(), second();
//   bool serves(const domain::CertificateVersion&);     // as a client of the target sees it
#pragma once

#ifndef CERTSTEWARD_DISTRIBUTION_HARNESSES
#error "define CERTSTEWARD_DISTRIBUTION_HARNESSES (the module harnesses) before including the suite"
#endif

#include <doctest/doctest.h>

#include <certsteward/ports/distribution_module.hpp>

TEST_CASE_TEMPLATE("distribution module: deliver, deliver again, restore the earlier version", H,
                   CERTSTEWARD_DISTRIBUTION_HARNESSES) {
  H h;
  if (!h.available()) {
    MESSAGE("skipped: " << h.reason());
    return;
  }
  const auto first = h.first();
  const auto second = h.second();
  const bool servedFirst = h.serves(first);
  const auto plan = h.module().plan(h.target(), second);
  REQUIRE_MESSAGE(plan.ok, plan.error_code << ": " << plan.error);
  CHECK_FALSE(plan.changes.empty());
  CHECK(h.serves(first) == servedFirst);
  CHECK_FALSE(h.serves(second));

  auto delivered = h.module().deliver(h.target(), second);
  REQUIRE_MESSAGE(delivered.ok, delivered.error_code << ": " << delivered.error);
  CHECK(h.serves(second));
  delivered = h.module().deliver(h.target(), second);
  REQUIRE_MESSAGE(delivered.ok, delivered.error_code << ": " << delivered.error);
  CHECK(h.serves(second));

  if (h.module().supportsRollback()) {
    const auto restored = h.module().restore(h.target(), &first);
    REQUIRE_MESSAGE(restored.ok, restored.error_code << ": " << restored.error);
    CHECK(h.serves(first));
  }
  CHECK(h.module().check(h.target()).ok);
}

TEST_CASE_TEMPLATE(
    "distribution module: unreachable targets fail with their code, untouched ones have nothing to "
    "restore",
    H, CERTSTEWARD_DISTRIBUTION_HARNESSES) {
  H h;
  if (!h.available()) {
    MESSAGE("skipped: " << h.reason());
    return;
  }
  const auto checked = h.module().check(h.unreachable());
  CHECK_FALSE(checked.ok);
  CHECK(checked.error_code == h.unreachableCode());
  const auto refused = h.module().deliver(h.unreachable(), h.second());
  CHECK_FALSE(refused.ok);
  CHECK(refused.error_code == h.unreachableCode());
  CHECK_FALSE(refused.error.empty());
  if (h.module().supportsRollback()) {
    const auto nothing = h.module().restore(h.pristine(), nullptr);
    CHECK_FALSE(nothing.ok);
    CHECK(nothing.error_code == "NOTHING_TO_RESTORE");
  }
}
