// The target settings rules, table-driven: what each module accepts, and every hostile or
// mistaken value refused with the setting named. Plus the stored form of a delivered version.
#include <doctest/doctest.h>

#include <certsteward/domain/distribution.hpp>
#include <certsteward/domain/distribution_settings.hpp>

using namespace certsteward::domain;

namespace {

const std::string kFingerprint = "SHA256:" + std::string(43, 'x');

Settings ssh() {
  return {{"host", "web1.example.com"},
          {"cert_path", "/etc/ssl/site.pem"},
          {"key_path", "/etc/ssl/private/site.key"},
          {"host_key_sha256", kFingerprint}};
}

struct Case {
  const char* name;
  const char* module;
  Settings settings;
  const char* fragment;  // expected in the error; nullptr: accepted
};

}  // namespace

TEST_CASE("distribution settings: valid and invalid target settings per module") {
  const DistributionPolicy policy{{"/usr/local/bin/reload-proxy"}, {"/srv/certs"}};
  const auto with = [](Settings s, const std::string& k, const std::string& v) {
    s[k] = v;
    return s;
  };
  const auto without = [](Settings s, const std::string& k) {
    s.erase(k);
    return s;
  };
  const Settings file{{"fullchain_path", "/srv/certs/site/fullchain.pem"},
                      {"key_path", "/srv/certs/site/key.pem"},
                      {"reload_command", "/usr/local/bin/reload-proxy"}};
  const Case cases[] = {
      {"ssh minimal", "ssh", ssh(), nullptr},
      {"ssh everything", "ssh",
       with(with(with(with(ssh(), "port", "2222"), "file_mode", "0640"), "verify_address",
                 "127.0.0.1:443"),
            "reload_command", "systemctl reload nginx"),
       nullptr},
      {"ssh without host key", "ssh", without(ssh(), "host_key_sha256"),
       "host_key_sha256 is required"},
      {"ssh MD5 fingerprint", "ssh", with(ssh(), "host_key_sha256", "MD5:aa:bb"),
       "host_key_sha256"},
      {"relative path", "ssh", with(ssh(), "cert_path", "etc/ssl/site.pem"),
       "cert_path must be an absolute path"},
      {"dot-dot", "ssh", with(ssh(), "key_path", "/etc/ssl/../shadow"),
       "key_path must be an absolute path"},
      {"trailing slash", "ssh", with(ssh(), "cert_path", "/etc/ssl/"), "cert_path"},
      {"NUL in a path", "ssh", with(ssh(), "cert_path", std::string("/etc/a\0b", 8)),
       "control characters"},
      {"newline in a command", "ssh", with(ssh(), "reload_command", "true\nrm -rf /"),
       "control characters"},
      {"two settings, one file", "ssh", with(ssh(), "chain_path", "/etc/ssl/site.pem"),
       "another path"},
      {"ssh webroot", "ssh", with(ssh(), "webroot", "/var/www/html"), nullptr},
      {"a key the web server would serve", "ssh",
       with(with(ssh(), "webroot", "/var/www"), "key_path", "/var/www/site.key"),
       "key_path must not be below the webroot"},
      {"a relative webroot", "ssh", with(ssh(), "webroot", "var/www"),
       "webroot must be an absolute path"},
      {"file webroot an allowed directory, the key then served", "file",
       with(file, "webroot", "/srv/certs"), "key_path must not be below the webroot"},
      {"file webroot outside", "file", with(file, "webroot", "/var/www"), "webroot must be below"},
      {"port zero", "ssh", with(ssh(), "port", "0"), "port must be 1..65535"},
      {"port text", "ssh", with(ssh(), "port", "ssh"), "port"},
      {"host as an option", "ssh", with(ssh(), "host", "-oProxyCommand=x"), "host must be"},
      {"world-writable mode", "ssh", with(ssh(), "file_mode", "0777"), nullptr},
      {"mode the owner cannot write", "ssh", with(ssh(), "file_mode", "0444"), "file_mode"},
      {"mode not octal", "ssh", with(ssh(), "file_mode", "rw-r--r--"), "file_mode"},
      {"unknown setting", "ssh", with(ssh(), "hots", "x"), "hots is not a setting of module ssh"},
      {"no key path", "ssh", without(ssh(), "key_path"), "key_path is required"},
      {"no certificate path", "ssh", without(ssh(), "cert_path"), "cert_path or fullchain_path"},
      {"verify not host:port", "ssh", with(ssh(), "verify_address", "127.0.0.1"), "verify_address"},
      {"file allowed", "file", file, nullptr},
      {"file outside the directories", "file", with(file, "key_path", "/etc/ssl/key.pem"),
       "distribution.file_directories"},
      {"file sibling of the directory", "file", with(file, "key_path", "/srv/certs-other/key.pem"),
       "distribution.file_directories"},
      {"file command not allowed", "file", with(file, "reload_command", "/bin/sh"),
       "distribution.exec_commands"},
      {"file command with arguments", "file",
       with(file, "reload_command", "/usr/local/bin/reload-proxy --all"),
       "distribution.exec_commands"},
      {"haproxy",
       "haproxy",
       {{"runtime_address", "127.0.0.1:9999"}, {"cert_name", "/etc/haproxy/site.pem"}},
       nullptr},
      {"haproxy unix socket",
       "haproxy",
       {{"runtime_address", "unix:/run/haproxy/admin.sock"}, {"cert_name", "site.pem"}},
       nullptr},
      {"haproxy command injection",
       "haproxy",
       {{"runtime_address", "127.0.0.1:9999"}, {"cert_name", "a.pem; shutdown sessions"}},
       "cert_name"},
      {"haproxy over the network",
       "haproxy",
       {{"runtime_address", "10.0.0.5:9999"}, {"cert_name", "a"}},
       "loopback"},
      {"haproxy relative socket",
       "haproxy",
       {{"runtime_address", "unix:run/admin.sock"}, {"cert_name", "a"}},
       "runtime_address"},
      {"webhook https",
       "webhook",
       {{"url", "https://deploy.example.com/hooks/cert"}, {"include_private_key", "true"}},
       nullptr},
      {"webhook http", "webhook", {{"url", "http://deploy.example.com/hook"}}, "https://"},
      {"webhook http loopback", "webhook", {{"url", "http://127.0.0.1:8081/hook"}}, "https://"},
      {"webhook with a port", "webhook", {{"url", "https://127.0.0.1:8443/hook"}}, nullptr},
      {"webhook user info",
       "webhook",
       {{"url", "https://user:pw@example.com/"}},
       "user information"},
      {"webhook other scheme", "webhook", {{"url", "file:///etc/passwd"}}, "https://"},
      {"webhook boolean",
       "webhook",
       {{"url", "https://example.com/"}, {"include_private_key", "yes"}},
       "true or false"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const Status s = checkTargetSettings(c.module, "t1", c.settings, policy);
    if (c.fragment == nullptr) {
      CHECK_MESSAGE(s.ok(), s.error().message);
    } else {
      REQUIRE_FALSE(s.ok());
      CHECK(s.error().code == ErrorCode::invalid_argument);
      CHECK_MESSAGE(s.error().message.find(c.fragment) != std::string::npos, s.error().message);
      CHECK(s.error().message.starts_with("target t1: "));
    }
  }
}

TEST_CASE("distribution settings: the configuration's settings are defaults for every target") {
  ModuleConfig config;
  config.settings = {{"key_path", "/etc/ssl/key.pem"}, {"port", "22"}};
  DistributionTarget t{"a", {{"port", "2222"}}, ""};
  const auto s = effectiveSettings(config, t);
  CHECK(s.at("key_path") == "/etc/ssl/key.pem");
  CHECK(s.at("port") == "2222");
}

TEST_CASE(
    "distribution: a delivered version round-trips through its stored form, and junk is refused") {
  CertificateVersion v{"c1",
                       "www.example.com",
                       {"www.example.com", "example.com"},
                       "0a1b",
                       fromUnixSeconds(1800000000),
                       "LEAF\n:12:\n",
                       "CHAIN\n",
                       "KEY\n"};
  const auto back = decodeVersion(encodeVersion(v));
  REQUIRE(back);
  CHECK(back->names == v.names);
  CHECK(back->certificate_pem == v.certificate_pem);
  CHECK(back->private_key_pem == v.private_key_pem);
  CHECK(back->expires_at == v.expires_at);
  CHECK_FALSE(decodeVersion(""));
  CHECK_FALSE(decodeVersion("garbage"));
  CHECK_FALSE(decodeVersion(encodeVersion(v) + "x"));
  auto cut = encodeVersion(v);
  cut.resize(cut.size() / 2);
  CHECK_FALSE(decodeVersion(cut));
}
