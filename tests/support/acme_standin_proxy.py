#!/usr/bin/env python3
"""An ACME stand-in for tests: a reverse proxy in front of a real Pebble 2.4 adding what Pebble 2.4
lacks, profiles (draft-ietf-acme-profiles), ARI (RFC 9773) and rateLimited, and checking how the
client uses them. Pebble sees every other request unchanged, Host included: it builds the URLs it
answers, and the one it expects in each JWS, from Host, so the conversation stays on this proxy.
What it serves, refuses and records, how it is controlled, and its limits: acme_standin_proxy.md.

Usage: acme_standin_proxy.py <port> <dns port, unused> --upstream https://127.0.0.1:<pebble port>
       --cert <pem> --key <pem> [--upstream-ca <pem>]. Prints "listening" once bound.
"""
import argparse
import base64
import datetime
import http.client
import ipaddress
import json
import re
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

ERR = "urn:ietf:params:acme:error:"
RENEWAL_PATH = "/renewal-info"
HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
       "upgrade", "content-length", "host", "accept-encoding", "date", "server",
       "x-forwarded-proto", "x-forwarded-host", "forwarded"}  # not passed on (either way)
DEAD = ("invalid", "deactivated", "expired", "revoked")  # Pebble 2.4: a deactivated authz's
# order reads "deactivated"
B64 = re.compile(r"^[A-Za-z0-9_-]+$")
LOCK = threading.RLock()
PROFILES = {"classic": "The usual 90-day server certificate",
            "tlsserver": "A server certificate for TLS only, without the subject name",
            "shortlived": "A six-day server certificate"}


def start_state():
    return {"profiles": dict(PROFILES), "windows": {}, "retry_after": 21600, "limit": 0,
            "limit_after": 0, "asked": 0, "violations": [], "orders": [], "dir": None,
            "hold": 0, "held": 0, "hold_timed_out": 0}


RELEASE = threading.Event()  # set: held challenge responses go on to Pebble
HOLD_LIMIT = 60  # seconds a challenge response is held at most (bounded, without a release)


S = start_state()
CERTS = {}      # ARI cert ID -> {"kid", "names", "not_before", "not_after"}
REPLACED = {}   # ARI cert ID -> path of the (not invalid) order replacing it
ORDER_OF = {}   # path of an order, its finalize URL or one of its authorizations -> order path
EXTRAS = {}     # order path -> {"profile"?, "replaces"?}: what the order object should say


def b64d(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64e(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def cert_id_ok(text):
    parts = text.split(".") if isinstance(text, str) else []
    return len(parts) == 2 and all(B64.match(p) for p in parts)


def tlvs(buf):
    """The (tag, content) of each DER element of buf, in order."""
    out, i = [], 0
    while i + 2 <= len(buf):
        tag, size, i = buf[i], buf[i + 1], i + 2
        if size & 0x80:
            n = size & 0x7F
            size, i = int.from_bytes(buf[i:i + n], "big"), i + n
        out.append((tag, buf[i:i + size]))
        i += size
    return out


def der_time(tag, raw):
    return datetime.datetime.strptime(raw.decode(), "%y%m%d%H%M%SZ" if tag == 0x17
                                      else "%Y%m%d%H%M%SZ").replace(tzinfo=datetime.timezone.utc)


def cert_facts(der):
    """(ARI cert ID, names, notBefore, notAfter) of a DER certificate (RFC 9773 4.1)."""
    tbs = tlvs(tlvs(tlvs(der)[0][1])[0][1])
    if tbs[0][0] == 0xA0:
        tbs = tbs[1:]
    serial, validity = tbs[0][1], tlvs(tbs[3][1])
    aki, names = None, []
    for tag, content in tbs[6:]:
        if tag != 0xA3:
            continue
        for _, ext in tlvs(tlvs(content)[0][1]):
            parts = tlvs(ext)
            oid, value = parts[0][1], parts[-1][1]
            if oid == b"\x55\x1d\x23":
                aki = next((c for t, c in tlvs(tlvs(value)[0][1]) if t == 0x80), None)
            elif oid == b"\x55\x1d\x11":
                for t, c in tlvs(tlvs(value)[0][1]):
                    if t == 0x82:
                        names.append(c.decode().lower())
                    elif t == 0x87:
                        names.append(str(ipaddress.ip_address(c)))
    if aki is None:
        raise ValueError("no Authority Key Identifier")
    return b64e(aki) + "." + b64e(serial), names, der_time(*validity[0]), der_time(*validity[1])


def rfc3339(when):
    return when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def violation(text):
    with LOCK:
        if len(S["violations"]) < 200:
            S["violations"].append(text)


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        self.request.settimeout(30)
        self.request.do_handshake()
        super().setup()

    def send(self, status, body, headers=(), ctype="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body, indent=2).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def upstream(self, method, path, body=None):
        """(status, [(header, value)], body, content type) of Pebble's answer."""
        up = urlsplit(ARGS.upstream)
        conn = http.client.HTTPSConnection(up.hostname, up.port or 443, timeout=20, context=UP_TLS)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
            headers["Host"] = self.headers.get("Host") or f"127.0.0.1:{ARGS.port}"
            conn.request(method, path, body=body, headers=headers)
            answer = conn.getresponse()
            return (answer.status, [(k, v) for k, v in answer.getheaders()
                                    if k.lower() not in HOP and k.lower() != "content-type"],
                    answer.read(4 << 20), answer.getheader("Content-Type", ""))
        finally:
            conn.close()

    def refuse(self, status, kind, detail, headers, extra=(), nonce=True):
        """An ACME problem; headers: Pebble's (its Replay-Nonce, Link), else a fresh nonce."""
        if not headers and nonce:
            try:
                headers = self.upstream("HEAD", urlsplit(self.known_dir()["newNonce"]).path)[1]
            except (OSError, http.client.HTTPException, ValueError, KeyError):
                headers = []
        keep = [(k, v) for k, v in headers if k.lower() in ("replay-nonce", "link")]
        self.send(status, {"type": ERR + kind, "detail": detail, "status": status},
                  keep + list(extra), "application/problem+json")

    def known_dir(self):
        """Pebble's directory (URLs on this proxy), read from Pebble's /dir when not seen yet."""
        if S["dir"] is None:
            self.directory(self.upstream("GET", "/dir")[2])
        return S["dir"] or {}

    def handle_any(self):
        path = self.path
        size = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(min(size, 1 << 20)) if size else None
        if path.startswith("/__standin/"):
            return self.control(path[len("/__standin/"):], body)
        if path.startswith(RENEWAL_PATH + "/") or path == RENEWAL_PATH:
            return self.renewal_info(path[len(RENEWAL_PATH) + 1:])
        try:  # a JWS's protected header and payload (Pebble checks its signature)
            outer = json.loads(body) if self.command == "POST" and body else {}
            jws = {"prot": json.loads(b64d(outer["protected"])),
                   "payload": json.loads(b64d(outer["payload"]) or b"null")}
        except (ValueError, KeyError, TypeError):
            jws = {}
        if self.command == "POST" and path.startswith("/chalZ/") and jws.get("payload") == {}:
            self.hold_challenge()
        try:
            if self.command == "POST" and path == urlsplit(self.known_dir()["newOrder"]).path:
                return self.new_order(path, body, jws)
            status, headers, data, ctype = self.upstream(self.command, path, body)
        except (OSError, http.client.HTTPException, KeyError) as e:
            return self.send(502, {"type": ERR + "serverInternal", "detail": f"Pebble: {e}"})
        if self.command == "GET" and ctype.startswith("application/json"):
            data = self.directory(data)
        elif status == 200 and ctype.startswith("application/pem-certificate-chain"):
            self.learn_certificate(data, jws.get("prot", {}).get("kid", ""))
        elif ctype.startswith("application/json") and self.command == "POST":
            data = self.order_object(path, data)
        return self.send(status, data, headers, ctype)

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = handle_any

    @staticmethod
    def hold_challenge():
        """While armed (POST hold-challenges), a client's answer to a challenge waits here until
        POST release (at most HOLD_LIMIT s): the order is mid-way, and a test can stop Pebble."""
        with LOCK:
            if S["hold"] <= 0:
                return
            S["hold"] -= 1
            S["held"] += 1
        if not RELEASE.wait(HOLD_LIMIT):
            with LOCK:
                S["hold_timed_out"] += 1

    def directory(self, data):
        try:
            doc = json.loads(data)
        except ValueError:
            return data
        if not isinstance(doc, dict) or "newOrder" not in doc or "newNonce" not in doc:
            return data
        with LOCK:
            S["dir"] = dict(doc)
            doc["renewalInfo"] = f"https://{self.headers.get('Host')}{RENEWAL_PATH}"
            meta = doc.setdefault("meta", {})
            if S["profiles"]:
                meta["profiles"] = dict(S["profiles"])
        return json.dumps(doc, indent=2).encode()

    @staticmethod
    def learn_certificate(pem, kid):
        """Notes the leaf of a chain Pebble sent (to `kid`) as one this CA issued."""
        match = re.search(rb"-----BEGIN CERTIFICATE-----(.*?)-----END", pem, re.S)
        try:
            cert_id, names, not_before, not_after = cert_facts(base64.b64decode(match.group(1)))
        except (ValueError, IndexError, AttributeError) as e:
            return violation(f"a certificate Pebble sent could not be read here: {e}")
        with LOCK:
            CERTS.setdefault(cert_id, {"kid": kid, "names": names, "not_before": not_before,
                                       "not_after": not_after})

    def order_object(self, path, data):
        """An order, authorization or finalize answer: an order that became invalid frees the
        certificate it replaced; an order object gets its profile and replaces."""
        try:
            doc = json.loads(data)
        except ValueError:
            return data
        with LOCK:
            order = ORDER_OF.get(path)
            if order is None or not isinstance(doc, dict):
                return data
            if doc.get("status") in DEAD:
                for cert_id in [c for c, o in REPLACED.items() if o == order]:
                    del REPLACED[cert_id]
            if "finalize" in doc:
                doc.update(EXTRAS.get(order, {}))
        return json.dumps(doc, indent=2).encode()

    def new_order(self, path, body, jws):
        payload = jws.get("payload") if isinstance(jws.get("payload"), dict) else {}
        profile, replaces = payload.get("profile"), payload.get("replaces")
        with LOCK:
            record = {"profile": profile, "replaces": replaces, "status": 429}
            S["orders"] = (S["orders"] + [record])[-500:]
            limited, S["limit"] = S["limit"] > 0, max(0, S["limit"] - 1)
            profiles = dict(S["profiles"])
        if limited:
            return self.refuse(429, "rateLimited", "too many new orders (stand-in rate limit)",
                               [], [("Retry-After", str(S["limit_after"]))])
        refusal = None
        if profile is not None and not profiles:
            violation(f"newOrder sent profile {profile!r} though the directory lists none")
        elif profile is not None and (not isinstance(profile, str) or profile not in profiles):
            violation(f"newOrder asked for profile {profile!r}, not in {sorted(profiles)}")
            refusal = (400, "invalidProfile", f"profile {profile!r} is not offered here")
        try:
            status, headers, data, ctype = self.upstream("POST", path, body)
        except (OSError, http.client.HTTPException) as e:
            return self.send(502, {"type": ERR + "serverInternal", "detail": f"Pebble: {e}"})
        with LOCK:
            if status == 201 and refusal is None and replaces is not None:
                refusal = self.check_replaces(replaces, jws, payload)
                if refusal is not None:
                    violation(f"newOrder replaces {replaces!r}: {refusal[2]}")
            record["status"] = refusal[0] if status == 201 and refusal else status
            if status == 201 and refusal is None:  # Pebble's order: what it replaces, its URLs
                order = urlsplit(dict((k.lower(), v) for k, v in headers).get("location", "")).path
                try:
                    doc = json.loads(data)
                except ValueError:
                    doc = {}
                EXTRAS[order] = {k: v for k, v in (("profile", profile), ("replaces", replaces))
                                 if v is not None}
                for url in [doc.get("finalize", "")] + list(doc.get("authorizations", [])):
                    ORDER_OF[urlsplit(url).path] = order
                ORDER_OF[order] = order
                if replaces is not None:
                    REPLACED[replaces] = order
                doc.update(EXTRAS[order])
                data = json.dumps(doc, indent=2).encode()
        if status == 201 and refusal is not None:
            return self.refuse(*refusal, headers)
        return self.send(status, data, headers, ctype)

    @staticmethod
    def check_replaces(replaces, jws, payload):
        """RFC 9773 5's checks (LOCK held): None, or (status, type, detail) of the refusal."""
        if not cert_id_ok(replaces):
            return 400, "malformed", "replaces is not base64url(AKI keyIdentifier).base64url(serial)"
        cert = CERTS.get(replaces)
        if cert is None:
            return 400, "malformed", "replaces names no certificate this CA issued"
        if cert["kid"] != jws.get("prot", {}).get("kid"):
            return 400, "malformed", "replaces names a certificate of another account"
        wanted = {str(i.get("value", "")).lower() for i in payload.get("identifiers", [])
                  if isinstance(i, dict)}
        if not wanted & set(cert["names"]):
            return 400, "malformed", "the order shares no identifier with the replaced certificate"
        if replaces in REPLACED:
            return 409, "alreadyReplaced", "the certificate was already replaced by another order"
        return None

    def renewal_info(self, cert_id):
        with LOCK:
            S["asked"] += 1
            cert = CERTS.get(cert_id)
            window = S["windows"].get(cert_id) or S["windows"].get("")
        if self.command != "GET":
            violation(f"renewalInfo asked with {self.command}, not an unauthenticated GET")
            return self.refuse(405, "malformed", "renewalInfo takes GET only", [],
                               [("Allow", "GET")], nonce=False)
        if not cert_id_ok(cert_id):
            violation(f"renewalInfo asked for a malformed certID {cert_id!r}")
            return self.refuse(400, "malformed", "not a certID (RFC 9773 4.1)", [], nonce=False)
        if cert is None:
            return self.refuse(404, "malformed", "no certificate with that certID here", [],
                               nonce=False)
        if window is None:  # the last third of its lifetime, the first half of it
            life = cert["not_after"] - cert["not_before"]
            start = cert["not_after"] - life / 3
            window = {"start": rfc3339(start), "end": rfc3339(start + life / 6),
                      "retry_after": S["retry_after"]}
        doc = {"suggestedWindow": {"start": window["start"], "end": window["end"]}}
        if window.get("explanation_url"):
            doc["explanationURL"] = window["explanation_url"]
        return self.send(200, doc, [("Retry-After", str(window["retry_after"])),
                                    ("Cache-Control", "public, max-age=0, no-cache")])

    def control(self, name, body):
        try:
            doc = json.loads(body) if body else {}
        except ValueError:
            doc = None
        if self.command == "POST" and not isinstance(doc, dict):
            return self.send(400, {"error": "not a JSON object"})
        with LOCK:
            answer = self.controlled(self.command + " " + name, doc)
        return self.send(*answer)

    @staticmethod
    def controlled(what, doc):
        """(status, body) of control `what` ("METHOD name") with the JSON object doc."""
        if what == "POST profiles":
            S["profiles"] = {str(k): str(v) for k, v in doc.items()}
        elif what == "POST rate-limit":
            count, after = doc.get("count", 0), doc.get("retry_after_seconds", 0)
            if not all(isinstance(n, int) and n >= 0 for n in (count, after)):
                return 400, {"error": "count and retry_after_seconds: integers >= 0"}
            S["limit"], S["limit_after"] = count, after
        elif what == "POST renewal-window":
            try:
                start, end = (datetime.datetime.fromisoformat(doc[k].replace("Z", "+00:00"))
                              for k in ("start", "end"))
                after = int(doc.get("retry_after_seconds", S["retry_after"]))
                if start.tzinfo is None or end.tzinfo is None or end <= start or after < 0:
                    raise ValueError("start and end need a zone, end after start")
            except (KeyError, AttributeError, ValueError, TypeError) as e:
                return 400, {"error": f"bad window: {e}"}
            S["windows"][str(doc.get("cert_id", ""))] = {
                "start": rfc3339(start), "end": rfc3339(end), "retry_after": after,
                "explanation_url": doc.get("explanation_url")}
        elif what == "POST hold-challenges":
            count = doc.get("count", 0)
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                return 400, {"error": "count: an integer >= 0"}
            RELEASE.clear()
            S["hold"] = count
        elif what == "POST release":
            S["hold"] = 0
            RELEASE.set()
        elif what == "GET held":
            return 200, {"held": S["held"], "timed_out": S["hold_timed_out"]}
        elif what == "POST reset":  # as just started (e.g. after Pebble restarted: a new CA)
            for table in (CERTS, REPLACED, ORDER_OF, EXTRAS):
                table.clear()
            S.update(start_state())
            RELEASE.set()
        elif what in ("GET violations", "GET orders"):
            return 200, {what[4:]: list(S[what[4:]])}
        elif what == "GET renewal-info-asked":
            return 200, {"renewal-info-asked": S["asked"]}
        elif what == "GET certificates":
            return 200, {"certificates": {k: {"names": v["names"], "replaced_by":
                                              REPLACED.get(k)} for k, v in CERTS.items()}}
        else:
            return 404, {"error": "unknown control"}
        return 200, {"ok": True}


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]  # quiet about clients that drop out or fail the handshake
        if not isinstance(error, (ConnectionError, TimeoutError, ssl.SSLError)):
            print(f"acme_standin_proxy: {type(error).__name__}: {error}", file=sys.stderr,
                  flush=True)


def main():
    global ARGS, UP_TLS
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("dns_port")
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--upstream-ca")
    ARGS = parser.parse_args()
    UP_TLS = (ssl.create_default_context(cafile=ARGS.upstream_ca) if ARGS.upstream_ca
              else ssl._create_unverified_context())
    server = Server(("127.0.0.1", ARGS.port), Proxy)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(ARGS.cert, ARGS.key)
    server.socket = tls.wrap_socket(server.socket, server_side=True,
                                    do_handshake_on_connect=False)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
