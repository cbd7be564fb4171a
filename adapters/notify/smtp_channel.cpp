// SMTP delivery through libcurl: STARTTLS or implicit TLS (verified), AUTH when a username is set,
// one message to every recipient; the server's replies are followed (debug callback) so that an
// error can quote the reply that refused the message.
#include <certsteward/adapters/notify/smtp_channel.hpp>

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/notify/channel_text.hpp>
#include <certsteward/adapters/notify/mime_message.hpp>
#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/network_names.hpp>
#include <certsteward/domain/notification_settings.hpp>

namespace certsteward::adapters::notify {

using domain::ErrorCode;
using domain::makeError;

namespace {

struct EasyDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct ListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

domain::Error refuse(std::string text) {
  return makeError(ErrorCode::failed_precondition, "email: " + std::move(text));
}

struct Upload {
  const std::string* data;
  std::size_t at = 0;
};

std::size_t readMessage(char* buffer, std::size_t size, std::size_t count, void* source) {
  auto* upload = static_cast<Upload*>(source);
  const std::size_t n = std::min(size * count, upload->data->size() - upload->at);
  std::copy_n(upload->data->data() + upload->at, n, buffer);
  upload->at += n;
  return n;
}

// What the session said last: the verb of the last command sent (never its arguments, which may
// be credentials), the recipient of the last RCPT, and the server's reply to it.
struct Dialogue {
  std::string command;
  std::string recipient;
  std::string reply;
  bool reply_complete = true;
  bool quitting = false;  // QUIT after a failure: its "221" must not replace the real reply
};

int follow(CURL*, curl_infotype type, char* data, std::size_t size, void* out) {
  auto* d = static_cast<Dialogue*>(out);
  const std::string_view line(data, size);
  if (d->quitting) return 0;
  if (type == CURLINFO_HEADER_OUT) {
    std::string verb(line.substr(0, std::min(line.find_first_of(" :\r\n"), line.size())));
    std::transform(verb.begin(), verb.end(), verb.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    static const std::vector<std::string> kVerbs{"EHLO", "HELO", "STARTTLS", "AUTH", "MAIL",
                                                 "RCPT", "DATA", "RSET",     "NOOP"};
    if (verb == "QUIT") {
      d->quitting = true;
      return 0;
    }
    // Anything else is an AUTH continuation (a base64 user name or password): never kept.
    d->command = std::find(kVerbs.begin(), kVerbs.end(), verb) != kVerbs.end() ? verb : "AUTH";
    if (verb == "RCPT") {
      const auto open = line.find('<');
      const auto close = line.find('>', open == std::string_view::npos ? 0 : open);
      if (open != std::string_view::npos && close != std::string_view::npos) {
        d->recipient = std::string(line.substr(open + 1, close - open - 1));
      }
    }
    d->reply.clear();
    d->reply_complete = false;
  } else if (type == CURLINFO_HEADER_IN) {
    if (d->reply_complete) d->reply.clear();  // a new reply to the same command (after DATA)
    if (d->reply.size() < 4000) d->reply.append(line.substr(0, 4000 - d->reply.size()));
    d->reply_complete = line.size() < 4 || line[3] != '-';
  }
  return 0;
}

int replyCode(const std::string& reply) {
  int code = 0;
  if (reply.size() < 3) return 0;
  const auto [end, ec] = std::from_chars(reply.data(), reply.data() + 3, code);
  return ec == std::errc() && end == reply.data() + 3 ? code : 0;
}

// What went wrong, in the server's words: the reply's code and a fixed phrase, never the peer's
// text (logged instead); a failed connection, whatever its cause, is one phrase.
domain::Status failure(CURLcode rc, const char* errors, const Dialogue& d,
                       const std::string& hostPort, const std::string& from,
                       const std::vector<std::string>& secrets) {
  const std::string detail =
      excerpt(common::maskSecrets(errors[0] != '\0' ? errors : curl_easy_strerror(rc), secrets));
  const std::string reply = excerpt(common::maskSecrets(d.reply, secrets), 300);
  common::logOutboundDetail(
      hostPort, "email: " + detail + (reply.empty() ? "" : " (last reply: " + reply + ")"));
  const int code = replyCode(d.reply);
  const ErrorCode byCode =
      code >= 400 && code < 500 ? ErrorCode::unavailable : ErrorCode::failed_precondition;
  const std::string coded = " (" + std::to_string(code) + ")";
  if (rc == CURLE_USE_SSL_FAILED && code >= 200 && code < 600) {
    return refuse(hostPort + " does not offer STARTTLS (tls: starttls requires it)");
  }
  if (rc == CURLE_LOGIN_DENIED && code >= 400 && code < 600) {
    return makeError(byCode, "email: " + hostPort + " refused the authentication" + coded);
  }
  if (code >= 400 && code < 600 && rc != CURLE_OPERATION_TIMEDOUT) {
    std::string what = "refused the session";
    if (d.command == "RCPT") {
      what = "refused the recipient " + excerpt(d.recipient);
    } else if (d.command == "MAIL") {
      what = "refused the sender " + from;
    } else if (d.command == "DATA") {
      what = "refused the message";
    } else if (d.command == "AUTH") {
      what = "refused the authentication";
    }
    return makeError(byCode, "email: " + hostPort + " " + what + coded);
  }
  return makeError(ErrorCode::unavailable, "email: " + common::couldNotConnect(hostPort));
}

}  // namespace

domain::Status sendEmail(const common::Outbound& outbound,
                         const domain::NotificationChannel& channel, const std::string& secret,
                         const ports::OutgoingMessage& message, domain::Duration timeout) {
  const auto& s = channel.settings;
  const std::string host = domain::settingOf(s, "host");
  if (!domain::isHostName(host)) return refuse("host is not a host name or an IP address");
  const std::string tls = domain::settingOf(s, "tls", "starttls");
  if (tls != "starttls" && tls != "tls" && tls != "none") {
    return refuse("tls must be starttls, tls or none");
  }
  // Plain text only where nothing can listen in between.
  if (tls == "none" && !common::isLoopbackHost(host)) {
    return refuse("tls: none is allowed only for a loopback host");
  }
  const auto port = domain::parsePort(domain::settingOf(s, "port",
                                                        tls == "tls"    ? "465"
                                                        : tls == "none" ? "25"
                                                                        : "587"));
  if (!port) return refuse("port must be 1..65535");
  MailContent mail;
  mail.from = domain::settingOf(s, "from");
  if (!domain::isEmailAddress(mail.from)) return refuse("from is not an email address");
  mail.to = domain::emailRecipients(channel);
  if (mail.to.empty()) return refuse("to names no recipient");
  for (const auto& address : mail.to) {
    if (!domain::isEmailAddress(address))
      return refuse("to: '" + excerpt(address, 100) + "' is not an email address");
  }
  mail.from_name = domain::settingOf(s, "from_name");
  mail.subject = message.subject;
  mail.text = message.text;
  mail.html_fragment = message.html;
  mail.delivery_id = message.delivery_id;
  mail.event = message.event;
  mail.redelivery = message.redelivery;
  mail.date = std::chrono::system_clock::now();
  const std::string data = composeMail(mail);

  common::initCurlOnce();
  const std::unique_ptr<CURL, EasyDeleter> curl(curl_easy_init());
  if (!curl) return makeError(ErrorCode::internal, "email: libcurl could not start a session");
  CURL* h = curl.get();
  common::CurlPin pin;
  if (auto pinned = pin.pin(h, outbound, host, *port); !pinned) {
    auto error = pinned.error();
    error.message = "email: " + error.message;
    return error;
  }
  const bool bracket = host.find(':') != std::string::npos && host.front() != '[';
  const std::string hostPort = (bracket ? "[" + host + "]" : host) + ":" + std::to_string(*port);
  const std::string url = (tls == "tls" ? "smtps://" : "smtp://") + hostPort;
  const long ms = static_cast<long>(std::clamp<std::chrono::milliseconds::rep>(
      std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count(), 1,
      24L * 3600 * 1000));
  char errors[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, tls == "tls" ? "smtps" : "smtp");
  curl_easy_setopt(
      h, CURLOPT_USE_SSL,
      tls == "none" ? static_cast<long>(CURLUSESSL_NONE) : static_cast<long>(CURLUSESSL_ALL));
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  if (const std::string ca = domain::settingOf(s, "ca_bundle"); !ca.empty()) {
    curl_blob blob{const_cast<char*>(ca.data()), ca.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob);
  }
  curl_easy_setopt(h, CURLOPT_PROXY, "");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errors);
  const std::string username = domain::settingOf(s, "username");
  if (!username.empty()) {
    curl_easy_setopt(h, CURLOPT_USERNAME, username.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, secret.c_str());
  }
  const std::string mailFrom = "<" + mail.from + ">";
  curl_easy_setopt(h, CURLOPT_MAIL_FROM, mailFrom.c_str());
  curl_slist* raw = nullptr;
  for (const auto& address : mail.to)
    raw = curl_slist_append(raw, ("<" + address + ">").c_str());
  const std::unique_ptr<curl_slist, ListDeleter> recipients(raw);
  curl_easy_setopt(h, CURLOPT_MAIL_RCPT, raw);
  Upload upload{&data};
  curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(h, CURLOPT_READFUNCTION, readMessage);
  curl_easy_setopt(h, CURLOPT_READDATA, &upload);
  curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(data.size()));
  Dialogue dialogue;
  curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, follow);
  curl_easy_setopt(h, CURLOPT_DEBUGDATA, &dialogue);
  curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);  // feeds `follow`; nothing is printed
  const CURLcode rc = curl_easy_perform(h);
  if (rc == CURLE_OK) return {};
  std::vector<std::string> secrets;  // the password, also as AUTH LOGIN and PLAIN send it
  if (!secret.empty()) {
    secrets = {
        secret, domain::base64Encode(secret),
        domain::base64Encode(std::string(1, '\0') + username + std::string(1, '\0') + secret)};
  }
  return failure(rc, errors, dialogue, hostPort, mail.from, secrets);
}

}  // namespace certsteward::adapters::notify
