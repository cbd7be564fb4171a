#!/usr/bin/env python3
"""TLS client checks for tests/e2e/tls_listener.sh, against the packaged server on loopback.

  tls_client.py pipeline PORT CAFILE PATH COUNT   COUNT pipelined GETs of PATH on one
      connection, read only after a pause (the server's answers back up into its write queue),
      then every answer read in order: prints the statuses and body lengths, one per line.
  tls_client.py versions PORT CAFILE              which protocol versions and TLS 1.2 cipher
      classes a handshake succeeds with: prints "<name> ok|refused", one per line.
  tls_client.py silent PORT SEND                  connects over TCP, sends SEND (hex), then
      waits (at most 10 s) for the server to close: prints the seconds it took.
"""
import socket
import ssl
import sys
import time
import warnings

warnings.simplefilter("ignore", DeprecationWarning)  # asking for TLS 1.0/1.1 on purpose


def tls_connect(port, cafile, context=None):
    if context is None:
        context = ssl.create_default_context(cafile=cafile)
    raw = socket.create_connection(("127.0.0.1", port), timeout=20)
    return context.wrap_socket(raw, server_hostname="localhost")


def read_answer(stream):
    """One HTTP/1.1 answer with Content-Length from a buffered reader: (status, body)."""
    status_line = stream.readline()
    if not status_line:
        return None
    status = int(status_line.split()[1])
    length = 0
    while True:
        line = stream.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value.strip())
    body = stream.read(length)
    return status, body


def pipeline(port, cafile, path, count):
    conn = tls_connect(port, cafile)
    requests = b"".join(
        b"GET " + path.encode() + b" HTTP/1.1\r\nHost: localhost\r\n" +
        (b"Connection: close\r\n" if i == count - 1 else b"") + b"\r\n" for i in range(count))
    conn.sendall(requests)
    time.sleep(1.0)  # not reading: the answers fill the socket and wait in the server
    stream = conn.makefile("rb")
    for _ in range(count):
        answer = read_answer(stream)
        if answer is None:
            print("closed early")
            return
        print(answer[0], len(answer[1]))
    conn.close()


def versions(port, cafile):
    tries = [
        ("tls1.3", ssl.TLSVersion.TLSv1_3, None),
        ("tls1.2-gcm", ssl.TLSVersion.TLSv1_2, "ECDHE-ECDSA-AES128-GCM-SHA256"),
        ("tls1.2-cbc", ssl.TLSVersion.TLSv1_2, "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES128-SHA256"),
        ("tls1.2-rsa-kx", ssl.TLSVersion.TLSv1_2, "AES128-GCM-SHA256:AES256-GCM-SHA384"),
        ("tls1.1", ssl.TLSVersion.TLSv1_1, "ALL:@SECLEVEL=0"),
        ("tls1.0", ssl.TLSVersion.TLSv1, "ALL:@SECLEVEL=0"),
    ]
    for name, version, ciphers in tries:
        context = ssl.create_default_context(cafile=cafile)
        try:
            context.minimum_version = version
            context.maximum_version = version
            if ciphers:
                context.set_ciphers(ciphers)
        except (ValueError, ssl.SSLError):
            print(name, "refused")  # this client cannot even offer it
            continue
        try:
            conn = tls_connect(port, cafile, context)
            conn.close()
            print(name, "ok")
        except (ssl.SSLError, OSError):
            print(name, "refused")


def silent(port, send):
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    started = time.monotonic()
    if send:
        conn.sendall(bytes.fromhex(send))
    try:
        while conn.recv(4096):
            pass
    except (socket.timeout, ConnectionResetError):
        pass
    print(round(time.monotonic() - started, 1))


def main():
    what = sys.argv[1]
    port = int(sys.argv[2])
    if what == "pipeline":
        pipeline(port, sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif what == "versions":
        versions(port, sys.argv[3])
    elif what == "silent":
        silent(port, sys.argv[3] if len(sys.argv) > 3 else "")


if __name__ == "__main__":
    main()
