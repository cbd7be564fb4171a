// Expected failures as values: an Error with a canonical code, and Result<T> holding a value or
// an Error. No exception crosses a port; adapters translate their library's errors into these.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace certsteward::domain {

enum class ErrorCode {
  not_found,            // the thing does not exist, or is not visible to the caller
  conflict,             // duplicate, lost a race, or a key reused with a different request
  invalid_argument,     // the caller's input is wrong, whatever the state
  failed_precondition,  // the input is fine but the current state does not allow it
  permission_denied,    // authenticated but not allowed
  unauthenticated,      // no valid identity
  resource_exhausted,   // a limit or quota is reached (licence cap, rate limit)
  unavailable,          // a dependency is down; retrying later may work
  internal,             // a bug or an unexpected environment failure
};

std::string_view nameOf(ErrorCode code) noexcept;

struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
  // Optional machine-readable reason below the canonical code (e.g. "TOKEN_REUSE").
  std::string reason;
  // For DEPENDENCY_CONFLICT: what still refers to the resource ("certificate <id>", ...).
  std::vector<std::string> references;

  friend bool operator==(const Error&, const Error&) = default;
};

// The reason of an invalid_argument whose input is malformed (an unknown enum value, a wrong
// syntax) rather than well-formed but against a rule; the REST API answers it 400, not 422.
inline constexpr const char* kMalformed = "MALFORMED";
// The reason of an invalid_argument that breaks a rule of one field: references[0] names it
// (answered 422 with "field").
inline constexpr const char* kInvalidField = "INVALID_FIELD";

inline Error makeError(ErrorCode code, std::string message, std::string reason = {}) {
  return Error{code, std::move(message), std::move(reason), {}};
}

// A broken rule of the field that `message` starts with ("port must be ..."): invalid_argument
// with kInvalidField, the field (the message's first word, before a space or '[') in references.
inline Error fieldError(std::string message) {
  std::string field = message.substr(0, message.find_first_of(" ["));
  return Error{ErrorCode::invalid_argument, std::move(message), kInvalidField, {std::move(field)}};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return std::holds_alternative<T>(data_); }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<T>(data_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(data_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(data_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<Error>(data_);
  }

 private:
  std::variant<T, Error> data_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }
  const Error& error() const {
    assert(failed_);
    return error_;
  }

 private:
  Error error_;
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace certsteward::domain
