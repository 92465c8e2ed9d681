"""Gatehouse behind a real nginx using Config/nginx.conf (negative tests, group J rows without sign-in).

Run:  python3 -m pytest -q Tests/interop/test_nginx_proxy.py  (part of scripts/test)
Needs nginx (Debian nginx-light), openssl, curl; binaries as located by harness.locate_binaries.
"""
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from harness import locate_binaries

ROOT = Path(__file__).resolve().parents[2]
BIN_DIR = locate_binaries().resolve()
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"



def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


class Stack:
    """nginx (TLS, the sample config) in front of idp on a unix socket with trusted_proxies = unix."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="gatehouse-nginx-"))
        os.chmod(self.dir, 0o755)
        self.https = free_port()
        self.http = free_port()
        self.issuer = f"https://127.0.0.1:{self.https}/"
        self.socket_path = self.dir / "idp.sock"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", str(self.dir / "key.pem"), "-out", str(self.dir / "cert.pem")],
                       check=True, capture_output=True)
        self.idp_log = open(self.dir / "idp.stderr", "wb")
        env = {"PATH": "/usr/bin:/bin", "IDP_LISTEN": f"unix:{self.socket_path}", "IDP_ISSUER": self.issuer,
               "IDP_TRUSTED_PROXIES": "unix"}
        self.idp = subprocess.Popen([str(BIN_DIR / "idp")], cwd=self.dir, env=env,
                                    stdout=subprocess.DEVNULL, stderr=self.idp_log)
        assert wait_for(self.socket_path.exists), "idp did not create its socket"
        os.chmod(self.socket_path, 0o666)  # nginx workers run as another user when the test runs as root.
        self.write_nginx_config()
        self.nginx = subprocess.Popen([NGINX, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf"),
                                       "-e", str(self.dir / "nginx-error.log")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not wait_for(lambda: self._port_open(self.https) and self._port_open(self.http)):
            self.close()
            raise RuntimeError("nginx did not start: " + (self.dir / "nginx-error.log").read_text(errors="replace"))

    def write_nginx_config(self):
        sample = (ROOT / "Config" / "nginx.conf").read_text()
        site = sample.replace("unix:/run/gatehouse/idp.sock", f"unix:{self.socket_path}")
        site = site.replace("/etc/ssl/certs/id.example.com.crt", str(self.dir / "cert.pem"))
        site = site.replace("/etc/ssl/private/id.example.com.key", str(self.dir / "key.pem"))
        site = re.sub(r"^\s*listen \[::\]:\d+.*$", "", site, flags=re.M)
        site = site.replace("listen 443 ssl", f"listen 127.0.0.1:{self.https} ssl")
        site = site.replace("listen 80", f"listen 127.0.0.1:{self.http}")
        site = site.replace("server_name id.example.com;", "server_name 127.0.0.1;")
        site = site.replace("return 301 https://id.example.com$request_uri;", f"return 301 https://127.0.0.1:{self.https}$request_uri;")
        # J03: a location with its own proxy_set_header inherits none of the server's X-Forwarded-* lines.
        j03 = """
    location /j03/ {
        proxy_set_header X-J03 "1";
        proxy_pass http://gatehouse/;
    }
"""
        site = site.replace("    # Metrics are on Gatehouse's admin_listen", j03 + "    # Metrics are on Gatehouse's admin_listen")
        user = "user root;\n" if os.geteuid() == 0 else ""
        main = f"""{user}daemon off;
master_process on;
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/nginx-error.log info;
events {{ worker_connections 128; }}
http {{
    access_log {self.dir}/nginx-access.log;
    client_body_temp_path {self.dir}/client_body;
    proxy_temp_path {self.dir}/proxy;
    fastcgi_temp_path {self.dir}/fastcgi;
    uwsgi_temp_path {self.dir}/uwsgi;
    scgi_temp_path {self.dir}/scgi;
    include {self.dir}/gatehouse.conf;
}}
"""
        (self.dir / "gatehouse.conf").write_text(site)
        (self.dir / "nginx.conf").write_text(main)

    @staticmethod
    def _port_open(port):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    def curl(self, path, *args, https=True):
        base = f"https://127.0.0.1:{self.https}" if https else f"http://127.0.0.1:{self.http}"
        result = subprocess.run(["curl", "-sS", "-k", "-i", "--max-time", "15", *args, base + path],
                                capture_output=True, check=True)
        head, _, body = result.stdout.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        return status, headers, body

    def raw_tls(self, request: bytes) -> bytes:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        with socket.create_connection(("127.0.0.1", self.https), timeout=10) as plain:
            with context.wrap_socket(plain, server_hostname="127.0.0.1") as tls:
                tls.sendall(request)
                data = b""
                while True:
                    try:
                        chunk = tls.recv(65536)
                    except (ssl.SSLError, OSError):
                        break
                    if not chunk:
                        break
                    data += chunk
                return data

    def events(self, name=None):
        self.idp_log.flush()
        out = []
        for line in (self.dir / "idp.stderr").read_text(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if name is None or event.get("event") == name:
                out.append(event)
        return out

    def close(self):
        if getattr(self, "nginx", None) and self.nginx.poll() is None:
            self.nginx.terminate()
            self.nginx.wait(10)
        if self.idp.poll() is None:
            self.idp.terminate()
            self.idp.wait(15)
        self.idp_log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def stack():
    s = Stack()
    yield s
    code = s.idp.poll()
    s.close()
    assert code is None, "idp exited during the tests"


def test_discovery_through_nginx_shows_the_https_issuer_whatever_the_host(stack):
    """J04: forged X-Forwarded-* from the client never change what is emitted; other Hosts never reach us."""
    status, headers, body = stack.curl("/.well-known/openid-configuration")
    assert status == 200
    metadata = json.loads(body)
    assert metadata["issuer"] == stack.issuer
    assert metadata["jwks_uri"].startswith(stack.issuer)
    assert headers.get("strict-transport-security") == "max-age=63072000"
    status, _, forged = stack.curl("/.well-known/openid-configuration", "-H", "X-Forwarded-Host: evil.example",
                                   "-H", "X-Forwarded-Proto: http", "-H", "Forwarded: host=evil.example;proto=http")
    assert status == 200
    assert forged == body
    assert b"http://" not in body
    before = len(stack.events("access"))
    assert stack.curl("/.well-known/openid-configuration", "-H", "Host: evil.example")[0] == 421
    time.sleep(0.2)
    assert len(stack.events("access")) == before


def test_a_location_without_forwarded_headers_fails_safe(stack):
    """J03: the location drops every inherited proxy_set_header; the issuer still comes from config."""
    status, _, body = stack.curl("/j03/.well-known/openid-configuration")
    assert status == 200
    assert json.loads(body)["issuer"] == stack.issuer


def test_plain_http_is_redirected_to_https(stack):
    """J07."""
    status, headers, _ = stack.curl("/.well-known/openid-configuration?x=1", https=False)
    assert status == 301
    assert headers["location"] == f"https://127.0.0.1:{stack.https}/.well-known/openid-configuration?x=1"


def test_oversized_input_is_answered_by_nginx(stack):
    """J05: nginx's limits are below Gatehouse's, so nginx answers and nothing reaches the app."""
    before = len(stack.events("access"))
    assert stack.curl("/healthz", "-H", "X-Big: " + "a" * 6000)[0] == 400
    assert stack.curl("/healthz?" + "q" * 9000)[0] == 414
    body = stack.dir / "big.bin"
    body.write_bytes(b"x" * (2 * 1024 * 1024))
    assert stack.curl("/oauth/token", "--data-binary", f"@{body}", "-H", "Content-Type: application/x-www-form-urlencoded")[0] == 413
    many = []
    for index in range(4):
        many += ["-H", f"X-Fill-{index}: " + "b" * 3500]
    assert stack.curl("/healthz", *many)[0] == 400
    time.sleep(0.3)
    assert len(stack.events("access")) == before


def test_request_smuggling_shape_is_refused(stack):
    """J06 sample: Content-Length plus Transfer-Encoding through nginx gets 400, and the pool stays healthy."""
    attack = (b"POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
              b"0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    answer = stack.raw_tls(attack)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b"/smuggled" not in b"".join(json.dumps(e).encode() for e in stack.events("access"))
    for _ in range(5):
        assert stack.curl("/healthz")[0] == 200


def test_client_ip_is_nginx_remote_addr_even_with_forged_xff(stack):
    """J02/G06: the client's own X-Forwarded-For is left of nginx's hop and ignored; X-Request-Id joins the logs."""
    ids = []
    for forged in ["1.2.3.4", "10.0.0.1, 9.9.9.9", "unix"]:
        status, headers, _ = stack.curl("/healthz", "-H", f"X-Forwarded-For: {forged}", "-H", "X-Request-Id: forged-by-client")
        assert status == 200
        assert headers["x-request-id"] != "forged-by-client"
        assert re.fullmatch(r"[0-9a-f]{32}", headers["x-request-id"])
        ids.append(headers["x-request-id"])
    assert wait_for(lambda: all(any(e.get("request_id") == i for e in stack.events("access")) for i in ids))
    for request_id in ids:
        line = next(e for e in stack.events("access") if e.get("request_id") == request_id)
        assert line["peer"] == "127.0.0.1"
        assert line["proxy"] == "unix"
    assert stack.events("proxy_mismatch") == []
    assert stack.events("forwarded_headers_from_untrusted_peer") == []
