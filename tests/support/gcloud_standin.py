#!/usr/bin/env python3
"""A stand-in for Google Cloud DNS API v1 (the calls DNS-01 uses) and for Google's OAuth 2.0 token
endpoint as a service account uses it, written from Google's public documentation ("Using OAuth
2.0 for Server to Server Applications", the Cloud DNS v1 REST reference, Cloud DNS "Error
messages"), with a DNS responder for the TXT records it holds (standin_dns.py). For tests only,
on 127.0.0.1. Python standard library and the `openssl` command only.

At start-up it makes (with `openssl genpkey`) an RSA key pair, or reuses <key dir>/service-account.pem
if it is there, and writes <key dir>/service-account.json: a service-account key file as Google
issues them (type, project_id, private_key_id, private_key, client_email, client_id, auth_uri,
token_uri, ...) whose token_uri is this server's POST /token. It also writes
<key dir>/revoked-key.json: the same account with a second key that the server does not know (a
deleted key), whose assertions are refused as badly signed.

POST /token (application/x-www-form-urlencoded: grant_type=urn:ietf:params:oauth:grant-type:
jwt-bearer&assertion=<JWT>) checks the JWT as Google does and answers {"access_token", "expires_in":
3599, "token_type": "Bearer"}, or 400 {"error", "error_description"}:
- grant_type other than jwt-bearer: unsupported_grant_type "Invalid grant_type: <value>";
- no assertion, or one that is not three base64url parts of JSON: invalid_request;
- alg other than RS256: invalid_grant;
- iss not the key file's client_email: invalid_grant "Invalid grant: account not found";
- a signature that `openssl dgst -sha256 -verify` does not accept with the key named by kid (or,
  kid absent, the account's key): invalid_grant "Invalid JWT Signature.";
- aud other than the key file's token_uri: invalid_grant "Invalid JWT: Failed audience check...";
- iat or exp missing or not integers, exp - iat over 3600, exp already past, iat more than 60 s
  ahead of this server's clock: invalid_grant "Invalid JWT: Token must be a short-lived token (60
  minutes) and in a reasonable timeframe...";
- no scope, or a scope outside https://www.googleapis.com/auth/: invalid_scope;
- a sub claim (domain-wide delegation, which this account lacks): 401 unauthorized_client.
A token carries its scopes; Cloud DNS reads need ndev.clouddns.readonly, ndev.clouddns.readwrite,
cloud-platform or cloud-platform.read-only, writes ndev.clouddns.readwrite or cloud-platform.

Cloud DNS (under /dns/v1/projects/<project>) answers errors in Google's shape {"error": {"code",
"message", "errors": [{"message", "domain", "reason"}], "status"}}:
- no Authorization: 401 required; a token it did not issue, or one expired (POST
  /__standin/expire-tokens expires every token issued so far): 401 authError; a token without a
  Cloud DNS scope: 403 insufficientPermissions; another project: 403 forbidden;
- an unknown zone (by name or id): 404 notFound "The 'parameters.managedZone' resource named
  '<zone>' does not exist."; an unknown change: 404 notFound;
- query parameters the method does not have: 400 invalid ("Cannot bind query parameter"); type
  without name on rrsets: 400 invalid; maxResults not a positive integer, a pageToken it did not
  issue: 400 invalid;
- a change body that is not JSON (400 parseError), not sent as application/json, with fields a
  Change or ResourceRecordSet does not have, with neither additions nor deletions, a record set
  that is not TXT (a limit of this stand-in), whose name is not a fully qualified name (trailing
  dot) inside the zone, whose ttl is not an int32 >= 0 (a decimal string is accepted, as proto3
  JSON does), whose rrdatas are missing or not each one or more quoted character strings of at
  most 255 characters: 400 invalid / required;
- a deletion of a record set that is not there: 404 notFound; one whose ttl or rrdatas (as a
  multiset) differ from the set's current ones: 412 conditionNotMet "Precondition not met for
  'entity.change.deletions[i]'"; an addition of a set that exists (after the change's deletions):
  409 alreadyExists. Deletions apply before additions, atomically: a refused change changes
  nothing;
- while throttled (POST /__standin/throttle with a count; Cloud DNS calls only, not /token): 429
  rateLimitExceeded, status RESOURCE_EXHAUSTED;
- any other path or method: 404 with Google's HTML "Not Found" page.
A change is answered "pending"; GET .../changes/<id> answers "pending" for its first
`pending polls` calls, then "done". managedZones lists one zone a page and rrsets two sets a page
(maxResults is a maximum: "the server decides"), with nextPageToken. Zones are listed in the order
given on the command line (the harness puts a private zone of the same dnsName first). The zone's
nameServers are Google's ns-cloud-*.googledomains.com names, but its records are served by the
DNS responder on <dns port>, private zones' records never. A TXT value becomes visible there after
`visible after` queries for its name, and goes at once when deleted.

Assumptions (not confirmed by the documentation): the wording of 400 messages and their reasons;
that an unquoted TXT rrdata is refused (Cloud DNS may instead accept and quote it; an adapter
that always quotes is right either way); that a missing ttl is refused; the 60 s allowance for iat
ahead of the clock; that dnsName and name filters match with or without the trailing dot.

Usage: gcloud_standin.py <http port> <dns port> <key dir> <project> <visible after> <pending polls>
                         <dns name>=<zone name>[=private] ...
Prints "listening" once both sockets are bound and the key files are written.
"""
import base64
import hashlib
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin_dns  # noqa: E402  (the DNS side shared by the stand-ins)

HTTP_PORT, DNS_PORT, KEY_DIR, PROJECT, VISIBLE_AFTER, PENDING_POLLS = (
    int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]),
    int(sys.argv[6]))
TOKEN_URI = f"http://127.0.0.1:{HTTP_PORT}/token"
CLIENT_EMAIL = f"certsteward-dns@{PROJECT}.iam.gserviceaccount.com"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
SCOPE_PREFIX = "https://www.googleapis.com/auth/"
READ_SCOPES = {SCOPE_PREFIX + s for s in ("ndev.clouddns.readonly", "ndev.clouddns.readwrite",
                                          "cloud-platform", "cloud-platform.read-only")}
WRITE_SCOPES = {SCOPE_PREFIX + s for s in ("ndev.clouddns.readwrite", "cloud-platform")}
PREFIX = "/dns/v1/projects/"
ZONES = []  # in argv order: {"name", "id", "dnsName", "visibility", "sets", "changes", "next"}
for number, spec in enumerate(sys.argv[7:]):
    parts = spec.split("=")
    ZONES.append({"name": parts[1], "id": str(4830917264651723000 + number),
                  "dnsName": parts[0].lower().rstrip(".") + ".",
                  "visibility": "private" if len(parts) > 2 and parts[2] == "private" else "public",
                  "sets": {}, "changes": {}, "next": 1})
KEYS = {}  # private_key_id -> public key PEM path (only the account's live key)
TOKENS = {}  # access token -> {"scopes": set, "expires": epoch}
LOCK = threading.Lock()
STATE = {"throttle": 0, "requests": 0, "tokens": 0, "changes": 0}
STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
          404: "NOT_FOUND", 409: "ALREADY_EXISTS", 412: "FAILED_PRECONDITION",
          429: "RESOURCE_EXHAUSTED"}
ZONE_PAGE, RRSET_PAGE = 1, 2
NOT_FOUND_PAGE = ("<!DOCTYPE html>\n<html lang=en>\n<meta charset=utf-8>\n<title>Error 404 (Not Found)"
                  "!!1</title>\n<p><b>404.</b> <ins>That's an error.</ins>\n<p>The requested URL "
                  "<code>{}</code> was not found on this server.  <ins>That's all we know.</ins>\n")


# ---------------------------------------------------------------- keys and the key files

def openssl(*args, data=None):
    return subprocess.run(["openssl", *args], input=data, capture_output=True, check=False)


def make_key(name):
    """The PEM paths (private, public) of key `name` in KEY_DIR, made with openssl if absent."""
    private = os.path.join(KEY_DIR, name + ".pem")
    public = os.path.join(KEY_DIR, name + ".pub.pem")
    if not os.path.exists(private):
        made = openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                       "-out", private)
        if made.returncode != 0:
            sys.exit("openssl genpkey failed: " + made.stderr.decode(errors="replace"))
    made = openssl("pkey", "-in", private, "-pubout", "-out", public)
    if made.returncode != 0:
        sys.exit("openssl pkey failed: " + made.stderr.decode(errors="replace"))
    return private, public


def write_key_file(file_name, private, public):
    with open(public, "rb") as f:
        key_id = hashlib.sha1(f.read()).hexdigest()
    with open(private) as f:
        pem = f.read()
    client_id = str(int(hashlib.sha256(CLIENT_EMAIL.encode()).hexdigest(), 16))[:21]
    document = {
        "type": "service_account", "project_id": PROJECT, "private_key_id": key_id,
        "private_key": pem, "client_email": CLIENT_EMAIL, "client_id": client_id,
        "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": TOKEN_URI,
        "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
        "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/"
                                + CLIENT_EMAIL.replace("@", "%40"),
        "universe_domain": "googleapis.com"}
    path = os.path.join(KEY_DIR, file_name)
    with open(path + ".tmp", "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
    os.chmod(path + ".tmp", 0o600)
    os.replace(path + ".tmp", path)
    return key_id


def b64url_decode(part):
    if not part or any(c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                       for c in part):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def signature_verifies(public_pem, signing_input, signature):
    with tempfile.NamedTemporaryFile(dir=KEY_DIR, prefix="sig-", delete=False) as f:
        f.write(signature)
        sig_path = f.name
    try:
        checked = openssl("dgst", "-sha256", "-verify", public_pem, "-signature", sig_path,
                          data=signing_input)
        return checked.returncode == 0 and b"Verified OK" in checked.stdout
    finally:
        os.unlink(sig_path)


# ---------------------------------------------------------------- record sets

def set_view(name, kind, s):
    return {"kind": "dns#resourceRecordSet", "name": name, "type": kind, "ttl": s["ttl"],
            "rrdatas": list(s["rrdatas"]), "signatureRrdatas": []}


def zone_view(zone):
    letter = "abcd"[int(zone["id"]) % 4]
    return {"kind": "dns#managedZone", "name": zone["name"], "dnsName": zone["dnsName"],
            "description": "", "id": zone["id"],
            "nameServers": [f"ns-cloud-{letter}{i}.googledomains.com." for i in range(1, 5)],
            "creationTime": "2026-01-01T00:00:00.000Z", "visibility": zone["visibility"],
            "cloudLoggingConfig": {"kind": "dns#managedZoneCloudLoggingConfig"}}


for _zone in ZONES:  # every zone starts with its apex SOA and NS
    _ns = zone_view(_zone)["nameServers"]
    _zone["sets"][(_zone["dnsName"], "SOA")] = {
        "ttl": 21600, "records": [],
        "rrdatas": [f"{_ns[0]} cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300"]}
    _zone["sets"][(_zone["dnsName"], "NS")] = {"ttl": 21600, "rrdatas": _ns, "records": []}


def quoted_strings_ok(rrdata):
    """Whether `rrdata` is one or more "quoted" character strings (\\ escapes), each <= 255."""
    at, count = 0, 0
    while at < len(rrdata):
        if rrdata[at] == " ":
            at += 1
            continue
        if rrdata[at] != '"':
            return False
        at, length = at + 1, 0
        while at < len(rrdata) and rrdata[at] != '"':
            at += 2 if rrdata[at] == "\\" else 1
            length += 1
        if at >= len(rrdata) or length > 255:
            return False
        at, count = at + 1, count + 1
    return count > 0


def dns_records():
    out = []
    for zone in ZONES:
        if zone["visibility"] != "public":
            continue
        for (name, kind), s in zone["sets"].items():
            if kind == "TXT":
                out.extend(s["records"])
    return out


# ---------------------------------------------------------------- the server

def google_error(code, message, reason, extra=None):
    error = {"message": message, "domain": "global", "reason": reason}
    error.update(extra or {})
    return {"error": {"code": code, "message": message, "errors": [error],
                      "status": STATUS.get(code, "UNKNOWN")}}


class Refusal(Exception):
    def __init__(self, code, message, reason, extra=None):
        super().__init__(message)
        self.code, self.body = code, google_error(code, message, reason, extra)


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body, headers=(), content_type="application/json; charset=UTF-8"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def not_found_page(self, path):
        self.answer(404, NOT_FOUND_PAGE.format(path), content_type="text/html; charset=UTF-8")

    def control(self, method, path, payload):
        if method == "POST" and path == "/__standin/throttle":
            with LOCK:
                STATE["throttle"] = int(payload or b"0")
            return self.answer(200, {"ok": True})
        if method == "POST" and path == "/__standin/expire-tokens":
            with LOCK:
                for token in TOKENS.values():
                    token["expires"] = 0
            return self.answer(200, {"ok": True})
        if method == "GET" and path in ("/__standin/requests", "/__standin/tokens",
                                        "/__standin/changes"):
            with LOCK:
                key = path.rsplit("/", 1)[1]
                return self.answer(200, {key: STATE[key]})
        if method == "GET" and path == "/__standin/records":
            with LOCK:
                return self.answer(200, {"records": sum(len(s["rrdatas"]) for z in ZONES for
                                                        (n, k), s in z["sets"].items()
                                                        if k == "TXT")})
        return self.answer(404, {"error": "unknown control"})

    def handle_any(self, method):
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        payload = self.rfile.read(length) if length else b""
        if url.path.startswith("/__standin/"):
            return self.control(method, url.path, payload)
        if url.path == "/token":
            return self.token(method, payload)
        if not url.path.startswith(PREFIX):
            return self.not_found_page(url.path)
        with LOCK:
            STATE["requests"] += 1
            if STATE["throttle"] > 0:
                STATE["throttle"] -= 1
                message = ("Quota exceeded for quota metric 'Read requests' and limit 'Read "
                           "requests per minute' of service 'dns.googleapis.com'.")
                return self.answer(429, google_error(429, message, "rateLimitExceeded",
                                                     {"domain": "usageLimits"}))
        try:
            with LOCK:
                status, body = self.route(method, url, payload)
        except Refusal as refusal:
            return self.answer(refusal.code, refusal.body)
        if status == 404 and body is None:
            return self.not_found_page(url.path)
        return self.answer(status, body)

    # ------------------------------------------------------------ OAuth 2.0 token endpoint

    def token(self, method, payload):
        def refuse(error, description, status=400):
            return self.answer(status, {"error": error, "error_description": description})

        if method != "POST":
            return refuse("invalid_request", "Invalid request method: use POST", 405)
        if not self.headers.get("Content-Type", "").startswith(
                "application/x-www-form-urlencoded"):
            return refuse("invalid_request", "Invalid Content-Type: the request must be "
                          "application/x-www-form-urlencoded")
        form = parse_qs(payload.decode("utf-8", "replace"), keep_blank_values=True)
        grant = form.get("grant_type", [""])[0]
        if grant != JWT_BEARER:
            return refuse("unsupported_grant_type", "Invalid grant_type: " + grant)
        assertion = form.get("assertion", [""])[0]
        if not assertion:
            return refuse("invalid_request", "Missing required parameter: assertion")
        parts = assertion.split(".")
        try:
            if len(parts) != 3:
                raise ValueError("three parts")
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            signature = b64url_decode(parts[2])
            if not isinstance(header, dict) or not isinstance(claims, dict):
                raise ValueError("objects")
        except (ValueError, UnicodeDecodeError):
            return refuse("invalid_request", "Invalid JWT: the assertion is not a JWS in compact "
                          "serialization")
        if header.get("alg") != "RS256":
            return refuse("invalid_grant", "Invalid JWT: the algorithm must be RS256")
        if claims.get("iss") != CLIENT_EMAIL:
            return refuse("invalid_grant", "Invalid grant: account not found")
        kid = header.get("kid")
        if kid is None:
            public = next(iter(KEYS.values()))
        elif isinstance(kid, str) and kid in KEYS:
            public = KEYS[kid]
        else:
            public = None
        signing_input = (parts[0] + "." + parts[1]).encode()
        if public is None or not signature_verifies(public, signing_input, signature):
            return refuse("invalid_grant", "Invalid JWT Signature.")
        if claims.get("aud") != TOKEN_URI:
            return refuse("invalid_grant", "Invalid JWT: Failed audience check. The right "
                          "audience is " + TOKEN_URI)
        iat, exp, now = claims.get("iat"), claims.get("exp"), time.time()
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (iat, exp)) \
                or exp - iat > 3600 or exp <= now or iat > now + 60 or exp <= iat:
            return refuse("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 "
                          "minutes) and in a reasonable timeframe. Check your iat and exp values "
                          "in the JWT claim.")
        scope = claims.get("scope")
        scopes = set(scope.split()) if isinstance(scope, str) else set()
        if not scopes or any(not s.startswith(SCOPE_PREFIX) for s in scopes):
            return refuse("invalid_scope", "Invalid OAuth scope or ID token audience provided.")
        if "sub" in claims:
            return refuse("unauthorized_client", "Client is unauthorized to retrieve access "
                          "tokens using this method, or client not authorized for any of the "
                          "scopes requested.", 401)
        token = "ya29.c." + secrets.token_urlsafe(48)
        with LOCK:
            TOKENS[token] = {"scopes": scopes, "expires": now + 3600}
            STATE["tokens"] += 1
        return self.answer(200, {"access_token": token, "expires_in": 3599,
                                 "token_type": "Bearer"})

    # ------------------------------------------------------------ Cloud DNS

    def authorise(self, write):
        auth = self.headers.get("Authorization")
        if not auth:
            raise Refusal(401, "Request is missing required authentication credential. Expected "
                          "OAuth 2 access token, login cookie or other valid authentication "
                          "credential. See https://developers.google.com/identity/sign-in/web/"
                          "devconsole-project.", "required",
                          {"location": "Authorization", "locationType": "header"})
        token = TOKENS.get(auth[7:]) if auth.startswith("Bearer ") else None
        if token is None or token["expires"] <= time.time():
            raise Refusal(401, "Request had invalid authentication credentials. Expected OAuth 2 "
                          "access token, login cookie or other valid authentication credential. "
                          "See https://developers.google.com/identity/sign-in/web/"
                          "devconsole-project.", "authError",
                          {"location": "Authorization", "locationType": "header"})
        if not token["scopes"] & (WRITE_SCOPES if write else READ_SCOPES):
            raise Refusal(403, "Request had insufficient authentication scopes.",
                          "insufficientPermissions")

    @staticmethod
    def check_query(query, allowed):
        for name in query:
            if name not in allowed | {"alt", "prettyPrint", "fields", "key", "quotaUser"}:
                raise Refusal(400, f"Invalid JSON payload received. Unknown name \"{name}\": "
                              f"Cannot bind query parameter. Field '{name}' could not be found "
                              "in request message.", "invalid")

    @staticmethod
    def page(items, query, limit, encode):
        try:
            wanted = int(query.get("maxResults", [str(limit)])[0])
            if wanted < 1:
                raise ValueError
        except ValueError:
            raise Refusal(400, "Invalid value for 'parameters.maxResults': '"
                          + query["maxResults"][0] + "'", "invalid")
        start = 0
        if "pageToken" in query:
            token = query["pageToken"][0]
            try:
                scope, _, offset = b64url_decode(token).decode().rpartition(":")
                start = int(offset)
                if scope != encode or start < 0:
                    raise ValueError
            except (ValueError, IndexError, UnicodeDecodeError):
                raise Refusal(400, f"Invalid value for 'parameters.pageToken': '{token}'",
                              "invalid")
        size = min(wanted, limit)
        chunk = items[start: start + size]
        token = None
        if start + size < len(items):
            token = base64.urlsafe_b64encode(f"{encode}:{start + size}".encode()).decode() \
                .rstrip("=")
        return chunk, token

    def route(self, method, url, payload):
        parts = url.path[len(PREFIX):].split("/")
        query = parse_qs(url.query, keep_blank_values=True)
        if not parts[0]:
            return 404, None
        if len(parts) < 2 or parts[1] != "managedZones":
            return 404, None
        read_only = method == "GET"
        if method not in ("GET", "POST"):
            return 404, None
        self.authorise(write=not read_only)
        if parts[0] != PROJECT:
            raise Refusal(403, "Forbidden", "forbidden")
        if len(parts) == 2:
            return self.list_zones(query) if method == "GET" else (404, None)
        zone = next((z for z in ZONES if parts[2] in (z["name"], z["id"])), None)
        if zone is None:
            raise Refusal(404, f"The 'parameters.managedZone' resource named '{parts[2]}' does "
                          "not exist.", "notFound")
        if len(parts) == 3 and method == "GET":
            self.check_query(query, set())
            return 200, zone_view(zone)
        if len(parts) == 4 and parts[3] == "rrsets" and method == "GET":
            return self.list_sets(zone, query)
        if len(parts) == 4 and parts[3] == "changes" and method == "POST":
            self.check_query(query, {"clientOperationId"})
            return self.change(zone, payload)
        if len(parts) == 5 and parts[3] == "changes" and method == "GET":
            self.check_query(query, {"clientOperationId"})
            entry = zone["changes"].get(parts[4])
            if entry is None:
                raise Refusal(404, f"The 'parameters.changeId' resource named '{parts[4]}' does "
                              "not exist.", "notFound")
            entry["polls"] += 1
            view = dict(entry["change"])
            view["status"] = "done" if entry["polls"] > PENDING_POLLS else "pending"
            return 200, view
        return 404, None

    def list_zones(self, query):
        self.check_query(query, {"dnsName", "maxResults", "pageToken"})
        zones = ZONES
        if "dnsName" in query:
            wanted = query["dnsName"][0].lower().rstrip(".") + "."
            zones = [z for z in zones if z["dnsName"] == wanted]
        chunk, token = self.page(zones, query, ZONE_PAGE, "zones:" + query.get("dnsName",
                                                                               [""])[0])
        body = {"kind": "dns#managedZonesListResponse",
                "header": {"operationId": secrets.token_hex(8)},
                "managedZones": [zone_view(z) for z in chunk]}
        if token:
            body["nextPageToken"] = token
        return 200, body

    def list_sets(self, zone, query):
        self.check_query(query, {"name", "type", "maxResults", "pageToken"})
        if "type" in query and "name" not in query:
            raise Refusal(400, "Invalid value for 'parameters.type': a type filter needs a name "
                          "filter", "invalid")
        keys = sorted(zone["sets"])
        if "name" in query:
            wanted = query["name"][0].lower().rstrip(".") + "."
            keys = [k for k in keys if k[0] == wanted]
        if "type" in query:
            keys = [k for k in keys if k[1] == query["type"][0]]
        encode = "sets:" + zone["id"] + ":" + query.get("name", [""])[0] + ":" + \
            query.get("type", [""])[0]
        chunk, token = self.page(keys, query, RRSET_PAGE, encode)
        body = {"kind": "dns#resourceRecordSetsListResponse",
                "header": {"operationId": secrets.token_hex(8)},
                "rrsets": [set_view(k[0], k[1], zone["sets"][k]) for k in chunk]}
        if token:
            body["nextPageToken"] = token
        return 200, body

    def parse_set(self, zone, data, where):
        if not isinstance(data, dict):
            raise Refusal(400, f"Invalid value at '{where}' (type.googleapis.com/"
                          "google.cloud.dns.v1.ResourceRecordSet)", "invalid")
        for field in data:
            if field not in ("kind", "name", "type", "ttl", "rrdatas", "signatureRrdatas",
                             "routingPolicy"):
                raise Refusal(400, f"Invalid JSON payload received. Unknown name \"{field}\" at "
                              f"'{where}': Cannot find field.", "invalid")
        entity = "entity." + where
        name, kind, ttl, rrdatas = (data.get("name"), data.get("type"), data.get("ttl"),
                                    data.get("rrdatas"))
        if name is None:
            raise Refusal(400, f"Required field '{entity}.name' not specified", "required")
        if not isinstance(name, str) or not name.endswith(".") or ".." in name:
            raise Refusal(400, f"Invalid value for '{entity}.name': '{name}'", "invalid")
        name = name.lower()
        if name != zone["dnsName"] and not name.endswith("." + zone["dnsName"]):
            raise Refusal(400, f"Invalid value for '{entity}.name': '{name}' (not in the zone "
                          f"'{zone['dnsName']}')", "invalid")
        if kind is None:
            raise Refusal(400, f"Required field '{entity}.type' not specified", "required")
        if kind != "TXT":
            raise Refusal(400, f"Invalid value for '{entity}.type': '{kind}' (this stand-in "
                          "holds TXT record sets only)", "invalid")
        if ttl is None:
            raise Refusal(400, f"Required field '{entity}.ttl' not specified", "required")
        if isinstance(ttl, str) and ttl.isdigit():
            ttl = int(ttl)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or not 0 <= ttl <= 2147483647:
            raise Refusal(400, f"Invalid value at '{where}.ttl' (TYPE_INT32), "
                          f"{json.dumps(data.get('ttl'))}", "invalid")
        if not isinstance(rrdatas, list) or not rrdatas:
            raise Refusal(400, f"Required field '{entity}.rrdata' not specified", "required")
        for i, rrdata in enumerate(rrdatas):
            if not isinstance(rrdata, str) or not quoted_strings_ok(rrdata):
                raise Refusal(400, f"Invalid value for '{entity}.rrdata[{i}]': "
                              f"'{rrdata}'", "invalid")
        return name, kind, ttl, list(rrdatas)

    def change(self, zone, payload):
        if not self.headers.get("Content-Type", "").startswith("application/json"):
            raise Refusal(400, "Invalid JSON payload received. The request body must be sent as "
                          "application/json.", "parseError")
        try:
            data = json.loads(payload)
        except ValueError:
            raise Refusal(400, "Invalid JSON payload received. Unexpected token.", "parseError")
        if not isinstance(data, dict):
            raise Refusal(400, "Invalid JSON payload received. Expected an object.", "parseError")
        for field in data:
            if field not in ("kind", "additions", "deletions", "startTime", "id", "status",
                             "isServing"):
                raise Refusal(400, f"Invalid JSON payload received. Unknown name \"{field}\" at "
                              "'change': Cannot find field.", "invalid")
        additions, deletions = data.get("additions", []), data.get("deletions", [])
        for field, value in (("additions", additions), ("deletions", deletions)):
            if not isinstance(value, list):
                raise Refusal(400, f"Invalid value at 'change.{field}': a list is expected",
                              "invalid")
        if not additions and not deletions:
            raise Refusal(400, "Required field 'entity.change.additions' or "
                          "'entity.change.deletions' not specified", "required")
        adds = [self.parse_set(zone, a, f"change.additions[{i}]") for i, a in enumerate(additions)]
        dels = [self.parse_set(zone, d, f"change.deletions[{i}]") for i, d in enumerate(deletions)]
        staged = dict(zone["sets"])
        for i, (name, kind, ttl, rrdatas) in enumerate(dels):
            current = staged.get((name, kind))
            if current is None:
                raise Refusal(404, f"The 'entity.change.deletions[{i}]' resource named '{name} "
                              f"({kind})' does not exist.", "notFound")
            if current["ttl"] != ttl or sorted(current["rrdatas"]) != sorted(rrdatas):
                raise Refusal(412, f"Precondition not met for 'entity.change.deletions[{i}]'",
                              "conditionNotMet")
            del staged[(name, kind)]
        removed = {r["content"]: r for d in dels for r in zone["sets"][(d[0], d[1])]["records"]}
        for i, (name, kind, ttl, rrdatas) in enumerate(adds):
            if (name, kind) in staged:
                raise Refusal(409, f"The resource 'entity.change.additions[{i}]' named '{name} "
                              f"({kind})' already exists", "alreadyExists")
            fqdn = name.rstrip(".")
            records = [removed.pop(r) if r in removed and removed[r]["fqdn"] == fqdn else
                       {"fqdn": fqdn, "content": r, "seen": 0} for r in rrdatas]
            staged[(name, kind)] = {"ttl": ttl, "rrdatas": rrdatas, "records": records}
        zone["sets"] = staged
        change_id = str(zone["next"])
        zone["next"] += 1
        STATE["changes"] += 1
        change = {"kind": "dns#change", "id": change_id,
                  "startTime": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                  "status": "pending", "isServing": True,
                  "additions": [set_view(a[0], a[1], {"ttl": a[2], "rrdatas": a[3]}) for a in adds],
                  "deletions": [set_view(d[0], d[1], {"ttl": d[2], "rrdatas": d[3]}) for d in dels]}
        zone["changes"][change_id] = {"change": change, "polls": 0}
        return 200, change

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_PATCH(self):
        self.handle_any("PATCH")


def main():
    os.makedirs(KEY_DIR, exist_ok=True)
    private, public = make_key("service-account")
    KEYS[write_key_file("service-account.json", private, public)] = public
    revoked_private, revoked_public = make_key("revoked-key")
    write_key_file("revoked-key.json", revoked_private, revoked_public)
    standin_dns.serve(DNS_PORT, lambda: [z["dnsName"].rstrip(".") for z in ZONES
                                         if z["visibility"] == "public"],
                      dns_records, LOCK, VISIBLE_AFTER)
    server = ThreadingHTTPServer(("127.0.0.1", HTTP_PORT), Api)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
