// certsteward: reads configuration, builds the application, serves HTTP, and stops cleanly on
// SIGTERM/SIGINT. No business rules live here.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <certsteward/app/application.hpp>
#include <certsteward/app/config.hpp>
#include <certsteward/app/logging.hpp>
#include <certsteward/app/store_factory.hpp>
#include <certsteward/app/version.hpp>

namespace {

using namespace certsteward;

constexpr const char* kUsage = R"(Usage: certsteward <command> [options]

Commands:
  serve [--config FILE]        run the server (HTTP API, workers, scheduler)
  user create [--config FILE] --username NAME [--role owner|admin|operator|viewer]
                               create a local user; the password is read from stdin
  user reset-password [--config FILE] --username NAME
                               a local user's new password, read from stdin; ends their sessions
  routes                       print every route of the REST API, one "METHOD /path" a line
  backup [--config FILE] --to FILE
                               a consistent copy of the SQLite store while the server runs
                               (never over an existing file); MongoDB: use mongodump
  restore [--config FILE] --from FILE
                               replace the SQLite store with a backup; refused while a server
                               uses the store or when FILE is not a CertSteward store
  config check [--config FILE] print the effective configuration (secrets masked), where each
                               value comes from, and every problem; exit 0 fine, 1 problems,
                               2 the file cannot be read
  migrate [--config FILE] --from URL --to URL
                               copy everything (users, projects, resources, certificates, jobs
                               and logs, events, settings, licence, the audit chain unchanged)
                               from one store into an empty one, e.g. sqlite://... to
                               mongodb://... and back, with every instance stopped; then count
                               each kind in both and verify the copied chain with the
                               configuration's audit key; exit 0 complete, 1 a count or the
                               chain differs (or the source's chain does not verify with the
                               key: nothing copied), 2 refused (in use, target not empty,
                               source empty) or unreadable: nothing copied, 3 stopped
                               part-way: the target holds part of the data
  audit verify [--config FILE] [--expected-sequence N --expected-checksum HEX]
                               check the whole audit chain (checksums and entry MACs) offline,
                               and that it still holds a head recorded earlier; exit 0 intact,
                               1 broken (each break printed), 2 when the store cannot be read

Options:
  --config FILE           configuration file of `key = value` lines (see docs/configuration.md);
                          every key can be overridden by CERTSTEWARD_<KEY> environment variables
  --version               print the version and exit
  --help                  print this help and exit

On first start with an empty store, `serve` creates an owner account from
CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME and CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD, or "admin" with a
generated password printed once.
)";

domain::Result<std::unique_ptr<app::Application>> build(
    const std::optional<std::string>& configPath) {
  auto config = app::loadConfigFromFileAndEnvironment(configPath);
  if (!config) return config.error();
  app::configureLogging(*config);
  return app::Application::create(*config);
}

int serve(const std::optional<std::string>& configPath) {
  // Block the stop signals in every thread (Pistache's included) and wait for them here.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  auto application = build(configPath);
  if (!application) {
    spdlog::critical("{}", application.error().message);
    return 2;
  }
  if (auto s = (*application)->bootstrap(); !s) {
    spdlog::critical("cannot create the first owner: {}", s.error().message);
    return 1;
  }
  if (auto started = (*application)->startHttp(); !started) {
    spdlog::critical("{}", started.error().message);
    return 1;
  }
  (*application)->startWorkers();
  (*application)->startScheduler();
  const auto& config = (*application)->config();
  spdlog::info("certsteward {} listening on {}:{} (store {}{})", app::kVersion,
               config.listen_address, (*application)->httpPort(),
               config.store_url.substr(0, config.store_url.find(':')),
               (*application)->servesHttps() ? ", https" : "");

  int signal = 0;
  sigwait(&stopSignals, &signal);
  spdlog::info("received {}, stopping", signal == SIGTERM ? "SIGTERM" : "SIGINT");
  (*application)->stopHttp();
  (*application)->stopScheduler();
  (*application)->stopWorkers();
  spdlog::info("stopped");
  return 0;
}

// The user commands' common part: --username required, the password read from stdin (a line),
// the application built; then `run`, which answers the exit status.
int userCommand(const char* command, const std::optional<std::string>& configPath,
                const std::map<std::string, std::string>& flags,
                const std::function<int(app::Application&, const std::string& username,
                                        const std::string& password)>& run) {
  const auto username = flags.find("--username");
  if (username == flags.end()) {
    std::fprintf(stderr, "certsteward %s: --username is required\n", command);
    return 2;
  }
  std::string password;
  std::getline(std::cin, password);
  auto application = build(configPath);
  if (!application) {
    std::fprintf(stderr, "certsteward: %s\n", application.error().message.c_str());
    return 2;
  }
  return run(**application, username->second, password);
}

int createUser(const std::optional<std::string>& configPath,
               const std::map<std::string, std::string>& flags) {
  const auto roleName = flags.count("--role") ? flags.at("--role") : std::string("viewer");
  const auto role = domain::parseOrgRole(roleName);
  if (!role) {
    std::fprintf(stderr, "certsteward user create: unknown role '%s'\n", roleName.c_str());
    return 2;
  }
  return userCommand(
      "user create", configPath, flags,
      [&](app::Application& application, const std::string& username, const std::string& password) {
        if (auto s = application.createUser(username, password, *role); !s) {
          std::fprintf(stderr, "certsteward user create: %s\n", s.error().message.c_str());
          return 1;
        }
        std::printf("created user %s (%s)\n", username.c_str(), roleName.c_str());
        return 0;
      });
}

int verifyAudit(const std::optional<std::string>& configPath,
                const std::map<std::string, std::string>& flags) {
  std::optional<domain::AuditHead> expected;
  const bool hasSequence = flags.count("--expected-sequence") != 0;
  if (hasSequence != (flags.count("--expected-checksum") != 0)) {
    std::fputs(
        "certsteward audit verify: give --expected-sequence and --expected-checksum "
        "together\n",
        stderr);
    return 2;
  }
  if (hasSequence) {
    const std::string& text = flags.at("--expected-sequence");
    char* end = nullptr;
    const long long sequence = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || sequence < 1) {
      std::fputs("certsteward audit verify: --expected-sequence must be a positive integer\n",
                 stderr);
      return 2;
    }
    expected = domain::AuditHead{sequence, flags.at("--expected-checksum")};
  }
  auto application = build(configPath);
  if (!application) {
    std::fprintf(stderr, "certsteward: %s\n", application.error().message.c_str());
    return 2;
  }
  auto result = (*application)->verifyAuditLog(expected);
  if (!result) {
    std::fprintf(stderr, "certsteward audit verify: %s\n", result.error().message.c_str());
    return 2;
  }
  if (result->intact) {
    std::printf("audit log intact: %lld entries verified%s\n",
                static_cast<long long>(result->verified),
                expected ? ", the recorded head is still there" : "");
    return 0;
  }
  std::printf("audit log BROKEN: %lld entries verified, %zu break(s)\n",
              static_cast<long long>(result->verified), result->breaks.size());
  for (const auto& b : result->breaks) {
    std::printf("  %s entry %s at %s\n", b.reason.c_str(),
                b.entry_id.empty() ? "(none)" : b.entry_id.c_str(),
                domain::formatTimestamp(b.timestamp).c_str());
  }
  return 1;
}

int checkConfiguration(const std::optional<std::string>& configPath) {
  std::map<std::string, std::string> fileValues;
  if (configPath) {
    std::ifstream in(*configPath);
    if (!in) {
      std::fprintf(stderr, "certsteward config check: cannot read %s\n", configPath->c_str());
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = app::parseConfigText(text.str());
    if (!parsed) {
      std::fprintf(stderr, "certsteward config check: %s\n", parsed.error().message.c_str());
      return 2;
    }
    fileValues = std::move(*parsed);
  }
  const auto report =
      app::checkConfig(fileValues, [](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        return v == nullptr ? std::nullopt : std::optional<std::string>(v);
      });
  for (const auto& line : report.lines) {
    std::printf("%s = %s%s\n", line.key.c_str(), line.value.c_str(),
                line.source == "default" ? "" : ("    # " + line.source).c_str());
  }
  for (const auto& warning : report.warnings)
    std::printf("\nwarning: %s\n", warning.c_str());
  if (report.problems.empty()) {
    std::printf("\nno problems\n");
    return 0;
  }
  std::printf("\n%zu problem(s):\n", report.problems.size());
  for (const auto& problem : report.problems)
    std::printf("  %s\n", problem.c_str());
  return 1;
}

int resetPassword(const std::optional<std::string>& configPath,
                  const std::map<std::string, std::string>& flags) {
  return userCommand(
      "user reset-password", configPath, flags,
      [](app::Application& application, const std::string& username, const std::string& password) {
        if (auto s = application.resetPassword(username, password); !s) {
          std::fprintf(stderr, "certsteward user reset-password: %s\n", s.error().message.c_str());
          return 1;
        }
        std::printf("new password set for %s; their sessions have ended\n", username.c_str());
        return 0;
      });
}

// backup and restore: the store.url of the configuration, and one file.
int copyStore(const char* command, const std::optional<std::string>& configPath,
              const std::map<std::string, std::string>& flags) {
  const bool backup = std::string(command) == "backup";
  const char* flag = backup ? "--to" : "--from";
  const auto file = flags.find(flag);
  if (file == flags.end()) {
    std::fprintf(stderr, "certsteward %s: %s FILE is required\n", command, flag);
    return 2;
  }
  auto config = app::loadConfigFromFileAndEnvironment(configPath);
  if (!config) {
    std::fprintf(stderr, "certsteward: %s\n", config.error().message.c_str());
    return 2;
  }
  const auto done = backup ? app::backupStore(config->store_url, file->second)
                           : app::restoreStore(config->store_url, file->second);
  if (!done) {
    std::fprintf(stderr, "certsteward %s: %s\n", command, done.error().message.c_str());
    return 1;
  }
  std::printf(backup ? "backed up the store to %s\n" : "restored the store from %s\n",
              file->second.c_str());
  return 0;
}

// migrate: the two stores from the flags; the configuration for the audit key only.
int migrate(const std::optional<std::string>& configPath,
            const std::map<std::string, std::string>& flags) {
  if (flags.count("--from") == 0 || flags.count("--to") == 0) {
    std::fputs("certsteward migrate: --from URL and --to URL are required\n", stderr);
    return 2;
  }
  const std::string& from = flags.at("--from");
  const std::string& to = flags.at("--to");
  auto config = app::loadConfigFromFileAndEnvironment(configPath);
  if (!config) {
    std::fprintf(stderr, "certsteward: %s\n", config.error().message.c_str());
    return 2;
  }
  if (auto s = app::checkMigrationStores(from, to); !s) {
    std::fprintf(stderr, "certsteward migrate: %s\n", s.error().message.c_str());
    return 2;
  }
  auto open = [&](const std::string& url) {
    app::Config c = *config;
    c.store_url = url;
    return app::Application::create(c);
  };
  auto source = open(from);
  if (!source) {
    std::fprintf(stderr, "certsteward migrate: --from: %s\n", source.error().message.c_str());
    return 2;
  }
  auto report = app::Application::migrate(
      **source, [&] { return open(to); },
      [](const std::string& line) { std::printf("  %s\n", line.c_str()); });
  if (!report) {
    std::fprintf(stderr, "certsteward migrate: %s\n", report.error().message.c_str());
    return 2;
  }
  using Verdict = services::VerifiedMigrationReport::Verdict;
  switch (report->verdict) {
    case Verdict::source_chain_broken:
      std::printf(
          "the source's audit chain does not verify with this configuration's audit key (%zu "
          "break(s)); nothing was copied. Use the configuration the source was written with, or "
          "see `certsteward audit verify`\n",
          report->source_breaks);
      return 1;
    case Verdict::stopped:
      std::fprintf(stderr,
                   "certsteward migrate: the copy STOPPED part-way: %s. The target now holds part "
                   "of the data: empty it (drop the database, or delete the file) before running "
                   "again; the source is as it was\n",
                   report->copy.stopped->message.c_str());
      return 3;
    default:
      break;
  }
  std::printf("audit log: %lld entries copied unchanged",
              static_cast<long long>(report->copy.audit_entries));
  if (report->copy.audit_head) {
    std::printf(", head %lld %s", static_cast<long long>(report->copy.audit_head->sequence),
                report->copy.audit_head->checksum.c_str());
  }
  std::printf("\n");
  if (report->verdict == Verdict::target_chain_broken) {
    std::printf("audit log: BROKEN in the target (%zu break(s))\n", report->target.breaks.size());
    return 1;
  }
  std::printf("audit log: intact in the target, %lld entries verified\n",
              static_cast<long long>(report->target.verified));
  if (report->verdict == Verdict::incomplete) {
    std::printf("migration INCOMPLETE: %s\n",
                report->counts_differ ? "a count above differs between the stores (was an instance "
                                        "writing to the source?)"
                                      : "the audit chain's head differs between the stores");
    return 1;
  }
  std::printf("migration complete\n");
  return 0;
}

int printRoutes() {
  app::Config config;
  config.store_url = "memory:";  // the table only: no data is opened or written
  // The services are built to read the router's table only: nothing is signed or sealed.
  config.jwt_secret = config.secrets_key = config.audit_signing_key =
      "the route listing signs and seals nothing with this key";
  auto application = app::Application::create(config);
  if (!application) {
    std::fprintf(stderr, "certsteward: %s\n", application.error().message.c_str());
    return 1;
  }
  for (const auto& route : (*application)->routes())
    std::printf("%s\n", route.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::vector<std::string> words;
  std::map<std::string, std::string> flags;
  std::optional<std::string> configPath;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--version") {
      std::printf("certsteward %s\n", certsteward::app::kVersion);
      return 0;
    }
    if (a == "--config" || a == "--username" || a == "--role" || a == "--expected-sequence" ||
        a == "--expected-checksum" || a == "--to" || a == "--from") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "certsteward: %s needs a value\n", a.c_str());
        return 2;
      }
      if (a == "--config") {
        configPath = args[++i];
      } else {
        flags[a] = args[++i];
      }
    } else if (!a.starts_with("-")) {
      words.push_back(a);
    } else {
      std::fprintf(stderr, "certsteward: unknown argument '%s'\n\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (words == std::vector<std::string>{"serve"}) return serve(configPath);
  if (words == std::vector<std::string>{"user", "create"}) return createUser(configPath, flags);
  if (words == std::vector<std::string>{"user", "reset-password"}) {
    return resetPassword(configPath, flags);
  }
  if (words == std::vector<std::string>{"backup"}) return copyStore("backup", configPath, flags);
  if (words == std::vector<std::string>{"restore"}) return copyStore("restore", configPath, flags);
  if (words == std::vector<std::string>{"migrate"}) return migrate(configPath, flags);
  if (words == std::vector<std::string>{"routes"}) return printRoutes();
  if (words == std::vector<std::string>{"audit", "verify"}) return verifyAudit(configPath, flags);
  if (words == std::vector<std::string>{"config", "check"}) return checkConfiguration(configPath);
  std::fprintf(stderr, "certsteward: unknown command\n\n%s", kUsage);
  return 2;
}
