#!/usr/bin/env python3
"""A stand-in for DigitalOcean's API v2 (Domains and Domain Records: what DNS-01 uses), written
from DigitalOcean's public API reference, with a DNS responder for the records it holds
(standin_dns.py). For tests only, on 127.0.0.1.

It refuses what the real API refuses, in its shape ({"id", "message"}):
- a missing, malformed or unknown bearer token: 401 "unauthorized";
- an unknown domain or record: 404 "not_found";
- a record without type, data or name, a TTL under 30, a body that is not JSON: 422
  "unprocessable_entity";
- while throttled (POST /__standin/throttle with a count): 429 "too_many_requests" with the
  ratelimit-* headers (no Retry-After).
Listings are paged (per_page up to 200, more is capped as the API does) with links.pages.next.
`name` filters by the record's full name; records are written and answered with names relative
to their domain ("@" for the domain itself), as the API does: a client that writes a full name
gets a record under it (www.example.test.example.test), never visible where it meant.

Usage: digitalocean_standin.py <http port> <dns port> <token> <visible after> <domain> ...
Prints "listening" once both sockets are bound.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin_dns  # noqa: E402  (the DNS side shared by the stand-ins)

HTTP_PORT, DNS_PORT, TOKEN, VISIBLE_AFTER = (
    int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
DOMAINS = [d.lower().rstrip(".") for d in sys.argv[5:]]
RECORDS = {}  # id -> {"id", "domain", "type", "name", "data", "ttl", "fqdn", "content", "seen"}
LOCK = threading.Lock()
STATE = {"throttle": 0, "next_id": 3352892}
PREFIX = "/v2"


def refusal(kind, message):
    return {"id": kind, "message": message}


def view(r):
    return {"id": int(r["id"]), "type": r["type"], "name": r["name"], "data": r["data"],
            "priority": None, "port": None, "ttl": r["ttl"], "weight": None, "flags": None,
            "tag": None}


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

    def handle_any(self, method):
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        payload = self.rfile.read(length) if length else b""
        if url.path == "/__standin/throttle":
            with LOCK:
                STATE["throttle"] = int(payload or b"0")
            return self.answer(200, {"ok": True})
        with LOCK:
            if STATE["throttle"] > 0:
                STATE["throttle"] -= 1
                reset = str(int(time.time()) + 1)
                return self.answer(429, refusal("too_many_requests", "API Rate limit exceeded."),
                                   [("ratelimit-limit", "5000"), ("ratelimit-remaining", "0"),
                                    ("ratelimit-reset", reset)])
        if self.headers.get("Authorization", "") != "Bearer " + TOKEN:
            return self.answer(401, refusal("unauthorized", "Unable to authenticate you"))
        parts = url.path[len(PREFIX) + 1:].split("/") if url.path.startswith(PREFIX + "/") else []
        if len(parts) < 3 or parts[0] != "domains" or parts[2] != "records":
            return self.answer(404, refusal("not_found", "The resource you were accessing could "
                                            "not be found."))
        domain = parts[1].lower()
        if domain not in DOMAINS:
            return self.answer(404, refusal("not_found", "The resource you were accessing could "
                                            "not be found."))
        with LOCK:
            if len(parts) == 3 and method == "GET":
                return self.list_records(domain, url, parse_qs(url.query))
            if len(parts) == 3 and method == "POST":
                return self.create(domain, payload)
            if len(parts) == 4 and method == "DELETE":
                record = RECORDS.get(parts[3])
                if record is None or record["domain"] != domain:
                    return self.answer(404, refusal("not_found", "The resource you were "
                                                    "accessing could not be found."))
                del RECORDS[parts[3]]
                return self.answer(204)
        return self.answer(405, refusal("method_not_allowed", "Method not allowed"))

    def list_records(self, domain, url, query):
        found = sorted((r for r in RECORDS.values() if r["domain"] == domain),
                       key=lambda r: int(r["id"]))
        if "type" in query:
            found = [r for r in found if r["type"] == query["type"][0]]
        if "name" in query:
            found = [r for r in found if r["fqdn"] == query["name"][0].lower().rstrip(".")]
        try:
            page = max(1, int(query.get("page", ["1"])[0]))
            per_page = min(200, max(1, int(query.get("per_page", ["20"])[0])))
        except ValueError:
            return self.answer(422, refusal("unprocessable_entity", "page and per_page must be "
                                            "integers"))
        chunk = found[(page - 1) * per_page: page * per_page]
        pages = {}
        if page * per_page < len(found):
            pages["next"] = (f"http://127.0.0.1:{HTTP_PORT}{url.path}?page={page + 1}"
                             f"&per_page={per_page}")
            pages["last"] = (f"http://127.0.0.1:{HTTP_PORT}{url.path}?page="
                             f"{(len(found) + per_page - 1) // per_page}&per_page={per_page}")
        return self.answer(200, {"domain_records": [view(r) for r in chunk],
                                 "links": {"pages": pages} if pages else {},
                                 "meta": {"total": len(found)}})

    def create(self, domain, payload):
        try:
            data = json.loads(payload)
        except ValueError:
            return self.answer(422, refusal("unprocessable_entity", "Request body is not JSON"))
        if not isinstance(data, dict):
            return self.answer(422, refusal("unprocessable_entity", "Request body is not JSON"))
        kind, name, content, ttl = data.get("type"), data.get("name"), data.get("data"), \
            data.get("ttl", 1800)
        if kind != "TXT":
            return self.answer(422, refusal("unprocessable_entity", "Type is not supported here"))
        if not isinstance(name, str) or not name:
            return self.answer(422, refusal("unprocessable_entity", "Name can't be blank"))
        if not isinstance(content, str) or not content:
            return self.answer(422, refusal("unprocessable_entity", "Data needs to be present"))
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 30:
            return self.answer(422, refusal("unprocessable_entity", "Ttl must be at least 30"))
        name = name.lower()
        fqdn = domain if name == "@" else name + "." + domain
        record = {"id": STATE["next_id"], "domain": domain, "type": "TXT", "name": name,
                  "data": content, "ttl": ttl, "fqdn": fqdn, "content": content, "seen": 0}
        STATE["next_id"] += 1
        record["id"] = str(record["id"])
        RECORDS[record["id"]] = record
        return self.answer(201, {"domain_record": view(record)})

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def do_PUT(self):
        self.handle_any("PUT")


def main():
    standin_dns.serve(DNS_PORT, lambda: DOMAINS, lambda: list(RECORDS.values()), LOCK,
                      VISIBLE_AFTER)
    server = ThreadingHTTPServer(("127.0.0.1", HTTP_PORT), Api)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
