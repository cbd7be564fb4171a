// /api/v1/projects/<project_id>/jobs.
#include "adapters/http/api.hpp"
#include "adapters/http/json_io.hpp"

namespace certsteward::adapters::http {

void Api::addJobRoutes() {
  router_.add("GET", "/api/v1/projects/:project_id/jobs", [this](const Call& c) {
    ports::JobFilter filter;
    if (auto status = queryParam(c.request, "status")) {
      filter.status = domain::parseJobStatus(*status);
      if (!filter.status) throw BadRequest("unknown status: '" + status->substr(0, 40) + "'");
    }
    if (auto type = queryParam(c.request, "type")) {
      filter.type = domain::parseJobType(*type);
      if (!filter.type) throw BadRequest("unknown type: '" + type->substr(0, 40) + "'");
    }
    filter.certificate_id = queryParam(c.request, "certificate_id");
    auto page = s_.jobs.list(c.who(), c.param("project_id"), filter, pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("jobs", *page, [](const domain::Job& j) { return toJson(j); });
  });

  router_.add("GET", "/api/v1/projects/:project_id/jobs/:job_id", [this](const Call& c) {
    auto job = s_.jobs.get(c.who(), c.param("project_id"), c.param("job_id"));
    if (!job) return errorResponse(job.error());
    return jsonResponse(200, json::object{{"job", toJson(*job)}});
  });

  router_.add("GET", "/api/v1/projects/:project_id/jobs/:job_id/logs", [this](const Call& c) {
    auto page =
        s_.jobs.logs(c.who(), c.param("project_id"), c.param("job_id"), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("logs", *page, [](const domain::JobLogEntry& e) { return toJson(e); });
  });

  router_.add("GET", "/api/v1/projects/:project_id/events", [this](const Call& c) {
    auto page = s_.jobs.events(c.who(), c.param("project_id"), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("events", *page, [](const domain::Event& e) { return toJson(e); });
  });

  router_.add("POST", "/api/v1/projects/:project_id/jobs/:job_id/retry", [this](const Call& c) {
    auto job = s_.jobs.retry(c.who(), c.context, c.param("project_id"), c.param("job_id"));
    if (!job) return errorResponse(job.error());
    return jsonResponse(200, json::object{{"job", toJson(*job)}});
  });

  router_.add("POST", "/api/v1/projects/:project_id/jobs/:job_id/cancel", [this](const Call& c) {
    auto job = s_.jobs.cancel(c.who(), c.context, c.param("project_id"), c.param("job_id"));
    if (!job) return errorResponse(job.error());
    return jsonResponse(200, json::object{{"job", toJson(*job)}});
  });
}

}  // namespace certsteward::adapters::http
