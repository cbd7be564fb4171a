#include <certsteward/adapters/dns/dns_names.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>

namespace certsteward::adapters::dns {

using domain::ErrorCode;
using domain::makeError;

std::string lowered(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

std::string absolute(std::string name) {
  if (!name.empty() && name.back() != '.') name.push_back('.');
  return name;
}

std::string relative(std::string name) {
  while (!name.empty() && name.back() == '.')
    name.pop_back();
  return name;
}

bool plainName(const std::string& name) {
  return !name.empty() && name.size() <= 254 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_' || c == '*';
  });
}

bool plainTxt(const std::string& value) {
  return !value.empty() && value.size() <= 255 &&
         std::all_of(value.begin(), value.end(), [](char c) {
           return c > 0x20 && c < 0x7f && c != '"' && c != '\\' && c != ';';
         });
}

std::string unquote(std::string text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  return text;
}

std::string quoted(const std::string& value) {
  return "\"" + value + "\"";
}

std::unique_lock<std::mutex> lockName(const std::string& name) {
  static std::array<std::mutex, 256> locks;
  return std::unique_lock(locks[std::hash<std::string>{}(lowered(absolute(name))) % locks.size()]);
}

domain::Status checkRecord(const ports::TxtRecord& record) {
  const std::string zone = lowered(absolute(record.zone));
  const std::string name = lowered(absolute(record.name));
  if (!plainName(zone) || !plainName(name)) {
    return makeError(ErrorCode::invalid_argument, "the name " + name + " or zone " + zone +
                                                      " has characters a DNS name does not");
  }
  if (name != zone &&
      (name.size() <= zone.size() ||
       name.compare(name.size() - zone.size() - 1, zone.size() + 1, "." + zone) != 0)) {
    return makeError(ErrorCode::invalid_argument, "the name " + name + " is not in zone " + zone);
  }
  if (!plainTxt(record.value)) {
    return makeError(ErrorCode::invalid_argument,
                     "the TXT value must be 1 to 255 printable characters without quotes, "
                     "backslashes or ';'");
  }
  return {};
}

}  // namespace certsteward::adapters::dns
