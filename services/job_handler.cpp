#include <certsteward/services/job_handler.hpp>

#include <string>

#include <certsteward/domain/enum_names.hpp>

namespace certsteward::services {

void raiseForJob(ports::Notifier& notifier, domain::Event event, const JobHandler::Log& log) {
  const auto kind = event.kind;
  if (auto raised = notifier.notify(event); !raised) {
    log(domain::LogLevel::warn, "the " + std::string(nameOf(kind)) +
                                    " event could not be recorded: " + raised.error().message);
  }
}

}  // namespace certsteward::services
