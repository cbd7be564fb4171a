// Shared by the API end-to-end suites: one packaged server per test process (started on first
// use), and helpers to log in, make users and projects, and read JSON.
#pragma once

#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/adapters/crypto/openssl_otp_hasher.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>
#include <certsteward/services/totp_codes.hpp>
#include "e2e/http_client.hpp"
#include "e2e/server_process.hpp"
#include "support/ed25519_keys.hpp"
#include "support/test_certificates.hpp"
#include "support/test_licenses.hpp"

#include <fstream>

namespace certsteward::testing::api {

using namespace certsteward::testing;
using certsteward::testing::TestMaterial;
namespace json = boost::json;

inline constexpr const char* kOwner = "root";
inline constexpr const char* kOwnerPassword = "correct horse battery";

inline ServerProcess& server() {
  static ServerProcess instance(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}});
  return instance;
}

inline json::object parse(const HttpResult& r) {
  boost::system::error_code ec;
  auto v = json::parse(r.body, ec);
  REQUIRE_MESSAGE(!ec, "not JSON: " << r.body);
  REQUIRE(v.is_object());
  return v.as_object();
}

inline std::string str(const json::object& o, const char* key) {
  REQUIRE(o.contains(key));
  return std::string(o.at(key).as_string());
}

inline int unique() {
  static int n = 0;
  return ++n;
}

struct Session {
  std::string access;
  std::string refresh;
  std::string csrf;
  std::string userId;
  std::vector<std::string> cookies;  // raw Set-Cookie lines
};

// Each login comes from its own address (X-Forwarded-For from the trusted loopback), so the
// per-IP login limit does not interfere with tests that are not about it.
inline std::string freshClientAddress() {
  const int n = unique();
  return "X-Forwarded-For: 10.77." + std::to_string(n / 250) + "." + std::to_string(n % 250 + 1);
}

inline Session login(HttpClient& http, const std::string& user, const std::string& password) {
  auto r = http.request("POST", "/api/v1/auth/login",
                        json::serialize(json::object{{"username", user}, {"password", password}}),
                        {freshClientAddress()});
  REQUIRE_MESSAGE(r.status == 200, r.body);
  auto body = parse(r);
  return Session{str(body, "access_token"), str(body, "refresh_token"), str(body, "csrf_token"),
                 std::string(body.at("user").as_object().at("id").as_string()),
                 r.all("set-cookie")};
}

// The owner logs in once per process (5 logins per username per minute).
inline const Session& ownerSession(HttpClient& http) {
  static const Session owner = login(http, kOwner, kOwnerPassword);
  return owner;
}

inline std::string bearer(const Session& s) {
  return "Authorization: Bearer " + s.access;
}

// Creates a user as the owner and logs in as them.
inline Session userWithRole(HttpClient& http, const Session& owner, const std::string& role) {
  const std::string name = "user" + std::to_string(unique()) + "-" + role;
  auto r =
      http.request("POST", "/api/v1/users",
                   json::serialize(json::object{
                       {"username", name}, {"password", "password-" + name}, {"org_role", role}}),
                   {bearer(owner)});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return login(http, name, "password-" + name);
}

inline std::string createProject(HttpClient& http, const Session& s) {
  auto r = http.request(
      "POST", "/api/v1/projects",
      json::serialize(json::object{{"name", "project " + std::to_string(unique())}}), {bearer(s)});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return str(parse(r).at("project").as_object(), "id");
}

// A DNS credential and the zone `domain` in `project`: certificates for names below it can be
// created (a name no zone covers is refused with 422).
inline std::string serveZone(HttpClient& http, const Session& s, const std::string& project,
                             const std::string& domain = "example.com") {
  const std::string base = "/api/v1/projects/" + project;
  auto cred = http.request(
      "POST", base + "/dns-credentials",
      json::serialize(json::object{
          {"name", "dns for " + domain},
          {"provider", "rfc2136"},
          {"settings", json::object{{"server", "127.0.0.1:53"}, {"key_name", "certsteward"}}},
          {"secret", "c2VjcmV0LWJ5dGVz"}}),
      {bearer(s)});
  REQUIRE_MESSAGE(cred.status == 201, cred.body);
  auto zone = http.request(
      "POST", base + "/zones",
      json::serialize(json::object{
          {"domain", domain},
          {"dns_credential_id", str(parse(cred).at("dns_credential").as_object(), "id")}}),
      {bearer(s)});
  REQUIRE_MESSAGE(zone.status == 201, zone.body);
  return str(parse(zone).at("zone").as_object(), "id");
}

// What the issuance engine will store, written straight into a server's SQLite file (another
// process on the same file, as a second instance would be): a certificate, and with `material`
// its leaf, chain, sealed key (the server's secrets.key) and status active. Planted
// certificates count against the licence cap, so suites that plant use their own server.
inline std::string plantCertificate(const ServerProcess& target, const std::string& project,
                                    const std::string& name, const TestMaterial* material) {
  auto store = certsteward::adapters::sqlite::SqliteStore::open({target.databasePath().string()});
  REQUIRE(store.ok());
  static certsteward::adapters::crypto::SystemClock clock;
  static certsteward::adapters::crypto::ObjectIdGenerator ids(clock);
  certsteward::domain::Certificate cert;
  cert.id = ids.next();
  cert.project_id = project;
  cert.common_name = name;
  cert.sans = {name};
  cert.created_at = cert.updated_at = clock.now();
  if (material != nullptr) {
    certsteward::adapters::crypto::AesGcmSecretBox box(kE2eSecretsKey);
    cert.certificate_pem = material->certificate_pem;
    cert.chain_pem = material->chain_pem;
    cert.private_key_sealed = *box.seal(material->private_key_pem);
    cert.status = certsteward::domain::CertificateStatus::active;
  }
  REQUIRE((*store)->certificates().create(cert).ok());
  return cert.id;
}

// A pending job of `type` for the certificate, enqueued straight into the server's file.
inline std::string plantJob(const ServerProcess& target, const std::string& project,
                            const std::string& certificateId) {
  auto store = certsteward::adapters::sqlite::SqliteStore::open({target.databasePath().string()});
  REQUIRE(store.ok());
  static certsteward::adapters::crypto::SystemClock clock;
  static certsteward::adapters::crypto::ObjectIdGenerator ids(clock);
  auto job = certsteward::domain::newJob(
      ids.next(), project, certsteward::domain::JobType::issue_certificate, clock.now());
  job.certificate_id = certificateId;
  auto queued = (*store)->jobs().enqueue(job);
  REQUIRE(queued.ok());
  return queued->job.id;
}

}  // namespace certsteward::testing::api
