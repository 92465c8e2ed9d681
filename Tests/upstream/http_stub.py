#!/usr/bin/env python3
"""A small HTTP(S) server on loopback that answers the way upstream providers may, for the
CurlUpstreamFetcher tests (Tests/ServerTests/CurlUpstreamFetcherTests.swift). Prints
"listening PORT" once it accepts connections."""
import argparse
import json
import signal
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KEYS = b'{"keys":[]}'


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/jwks":
            self.answer(200, KEYS, [("Content-Type", "application/json"), ("Cache-Control", "public, max-age=120")])
        elif self.path == "/no-cache-header":
            self.answer(200, KEYS)
        elif self.path.startswith("/status/"):
            self.answer(int(self.path[len("/status/"):]), b'{"error":"x"}')
        elif self.path == "/redirect":
            self.answer(302, b"", [("Location", "/jwks")])
        elif self.path == "/slow":
            time.sleep(5)
            self.answer(200, KEYS)
        elif self.path == "/big":
            self.answer(200, b"x" * (2 << 20))
        elif self.path == "/headers":
            self.answer(200, json.dumps({k.lower(): v for k, v in self.headers.items()}).encode())
        else:
            self.answer(404, b"")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode()
        echo = {"path": self.path, "body": body, "content_type": self.headers.get("Content-Type"),
                "authorization": self.headers.get("Authorization")}
        self.answer(200, json.dumps(echo).encode(), [("Content-Type", "application/json")])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    options = parser.parse_args()
    # A test process may block SIGTERM (the daemon's shutdown handling); the mask is inherited.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    server.daemon_threads = True
    if options.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(options.tls_cert, options.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
