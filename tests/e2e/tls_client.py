#!/usr/bin/env python3
"""TLS client checks for tests/e2e/tls_listener.sh, against the packaged server on loopback.

  tls_client.py pipeline PORT CAFILE PATH COUNT   COUNT pipelined GETs of PATH on one
      connection, read only after a pause (the server's answers back up into its write queue),
      then every answer read in order: prints the statuses and body lengths, one per line.
  tls_client.py versions PORT CAFILE              which protocol versions and TLS 1.2 cipher
      classes a handshake succeeds with: prints "<name> ok|refused", one per line.
  tls_client.py silent PORT SEND                  connects over TCP, sends SEND (hex), then
      waits (at most 10 s) for the server to close: prints the seconds it took.
  tls_client.py halfclose PORT CAFILE PAUSE       TLS through memory buffers over a TCP socket:
      a login (run on the server's request pool), /healthz and /readyz sent at once, then after
      PAUSE seconds the socket's sending side shut (TCP half-close, no close_notify); prints the
      statuses that come back and "close_notify" if the server ended with one.
  tls_client.py closenotify PORT CAFILE           a request and close_notify right after it, the
      socket left open: prints the status, then "close_notify" and "eof" as they come (10 s).
"""
import io
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


def memory_tls(port, cafile):
    """A handshake over a raw socket through memory BIOs: (socket, SSLObject, in, out)."""
    context = ssl.create_default_context(cafile=cafile)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    for _ in range(50):
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            raw.sendall(outgoing.read())
            data = raw.recv(65536)
            if not data:
                raise OSError("closed during the handshake")
            incoming.write(data)
    raw.sendall(outgoing.read())
    return raw, tls, incoming, outgoing


def read_plain(raw, tls, incoming):
    """Everything the server sends until it closes (10 s at most): (plaintext, close_notify)."""
    plain = b""
    closed = False
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            data = raw.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not data:
            break
        incoming.write(data)
        while not closed:
            try:
                chunk = tls.read(65536)
            except ssl.SSLWantReadError:
                break
            except ssl.SSLZeroReturnError:
                chunk = b""
            if not chunk:  # close_notify read
                closed = True
            plain += chunk
    return plain, closed


def statuses(plain):
    """The statuses of the answers in `plain`, each read to the end of its body."""
    stream = io.BytesIO(plain)
    out = []
    while True:
        answer = read_answer(stream)
        if answer is None:
            return out
        out.append(str(answer[0]))


def halfclose(port, cafile, pause):
    raw, tls, incoming, outgoing = memory_tls(port, cafile)
    body = b'{"username":"nobody","password":"not the password"}'
    tls.write(b"POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\n"
              b"Content-Type: application/json\r\nContent-Length: " + str(len(body)).encode() +
              b"\r\n\r\n" + body +
              b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
              b"GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    raw.sendall(outgoing.read())
    time.sleep(pause)  # 0: the server reads the end with the requests; 0.1: the login is running
    raw.shutdown(socket.SHUT_WR)
    plain, closed = read_plain(raw, tls, incoming)
    print(" ".join(statuses(plain) + (["close_notify"] if closed else [])))


def closenotify(port, cafile):
    raw, tls, incoming, outgoing = memory_tls(port, cafile)
    tls.write(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    try:
        tls.unwrap()  # close_notify, without waiting for the server's
    except ssl.SSLWantReadError:
        pass
    raw.sendall(outgoing.read())
    started = time.monotonic()
    plain, closed = read_plain(raw, tls, incoming)
    print(" ".join(statuses(plain) + (["close_notify"] if closed else [])),
          round(time.monotonic() - started, 1))


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
            print(name, "client-cannot")  # this client cannot offer it: proves nothing
            continue
        try:
            conn = tls_connect(port, cafile, context)
            conn.close()
            print(name, "ok")
        except ssl.SSLError:
            print(name, "refused")  # the handshake failed
        except OSError as e:
            print(name, "error", e)


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
    elif what == "halfclose":
        halfclose(port, sys.argv[3], float(sys.argv[4]))
    elif what == "closenotify":
        closenotify(port, sys.argv[3])
    elif what == "silent":
        silent(port, sys.argv[3] if len(sys.argv) > 3 else "")


if __name__ == "__main__":
    main()
