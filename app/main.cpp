// certsteward: the composition root. Reads configuration, builds the adapters it names, serves
// HTTP, and stops cleanly on SIGTERM/SIGINT. No business rules live here.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "adapters/crypto/object_id_generator.hpp"
#include "adapters/crypto/system_clock.hpp"
#include "adapters/http/http_server.hpp"
#include "app/config.hpp"
#include "app/store_factory.hpp"
#include "app/version.hpp"

namespace {

using namespace certsteward;

constexpr const char* kUsage = R"(Usage: certsteward <command> [options]

Commands:
  serve [--config FILE]   run the server (HTTP API, workers, scheduler)

Options:
  --config FILE           configuration file of `key = value` lines (see docs/configuration.md);
                          every key can be overridden by CERTSTEWARD_<KEY> environment variables
  --version               print the version and exit
  --help                  print this help and exit
)";

int serve(const std::optional<std::string>& configPath) {
  // Block the stop signals in every thread (Pistache's included) and wait for them here.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  auto config = app::loadConfigFromFileAndEnvironment(configPath);
  if (!config) {
    spdlog::critical("{}", config.error().message);
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(config->log_level));

  auto store = app::openStore(config->store_url);
  if (!store) {
    spdlog::critical("{}", store.error().message);
    return 2;
  }
  adapters::crypto::SystemClock clock;
  adapters::crypto::ObjectIdGenerator ids(clock);

  adapters::http::HttpServerOptions httpOptions;
  httpOptions.address = config->listen_address;
  httpOptions.port = config->listen_port;
  httpOptions.threads = config->http_threads;
  httpOptions.max_request_bytes = config->max_request_bytes;
  adapters::http::HttpServer server(httpOptions, **store, ids);
  if (auto started = server.start(); !started) {
    spdlog::critical("{}", started.error().message);
    return 1;
  }
  spdlog::info("certsteward {} listening on {}:{} (store {})", app::kVersion,
               config->listen_address, server.port(),
               config->store_url.substr(0, config->store_url.find(':')));

  int signal = 0;
  sigwait(&stopSignals, &signal);
  spdlog::info("received {}, stopping", signal == SIGTERM ? "SIGTERM" : "SIGINT");
  server.stop();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::optional<std::string> command;
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
    if (a == "--config") {
      if (i + 1 >= args.size()) {
        std::fputs("certsteward: --config needs a file name\n", stderr);
        return 2;
      }
      configPath = args[++i];
    } else if (!command && !a.starts_with("-")) {
      command = a;
    } else {
      std::fprintf(stderr, "certsteward: unknown argument '%s'\n\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (command == "serve") return serve(configPath);
  std::fprintf(stderr, "certsteward: unknown command '%s'\n\n%s", command.value_or("").c_str(),
               kUsage);
  return 2;
}
