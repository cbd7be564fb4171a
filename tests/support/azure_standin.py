#!/usr/bin/env python3
"""A stand-in for Azure DNS as a DNS-01 client meets it: the Microsoft identity platform's OAuth2
client-credentials token endpoint and the Azure Resource Manager (ARM) DNS zones and record sets
API (Microsoft.Network/dnsZones, api-version 2018-05-01), both on one port, with a DNS responder
for the records it holds (standin_dns.py). Written from Microsoft's published references
(learn.microsoft.com/rest/api/dns/record-sets/*, /zones/*, entra/identity-platform/
v2-oauth2-client-creds-grant-flow and reference-error-codes, azure-resource-manager/management/
request-limits-and-throttling) and the 2018-05-01 examples in Azure/azure-rest-api-specs.
For tests only, on 127.0.0.1.

Token endpoint, POST /{tenant}/oauth2/v2.0/token (application/x-www-form-urlencoded:
grant_type=client_credentials, client_id, client_secret, scope=<resource>/.default; the client
may instead authenticate with HTTP Basic). It answers {"token_type": "Bearer", "expires_in": 3599,
"ext_expires_in": 3599, "access_token": <a JWT-shaped token>} and refuses as Entra ID does, with
{"error", "error_description" ("AADSTSnnn: ...\\r\\nTrace ID: ..."), "error_codes", "timestamp",
"trace_id", "correlation_id", "error_uri"}:
- another method: 400 invalid_request AADSTS900561;
- a body that is not a form, or without grant_type / client_id / scope: 400 invalid_request
  AADSTS900144;
- a grant other than client_credentials: 400 unsupported_grant_type AADSTS70003;
- an unknown tenant: 400 invalid_request AADSTS90002;
- an unknown client id: 400 unauthorized_client AADSTS700016;
- no secret: 400 invalid_client AADSTS7000218; a wrong secret: 401 invalid_client AADSTS7000215;
- a scope without /.default: 400 invalid_scope AADSTS1002012; an unknown resource: 400
  invalid_resource AADSTS500011 (management.azure.com, management.core.windows.net,
  graph.microsoft.com and vault.azure.net are known; only the first two are ARM's audiences).

ARM, /subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Network/dnsZones[/{zone}[/TXT
[/{relativeRecordSetName}]]] (literal segments case-insensitive, as ARM's are), also
/subscriptions/{sub}/providers/Microsoft.Network/dnszones and .../dnsZones/{zone}/recordsets.
Refusals in ARM's shape ({"error": {"code", "message"}}):
- no Authorization: 401 AuthenticationFailed; not "Bearer <token>": 401 AuthenticationFailed;
  a token it did not issue: 401 InvalidAuthenticationToken; one issued for another resource:
  401 InvalidAuthenticationTokenAudience; one expired (POST /__standin/expire-tokens expires
  every token issued so far): 401 ExpiredAuthenticationToken; each with WWW-Authenticate;
- no api-version: 400 MissingApiVersionParameter; an unknown one: 400 NoRegisteredProviderFound;
- a malformed subscription id: 400 InvalidSubscriptionId; an unknown one: 404
  SubscriptionNotFound; an unknown resource group: 404 ResourceGroupNotFound; an unknown zone:
  404 ResourceNotFound (the zone itself) or ParentResourceNotFound (its record sets);
- an absent record set (GET, PATCH): 404 with the DNS provider's own body {"code": "NotFound",
  "message": "The resource record '<name>' does not exist in resource group '<rg>' of
  subscription '<sub>'."} (not wrapped in "error": as azure-cli's debug output shows it);
- PUT/PATCH without Content-Type application/json: 415 UnsupportedMediaType; a body that is not
  JSON: 400 InvalidRequestContent; a body without a "properties" object, a TTL that is not an
  integer in 0..2147483647, TXTRecords that are not [{"value": [string, ...]}], a string over
  255 characters or a record over 1024 in all, a bad record set name: 400 BadRequest;
- If-Match not matching the record set's etag (or on an absent set): 412 PreconditionFailed;
  If-None-Match: * on an existing set: 412 PreconditionFailed;
- while throttled (POST /__standin/throttle with a count; ARM requests only, not the token
  endpoint): 429 SubscriptionRequestsThrottled with Retry-After: 1.
PUT answers 201 (created) or 200 (replaced) with the record set and a new etag; DELETE answers
200 (deleted) or 204 (absent), no body. Listings take $top (default 100) and page with nextLink
($skipToken). Record set names are relative to the zone ("@" for the apex); a full name is taken
as relative, as ARM does (_acme-challenge.example.test in example.test is a record under it, never
visible where meant). Every zone holds its SOA and NS record sets; writes here are TXT only
(other types: 400 BadRequest, a stand-in limit; the real API takes them).

DNS (UDP, on its own port; standin_dns.py): every string list of a TXTRecords entry is one TXT
record, answered only after `visible after` queries for its name (Azure's name servers catching
up, documented as within 60 s), and dropped at once when removed.

Assumptions where the documentation says nothing (the stand-in is wrong where they are): the
exact wording of ARM and DNS messages; 412 on If-Match for an absent set; 204 for DELETE of an
absent set even with If-Match; TTL optional (3600 when absent); fqdn ends with a dot; the etag is
sent in the body only, not as an ETag header; ARM checks the token before the api-version.

Usage: azure_standin.py <http port> <dns port> <tenant id> <client id> <client secret>
                        <subscription id> <visible after> <resource group>/<zone> ...
Prints "listening" once both sockets are bound.
"""
import base64
import datetime
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin_dns  # noqa: E402  (the DNS side shared by the stand-ins)

HTTP_PORT, DNS_PORT = int(sys.argv[1]), int(sys.argv[2])
TENANT, CLIENT_ID, CLIENT_SECRET, SUBSCRIPTION = (
    sys.argv[3].lower(), sys.argv[4].lower(), sys.argv[5], sys.argv[6].lower())
VISIBLE_AFTER = int(sys.argv[7])
ZONES = {}  # zone name -> {"name", "rg", "etag"}
for spec in sys.argv[8:]:
    group, zone_name = spec.split("/")
    ZONES[zone_name.lower().rstrip(".")] = {"name": zone_name.lower().rstrip("."), "rg": group,
                                            "etag": str(uuid.uuid4())}
# (zone, record set name lower case) -> {"name", "ttl", "etag", "metadata", "fqdn",
# "records": [{"value": [...], "fqdn", "content", "seen"}]}
SETS = {}
TOKENS = {}  # access token -> {"aud", "exp"}
LOCK = threading.Lock()
STATE = {"throttle": 0, "requests": 0, "tokens": 0, "writes": 0, "interfere": 0}
API_VERSIONS = ("2015-05-04-preview", "2016-04-01", "2017-09-01", "2017-09-15-preview",
                "2017-10-01", "2018-03-01-preview", "2018-05-01", "2023-07-01-preview")
RESOURCES = {"https://management.azure.com": "https://management.azure.com/",
             "https://management.core.windows.net": "https://management.core.windows.net/",
             "https://graph.microsoft.com": "https://graph.microsoft.com",
             "https://vault.azure.net": "https://vault.azure.net"}
ARM_AUDIENCES = ("https://management.azure.com/", "https://management.core.windows.net/")
NAMESERVERS = ["ns1-01.azure-dns.com.", "ns2-01.azure-dns.net.", "ns3-01.azure-dns.org.",
               "ns4-01.azure-dns.info."]
GUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
NAME_RE = re.compile(r"^(\*|[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)"
                     r"(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*$")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def utc_text(when=None):
    when = when or datetime.datetime.now(datetime.timezone.utc)
    return when.strftime("%Y-%m-%d %H:%M:%SZ")


def aad_failure(error, code, description):
    trace, correlation = str(uuid.uuid4()), str(uuid.uuid4())
    stamp = utc_text()
    return {"error": error,
            "error_description": f"AADSTS{code}: {description}\r\nTrace ID: {trace}\r\n"
                                 f"Correlation ID: {correlation}\r\nTimestamp: {stamp}",
            "error_codes": [code], "timestamp": stamp, "trace_id": trace,
            "correlation_id": correlation,
            "error_uri": f"https://login.microsoftonline.com/error?code={code}"}


def arm_failure(code, message):
    return {"error": {"code": code, "message": message}}


def zone_id(zone):
    return (f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{zone['rg']}/providers/"
            f"Microsoft.Network/dnszones/{zone['name']}")


def zone_view(zone):
    count = 2 + sum(1 for k in SETS if k[0] == zone["name"])
    return {"id": zone_id(zone), "name": zone["name"], "type": "Microsoft.Network/dnszones",
            "etag": zone["etag"], "location": "global", "tags": {},
            "properties": {"maxNumberOfRecordSets": 10000, "maxNumberOfRecordsPerRecordSet": None,
                           "nameServers": NAMESERVERS, "numberOfRecordSets": count,
                           "zoneType": "Public"}}


def builtin_views(zone):
    """The SOA and NS record sets every zone holds."""
    base = zone_id(zone)
    return [
        {"id": f"{base}/NS/@", "name": "@", "type": "Microsoft.Network/dnszones/NS",
         "etag": zone["etag"],
         "properties": {"metadata": {}, "TTL": 172800, "fqdn": zone["name"] + ".",
                        "provisioningState": "Succeeded", "targetResource": {},
                        "NSRecords": [{"nsdname": ns} for ns in NAMESERVERS]}},
        {"id": f"{base}/SOA/@", "name": "@", "type": "Microsoft.Network/dnszones/SOA",
         "etag": zone["etag"],
         "properties": {"metadata": {}, "TTL": 3600, "fqdn": zone["name"] + ".",
                        "provisioningState": "Succeeded", "targetResource": {},
                        "SOARecord": {"email": "azuredns-hostmaster.microsoft.com",
                                      "expireTime": 2419200, "host": NAMESERVERS[0],
                                      "minimumTTL": 300, "refreshTime": 3600, "retryTime": 300,
                                      "serialNumber": 1}}}]


def set_view(zone, s):
    properties = {"metadata": s["metadata"], "TTL": s["ttl"], "fqdn": s["fqdn"] + ".",
                  "provisioningState": "Succeeded", "targetResource": {},
                  "TXTRecords": [{"value": list(r["value"])} for r in s["records"]]}
    if s["metadata"] is None:
        del properties["metadata"]
    return {"id": f"{zone_id(zone)}/TXT/{s['name']}", "name": s["name"],
            "type": "Microsoft.Network/dnszones/TXT", "etag": s["etag"],
            "properties": properties}


def dns_content(strings):
    return " ".join('"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"' for s in strings)


def fqdn_of(zone, name):
    return zone["name"] if name == "@" else f"{name.lower()}.{zone['name']}"


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def arm(self, status, body=None, headers=()):
        request_id = str(uuid.uuid4())
        common = [("x-ms-request-id", request_id), ("x-ms-correlation-request-id", request_id),
                  ("x-ms-ratelimit-remaining-subscription-reads", "249"),
                  ("x-ms-ratelimit-remaining-subscription-writes", "199"),
                  ("Cache-Control", "private")]
        given = {name.lower() for name, _ in headers}
        common = [(n, v) for n, v in common if n.lower() not in given]
        return self.answer(status, body, common + list(headers))

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def control(self, method, path, payload):
        with LOCK:
            if method == "POST" and path == "/__standin/throttle":
                STATE["throttle"] = int(payload or b"0")
                return self.answer(200, {"ok": True})
            if method == "POST" and path == "/__standin/interfere":
                # The next N reads of a TXT record set are each followed by another writer's
                # change to that set (a value of its own added, a new etag), as a second
                # client writing the same name between our read and our write would.
                STATE["interfere"] = int(payload or b"0")
                return self.answer(200, {"ok": True})
            if method == "POST" and path == "/__standin/expire-tokens":
                for held in TOKENS.values():
                    held["exp"] = int(time.time()) - 60
                return self.answer(200, {"expired": len(TOKENS)})
            counts = {"requests": STATE["requests"], "tokens": STATE["tokens"],
                      "writes": STATE["writes"],
                      "records": sum(len(s["records"]) for s in SETS.values())}
            name = path[len("/__standin/"):]
            if method == "GET" and name in counts:
                return self.answer(200, {name: counts[name]})
            if method == "GET" and name == "stats":
                return self.answer(200, counts)
        return self.answer(404, {"error": "unknown control"})

    def handle_any(self, method):
        url = urlsplit(self.path)
        payload = self.body()
        if url.path.startswith("/__standin/"):
            return self.control(method, url.path, payload)
        parts = [unquote(p) for p in url.path.strip("/").split("/")]
        if len(parts) == 4 and parts[1:] == ["oauth2", "v2.0", "token"]:
            with LOCK:
                return self.token(method, parts[0], payload)
        with LOCK:
            STATE["requests"] += 1
            if STATE["throttle"] > 0:
                STATE["throttle"] -= 1
                kind = "read" if method == "GET" else "write"
                return self.arm(429, arm_failure(
                    "SubscriptionRequestsThrottled",
                    f"Number of '{kind}' requests for subscription '{SUBSCRIPTION}' actor "
                    f"'{CLIENT_ID}' exceeded. Please try again after '1' seconds after "
                    "additional tokens are available. Refer to https://aka.ms/arm-throttling"),
                    [("Retry-After", "1"),
                     (f"x-ms-ratelimit-remaining-subscription-{kind}s", "0")])
            if not self.authorised():
                return None
            query = parse_qs(url.query, keep_blank_values=True)
            version = query.get("api-version", [""])[0]
            if not version:
                return self.arm(400, arm_failure(
                    "MissingApiVersionParameter",
                    "The api-version query parameter (?api-version=) is required for all "
                    "requests."))
            if version not in API_VERSIONS:
                return self.arm(400, arm_failure(
                    "NoRegisteredProviderFound",
                    f"No registered resource provider found for location 'global' and API "
                    f"version '{version}' for type 'dnszones'. The supported api-versions are "
                    f"'{', '.join(API_VERSIONS)}'. The supported locations are ', global'."))
            return self.route(method, parts, query, payload, url.path)

    # ---- the token endpoint -------------------------------------------------------------

    def token(self, method, tenant, payload):
        def fail(status, error, code, description):
            return self.answer(status, aad_failure(error, code, description),
                               [("Cache-Control", "no-store, no-cache"), ("Pragma", "no-cache")])

        if method != "POST":
            return fail(400, "invalid_request", 900561, "The endpoint only accepts POST, OPTIONS "
                        f"requests. Received a {method} request.")
        form = {}
        if self.headers.get("Content-Type", "").split(";")[0].strip().lower() == \
                "application/x-www-form-urlencoded":
            try:
                form = {k: v[0] for k, v in parse_qs(payload.decode(), keep_blank_values=True,
                                                     strict_parsing=bool(payload)).items()}
            except (ValueError, UnicodeDecodeError):
                form = {}
        basic_id, basic_secret = None, None
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            try:
                pair = base64.b64decode(auth[6:], validate=True).decode()
                basic_id, _, basic_secret = pair.partition(":")
                basic_id, basic_secret = unquote(basic_id), unquote(basic_secret)
            except (ValueError, UnicodeDecodeError):
                return fail(401, "invalid_client", 7000215, "Invalid client secret provided.")
        for name in ("grant_type", "client_id", "scope"):
            if name == "client_id" and basic_id:
                continue
            if not form.get(name):
                return fail(400, "invalid_request", 900144, "The request body must contain the "
                            f"following parameter: '{name}'.")
        if form["grant_type"] != "client_credentials":
            return fail(400, "unsupported_grant_type", 70003, "The app requested an unsupported "
                        f"grant type '{form['grant_type']}'.")
        if tenant.lower() != TENANT:
            return fail(400, "invalid_request", 90002, f"Tenant '{tenant}' not found. Check to "
                        "make sure you have the correct tenant ID and are signing into the "
                        "correct cloud. Check with your subscription administrator, this may "
                        "happen if there are no active subscriptions for the tenant.")
        client_id = (basic_id or form["client_id"]).lower()
        if client_id != CLIENT_ID:
            return fail(400, "unauthorized_client", 700016, f"Application with identifier "
                        f"'{client_id}' was not found in the directory '{TENANT}'. This can "
                        "happen if the application has not been installed by the administrator "
                        "of the tenant or consented to by any user in the tenant. You may have "
                        "sent your authentication request to the wrong tenant.")
        secret = basic_secret if basic_id else form.get("client_secret")
        if not secret:
            return fail(400, "invalid_client", 7000218, "The request body must contain the "
                        "following parameter: 'client_assertion' or 'client_secret'.")
        if secret != CLIENT_SECRET:
            return fail(401, "invalid_client", 7000215, "Invalid client secret provided. Ensure "
                        "the secret being sent in the request is the client secret value, not "
                        f"the client secret ID, for a secret added to app '{CLIENT_ID}'.")
        scope = form["scope"].strip()
        if " " in scope or not scope.endswith("/.default"):
            return fail(400, "invalid_scope", 1002012, f"The provided value for scope {scope} is "
                        "not valid. Client credential flows must have a scope value with "
                        "/.default suffixed to the resource identifier (application ID URI).")
        resource = scope[: -len("/.default")].rstrip("/")
        if resource not in RESOURCES:
            return fail(400, "invalid_resource", 500011, f"The resource principal named "
                        f"{resource} was not found in the tenant named {TENANT}. This can happen "
                        "if the application has not been installed by the administrator of the "
                        "tenant or consented to by any user in the tenant. You might have sent "
                        "your authentication request to the wrong tenant.")
        now = int(time.time())
        claims = {"aud": RESOURCES[resource], "iss": f"https://sts.windows.net/{TENANT}/",
                  "iat": now, "nbf": now, "exp": now + 3599, "appid": CLIENT_ID,
                  "appidacr": "1", "idtyp": "app", "oid": str(uuid.uuid5(uuid.NAMESPACE_URL,
                                                                          CLIENT_ID)),
                  "sub": str(uuid.uuid5(uuid.NAMESPACE_URL, CLIENT_ID)), "tid": TENANT,
                  "ver": "1.0"}
        access = ".".join([b64url(json.dumps({"typ": "JWT", "alg": "RS256",
                                              "kid": "standin"}).encode()),
                           b64url(json.dumps(claims).encode()), b64url(os.urandom(32))])
        TOKENS[access] = {"aud": claims["aud"], "exp": claims["exp"]}
        STATE["tokens"] += 1
        return self.answer(200, {"token_type": "Bearer", "expires_in": 3599,
                                 "ext_expires_in": 3599, "access_token": access},
                           [("Cache-Control", "no-store, no-cache"), ("Pragma", "no-cache")])

    # ---- ARM -----------------------------------------------------------------------------

    def authorised(self):
        def fail(code, message, why):
            self.arm(401, arm_failure(code, message),
                     [("WWW-Authenticate", f'Bearer authorization_uri="https://login.windows.net/'
                                           f'{TENANT}", error="invalid_token", '
                                           f'error_description="{why}"')])
            return False

        auth = self.headers.get("Authorization")
        if auth is None:
            return fail("AuthenticationFailed", "Authentication failed. The 'Authorization' "
                        "header is missing.", "The authentication failed because of missing "
                        "'Authorization' header.")
        if not auth.startswith("Bearer ") or not auth[7:] or " " in auth[7:]:
            return fail("AuthenticationFailed", "Authentication failed. The 'Authorization' "
                        "header is provided in an invalid format.", "The access token is "
                        "missing or invalid.")
        held = TOKENS.get(auth[7:])
        if held is None:
            return fail("InvalidAuthenticationToken", "The access token is invalid.",
                        "The access token is invalid.")
        if held["aud"] not in ARM_AUDIENCES:
            return fail("InvalidAuthenticationTokenAudience", "The access token has been "
                        f"obtained for wrong audience or resource '{held['aud']}'. It should "
                        "exactly match with one of the allowed audiences "
                        "'https://management.core.windows.net/','https://management.core."
                        "windows.net','https://management.azure.com/',"
                        "'https://management.azure.com'.", "The access token has been obtained "
                        "for wrong audience or resource.")
        now = int(time.time())
        if held["exp"] <= now:
            expiry = utc_text(datetime.datetime.fromtimestamp(held["exp"], datetime.timezone.utc))
            return fail("ExpiredAuthenticationToken", f"The access token expiry UTC time "
                        f"'{expiry}' is earlier than current UTC time '{utc_text()}'.",
                        "The access token expiry UTC time is earlier than current UTC time.")
        return True

    def route(self, method, parts, query, payload, path):
        low = [p.lower() for p in parts]
        not_found = arm_failure("NotFound", "The requested path is not found.")
        if len(parts) < 2 or low[0] != "subscriptions":
            return self.arm(404, not_found)
        if not GUID_RE.match(low[1]):
            return self.arm(400, arm_failure("InvalidSubscriptionId", f"The provided subscription "
                                             f"identifier '{parts[1]}' is malformed or invalid."))
        if low[1] != SUBSCRIPTION:
            return self.arm(404, arm_failure("SubscriptionNotFound",
                                             f"The subscription '{parts[1]}' could not be found."))
        if low[2:] == ["providers", "microsoft.network", "dnszones"]:
            if method != "GET":
                return self.arm(405, arm_failure("MethodNotAllowed", "The requested method is "
                                                 "not allowed."))
            return self.listing([zone_view(z) for z in sorted(ZONES.values(),
                                                              key=lambda z: z["name"])],
                                query, path)
        if len(parts) < 7 or low[2] != "resourcegroups" or low[4:7] != \
                ["providers", "microsoft.network", "dnszones"]:
            return self.arm(404, not_found)
        group = parts[3]
        if not any(z["rg"].lower() == group.lower() for z in ZONES.values()):
            return self.arm(404, arm_failure("ResourceGroupNotFound",
                                             f"Resource group '{group}' could not be found."))
        rest = parts[7:]
        if not rest:
            if method != "GET":
                return self.arm(405, arm_failure("MethodNotAllowed", "The requested method is "
                                                 "not allowed."))
            zones = [z for z in sorted(ZONES.values(), key=lambda z: z["name"])
                     if z["rg"].lower() == group.lower()]
            return self.listing([zone_view(z) for z in zones], query, path)
        zone = ZONES.get(rest[0].lower().rstrip("."))
        if zone is not None and zone["rg"].lower() != group.lower():
            zone = None
        if zone is None:
            if len(rest) == 1:
                return self.arm(404, arm_failure(
                    "ResourceNotFound", f"The Resource 'Microsoft.Network/dnszones/{rest[0]}' "
                    f"under resource group '{group}' was not found. For more details please go to "
                    "https://aka.ms/ARMResourceNotFoundFix"))
            return self.arm(404, arm_failure(
                "ParentResourceNotFound", "Can not perform requested operation on nested "
                f"resource. Parent resource '{rest[0]}' not found."))
        if len(rest) == 1:
            if method != "GET":
                return self.arm(405, arm_failure("MethodNotAllowed", "The stand-in does not "
                                                 "change zones."))
            return self.arm(200, zone_view(zone))
        kind = rest[1].upper()
        if len(rest) == 2:
            if method != "GET":
                return self.arm(405, arm_failure("MethodNotAllowed", "The requested method is "
                                                 "not allowed."))
            return self.list_sets(zone, rest[1].lower(), query, path)
        if len(rest) != 3:
            return self.arm(404, not_found)
        name = rest[2]
        if kind in ("NS", "SOA") and method == "GET":
            views = [v for v in builtin_views(zone) if v["type"].endswith("/" + kind)]
            if name == "@":
                return self.arm(200, views[0])
            return self.record_not_found(zone, name)
        if kind not in ("A", "AAAA", "CAA", "CNAME", "MX", "NS", "PTR", "SOA", "SRV", "TXT",
                        "DS", "NAPTR", "TLSA"):
            return self.arm(400, arm_failure("BadRequest", f"The record type '{rest[1]}' is not "
                                             "valid."))
        if kind != "TXT":
            if method == "GET":
                return self.record_not_found(zone, name)
            return self.arm(400, arm_failure("BadRequest", "This stand-in writes TXT record "
                                             "sets only."))
        if method == "GET":
            s = SETS.get((zone["name"], name.lower()))
            sent = (self.arm(200, set_view(zone, s)) if s
                    else self.record_not_found(zone, name))
            if STATE["interfere"] > 0:
                STATE["interfere"] -= 1
                self.other_writer(zone, name)
            return sent
        if method in ("PUT", "PATCH"):
            return self.write_set(method, zone, name, payload)
        if method == "DELETE":
            return self.delete_set(zone, name)
        return self.arm(405, arm_failure("MethodNotAllowed", "The requested method is not "
                                         "allowed."))

    def other_writer(self, zone, name):
        """Another client's write to the TXT set `name`: one value of its own added."""
        key = (zone["name"], name.lower())
        s = SETS.get(key)
        if s is None:
            s = {"name": name, "fqdn": fqdn_of(zone, name), "records": [], "ttl": 60,
                 "metadata": None}
            SETS[key] = s
        value = ["other-writer-%d" % len(s["records"])]
        s["records"].append({"value": value, "fqdn": s["fqdn"], "content": dns_content(value),
                             "seen": 0})
        s["etag"] = str(uuid.uuid4())
        STATE["writes"] += 1

    def record_not_found(self, zone, name):
        return self.arm(404, {"code": "NotFound",
                              "message": f"The resource record '{name}' does not exist in "
                                         f"resource group '{zone['rg']}' of subscription "
                                         f"'{SUBSCRIPTION}'."})

    def listing(self, items, query, path):
        try:
            top = int(query.get("$top", ["100"])[0])
            skip = int(base64.urlsafe_b64decode(query["$skipToken"][0].encode()).decode()) \
                if "$skipToken" in query else 0
        except (ValueError, UnicodeDecodeError):
            return self.arm(400, arm_failure("BadRequest", "The value of $top or $skipToken is "
                                             "invalid."))
        if top < 1 or skip < 0:
            return self.arm(400, arm_failure("BadRequest", "The value of $top must be a positive "
                                             "integer."))
        chunk = items[skip: skip + top]
        body = {"value": chunk}
        if skip + top < len(items):
            q = {k: v[0] for k, v in query.items() if k != "$skipToken"}
            q["$top"] = str(top)
            q["$skipToken"] = base64.urlsafe_b64encode(str(skip + top).encode()).decode()
            body["nextLink"] = (f"http://127.0.0.1:{HTTP_PORT}{path}?"
                                f"{urlencode(q, safe='$')}")
        return self.arm(200, body)

    def list_sets(self, zone, what, query, path):
        txt = [set_view(zone, s) for k, s in sorted(SETS.items()) if k[0] == zone["name"]]
        if what == "txt":
            views = txt
        elif what in ("recordsets", "all"):
            views = builtin_views(zone) + txt
        elif what in ("a", "aaaa", "caa", "cname", "mx", "ptr", "srv", "ds", "naptr", "tlsa"):
            views = []
        elif what in ("ns", "soa"):
            views = [v for v in builtin_views(zone) if v["type"].lower().endswith("/" + what)]
        else:
            return self.arm(400, arm_failure("BadRequest", f"The record type '{what}' is not "
                                             "valid."))
        suffix = query.get("$recordsetnamesuffix", [""])[0].lower()
        if suffix:
            views = [v for v in views
                     if (v["name"].lower() if v["name"] != "@" else "").endswith(suffix)]
        return self.listing(views, query, path)

    def precondition(self, s, name):
        """None when If-Match / If-None-Match allow the write to `s` (None: absent), else sent."""
        wanted = self.headers.get("If-Match")
        if wanted is not None:
            wanted = wanted.strip()
            if s is None or (wanted != "*" and wanted.strip('"') != s["etag"]):
                self.arm(412, arm_failure("PreconditionFailed", f"The Record set {name} has been "
                                          "modified (etag mismatch)."))
                return False
        if self.headers.get("If-None-Match", "").strip() == "*" and s is not None:
            self.arm(412, arm_failure("PreconditionFailed", f"The Record set {name} already "
                                      "exists."))
            return False
        return True

    def write_set(self, method, zone, name, payload):
        if self.headers.get("Content-Type", "").split(";")[0].strip().lower() != \
                "application/json":
            return self.arm(415, arm_failure(
                "UnsupportedMediaType", f"The content media type "
                f"'{self.headers.get('Content-Type', '')}' is not supported. Only "
                "'application/json' is supported."))
        try:
            data = json.loads(payload)
        except ValueError as e:
            return self.arm(400, arm_failure("InvalidRequestContent", "The request content was "
                                             f"invalid and could not be deserialized: '{e}'."))
        if name != "@" and (not NAME_RE.match(name) or len(name) > 253):
            return self.arm(400, arm_failure("BadRequest", f"The record set name '{name}' is "
                                             "invalid."))
        if not isinstance(data, dict) or not isinstance(data.get("properties"), dict):
            return self.arm(400, arm_failure("BadRequest", "The request body must contain a "
                                             "'properties' object."))
        props = data["properties"]
        key = (zone["name"], name.lower())
        s = SETS.get(key)
        if method == "PATCH" and s is None:
            return self.record_not_found(zone, name)
        if not self.precondition(s, name):
            return None
        base = s if method == "PATCH" else None  # PUT replaces the whole record set
        ttl = props.get("TTL", base["ttl"] if base else 3600)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or not 0 <= ttl <= 2147483647:
            return self.arm(400, arm_failure("BadRequest", "The value of TTL must be an integer "
                                             "between 0 and 2147483647."))
        metadata = props.get("metadata", base["metadata"] if base else None)
        if metadata is not None and (not isinstance(metadata, dict) or
                                     not all(isinstance(v, str) for v in metadata.values())):
            return self.arm(400, arm_failure("BadRequest", "The metadata must be an object of "
                                             "strings."))
        if "TXTRecords" in props or base is None:
            records = props.get("TXTRecords", [])
            if not isinstance(records, list):
                return self.arm(400, arm_failure("BadRequest", "TXTRecords must be a list."))
            values = []
            for i, r in enumerate(records):
                if not isinstance(r, dict) or not isinstance(r.get("value"), list) or \
                        not r["value"] or not all(isinstance(v, str) for v in r["value"]):
                    return self.arm(400, arm_failure("BadRequest", f"TXTRecords[{i}].value must "
                                                     "be a non-empty list of strings."))
                if any(len(v.encode()) > 255 for v in r["value"]) or \
                        sum(len(v.encode()) for v in r["value"]) > 1024:
                    return self.arm(400, arm_failure("BadRequest", f"TXTRecords[{i}]: each "
                                                     "string may hold 255 characters, a record "
                                                     "1024 in all."))
                values.append(list(r["value"]))
        else:
            values = [list(r["value"]) for r in base["records"]]
        created = s is None
        if created:
            s = {"name": name, "fqdn": fqdn_of(zone, name), "records": []}
            SETS[key] = s
        old = {r["content"]: r for r in s["records"]}
        fresh = []
        for value in values:
            content = dns_content(value)
            if any(r["content"] == content for r in fresh):
                continue
            kept = old.get(content)
            fresh.append({"value": value, "fqdn": s["fqdn"], "content": content,
                          "seen": kept["seen"] if kept else 0})
        s.update(ttl=ttl, metadata=metadata, records=fresh, etag=str(uuid.uuid4()))
        STATE["writes"] += 1
        return self.arm(201 if created else 200, set_view(zone, s))

    def delete_set(self, zone, name):
        key = (zone["name"], name.lower())
        s = SETS.get(key)
        if s is None:
            return self.arm(204)
        if not self.precondition(s, name):
            return None
        del SETS[key]
        STATE["writes"] += 1
        return self.arm(200)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_DELETE(self):
        self.handle_any("DELETE")


def main():
    standin_dns.serve(DNS_PORT, lambda: list(ZONES), lambda: [r for s in SETS.values()
                                                             for r in s["records"]],
                      LOCK, VISIBLE_AFTER)
    server = ThreadingHTTPServer(("127.0.0.1", HTTP_PORT), Api)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
