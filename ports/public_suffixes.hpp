// PublicSuffixes: the registered domain of a name, as CAs compute it (the Public Suffix List).
#pragma once

#include <string>
#include <string_view>

namespace certsteward::ports {

class PublicSuffixes {
 public:
  virtual ~PublicSuffixes() = default;

  /**
   * @return the registered domain of `name` (lower case, without a trailing dot or wildcard
   * label): "example.co.uk" for "www.example.co.uk"; `name` itself when it is a public suffix
   * or has no registrable part. Thread-safe.
   */
  virtual std::string registeredDomain(std::string_view name) const = 0;
};

}  // namespace certsteward::ports
