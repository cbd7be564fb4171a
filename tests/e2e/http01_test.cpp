// HTTP-01 through the packaged binary, validated by a real Pebble: a web server (a real nginx on
// the port Pebble validates at) serves /.well-known/acme-challenge/ from its webroot and hands
// what is not there to the server's own acme.http01_listen. A certificate answered by the server
// itself, and one whose token files go into nginx's webroot over SSH (a real sshd), both become
// active; the webroot is left clean; a wildcard or an unknown challenge is refused. All servers on
// 127.0.0.1, started by the test.
#include <doctest/doctest.h>

#include <filesystem>

#include "e2e/deployment.hpp"
#include "support/free_port.hpp"
#include "support/nginx_server.hpp"
#include "support/sshd_server.hpp"

using namespace certsteward::testing;
namespace json = boost::json;

TEST_CASE("http-01 e2e: answered by the server itself and through a webroot over SSH") {
  const int webPort = freeLoopbackPort();  // where Pebble validates: nginx
  int listenPort = freeLoopbackPort();     // the server's acme.http01_listen
  while (listenPort == webPort)
    listenPort = freeLoopbackPort();
  Http01Nginx web(webPort, listenPort);
  REQUIRE_MESSAGE(web.available(), web.reason());
  SshdServer sshd;
  REQUIRE_MESSAGE(sshd.available(), sshd.reason());
  Deployment d(0, "acme.http01_listen = 127.0.0.1:" + std::to_string(listenPort) + "\n", {},
               webPort);

  // Served by the server: no zone is asked, nginx passes the request on.
  const auto served = d.order(R"({"common_name":"h1.example.test","challenge":"http-01"})");
  auto cert = d.waitFor(served.certPath, "active", "");
  CHECK(field(cert, "challenge") == "http-01");
  CHECK(cert.at("http01_module_config_id").is_null());
  CHECK(d.jobLogs().find("HTTP-01 answered by this service") != std::string::npos);
  CHECK(web.accessLog().find("/.well-known/acme-challenge/") != std::string::npos);
  auto plan =
      parseObject(d.http->request("GET", served.certPath + "/challenge-plan", "", {d.auth}));
  REQUIRE(plan.at("items").as_array().size() == 1);
  const auto& entry = plan.at("items").as_array()[0].as_object();
  CHECK(field(entry, "challenge") == "http-01");
  CHECK(field(entry, "answered_by") == "this server (acme.http01_listen)");

  // The free plan holds one certificate: this one makes room for the next.
  REQUIRE(d.http->request("DELETE", served.certPath, "", {d.auth}).status == 204);

  // Through nginx's webroot, written over SSH: a configuration whose target has a webroot.
  const std::string site = web.webroot().parent_path().string();
  const std::string credential = d.created(d.base + "/credentials",
                                           json::object{{"name", "deploy key"},
                                                        {"kind", "ssh_key"},
                                                        {"username", SshdServer::user()},
                                                        {"secret", sshd.clientKey()}},
                                           "credential");
  const std::string config = d.created(
      d.base + "/modules",
      json::object{
          {"name", "web"},
          {"module", "ssh"},
          {"settings", json::object{{"webroot", web.webroot().string()}}},
          {"targets", json::array{json::object{
                          {"name", "web1"},
                          {"credential_id", credential},
                          {"settings", json::object{{"host", "127.0.0.1"},
                                                    {"port", std::to_string(sshd.port())},
                                                    {"host_key_sha256", sshd.hostKeyFingerprint()},
                                                    {"fullchain_path", site + "/f.pem"},
                                                    {"key_path", site + "/k.pem"}}}}}}},
      "module");
  const auto viaWebroot = d.order(R"({"common_name":"h2.example.test","challenge":"http-01",)"
                                  R"("http01_module_config_id":")" +
                                  config + R"("})");
  cert = d.waitFor(viaWebroot.certPath, "active", "");
  CHECK(field(cert, "http01_module_config_id") == config);
  const auto logs = d.jobLogs();
  CHECK(logs.find("wrote the HTTP-01 file") != std::string::npos);
  // The token file was there while Pebble looked, and is gone now.
  const auto dir = web.webroot() / ".well-known" / "acme-challenge";
  REQUIRE(std::filesystem::is_directory(dir));
  CHECK(std::filesystem::is_empty(dir));

  // What cannot work is refused before anything is stored.
  auto wildcard =
      d.http->request("POST", d.base + "/certificates",
                      R"({"common_name":"*.example.test","challenge":"http-01"})", {d.auth});
  CHECK(wildcard.status == 422);
  CHECK(field(parseObject(wildcard), "field") == "challenge");
  auto unknown =
      d.http->request("POST", d.base + "/certificates",
                      R"({"common_name":"h3.example.test","challenge":"tls-alpn-01"})", {d.auth});
  CHECK(unknown.status == 400);
}
