#!/usr/bin/env python3
"""A stand-in for Amazon Route 53's API (2013-04-01: the calls DNS-01 uses), written from AWS's
public API reference and the Signature Version 4 documentation. For tests only, on 127.0.0.1.

Every request must carry a SigV4 Authorization that this server recomputes from the request
itself (method, path, sorted query, the signed headers, the body's SHA-256) with the key it
knows, for region us-east-1 and service route53, and an X-Amz-Date within 15 minutes; otherwise
it answers as Route 53 does, as an ErrorResponse document:
- an unknown access key: 403 InvalidClientTokenId; a wrong signature: 403 SignatureDoesNotMatch;
  a missing or malformed Authorization: 403 IncompleteSignature / MissingAuthenticationToken;
- an unknown hosted zone: 404 NoSuchHostedZone; an unknown change: 404 NoSuchChange;
- a change batch that is not as the API reference says (action, TXT values not enclosed in
  quotation marks, a name outside the zone, a DELETE whose values or TTL differ from the set's
  current ones, an UPSERT with no values): 400 InvalidChangeBatch / InvalidInput;
- while throttled (POST /__standin/throttle with a count): 400 Throttling "Rate exceeded".
A change is PENDING for its first `pending_polls` GetChange calls, then INSYNC.

It also plays STS's AssumeRole (POST / with Action=AssumeRole, signed for region us-east-1 and
service sts with the key): only `role arn` may be assumed (otherwise 403 AccessDenied), and the
answer holds temporary credentials (an ASIA... key, its secret and a session token) that Route 53
calls may then be signed with, the token sent as X-Amz-Security-Token (otherwise 403
InvalidClientTokenId / IncompleteSignature).

Usage: route53_standin.py <http port> <access key id> <secret key> <pending polls> <role arn>
                          <name>=<id>[=private] ...
Prints "listening" once bound.
"""
import datetime
import hashlib
import hmac
import sys
import threading
import uuid
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, quote, urlsplit

PORT, ACCESS_KEY, SECRET_KEY, PENDING_POLLS, ROLE_ARN = (
    int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
NS = "https://route53.amazonaws.com/doc/2013-04-01/"
ZONES = {}  # id -> {"id", "name", "private", "sets": {(name, type): {"ttl", "values"}}}
TEMPORARY = {}  # access key id -> (secret, session token), from AssumeRole
for spec in sys.argv[6:]:
    parts = spec.split("=")
    ZONES[parts[1]] = {"id": parts[1], "name": parts[0].lower().rstrip(".") + ".",
                       "private": len(parts) > 2 and parts[2] == "private", "sets": {}}
CHANGES = {}  # id -> polls so far
LOCK = threading.Lock()
STATE = {"throttle": 0, "requests": 0, "assumed": 0, "signed_with_role": 0}


def error_doc(kind, code, message):
    return (f'<?xml version="1.0"?>\n<ErrorResponse xmlns="{NS}"><Error><Type>{kind}</Type>'
            f"<Code>{code}</Code><Message>{message}</Message></Error>"
            f"<RequestId>{uuid.uuid4()}</RequestId></ErrorResponse>")


def esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def sign(key, message):
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


def uri_encode(text):
    return quote(text, safe="-_.~")


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def refuse(self, status, code, message, kind="Sender"):
        self.answer(status, error_doc(kind, code, esc(message)))

    def authorised(self, method, url, body, service="route53"):
        auth = self.headers.get("Authorization")
        if auth is None:
            return self.refuse(403, "MissingAuthenticationToken", "Missing Authentication Token")
        if not auth.startswith("AWS4-HMAC-SHA256 "):
            return self.refuse(403, "IncompleteSignature", "Unsupported authorization type")
        fields = {}
        for part in auth[len("AWS4-HMAC-SHA256 "):].split(","):
            name, _, value = part.strip().partition("=")
            fields[name] = value
        credential = fields.get("Credential", "").split("/")
        signed = fields.get("SignedHeaders", "")
        if len(credential) != 5 or not signed or "Signature" not in fields:
            return self.refuse(403, "IncompleteSignature", "Authorization header is malformed")
        key_id, day, region, scoped_service, terminal = credential
        secret = SECRET_KEY
        if key_id in TEMPORARY and service == "route53":
            secret, token = TEMPORARY[key_id]
            if self.headers.get("X-Amz-Security-Token") != token:
                return self.refuse(403, "InvalidClientTokenId",
                                   "The security token included in the request is invalid.")
        elif key_id != ACCESS_KEY:
            return self.refuse(403, "InvalidClientTokenId",
                               "The security token included in the request is invalid.")
        names = signed.split(";")
        if "host" not in names or "x-amz-date" not in names or names != sorted(names):
            return self.refuse(403, "IncompleteSignature", "host and x-amz-date must be signed")
        amz_date = self.headers.get("X-Amz-Date", "")
        try:
            when = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(
                tzinfo=datetime.timezone.utc)
        except ValueError:
            return self.refuse(403, "IncompleteSignature", "X-Amz-Date is malformed")
        now = datetime.datetime.now(datetime.timezone.utc)
        if abs((now - when).total_seconds()) > 900:
            return self.refuse(403, "SignatureDoesNotMatch", "Signature expired")
        if day != amz_date[:8] or region != "us-east-1" or scoped_service != service \
                or terminal != "aws4_request":
            return self.refuse(403, "SignatureDoesNotMatch", "Credential should be scoped to a "
                               f"valid region and to the {service} service")
        query = sorted((uri_encode(k), uri_encode(v))
                       for k, v in parse_qsl(url.query, keep_blank_values=True))
        lines = []
        for name in names:
            values = self.headers.get_all(name) or []
            if not values:
                return self.refuse(403, "SignatureDoesNotMatch", f"signed header {name} is missing")
            lines.append(name + ":" + ",".join(" ".join(v.split()) for v in values))
        canonical = "\n".join([method, url.path, "&".join(f"{k}={v}" for k, v in query),
                               "\n".join(lines) + "\n", signed, hashlib.sha256(body).hexdigest()])
        scope = f"{day}/us-east-1/{service}/aws4_request"
        to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                             hashlib.sha256(canonical.encode()).hexdigest()])
        key = sign(sign(sign(sign(("AWS4" + secret).encode(), day), "us-east-1"), service),
                   "aws4_request")
        if not hmac.compare_digest(hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest(),
                                   fields["Signature"]):
            return self.refuse(403, "SignatureDoesNotMatch",
                               "The request signature we calculated does not match the signature "
                               "you provided.")
        return True

    def handle_any(self, method):
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if url.path == "/__standin/throttle":
            with LOCK:
                STATE["throttle"] = int(body or b"0")
            return self.answer(200, "<ok/>")
        if url.path == "/__standin/requests":
            with LOCK:
                return self.answer(200, f"<requests>{STATE['requests']}</requests>")
        if url.path == "/__standin/assumed":
            with LOCK:
                return self.answer(200, f"<assumed>{STATE['assumed']}</assumed>"
                                   f"<signed>{STATE['signed_with_role']}</signed>")
        with LOCK:
            STATE["requests"] += 1
            if STATE["throttle"] > 0:
                STATE["throttle"] -= 1
                return self.refuse(400, "Throttling", "Rate exceeded")
        if url.path == "/" and method == "POST":
            return self.assume_role(url, body)
        if self.authorised(method, url, body) is not True:
            return
        if self.headers.get("Authorization", "").split("Credential=")[1].startswith("ASIA"):
            with LOCK:
                STATE["signed_with_role"] += 1
        parts = url.path.strip("/").split("/")
        query = dict(parse_qsl(url.query))
        if not parts or parts[0] != "2013-04-01":
            return self.refuse(404, "UnknownOperationException", "Unknown operation")
        with LOCK:
            self.route(method, parts[1:], query, body)

    def route(self, method, parts, query, body):
        if parts == ["hostedzonesbyname"] and method == "GET":
            return self.by_name(query)
        if len(parts) >= 2 and parts[0] == "hostedzone":
            zone = ZONES.get(parts[1])
            if zone is None:
                return self.refuse(404, "NoSuchHostedZone", f"No hosted zone found with ID: "
                                   f"{parts[1]}")
            if len(parts) == 2 and method == "GET":
                return self.answer(200, f'<?xml version="1.0"?>\n<GetHostedZoneResponse '
                                   f'xmlns="{NS}">{self.zone_xml(zone)}</GetHostedZoneResponse>')
            if len(parts) == 3 and parts[2] == "rrset" and method == "GET":
                return self.list_sets(zone, query)
            if len(parts) == 3 and parts[2] == "rrset" and method == "POST":
                return self.change(zone, body)
        if len(parts) == 2 and parts[0] == "change" and method == "GET":
            if parts[1] not in CHANGES:
                return self.refuse(404, "NoSuchChange", f"Could not find resource with ID: "
                                   f"{parts[1]}")
            CHANGES[parts[1]] += 1
            status = "INSYNC" if CHANGES[parts[1]] > PENDING_POLLS else "PENDING"
            return self.answer(200, f'<?xml version="1.0"?>\n<GetChangeResponse xmlns="{NS}">'
                               f"<ChangeInfo><Id>/change/{parts[1]}</Id><Status>{status}</Status>"
                               f"<SubmittedAt>2026-01-01T00:00:00.000Z</SubmittedAt></ChangeInfo>"
                               f"</GetChangeResponse>")
        return self.refuse(404, "UnknownOperationException", "Unknown operation")

    def assume_role(self, url, body):
        sts = "https://sts.amazonaws.com/doc/2011-06-15/"
        if self.authorised("POST", url, body, service="sts") is not True:
            return
        if not self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            return self.refuse(400, "InvalidParameterValue", "Unsupported Content-Type")
        form = dict(parse_qsl(body.decode()))
        if form.get("Action") != "AssumeRole" or form.get("Version") != "2011-06-15":
            return self.refuse(400, "InvalidAction", "Could not find operation")
        if not form.get("RoleSessionName"):
            return self.refuse(400, "ValidationError", "RoleSessionName is required")
        if not 900 <= int(form.get("DurationSeconds", "3600")) <= 43200:
            return self.refuse(400, "ValidationError", "DurationSeconds must be 900..43200")
        if form.get("RoleArn") != ROLE_ARN:
            return self.refuse(403, "AccessDenied",
                               f"User: arn:aws:iam::123456789012:user/standin is not authorized "
                               f"to perform: sts:AssumeRole on resource: {form.get('RoleArn')}")
        key_id = "ASIA" + uuid.uuid4().hex[:16].upper()
        secret, token = uuid.uuid4().hex + uuid.uuid4().hex, "FwoG" + uuid.uuid4().hex * 4
        with LOCK:
            TEMPORARY[key_id] = (secret, token)
            STATE["assumed"] += 1
        return self.answer(200, f'<AssumeRoleResponse xmlns="{sts}"><AssumeRoleResult>'
                           f"<AssumedRoleUser><Arn>{esc(ROLE_ARN)}/certsteward</Arn>"
                           f"<AssumedRoleId>AROA:certsteward</AssumedRoleId></AssumedRoleUser>"
                           f"<Credentials><AccessKeyId>{key_id}</AccessKeyId>"
                           f"<SecretAccessKey>{secret}</SecretAccessKey>"
                           f"<SessionToken>{token}</SessionToken>"
                           f"<Expiration>2026-01-01T00:15:00Z</Expiration></Credentials>"
                           f"</AssumeRoleResult><ResponseMetadata><RequestId>{uuid.uuid4()}"
                           f"</RequestId></ResponseMetadata></AssumeRoleResponse>")

    @staticmethod
    def zone_xml(zone):
        return (f"<HostedZone><Id>/hostedzone/{zone['id']}</Id><Name>{zone['name']}</Name>"
                f"<CallerReference>standin</CallerReference><Config><PrivateZone>"
                f"{'true' if zone['private'] else 'false'}</PrivateZone></Config>"
                f"<ResourceRecordSetCount>{2 + len(zone['sets'])}</ResourceRecordSetCount>"
                f"</HostedZone>")

    def by_name(self, query):
        try:
            maxitems = int(query.get("maxitems", "100"))
        except ValueError:
            return self.refuse(400, "InvalidInput", "maxitems must be a number")
        if not 1 <= maxitems <= 100:
            return self.refuse(400, "InvalidInput", "maxitems must be between 1 and 100")
        start = query.get("dnsname", "").lower().rstrip(".") + "."
        start_id = query.get("hostedzoneid", "")
        ordered = sorted(ZONES.values(), key=lambda z: (z["name"], z["id"]))
        listed = [z for z in ordered if (z["name"], z["id"]) >= (start, start_id)]
        page, rest = listed[:maxitems], listed[maxitems:]
        more = (f"<IsTruncated>true</IsTruncated><NextDNSName>{rest[0]['name']}</NextDNSName>"
                f"<NextHostedZoneId>{rest[0]['id']}</NextHostedZoneId>") if rest else \
            "<IsTruncated>false</IsTruncated>"
        return self.answer(200, f'<?xml version="1.0"?>\n<ListHostedZonesByNameResponse '
                           f'xmlns="{NS}"><HostedZones>'
                           + "".join(self.zone_xml(z) for z in page) +
                           f"</HostedZones><DNSName>{esc(start)}</DNSName>{more}"
                           f"<MaxItems>{maxitems}</MaxItems></ListHostedZonesByNameResponse>")

    def list_sets(self, zone, query):
        name = query.get("name", zone["name"]).lower().rstrip(".") + "."
        kind = query.get("type", "")
        keys = sorted(k for k in zone["sets"] if (k[0], k[1]) >= (name, kind))
        keys = keys[: int(query.get("maxitems", "100"))]
        sets = ""
        for key in keys:
            s = zone["sets"][key]
            values = "".join(f"<ResourceRecord><Value>{esc(v)}</Value></ResourceRecord>"
                             for v in s["values"])
            sets += (f"<ResourceRecordSet><Name>{key[0]}</Name><Type>{key[1]}</Type>"
                     f"<TTL>{s['ttl']}</TTL><ResourceRecords>{values}</ResourceRecords>"
                     f"</ResourceRecordSet>")
        return self.answer(200, f'<?xml version="1.0"?>\n<ListResourceRecordSetsResponse '
                           f'xmlns="{NS}"><ResourceRecordSets>{sets}</ResourceRecordSets>'
                           f"<IsTruncated>false</IsTruncated><MaxItems>1</MaxItems>"
                           f"</ListResourceRecordSetsResponse>")

    def change(self, zone, body):
        if not self.headers.get("Content-Type", "").startswith(("text/xml", "application/xml")):
            return self.refuse(400, "InvalidInput", "Content-Type must be text/xml")
        try:
            root = ET.fromstring(body)
        except ET.ParseError:
            return self.refuse(400, "InvalidInput", "Could not parse the request body as XML")
        q = "{" + NS + "}"
        if root.tag != q + "ChangeResourceRecordSetsRequest":
            return self.refuse(400, "InvalidInput", "Expected ChangeResourceRecordSetsRequest")
        changes = root.findall(f"{q}ChangeBatch/{q}Changes/{q}Change")
        if not changes:
            return self.refuse(400, "InvalidChangeBatch", "No changes in the batch")
        staged = dict(zone["sets"])
        for c in changes:
            action = c.findtext(q + "Action")
            rrset = c.find(q + "ResourceRecordSet")
            if action not in ("CREATE", "DELETE", "UPSERT") or rrset is None:
                return self.refuse(400, "InvalidInput", "Invalid action or record set")
            name = (rrset.findtext(q + "Name") or "").lower().rstrip(".") + "."
            kind = rrset.findtext(q + "Type")
            ttl_text = rrset.findtext(q + "TTL") or ""
            values = [v.text or "" for v in rrset.findall(f"{q}ResourceRecords/{q}ResourceRecord/"
                                                          f"{q}Value")]
            if kind != "TXT":
                return self.refuse(400, "InvalidChangeBatch", "Only TXT in this stand-in")
            if name != zone["name"] and not name.endswith("." + zone["name"]):
                return self.refuse(400, "InvalidChangeBatch",
                                   f"RRSet with DNS name {name} is not permitted in zone "
                                   f"{zone['name']}")
            if not ttl_text.isdigit() or not 0 <= int(ttl_text) <= 2147483647:
                return self.refuse(400, "InvalidInput", "TTL must be a number")
            for v in values:
                if len(v) < 2 or not v.startswith('"') or not v.endswith('"'):
                    return self.refuse(400, "InvalidChangeBatch",
                                       "[Invalid Resource Record: 'FATAL problem: "
                                       "InvalidCharacterString (Value should be enclosed in "
                                       f"quotation marks) encountered with '{v}'']")
            key = (name, kind)
            current = staged.get(key)
            if action == "DELETE":
                if current is None or current["values"] != values or current["ttl"] != int(ttl_text):
                    return self.refuse(400, "InvalidChangeBatch",
                                       f"[Tried to delete resource record set [name='{name}', "
                                       f"type='{kind}'] but the values provided do not match the "
                                       "current values]")
                del staged[key]
                continue
            if not values:
                return self.refuse(400, "InvalidInput", "ResourceRecords must not be empty")
            if action == "CREATE" and current is not None:
                return self.refuse(400, "InvalidChangeBatch",
                                   f"[Tried to create resource record set [name='{name}', "
                                   f"type='{kind}'] but it already exists]")
            staged[key] = {"ttl": int(ttl_text), "values": values}
        zone["sets"] = staged
        change_id = "C" + uuid.uuid4().hex[:12].upper()
        CHANGES[change_id] = 0
        return self.answer(200, f'<?xml version="1.0"?>\n<ChangeResourceRecordSetsResponse '
                           f'xmlns="{NS}"><ChangeInfo><Id>/change/{change_id}</Id>'
                           f"<Status>PENDING</Status><SubmittedAt>2026-01-01T00:00:00.000Z"
                           f"</SubmittedAt></ChangeInfo></ChangeResourceRecordSetsResponse>")

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Api)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
