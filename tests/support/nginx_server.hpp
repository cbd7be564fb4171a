// NginxServer: a real nginx started by a test on 127.0.0.1 at a free port, serving TLS from
// `<dir>/site/fullchain.pem` and `<dir>/site/key.pem` (written from `initial` before it starts),
// in its own temporary directory; reloadCommand() reloads it. Stopped and removed by the
// destructor. available() is false, with a reason, when nginx is not installed.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/child_process.hpp"
#include "support/free_port.hpp"
#include "support/test_certificates.hpp"

namespace certsteward::testing {

// What both nginx set-ups share: the main configuration's head (temporary paths in the server's
// own directory) and the start, ready when its pid file appears.
class NginxBase : public LocalServer {
 protected:
  static std::string head(const std::string& d, const std::string& accessLog) {
    return "pid " + d + "/nginx.pid;\nerror_log " + d +
           "/error.log;\nworker_processes 1;\nevents { worker_connections 64; }\nhttp {\n"
           "  access_log " +
           accessLog + ";\n  client_body_temp_path " + d + "/tmp/body;\n  proxy_temp_path " + d +
           "/tmp/proxy;\n  fastcgi_temp_path " + d + "/tmp/fcgi;\n  uwsgi_temp_path " + d +
           "/tmp/uwsgi;\n  scgi_temp_path " + d + "/tmp/scgi;\n";
  }
  // Starts nginx on <dir>/nginx.conf (bounded: 10 s); reason_ says why not.
  void launch() {
    const auto d = dir_.string();
    pid_ = spawnLogged({"/usr/sbin/nginx", "-c", d + "/nginx.conf", "-g", "daemon off;"},
                       dir_ / "nginx.log");
    for (int i = 0; i < 100 && reason_.empty(); ++i) {
      if (std::filesystem::exists(dir_ / "nginx.pid")) return;
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        reason_ =
            "nginx exited at start: " + readLog(dir_ / "nginx.log") + readLog(dir_ / "error.log");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
    if (reason_.empty()) reason_ = "nginx was not ready within 10 s";
  }
};

class NginxServer : public NginxBase {
 public:
  explicit NginxServer(const TestMaterial& initial) {
    if (!std::filesystem::exists("/usr/sbin/nginx")) {
      reason_ = "nginx is not installed (scripts/setup installs nginx-light)";
      return;
    }
    dir_ = freshServerDir("nginx");
    std::filesystem::create_directories(dir_ / "site");
    std::filesystem::create_directories(dir_ / "tmp");
    // Others (nginx's workers, sshd's user) reach the directory; the key stays 0600.
    std::filesystem::permissions(dir_, std::filesystem::perms(0755));
    std::filesystem::permissions(dir_ / "site", std::filesystem::perms(0755));
    port_ = freeLoopbackPort();
    std::ofstream(dir_ / "site" / "fullchain.pem") << initial.certificate_pem << initial.chain_pem;
    std::ofstream(dir_ / "site" / "cert.pem") << initial.certificate_pem;
    std::ofstream(dir_ / "site" / "key.pem") << initial.private_key_pem;
    ::chmod((dir_ / "site" / "key.pem").c_str(), 0600);
    const auto d = dir_.string();
    std::ofstream(dir_ / "nginx.conf")
        << head(d, "off") << "  server {\n    listen 127.0.0.1:" << port_
        << " ssl;\n    server_name _;\n"
        << "    ssl_certificate " << d << "/site/fullchain.pem;\n"
        << "    ssl_certificate_key " << d << "/site/key.pem;\n"
        << "    location / { return 200 \"ok\\n\"; }\n  }\n}\n";
    launch();
  }

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::filesystem::path site() const { return dir_ / "site"; }
  std::filesystem::path dir() const { return dir_; }
  std::string reloadCommand() const {
    return "/usr/sbin/nginx -c " + (dir_ / "nginx.conf").string() + " -s reload";
  }
};

// Http01Nginx: a real nginx on 127.0.0.1:`port` (plain HTTP) as a web server answering ACME
// HTTP-01 is set up: /.well-known/acme-challenge/ served from `webroot()` when the file is there,
// else handed to `upstreamPort` (a CertSteward listening on acme.http01_listen). Its own
// temporary directory; stopped and removed by the destructor.
class Http01Nginx : public NginxBase {
 public:
  Http01Nginx(int port, int upstreamPort) {
    if (!std::filesystem::exists("/usr/sbin/nginx")) {
      reason_ = "nginx is not installed (scripts/setup installs nginx-light)";
      return;
    }
    dir_ = freshServerDir("nginx-http01");
    std::filesystem::create_directories(dir_ / "www");
    std::filesystem::create_directories(dir_ / "tmp");
    // nginx's workers read the webroot; the SSH user writes it.
    std::filesystem::permissions(dir_, std::filesystem::perms(0755));
    std::filesystem::permissions(dir_ / "www", std::filesystem::perms(0755));
    port_ = port;
    const auto d = dir_.string();
    std::ofstream(dir_ / "nginx.conf")
        << head(d, d + "/access.log") << "  server {\n    listen 127.0.0.1:" << port_
        << ";\n    server_name _;\n"
        << "    location /.well-known/acme-challenge/ {\n      root " << d << "/www;\n"
        << "      try_files $uri @certsteward;\n    }\n"
        << "    location @certsteward { proxy_pass http://127.0.0.1:" << upstreamPort << "; }\n"
        << "    location / { return 404; }\n  }\n}\n";
    launch();
  }

  std::filesystem::path webroot() const { return dir_ / "www"; }
  // Every request it answered, one line each (the combined log format).
  std::string accessLog() const { return readLog(dir_ / "access.log"); }
};

}  // namespace certsteward::testing
