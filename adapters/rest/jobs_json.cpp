#include <certsteward/adapters/rest/jobs_json.hpp>

namespace certsteward::adapters::rest {

json::object toJson(const domain::Job& j) {
  return {
      {"id", j.id},
      {"project_id", j.project_id},
      {"type", std::string(nameOf(j.type))},
      {"status", std::string(nameOf(j.status))},
      {"lane", std::string(nameOf(j.lane()))},
      {"error_msg", j.error_msg},
      {"attempts", j.attempts},
      {"max_attempts", j.max_attempts},
      {"certificate_id", j.certificate_id ? json::value(*j.certificate_id) : json::value(nullptr)},
      {"parent_id", j.parent_id ? json::value(*j.parent_id) : json::value(nullptr)},
      {"created_at", timestamp(j.created_at)},
      {"updated_at", timestamp(j.updated_at)},
      {"next_run_at", timestamp(j.next_run_at)},
      {"locked_by", j.locked_by.empty() ? json::value(nullptr) : json::value(j.locked_by)},
      {"lock_expires_at", timestamp(j.lock_expires_at)},
      {"cancel_requested", j.cancel_requested},
      {"finished_at", timestamp(j.finished_at)},
      {"dismissed_at", timestamp(j.dismissed_at)}};
}

json::object toJson(const domain::JobLogEntry& e) {
  return {{"ts", timestamp(e.ts)}, {"level", std::string(nameOf(e.level))}, {"message", e.message}};
}

json::object toJson(const domain::Event& e) {
  return {{"id", e.id},
          {"kind", std::string(nameOf(e.kind))},
          {"resource_id", e.resource_id},
          {"message", e.message},
          {"at", timestamp(e.at)}};
}

}  // namespace certsteward::adapters::rest
