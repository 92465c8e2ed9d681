#!/usr/bin/env python3
"""A real SMTP server for Gatehouse's mail tests (aiosmtpd), on loopback.

Every accepted message is written to DIR as NNNN.eml (the DATA bytes) beside NNNN.json
(envelope sender, recipients, whether the session was under TLS, the AUTH login). Prints
"listening PORT" on stdout once it accepts connections, then runs until SIGTERM.

Options: --port N (0 picks a free one), --host H, --tls-cert/--tls-key (offer STARTTLS),
--implicit-tls (TLS from the first byte, with the same cert), --require-starttls,
--auth USER:PASSWORD (AUTH required), --reject ADDRESS (550 for that recipient).
"""
import argparse
import asyncio
import json
import os
import signal
import socket
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--implicit-tls", action="store_true")
    parser.add_argument("--require-starttls", action="store_true")
    parser.add_argument("--auth")
    parser.add_argument("--reject", action="append", default=[])
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)

    port = args.port
    if port == 0:
        with socket.socket() as probe:
            probe.bind((args.host, 0))
            port = probe.getsockname()[1]

    counter = {"n": 0}
    lock = threading.Lock()

    class Handler:
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if address in args.reject:
                return "550 5.1.1 mailbox unavailable"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            with lock:
                counter["n"] += 1
                base = os.path.join(args.dir, "%04d" % counter["n"])
            meta = {"from": envelope.mail_from, "to": envelope.rcpt_tos,
                    "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None, "login": session.auth_data.decode() if isinstance(session.auth_data, bytes) else None}
            with open(base + ".tmp", "wb") as handle:
                handle.write(envelope.original_content or envelope.content)
            with open(base + ".json", "w") as handle:
                json.dump(meta, handle)
            os.rename(base + ".tmp", base + ".eml")
            return "250 Message accepted"

    def authenticator(server, session, envelope, mechanism, auth_data):
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        user, password = args.auth.split(":", 1)
        ok = auth_data.login.decode() == user and auth_data.password.decode() == password
        return AuthResult(success=ok, handled=False, auth_data=auth_data.login if ok else None)

    context = None
    if args.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.tls_cert, args.tls_key)
    kwargs = {}
    if args.auth:
        kwargs.update(authenticator=authenticator, auth_required=True, auth_require_tls=False)
    if args.implicit_tls:
        controller = Controller(Handler(), hostname=args.host, port=port, ssl_context=context, **kwargs)
    else:
        controller = Controller(Handler(), hostname=args.host, port=port, tls_context=context,
                                require_starttls=args.require_starttls, **kwargs)
    controller.start()
    print("listening %d" % port, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(0.1):  # A timed wait, so the signal handler gets to run.
        pass
    controller.stop()


if __name__ == "__main__":
    main()
