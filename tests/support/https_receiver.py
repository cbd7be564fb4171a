#!/usr/bin/python3
"""A webhook receiver for tests: HTTPS on 127.0.0.1:PORT with CERT and KEY; every POST is
appended to LOG as one JSON line {"method", "path", "headers", "body"}; the answer is read from
STATUS_FILE at each request: its first line is the status (200 when absent), optionally followed
by how many answers get it ("503 2": two, then 200), the rest, when there is any, the body (else
"ok\n"). Stops when its parent test kills it."""
import json
import ssl
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

port, cert, key, log, status_file = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = min(int(self.headers.get("Content-Length", "0")), 1 << 20)
        body = self.rfile.read(length).decode("utf-8", "replace")
        with open(log, "a") as out:
            out.write(json.dumps({"method": self.command, "path": self.path,
                                  "headers": dict(self.headers), "body": body}) + "\n")
        status, answer = 200, b"ok\n"
        try:
            first, _, rest = open(status_file, "rb").read().partition(b"\n")
            words = first.split()
            status = int(words[0])
            if len(words) > 1:  # a number of answers: count this one down, then 200
                left = int(words[1]) - 1
                with open(status_file, "wb") as out:
                    out.write(b"%d %d\n" % (status, left) + rest if left > 0 else b"200\n")
            if rest:
                answer = rest
        except (OSError, ValueError, IndexError):
            pass
        self.send_response(status)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", port), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print("listening", flush=True)
server.serve_forever()
