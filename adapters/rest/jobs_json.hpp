// Jobs, their log lines and raised events as the API shows them (jobs, certificates and
// distributions answer with a job).
#pragma once

#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/domain/events.hpp>
#include <certsteward/domain/job.hpp>

namespace certsteward::adapters::rest {

json::object toJson(const domain::Job& job);
json::object toJson(const domain::JobLogEntry& entry);
// A raised event (GET .../events).
json::object toJson(const domain::Event& event);

}  // namespace certsteward::adapters::rest
