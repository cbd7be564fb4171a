#include <certsteward/services/verified_migration.hpp>

#include <algorithm>

namespace certsteward::services {

domain::Result<VerifiedMigrationReport> VerifiedMigration::run(
    const std::function<void(const std::string&)>& progress) {
  using Verdict = VerifiedMigrationReport::Verdict;
  VerifiedMigrationReport report;
  auto source = from_.audit.verifyWholeChain(std::nullopt);
  if (!source) return makeError(source.error().code, "--from: " + source.error().message);
  if (!source->intact) {
    report.verdict = Verdict::source_chain_broken;
    report.source_breaks = source->breaks.size();
    return report;
  }
  auto to = openTarget_();
  if (!to) return makeError(to.error().code, "--to: " + to.error().message);
  auto copied = StoreMigration(from_.store, to->store, clock_).run(progress);
  if (!copied) {
    return makeError(copied.error().code, copied.error().message + "; nothing was copied");
  }
  report.copy = std::move(*copied);
  if (report.copy.stopped) {
    report.verdict = Verdict::stopped;
    return report;
  }
  auto target = to->audit.verifyWholeChain(report.copy.audit_head);
  if (!target) return makeError(target.error().code, "--to: " + target.error().message);
  report.target = std::move(*target);
  if (!report.target.intact) {
    report.verdict = Verdict::target_chain_broken;
    return report;
  }
  if (!report.copy.complete) {
    report.verdict = Verdict::incomplete;
    report.counts_differ = std::any_of(report.copy.kinds.begin(), report.copy.kinds.end(),
                                       [](const MigratedKind& k) { return k.source != k.target; });
    return report;
  }
  report.verdict = Verdict::complete;
  return report;
}

}  // namespace certsteward::services
