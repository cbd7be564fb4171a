// SlapdServer: Debian's OpenLDAP slapd started by a test on 127.0.0.1 at a free port, with its
// own database in a temporary directory, seeded with people and groups (kUsers below); stopped
// and removed by the destructor (or earlier by stop(), to test an unreachable directory).
// available() is false, with a reason, when slapd is not installed. With TLS, a throw-away CA
// signs its certificate for 127.0.0.1: it offers STARTTLS on port() and LDAPS on ldapsPort(),
// and caPem() is the CA to trust.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/child_process.hpp"
#include "support/free_port.hpp"
#include "support/test_certificates.hpp"

namespace certsteward::testing {

class SlapdServer : public LocalServer {
 public:
  static constexpr const char* kBase = "dc=example,dc=test";
  static constexpr const char* kService = "cn=certsteward,ou=services,dc=example,dc=test";
  static constexpr const char* kServicePassword = "service secret";
  static constexpr const char* kGroups = "ou=groups,dc=example,dc=test";
  static constexpr const char* kAdmins = "cn=cert-admins,ou=groups,dc=example,dc=test";
  static constexpr const char* kOperators = "cn=cert-operators,ou=groups,dc=example,dc=test";
  // alice is in cert-admins, bob in cert-operators, carol in both, dave in none; each one's
  // password is "<name> password".
  static std::string dn(const std::string& user) {
    return "uid=" + user + ",ou=people," + std::string(kBase);
  }

  explicit SlapdServer(bool tls = false) {
    if (!std::filesystem::exists("/usr/sbin/slapd") ||
        !std::filesystem::exists("/usr/sbin/slapadd")) {
      reason_ = "slapd is not installed (scripts/setup installs slapd)";
      return;
    }
    dir_ = freshServerDir("slapd");
    port_ = freeLoopbackPort();
    const auto d = dir_.string();
    std::filesystem::create_directories(dir_ / "db");
    std::string tlsLines;
    if (tls) {
      const auto material = makeTestMaterial("127.0.0.1", "IP:127.0.0.1");
      ca_ = material.chain_pem;
      std::ofstream(dir_ / "ca.pem") << material.chain_pem;
      std::ofstream(dir_ / "cert.pem") << material.certificate_pem;
      std::ofstream(dir_ / "key.pem") << material.private_key_pem;
      tlsLines = "TLSCACertificateFile " + d + "/ca.pem\nTLSCertificateFile " + d +
                 "/cert.pem\nTLSCertificateKeyFile " + d + "/key.pem\n";
      ldapsPort_ = freeLoopbackPort();
    }
    std::ofstream(dir_ / "slapd.conf")
        << tlsLines
        << "include /etc/ldap/schema/core.schema\ninclude /etc/ldap/schema/cosine.schema\n"
        << "include /etc/ldap/schema/inetorgperson.schema\n"
        << "pidfile " << d << "/slapd.pid\nmodulepath /usr/lib/ldap\nmoduleload back_mdb\n"
        << "access to attrs=userPassword by self read by anonymous auth by * none\n"
        << "access to * by * read\n"
        << "database mdb\nmaxsize 10485760\nsuffix \"" << kBase << "\"\n"
        << "rootdn \"cn=admin," << kBase << "\"\nrootpw admin-secret\ndirectory " << d << "/db\n";
    std::ofstream seed(dir_ / "seed.ldif");
    seed << "dn: " << kBase << "\nobjectClass: dcObject\nobjectClass: organization\n"
         << "dc: example\no: Example\n\n";
    for (const char* ou : {"people", "groups", "services"}) {
      seed << "dn: ou=" << ou << "," << kBase << "\nobjectClass: organizationalUnit\nou: " << ou
           << "\n\n";
    }
    seed << "dn: " << kService << "\nobjectClass: person\nobjectClass: simpleSecurityObject\n"
         << "cn: certsteward\nsn: service\nuserPassword: " << kServicePassword << "\n\n";
    for (const char* user : {"alice", "bob", "carol", "dave"}) {
      seed << "dn: " << dn(user) << "\nobjectClass: inetOrgPerson\nuid: " << user
           << "\ncn: " << user << "\nsn: " << user << "\nmail: " << user
           << "@example.test\nuserPassword: " << user << " password\n\n";
    }
    seed << "dn: " << kAdmins
         << "\nobjectClass: groupOfNames\ncn: cert-admins\nmember: " << dn("alice")
         << "\nmember: " << dn("carol") << "\n\n";
    seed << "dn: " << kOperators
         << "\nobjectClass: groupOfNames\ncn: cert-operators\nmember: " << dn("bob")
         << "\nmember: " << dn("carol") << "\n\n";
    seed.close();
    if (runShell("/usr/sbin/slapadd -f " + d + "/slapd.conf -l " + d + "/seed.ldif > " + d +
                 "/slapadd.log 2>&1") != 0) {
      reason_ = "slapadd failed: " + readLog(dir_ / "slapadd.log").substr(0, 2000);
      return;
    }
    start();
  }

  int port() const { return port_; }
  int ldapsPort() const { return ldapsPort_; }
  const std::string& caPem() const { return ca_; }

  // Applies an LDIF change as the directory's administrator; true when ldapmodify succeeded.
  bool modify(const std::string& ldif) const {
    std::ofstream(dir_ / "change.ldif") << ldif;
    return runShell("/usr/bin/ldapmodify -x -H ldap://127.0.0.1:" + std::to_string(port_) +
                    " -D 'cn=admin," + kBase + "' -w admin-secret -f " +
                    (dir_ / "change.ldif").string() + " > " + (dir_ / "modify.log").string() +
                    " 2>&1") == 0;
  }
  // Moves `user` from group `from` to group `to` (DNs; either may be empty).
  bool moveMember(const std::string& user, const std::string& from, const std::string& to) const {
    bool ok = true;
    if (!from.empty()) {
      ok = modify("dn: " + from + "\nchangetype: modify\ndelete: member\nmember: " + dn(user) +
                  "\n");
    }
    if (ok && !to.empty()) {
      ok = modify("dn: " + to + "\nchangetype: modify\nadd: member\nmember: " + dn(user) + "\n");
    }
    return ok;
  }
  // Stops the server, keeping its data (start() brings it back on the same port).
  void stop() {
    stopChild(pid_);
    pid_ = -1;
  }
  void start() {
    const std::string url = "ldap://127.0.0.1:" + std::to_string(port_) + "/";
    const std::string urls =
        ldapsPort_ > 0 ? url + " ldaps://127.0.0.1:" + std::to_string(ldapsPort_) + "/" : url;
    pid_ = spawnLogged(
        {"/usr/sbin/slapd", "-f", (dir_ / "slapd.conf").string(), "-h", urls, "-d", "0"},
        dir_ / "slapd.log");
    const std::string probe =
        "/usr/bin/ldapsearch -x -H " + url + " -b '' -s base > /dev/null 2>&1";
    reason_ = waitUntilReady(
        pid_, dir_ / "slapd.log", "slapd", [&](const std::string&) { return runShell(probe) == 0; },
        std::chrono::seconds{10});
  }

 private:
  int ldapsPort_ = 0;
  std::string ca_;
};

}  // namespace certsteward::testing
