#!/usr/bin/python3
"""An SMTP server for tests (aiosmtpd, Debian's python3-aiosmtpd) on 127.0.0.1:PORT.

usage: smtp_server.py PORT MODE CERT KEY USER PASSWORD REFUSED LOG
  MODE     starttls (STARTTLS offered and required before AUTH and MAIL), tls (implicit TLS)
           or none (plain text, AUTH allowed without TLS)
  USER / PASSWORD   the one login AUTH PLAIN / LOGIN accepts
  REFUSED  a recipient answered "550 5.1.1 ... Recipient address rejected"
  LOG      every accepted message is appended as one JSON line: mail_from, rcpt_tos, login, tls,
           raw (the DATA as received), headers (decoded), parts (content types), text, html
Prints "listening" once it accepts connections; stops on SIGTERM or SIGINT."""
import email
import email.policy
import json
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

port, mode, cert, key, user, password, refused, log = sys.argv[1:9]
lock = threading.Lock()


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = (isinstance(auth_data, LoginPassword) and auth_data.login == user.encode()
          and auth_data.password == password.encode())
    if ok:
        return AuthResult(success=True, auth_data=auth_data)
    return AuthResult(success=False, handled=False)  # smtp_AUTH answers 535 5.7.8


class Recorder:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() == refused.lower():
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.content if isinstance(envelope.content, bytes) else envelope.content.encode()
        message = email.message_from_bytes(raw, policy=email.policy.default)
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "login": session.auth_data.login.decode() if session.authenticated else "",
            "tls": server.transport.get_extra_info("sslcontext") is not None,
            "raw": raw.decode("utf-8", "replace"),
            "headers": {name: str(value) for name, value in message.items()},
            "parts": [part.get_content_type() for part in message.walk()],
            "text": "",
            "html": "",
        }
        plain = message.get_body(preferencelist=("plain",))
        html = message.get_body(preferencelist=("html",))
        if plain is not None:
            record["text"] = plain.get_content()
        if html is not None:
            record["html"] = html.get_content()
        with lock, open(log, "a") as out:
            out.write(json.dumps(record) + "\n")
        return "250 2.0.0 Message accepted for delivery"


context = None
if mode in ("starttls", "tls"):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

options = {"authenticator": authenticator, "auth_require_tls": mode == "starttls",
           "server_hostname": "smtp.test"}
if mode == "starttls":
    controller = Controller(Recorder(), hostname="127.0.0.1", port=int(port), tls_context=context,
                            require_starttls=True, **options)
elif mode == "tls":
    controller = Controller(Recorder(), hostname="127.0.0.1", port=int(port), ssl_context=context,
                            **options)
else:
    controller = Controller(Recorder(), hostname="127.0.0.1", port=int(port), **options)

# The server thread inherits the blocked signals; the main thread waits for them.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
controller.start()
print("listening", flush=True)
signal.sigwait({signal.SIGTERM, signal.SIGINT})
os._exit(0)  # at once: a session left open by a test must not hold the exit up
