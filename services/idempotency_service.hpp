// IdempotencyService: the Idempotency-Key rule of mutations (docs/api.md, Conventions). A
// mutation sent again with the same key and the same body within 24 hours gets the first
// answer again instead of running twice; the same key with another body is a conflict. Records
// are scoped to the caller, their roles and the route, so a replay is only ever the caller's own
// answer, and after a role change (or losing the project) the request runs — and is authorised
// — afresh. Thread-safe.
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/session.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/idempotency_store.hpp>
#include <certsteward/ports/mac.hpp>
#include <certsteward/services/access_control.hpp>

namespace certsteward::services {

struct IdempotentRequest {
  const Principal* who = nullptr;  // null: an anonymous request (scoped by client address)
  std::string client_ip;
  std::optional<domain::Id> project_id;  // the route's project, when it names one
  std::string method;
  std::string path;
  std::string key;   // the Idempotency-Key header
  std::string body;  // compared by keyed hash only
};

// An answer as it is kept and replayed.
struct KeptAnswer {
  int status = 0;
  std::string content_type;
  std::string body;
};

class IdempotencyService {
 public:
  struct Ports {
    ports::IdempotencyStore& records;
    const ports::Mac& fingerprints;  // keyed hash of request bodies
    const ports::Clock& clock;
  };
  IdempotencyService(Ports ports, const AccessControl& access) : p_(ports), access_(access) {}

  // What to do with one keyed mutation.
  struct Lookup {
    std::optional<KeptAnswer> replay;  // answered before: send this again, run nothing
    bool keep = false;                 // run it, then keep() its answer
    std::string scoped_key;
    std::string fingerprint;
  };
  // invalid_argument for a key that is not 1 to 255 printable ASCII characters; conflict when
  // the key was used with a different body. A caller who cannot see the route's project is
  // neither replayed nor kept (the request runs and answers 404 itself).
  domain::Result<Lookup> lookup(const IdempotentRequest& request);
  // Keeps `answer` for `lookup` (a no-op unless lookup.keep). A failure to keep it is not the
  // request's: it was answered; the next retry then runs again.
  void keep(const Lookup& lookup, KeptAnswer answer);

 private:
  Ports p_;
  const AccessControl& access_;
};

}  // namespace certsteward::services
