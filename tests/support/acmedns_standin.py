#!/usr/bin/env python3
"""A stand-in for acme-dns (github.com/joohoi/acme-dns), written from its README's API: what a
DNS-01 client uses. For tests only, on 127.0.0.1.

- POST /register (optional JSON {"allowfrom": [CIDR, ...]}) -> 201 {"username", "password",
  "fulldomain", "subdomain", "allowfrom"}. Subdomains are handed out from the list given on the
  command line, in order (so a test's DNS can hold the CNAME to the first one), then random
  UUIDs. A bad allowfrom: 400 {"error": "invalid_allowfrom_cidr"}.
- POST /update with X-Api-User and X-Api-Key and JSON {"subdomain", "txt"} -> 200 {"txt"}.
  Refused as acme-dns refuses: a missing or unknown user, or a wrong key: 401
  {"error": "forbidden"}; a subdomain that is not the user's: 401 {"error": "forbidden"}; a
  malformed body: 400 {"error": "malformed_json_payload"}; a subdomain that is not a UUID: 400
  {"error": "bad_subdomain"}; a txt that is not 43 base64url characters: 400
  {"error": "bad_txt"}. Each subdomain keeps its two newest values (a wildcard and its apex),
  as acme-dns does: a third update drops the oldest. There is no delete.
- GET /health -> 200.
- POST /__standin/fail with a count: the next updates are answered 500 (a server in trouble).
- GET /__standin/stats -> {"registrations", "updates"}.

Its DNS side is a real server: every update rewrites the subdomain's TXT set in the zone given
on the command line through RFC 2136 + TSIG (nsupdate), so a resolver that follows a CNAME into
that zone sees the values (acme-dns serves them itself; here bind9 does).

Usage: acmedns_standin.py <http port> <dns server host:port> <tsig name> <tsig secret> <zone>
       [subdomain ...]
Prints "listening" once bound.
"""
import json
import re
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HTTP_PORT = int(sys.argv[1])
DNS_HOST, DNS_PORT = sys.argv[2].rsplit(":", 1)
TSIG_NAME, TSIG_SECRET, ZONE = sys.argv[3], sys.argv[4], sys.argv[5].lower().rstrip(".")
PLANNED = list(sys.argv[6:])
ACCOUNTS = {}  # username -> {"password", "subdomain", "allowfrom"}
VALUES = {}    # subdomain -> [oldest, newest]
LOCK = threading.Lock()
STATE = {"registrations": 0, "updates": 0, "fail": 0}
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TXT = re.compile(r"^[A-Za-z0-9_-]{43}$")
CIDR = re.compile(r"^[0-9a-fA-F:.]+/[0-9]{1,3}$")


def write_dns(subdomain, values):
    """Replaces the subdomain's TXT set in the zone through RFC 2136 (nsupdate)."""
    name = f"{subdomain}.{ZONE}."
    script = [f"server {DNS_HOST} {DNS_PORT}", f"zone {ZONE}.", f"update delete {name} TXT"]
    script += [f'update add {name} 60 TXT "{v}"' for v in values]
    script.append("send")
    done = subprocess.run(["nsupdate", "-y", f"hmac-sha256:{TSIG_NAME}:{TSIG_SECRET}"],
                          input="\n".join(script) + "\n", text=True, capture_output=True,
                          timeout=10)
    return done.returncode == 0


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        if self.path == "/health":
            return self.answer(200, {})
        if self.path == "/__standin/stats":
            with LOCK:
                return self.answer(200, {"registrations": STATE["registrations"],
                                         "updates": STATE["updates"]})
        return self.answer(404, {"error": "not_found"})

    def do_POST(self):
        payload = self.body()
        if self.path == "/__standin/fail":
            with LOCK:
                STATE["fail"] = int(payload or b"0")
            return self.answer(200, {})
        if self.path == "/register":
            return self.register(payload)
        if self.path == "/update":
            return self.update(payload)
        return self.answer(404, {"error": "not_found"})

    def register(self, payload):
        allow = []
        if payload.strip():
            try:
                data = json.loads(payload)
            except ValueError:
                return self.answer(400, {"error": "malformed_json_payload"})
            if not isinstance(data, dict):
                return self.answer(400, {"error": "malformed_json_payload"})
            allow = data.get("allowfrom", [])
            if not isinstance(allow, list) or not all(
                    isinstance(c, str) and CIDR.match(c) for c in allow):
                return self.answer(400, {"error": "invalid_allowfrom_cidr"})
        with LOCK:
            subdomain = PLANNED.pop(0) if PLANNED else str(uuid.uuid4())
            username = str(uuid.uuid4())
            password = uuid.uuid4().hex + uuid.uuid4().hex[:8]  # 40 characters, as acme-dns
            ACCOUNTS[username] = {"password": password, "subdomain": subdomain,
                                  "allowfrom": allow}
            STATE["registrations"] += 1
        return self.answer(201, {"username": username, "password": password,
                                 "fulldomain": f"{subdomain}.{ZONE}", "subdomain": subdomain,
                                 "allowfrom": allow})

    def update(self, payload):
        user = self.headers.get("X-Api-User", "")
        key = self.headers.get("X-Api-Key", "")
        with LOCK:
            account = ACCOUNTS.get(user)
            if account is None or account["password"] != key:
                return self.answer(401, {"error": "forbidden"})
            if STATE["fail"] > 0:
                STATE["fail"] -= 1
                return self.answer(500, {"error": "db_error"})
        try:
            data = json.loads(payload)
        except ValueError:
            return self.answer(400, {"error": "malformed_json_payload"})
        if not isinstance(data, dict) or not isinstance(data.get("subdomain"), str) or \
                not isinstance(data.get("txt"), str):
            return self.answer(400, {"error": "malformed_json_payload"})
        if not UUID.match(data["subdomain"]):
            return self.answer(400, {"error": "bad_subdomain"})
        if data["subdomain"] != account["subdomain"]:
            return self.answer(401, {"error": "forbidden"})
        if not TXT.match(data["txt"]):
            return self.answer(400, {"error": "bad_txt"})
        with LOCK:
            values = (VALUES.get(data["subdomain"], []) + [data["txt"]])[-2:]
            VALUES[data["subdomain"]] = values
            STATE["updates"] += 1
            if not write_dns(data["subdomain"], values):
                return self.answer(500, {"error": "db_error"})
        return self.answer(200, {"txt": data["txt"]})


def main():
    server = ThreadingHTTPServer(("127.0.0.1", HTTP_PORT), Api)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
