// Licence keys for tests and benchmarks: a licence document signed with an Ed25519 private key
// (PEM, from ed25519_keys.hpp), as the vendor's tool signs one.
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>

#include <certsteward/adapters/crypto/ed25519_license_verifier.hpp>

namespace certsteward::testing {

// The Unix time `fromNow` ahead (or behind, when negative).
inline std::int64_t unixTimeIn(std::chrono::seconds fromNow) {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch() + fromNow)
      .count();
}

// A licence key `id` of plan `plan` for `certLimit` certificates (0: unlimited), expiring at
// Unix time `expiresAt`.
inline std::string signedLicense(const std::string& privatePem, const std::string& id,
                                 const std::string& plan, std::int64_t certLimit,
                                 std::int64_t expiresAt) {
  return *adapters::crypto::Ed25519LicenseVerifier::sign(
      privatePem,
      boost::json::serialize(boost::json::object{
          {"license_id", id}, {"plan_name", plan}, {"cert_limit", certLimit}, {"exp", expiresAt}}));
}

}  // namespace certsteward::testing
