// The email a notification becomes (RFC 5322 + MIME): multipart/alternative with a text/plain
// and a text/html part, both UTF-8 in quoted-printable, so the whole message is 7-bit. Header
// values are single lines (control characters blanked) and RFC 2047-encoded when not ASCII, so
// nothing a message carries can add a header. No I/O.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace certsteward::adapters::notify {

struct MailContent {
  std::string from;       // a checked address (domain::isEmailAddress)
  std::string from_name;  // optional display name
  std::vector<std::string> to;
  std::string subject;
  std::string text;           // the text/plain part
  std::string html_fragment;  // the body of the text/html part (already escaped HTML)
  std::string delivery_id;    // Message-ID <id@certsteward>, X-CertSteward-Delivery
  std::string event;          // X-CertSteward-Event
  bool redelivery = false;    // X-CertSteward-Redelivery: 1
  std::chrono::system_clock::time_point date{};
};

// The whole message, CRLF line ends, ready for SMTP DATA (dot-stuffing is the transport's job).
std::string composeMail(const MailContent& mail);

// Exposed for tests and reuse: quoted-printable (RFC 2045) of UTF-8 text, its line ends made
// CRLF; an unstructured header value, RFC 2047-encoded ("=?UTF-8?B?...?=") when needed.
std::string quotedPrintable(std::string_view text);
std::string headerValue(std::string_view text);

}  // namespace certsteward::adapters::notify
