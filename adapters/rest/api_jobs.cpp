// /api/v1/projects/<project_id>/jobs.
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/jobs_json.hpp>
#include <certsteward/adapters/rest/json_io.hpp>

namespace certsteward::adapters::rest {
namespace {

// A job with its certificate's name, as lists and the job's page show it.
json::object viewJson(const services::JobView& j) {
  auto o = toJson(static_cast<const domain::Job&>(j));
  if (!j.certificate_name.empty()) o["certificate_name"] = j.certificate_name;
  return o;
}

}  // namespace

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
    if (auto dismissed = queryParam(c.request, "dismissed")) {
      if (*dismissed != "false") throw BadRequest("dismissed may only be false (hide them)");
      filter.hide_dismissed = true;
    }
    auto page = s_.jobs.list(c.who(), c.param("project_id"), filter, pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("jobs", *page, viewJson);
  });

  router_.add("GET", "/api/v1/projects/:project_id/jobs/:job_id", [this](const Call& c) {
    auto job = s_.jobs.get(c.who(), c.param("project_id"), c.param("job_id"));
    if (!job) return errorResponse(job.error());
    return jsonResponse(200, json::object{{"job", viewJson(*job)}});
  });

  router_.add("GET", "/api/v1/projects/:project_id/jobs/:job_id/logs", [this](const Call& c) {
    if (const auto cursor = cursorFrom(c.request, "job-log")) {
      // A job's lines only ever append: the number read so far is a stable cursor.
      domain::PageRequest at{1, cursor->limit, cursor->position};
      auto page = s_.jobs.logs(c.who(), c.param("project_id"), c.param("job_id"), at);
      if (!page) return errorResponse(page.error());
      json::array logs;
      for (const auto& e : page->items)
        logs.push_back(toJson(e));
      const auto n = static_cast<std::int64_t>(page->items.size());
      return jsonResponse(
          200, json::object{{"logs", logs},
                            {"limit", cursor->limit},
                            {"has_more", n == cursor->limit},
                            {"next_cursor", makeCursor("job-log", cursor->position + n)}});
    }
    auto page =
        s_.jobs.logs(c.who(), c.param("project_id"), c.param("job_id"), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("logs", *page, [](const domain::JobLogEntry& e) { return toJson(e); });
  });

  router_.add("GET", "/api/v1/projects/:project_id/events", [this](const Call& c) {
    if (const auto cursor = cursorFrom(c.request, "events")) {
      // Oldest first in the order recorded: the number read so far is a stable cursor.
      domain::PageRequest at{1, cursor->limit, cursor->position};
      auto page = s_.jobs.eventsInOrder(c.who(), c.param("project_id"), at);
      if (!page) return errorResponse(page.error());
      json::array events;
      for (const auto& e : page->items)
        events.push_back(toJson(e));
      const auto n = static_cast<std::int64_t>(page->items.size());
      return jsonResponse(
          200, json::object{{"events", events},
                            {"limit", cursor->limit},
                            {"has_more", n == cursor->limit},
                            {"next_cursor", makeCursor("events", cursor->position + n)}});
    }
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

  router_.add("POST", "/api/v1/projects/:project_id/jobs/:job_id/dismiss", [this](const Call& c) {
    auto job = s_.jobs.dismiss(c.who(), c.context, c.param("project_id"), c.param("job_id"));
    if (!job) return errorResponse(job.error());
    return jsonResponse(200, json::object{{"job", toJson(*job)}});
  });
}

}  // namespace certsteward::adapters::rest
