#!/usr/bin/env python3
"""A stand-in for the OVHcloud API v1 (/1.0: the calls DNS-01 uses), written from OVHcloud's public
"First steps with the OVHcloud API" guide, its API console's /domain/zone schema and its own
clients (python-ovh, go-ovh), with a DNS responder for the records it publishes (standin_dns.py).
For tests only, on 127.0.0.1.

GET /1.0/auth/time is unauthenticated and answers this server's clock in epoch seconds (the
clock may be set off the machine's with POST /__standin/clock and a number of seconds: a client
must sign with the server's time, as OVH's clients do by asking /auth/time). Every other call
must carry X-Ovh-Application (the application key), X-Ovh-Consumer (the consumer key),
X-Ovh-Timestamp (the server's epoch seconds) and X-Ovh-Signature: "$1$" + lower-case hex
SHA-1 of  application secret + "+" + consumer key + "+" + METHOD + "+" + full URL + "+" + body +
"+" + timestamp,  where the full URL is "http://" + the Host header + the request target exactly
as sent (base path and query included) and the body the bytes sent ("" when none). It refuses,
in OVH's shape ({"class", "message"}; the authentication refusals also "errorCode", "httpCode"):
- no X-Ovh-Application: 401 "You must login first";
- an application key it does not know: 403 INVALID_KEY "Invalid application key";
- no or an unknown consumer key: 403 NOT_CREDENTIAL "This credential does not exist"; a consumer
  key not validated yet: 403 INVALID_CREDENTIAL "This credential is not valid";
- a timestamp missing or more than 300 s from the server's clock: 400 QUERY_TIME_OUT "Query out
  of time";
- a signature that is not the one computed: 400 INVALID_SIGNATURE "Invalid signature";
- a call outside the consumer key's access rules: 403 NOT_GRANTED_CALL "This call has not been
  granted" (a "rw" key may GET, POST, PUT and DELETE /domain/zone and /domain/zone/*, a "ro"
  key only GET them);
- an unknown zone: 404 "This service does not exist"; an unknown record: 404 "The requested
  object (id = <id>) does not exist"; any other path or method: 404 "Got an invalid (or empty)
  URL";
- a record body that is not a JSON object, or has fields the call does not describe, no or an
  unknown fieldType, a fieldType other than TXT (a limit of this stand-in), no or an empty
  target, a subDomain that is not a string of labels, a ttl that is not a non-negative integer,
  a fieldType filter that is not a type: 400;
- while throttled (POST /__standin/throttle with a count): 429 "Too many requests".

Records: GET .../record?fieldType=&subDomain= answers their ids (subDomain is relative to the
zone: a client that writes the full name gets a record under it, never visible where it meant);
GET and DELETE .../record/<id>; POST .../record {fieldType, subDomain, target, ttl} answers the
record, its TXT target wrapped in double quotes as OVH does since 2025 ("\\"value\\""; a target
already quoted is kept). The DNS responder serves what the zone held at the last POST
.../refresh (OVH applies zone changes on its name servers only then): a record written after the
last refresh is not served, one deleted after it still is. A published TXT value becomes visible
after `visible after` queries for its name.

Assumptions (not confirmed by the documentation): the 300 s timestamp window and the
QUERY_TIME_OUT refusal's wording; the 401 wording; the wording of the 400 validation messages;
the 429 answer (OVH documents no rate limit for these calls; no Retry-After is sent); that
unknown query parameters are ignored; that the signature's hex must be lower case.

Usage: ovh_standin.py <http port> <dns port> <application key> <application secret>
                      <consumer key>:<rw|ro|pending>[,...] <visible after> <zone> ...
Prints "listening" once both sockets are bound.
"""
import fnmatch
import hashlib
import hmac
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin_dns  # noqa: E402  (the DNS side shared by the stand-ins)

HTTP_PORT, DNS_PORT, APP_KEY, APP_SECRET = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                            sys.argv[4])
CONSUMERS = dict(spec.split(":") for spec in sys.argv[5].split(","))  # key -> rw | ro | pending
VISIBLE_AFTER = int(sys.argv[6])
ZONES = [z.lower().rstrip(".") for z in sys.argv[7:]]
RULES = {"rw": [(m, p) for m in ("GET", "POST", "PUT", "DELETE")
                for p in ("/domain/zone", "/domain/zone/*")],
         "ro": [("GET", "/domain/zone"), ("GET", "/domain/zone/*")]}
FIELD_TYPES = ("A", "AAAA", "CAA", "CNAME", "DKIM", "DMARC", "DNAME", "HINFO", "HTTPS", "LOC",
               "MX", "NAPTR", "NS", "PTR", "RP", "SPF", "SRV", "SSHFP", "SVCB", "TLSA", "TXT")
LABEL = re.compile(r"^(\*|[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)$")
RECORDS = {}  # id -> {"id", "zone", "subDomain", "fieldType", "target", "ttl", "fqdn", "content",
#                      "seen"}
PUBLISHED = {z: [] for z in ZONES}  # zone -> the records its name servers serve
LOCK = threading.Lock()
STATE = {"throttle": 0, "requests": 0, "refreshes": 0, "offset": 0, "next_id": 5390038375}
PREFIX = "/1.0"
REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           429: "Too Many Requests"}
CLASSES = {400: "Client::BadRequest", 401: "Client::Unauthorized", 403: "Client::Forbidden",
           404: "Client::NotFound", 429: "Client::TooManyRequests"}


def refusal(status, message, code=None):
    body = {"class": CLASSES[status], "message": message}
    if code:
        body["errorCode"] = code
        body["httpCode"] = f"{status} {REASONS[status]}"
    return body


def view(r):
    return {"id": r["id"], "zone": r["zone"], "subDomain": r["subDomain"],
            "fieldType": r["fieldType"], "target": r["target"], "ttl": r["ttl"]}


def now():
    return int(time.time()) + STATE["offset"]


class Refused(Exception):
    def __init__(self, status, message, code=None):
        super().__init__(message)
        self.status, self.body = status, refusal(status, message, code)


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Ovh-QueryID", "EU.ext-standin." + str(STATE["requests"]))
        self.end_headers()
        self.wfile.write(data)

    def control(self, method, path, payload):
        if method == "POST" and path == "/__standin/throttle":
            with LOCK:
                STATE["throttle"] = int(payload or b"0")
            return self.answer(200, {"ok": True})
        if method == "POST" and path == "/__standin/clock":
            with LOCK:
                STATE["offset"] = int(payload or b"0")
            return self.answer(200, {"ok": True})
        if method == "GET" and path in ("/__standin/requests", "/__standin/refreshes"):
            with LOCK:
                key = path.rsplit("/", 1)[1]
                return self.answer(200, {key: STATE[key]})
        if method == "GET" and path == "/__standin/records":
            with LOCK:
                return self.answer(200, {"records": len(RECORDS)})
        if method == "GET" and path == "/__standin/published":
            with LOCK:
                return self.answer(200, {"published": sum(len(p) for p in PUBLISHED.values())})
        return self.answer(404, {"error": "unknown control"})

    def handle_any(self, method):
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        payload = self.rfile.read(length) if length else b""
        if url.path.startswith("/__standin/"):
            return self.control(method, url.path, payload)
        with LOCK:
            STATE["requests"] += 1
            if STATE["throttle"] > 0:
                STATE["throttle"] -= 1
                return self.answer(429, refusal(429, "Too many requests"))
        if not url.path.startswith(PREFIX + "/"):
            return self.answer(404, refusal(404, "Got an invalid (or empty) URL"))
        path = url.path[len(PREFIX):]
        if path == "/auth/time" and method == "GET":
            return self.answer(200, now())
        try:
            self.authorise(method, path, payload)
            with LOCK:
                status, body = self.route(method, path, parse_qs(url.query), payload)
        except Refused as refused:
            return self.answer(refused.status, refused.body)
        return self.answer(status, body)

    def authorise(self, method, path, payload):
        app = self.headers.get("X-Ovh-Application")
        if not app:
            raise Refused(401, "You must login first")
        if app != APP_KEY:
            raise Refused(403, "Invalid application key", "INVALID_KEY")
        consumer = self.headers.get("X-Ovh-Consumer", "")
        kind = CONSUMERS.get(consumer)
        if kind is None:
            raise Refused(403, "This credential does not exist", "NOT_CREDENTIAL")
        if kind not in RULES:
            raise Refused(403, "This credential is not valid", "INVALID_CREDENTIAL")
        stamp = self.headers.get("X-Ovh-Timestamp", "")
        if not stamp.isdigit() or abs(int(stamp) - now()) > 300:
            raise Refused(400, "Query out of time", "QUERY_TIME_OUT")
        host = self.headers.get("Host") or f"127.0.0.1:{HTTP_PORT}"
        signed = "+".join([APP_SECRET, consumer, method, "http://" + host + self.path,
                           payload.decode("utf-8", "replace"), stamp])
        expected = "$1$" + hashlib.sha1(signed.encode()).hexdigest()
        if not hmac.compare_digest(expected, self.headers.get("X-Ovh-Signature", "")):
            raise Refused(400, "Invalid signature", "INVALID_SIGNATURE")
        if not any(method == m and fnmatch.fnmatchcase(path, p) for m, p in RULES[kind]):
            raise Refused(403, "This call has not been granted", "NOT_GRANTED_CALL")

    def route(self, method, path, query, payload):
        parts = path.strip("/").split("/")
        if parts[:2] != ["domain", "zone"]:
            raise Refused(404, "Got an invalid (or empty) URL")
        if len(parts) == 2 and method == "GET":
            return 200, list(ZONES)
        if len(parts) < 3:
            raise Refused(404, "Got an invalid (or empty) URL")
        zone = parts[2].lower()
        routed = (len(parts) == 3 and method == "GET") or \
            (len(parts) == 4 and parts[3] == "record" and method in ("GET", "POST")) or \
            (len(parts) == 5 and parts[3] == "record" and method in ("GET", "DELETE")) or \
            (len(parts) == 4 and parts[3] == "refresh" and method == "POST")
        if not routed:
            raise Refused(404, "Got an invalid (or empty) URL")
        if zone not in ZONES:
            raise Refused(404, "This service does not exist")
        if len(parts) == 3:
            return 200, {"name": zone, "hasDnsAnycast": False, "dnssecSupported": True,
                         "nameServers": ["dns110.ovh.net", "ns110.ovh.net"],
                         "lastUpdate": "2026-01-01T00:00:00+01:00"}
        if parts[3] == "refresh":
            PUBLISHED[zone] = [r for r in RECORDS.values() if r["zone"] == zone]
            STATE["refreshes"] += 1
            return 200, None
        if len(parts) == 4 and method == "GET":
            return 200, self.list_ids(zone, query)
        if len(parts) == 4:
            return 200, self.create(zone, payload)
        if not parts[4].isdigit():
            raise Refused(400, f"[id] Given data ({parts[4]}) is not a long")
        record = RECORDS.get(int(parts[4]))
        if record is None or record["zone"] != zone:
            raise Refused(404, f"The requested object (id = {parts[4]}) does not exist")
        if method == "DELETE":
            del RECORDS[record["id"]]
            return 200, None
        return 200, view(record)

    @staticmethod
    def list_ids(zone, query):
        found = [r for r in RECORDS.values() if r["zone"] == zone]
        if "fieldType" in query:
            kind = query["fieldType"][0]
            if kind not in FIELD_TYPES:
                raise Refused(400, f"[fieldType] Given data ({kind}) does not belong to the "
                              "NamedResolutionFieldTypeEnum enumeration")
            found = [r for r in found if r["fieldType"] == kind]
        if "subDomain" in query:
            found = [r for r in found if r["subDomain"] == query["subDomain"][0].lower()]
        return sorted(r["id"] for r in found)

    @staticmethod
    def create(zone, payload):
        try:
            data = json.loads(payload)
        except ValueError:
            raise Refused(400, "Invalid JSON received")
        if not isinstance(data, dict):
            raise Refused(400, "Invalid JSON received")
        extra = [k for k in data if k not in ("fieldType", "subDomain", "target", "ttl")]
        if extra:
            raise Refused(400, f"Received not described parameters: ({', '.join(extra)}) while "
                          "calling creation handler")
        missing = [k for k in ("fieldType", "target") if k not in data]
        if missing:
            raise Refused(400, "Missing parameter(s): " + ", ".join(missing))
        kind, sub, target, ttl = (data["fieldType"], data.get("subDomain", ""), data["target"],
                                  data.get("ttl", 0))
        if kind not in FIELD_TYPES:
            raise Refused(400, f"[fieldType] Given data ({kind}) does not belong to the "
                          "NamedResolutionFieldTypeEnum enumeration")
        if kind != "TXT":
            raise Refused(400, f"[fieldType] {kind}: this stand-in holds TXT records only")
        if sub is None:
            sub = ""
        if not isinstance(sub, str) or (sub and not all(LABEL.match(l) for l in sub.split("."))):
            raise Refused(400, f"[subDomain] Given data ({sub}) is not a valid sub-domain")
        if not isinstance(target, str) or not target:
            raise Refused(400, "[target] Given data is not a valid TXT target")
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
            raise Refused(400, f"[ttl] Given data ({ttl}) is not a long")
        sub = sub.lower()
        if not (len(target) >= 2 and target.startswith('"') and target.endswith('"')):
            target = '"' + target + '"'
        record = {"id": STATE["next_id"], "zone": zone, "subDomain": sub, "fieldType": kind,
                  "target": target, "ttl": ttl, "fqdn": sub + "." + zone if sub else zone,
                  "content": target, "seen": 0}
        STATE["next_id"] += 1
        RECORDS[record["id"]] = record
        return view(record)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def do_PUT(self):
        self.handle_any("PUT")


def main():
    standin_dns.serve(DNS_PORT, lambda: ZONES,
                      lambda: [r for p in PUBLISHED.values() for r in p], LOCK, VISIBLE_AFTER)
    server = ThreadingHTTPServer(("127.0.0.1", HTTP_PORT), Api)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
