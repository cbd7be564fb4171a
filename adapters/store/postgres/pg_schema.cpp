// The schema, one migration per version. Never edit a released migration: add the next one.
// Version 1 is the SQLite store's schema at its version 10, in PostgreSQL's types: each row keeps
// the codec's document (`doc`, JSON text) beside the columns its queries filter and order on.
// Text columns compare bytes (COLLATE "C"), as SQLite does, whatever the database's locale: ids,
// names and keys sort the same on both stores.
#include <certsteward/adapters/store/postgres/pg_schema.hpp>

#include <array>
#include <string>

namespace certsteward::adapters::postgres {
namespace {

// Index notes: every list/sweep query of the ports has an index whose leading columns match its
// filter and whose trailing columns match its order, so no query reads a table end to end.
// Times are milliseconds since the epoch (bigint), as the codec writes them.
constexpr std::array<const char*, 1> kMigrations{
    // 1: the initial schema.
    R"SQL(
CREATE TABLE certificates (
  id text COLLATE "C" PRIMARY KEY,
  project_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  issuer_type text COLLATE "C" NOT NULL,
  common_name text COLLATE "C" NOT NULL,
  names text COLLATE "C" NOT NULL DEFAULT '',
  auto_renew boolean NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint,
  next_renewal_at bigint,
  ari_poll_at bigint,
  distribution_pending boolean NOT NULL,
  distribution_pending_since bigint,
  version bigint NOT NULL,
  doc text COLLATE "C" NOT NULL
);
CREATE INDEX certificates_project_created ON certificates (project_id, created_at, id);
CREATE INDEX certificates_project_status_expires
  ON certificates (project_id, status, expires_at, id);
CREATE INDEX certificates_project_expires ON certificates (project_id, expires_at, id);
CREATE INDEX certificates_project_renewal ON certificates (project_id, next_renewal_at, id);
CREATE INDEX certificates_project_name ON certificates (project_id, common_name, id);
CREATE INDEX certificates_due ON certificates (next_renewal_at, id)
  WHERE auto_renew AND status IN ('active', 'renewal_failed');
CREATE INDEX certificates_distribution_pending ON certificates (distribution_pending_since, id)
  WHERE distribution_pending;
CREATE INDEX certificates_expires ON certificates (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX certificates_renewal_info ON certificates (ari_poll_at, id)
  WHERE ari_poll_at IS NOT NULL;

-- Counts per (project, status, issuer) and a generation per project, kept by a trigger in the
-- writing transaction: a list's `total` and the licence count never scan the certificates, and
-- cached list pages are checked against the generation.
CREATE TABLE certificate_counts (
  project_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  issuer_type text COLLATE "C" NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (project_id, status, issuer_type)
);
CREATE TABLE certificate_generations (
  project_id text COLLATE "C" PRIMARY KEY,
  generation bigint NOT NULL
);
CREATE FUNCTION certificates_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- The project's generation first: every write of a project takes that row, so two writes of
  -- one project queue there before either touches a count row (no deadlock between counts).
  INSERT INTO certificate_generations AS g (project_id, generation)
    VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.project_id ELSE NEW.project_id END, 1)
    ON CONFLICT (project_id) DO UPDATE SET generation = g.generation + 1;
  IF TG_OP = 'UPDATE' AND OLD.project_id <> NEW.project_id THEN
    INSERT INTO certificate_generations AS g (project_id, generation)
      VALUES (OLD.project_id, 1)
      ON CONFLICT (project_id) DO UPDATE SET generation = g.generation + 1;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND (TG_OP = 'DELETE' OR OLD.project_id <> NEW.project_id
      OR OLD.status <> NEW.status OR OLD.issuer_type <> NEW.issuer_type) THEN
    UPDATE certificate_counts SET n = n - 1
      WHERE project_id = OLD.project_id AND status = OLD.status
        AND issuer_type = OLD.issuer_type;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (OLD.project_id <> NEW.project_id
      OR OLD.status <> NEW.status OR OLD.issuer_type <> NEW.issuer_type)) THEN
    INSERT INTO certificate_counts AS c (project_id, status, issuer_type, n)
      VALUES (NEW.project_id, NEW.status, NEW.issuer_type, 1)
      ON CONFLICT (project_id, status, issuer_type) DO UPDATE SET n = c.n + 1;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER certificates_counted AFTER INSERT OR UPDATE OR DELETE ON certificates
  FOR EACH ROW EXECUTE FUNCTION certificates_counted();

CREATE TABLE jobs (
  id text COLLATE "C" PRIMARY KEY,
  project_id text COLLATE "C" NOT NULL,
  lane text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  certificate_id text COLLATE "C",
  idempotency_key text COLLATE "C",
  next_run_at bigint NOT NULL,
  lock_expires_at bigint,
  doc text COLLATE "C" NOT NULL
);
CREATE INDEX jobs_waiting ON jobs (lane, next_run_at, id) WHERE status IN ('pending', 'failed');
CREATE INDEX jobs_locked ON jobs (lane, lock_expires_at, id) WHERE status = 'active';
CREATE INDEX jobs_project ON jobs (project_id, id);
CREATE INDEX jobs_project_status ON jobs (project_id, status, id);
CREATE INDEX jobs_project_type ON jobs (project_id, type, id);
CREATE INDEX jobs_project_certificate ON jobs (project_id, certificate_id, id);
CREATE INDEX jobs_status_type ON jobs (status, type);
CREATE UNIQUE INDEX jobs_unfinished_key ON jobs (idempotency_key)
  WHERE idempotency_key IS NOT NULL AND status IN ('pending', 'active', 'failed');

CREATE TABLE job_logs (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id text COLLATE "C" NOT NULL,
  ts bigint NOT NULL,
  level text COLLATE "C" NOT NULL,
  message text COLLATE "C" NOT NULL
);
CREATE INDEX job_logs_job ON job_logs (job_id, seq);

CREATE TABLE projects (
  id text COLLATE "C" PRIMARY KEY,
  name text COLLATE "C" NOT NULL UNIQUE,
  doc text COLLATE "C" NOT NULL
);

CREATE TABLE users (
  id text COLLATE "C" PRIMARY KEY,
  username text COLLATE "C" NOT NULL UNIQUE,
  doc text COLLATE "C" NOT NULL
);

CREATE TABLE memberships (
  project_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  role text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);
CREATE INDEX memberships_project_created ON memberships (project_id, created_at, user_id);

-- Project-scoped resources of every kind (acme_account, zone, ...); `ref` and `ref2` are the
-- extra lookup keys a kind needs (a distribution's certificate_id, a zone's domain; a
-- notification delivery's channel and the rule holding it for a digest).
CREATE TABLE resources (
  kind text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  project_id text COLLATE "C" NOT NULL,
  ref text COLLATE "C",
  ref2 text COLLATE "C",
  doc text COLLATE "C" NOT NULL,
  PRIMARY KEY (kind, id)
);
CREATE INDEX resources_project ON resources (kind, project_id, id);
CREATE INDEX resources_ref ON resources (kind, project_id, ref, id);
CREATE INDEX resources_ref2 ON resources (kind, project_id, ref2, id) WHERE ref2 IS NOT NULL;

CREATE TABLE audit_log (
  seq bigint PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  ts bigint NOT NULL,
  action text COLLATE "C" NOT NULL,
  resource_type text COLLATE "C" NOT NULL,
  actor_user_id text COLLATE "C" NOT NULL,
  project_id text COLLATE "C",
  checksum text COLLATE "C" NOT NULL,
  doc text COLLATE "C" NOT NULL
);
CREATE INDEX audit_log_ts ON audit_log (ts);
CREATE INDEX audit_log_action ON audit_log (action, seq);
CREATE INDEX audit_log_actor ON audit_log (actor_user_id, seq);

CREATE TABLE license (
  id integer PRIMARY KEY CHECK (id = 1),
  doc text COLLATE "C" NOT NULL
);

CREATE TABLE refresh_tokens (
  token_id text COLLATE "C" PRIMARY KEY,
  family_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  issued_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  consumed boolean NOT NULL DEFAULT false,
  revoked boolean NOT NULL DEFAULT false
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);
CREATE INDEX refresh_tokens_expires ON refresh_tokens (expires_at);

CREATE TABLE idempotency (
  key text COLLATE "C" PRIMARY KEY,
  expires_at bigint NOT NULL,
  doc text COLLATE "C" NOT NULL
);
CREATE INDEX idempotency_expires ON idempotency (expires_at);

CREATE TABLE rate_limits (
  bucket text COLLATE "C" NOT NULL,
  window_start bigint NOT NULL,
  window_end bigint NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_limits_end ON rate_limits (window_end);

CREATE TABLE leader_locks (
  name text COLLATE "C" PRIMARY KEY,
  holder text COLLATE "C" NOT NULL,
  expires_at bigint NOT NULL
);

CREATE TABLE settings (
  key text COLLATE "C" PRIMARY KEY,
  value text COLLATE "C" NOT NULL,
  updated_at bigint NOT NULL
);

-- `seq`: the order events were recorded in (SQLite's rowid), which listing in order follows.
CREATE TABLE events (
  seq bigint GENERATED BY DEFAULT AS IDENTITY UNIQUE,
  id text COLLATE "C" PRIMARY KEY,
  project_id text COLLATE "C" NOT NULL,
  at bigint NOT NULL,
  kind text COLLATE "C" NOT NULL,
  resource_id text COLLATE "C" NOT NULL,
  message text COLLATE "C" NOT NULL
);
CREATE INDEX events_project_at ON events (project_id, at DESC, id DESC);
CREATE INDEX events_project_seq ON events (project_id, seq);

CREATE TABLE ca_activity (
  id text COLLATE "C" PRIMARY KEY,
  directory_url text COLLATE "C" NOT NULL,
  registered_domain text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  at bigint NOT NULL,
  project_id text COLLATE "C" NOT NULL,
  account_id text COLLATE "C" NOT NULL,
  retry_until bigint,
  detail text COLLATE "C" NOT NULL
);
CREATE INDEX ca_activity_domain ON ca_activity (directory_url, registered_domain, kind, at);
CREATE INDEX ca_activity_at ON ca_activity (at);

CREATE TABLE challenge_tokens (
  token text COLLATE "C" PRIMARY KEY,
  key_authorization text COLLATE "C" NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX challenge_tokens_expires ON challenge_tokens (expires_at);
)SQL",
};

// The advisory lock migrations hold (one process migrates at a time).
constexpr const char* kMigrationGuard = "certsteward:schema";

}  // namespace

int latestSchemaVersion() {
  return static_cast<int>(kMigrations.size());
}

domain::Status migrate(PgDatabase& db) {
  for (int version = 1; version <= latestSchemaVersion(); ++version) {
    auto step = db.transact({}, [&]() -> domain::Status {
      return guarded([&]() -> domain::Status {
        // A migration (an index on a full table), and the wait of the processes behind it, may
        // take longer than a statement's usual limit.
        db.exec("SET LOCAL statement_timeout = 0");
        db.exec("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", {kMigrationGuard});
        db.exec(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, "
            "applied_at bigint NOT NULL)");
        const auto current =
            db.exec("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").integer(0, 0);
        if (current > latestSchemaVersion()) {
          return domain::makeError(
              domain::ErrorCode::failed_precondition,
              "the database schema is version " + std::to_string(current) +
                  " but this certsteward knows only up to " +
                  std::to_string(latestSchemaVersion()) +
                  "; run the newer certsteward that wrote it (downgrades are not supported)");
        }
        if (current >= version) return {};
        db.script(kMigrations[static_cast<std::size_t>(version - 1)]);
        db.exec(
            "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, "
            "(extract(epoch FROM clock_timestamp()) * 1000)::bigint)",
            {std::to_string(version)});
        return {};
      });
    });
    if (!step) return step;
  }
  return {};
}

}  // namespace certsteward::adapters::postgres
