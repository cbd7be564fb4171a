// PslPublicSuffixes: registered domains from libpsl — the newest Public Suffix List on the machine
// (the publicsuffix package), else the one built into the library. Thread-safe.
#pragma once

#include <memory>

#include <certsteward/ports/public_suffixes.hpp>

namespace certsteward::adapters::runtime {

class PslPublicSuffixes : public ports::PublicSuffixes {
 public:
  PslPublicSuffixes();
  ~PslPublicSuffixes() override;
  PslPublicSuffixes(const PslPublicSuffixes&) = delete;
  PslPublicSuffixes& operator=(const PslPublicSuffixes&) = delete;

  std::string registeredDomain(std::string_view name) const override;

 private:
  struct List;
  std::unique_ptr<List> list_;
};

}  // namespace certsteward::adapters::runtime
