// End to end over real HTTP: projects, users, certificates, jobs and configuration resources.
#include "e2e/api_support.hpp"
#include "support/free_port.hpp"

using namespace certsteward::testing::api;

TEST_CASE("api: projects are created, read, renamed and deleted, and others' projects are 404") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string id = createProject(http, owner);
  auto got = http.request("GET", "/api/v1/projects/" + id, "", {bearer(owner)});
  REQUIRE(got.status == 200);
  CHECK(str(parse(got).at("project").as_object(), "id") == id);

  const auto viewer = userWithRole(http, owner, "viewer");
  CHECK(http.request("GET", "/api/v1/projects/" + id, "", {bearer(viewer)}).status == 404);
  auto list = parse(http.request("GET", "/api/v1/projects", "", {bearer(viewer)}));
  CHECK(list.at("total").as_int64() == 0);
  CHECK(
      http.request("PATCH", "/api/v1/projects/" + id, R"({"name":"x"})", {bearer(viewer)}).status ==
      404);

  auto add = http.request("PUT", "/api/v1/projects/" + id + "/members/" + viewer.userId,
                          R"({"role":"viewer"})", {bearer(owner)});
  REQUIRE_MESSAGE(add.status == 200, add.body);
  CHECK(http.request("GET", "/api/v1/projects/" + id, "", {bearer(viewer)}).status == 200);
  auto denied =
      http.request("PATCH", "/api/v1/projects/" + id, R"({"name":"renamed"})", {bearer(viewer)});
  CHECK(denied.status == 403);
  CHECK(parse(denied).size() == 1);  // 403 carries only "error"
  CHECK(parse(http.request("GET", "/api/v1/projects/" + id + "/members", "", {bearer(viewer)}))
            .at("total")
            .as_int64() == 1);

  auto renamed = http.request("PATCH", "/api/v1/projects/" + id,
                              R"({"name":"renamed )" + id + R"("})", {bearer(owner)});
  CHECK(renamed.status == 200);
  CHECK(http.request("PUT", "/api/v1/projects/" + id + "/members/" + viewer.userId,
                     R"({"role":"owner"})", {bearer(owner)})
            .status == 400);  // not a project role
  CHECK(http.request("DELETE", "/api/v1/projects/" + id, "", {bearer(viewer)}).status == 403);
  CHECK(http.request("DELETE", "/api/v1/projects/" + id, "", {bearer(owner)}).status == 204);
  CHECK(http.request("GET", "/api/v1/projects/" + id, "", {bearer(owner)}).status == 404);
  CHECK(http.request("POST", "/api/v1/projects", R"({"name":"nope"})", {bearer(viewer)}).status ==
        403);
}

TEST_CASE("api: users are managed by admins, and password changes and disabling cut sessions") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string name = "alice" + std::to_string(unique());
  auto created = http.request(
      "POST", "/api/v1/users",
      json::serialize(json::object{
          {"username", name}, {"password", "alice-password"}, {"org_role", "operator"}}),
      {bearer(owner)});
  REQUIRE(created.status == 201);
  const auto user = parse(created).at("user").as_object();
  const std::string id = str(user, "id");
  CHECK(str(user, "org_role") == "operator");
  CHECK(str(user, "auth_source") == "local");
  CHECK(created.body.find("password") == std::string::npos);
  CHECK(http.request("POST", "/api/v1/users",
                     json::serialize(json::object{{"username", name}, {"password", "another-one"}}),
                     {bearer(owner)})
            .status == 409);
  CHECK(http.request("POST", "/api/v1/users", R"({"username":"shorty","password":"short"})",
                     {bearer(owner)})
            .status == 422);
  CHECK(http.request("POST", "/api/v1/users",
                     R"({"username":"rooty","password":"long-enough","org_role":"root"})",
                     {bearer(owner)})
            .status == 400);

  const auto alice = login(http, name, "alice-password");
  CHECK(http.request("GET", "/api/v1/users", "", {bearer(alice)}).status == 403);
  auto changed = http.request("PATCH", "/api/v1/users/" + id,
                              R"({"password":"new-alice-password"})", {bearer(owner)});
  CHECK(changed.status == 200);
  CHECK(http.request("POST", "/api/v1/auth/refresh",
                     json::serialize(json::object{{"refresh_token", alice.refresh}}))
            .status == 401);
  CHECK(http.request(
                "POST", "/api/v1/auth/login",
                json::serialize(json::object{{"username", name}, {"password", "alice-password"}}))
            .status == 401);
  const auto again = login(http, name, "new-alice-password");
  CHECK(http.request("PATCH", "/api/v1/users/" + id, R"({"disabled":true})", {bearer(owner)})
            .status == 200);
  CHECK(http.request("GET", "/api/v1/auth/me", "", {bearer(again)}).status == 401);
  CHECK(http.request("PATCH", "/api/v1/users/" + owner.userId, R"({"disabled":true})",
                     {bearer(owner)})
            .status == 409);  // nobody disables themselves
  CHECK(http.request("PATCH", "/api/v1/users/" + id, R"({"disabled":"yes"})", {bearer(owner)})
            .status == 400);
}

TEST_CASE("api: certificates are queued for issuance, listed, capped by the licence and deleted") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string project = createProject(http, owner);
  const std::string other = createProject(http, owner);
  const std::string base = "/api/v1/projects/" + project;
  // A name no zone of the project covers is refused, named, before anything is stored.
  auto unserved = http.request("POST", base + "/certificates",
                               R"({"common_name":"www.example.com"})", {bearer(owner)});
  CHECK(unserved.status == 422);
  CHECK(unserved.body.find("www.example.com") != std::string::npos);
  CHECK(parse(http.request("GET", base + "/certificates", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 0);
  serveZone(http, owner, project);
  serveZone(http, owner, other);

  auto created = http.request(
      "POST", base + "/certificates",
      R"({"common_name":"www.example.com","sans":["api.example.com"],"key_type":"ecdsa_p384"})",
      {bearer(owner)});
  REQUIRE_MESSAGE(created.status == 202, created.body);
  const auto body = parse(created);
  const auto cert = body.at("certificate").as_object();
  const std::string certId = str(cert, "id");
  CHECK(str(cert, "status") == "issuing");
  CHECK(str(cert, "key_type") == "ecdsa_p384");
  CHECK(str(cert, "issuer_type") == "acme");
  CHECK(cert.at("sans").as_array().size() == 2);
  CHECK(cert.at("auto_renew").as_bool());
  CHECK(cert.at("renewal_threshold_days").as_int64() == 30);
  CHECK(cert.at("expires_at").is_null());
  CHECK(created.body.find("private_key") == std::string::npos);
  const auto job = body.at("job").as_object();
  CHECK(str(job, "type") == "issue_certificate");
  CHECK(str(job, "status") == "pending");
  CHECK(str(job, "certificate_id") == certId);
  const std::string jobId = str(job, "id");

  CHECK(http.request("POST", base + "/certificates", R"({"common_name":"Not A Name"})",
                     {bearer(owner)})
            .status == 422);
  CHECK(http.request("POST", base + "/certificates",
                     R"({"common_name":"a.example.com","key_type":"dsa"})", {bearer(owner)})
            .status == 400);
  CHECK(http.request("POST", base + "/certificates",
                     R"({"common_name":"a.example.com","renewal_threshold_days":0})",
                     {bearer(owner)})
            .status == 422);
  auto capped = http.request("POST", "/api/v1/projects/" + other + "/certificates",
                             R"({"common_name":"second.example.com"})", {bearer(owner)});
  CHECK(capped.status == 409);  // the free plan's cap of 1, across projects
  CHECK(parse(capped).at("error").as_string().find("licence") != std::string::npos);

  auto got = http.request("GET", base + "/certificates/" + certId, "", {bearer(owner)});
  REQUIRE(got.status == 200);
  CHECK(str(parse(got).at("certificate").as_object(), "id") == certId);
  // Where each name's challenge goes: the project's zone (whatever the machine's resolvers say,
  // nothing delegates these names elsewhere).
  auto plan = http.request("GET", base + "/certificates/" + certId + "/challenge-plan", "",
                           {bearer(owner)});
  REQUIRE_MESSAGE(plan.status == 200, plan.body);
  const auto items = parse(plan).at("items").as_array();
  REQUIRE(items.size() == 2);
  for (const auto& item : items) {
    const auto& o = item.as_object();
    CHECK(str(o, "challenge") == "dns-01");
    CHECK(str(o, "zone") == "example.com");
    CHECK(o.at("delegated_via").as_array().empty());
    CHECK(o.at("problem").is_null());
    CHECK(str(o, "record_name") == "_acme-challenge." + str(o, "name"));
  }
  CHECK(http.request("GET",
                     "/api/v1/projects/" + other + "/certificates/" + certId + "/challenge-plan",
                     "", {bearer(owner)})
            .status == 404);
  CHECK(http.request("GET", "/api/v1/projects/" + other + "/certificates/" + certId, "",
                     {bearer(owner)})
            .status == 404);
  auto listed = parse(
      http.request("GET", base + "/certificates?status=issuing,active&sort=expires_at&order=asc",
                   "", {bearer(owner)}));
  CHECK(listed.at("total").as_int64() == 1);
  CHECK(parse(http.request("GET", base + "/certificates?status=active", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 0);
  CHECK(http.request("GET", base + "/certificates?status=bogus", "", {bearer(owner)}).status ==
        400);
  CHECK(http.request("GET", base + "/certificates?sort=bogus", "", {bearer(owner)}).status == 400);
  CHECK(http.request("GET", base + "/certificates?order=up", "", {bearer(owner)}).status == 400);
  CHECK(http.request("GET", base + "/certificates?expiring_within_days=-1", "", {bearer(owner)})
            .status == 400);
  CHECK(http.request("POST", base + "/certificates/" + certId + "/renew", "", {bearer(owner)})
            .status == 409);

  // Search by a piece of the common name: plain text, case-insensitive, DNS-name characters.
  const auto searched = [&](const std::string& q) {
    auto r = http.request("GET", base + "/certificates?search=" + q, "", {bearer(owner)});
    REQUIRE_MESSAGE(r.status == 200, q << " " << r.body);
    return parse(r).at("total").as_int64();
  };
  CHECK(searched("www.exa") == 1);
  CHECK(searched("WWW.EXAMPLE") == 1);  // the answer cached for "www.exa" is not reused either
  CHECK(searched("ww.example.co") == 1);
  CHECK(searched("api.example.com") == 1);  // any other name (SAN) too
  CHECK(searched("w.w") == 0);              // '.' is a dot
  for (const std::string& bad :
       std::vector<std::string>{"a%20b", "%00", "a/b", "%C3%BC", "(", std::string(254, 'a')}) {
    auto refused = http.request("GET", base + "/certificates?search=" + bad, "", {bearer(owner)});
    CHECK_MESSAGE(refused.status == 400, bad);
  }

  // The filtered list as CSV, by Accept or format=csv: every match, a header line, CRLF.
  {
    auto csv = http.request("GET", base + "/certificates?search=api.example&page_size=1&page=3", "",
                            {bearer(owner), "Accept: text/csv"});
    REQUIRE_MESSAGE(csv.status == 200, csv.body);
    CHECK(csv.header("content-type").rfind("text/csv", 0) == 0);
    CHECK(csv.header("x-total-count") == "1");
    CHECK(csv.header("x-truncated").empty());
    CHECK(csv.header("content-disposition").find("certificates.csv") != std::string::npos);
    CHECK(csv.body.rfind("id,common_name,sans,status,days_left,expires_at,", 0) == 0);
    const auto row = csv.body.substr(csv.body.find("\r\n") + 2);
    // Not issued yet: no days left, no expiry.
    CHECK(row.rfind(certId + ",www.example.com,www.example.com api.example.com,issuing,,,", 0) ==
          0);
    CHECK(row.size() > 2);
    CHECK(row.substr(row.size() - 2) == "\r\n");
    CHECK(row.find("\r\n") == row.size() - 2);  // one certificate, one line
    auto byFormat = http.request("GET", base + "/certificates?format=csv", "", {bearer(owner)});
    CHECK(byFormat.status == 200);
    CHECK(byFormat.body == csv.body);
    auto none =
        http.request("GET", base + "/certificates?format=csv&status=active", "", {bearer(owner)});
    CHECK(none.body == csv.body.substr(0, csv.body.find("\r\n") + 2));  // the header alone
    CHECK(none.header("x-total-count") == "0");
    CHECK(http.request("GET", base + "/certificates?format=xml", "", {bearer(owner)}).status ==
          400);
    CHECK(http.request("GET", "/api/v1/projects/" + other + "/certificates?format=csv", "",
                       {bearer(owner)})
              .body.find(certId) == std::string::npos);
  }

  // The dashboard's summary: every status, the expiry windows and the 13 weeks.
  auto summary = http.request("GET", base + "/summary", "", {bearer(owner)});
  REQUIRE_MESSAGE(summary.status == 200, summary.body);
  const auto figures = parse(summary).at("certificates").as_object();
  CHECK(figures.at("total").as_int64() == 1);
  CHECK(figures.at("by_status").as_object().at("issuing").as_int64() == 1);
  CHECK(figures.at("by_status").as_object().size() == 5);
  CHECK(figures.at("expired").as_int64() == 0);
  CHECK(figures.at("expiring_within_days").as_object().at("30").as_int64() == 0);
  CHECK(figures.at("expiring_by_week").as_array().size() == 13);
  CHECK(
      http.request("GET", "/api/v1/projects/0123456789abcdef01234567/summary", "", {bearer(owner)})
          .status == 404);

  // Jobs.
  auto jobs =
      parse(http.request("GET", base + "/jobs?type=issue_certificate", "", {bearer(owner)}));
  CHECK(jobs.at("total").as_int64() == 1);
  CHECK(http.request("GET", base + "/jobs?status=zombie", "", {bearer(owner)}).status == 400);
  auto one = http.request("GET", base + "/jobs/" + jobId, "", {bearer(owner)});
  REQUIRE(one.status == 200);
  CHECK(str(parse(one).at("job").as_object(), "status") == "pending");
  auto logs = parse(http.request("GET", base + "/jobs/" + jobId + "/logs", "", {bearer(owner)}));
  CHECK(logs.contains("logs"));
  CHECK(logs.at("total").as_int64() == 0);
  CHECK(http.request("GET", "/api/v1/projects/" + other + "/jobs/" + jobId, "", {bearer(owner)})
            .status == 404);

  const auto operatorUser = userWithRole(http, owner, "viewer");
  REQUIRE(http.request("PUT", base + "/members/" + operatorUser.userId, R"({"role":"operator"})",
                       {bearer(owner)})
              .status == 200);
  auto cancelled =
      http.request("POST", base + "/jobs/" + jobId + "/cancel", "", {bearer(operatorUser)});
  REQUIRE_MESSAGE(cancelled.status == 200, cancelled.body);
  CHECK(str(parse(cancelled).at("job").as_object(), "status") == "cancelled");
  CHECK(http.request("POST", base + "/jobs/" + jobId + "/cancel", "", {bearer(operatorUser)})
            .status == 409);
  CHECK(
      http.request("POST", base + "/jobs/" + jobId + "/retry", "", {bearer(operatorUser)}).status ==
      403);
  auto retried = http.request("POST", base + "/jobs/" + jobId + "/retry", "", {bearer(owner)});
  REQUIRE(retried.status == 200);
  CHECK(str(parse(retried).at("job").as_object(), "status") == "pending");

  CHECK(
      http.request("DELETE", base + "/certificates/" + certId, "", {bearer(operatorUser)}).status ==
      403);
  auto blocked = http.request("DELETE", "/api/v1/projects/" + project, "", {bearer(owner)});
  CHECK(blocked.status == 409);
  CHECK(str(parse(blocked), "code") == "DEPENDENCY_CONFLICT");
  const auto references = parse(blocked).at("references").as_array();
  CHECK(std::find(references.begin(), references.end(), json::value("certificate " + certId)) !=
        references.end());
  CHECK(http.request("DELETE", base + "/certificates/" + certId, "", {bearer(owner)}).status ==
        204);
  CHECK(http.request("GET", base + "/certificates/" + certId, "", {bearer(owner)}).status == 404);
  // The licence slot is free again.
  CHECK(http.request("POST", "/api/v1/projects/" + other + "/certificates",
                     R"({"common_name":"second.example.com"})", {bearer(owner)})
            .status == 202);
}

TEST_CASE("api: configuration resources with secrets sealed at rest and cross-resource rules") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string project = createProject(http, owner);
  const std::string base = "/api/v1/projects/" + project;
  const std::string tsig = "TSIGSECRET" + std::to_string(unique()) + "c2VjcmV0LWJ5dGVz";

  CHECK(http.request("POST", base + "/dns-credentials", R"({"name":"x","provider":"route66"})",
                     {bearer(owner)})
            .status == 400);
  auto cred = http.request(
      "POST", base + "/dns-credentials",
      json::serialize(json::object{
          {"name", "bind"},
          {"provider", "rfc2136"},
          {"settings", json::object{{"server", "127.0.0.1:53"}, {"key_name", "certsteward"}}},
          {"secret", tsig}}),
      {bearer(owner)});
  REQUIRE_MESSAGE(cred.status == 201, cred.body);
  const auto credential = parse(cred).at("dns_credential").as_object();
  const std::string credId = str(credential, "id");
  CHECK(credential.at("secret_configured").as_bool());
  CHECK(cred.body.find(tsig) == std::string::npos);
  CHECK(parse(http.request("GET", base + "/dns-credentials", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 1);

  CHECK(http.request("POST", base + "/zones",
                     R"({"domain":"example.com","dns_credential_id":"0123456789abcdef01234567"})",
                     {bearer(owner)})
            .status == 422);
  CHECK(http.request("POST", base + "/zones",
                     json::serialize(
                         json::object{{"domain", "Not A Domain"}, {"dns_credential_id", credId}}),
                     {bearer(owner)})
            .status == 422);
  auto zone = http.request(
      "POST", base + "/zones",
      json::serialize(json::object{{"domain", "example.com"}, {"dns_credential_id", credId}}),
      {bearer(owner)});
  REQUIRE_MESSAGE(zone.status == 201, zone.body);
  const std::string zoneId = str(parse(zone).at("zone").as_object(), "id");
  auto inUse = http.request("DELETE", base + "/dns-credentials/" + credId, "", {bearer(owner)});
  CHECK(inUse.status == 409);
  CHECK(str(parse(inUse), "code") == "DEPENDENCY_CONFLICT");
  REQUIRE(http.request("PATCH", base + "/dns-credentials/" + credId, R"({"active":false})",
                       {bearer(owner)})
              .status == 200);
  CHECK(http.request("POST", base + "/zones",
                     json::serialize(
                         json::object{{"domain", "example.org"}, {"dns_credential_id", credId}}),
                     {bearer(owner)})
            .status == 422);  // inactive credential
  CHECK(http.request("DELETE", base + "/zones/" + zoneId, "", {bearer(owner)}).status == 204);
  CHECK(http.request("DELETE", base + "/dns-credentials/" + credId, "", {bearer(owner)}).status ==
        204);

  // acme-dns registrations: malformed requests and settings are refused before anything is sent,
  // and a server that cannot be reached registers nothing.
  const std::string registrations = base + "/dns-credentials/acme-dns-registrations";
  CHECK(http.request("POST", registrations,
                     R"({"name":"a","settings":{"api_url":"https://auth.example.org"},"x":1})",
                     {bearer(owner)})
            .status == 400);
  auto plainHttp = http.request("POST", registrations,
                                R"({"name":"a","settings":{"api_url":"http://auth.example.org"}})",
                                {bearer(owner)});
  CHECK(plainHttp.status == 422);
  CHECK(str(parse(plainHttp), "field") == "settings.api_url");
  CHECK(http.request("POST", registrations,
                     R"({"name":"a","settings":{"api_url":"https://auth.example.org/register"}})",
                     {bearer(owner)})
            .status == 422);
  CHECK(http.request("POST", registrations,
                     R"({"name":"a","settings":{"api_url":"https://auth.example.org",)"
                     R"("username":"c36f50e8-4632-44f0-83fe-e070fef28a10"}})",
                     {bearer(owner)})
            .status == 422);
  const int closed = certsteward::testing::freeLoopbackPort();
  auto unreachable = http.request(
      "POST", registrations,
      R"({"name":"a","settings":{"api_url":"http://127.0.0.1:)" + std::to_string(closed) + "\"}}",
      {bearer(owner)});
  CHECK_MESSAGE((unreachable.status == 503 || unreachable.status == 409), unreachable.body);
  CHECK(parse(http.request("GET", base + "/dns-credentials", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 0);

  CHECK(http.request("POST", base + "/acme-accounts",
                     R"({"name":"le","directory_url":"http://insecure/dir"})", {bearer(owner)})
            .status == 400);
  auto acme = http.request(
      "POST", base + "/acme-accounts",
      R"({"name":"le","directory_url":"https://127.0.0.1:14000/dir","email":"ops@example.com","eab_kid":"kid-1","eab_hmac_key":"EAB-HMAC-SECRET-zzz"})",
      {bearer(owner)});
  REQUIRE(acme.status == 201);
  CHECK(parse(acme).at("acme_account").as_object().at("eab_configured").as_bool());
  CHECK(str(parse(acme).at("acme_account").as_object(), "status") == "pending");
  CHECK(acme.body.find("EAB-HMAC-SECRET") == std::string::npos);

  CHECK(
      http.request("POST", base + "/credentials", R"({"name":"k","kind":"magic"})", {bearer(owner)})
          .status == 400);
  auto sshKey = http.request(
      "POST", base + "/credentials",
      R"({"name":"deploy","kind":"ssh_key","username":"deploy","secret":"-----BEGIN OPENSSH PRIVATE KEY-----SSH-PRIVATE"})",
      {bearer(owner)});
  CHECK(sshKey.status == 201);
  CHECK(sshKey.body.find("SSH-PRIVATE") == std::string::npos);

  auto channel = http.request(
      "POST", base + "/notification-channels",
      R"({"name":"ops","kind":"webhook","settings":{"url":"http://127.0.0.1:9/hook"},"secret":"HOOK-SIGNING-SECRET"})",
      {bearer(owner)});
  REQUIRE(channel.status == 201);
  const std::string channelId = str(parse(channel).at("notification_channel").as_object(), "id");
  // An email channel's recipients as a list (or one comma-separated string).
  auto mail = http.request(
      "POST", base + "/notification-channels",
      R"({"name":"mail","kind":"email","settings":{"host":"127.0.0.1","from":"certs@example.test","to":["a@example.test","b@example.test"]}})",
      {bearer(owner)});
  REQUIRE_MESSAGE(mail.status == 201, mail.body);
  CHECK(str(parse(mail).at("notification_channel").as_object().at("settings").as_object(), "to") ==
        "a@example.test, b@example.test");
  CHECK(
      http.request(
              "POST", base + "/notification-channels",
              R"({"name":"bad","kind":"email","settings":{"host":"127.0.0.1","from":"c@example.test","to":["a@example.test",7]}})",
              {bearer(owner)})
          .status == 400);
  CHECK(
      http.request(
              "POST", base + "/notification-channels",
              R"({"name":"bad","kind":"email","settings":{"host":"127.0.0.1","from":"c@example.test","to":["not an address"]}})",
              {bearer(owner)})
          .status == 422);
  CHECK(http.request("POST", base + "/notification-rules",
                     R"({"name":"r","events":["cert.exploded"]})", {bearer(owner)})
            .status == 400);
  CHECK(
      http.request(
              "POST", base + "/notification-rules",
              R"({"name":"r","events":["job.failed"],"channel_ids":["0123456789abcdef01234567"]})",
              {bearer(owner)})
          .status == 422);
  auto rule = http.request(
      "POST", base + "/notification-rules",
      json::serialize(json::object{{"name", "failures"},
                                   {"events", json::array{"job.failed", "cert.renewal_failed"}},
                                   {"channel_ids", json::array{json::value(channelId)}}}),
      {bearer(owner)});
  REQUIRE_MESSAGE(rule.status == 201, rule.body);
  CHECK(parse(rule).at("notification_rule").as_object().at("events").as_array().size() == 2);

  const auto viewer = userWithRole(http, owner, "viewer");
  CHECK(http.request("GET", base + "/credentials", "", {bearer(viewer)}).status == 404);
  REQUIRE(http.request("PUT", base + "/members/" + viewer.userId, R"({"role":"viewer"})",
                       {bearer(owner)})
              .status == 200);
  CHECK(http.request("GET", base + "/credentials", "", {bearer(viewer)}).status == 200);
  CHECK(http.request("POST", base + "/credentials", R"({"name":"x","kind":"token"})",
                     {bearer(viewer)})
            .status == 403);

  // Secrets are sealed at rest: none of the plaintexts is in the database file.
  std::ifstream db(server().databasePath(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(db)), std::istreambuf_iterator<char>());
  std::ifstream wal(server().databasePath().string() + "-wal", std::ios::binary);
  const std::string walBytes((std::istreambuf_iterator<char>(wal)),
                             std::istreambuf_iterator<char>());
  for (const std::string& secret :
       {tsig, std::string("EAB-HMAC-SECRET"), std::string("SSH-PRIVATE"),
        std::string("HOOK-SIGNING-SECRET")}) {
    CAPTURE(secret);
    CHECK(bytes.find(secret) == std::string::npos);
    CHECK(walBytes.find(secret) == std::string::npos);
  }
  CHECK(bytes.size() + walBytes.size() > 0);
}

TEST_CASE("api: modules, distributions, settings, and the actions before issuance") {
  ServerProcess fresh(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}});
  HttpClient http(fresh.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  const std::string project = createProject(http, owner);
  const std::string base = "/api/v1/projects/" + project;
  auto credential =
      http.request("POST", base + "/credentials",
                   R"({"name":"deploy","kind":"ssh_key","secret":"k"})", {bearer(owner)});
  CHECK(http.request("POST", base + "/credentials", R"({"name":"nokey","kind":"ssh_key"})",
                     {bearer(owner)})
            .status == 422);  // a credential without its secret
  const std::string credId = str(parse(credential).at("credential").as_object(), "id");
  CHECK(http.request("POST", base + "/modules", R"({"name":"m","module":"carrier-pigeon"})",
                     {bearer(owner)})
            .status == 400);  // an unknown enum value
  CHECK(
      http.request(
              "POST", base + "/modules",
              R"({"name":"m","module":"ssh","targets":[{"name":"web1","credential_id":"0123456789abcdef01234567"}]})",
              {bearer(owner)})
          .status == 422);
  CHECK(http.request("POST", base + "/modules", R"({"name":"m","module":"ssh","targets":"web1"})",
                     {bearer(owner)})
            .status == 400);
  auto module = http.request(
      "POST", base + "/modules",
      json::serialize(json::object{
          {"name", "web"},
          {"module", "ssh"},
          {"settings",
           json::object{{"cert_path", "/etc/ssl/web.pem"}, {"key_path", "/etc/ssl/web.key"}}},
          {"targets",
           json::array{json::object{
               {"name", "web1"},
               {"settings", json::object{{"host", "127.0.0.1"},
                                         {"host_key_sha256", "SHA256:" + std::string(43, 'b')}}},
               {"credential_id", credId}}}},
          {"auto_rollback_on_failure", true}}),
      {bearer(owner)});
  REQUIRE_MESSAGE(module.status == 201, module.body);
  const std::string moduleId = str(parse(module).at("module").as_object(), "id");
  CHECK(parse(module).at("module").as_object().at("targets").as_array().size() == 1);

  serveZone(http, owner, project);
  auto cert = http.request("POST", base + "/certificates", R"({"common_name":"www.example.com"})",
                           {bearer(owner)});
  REQUIRE_MESSAGE(cert.status == 202, cert.body);
  const std::string certId = str(parse(cert).at("certificate").as_object(), "id");
  const std::string dists = base + "/certificates/" + certId + "/distributions";
  CHECK(http.request("POST", dists, R"({"module_config_id":"0123456789abcdef01234567"})",
                     {bearer(owner)})
            .status == 422);
  auto dist =
      http.request("POST", dists, json::serialize(json::object{{"module_config_id", moduleId}}),
                   {bearer(owner)});
  REQUIRE_MESSAGE(dist.status == 201, dist.body);
  const std::string distId = str(parse(dist).at("distribution").as_object(), "id");
  auto listed = http.request("GET", dists, "", {bearer(owner)});
  REQUIRE(listed.status == 200);
  boost::system::error_code ec;
  const auto arr = json::parse(listed.body, ec);
  REQUIRE(arr.is_array());  // a bare array, as docs/api.md says
  CHECK(arr.as_array().size() == 1);
  CHECK(parse(http.request("GET", base + "/distributions", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 1);
  // Nothing issued yet: nothing to deliver, nothing to restore.
  for (const char* action : {"/dry-run", "/execute", "/rollback"}) {
    const auto refused = http.request("POST", dists + "/" + distId + action, "", {bearer(owner)});
    CHECK_MESSAGE(refused.status == 409, action);
  }
  CHECK(http.request("POST", dists + "/0123456789abcdef01234567/execute", "", {bearer(owner)})
            .status == 404);
  CHECK(http.request("DELETE", base + "/modules/" + moduleId, "", {bearer(owner)}).status == 409);
  CHECK(http.request("DELETE", base + "/credentials/" + credId, "", {bearer(owner)}).status == 409);
  CHECK(http.request("DELETE", "/api/v1/projects/" + project + "/certificates/" + certId, "",
                     {bearer(owner)})
            .status == 409);  // a distribution still refers to it
  CHECK(http.request("DELETE", dists + "/" + distId, "", {bearer(owner)}).status == 204);
  CHECK(http.request("DELETE", base + "/modules/" + moduleId, "", {bearer(owner)}).status == 204);

  auto acme = http.request("POST", base + "/acme-accounts",
                           R"({"name":"le","directory_url":"https://127.0.0.1:14000/dir"})",
                           {bearer(owner)});
  // Nothing listens on that directory URL: the CA is unavailable, and the answer says so (in the
  // one phrase of a failed project-aimed connection).
  auto unreachable =
      http.request("POST",
                   base + "/acme-accounts/" +
                       str(parse(acme).at("acme_account").as_object(), "id") + "/validate",
                   "", {bearer(owner)});
  CHECK(unreachable.status == 503);
  CHECK(str(parse(unreachable), "error").find("could not connect") != std::string::npos);
  CHECK(http.request("POST", base + "/acme-accounts/0123456789abcdef01234567/validate", "",
                     {bearer(owner)})
            .status == 404);
  // A credential that names no server is refused when saved, naming the setting.
  auto noServer =
      http.request("POST", base + "/dns-credentials",
                   R"({"name":"b","provider":"rfc2136","secret":"c2VjcmV0"})", {bearer(owner)});
  CHECK(noServer.status == 422);
  CHECK(str(parse(noServer), "field") == "settings.server");
  // One whose server does not answer (nothing listens on port 1).
  auto dns = http.request(
      "POST", base + "/dns-credentials",
      R"({"name":"b","provider":"rfc2136","settings":{"server":"127.0.0.1:1","key_name":"k"},"secret":"c2VjcmV0"})",
      {bearer(owner)});
  REQUIRE_MESSAGE(dns.status == 201, dns.body);
  const std::string dnsId = str(parse(dns).at("dns_credential").as_object(), "id");
  // No zone uses the credential yet: nothing to test in.
  CHECK(http.request("POST", base + "/dns-credentials/" + dnsId + "/test", "", {bearer(owner)})
            .status == 409);
  auto zone = http.request(
      "POST", base + "/zones",
      json::serialize(json::object{{"domain", "example.com"}, {"dns_credential_id", dnsId}}),
      {bearer(owner)});
  // Now it runs, and reports the failing step: the server does not answer the update.
  auto tested =
      http.request("POST", base + "/dns-credentials/" + dnsId + "/test", "", {bearer(owner)});
  REQUIRE(tested.status == 200);
  const auto report = parse(tested);
  CHECK_FALSE(report.at("ok").as_bool());
  CHECK_FALSE(report.at("steps").as_array().at(0).as_object().at("ok").as_bool());
  auto quotas = http.request(
      "GET", base + "/zones/" + str(parse(zone).at("zone").as_object(), "id") + "/rate-limits", "",
      {bearer(owner)});
  REQUIRE_MESSAGE(quotas.status == 200, quotas.body);
  CHECK(str(parse(quotas), "registered_domain") == "example.com");
  CHECK(parse(quotas).at("directories").is_array());
  CHECK(
      http.request("GET", base + "/zones/0123456789abcdef0123ffff/rate-limits", "", {bearer(owner)})
          .status == 404);

  const auto admin = userWithRole(http, owner, "admin");
  CHECK(http.request("GET", "/api/v1/settings/ldap", "", {bearer(admin)}).status == 403);
  auto put = http.request(
      "PUT", "/api/v1/settings/ldap",
      R"({"enabled":false,"host":"127.0.0.1","port":3389,"base_dn":"dc=example,dc=test","bind_dn":"cn=svc","bind_password":"LDAP-BIND-SECRET"})",
      {bearer(owner)});
  REQUIRE_MESSAGE(put.status == 200, put.body);
  CHECK(put.body.find("LDAP-BIND-SECRET") == std::string::npos);
  CHECK(parse(put).at("bind_password_configured").as_bool());
  CHECK(put.body.find("sealed") == std::string::npos);
  auto got = http.request("GET", "/api/v1/settings/ldap", "", {bearer(owner)});
  CHECK(parse(got).at("bind_password_configured").as_bool());
  CHECK(parse(got).at("port").as_int64() == 3389);
  CHECK(got.body.find("sealed") == std::string::npos);
  CHECK(http.request("PUT", "/api/v1/settings/ldap", R"({"host":"h","base_dn":"b","port":70000})",
                     {bearer(owner)})
            .status == 400);
  // Nothing listens on 3389: the test stops at its first step.
  auto ldapTest = http.request("POST", "/api/v1/settings/ldap/test", "", {bearer(owner)});
  REQUIRE(ldapTest.status == 200);
  CHECK_FALSE(parse(ldapTest).at("ok").as_bool());
  CHECK(str(parse(ldapTest).at("steps").as_array().at(0).as_object(), "step") == "connect");
  CHECK(http.request("POST", "/api/v1/settings/ldap/test", "", {bearer(admin)}).status == 403);
  auto providers = http.request("GET", "/api/v1/ca-providers", "", {bearer(admin)});
  CHECK(providers.status == 200);
  const auto provider = parse(providers).at("ca_providers").as_array()[0].as_object();
  CHECK(str(provider, "issuer_type") == "acme");
  CHECK(provider.at("available").as_bool());  // ACME works here (rfc2136 is built in)
  const auto& dnsKinds = provider.at("dns_providers").as_array();
  // Every provider of the build, in the catalog's order; all available but exec here (no
  // dns.exec_commands).
  const std::vector<std::string> expected{"rfc2136",      "powerdns", "cloudflare", "route53",
                                          "digitalocean", "hetzner",  "azure",      "gcloud",
                                          "ovh",          "acmedns",  "exec"};
  REQUIRE(dnsKinds.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(str(dnsKinds[i].as_object(), "name") == expected[i]);
    CHECK(dnsKinds[i].as_object().at("available").as_bool() == (expected[i] != "exec"));
  }
  // The account made above for a bare URL has a provider of its own.
  CHECK(str(provider, "directory_url") == "https://127.0.0.1:14000/dir");
  CHECK(str(provider, "preset") == "custom");
  CHECK(str(parse(acme).at("acme_account").as_object(), "ca_provider_id") == str(provider, "id"));

  // A preset in one step; its directory cannot be read from here, which is noted, not refused.
  auto presets = http.request("GET", "/api/v1/ca-providers/presets", "", {bearer(admin)});
  REQUIRE(presets.status == 200);
  CHECK(parse(presets).at("presets").as_array().size() == 6);
  auto staging = http.request("POST", "/api/v1/ca-providers", R"({"preset":"letsencrypt-staging"})",
                              {bearer(admin)});
  REQUIRE(staging.status == 201);
  const auto stagingId = str(parse(staging), "id");
  CHECK(str(parse(staging), "name") == "Let's Encrypt (staging)");
  CHECK_FALSE(str(parse(staging), "directory_error").empty());
  CHECK(parse(staging).at("rate_limits").at("certificates").at("max").as_int64() == 30000);
  // Taken names and URLs, unknown fields and presets, broken rules; a viewer may not.
  CHECK(http.request("POST", "/api/v1/ca-providers", R"({"preset":"letsencrypt-staging"})",
                     {bearer(admin)})
            .status == 409);
  CHECK(http.request("POST", "/api/v1/ca-providers", R"({"preset":"nope"})", {bearer(admin)})
            .status == 400);
  CHECK(http.request("POST", "/api/v1/ca-providers",
                     R"({"name":"x","directory_url":"https://x.test/d","color":"red"})",
                     {bearer(admin)})
            .status == 400);
  auto plainHttp =
      http.request("POST", "/api/v1/ca-providers",
                   R"({"name":"x","directory_url":"http://x.test/d"})", {bearer(admin)});
  CHECK(plainHttp.status == 422);
  CHECK(str(parse(plainHttp), "field") == "directory_url");
  const auto viewer = userWithRole(http, owner, "viewer");
  CHECK(http.request("GET", "/api/v1/ca-providers/" + stagingId, "", {bearer(viewer)}).status ==
        200);
  CHECK(http.request("PATCH", "/api/v1/ca-providers/" + stagingId, R"({"enabled":false})",
                     {bearer(viewer)})
            .status == 403);
  auto disabled =
      http.request("PATCH", "/api/v1/ca-providers/" + stagingId,
                   R"({"enabled":false,"rate_limits":{"orders":{"max":10}}})", {bearer(admin)});
  REQUIRE(disabled.status == 200);
  CHECK_FALSE(parse(disabled).at("enabled").as_bool());
  CHECK_FALSE(parse(disabled).at("available").as_bool());
  CHECK(parse(disabled).at("rate_limits").at("orders").at("max").as_int64() == 10);
  CHECK(parse(disabled).at("rate_limits").at("orders").at("window_seconds").as_int64() == 10800);
  // In use: not deleted; unused: deleted.
  auto inUse =
      http.request("DELETE", "/api/v1/ca-providers/" + str(provider, "id"), "", {bearer(admin)});
  CHECK(inUse.status == 409);
  CHECK(http.request("DELETE", "/api/v1/ca-providers/" + stagingId, "", {bearer(admin)}).status ==
        204);
  CHECK(http.request("GET", "/api/v1/ca-providers/" + stagingId, "", {bearer(admin)}).status ==
        404);
}

TEST_CASE("api: every configuration name follows the one name rule") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string base = "/api/v1/projects/" + createProject(http, owner);
  const std::vector<std::string> hostile{"a\\u0000b",      "esc\\u001b[31m", "rtl\\u202egnp.exe",
                                         "iso\\u2066late", " padded",        std::string(101, 'n')};
  for (const auto& name : hostile) {
    CAPTURE(name);
    const std::string quoted = "\"" + name + "\"";
    for (
        const auto& [path, body] : std::vector<std::pair<std::string, std::string>>{
            {"/credentials", R"({"kind":"token","secret":"s","name":)" + quoted + "}"},
            {"/dns-credentials",
             R"({"provider":"rfc2136","settings":{"server":"127.0.0.1","key_name":"k"},"secret":"c2VjcmV0","name":)" +
                 quoted + "}"},
            {"/acme-accounts",
             R"({"directory_url":"https://127.0.0.1:14000/dir","name":)" + quoted + "}"},
            {"/notification-rules", R"({"events":["job.failed"],"name":)" + quoted + "}"},
            {"/modules", R"({"module":"file","name":)" + quoted + "}"},
            {"/modules", R"({"module":"file","name":"m","targets":[{"name":)" + quoted + "}]}"},
        }) {
      auto r = http.request("POST", base + path, body, {bearer(owner)});
      CHECK_MESSAGE(r.status == 422, path << " " << r.status << " " << r.body);
    }
    auto project =
        http.request("POST", "/api/v1/projects", R"({"name":)" + quoted + "}", {bearer(owner)});
    CHECK(project.status == 422);
  }
  auto list = http.request("GET", base + "/credentials", "", {bearer(owner)});
  REQUIRE(list.status == 200);
  CHECK(parse(list).at("total").as_int64() == 0);  // nothing was stored
}

TEST_CASE("api: a certificate cannot name another project's ACME account") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string a = "/api/v1/projects/" + createProject(http, owner);
  const std::string b = "/api/v1/projects/" + createProject(http, owner);
  auto account = http.request("POST", b + "/acme-accounts",
                              R"({"name":"b","directory_url":"https://127.0.0.1:14000/dir"})",
                              {bearer(owner)});
  REQUIRE(account.status == 201);
  const auto foreign = str(parse(account).at("acme_account").as_object(), "id");
  auto refused = http.request("POST", a + "/certificates",
                              json::serialize(json::object{{"common_name", "x.example.test"},
                                                           {"acme_account_id", foreign}}),
                              {bearer(owner)});
  CHECK(refused.status == 422);
  CHECK(refused.body.find("acme_account_id") != std::string::npos);
  auto listed = http.request("GET", a + "/certificates", "", {bearer(owner)});
  CHECK(parse(listed).at("total").as_int64() == 0);  // nothing was stored
}

TEST_CASE("api: issuance settings, and the policy kept at create and on change") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string project = createProject(http, owner);
  const std::string base = "/api/v1/projects/" + project;
  serveZone(http, owner, project);
  auto read = http.request("GET", base + "/issuance-settings", "", {bearer(owner)});
  REQUIRE(read.status == 200);
  const auto settings = parse(read).at("issuance_settings").as_object();
  CHECK(settings.at("policy").at("allow_wildcards").as_bool());
  CHECK(settings.at("policy").at("max_lifetime_days").as_int64() == 0);
  CHECK(settings.at("defaults").at("acme_account_ids").as_array().empty());

  // Malformed is 400, a broken rule 422 naming the field; neither changes anything.
  for (const char* body :
       {R"({"policy":{"allowed_key_types":["dsa"]}})", R"({"policy":{"max_lifetime_days":"long"}})",
        R"({"nope":1})", R"({"policy":{"allow_wildcards":"no"}})", R"({"policy":{"extra":1}})"}) {
    CAPTURE(body);
    CHECK(http.request("PUT", base + "/issuance-settings", body, {bearer(owner)}).status == 400);
  }
  auto tooLong = http.request("PUT", base + "/issuance-settings",
                              R"({"policy":{"max_lifetime_days":5000}})", {bearer(owner)});
  CHECK(tooLong.status == 422);
  CHECK(str(parse(tooLong), "field") == "policy.max_lifetime_days");
  auto set = http.request(
      "PUT", base + "/issuance-settings",
      R"({"policy":{"allowed_key_types":["ecdsa_p256"],"allowed_suffixes":["example.com"],"allow_wildcards":false}})",
      {bearer(owner)});
  REQUIRE_MESSAGE(set.status == 200, set.body);
  CHECK_FALSE(parse(set).at("issuance_settings").at("policy").at("allow_wildcards").as_bool());

  // Outside the policy: 422 policy_violation, each rule named, nothing stored.
  auto refused = http.request(
      "POST", base + "/certificates",
      R"({"common_name":"www.example.com","sans":["*.example.com"],"key_type":"rsa_2048"})",
      {bearer(owner)});
  REQUIRE(refused.status == 422);
  const auto violation = parse(refused);
  CHECK(str(violation, "error") == "policy_violation");
  CHECK_FALSE(str(violation, "message").empty());
  std::vector<std::string> rules;
  for (const auto& v : violation.at("violations").as_array())
    rules.emplace_back(v.at("rule").as_string());
  CHECK(rules == std::vector<std::string>{"allowed_key_types", "allow_wildcards"});
  CHECK(parse(http.request("GET", base + "/certificates", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 0);

  // Inside it: created with the default renewal timing, then changed.
  auto created = http.request("POST", base + "/certificates",
                              R"({"common_name":"www.example.com"})", {bearer(owner)});
  REQUIRE_MESSAGE(created.status == 202, created.body);
  const auto cert = parse(created).at("certificate").as_object();
  CHECK(cert.at("renew_at_fraction").as_double() == doctest::Approx(1.0 / 3));
  const std::string path = base + "/certificates/" + str(cert, "id");
  auto patched = http.request("PATCH", path, R"({"renewal_threshold_days":14,"auto_renew":false})",
                              {bearer(owner)});
  REQUIRE_MESSAGE(patched.status == 200, patched.body);
  const auto changed = parse(patched).at("certificate").as_object();
  CHECK(changed.at("renew_at_fraction").is_null());
  CHECK(changed.at("renewal_threshold_days").as_int64() == 14);
  CHECK_FALSE(changed.at("auto_renew").as_bool());
  CHECK(http.request("PATCH", path, R"({"common_name":"x.example.com"})", {bearer(owner)}).status ==
        400);
  CHECK(http.request("PATCH", path, R"({"renew_at_fraction":"half"})", {bearer(owner)}).status ==
        400);
  auto outOfRange = http.request("PATCH", path, R"({"renew_at_fraction":2})", {bearer(owner)});
  CHECK(outOfRange.status == 422);
  CHECK(str(parse(outOfRange), "field") == "renew_at_fraction");
  auto audited = parse(
      http.request("GET", "/api/v1/audit-logs?action=certificate.update", "", {bearer(owner)}));
  CHECK(audited.at("logs").as_array().size() >= 1);
  CHECK(http.request("DELETE", path, "", {bearer(owner)}).status == 204);  // the licence slot
}
