// The schema, one migration per version. Never edit a released migration: add the next one.
// Version 1 is the SQLite store's schema at its version 10, in PostgreSQL's types: each row keeps
// the codec's document (`doc`, JSON text) beside the columns its queries filter and order on.
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
  id text PRIMARY KEY,
  project_id text NOT NULL,
  status text NOT NULL,
  issuer_type text NOT NULL,
  common_name text NOT NULL,
  names text NOT NULL DEFAULT '',
  auto_renew boolean NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint,
  next_renewal_at bigint,
  ari_poll_at bigint,
  distribution_pending boolean NOT NULL,
  distribution_pending_since bigint,
  version bigint NOT NULL,
  doc text NOT NULL
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
  project_id text NOT NULL,
  status text NOT NULL,
  issuer_type text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (project_id, status, issuer_type)
);
CREATE TABLE certificate_generations (
  project_id text PRIMARY KEY,
  generation bigint NOT NULL
);
CREATE FUNCTION certificates_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
  INSERT INTO certificate_generations AS g (project_id, generation)
    VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.project_id ELSE NEW.project_id END, 1)
    ON CONFLICT (project_id) DO UPDATE SET generation = g.generation + 1;
  RETURN NULL;
END
$$;
CREATE TRIGGER certificates_counted AFTER INSERT OR UPDATE OR DELETE ON certificates
  FOR EACH ROW EXECUTE FUNCTION certificates_counted();

CREATE TABLE jobs (
  id text PRIMARY KEY,
  project_id text NOT NULL,
  lane text NOT NULL,
  type text NOT NULL,
  status text NOT NULL,
  certificate_id text,
  idempotency_key text,
  next_run_at bigint NOT NULL,
  lock_expires_at bigint,
  doc text NOT NULL
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
  job_id text NOT NULL,
  ts bigint NOT NULL,
  level text NOT NULL,
  message text NOT NULL
);
CREATE INDEX job_logs_job ON job_logs (job_id, seq);

CREATE TABLE projects (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  doc text NOT NULL
);

CREATE TABLE users (
  id text PRIMARY KEY,
  username text NOT NULL UNIQUE,
  doc text NOT NULL
);

CREATE TABLE memberships (
  project_id text NOT NULL,
  user_id text NOT NULL,
  role text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);
CREATE INDEX memberships_project_created ON memberships (project_id, created_at);

-- Project-scoped resources of every kind (acme_account, zone, ...); `ref` and `ref2` are the
-- extra lookup keys a kind needs (a distribution's certificate_id, a zone's domain; a
-- notification delivery's channel and the rule holding it for a digest).
CREATE TABLE resources (
  kind text NOT NULL,
  id text NOT NULL,
  project_id text NOT NULL,
  ref text,
  ref2 text,
  doc text NOT NULL,
  PRIMARY KEY (kind, id)
);
CREATE INDEX resources_project ON resources (kind, project_id, id);
CREATE INDEX resources_ref ON resources (kind, project_id, ref, id);
CREATE INDEX resources_ref2 ON resources (kind, project_id, ref2, id) WHERE ref2 IS NOT NULL;

CREATE TABLE audit_log (
  seq bigint PRIMARY KEY,
  id text NOT NULL UNIQUE,
  ts bigint NOT NULL,
  action text NOT NULL,
  resource_type text NOT NULL,
  actor_user_id text NOT NULL,
  project_id text,
  checksum text NOT NULL,
  doc text NOT NULL
);
CREATE INDEX audit_log_ts ON audit_log (ts);
CREATE INDEX audit_log_action ON audit_log (action, seq);
CREATE INDEX audit_log_actor ON audit_log (actor_user_id, seq);

CREATE TABLE license (
  id integer PRIMARY KEY CHECK (id = 1),
  doc text NOT NULL
);

CREATE TABLE refresh_tokens (
  token_id text PRIMARY KEY,
  family_id text NOT NULL,
  user_id text NOT NULL,
  issued_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  consumed boolean NOT NULL DEFAULT false,
  revoked boolean NOT NULL DEFAULT false
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);
CREATE INDEX refresh_tokens_expires ON refresh_tokens (expires_at);

CREATE TABLE idempotency (
  key text PRIMARY KEY,
  expires_at bigint NOT NULL,
  doc text NOT NULL
);
CREATE INDEX idempotency_expires ON idempotency (expires_at);

CREATE TABLE rate_limits (
  bucket text NOT NULL,
  window_start bigint NOT NULL,
  window_end bigint NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_limits_end ON rate_limits (window_end);

CREATE TABLE leader_locks (
  name text PRIMARY KEY,
  holder text NOT NULL,
  expires_at bigint NOT NULL
);

CREATE TABLE settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at bigint NOT NULL
);

CREATE TABLE events (
  id text PRIMARY KEY,
  project_id text NOT NULL,
  at bigint NOT NULL,
  kind text NOT NULL,
  resource_id text NOT NULL,
  message text NOT NULL
);
CREATE INDEX events_project_at ON events (project_id, at DESC, id DESC);

CREATE TABLE ca_activity (
  id text PRIMARY KEY,
  directory_url text NOT NULL,
  registered_domain text NOT NULL,
  kind text NOT NULL,
  at bigint NOT NULL,
  project_id text NOT NULL,
  account_id text NOT NULL,
  retry_until bigint,
  detail text NOT NULL
);
CREATE INDEX ca_activity_domain ON ca_activity (directory_url, registered_domain, kind, at);
CREATE INDEX ca_activity_at ON ca_activity (at);

CREATE TABLE challenge_tokens (
  token text PRIMARY KEY,
  key_authorization text NOT NULL,
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
    auto step = db.transact({kMigrationGuard}, [&]() -> domain::Status {
      return guarded([&]() -> domain::Status {
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
