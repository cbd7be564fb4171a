#!/usr/bin/python3
"""A webhook receiver for tests: HTTPS on 127.0.0.1:PORT with CERT and KEY; every POST is
appended to LOG as one JSON line {"path", "headers", "body"}; the answer's status is read from
STATUS_FILE at each request (200 when absent). Stops when its parent test kills it."""
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
            out.write(json.dumps({"path": self.path, "headers": dict(self.headers), "body": body}) + "\n")
        try:
            status = int(open(status_file).read().strip())
        except (OSError, ValueError):
            status = 200
        self.send_response(status)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"ok\n")

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", port), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print("listening", flush=True)
server.serve_forever()
