// Releasing an earlier run's locks, project by project, through the job table.
#include <certsteward/services/abandoned_locks.hpp>

namespace certsteward::services {

domain::Result<std::int64_t> releaseAbandonedLocks(
    const ports::ProjectRepository& projects, ports::JobQueue& jobs, const ports::Clock& clock,
    const std::string& self, const std::function<bool(std::string_view)>& gone) {
  std::int64_t released = 0;
  ports::JobFilter active;
  active.status = domain::JobStatus::active;
  for (std::int64_t page = 1; page <= 100000; ++page) {  // bounded: 10 million projects
    auto some = projects.list(domain::PageRequest{page, 100});
    if (!some) return some.error();
    for (const auto& project : some->items) {
      // A released lock leaves the job active (expired), so pages stay put: walk them all.
      for (std::int64_t jobPage = 1; jobPage <= 100000; ++jobPage) {
        auto held = jobs.list(project.id, active, domain::PageRequest{jobPage, 100});
        if (!held) return held.error();
        for (const auto& job : held->items) {
          if (!domain::heldByEarlierBoot(job.locked_by, self) || isLockExpired(job, clock.now()))
            continue;
          const auto holder = std::string_view(job.locked_by).substr(0, job.locked_by.find('/'));
          if (!gone(holder.substr(holder.find('#') + 1))) continue;  // maybe still running
          const domain::JobContext ctx{clock.now(), self, "", {}};
          auto applied = jobs.apply(job.id, domain::JobEvent::abandon, ctx);
          // Refused: it changed meanwhile (finished, or already reclaimed): nothing to release.
          if (applied) ++released;
        }
        if (static_cast<std::int64_t>(held->items.size()) < 100) break;
      }
    }
    if (static_cast<std::int64_t>(some->items.size()) < 100) break;
  }
  return released;
}

}  // namespace certsteward::services
