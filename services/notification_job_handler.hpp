// The notification_delivery job, through NotificationRunner.
#pragma once

#include <certsteward/services/job_handler.hpp>
#include <certsteward/services/notification_runner.hpp>

namespace certsteward::services {

class NotificationJobHandler : public JobHandler {
 public:
  explicit NotificationJobHandler(NotificationRunner& runner) : runner_(runner) {}

  std::vector<domain::JobType> types() const override {
    return {domain::JobType::notification_delivery};
  }
  domain::Status attempt(const domain::Job& job, const domain::StopSignal& /*stop*/, const Log& log,
                         AttemptNotes& /*notes*/) override {
    return runner_.deliver(job, log);
  }
  // A delivery whose worker was lost on its last attempt is marked failed with the reason.
  void abandoned(const domain::Job& job, const Log& /*log*/) override {
    if (job.status != domain::JobStatus::dead) return;
    (void)runner_.abandon(job, "its worker was lost on the last attempt: " + job.error_msg);
  }

 private:
  NotificationRunner& runner_;
};

}  // namespace certsteward::services
