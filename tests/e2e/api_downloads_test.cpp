// Issued certificates over real HTTP: downloads (PEM bundle, ZIP, PKCS#12; public material for
// project viewers, the private key only encrypted, only for project admins, audited) and cached
// list pages that never hide a write. Issued material is planted through the SQLite store (the
// same file the server uses) until the issuance engine exists; the key is sealed with the
// server's configured secrets.key.
#include <openssl/err.h>
#include <openssl/pkcs12.h>

#include "e2e/api_support.hpp"
#include "support/zip_reader.hpp"

using namespace certsteward::testing::api;
using certsteward::testing::makeTestMaterial;
using certsteward::testing::TestMaterial;

namespace {

// Its own server: planted certificates count against the free plan's cap, which the shared
// server's suites exercise.
ServerProcess& downloads() {
  static ServerProcess instance(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}});
  return instance;
}

const Session& downloadsOwner(HttpClient& http) {
  static const Session session = login(http, kOwner, kOwnerPassword);
  return session;
}

struct Issued {
  std::string project;
  std::string id;
  std::string base;  // /api/v1/projects/<p>/certificates/<c>
  TestMaterial material;
};

std::string plant(const std::string& project, const std::string& name,
                  const TestMaterial* material) {
  return plantCertificate(downloads(), project, name, material);
}

Issued issued(HttpClient& http, const Session& owner, const std::string& name) {
  Issued out;
  out.project = createProject(http, owner);
  out.material = makeTestMaterial(name);
  out.id = plant(out.project, name, &out.material);
  out.base = "/api/v1/projects/" + out.project + "/certificates/" + out.id;
  return out;
}

std::string join(const TestMaterial& m) {
  return m.certificate_pem + m.chain_pem;
}

}  // namespace

TEST_CASE("api downloads: nothing to download before issuance, then PEM and ZIP for viewers") {
  HttpClient http(downloads().baseUrl());
  const auto& owner = downloadsOwner(http);
  const auto project = createProject(http, owner);
  const auto pending = plant(project, "pending.example.test", nullptr);
  auto early =
      http.request("GET", "/api/v1/projects/" + project + "/certificates/" + pending + "/download",
                   "", {bearer(owner)});
  CHECK(early.status == 409);
  CHECK(str(parse(early), "error").find("not been issued") != std::string::npos);

  const auto c = issued(http, owner, "*.shop.example.test");
  const auto viewer = userWithRole(http, owner, "viewer");
  REQUIRE(http.request("PUT", "/api/v1/projects/" + c.project + "/members/" + viewer.userId,
                       R"({"role":"viewer"})", {bearer(owner)})
              .status == 200);

  auto pem = http.request("GET", c.base + "/download", "", {bearer(viewer)});
  REQUIRE_MESSAGE(pem.status == 200, pem.body);
  CHECK(pem.header("content-type") == "application/x-pem-file");
  CHECK(pem.header("content-disposition") == "attachment; filename=\"_.shop.example.test.pem\"");
  CHECK(pem.header("cache-control") == "no-store");
  CHECK(pem.body == join(c.material));
  CHECK(pem.body.find("PRIVATE KEY") == std::string::npos);

  auto head = http.request("HEAD", c.base + "/download?format=pem", "", {bearer(viewer)});
  CHECK(head.status == 200);
  CHECK(head.body.empty());

  auto zip = http.request("GET", c.base + "/download?format=zip", "", {bearer(viewer)});
  REQUIRE(zip.status == 200);
  CHECK(zip.header("content-type") == "application/zip");
  CHECK(zip.header("content-disposition") == "attachment; filename=\"_.shop.example.test.zip\"");
  const auto files = certsteward::testing::readZip(zip.body);
  REQUIRE(files.size() == 3);
  CHECK(files.at("cert.pem") == c.material.certificate_pem);
  CHECK(files.at("chain.pem") == c.material.chain_pem);
  CHECK(files.at("fullchain.pem") == join(c.material));

  CHECK(http.request("GET", c.base + "/download?format=pkcs12", "", {bearer(viewer)}).status ==
        400);
  CHECK(http.request("GET", c.base + "/download?format=der", "", {bearer(viewer)}).status == 400);

  // Another project's members, and unknown ids, see nothing.
  const auto outsider = userWithRole(http, owner, "operator");
  CHECK(http.request("GET", c.base + "/download", "", {bearer(outsider)}).status == 404);
  CHECK(http.request("POST", c.base + "/download",
                     R"({"format":"pkcs12","password":"long enough"})", {bearer(outsider)})
            .status == 404);
  CHECK(http.request("GET", "/api/v1/projects/" + project + "/certificates/" + c.id + "/download",
                     "", {bearer(owner)})
            .status == 404);
}

TEST_CASE("api downloads: the private key only encrypted, only for admins, audited") {
  HttpClient http(downloads().baseUrl());
  const auto& owner = downloadsOwner(http);
  const auto c = issued(http, owner, "vault.example.test");
  const auto operatorUser = userWithRole(http, owner, "operator");
  REQUIRE(http.request("PUT", "/api/v1/projects/" + c.project + "/members/" + operatorUser.userId,
                       R"({"role":"operator"})", {bearer(owner)})
              .status == 200);

  // Operators download public material, never the key.
  CHECK(http.request("POST", c.base + "/download", R"({"format":"zip"})", {bearer(operatorUser)})
            .status == 200);
  auto denied =
      http.request("POST", c.base + "/download", R"({"format":"pkcs12","password":"long enough"})",
                   {bearer(operatorUser)});
  CHECK(denied.status == 403);
  CHECK(parse(denied).size() == 1);

  // Bad requests change nothing and say why.
  for (const char* body :
       {R"({"format":"pkcs12"})", R"({"format":"pkcs12","password":"short"})",
        R"({"format":"pem","include_private_key":true})",
        R"({"format":"pkcs12","password":12345678})", R"({"format":"tar"})",
        "{\"format\":\"pkcs12\",\"password\":\"line\\nbreak pass\"}", R"({"format":)"}) {
    auto r = http.request("POST", c.base + "/download", body, {bearer(owner)});
    CHECK_MESSAGE(r.status == 400, body << " -> " << r.status << " " << r.body);
    CHECK(r.header("content-type") == "application/json");
  }

  // PKCS#12: key, leaf and chain under the caller's password.
  auto p12 = http.request("POST", c.base + "/download",
                          R"({"format":"pkcs12","password":"correct horse"})",
                          {bearer(owner), "Idempotency-Key: p12-once"});
  REQUIRE_MESSAGE(p12.status == 200, p12.body);
  CHECK(p12.header("content-type") == "application/x-pkcs12");
  CHECK(p12.header("content-disposition") == "attachment; filename=\"vault.example.test.p12\"");
  {
    const auto* data = reinterpret_cast<const unsigned char*>(p12.body.data());
    PKCS12* parsed = d2i_PKCS12(nullptr, &data, static_cast<long>(p12.body.size()));
    REQUIRE(parsed != nullptr);
    EVP_PKEY* key = nullptr;
    X509* leaf = nullptr;
    STACK_OF(X509)* chain = nullptr;
    CHECK(PKCS12_parse(parsed, "wrong password", &key, &leaf, &chain) != 1);
    ERR_clear_error();
    REQUIRE(PKCS12_parse(parsed, "correct horse", &key, &leaf, &chain) == 1);
    CHECK(X509_check_private_key(leaf, key) == 1);
    CHECK(sk_X509_num(chain) == 1);
    EVP_PKEY_free(key);
    X509_free(leaf);
    sk_X509_pop_free(chain, X509_free);
    PKCS12_free(parsed);
  }
  // Key material is never kept for Idempotency-Key replay: a repeat is a fresh export.
  auto again = http.request("POST", c.base + "/download",
                            R"({"format":"pkcs12","password":"correct horse"})",
                            {bearer(owner), "Idempotency-Key: p12-once"});
  CHECK(again.status == 200);
  CHECK(again.header("idempotent-replayed").empty());

  // PEM and ZIP carry the key as encrypted PKCS#8, never in the clear.
  auto pem = http.request("POST", c.base + "/download",
                          R"({"format":"pem","include_private_key":true,"password":"pem pass 1"})",
                          {bearer(owner)});
  REQUIRE(pem.status == 200);
  CHECK(pem.body.starts_with(join(c.material)));
  CHECK(pem.body.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string::npos);
  CHECK(pem.body.find("-----BEGIN PRIVATE KEY-----") == std::string::npos);
  auto zip = http.request("POST", c.base + "/download",
                          R"({"format":"zip","include_private_key":true,"password":"zip pass 1"})",
                          {bearer(owner)});
  REQUIRE(zip.status == 200);
  const auto files = certsteward::testing::readZip(zip.body);
  REQUIRE(files.count("privkey.pem") == 1);
  CHECK(files.at("privkey.pem").starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"));

  // Every key export is in the audit log, under the acting user; the password is not.
  auto logs = parse(
      http.request("GET", "/api/v1/audit-logs?action=certificate.private_key_export&page_size=100",
                   "", {bearer(owner)}));
  int exports = 0;
  for (const auto& entry : logs.at("logs").as_array()) {
    const auto& o = entry.as_object();
    if (o.at("resource_id").as_string() == c.id) ++exports;
    CHECK(json::serialize(o).find("correct horse") == std::string::npos);
  }
  CHECK(exports == 4);
  CHECK(server().log().find("correct horse") == std::string::npos);
}

TEST_CASE("api lists: a cached page shows this server's writes at once, another process's soon") {
  HttpClient http(downloads().baseUrl());
  const auto& owner = downloadsOwner(http);
  const auto project = createProject(http, owner);
  const std::string list =
      "/api/v1/projects/" + project + "/certificates?sort=common_name&order=asc";
  const auto total = [&] {
    auto r = http.request("GET", list, "", {bearer(owner)});
    REQUIRE(r.status == 200);
    return parse(r).at("total").as_int64();
  };
  // Another process's write is seen within the store's 100 ms generation memo: poll, bounded.
  const auto seenWithin = [&](std::int64_t expected) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) {
      if (total() == expected) return std::chrono::steady_clock::now() - start;
      std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    return std::chrono::steady_clock::duration::max();
  };
  CHECK(total() == 0);
  CHECK(total() == 0);  // served again, from the cache
  const auto id = plant(project, "a.example.test", nullptr);
  CHECK(seenWithin(1) < std::chrono::seconds{1});
  const auto material = makeTestMaterial("b.example.test");
  plant(project, "b.example.test", &material);
  CHECK(seenWithin(2) < std::chrono::seconds{1});
  auto page = parse(http.request("GET", list, "", {bearer(owner)}));
  REQUIRE(page.at("certificates").as_array().size() == 2);
  CHECK(str(page.at("certificates").as_array()[1].as_object(), "status") == "active");
  // This server's own write (delete through the API): seen at once, no waiting.
  REQUIRE(http.request("DELETE", "/api/v1/projects/" + project + "/certificates/" + id, "",
                       {bearer(owner)})
              .status == 204);
  CHECK(total() == 1);
  // Another query shape is its own page; a viewer outside the project still gets 404.
  CHECK(parse(http.request("GET", list + "&status=issuing", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 0);
  const auto outsider = userWithRole(http, owner, "viewer");
  CHECK(http.request("GET", list, "", {bearer(outsider)}).status == 404);
}
