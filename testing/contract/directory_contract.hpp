// Contract of Directory on every adapter (and on an embedding team's own directory): people log
// in with their password and come with their groups and a lasting id, every wrong login is the same
// refusal (a pattern or filter syntax in the username is a name that matches nobody), the
// connection test passes every step, and an unreachable directory is unavailable — not a refusal.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_DIRECTORY_HARNESSES as the list of harnesses to run it against. A harness is
// default-constructible and provides:
//   bool available(); std::string reason();      // its servers run here, or why not
//   ports::Directory& directory();
//   ports::DirectoryAccess access();             // settings that reach it, groups read
//   std::string admins(), operators();           // the two group DNs
//   void stop();                                 // makes the directory unreachable
// and holds alice (in admins), bob (operators), carol (both), dave (none), each with the
// password "<name> password".
#pragma once

#ifndef CERTSTEWARD_DIRECTORY_HARNESSES
#error "define CERTSTEWARD_DIRECTORY_HARNESSES (the directory harnesses) before including the suite"
#endif

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <certsteward/ports/directory.hpp>

TEST_CASE_TEMPLATE("directory: people log in with their password and come with their groups", H,
                   CERTSTEWARD_DIRECTORY_HARNESSES) {
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const struct {
    const char* user;
    std::vector<std::string> groups;
  } rows[] = {
      {"alice", {h.admins()}},
      {"bob", {h.operators()}},
      {"carol", {h.admins(), h.operators()}},
      {"dave", {}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.user);
    auto user =
        h.directory().authenticate(h.access(), row.user, std::string(row.user) + " password");
    REQUIRE_MESSAGE(user.ok(), user.error().message);
    CHECK(user->username == row.user);
    CHECK_FALSE(user->id.empty());
    CHECK(user->id != row.user);  // a lasting identity, not the name
    CHECK(user->distinguished_name.find(row.user) != std::string::npos);
    CHECK(user->email == std::string(row.user) + "@example.test");
    auto groups = user->groups;
    auto expected = row.groups;
    std::sort(groups.begin(), groups.end());
    std::sort(expected.begin(), expected.end());
    CHECK(groups == expected);
  }
}

TEST_CASE_TEMPLATE("directory: a lookup finds the entry and its groups without a password", H,
                   CERTSTEWARD_DIRECTORY_HARNESSES) {
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  auto carol = h.directory().lookup(h.access(), "carol");
  REQUIRE_MESSAGE(carol.ok(), carol.error().message);
  auto logged = h.directory().authenticate(h.access(), "carol", "carol password");
  REQUIRE(logged.ok());
  CHECK(carol->id == logged->id);
  CHECK(carol->username == "carol");
  CHECK(carol->groups.size() == 2);
  for (const char* nobody : {"nobody", "*", "*)(uid=*", ""}) {
    CAPTURE(nobody);
    CHECK(h.directory().lookup(h.access(), nobody).error().code ==
          certsteward::domain::ErrorCode::not_found);
  }
  h.stop();
  CHECK(h.directory().lookup(h.access(), "carol").error().code ==
        certsteward::domain::ErrorCode::unavailable);
}

TEST_CASE_TEMPLATE("directory: every wrong login is the same refusal", H,
                   CERTSTEWARD_DIRECTORY_HARNESSES) {
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const struct {
    const char* user;
    const char* password;
  } rows[] = {
      {"alice", "wrong"},
      {"nobody", "nobody password"},
      {"alice", ""},  // an empty password would be an unauthenticated bind
      {"*", "alice password"},
      {"*)(uid=*", "alice password"},
      {"alice)(|(uid=*", "alice password"},
      {"", "x"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.user);
    CAPTURE(row.password);
    auto refused = h.directory().authenticate(h.access(), row.user, row.password);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == certsteward::domain::ErrorCode::unauthenticated);
    CHECK(refused.error().message == "invalid username or password");
  }
}

TEST_CASE_TEMPLATE("directory: the connection test passes each step, then fails when down", H,
                   CERTSTEWARD_DIRECTORY_HARNESSES) {
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto steps = h.directory().test(h.access());
  REQUIRE(steps.size() >= 3);
  CHECK(steps.front().step == "connect");
  CHECK(steps.back().step == "search");
  for (const auto& step : steps) {
    CAPTURE(step.step);
    CHECK_MESSAGE(step.ok, step.message);
    CHECK_FALSE(step.message.empty());
  }
  h.stop();
  auto down = h.directory().authenticate(h.access(), "alice", "alice password");
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().code == certsteward::domain::ErrorCode::unavailable);
  CHECK(down.error().reason == "DIRECTORY_UNREACHABLE");
  const auto failed = h.directory().test(h.access());
  REQUIRE_FALSE(failed.empty());
  CHECK(failed.back().step == "connect");
  CHECK_FALSE(failed.back().ok);
}
