// Composing the notification email: headers, RFC 2047 words, quoted-printable parts.
#include <certsteward/adapters/notify/mime_message.hpp>

#include <algorithm>
#include <cctype>
#include <ctime>

#include <certsteward/adapters/notify/channel_text.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/template.hpp>

namespace certsteward::adapters::notify {

namespace {

constexpr char kHex[] = "0123456789ABCDEF";
constexpr std::size_t kQpLine = 76;     // RFC 2045: encoded lines of at most 76 characters
constexpr std::size_t kWordBytes = 45;  // 60 base64 characters per encoded word

// One line: every control character (CR and LF included) a space, invalid UTF-8 repaired.
std::string oneLine(std::string_view text) {
  std::string out = validUtf8(text);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) c = ' ';
  }
  return std::string(trimmed(out));
}

bool plainAscii(std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7E) return false;
  }
  return text.find("=?") == std::string_view::npos;  // would read as an encoded word
}

// RFC 2047 B-encoded words of (valid UTF-8) `text`, each cut on a code point boundary, folded.
std::string encodedWords(std::string_view text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = std::min(text.size(), at + kWordBytes);
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
      --end;  // never split a code point between two words
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + domain::base64Encode(text.substr(at, end - at)) + "?=";
    at = end;
  }
  return out;
}

// A display name: a quoted string when ASCII, else encoded words.
std::string displayName(std::string_view name) {
  const std::string line = oneLine(name);
  if (!plainAscii(line)) return encodedWords(line);
  std::string out = "\"";
  for (const char c : line) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// "Tue, 01 Jul 2025 08:00:00 +0000" (RFC 5322 date-time, UTC).
std::string mailDate(std::chrono::system_clock::time_point at) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(at);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  const std::size_t n = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S +0000", &utc);
  return std::string(text, n);
}

std::string htmlDocument(const MailContent& mail) {
  std::string body = mail.html_fragment;
  if (body.empty()) {
    body = "<pre style=\"white-space:pre-wrap;font-family:inherit\">" +
           domain::escapeHtml(mail.text) + "</pre>";
  }
  return "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width\">\n<title>" +
         domain::escapeHtml(oneLine(mail.subject)) + "</title>\n</head>\n<body>\n" + body +
         "\n</body>\n</html>\n";
}

// Address list folded so that no line grows past 78 characters when it can be helped.
std::string addressList(const std::vector<std::string>& addresses, std::size_t used) {
  std::string out;
  std::size_t line = used;
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    std::string item = addresses[i] + (i + 1 < addresses.size() ? "," : "");
    if (i > 0) {
      if (line + 1 + item.size() > 78) {
        out += "\r\n";
        line = 0;
      }
      out += ' ';
      ++line;
    }
    out += item;
    line += item.size();
  }
  return out;
}

}  // namespace

std::string quotedPrintable(std::string_view text) {
  const std::string valid = validUtf8(text);
  std::string out;
  std::size_t column = 0;
  const auto put = [&](std::string_view piece) {
    if (column + piece.size() > kQpLine - 1) {  // leave room for the soft break's "="
      out += "=\r\n";
      column = 0;
    }
    out += piece;
    column += piece.size();
  };
  for (std::size_t i = 0; i < valid.size(); ++i) {
    const char c = valid[i];
    const auto u = static_cast<unsigned char>(c);
    if (c == '\r' || c == '\n') {  // CRLF, LF or a lone CR: one hard line break
      if (c == '\r' && i + 1 < valid.size() && valid[i + 1] == '\n') ++i;
      out += "\r\n";
      column = 0;
      continue;
    }
    const bool lineEnd = i + 1 == valid.size() || valid[i + 1] == '\r' || valid[i + 1] == '\n';
    const bool literal = (u >= 33 && u <= 126 && c != '=') || ((c == ' ' || c == '\t') && !lineEnd);
    if (literal) {
      put(std::string_view(&c, 1));
    } else {
      const char encoded[3] = {'=', kHex[u >> 4], kHex[u & 0x0F]};
      put(std::string_view(encoded, 3));
    }
  }
  return out;
}

std::string headerValue(std::string_view text) {
  const std::string line = oneLine(text);
  if (plainAscii(line) && line.size() <= 900) return line;
  return encodedWords(line);
}

std::string composeMail(const MailContent& mail) {
  std::string id;  // letters, digits, '.', '_' and '-': valid in a Message-ID and a boundary
  for (const char c : mail.delivery_id) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-')
      id += c;
  }
  if (id.size() > 50) id.resize(50);
  if (id.empty()) id = "notification";
  const std::string boundary = "=_certsteward_" + id;  // "=_" never occurs in quoted-printable
  std::string from = mail.from;
  if (!oneLine(mail.from_name).empty()) from = displayName(mail.from_name) + " <" + mail.from + ">";
  std::string out;
  out += "From: " + from + "\r\n";
  out += "To: " + addressList(mail.to, 4) + "\r\n";
  out += "Subject: " + headerValue(mail.subject) + "\r\n";
  out += "Date: " + mailDate(mail.date) + "\r\n";
  out += "Message-ID: <" + id + "@certsteward>\r\n";
  out += "MIME-Version: 1.0\r\n";
  out += "Auto-Submitted: auto-generated\r\n";
  out += "X-CertSteward-Delivery: " + id + "\r\n";
  out += "X-CertSteward-Event: " + tokenOnly(mail.event) + "\r\n";
  if (mail.redelivery) out += "X-CertSteward-Redelivery: 1\r\n";
  out += "Content-Type: multipart/alternative; boundary=\"" + boundary + "\"\r\n";
  out += "\r\nThis is a message in MIME format: a plain text and an HTML version.\r\n";
  out += "\r\n--" + boundary + "\r\n";
  out += "Content-Type: text/plain; charset=utf-8\r\n";
  out += "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
  out += quotedPrintable(mail.text) + "\r\n";
  out += "\r\n--" + boundary + "\r\n";
  out += "Content-Type: text/html; charset=utf-8\r\n";
  out += "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
  out += quotedPrintable(htmlDocument(mail)) + "\r\n";
  out += "\r\n--" + boundary + "--\r\n";
  return out;
}

}  // namespace certsteward::adapters::notify
