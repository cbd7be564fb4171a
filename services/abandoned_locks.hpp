// At start, before its workers claim anything, an instance releases the job locks an earlier
// run of its own process left behind (killed by kill -9, a crash, a power cut): without this
// they would read `active` until worker.lock_ttl passed. Each one goes through the job table
// (JobEvent::abandon: its lock expires now), so the next claim reclaims it — another attempt,
// or dead or cancelled as the table says — exactly as an expired lock would be.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <certsteward/domain/result.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/project_repository.hpp>

namespace certsteward::services {

// `self`: this run's "<instance>#<boot>" (domain/job.hpp). `gone(boot)` says whether the run
// named by an earlier <boot> is certainly over (the adapter that knows processes decides); a
// lock whose run cannot be proved gone is left to expire. Returns how many locks it released.
domain::Result<std::int64_t> releaseAbandonedLocks(
    const ports::ProjectRepository& projects, ports::JobQueue& jobs, const ports::Clock& clock,
    const std::string& self, const std::function<bool(std::string_view)>& gone);

}  // namespace certsteward::services
