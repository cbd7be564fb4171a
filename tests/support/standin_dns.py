"""The DNS side of the provider stand-ins (tests only, 127.0.0.1): a UDP responder that answers
TXT queries for names in the stand-in's zones, authoritatively, from the records the stand-in's
API holds. A record becomes visible only after `visible_after` queries for its name (the
provider's name servers catching up), and goes at once when deleted; a name outside the zones is
REFUSED.

`records()` gives the stand-in's TXT records, each a dict with at least "fqdn" (the full name,
lower case, no trailing dot), "content" (the TXT content) and "seen" (queries counted here);
`zones()` the zone names (no trailing dot).
"""
import socket
import struct
import threading


def strings_of(content):
    """The character strings of a TXT content: quoted strings as written, or the whole text."""
    if not content.startswith('"'):
        return [content.encode()]
    out, current, inside, escaped = [], "", False, False
    for ch in content:
        if escaped:
            current += ch
            escaped = False
        elif ch == "\\" and inside:
            escaped = True
        elif ch == '"':
            if inside:
                out.append(current.encode())
                current = ""
            inside = not inside
        elif inside:
            current += ch
    return out


def answer(query, zones, records, lock, visible_after):
    if len(query) < 12:
        return None
    qid, flags, qdcount = struct.unpack("!HHH", query[:6])
    if qdcount != 1:
        return None
    at, labels = 12, []
    while at < len(query) and query[at] != 0:
        length = query[at]
        labels.append(query[at + 1: at + 1 + length].decode("ascii", "replace").lower())
        at += 1 + length
    question_end = at + 5
    if question_end > len(query):
        return None
    qtype, _ = struct.unpack("!HH", query[at + 1: question_end])
    name = ".".join(labels)
    in_zone = any(name == z or name.endswith("." + z) for z in zones())
    found = []
    with lock:
        if qtype == 16:
            for r in records():
                if r["fqdn"] == name:
                    r["seen"] += 1
                    if r["seen"] > visible_after:
                        found.append(r["content"])
    rcode = 0 if in_zone else 5  # REFUSED outside its zones
    out = struct.pack("!HHHHHH", qid, 0x8400 | (flags & 0x0100) | rcode, 1, len(found), 0, 0)
    out += query[12:question_end]
    for content in found:
        rdata = b"".join(bytes([len(s)]) + s for s in strings_of(content))
        out += struct.pack("!HHHIH", 0xC00C, 16, 1, 60, len(rdata)) + rdata
    return out


def serve(port, zones, records, lock, visible_after):
    """Binds 127.0.0.1:`port` (UDP) and answers in a daemon thread."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", port))

    def loop():
        while True:
            data, peer = sock.recvfrom(4096)
            try:
                reply = answer(data, zones, records, lock, visible_after)
            except Exception:  # a malformed query gets no answer
                reply = None
            if reply:
                sock.sendto(reply, peer)

    threading.Thread(target=loop, daemon=True).start()
