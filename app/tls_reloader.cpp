// Loading and reloading the listener's certificate.
#include <certsteward/app/tls_reloader.hpp>

#include <spdlog/spdlog.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <utility>

namespace certsteward::app {
namespace {

using domain::ErrorCode;
using domain::makeError;

// A PEM file of at most 1 MiB.
domain::Result<std::string> readPem(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError(ErrorCode::invalid_argument, "server.tls: cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  std::string out = text.str();
  if (out.size() > 1024 * 1024) {
    return makeError(ErrorCode::invalid_argument, "server.tls: " + path + " is larger than 1 MiB");
  }
  return out;
}

}  // namespace

TlsReloader::TlsReloader(const Config& config, std::optional<services::ServedCertificate> managed)
    : certificateFile_(config.tls_certificate_file),
      keyFile_(config.tls_key_file),
      interval_(config.tls_reload_interval),
      managed_(std::move(managed)) {}

domain::Result<std::unique_ptr<TlsReloader>> TlsReloader::create(
    const Config& config, const ports::ProjectRepository& projects,
    const ports::CertificateRepository& certificates, const ports::SecretBox& secrets) {
  std::optional<services::ServedCertificate> managed;
  if (!config.tls_certificate_id.empty()) {
    managed.emplace(projects, certificates, secrets, config.tls_certificate_id);
  }
  std::unique_ptr<TlsReloader> out(new TlsReloader(config, std::move(managed)));
  auto first = out->next();
  if (!first) return first.error();
  if (!*first) {
    return makeError(ErrorCode::invalid_argument, "server.tls: nothing to serve");  // not reached
  }
  if ((*first)->managed && !config.tls_certificate_file.empty()) {
    // The files are not served now, but they are checked now: a pair that cannot be served
    // would otherwise be found out only when it is needed.
    auto files = out->fromFiles();
    if (!files) return files.error();
    if (auto usable = adapters::http::TlsContext::create((*files)->chain, (*files)->key); !usable) {
      return makeError(ErrorCode::invalid_argument,
                       (*files)->source + ": " + usable.error().message);
    }
    out->filesLoaded_.reset();
  }
  auto context = adapters::http::TlsContext::create((*first)->chain, (*first)->key);
  if (!context) {
    return makeError(ErrorCode::invalid_argument,
                     (*first)->source + ": " + context.error().message);
  }
  out->context_ = std::move(*context);
  out->servingManaged_ = (*first)->managed;
  spdlog::info("serving HTTPS with {}", (*first)->source);
  return out;
}

domain::Result<std::optional<TlsReloader::Material>> TlsReloader::fromFiles() {
  auto chain = readPem(certificateFile_);
  if (!chain) return chain.error();
  auto key = readPem(keyFile_);
  if (!key) return key.error();
  // What was loaded is remembered by a digest (change detection only), not the key itself.
  const std::size_t loaded = std::hash<std::string>{}(*chain + '\0' + *key);
  if (context_ && !servingManaged_ && filesLoaded_ && loaded == *filesLoaded_) {
    return std::optional<Material>();
  }
  filesLoaded_ = loaded;
  return std::optional<Material>(
      Material{std::move(*chain), std::move(*key), "the certificate in " + certificateFile_});
}

domain::Result<std::optional<TlsReloader::Material>> TlsReloader::next() {
  const bool files = !certificateFile_.empty();
  if (managed_) {
    const std::string served = context_ && servingManaged_ ? context_->servedSerial() : "";
    auto changed = managed_->changedSince(served);
    if (changed) {
      if (!*changed) return std::optional<Material>();
      auto& m = **changed;
      return std::optional<Material>(
          Material{std::move(m.chain_pem), std::move(m.key_pem),
                   "certificate " + managed_->id() + " serial " + m.serial, true});
    }
    // Not issued yet (or not found at start): the files serve meanwhile, if there are any. Once
    // the managed certificate has been served it stays, whatever happens to it in the store
    // (deleted, say): until it expires it is better than the files of a first start.
    const bool fallBack = files && !servingManaged_ &&
                          (changed.error().code == ErrorCode::failed_precondition ||
                           changed.error().code == ErrorCode::not_found);
    if (!fallBack) return changed.error();
    if (!context_)
      spdlog::warn("{}; serving {} meanwhile", changed.error().message, certificateFile_);
  }
  return fromFiles();
}

void TlsReloader::check() {
  if (quietLooks_ > 0) {
    --quietLooks_;
    return;
  }
  auto found = next();
  std::string problem;
  if (!found) {
    problem = found.error().message;
    // The managed certificate served is gone from the store: finding it again means a walk
    // over every project, so it is looked for only at every tenth look.
    if (servingManaged_ && found.error().code == ErrorCode::not_found) quietLooks_ = 9;
  } else if (*found) {
    const bool managed = (*found)->managed;
    if (auto s = context_->reload((*found)->chain, (*found)->key); !s) {
      problem = (*found)->source + ": " + s.error().message;
      if (!managed) filesLoaded_.reset();  // tried again at the next look
    } else {
      servingManaged_ = managed;
      spdlog::info("now serving HTTPS with {}", (*found)->source);
    }
  }
  if (!problem.empty() && problem != lastProblem_) {
    spdlog::warn("{} (the certificate served so far stays)", problem);
  }
  lastProblem_ = problem;
}

void TlsReloader::start() {
  stopping_ = false;
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      wake_.wait_for(lock, interval_, [this] { return stopping_.load(); });
      if (stopping_) break;
      lock.unlock();
      check();
      lock.lock();
    }
  });
}

void TlsReloader::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

TlsReloader::~TlsReloader() {
  stop();
}

}  // namespace certsteward::app
