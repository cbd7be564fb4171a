// Byte encoders, written once for every layer: lower-case hex, base64 and base64url (RFC 4648).
// Decoders refuse anything that is not the canonical encoding (wrong alphabet, bad padding,
// stray bits), so one value has one text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace certsteward::domain {

std::string toHex(std::string_view bytes);                          // lower case
std::optional<std::string> fromHex(std::string_view text);          // lower or upper case
std::string base64Encode(std::string_view bytes);                   // with '=' padding
std::optional<std::string> base64Decode(std::string_view text);     // padding required
std::string base64UrlEncode(std::string_view bytes);                // '-' '_', no padding
std::optional<std::string> base64UrlDecode(std::string_view text);  // no padding
// An ACME challenge token as RFC 8555 8.1 makes them: 1..256 base64url characters. Tokens go
// into URL paths and file names, so anything else from a CA is refused wherever one is used.
bool isAcmeToken(std::string_view text) noexcept;
// RFC 3986: unreserved characters (A-Z a-z 0-9 - . _ ~) stay, every other byte is %XX (upper
// case). For query and form values, URI components and otpauth labels.
std::string percentEncode(std::string_view text);

// Why `bundle` is not one or more PEM certificates, or "": every block is
// "-----BEGIN CERTIFICATE-----" / "-----END CERTIFICATE-----" around base64 (lines of any
// length) that decodes to a DER SEQUENCE whose length fits what was decoded; text between blocks
// (comments, headers) is read past as OpenSSL does, but no other PEM block (a key); at least one
// certificate, at most 100, at most 64 KiB. A structural check (no signature or
// date is looked at): what the trust stores of the adapters will read as certificates.
std::string pemCertificatesProblem(std::string_view bundle);

}  // namespace certsteward::domain
