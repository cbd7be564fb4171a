// OpenSslMac: HMAC-SHA256 under a fixed key (the audit signing key). Thread-safe.
#pragma once

#include <string>

#include "ports/mac.hpp"

namespace certsteward::adapters::crypto {

class OpenSslMac : public ports::Mac {
 public:
  explicit OpenSslMac(std::string key) : key_(std::move(key)) {}
  std::string sign(std::string_view message) const override;

 private:
  std::string key_;
};

}  // namespace certsteward::adapters::crypto
