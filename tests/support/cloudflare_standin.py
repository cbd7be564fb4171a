#!/usr/bin/env python3
"""A stand-in for Cloudflare's API v4 (the parts DNS-01 uses), written from Cloudflare's public
API documentation, with a DNS responder for the records it holds. For tests only, on 127.0.0.1.

It refuses what the real API refuses, in the real API's shape ({"success": false, "errors":
[{"code", "message"}], "messages": [], "result": null}):
- a missing or malformed Authorization header: 400, code 6003 (error_chain 6111);
- a well-formed token that is not the one given: 403, code 10000 "Authentication error";
- an unknown zone or record id: 404 (7003 / 81044);
- per_page out of range (zones 5..50, records 5..5000000), a body that is not JSON or not sent as
  application/json, a TXT record outside its zone, a TTL other than 1 or 60..86400, content over
  2,048 characters: 400;
- a record identical to one present (same type, name and content): 400, code 81058;
- while throttled (POST /__standin/throttle with a count): 429 with Retry-After: 1, code 971.

DNS (UDP, on its own port; standin_dns.py) answers TXT queries for names in its zones,
authoritatively; a record becomes visible only after `visible_after` queries for its name (the
edge catching up), and goes at once when deleted.

Usage: cloudflare_standin.py <http port> <dns port> <token> <visible after> <zone>=<id> ...
Prints "listening" once both sockets are bound.
"""
import json
import os
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin_dns  # noqa: E402  (the DNS side shared by the stand-ins)

HTTP_PORT, DNS_PORT, TOKEN, VISIBLE_AFTER = (
    int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
ZONES = {}  # id -> {"id", "name"}
for spec in sys.argv[5:]:
    name, zone_id = spec.split("=")
    ZONES[zone_id] = {"id": zone_id, "name": name.lower().rstrip(".")}
RECORDS = {}  # id -> {"id", "zone_id", "type", "name", "content", "ttl", "seen"}
LOCK = threading.Lock()
STATE = {"throttle": 0, "requests": 0}
PREFIX = "/client/v4"


def failure(code, message, chain=None):
    error = {"code": code, "message": message}
    if chain:
        error["error_chain"] = chain
    return {"success": False, "errors": [error], "messages": [], "result": None}


def success(result, info=None):
    body = {"success": True, "errors": [], "messages": [], "result": result}
    if info is not None:
        body["result_info"] = info
    return body


def page_of(items, query, low, high, default):
    try:
        page = int(query.get("page", ["1"])[0])
        per_page = int(query.get("per_page", [str(default)])[0])
    except ValueError:
        return None, failure(1001, "page and per_page must be integers")
    if page < 1 or per_page < low or per_page > high:
        return None, failure(1001, f"per_page must be between {low} and {high}, page at least 1")
    total = len(items)
    chunk = items[(page - 1) * per_page: page * per_page]
    pages = max(1, (total + per_page - 1) // per_page)
    return (chunk, {"page": page, "per_page": per_page, "count": len(chunk),
                    "total_count": total, "total_pages": pages}), None


def zone_view(zone):
    return {"id": zone["id"], "name": zone["name"], "status": "active",
            "name_servers": [f"127.0.0.1:{DNS_PORT}"]}


def record_view(r):
    return {"id": r["id"], "zone_id": r["zone_id"], "zone_name": ZONES[r["zone_id"]]["name"],
            "type": r["type"], "name": r["name"], "content": r["content"], "ttl": r["ttl"],
            "proxied": False}


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def control(self, method, path):
        if method == "POST" and path == "/__standin/throttle":
            with LOCK:
                STATE["throttle"] = int(self.body() or b"0")
            self.answer(200, {"ok": True})
        elif method == "GET" and path == "/__standin/requests":
            with LOCK:
                self.answer(200, {"requests": STATE["requests"]})
        elif method == "GET" and path == "/__standin/records":
            with LOCK:
                self.answer(200, {"records": len(RECORDS)})
        else:
            self.answer(404, {"error": "unknown control"})

    def handle_any(self, method):
        url = urlsplit(self.path)
        if url.path.startswith("/__standin/"):
            return self.control(method, url.path)
        payload = self.body()
        with LOCK:
            STATE["requests"] += 1
            if STATE["throttle"] > 0:
                STATE["throttle"] -= 1
                return self.answer(429, failure(971, "Please wait and consider throttling your "
                                                "request speed"), [("Retry-After", "1")])
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer ") or len(auth) < 8 or " " in auth[7:]:
            return self.answer(400, failure(6003, "Invalid request headers",
                                            [{"code": 6111,
                                              "message": "Invalid format for Authorization header"}]))
        if auth[7:] != TOKEN:
            return self.answer(403, failure(10000, "Authentication error"))
        if not url.path.startswith(PREFIX + "/"):
            return self.answer(404, failure(7000, "No route for that URI"))
        parts = url.path[len(PREFIX) + 1:].split("/")
        query = parse_qs(url.query)
        with LOCK:
            return self.route(method, parts, query, payload)

    def route(self, method, parts, query, payload):
        if parts == ["zones"] and method == "GET":
            zones = sorted(ZONES.values(), key=lambda z: z["name"])
            if "name" in query:
                zones = [z for z in zones if z["name"] == query["name"][0].lower()]
            paged, error = page_of([zone_view(z) for z in zones], query, 5, 50, 20)
            if error:
                return self.answer(400, error)
            return self.answer(200, success(paged[0], paged[1]))
        if len(parts) >= 2 and parts[0] == "zones":
            zone = ZONES.get(parts[1])
            if zone is None:
                return self.answer(404, failure(7003, f"Could not route to /zones/{parts[1]}, "
                                                "perhaps your object identifier is invalid?"))
            if len(parts) == 2 and method == "GET":
                return self.answer(200, success(zone_view(zone)))
            if len(parts) == 3 and parts[2] == "dns_records":
                if method == "GET":
                    return self.list_records(zone, query)
                if method == "POST":
                    return self.create_record(zone, payload)
            if len(parts) == 4 and parts[2] == "dns_records" and method == "DELETE":
                record = RECORDS.get(parts[3])
                if record is None or record["zone_id"] != zone["id"]:
                    return self.answer(404, failure(81044, "Record does not exist."))
                del RECORDS[parts[3]]
                return self.answer(200, success({"id": parts[3]}))
        return self.answer(405 if parts and parts[0] == "zones" else 404,
                           failure(10000 if parts and parts[0] == "zones" else 7000,
                                   "Method not allowed for this route"))

    def list_records(self, zone, query):
        found = [r for r in RECORDS.values() if r["zone_id"] == zone["id"]]
        if "type" in query:
            found = [r for r in found if r["type"] == query["type"][0]]
        if "name" in query:
            found = [r for r in found if r["name"] == query["name"][0].lower().rstrip(".")]
        found.sort(key=lambda r: r["id"])
        paged, error = page_of([record_view(r) for r in found], query, 5, 5000000, 100)
        if error:
            return self.answer(400, error)
        return self.answer(200, success(paged[0], paged[1]))

    def create_record(self, zone, payload):
        if not self.headers.get("Content-Type", "").startswith("application/json"):
            return self.answer(400, failure(6003, "Invalid request headers",
                                            [{"code": 6105,
                                              "message": "Invalid Content-Type header, valid "
                                              "values are application/json,multipart/form-data"}]))
        try:
            data = json.loads(payload)
        except ValueError:
            return self.answer(400, failure(9207, "Request body is invalid."))
        if not isinstance(data, dict):
            return self.answer(400, failure(9207, "Request body is invalid."))
        name = str(data.get("name", "")).lower().rstrip(".")
        content = data.get("content")
        ttl = data.get("ttl", 1)
        if data.get("type") != "TXT":
            return self.answer(400, failure(1004, "DNS Validation Error",
                                            [{"code": 9101, "message": "type is required"}]))
        if name != zone["name"] and not name.endswith("." + zone["name"]):
            return self.answer(400, failure(1004, "DNS Validation Error",
                                            [{"code": 9005, "message": "Content for record is "
                                              "invalid. Must be a subdomain of the zone."}]))
        if not isinstance(content, str) or not content or len(content) > 2048:
            return self.answer(400, failure(9021, "Invalid TXT content"))
        if not isinstance(ttl, int) or isinstance(ttl, bool) or not (ttl == 1 or 60 <= ttl <= 86400):
            return self.answer(400, failure(9020, "Invalid TTL. Must be between 60 and 86400 "
                                            "seconds, or 1 for Automatic."))
        for r in RECORDS.values():
            if r["zone_id"] == zone["id"] and r["type"] == "TXT" and r["name"] == name \
                    and r["content"] == content:
                return self.answer(400, failure(81058, "An identical record already exists."))
        record = {"id": uuid.uuid4().hex, "zone_id": zone["id"], "type": "TXT", "name": name,
                  "fqdn": name, "content": content, "ttl": ttl, "seen": 0}
        RECORDS[record["id"]] = record
        return self.answer(200, success(record_view(record)))

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
    standin_dns.serve(DNS_PORT, lambda: [z["name"] for z in ZONES.values()],
                      lambda: [r for r in RECORDS.values() if r["type"] == "TXT"], LOCK,
                      VISIBLE_AFTER)
    server = ThreadingHTTPServer(("127.0.0.1", HTTP_PORT), Api)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
