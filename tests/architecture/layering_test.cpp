// The dependency rule, layer by layer (docs/architecture.md): the model includes only the
// standard library and itself; ports the model; services the ports; adapters their own
// libraries, the model, the ports and adapters/common — never one another (the store adapters
// share their codec; the REST API is served by the HTTP transport), and only the REST adapter
// calls services; app/ wires everything. Any
// include against these arrows fails this test.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Standard library headers (C++20 and the C compatibility headers).
const std::set<std::string>& standardHeaders() {
  static const std::set<std::string> headers{"algorithm",
                                             "any",
                                             "array",
                                             "atomic",
                                             "bit",
                                             "bitset",
                                             "cassert",
                                             "cctype",
                                             "cerrno",
                                             "cfloat",
                                             "charconv",
                                             "chrono",
                                             "cinttypes",
                                             "climits",
                                             "cmath",
                                             "compare",
                                             "concepts",
                                             "condition_variable",
                                             "cstddef",
                                             "cstdint",
                                             "cstdio",
                                             "cstdlib",
                                             "cstring",
                                             "ctime",
                                             "deque",
                                             "exception",
                                             "expected",
                                             "format",
                                             "forward_list",
                                             "functional",
                                             "initializer_list",
                                             "iomanip",
                                             "ios",
                                             "iosfwd",
                                             "iostream",
                                             "istream",
                                             "iterator",
                                             "limits",
                                             "list",
                                             "map",
                                             "memory",
                                             "mutex",
                                             "new",
                                             "numeric",
                                             "optional",
                                             "ostream",
                                             "queue",
                                             "random",
                                             "ranges",
                                             "ratio",
                                             "regex",
                                             "set",
                                             "shared_mutex",
                                             "source_location",
                                             "span",
                                             "sstream",
                                             "stack",
                                             "stdexcept",
                                             "string",
                                             "string_view",
                                             "system_error",
                                             "thread",
                                             "tuple",
                                             "type_traits",
                                             "typeinfo",
                                             "unordered_map",
                                             "unordered_set",
                                             "utility",
                                             "variant",
                                             "vector"};
  return headers;
}

// Parses `#include <x>` / `#include "x"` (spaces allowed around '#'); false for other lines.
bool parseInclude(const std::string& line, char& delimiter, std::string& path) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return false;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return false;
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos || (line[i] != '<' && line[i] != '"')) return false;
  delimiter = line[i];
  const std::size_t close = line.find(delimiter == '<' ? '>' : '"', i + 1);
  if (close == std::string::npos) return false;
  path = line.substr(i + 1, close - i - 1);
  return true;
}

// The layer a source file belongs to, from its path relative to the source root ("" for files
// outside every layer).
std::string layerOf(const std::string& path) {
  if (path.starts_with("domain/")) return "model";
  if (path.starts_with("ports/")) return "ports";
  if (path.starts_with("services/")) return "services";
  if (path.starts_with("adapters/store/")) {  // each store is an adapter of its own
    const auto end = path.find('/', std::string("adapters/store/").size());
    return end == std::string::npos ? "" : path.substr(0, end);
  }
  if (path.starts_with("adapters/")) {
    const auto end = path.find('/', std::string("adapters/").size());
    return end == std::string::npos ? "" : path.substr(0, end);
  }
  if (path.starts_with("app/")) return "app";
  if (path.starts_with("testing/")) return "testing";
  return "";
}

// Adapters driven by people (the REST API) and by time (adapters/runtime: the worker threads and
// the scheduler loop) call the use cases; every other adapter implements a port and knows only
// the ports and the model.
bool drivesServices(const std::string& adapter) {
  return adapter == "adapters/rest" || adapter == "adapters/runtime";
}

// The adapters built on another: the REST API is served by the HTTP transport (its request and
// response types, its content codings and its application interface), and so is the web UI's
// static site (its request and response types and content codings only).
bool servedBy(const std::string& adapter, const std::string& path) {
  const bool message =
      path == "adapters/http/http_types.hpp" || path == "adapters/http/compression.hpp";
  if (adapter == "adapters/webui") return message;
  return adapter == "adapters/rest" && (message || path == "adapters/http/http_server.hpp");
}

// A path of this project's own tree without its prefix: `"domain/x.hpp"` or `<ports/x.hpp>`
// would reach a header past the one include root every consumer has.
bool ownTreeUnprefixed(const std::string& path) {
  for (const char* top :
       {"domain/", "ports/", "services/", "adapters/", "app/", "testing/", "tests/", "support/"}) {
    if (path.starts_with(top)) return true;
  }
  return false;
}

// Whether a file of `layer` may include `included` (quoted when `quoted`, else in angle
// brackets). This project's headers are included only as <certsteward/...>; quotes are never
// needed in a layer (third-party headers are in angle brackets too).
bool allowed(const std::string& layer, bool quoted, const std::string& included) {
  if (quoted || ownTreeUnprefixed(included)) return false;
  const std::string prefix = "certsteward/";
  const bool own = included.starts_with(prefix);
  const std::string path = own ? included.substr(prefix.size()) : included;
  const bool standard = !own && standardHeaders().count(path) == 1;
  const bool model = own && path.starts_with("domain/");
  const bool ports = own && path.starts_with("ports/");
  const bool services = own && path.starts_with("services/");
  if (own && path.starts_with("app/")) return layer == "app";
  if (layer == "model") return standard || model;
  if (layer == "ports") return standard || model || ports;
  if (layer == "services") return standard || model || ports || services;
  // The memory store ships with the core: it knows the model and the ports only.
  if (layer == "adapters/store/memory") {
    return standard || model || ports || (own && path.starts_with(layer + "/"));
  }
  if (layer.starts_with("adapters/")) {
    if (!own) return true;  // the adapter's own third-party libraries
    // The REST API reaches the store only through the services: it parses, calls one, renders.
    if (model || ports) return !(layer == "adapters/rest" && path == "ports/store.hpp");
    if (services) return drivesServices(layer);
    if (path.starts_with(layer + "/") || path.starts_with("adapters/common/")) return true;
    if (servedBy(layer, path)) return true;
    // The store adapters share the JSON codec of the domain's records.
    return layer.starts_with("adapters/store/") && path.starts_with("adapters/store/codec/");
  }
  if (layer == "testing") {  // shipped with the core: no adapter but the memory store
    return standard || model || ports || services || (!own && path == "doctest/doctest.h") ||
           (own && (path.starts_with("testing/") || path.starts_with("adapters/store/memory/")));
  }
  return layer == "app";  // the composition root wires everything; no other layer exists
}

// The include lines of one file that run against the arrows of its layer.
std::vector<std::string> violations(const std::string& path, const std::string& text) {
  const std::string layer = layerOf(path);
  std::vector<std::string> bad;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    char delimiter = 0;
    std::string included;
    if (!parseInclude(line, delimiter, included)) continue;
    if (!allowed(layer, delimiter == '"', included)) bad.push_back(line);
  }
  return bad;
}

}  // namespace

TEST_CASE("architecture: the checker flags every include against the arrows, layer by layer") {
  const struct {
    const char* file;
    const char* include;
    bool ok;
  } rows[] = {
      // the model: the standard library and itself
      {"domain/job.cpp", "#include <vector>", true},
      {"domain/job.cpp", "#include <certsteward/domain/time.hpp>", true},
      {"domain/audit.hpp", "#include <certsteward/ports/mac.hpp>", false},
      {"domain/job.cpp", "#include <certsteward/services/job_service.hpp>", false},
      {"domain/job.cpp", "#include <boost/json.hpp>", false},
      {"domain/job.cpp", "#include <openssl/evp.h>", false},
      {"domain/job.cpp", "#include <vector.h>", false},
      {"domain/job.cpp", "  #  include <certsteward/adapters/http/http_server.hpp>", false},
      // ports: the model and themselves
      {"ports/clock.hpp", "#include <certsteward/domain/time.hpp>", true},
      {"ports/store.hpp", "#include <certsteward/ports/clock.hpp>", true},
      {"ports/store.hpp", "#include <certsteward/services/unit_of_work.hpp>", false},
      {"ports/store.hpp", "#include <sqlite3.h>", false},
      // services: model, ports, services
      {"services/job_service.cpp", "#include <certsteward/ports/job_queue.hpp>", true},
      {"services/job_service.cpp", "#include <certsteward/services/access_control.hpp>", true},
      {"services/job_service.cpp", "#include <certsteward/adapters/crypto/openssl_mac.hpp>", false},
      {"services/job_service.cpp", "#include <certsteward/app/config.hpp>", false},
      {"services/job_service.cpp", "#include <spdlog/spdlog.h>", false},
      // adapters: their libraries, model, ports, themselves, adapters/common — not each other
      {"adapters/crypto/openssl_mac.cpp", "#include <openssl/evp.h>", true},
      {"adapters/crypto/openssl_mac.cpp", "#include <certsteward/adapters/crypto/openssl_mac.hpp>",
       true},
      {"adapters/crypto/jwt_token_codec.hpp",
       "#include <certsteward/adapters/common/bounded_cache.hpp>", true},
      {"adapters/acme/acme_issuer.cpp",
       "#include <certsteward/adapters/crypto/ed25519_license_verifier.hpp>", false},
      {"adapters/rest/api.hpp", "#include <certsteward/adapters/metrics/prometheus_registry.hpp>",
       false},
      {"adapters/rest/api.hpp", "#include <certsteward/services/auth_service.hpp>", true},
      {"adapters/rest/api.cpp", "#include <certsteward/ports/store.hpp>", false},
      {"adapters/runtime/worker_pool.hpp", "#include <certsteward/services/job_runner.hpp>", true},
      {"adapters/dns/rfc2136.cpp", "#include <certsteward/services/job_runner.hpp>", false},
      {"adapters/rest/api.cpp", "#include <certsteward/ports/job_queue.hpp>", true},
      {"adapters/dns/rfc2136.cpp", "#include <certsteward/ports/store.hpp>", true},
      {"adapters/crypto/openssl_mac.cpp", "#include <certsteward/services/audit_sealer.hpp>",
       false},
      {"adapters/store/sqlite/sqlite_store.cpp",
       "#include <certsteward/adapters/store/codec/json_codec.hpp>", true},
      {"adapters/store/sqlite/sqlite_store.cpp",
       "#include <certsteward/adapters/store/mongo/mongo_store.hpp>", false},
      {"adapters/dns/exec_dns_provider.cpp",
       "#include <certsteward/adapters/store/codec/json_codec.hpp>", false},
      {"adapters/dns/exec_dns_provider.cpp", "#include <certsteward/app/config.hpp>", false},
      // the test doubles: the core, the memory store, doctest — no server adapter
      {"testing/contract/records_contract.hpp", "#include <doctest/doctest.h>", true},
      {"testing/fakes.hpp", "#include <certsteward/ports/mac.hpp>", true},
      {"testing/contract/audit_log_contract.hpp",
       "#include <certsteward/adapters/crypto/openssl_mac.hpp>", false},
      {"testing/fakes.hpp", "#include <openssl/evp.h>", false},
      // one prefix for this project's headers: none without it, in quotes or angle brackets
      {"adapters/crypto/openssl_mac.cpp", "#include <adapters/acme/acme_issuer.hpp>", false},
      {"adapters/crypto/openssl_mac.cpp", "#include \"adapters/crypto/openssl_mac.hpp\"", false},
      {"domain/job.cpp", "#include <domain/time.hpp>", false},
      {"domain/job.cpp", "#include \"domain/time.hpp\"", false},
      {"services/job_service.cpp", "#include \"certsteward/ports/job_queue.hpp\"", false},
      {"testing/fakes.hpp", "#include \"fake_clock.hpp\"", false},
      {"app/main.cpp", "#include \"app/config.hpp\"", false},
      // the memory store ships with the core: model and ports only
      {"adapters/store/memory/memory_store.cpp",
       "#include <certsteward/adapters/common/bounded_cache.hpp>", false},
      {"adapters/store/memory/memory_store.cpp",
       "#include <certsteward/adapters/store/codec/json_codec.hpp>", false},
      {"adapters/store/memory/memory_store.cpp", "#include <boost/json.hpp>", false},
      // the REST API sees the transport's interface, not its internals
      {"adapters/rest/api.cpp", "#include <certsteward/adapters/http/request_pool.hpp>", false},
      {"adapters/rest/api.cpp", "#include <certsteward/adapters/http/compression.hpp>", true},
      {"adapters/webui/static_site.hpp", "#include <certsteward/adapters/http/compression.hpp>",
       true},
      {"adapters/webui/static_site.hpp", "#include <certsteward/adapters/http/tls_context.hpp>",
       false},
      {"adapters/webui/static_site.hpp", "#include <certsteward/adapters/http/http_types.hpp>",
       true},
      {"adapters/webui/static_site.cpp", "#include <certsteward/adapters/http/http_server.hpp>",
       false},
      {"adapters/webui/static_site.cpp", "#include <certsteward/adapters/rest/api.hpp>", false},
      // a file outside every layer is refused until it is given one
      {"adapters/stray.cpp", "#include <vector>", false},
      // app wires everything
      {"app/application.cpp", "#include <certsteward/adapters/rest/api.hpp>", true},
      {"app/application.cpp", "#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>",
       true},
  };
  for (const auto& row : rows) {
    CAPTURE(row.file);
    CAPTURE(row.include);
    CHECK(violations(row.file, std::string(row.include) + "\n").empty() == row.ok);
  }
  CHECK(layerOf("adapters/store/sqlite/sqlite_store.cpp") == "adapters/store/sqlite");
  CHECK(layerOf("adapters/rest/api.cpp") == "adapters/rest");
  CHECK(layerOf("services/job_service.cpp") == "services");
  CHECK(layerOf("domain/services/job_service.cpp") == "model");
}

TEST_CASE("architecture: every file of every layer includes only what its layer may") {
  const fs::path root = CERTSTEWARD_SOURCE_DIR;
  std::map<std::string, int> files;
  for (const char* top : {"domain", "ports", "services", "adapters", "app", "testing"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const auto ext = entry.path().extension();
      if (ext != ".hpp" && ext != ".cpp" && ext != ".h") continue;
      const std::string path = entry.path().lexically_relative(root).generic_string();
      std::ifstream in(entry.path());
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      ++files[layerOf(path)];
      for (const auto& line : violations(path, text)) {
        FAIL_CHECK(path << ": " << line);
      }
    }
  }
  // The scan really read every layer.
  CHECK(files["model"] > 20);
  CHECK(files["ports"] > 20);
  CHECK(files["services"] > 20);
  CHECK(files["adapters/http"] > 5);
  CHECK(files["adapters/rest"] > 10);
  CHECK(files["adapters/store/sqlite"] > 5);
  CHECK(files["app"] > 5);
  CHECK(files["testing"] > 5);
}

TEST_CASE("architecture: no test case name contains a semicolon (CTest would split it)") {
  const fs::path root = CERTSTEWARD_SOURCE_DIR;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root / "tests")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ++files;
    for (const std::string opener : {"TEST_CASE(\"", "TEST_CASE_TEMPLATE(\""}) {
      for (std::size_t at = text.find(opener); at != std::string::npos;
           at = text.find(opener, at + 1)) {
        const auto open = at + opener.size() - 1;
        const auto close = text.find('"', open + 1);
        if (close == std::string::npos) break;
        const std::string name = text.substr(open + 1, close - open - 1);
        CHECK_MESSAGE(name.find(';') == std::string::npos, entry.path().filename().string()
                                                               << ": " << name);
      }
    }
  }
  CHECK(files > 10);
}

TEST_CASE("architecture: the REST API decides no access itself and reads no store") {
  // Who may do what is a service's rule (docs/architecture.md): a route asks the service it calls.
  const fs::path root = CERTSTEWARD_SOURCE_DIR;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(root / "adapters" / "rest")) {
    const auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".hpp") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ++files;
    for (const char* forbidden :
         {"access.check(", "ports::Store", "ports::Issuer", "ports::DnsProviderFactory"}) {
      CHECK_MESSAGE(text.find(forbidden) == std::string::npos, entry.path().filename().string()
                                                                   << " uses " << forbidden);
    }
  }
  CHECK(files > 10);
}
