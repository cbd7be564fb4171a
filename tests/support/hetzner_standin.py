#!/usr/bin/env python3
"""A stand-in for Hetzner DNS as it lives in the Hetzner Cloud API (api.hetzner.cloud/v1: Zones,
Zone RRSets, their Actions, and GET /v1/actions/{id}), written from Hetzner's published Cloud API
reference (docs.hetzner.cloud/reference/cloud#zones, #zone-rrsets, #zone-rrset-actions, #actions),
its official clients' request and response schemas (hcloud-python, hcloud-go) and the fixtures
of lego's hetznerv1 provider, with a DNS responder for the records it holds (standin_dns.py).
The old dns.hetzner.com API (Auth-API-Token, /api/v1/records) is not served: it is being retired.
For tests only, on 127.0.0.1.

It refuses what the real API refuses, in its shape ({"error": {"code", "message", "details"}}):
- a missing, malformed or unknown bearer token: 401 "unauthorized";
- an unknown path, zone (by id or by name), RRSet or action: 404 "not_found";
- a method a path does not take: 405 "method_not_allowed";
- a body that is not JSON: 400 "json_error";
- a body of the wrong shape (records not a list of {"value": string[, "comment": string]}, an
  empty records list, a TTL that is not an integer of 60 or more), a TXT value that is not one or
  more quoted strings of at most 255 characters each (the API wants `"\\"value\\""`), an RRSet
  name in upper case, ending with a dot or ending with the zone's name (names are relative to
  the zone, "@" for the apex), page or per_page out of range (page >= 1, 1 <= per_page <= 50):
  422 "invalid_input" with details.fields [{"name", "messages"}];
- creating an RRSet that exists (POST .../rrsets): 409 "uniqueness_error";
- while throttled (POST /__standin/throttle with a count): 429 "rate_limit_exceeded", with
  RateLimit-Limit / RateLimit-Remaining: 0 / RateLimit-Reset (a UNIX time) and no Retry-After,
  as the API documents. Every answer carries the three RateLimit-* headers.
Listings (GET /v1/zones, GET /v1/zones/{id_or_name}/rrsets, GET /v1/actions?id=) are paged with
page / per_page (default 25) and meta.pagination {page, per_page, previous_page, next_page,
last_page, total_entries}, plus a Link header. Every zone holds its SOA and three NS RRSets (the
API makes them), so a zone's RRSet listing is never empty.

Writes (POST .../rrsets, DELETE .../rrsets/{name}/{type}, POST .../actions/{add_records,
remove_records, set_records, change_ttl}) answer 201 with an Action whose status is "running";
GET /v1/actions/{id} (or /v1/zones/{id_or_name}/actions/{id}) reports it "running" for its first
RUNNING_POLLS polls, then "success" (progress 100, finished set). The records themselves change
at once; the DNS side (UDP, on its own port) answers a TXT record only after `visible after`
queries for its name (the name servers catching up), and drops it at once when removed.

Assumptions where the documentation says nothing (the stand-in is wrong where they are):
- all action-returning writes, DELETE included, answer 201 (as the Cloud API's other actions);
- add_records with a ttl sets the RRSet's TTL (also when it exists); a value already in the RRSet
  is not added twice; remove_records ignores values not in the RRSet and deletes the RRSet when
  it becomes empty (documented); remove_records or set_records on an absent RRSet: 404;
  set_records with an empty list: 422;
- the smallest TTL taken is 60; an unquoted TXT value is refused (422), not quoted for you;
- Content-Type is not checked (the official clients always send application/json);
- only TXT RRSets can be written here (the real API takes every type): other types 422;
- action command names: add_rrset_records, remove_rrset_records, set_rrset_records (seen in
  fixtures), create_rrset, delete_rrset, change_rrset_ttl (assumed).

Usage: hetzner_standin.py <http port> <dns port> <token> <visible after> <zone>=<id> ...
Prints "listening" once both sockets are bound.
"""
import datetime
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin_dns  # noqa: E402  (the DNS side shared by the stand-ins)

HTTP_PORT, DNS_PORT, TOKEN, VISIBLE_AFTER = (
    int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
RUNNING_POLLS = 1
RATE_LIMIT = 3600
ZONES = {}  # id -> {"id", "name", "ttl"}
for spec in sys.argv[5:]:
    zone_name, zone_id = spec.split("=")
    ZONES[int(zone_id)] = {"id": int(zone_id), "name": zone_name.lower().rstrip("."), "ttl": 3600}
# (zone id, name, type) -> {"name", "type", "ttl", "labels", "records": [{"value", "comment",
# "fqdn", "content", "seen"}]}
RRSETS = {}
ACTIONS = {}  # id -> {"action": {...}, "polls": n}
LOCK = threading.Lock()
STATE = {"throttle": 0, "requests": 0, "writes": 0, "next_action": 4200001}
PREFIX = "/v1"
NAMESERVERS = ["hydrogen.ns.hetzner.com.", "oxygen.ns.hetzner.com.", "helium.ns.hetzner.de."]
TYPES = ("A", "AAAA", "CAA", "CNAME", "DS", "HINFO", "HTTPS", "MX", "NS", "PTR", "RP", "SOA",
         "SRV", "SVCB", "TLSA", "TXT")
CREATED = "2026-01-01T00:00:00+00:00"
NAME_RE = re.compile(r"^(\*|[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$")

for _zid, _zone in ZONES.items():
    RRSETS[(_zid, "@", "SOA")] = {
        "name": "@", "type": "SOA", "ttl": 3600, "labels": {},
        "records": [{"value": "hydrogen.ns.hetzner.com. dns.hetzner.com. 2026010100 86400 10800 "
                              "3600000 3600", "comment": ""}]}
    RRSETS[(_zid, "@", "NS")] = {
        "name": "@", "type": "NS", "ttl": 10800, "labels": {},
        "records": [{"value": ns, "comment": ""} for ns in NAMESERVERS]}


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def failure(code, message, details=None):
    error = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return {"error": error}


def invalid(field, message):
    return failure("invalid_input", f"invalid input in field '{field}': {message}",
                   {"fields": [{"name": field, "messages": [message]}]})


NOT_FOUND = failure("not_found", "Entity not found")


def zone_view(zone):
    count = sum(len(s["records"]) for k, s in RRSETS.items() if k[0] == zone["id"])
    return {"id": zone["id"], "name": zone["name"], "created": CREATED, "mode": "primary",
            "primary_nameservers": [], "labels": {}, "protection": {"delete": False},
            "ttl": zone["ttl"], "status": "ok", "record_count": count,
            "authoritative_nameservers": {"assigned": NAMESERVERS, "delegated": NAMESERVERS,
                                          "delegation_last_check": CREATED,
                                          "delegation_status": "valid"},
            "registrar": "other"}


def rrset_view(zone_id, s):
    return {"id": f"{s['name']}/{s['type']}", "name": s["name"], "type": s["type"],
            "ttl": s["ttl"], "labels": s["labels"], "protection": {"change": False},
            "records": [{"value": r["value"], "comment": r.get("comment", "")}
                        for r in s["records"]],
            "zone": zone_id}


def txt_strings(value):
    """The character strings of a TXT value written as the API wants it (one or more quoted
    strings, blank-separated), or None when it is not written so."""
    strings, at = [], 0
    text = value.strip()
    if not text:
        return None
    while at < len(text):
        if text[at] != '"':
            return None
        at += 1
        current, closed = "", False
        while at < len(text):
            ch = text[at]
            if ch == "\\" and at + 1 < len(text):
                current += text[at + 1]
                at += 2
                continue
            if ch == '"':
                closed = True
                at += 1
                break
            current += ch
            at += 1
        if not closed:
            return None
        strings.append(current)
        if at < len(text) and text[at] not in " \t":
            return None
        while at < len(text) and text[at] in " \t":
            at += 1
    return strings


def check_records(data, field="records", allow_empty=False):
    """The records of a request body as [(value, comment)], or an error body."""
    records = data.get(field)
    if not isinstance(records, list):
        return None, invalid(field, "is required and must be a list")
    if not records and not allow_empty:
        return None, invalid(field, "must contain at least 1 item")
    out = []
    for i, r in enumerate(records):
        if not isinstance(r, dict) or not isinstance(r.get("value"), str):
            return None, invalid(f"{field}[{i}].value", "is required and must be a string")
        comment = r.get("comment", "")
        if not isinstance(comment, str):
            return None, invalid(f"{field}[{i}].comment", "must be a string")
        strings = txt_strings(r["value"])
        if strings is None:
            return None, invalid(f"{field}[{i}].value", "TXT record value must consist of one "
                                 "or more quoted strings")
        if any(len(s.encode()) > 255 for s in strings):
            return None, invalid(f"{field}[{i}].value", "TXT record strings must be at most 255 "
                                 "characters long")
        out.append((r["value"], comment))
    return out, None


def check_ttl(data, required=False):
    if "ttl" not in data or data["ttl"] is None:
        if required:
            return None, invalid("ttl", "is required")
        return None, None
    ttl = data["ttl"]
    if not isinstance(ttl, int) or isinstance(ttl, bool) or not 60 <= ttl <= 2147483647:
        return None, invalid("ttl", "must be an integer between 60 and 2147483647")
    return ttl, None


def check_name(zone, name):
    if name == "@":
        return None
    if name != name.lower():
        return invalid("name", "must be in lower case")
    if name.endswith("."):
        return invalid("name", "must not end with a dot")
    if name == zone["name"] or name.endswith("." + zone["name"]):
        return invalid("name", "must not end with the zone name")
    if not NAME_RE.match(name) or len(name) > 253:
        return invalid("name", "is not a valid DNS name")
    return None


def fqdn_of(zone, name):
    return zone["name"] if name == "@" else f"{name}.{zone['name']}"


def page_of(items, query):
    """(chunk, meta) of `items` for the query's page and per_page, or (None, error)."""
    try:
        page = int(query.get("page", ["1"])[0])
    except ValueError:
        return None, invalid("page", "must be an integer")
    try:
        per_page = int(query.get("per_page", ["25"])[0])
    except ValueError:
        return None, invalid("per_page", "must be an integer")
    if page < 1:
        return None, invalid("page", "must be at least 1")
    if not 1 <= per_page <= 50:
        return None, invalid("per_page", "must be between 1 and 50")
    total = len(items)
    last = max(1, (total + per_page - 1) // per_page)
    chunk = items[(page - 1) * per_page: page * per_page]
    return (chunk, {"pagination": {"page": page, "per_page": per_page,
                                   "previous_page": page - 1 if page > 1 else None,
                                   "next_page": page + 1 if page < last else None,
                                   "last_page": last, "total_entries": total}}), None


def new_action(command, zone_id):
    action = {"id": STATE["next_action"], "command": command, "status": "running",
              "progress": 0, "started": now_iso(), "finished": None,
              "resources": [{"id": zone_id, "type": "zone"}], "error": None}
    STATE["next_action"] += 1
    STATE["writes"] += 1
    ACTIONS[action["id"]] = {"action": action, "polls": 0}
    return dict(action)


def poll_action(action_id):
    held = ACTIONS[action_id]
    held["polls"] += 1
    action = held["action"]
    if held["polls"] > RUNNING_POLLS and action["status"] == "running":
        action.update(status="success", progress=100, finished=now_iso())
    return dict(action)


def set_records(zone, s, values):
    """Replaces the records of RRSet `s` by `values` [(value, comment)], keeping the DNS
    query count of a value that stays (no value twice)."""
    old = {r["value"]: r for r in s["records"]}
    fresh, seen_values = [], set()
    for value, comment in values:
        if value in seen_values:
            continue
        seen_values.add(value)
        kept = old.get(value)
        fresh.append({"value": value, "comment": comment, "fqdn": fqdn_of(zone, s["name"]),
                      "content": value, "seen": kept["seen"] if kept else 0})
    s["records"] = fresh


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def api(self, status, body, headers=()):
        """An API answer, with the RateLimit-* headers every Cloud API answer carries."""
        reset = int(time.time()) + 1
        limits = [("RateLimit-Limit", str(RATE_LIMIT)),
                  ("RateLimit-Remaining", str(max(0, RATE_LIMIT - STATE["requests"]))),
                  ("RateLimit-Reset", str(reset))]
        return self.answer(status, body, limits + list(headers))

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def control(self, method, path, payload):
        with LOCK:
            if method == "POST" and path == "/__standin/throttle":
                STATE["throttle"] = int(payload or b"0")
                return self.answer(200, {"ok": True})
            counts = {"requests": STATE["requests"], "writes": STATE["writes"],
                      "records": sum(len(s["records"]) for k, s in RRSETS.items()
                                     if k[2] == "TXT")}
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
        with LOCK:
            STATE["requests"] += 1
            if STATE["throttle"] > 0:
                STATE["throttle"] -= 1
                return self.answer(429, failure("rate_limit_exceeded",
                                                f"limit of {RATE_LIMIT} requests per hour "
                                                "reached"),
                                   [("RateLimit-Limit", str(RATE_LIMIT)),
                                    ("RateLimit-Remaining", "0"),
                                    ("RateLimit-Reset", str(int(time.time()) + 1))])
            auth = self.headers.get("Authorization", "")
            if auth != "Bearer " + TOKEN:
                return self.api(401, failure("unauthorized", "unable to authenticate"))
            if not url.path.startswith(PREFIX + "/"):
                return self.api(404, NOT_FOUND)
            parts = [unquote(p) for p in url.path[len(PREFIX) + 1:].split("/")]
            query = parse_qs(url.query, keep_blank_values=True)
            return self.route(method, parts, query, payload, url.path)

    def json_body(self, payload):
        try:
            data = json.loads(payload)
        except ValueError:
            return None, (400, failure("json_error", "Invalid JSON input"))
        if not isinstance(data, dict):
            return None, (422, invalid("body", "must be a JSON object"))
        return data, None

    def find_zone(self, key):
        if key.isdigit():
            return ZONES.get(int(key))
        for zone in ZONES.values():
            if zone["name"] == key.lower().rstrip("."):
                return zone
        return None

    def route(self, method, parts, query, payload, path):
        def not_allowed():
            return self.api(405, failure("method_not_allowed", "method not allowed"))

        if parts == ["zones"]:
            if method != "GET":
                return not_allowed()
            zones = sorted(ZONES.values(), key=lambda z: z["id"])
            if "name" in query:
                zones = [z for z in zones if z["name"] == query["name"][0].lower().rstrip(".")]
            if "mode" in query and query["mode"][0] != "primary":
                zones = []
            return self.listing("zones", [zone_view(z) for z in zones], query, path)
        if parts and parts[0] == "actions":
            if len(parts) == 1:
                if method != "GET":
                    return not_allowed()
                ids = []
                for raw in query.get("id", []):
                    if not raw.isdigit():
                        return self.api(422, invalid("id", "must be an integer"))
                    ids.append(int(raw))
                found = [poll_action(i) for i in ids if i in ACTIONS]
                return self.listing("actions", found, query, path)
            if len(parts) == 2:
                if method != "GET":
                    return not_allowed()
                if not parts[1].isdigit() or int(parts[1]) not in ACTIONS:
                    return self.api(404, NOT_FOUND)
                return self.api(200, {"action": poll_action(int(parts[1]))})
            return self.api(404, NOT_FOUND)
        if len(parts) < 2 or parts[0] != "zones":
            return self.api(404, NOT_FOUND)
        zone = self.find_zone(parts[1])
        if zone is None:
            return self.api(404, NOT_FOUND)
        rest = parts[2:]
        if not rest:
            return self.api(200, {"zone": zone_view(zone)}) if method == "GET" else not_allowed()
        if rest[0] == "actions" and len(rest) == 2:
            if method != "GET":
                return not_allowed()
            held = ACTIONS.get(int(rest[1])) if rest[1].isdigit() else None
            if held is None or held["action"]["resources"][0]["id"] != zone["id"]:
                return self.api(404, NOT_FOUND)
            return self.api(200, {"action": poll_action(int(rest[1]))})
        if rest[0] != "rrsets":
            return self.api(404, NOT_FOUND)
        if len(rest) == 1:
            if method == "GET":
                return self.list_rrsets(zone, query, path)
            if method == "POST":
                return self.create_rrset(zone, payload)
            return not_allowed()
        if len(rest) not in (3, 5) or (len(rest) == 5 and rest[3] != "actions"):
            return self.api(404, NOT_FOUND)
        name, kind = rest[1], rest[2]
        if kind not in TYPES:
            return self.api(404, NOT_FOUND)
        key = (zone["id"], name, kind)
        if len(rest) == 3:
            if method == "GET":
                s = RRSETS.get(key)
                return self.api(200, {"rrset": rrset_view(zone["id"], s)}) if s else \
                    self.api(404, NOT_FOUND)
            if method == "PUT":
                return self.update_rrset(zone, key, payload)
            if method == "DELETE":
                if key not in RRSETS:
                    return self.api(404, NOT_FOUND)
                if kind != "TXT":
                    return self.api(422, invalid("type", "only TXT RRSets can be changed in "
                                                 "this stand-in"))
                del RRSETS[key]
                return self.api(201, {"action": new_action("delete_rrset", zone["id"])})
            return not_allowed()
        if method != "POST":
            return not_allowed()
        return self.rrset_action(zone, key, rest[4], payload)

    def listing(self, root, items, query, path):
        paged, error = page_of(items, query)
        if error:
            return self.api(422, error)
        chunk, meta = paged
        links = []
        pagination = meta["pagination"]
        base = {k: v for k, v in query.items() if k not in ("page",)}
        for rel, page in (("prev", pagination["previous_page"]), ("next", pagination["next_page"]),
                          ("last", pagination["last_page"])):
            if page is not None:
                q = dict(base, page=[str(page)], per_page=[str(pagination["per_page"])])
                links.append(f"<http://127.0.0.1:{HTTP_PORT}{path}?{urlencode(q, doseq=True)}>; "
                             f'rel="{rel}"')
        return self.api(200, {root: chunk, "meta": meta},
                        [("Link", ", ".join(links))] if links else [])

    def list_rrsets(self, zone, query, path):
        found = [(k, s) for k, s in RRSETS.items() if k[0] == zone["id"]]
        if "name" in query:
            found = [(k, s) for k, s in found if k[1] == query["name"][0]]
        if "type" in query:
            for t in query["type"]:
                if t not in TYPES:
                    return self.api(422, invalid("type", f"'{t}' is not a valid type"))
            found = [(k, s) for k, s in found if k[2] in query["type"]]
        found.sort(key=lambda item: (item[0][1], item[0][2]))
        return self.listing("rrsets", [rrset_view(zone["id"], s) for _, s in found], query, path)

    def create_rrset(self, zone, payload):
        data, error = self.json_body(payload)
        if error:
            return self.api(*error)
        name, kind = data.get("name"), data.get("type")
        if not isinstance(name, str) or not name:
            return self.api(422, invalid("name", "is required and must be a string"))
        if kind not in TYPES:
            return self.api(422, invalid("type", "is required and must be a valid type"))
        error = check_name(zone, name)
        if error:
            return self.api(422, error)
        if kind != "TXT":
            return self.api(422, invalid("type", "only TXT RRSets can be written in this "
                                         "stand-in"))
        ttl, error = check_ttl(data)
        if error:
            return self.api(422, error)
        values, error = check_records(data)
        if error:
            return self.api(422, error)
        labels = data.get("labels", {})
        if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
            return self.api(422, invalid("labels", "must be an object of strings"))
        key = (zone["id"], name, kind)
        if key in RRSETS:
            return self.api(409, failure("uniqueness_error", "RRSet with the same name and type "
                                         "already exists", {"fields": [{"name": "name"},
                                                                       {"name": "type"}]}))
        s = {"name": name, "type": kind, "ttl": ttl, "labels": labels, "records": []}
        set_records(zone, s, values)
        RRSETS[key] = s
        return self.api(201, {"rrset": rrset_view(zone["id"], s),
                              "action": new_action("create_rrset", zone["id"])})

    def update_rrset(self, zone, key, payload):
        s = RRSETS.get(key)
        if s is None:
            return self.api(404, NOT_FOUND)
        data, error = self.json_body(payload)
        if error:
            return self.api(*error)
        if "labels" in data:
            labels = data["labels"]
            if not isinstance(labels, dict) or not all(isinstance(v, str)
                                                       for v in labels.values()):
                return self.api(422, invalid("labels", "must be an object of strings"))
            s["labels"] = labels
        return self.api(200, {"rrset": rrset_view(zone["id"], s)})

    def rrset_action(self, zone, key, action, payload):
        if action not in ("add_records", "remove_records", "set_records", "change_ttl",
                          "change_protection", "update_records"):
            return self.api(404, NOT_FOUND)
        data, error = self.json_body(payload)
        if error:
            return self.api(*error)
        name, kind = key[1], key[2]
        if kind != "TXT":
            return self.api(422, invalid("type", "only TXT RRSets can be changed in this "
                                         "stand-in"))
        s = RRSETS.get(key)
        if action == "add_records":
            error = check_name(zone, name)
            if error:
                return self.api(422, error)
            ttl, error = check_ttl(data)
            if error:
                return self.api(422, error)
            values, error = check_records(data)
            if error:
                return self.api(422, error)
            if s is None:
                s = {"name": name, "type": kind, "ttl": ttl, "labels": {}, "records": []}
                RRSETS[key] = s
            elif ttl is not None:
                s["ttl"] = ttl
            set_records(zone, s, [(r["value"], r["comment"]) for r in s["records"]] + values)
            return self.api(201, {"action": new_action("add_rrset_records", zone["id"])})
        if s is None:
            return self.api(404, NOT_FOUND)
        if action == "remove_records":
            values, error = check_records(data)
            if error:
                return self.api(422, error)
            gone = {v for v, _ in values}
            set_records(zone, s, [(r["value"], r["comment"]) for r in s["records"]
                                  if r["value"] not in gone])
            if not s["records"]:
                del RRSETS[key]
            return self.api(201, {"action": new_action("remove_rrset_records", zone["id"])})
        if action == "set_records":
            values, error = check_records(data)
            if error:
                return self.api(422, error)
            set_records(zone, s, values)
            return self.api(201, {"action": new_action("set_rrset_records", zone["id"])})
        if action == "change_ttl":
            if "ttl" not in data:
                return self.api(422, invalid("ttl", "is required"))
            ttl, error = check_ttl(data)
            if error:
                return self.api(422, error)
            s["ttl"] = ttl
            return self.api(201, {"action": new_action("change_rrset_ttl", zone["id"])})
        return self.api(422, invalid("action", f"{action} is not served by this stand-in"))

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
    standin_dns.serve(DNS_PORT, lambda: [z["name"] for z in ZONES.values()],
                      lambda: [r for k, s in RRSETS.items() if k[2] == "TXT"
                               for r in s["records"]],
                      LOCK, VISIBLE_AFTER)
    server = ThreadingHTTPServer(("127.0.0.1", HTTP_PORT), Api)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
