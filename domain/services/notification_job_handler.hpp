// The notification_delivery job, through NotificationRunner.
#pragma once

#include "domain/services/job_handler.hpp"
#include "domain/services/notification_runner.hpp"

namespace certsteward::domain {

class NotificationJobHandler : public JobHandler {
 public:
  explicit NotificationJobHandler(NotificationRunner& runner) : runner_(runner) {}

  std::vector<JobType> types() const override { return {JobType::notification_delivery}; }
  Status attempt(const Job& job, const StopSignal& /*stop*/, const Log& log,
                 AttemptNotes& /*notes*/) override {
    return runner_.deliver(job, log);
  }
  // A delivery whose worker was lost on its last attempt is marked failed with the reason.
  void abandoned(const Job& job, const Log& /*log*/) override {
    if (job.status != JobStatus::dead) return;
    (void)runner_.abandon(job, "its worker was lost on the last attempt: " + job.error_msg);
  }

 private:
  NotificationRunner& runner_;
};

}  // namespace certsteward::domain
