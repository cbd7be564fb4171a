// Prometheus text rendering.
#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <string>

#include <certsteward/adapters/metrics/prometheus_registry.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/monitoring_service.hpp>
#include <certsteward/testing/fake_clock.hpp>

using certsteward::adapters::metrics::PrometheusRegistry;

TEST_CASE("metrics: counters, gauges and histograms render in the text format") {
  PrometheusRegistry r;
  r.increment("certsteward_http_requests_total", {{"route", "/a"}, {"status", "200"}}, 1.0);
  r.increment("certsteward_http_requests_total", {{"route", "/a"}, {"status", "200"}}, 2.0);
  r.set("queue_depth", {}, 7);
  r.observe("latency_seconds", {{"route", "/a"}}, 0.003);
  r.observe("latency_seconds", {{"route", "/a"}}, 0.2);
  r.observe("latency_seconds", {{"route", "/a"}}, 9.0);
  const std::string text = r.render({{"certsteward_certificates", {{{{"status", "active"}}, 3}}}});
  CHECK(text.find("# TYPE certsteward_http_requests_total counter\n") != std::string::npos);
  CHECK(text.find("certsteward_http_requests_total{route=\"/a\",status=\"200\"} 3\n") !=
        std::string::npos);
  CHECK(text.find("queue_depth 7\n") != std::string::npos);
  CHECK(text.find("latency_seconds_bucket{route=\"/a\",le=\"0.005\"} 1\n") != std::string::npos);
  CHECK(text.find("latency_seconds_bucket{route=\"/a\",le=\"0.25\"} 2\n") != std::string::npos);
  CHECK(text.find("latency_seconds_bucket{route=\"/a\",le=\"+Inf\"} 3\n") != std::string::npos);
  CHECK(text.find("latency_seconds_count{route=\"/a\"} 3\n") != std::string::npos);
  CHECK(text.find("certsteward_certificates{status=\"active\"} 3\n") != std::string::npos);
  CHECK(PrometheusRegistry::escapeLabel("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
}

TEST_CASE("metrics: job, issuance and sweep durations use buckets up to minutes") {
  PrometheusRegistry r;
  r.observe("certsteward_issuance_latency_seconds", {{"type", "issue_certificate"}}, 7.5);
  r.observe("certsteward_issuance_latency_seconds", {{"type", "issue_certificate"}}, 200.0);
  r.observe("certsteward_http_request_duration_seconds", {}, 7.5);
  const std::string text = r.render();
  CHECK(text.find("certsteward_issuance_latency_seconds_bucket{type=\"issue_certificate\",le="
                  "\"5\"} 0\n") != std::string::npos);
  CHECK(text.find("certsteward_issuance_latency_seconds_bucket{type=\"issue_certificate\",le="
                  "\"10\"} 1\n") != std::string::npos);
  CHECK(text.find("certsteward_issuance_latency_seconds_bucket{type=\"issue_certificate\",le="
                  "\"300\"} 2\n") != std::string::npos);
  // Request latencies keep the short buckets (the largest finite one is 5 s).
  CHECK(text.find("certsteward_http_request_duration_seconds_bucket{le=\"5\"} 0\n") !=
        std::string::npos);
  CHECK(text.find("certsteward_http_request_duration_seconds_bucket{le=\"10\"}") ==
        std::string::npos);
}

namespace {

// The memory store with a switch that makes ping() fail, as an unreachable store does.
class SwitchableStore : public certsteward::adapters::memory::MemoryStore {
 public:
  bool down = false;
  certsteward::domain::Status ping() override {
    if (down)
      return certsteward::domain::makeError(certsteward::domain::ErrorCode::unavailable, "down");
    return {};
  }
};

std::string gaugeText(certsteward::ports::Store& store, certsteward::domain::Timestamp now) {
  certsteward::testing::FakeClock clock(now);
  return PrometheusRegistry().render(
      certsteward::services::MonitoringService(store, clock).gauges(now));
}

bool has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("metrics: store gauges count expiring certificates, fill zeros, and follow readiness") {
  using namespace certsteward;
  SwitchableStore store;
  const domain::Timestamp now = domain::Timestamp{} + std::chrono::days{20000};
  // An empty store: every status, job pair and window is there at 0, ready is 1.
  auto text = gaugeText(store, now);
  CHECK(has(text, "certsteward_ready 1"));
  CHECK(has(text, R"(certsteward_certificates{status="renewal_failed"} 0)"));
  CHECK(has(text, R"(certsteward_jobs{lane="default",status="dead",type="renew_certificate"} 0)"));
  CHECK(has(text, R"(certsteward_certificates_expiring{within_days="7"} 0)"));
  CHECK(has(text, "certsteward_certificates_expired 0"));

  // Two projects: certificates expired, expiring in 3 days, in 20 days, in 90 days, and one
  // still issuing (no expiry).
  int n = 0;
  const auto add = [&](const std::string& project, std::optional<domain::Timestamp> expires,
                       domain::CertificateStatus status) {
    domain::Certificate c;
    c.id = std::string(22, '0') + std::to_string(10 + n++);
    c.project_id = project;
    c.common_name = "c" + std::to_string(n) + ".example.com";
    c.sans = {c.common_name};
    c.status = status;
    c.expires_at = expires;
    c.created_at = now;
    REQUIRE(store.certificates().create(c).ok());
  };
  for (const std::string id : {"aaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb"}) {
    domain::Project p;
    p.id = id;
    p.name = "p" + id.substr(0, 1);
    p.created_at = now;
    REQUIRE(store.projects().create(p).ok());
  }
  add("aaaaaaaaaaaaaaaaaaaaaaaa", now - std::chrono::hours{1},
      domain::CertificateStatus::renewal_failed);
  add("aaaaaaaaaaaaaaaaaaaaaaaa", now + std::chrono::days{3}, domain::CertificateStatus::active);
  add("bbbbbbbbbbbbbbbbbbbbbbbb", now + std::chrono::days{20}, domain::CertificateStatus::active);
  add("bbbbbbbbbbbbbbbbbbbbbbbb", now + std::chrono::days{90}, domain::CertificateStatus::active);
  add("bbbbbbbbbbbbbbbbbbbbbbbb", std::nullopt, domain::CertificateStatus::issuing);
  text = gaugeText(store, now);
  CHECK(has(text, "certsteward_certificates_expired 1"));
  CHECK(has(text, R"(certsteward_certificates_expiring{within_days="1"} 1)"));
  CHECK(has(text, R"(certsteward_certificates_expiring{within_days="7"} 2)"));
  CHECK(has(text, R"(certsteward_certificates_expiring{within_days="30"} 3)"));
  CHECK(has(text, R"(certsteward_certificates{status="active"} 3)"));
  CHECK(has(text, R"(certsteward_certificates{status="renewal_failed"} 1)"));
  CHECK(has(text, R"(certsteward_certificates{status="issuing"} 1)"));
  CHECK(has(text, R"(certsteward_certificates{status="renewal_pending"} 0)"));

  // The store stops answering: ready drops to 0 and nothing else is asked of it.
  store.down = true;
  text = gaugeText(store, now);
  CHECK(has(text, "certsteward_ready 0"));
  CHECK(text.find("certsteward_certificates_expiring") == std::string::npos);
}

TEST_CASE("metrics: a declared histogram renders zero buckets until observed") {
  PrometheusRegistry r;
  r.declareHistogram("certsteward_issuance_latency_seconds", {{"type", "renew_certificate"}});
  auto text = r.render();
  CHECK(text.find("certsteward_issuance_latency_seconds_bucket{type=\"renew_certificate\",le="
                  "\"+Inf\"} 0\n") != std::string::npos);
  CHECK(text.find("certsteward_issuance_latency_seconds_count{type=\"renew_certificate\"} 0\n") !=
        std::string::npos);
  r.observe("certsteward_issuance_latency_seconds", {{"type", "renew_certificate"}}, 7.5);
  r.declareHistogram("certsteward_issuance_latency_seconds", {{"type", "renew_certificate"}});
  text = r.render();
  CHECK(text.find("certsteward_issuance_latency_seconds_count{type=\"renew_certificate\"} 1\n") !=
        std::string::npos);
}
