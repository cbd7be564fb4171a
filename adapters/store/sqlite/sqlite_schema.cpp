// The schema, one migration per version. Never edit a released migration: add the next one.
#include <certsteward/adapters/store/sqlite/sqlite_schema.hpp>

#include <array>
#include <string>

namespace certsteward::adapters::sqlite {
namespace {

// Index notes: every list/sweep query of the ports has an index whose leading columns match its
// filter and whose trailing columns match its order, so no query reads a table end to end.
constexpr std::array<const char*, 10> kMigrations{
    // 1: the initial schema.
    R"SQL(
CREATE TABLE certificates (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  status TEXT NOT NULL,
  issuer_type TEXT NOT NULL,
  common_name TEXT NOT NULL,
  auto_renew INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  next_renewal_at INTEGER,
  distribution_pending INTEGER NOT NULL,
  distribution_pending_since INTEGER,
  version INTEGER NOT NULL,
  doc TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX certificates_project_created ON certificates(project_id, created_at, id);
CREATE INDEX certificates_project_status_expires ON certificates(project_id, status, expires_at, id);
CREATE INDEX certificates_project_expires ON certificates(project_id, expires_at, id);
CREATE INDEX certificates_project_renewal ON certificates(project_id, next_renewal_at, id);
CREATE INDEX certificates_project_name ON certificates(project_id, common_name, id);
CREATE INDEX certificates_due ON certificates(next_renewal_at, id)
  WHERE auto_renew = 1 AND status IN ('active', 'renewal_failed');
CREATE INDEX certificates_distribution_pending ON certificates(distribution_pending_since, id)
  WHERE distribution_pending = 1;

-- Counts per (project, status, issuer) kept by triggers, so a list's `total` and the licence
-- count never scan the certificates.
CREATE TABLE certificate_counts (
  project_id TEXT NOT NULL,
  status TEXT NOT NULL,
  issuer_type TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (project_id, status, issuer_type)
) WITHOUT ROWID;
CREATE TRIGGER certificates_count_insert AFTER INSERT ON certificates BEGIN
  INSERT INTO certificate_counts (project_id, status, issuer_type, n)
    VALUES (NEW.project_id, NEW.status, NEW.issuer_type, 1)
    ON CONFLICT (project_id, status, issuer_type) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER certificates_count_delete AFTER DELETE ON certificates BEGIN
  UPDATE certificate_counts SET n = n - 1
    WHERE project_id = OLD.project_id AND status = OLD.status AND issuer_type = OLD.issuer_type;
END;
CREATE TRIGGER certificates_count_update AFTER UPDATE OF project_id, status, issuer_type
  ON certificates BEGIN
  UPDATE certificate_counts SET n = n - 1
    WHERE project_id = OLD.project_id AND status = OLD.status AND issuer_type = OLD.issuer_type;
  INSERT INTO certificate_counts (project_id, status, issuer_type, n)
    VALUES (NEW.project_id, NEW.status, NEW.issuer_type, 1)
    ON CONFLICT (project_id, status, issuer_type) DO UPDATE SET n = n + 1;
END;

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  lane TEXT NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  certificate_id TEXT,
  idempotency_key TEXT,
  next_run_at INTEGER NOT NULL,
  lock_expires_at INTEGER,
  doc TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX jobs_waiting ON jobs(lane, next_run_at, id) WHERE status IN ('pending', 'failed');
CREATE INDEX jobs_locked ON jobs(lane, lock_expires_at, id) WHERE status = 'active';
CREATE INDEX jobs_project ON jobs(project_id, id);
CREATE INDEX jobs_project_status ON jobs(project_id, status, id);
CREATE INDEX jobs_project_type ON jobs(project_id, type, id);
CREATE INDEX jobs_project_certificate ON jobs(project_id, certificate_id, id);
CREATE UNIQUE INDEX jobs_unfinished_key ON jobs(idempotency_key)
  WHERE idempotency_key IS NOT NULL AND status IN ('pending', 'active', 'failed');

CREATE TABLE job_logs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  ts INTEGER NOT NULL,
  level TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX job_logs_job ON job_logs(job_id, seq);

CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  doc TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL UNIQUE,
  doc TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE memberships (
  project_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, user_id)
) WITHOUT ROWID;
CREATE INDEX memberships_user ON memberships(user_id);
CREATE INDEX memberships_project_created ON memberships(project_id, created_at);

-- Project-scoped resources of every kind (acme_account, zone, ...); `ref` is the one extra
-- lookup key a kind needs (a distribution's certificate_id, a zone's domain).
CREATE TABLE resources (
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  ref TEXT,
  doc TEXT NOT NULL,
  PRIMARY KEY (kind, id)
) WITHOUT ROWID;
CREATE INDEX resources_project ON resources(kind, project_id, id);
CREATE INDEX resources_ref ON resources(kind, project_id, ref);

CREATE TABLE audit_log (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  ts INTEGER NOT NULL,
  action TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  actor_user_id TEXT NOT NULL,
  project_id TEXT,
  checksum TEXT NOT NULL,
  doc TEXT NOT NULL
);
CREATE INDEX audit_log_ts ON audit_log(ts);
CREATE INDEX audit_log_action ON audit_log(action, seq);
CREATE INDEX audit_log_actor ON audit_log(actor_user_id, seq);

CREATE TABLE license (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  doc TEXT NOT NULL
);

CREATE TABLE refresh_tokens (
  token_id TEXT PRIMARY KEY,
  family_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  consumed INTEGER NOT NULL DEFAULT 0,
  revoked INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens(user_id);
CREATE INDEX refresh_tokens_expires ON refresh_tokens(expires_at);

CREATE TABLE idempotency (
  key TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL,
  doc TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX idempotency_expires ON idempotency(expires_at);

CREATE TABLE rate_limits (
  bucket TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  window_end INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (bucket, window_start)
) WITHOUT ROWID;
CREATE INDEX rate_limits_end ON rate_limits(window_end);

CREATE TABLE leader_locks (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
)SQL",
    // 2: job counts by status and type for /metrics, from an index.
    R"SQL(
CREATE INDEX jobs_status_type ON jobs(status, type);
)SQL",
    // 3: a generation per project, bumped by every certificate write in the same transaction
    // (CertificateRepository::generation: cached list pages are checked against it).
    R"SQL(
CREATE TABLE certificate_generations (
  project_id TEXT PRIMARY KEY,
  generation INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER certificates_generation_insert AFTER INSERT ON certificates BEGIN
  INSERT INTO certificate_generations (project_id, generation) VALUES (NEW.project_id, 1)
    ON CONFLICT (project_id) DO UPDATE SET generation = generation + 1;
END;
CREATE TRIGGER certificates_generation_update AFTER UPDATE ON certificates BEGIN
  INSERT INTO certificate_generations (project_id, generation) VALUES (NEW.project_id, 1)
    ON CONFLICT (project_id) DO UPDATE SET generation = generation + 1;
END;
CREATE TRIGGER certificates_generation_delete AFTER DELETE ON certificates BEGIN
  INSERT INTO certificate_generations (project_id, generation) VALUES (OLD.project_id, 1)
    ON CONFLICT (project_id) DO UPDATE SET generation = generation + 1;
END;
)SQL",
    // 4: events raised by jobs and certificates (job.failed, cert.renewal_failed, ...).
    R"SQL(
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX events_project_at ON events(project_id, at DESC, id DESC);
)SQL",
    // 5: what each ACME CA was asked and answered, per registered domain (zone rate-limits).
    R"SQL(
CREATE TABLE ca_activity (
  id TEXT PRIMARY KEY,
  directory_url TEXT NOT NULL,
  registered_domain TEXT NOT NULL,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  retry_until INTEGER,
  detail TEXT NOT NULL
);
CREATE INDEX ca_activity_domain ON ca_activity(directory_url, registered_domain, kind, at);
CREATE INDEX ca_activity_at ON ca_activity(at);
)SQL",
    // 6: a second lookup key for the kinds that need two (a notification delivery: `ref` its
    // channel, `ref2` its rule while it is held for a digest). Indexed only where set; the id
    // after it gives the order (resources_ref ends in the primary key's id too: WITHOUT ROWID).
    R"SQL(
ALTER TABLE resources ADD COLUMN ref2 TEXT;
CREATE INDEX resources_ref2 ON resources(kind, project_id, ref2, id) WHERE ref2 IS NOT NULL;
)SQL",
    // 7: issued certificates of all projects by expiry (the metrics' expiring counts: one
    // indexed count per window instead of one per project).
    R"SQL(
CREATE INDEX certificates_expires ON certificates(expires_at) WHERE expires_at IS NOT NULL;
)SQL",
    // 8: every name of a certificate (common name, then the other SANs, one per line) for the
    // list's search by any name; existing rows are filled from their documents.
    R"SQL(
ALTER TABLE certificates ADD COLUMN names TEXT NOT NULL DEFAULT '';
UPDATE certificates SET names = common_name || COALESCE((SELECT group_concat(char(10) || value, '')
  FROM json_each(doc, '$.sans') WHERE value <> certificates.common_name), '');
)SQL",
    // 9: the HTTP-01 answers this service serves itself, shared by every process on the file.
    R"SQL(
CREATE TABLE challenge_tokens (
  token TEXT PRIMARY KEY,
  key_authorization TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX challenge_tokens_expires ON challenge_tokens(expires_at);
)SQL",
    // 10: when the CA is asked again for a certificate's renewal window (RFC 9773); empty for
    // every existing row until its next issuance.
    R"SQL(
ALTER TABLE certificates ADD COLUMN ari_poll_at INTEGER;
CREATE INDEX certificates_renewal_info ON certificates(ari_poll_at, id) WHERE ari_poll_at IS NOT NULL;
)SQL",
};

}  // namespace

int latestSchemaVersion() {
  return static_cast<int>(kMigrations.size());
}

domain::Status migrate(Connection& c) {
  c.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at "
      "INTEGER NOT NULL)");
  for (int version = 1; version <= latestSchemaVersion(); ++version) {
    Transaction tx(c, true);  // one process migrates; the others wait, then see it applied
    int current = 0;
    {
      auto s = c.prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
      if (s.step()) current = static_cast<int>(s.integer(0));
    }
    if (current > latestSchemaVersion()) {
      return domain::makeError(
          domain::ErrorCode::failed_precondition,
          "the database schema is version " + std::to_string(current) +
              " but this certsteward knows only up to " + std::to_string(latestSchemaVersion()) +
              "; run the newer certsteward that wrote it (downgrades are not supported)");
    }
    if (current >= version) continue;
    c.exec(kMigrations[static_cast<std::size_t>(version - 1)]);
    c.prepare(
         "INSERT INTO schema_migrations (version, applied_at) VALUES (?, strftime('%s','now') * "
         "1000)")
        .bind(version)
        .run();
    tx.commit();
  }
  return {};
}

}  // namespace certsteward::adapters::sqlite
