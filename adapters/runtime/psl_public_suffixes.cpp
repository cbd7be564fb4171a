// The Public Suffix List through libpsl. A list is read once; lookups only read it.
#include <certsteward/adapters/runtime/psl_public_suffixes.hpp>

#include <libpsl.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace certsteward::adapters::runtime {

struct PslPublicSuffixes::List {
  psl_ctx_t* ctx = nullptr;
  bool owned = false;  // psl_latest's context is ours to free; psl_builtin's is static
};

PslPublicSuffixes::PslPublicSuffixes() : list_(std::make_unique<List>()) {
  list_->ctx = psl_latest(nullptr);
  list_->owned = list_->ctx != nullptr;
  if (list_->ctx == nullptr) list_->ctx = const_cast<psl_ctx_t*>(psl_builtin());
}

PslPublicSuffixes::~PslPublicSuffixes() {
  if (list_->owned) psl_free(list_->ctx);
}

std::string PslPublicSuffixes::registeredDomain(std::string_view name) const {
  std::string lower(name);
  if (lower.starts_with("*.")) lower.erase(0, 2);
  if (!lower.empty() && lower.back() == '.') lower.pop_back();
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (list_->ctx == nullptr) return lower;
  const char* registrable = psl_registrable_domain(list_->ctx, lower.c_str());
  return registrable == nullptr ? lower : std::string(registrable);
}

}  // namespace certsteward::adapters::runtime
