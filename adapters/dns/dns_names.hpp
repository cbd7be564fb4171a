// DNS names and TXT values as the DNS providers check and write them: one set of rules for every
// adapter (RFC 2136, the PowerDNS and Cloudflare APIs).
#pragma once

#include <mutex>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::dns {

// `name` in lower case (ASCII).
std::string lowered(std::string name);
// `name` with its trailing dot (absolute), and without it.
std::string absolute(std::string name);
std::string relative(std::string name);
// A name of letters, digits, '.', '-', '_' and '*', at most 254 characters.
bool plainName(const std::string& name);
// A TXT value written as one quoted character-string: 1..255 printable characters without
// quotes, backslashes or ';' (ACME values are 43 base64url characters).
bool plainTxt(const std::string& value);
// `text` without one pair of surrounding double quotes, and with them.
std::string unquote(std::string text);
std::string quoted(const std::string& value);
// One lock per record name for the process (striped: names share 256 locks): a read of a
// name's values and the change after it must not interleave with another change of that name
// (the challenges of a wildcard and its apex share `_acme-challenge`), while changes to other
// names, of other projects, go on.
std::unique_lock<std::mutex> lockName(const std::string& name);
// invalid_argument unless the record's zone and name are plain names, the name is the zone or
// below it, and the value is plain.
domain::Status checkRecord(const ports::TxtRecord& record);

}  // namespace certsteward::adapters::dns
