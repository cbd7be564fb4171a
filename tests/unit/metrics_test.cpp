// Prometheus text rendering.
#include <doctest/doctest.h>

#include "adapters/metrics/prometheus_registry.hpp"

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
