// TlsReloader: what the TLS listener serves (server.tls.*) and its reloading. The managed
// certificate (server.tls.certificate_id) wins once it is issued; until then, or when only
// files are set, server.tls.certificate_file/key_file. Every server.tls.reload_interval it
// looks again — a renewed managed certificate, or files replaced on disk — and hands what
// changed to the TLS context: the next handshake gets it, open connections keep theirs, nothing
// restarts. A reload that cannot be used is logged and the certificate served so far stays.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <certsteward/adapters/http/tls_context.hpp>
#include <certsteward/app/config.hpp>
#include <certsteward/services/served_certificate.hpp>

namespace certsteward::app {

class TlsReloader {
 public:
  // The context serving what the configuration names now. invalid_argument (or not_found /
  // failed_precondition for a managed certificate with no file to fall back on) when there is
  // nothing it can serve: the server does not start.
  static domain::Result<std::unique_ptr<TlsReloader>> create(
      const Config& config, const ports::ProjectRepository& projects,
      const ports::CertificateRepository& certificates, const ports::SecretBox& secrets);
  ~TlsReloader();
  TlsReloader(const TlsReloader&) = delete;
  TlsReloader& operator=(const TlsReloader&) = delete;

  std::shared_ptr<adapters::http::TlsContext> context() const { return context_; }
  // One look for something new (what the thread does every reload_interval).
  void check();
  void start();
  void stop();

 private:
  TlsReloader(const Config& config, std::optional<services::ServedCertificate> managed);
  struct Material {
    std::string chain;
    std::string key;
    std::string source;  // for the log: "certificate <id> serial <s>" or "<file>"
    bool managed = false;
  };
  // What should be served now: nullopt when the current one stays; an error to log.
  domain::Result<std::optional<Material>> next();
  domain::Result<std::optional<Material>> fromFiles();

  std::string certificateFile_;
  std::string keyFile_;
  domain::Duration interval_;
  std::optional<services::ServedCertificate> managed_;
  bool servingManaged_ = false;
  std::optional<std::size_t>
      filesLoaded_;          // digest of the files last loaded (to see them replaced)
  std::string lastProblem_;  // logged once, until it changes
  int quietLooks_ = 0;       // looks still to skip (the served certificate is not found)
  std::shared_ptr<adapters::http::TlsContext> context_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace certsteward::app
