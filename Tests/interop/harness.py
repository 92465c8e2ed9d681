"""Process harness for the interop suite: the real `idp` and `idp-admin` binaries and a real nginx.

Everything a test starts lives in its own temporary directory and on its own ports, so tests
can run in parallel (several pytest processes, or pytest-xdist) on one machine.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts"

START_TIMEOUT = 30.0
STOP_TIMEOUT = 20.0


class HarnessError(RuntimeError):
    pass


# --- binaries -----------------------------------------------------------------------------

def locate_binaries() -> Path:
    """The directory holding `idp` and `idp-admin`.

    `GATEHOUSE_BIN_DIR` wins; otherwise `swift build --show-bin-path` from the repository root.
    The binaries are built (debug) only when they are missing: the documented test command
    builds before pytest runs.
    """
    override = os.environ.get("GATEHOUSE_BIN_DIR")
    if override:
        directory = Path(override)
    else:
        directory = REPO_ROOT / ".build" / "debug"
        try:
            shown = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO_ROOT, capture_output=True,
                                   text=True, timeout=300)
            if shown.returncode == 0 and shown.stdout.strip():
                directory = Path(shown.stdout.strip().splitlines()[-1])
        except (OSError, subprocess.TimeoutExpired):
            pass
    if not ((directory / "idp").exists() and (directory / "idp-admin").exists()):
        if override:
            raise HarnessError(f"GATEHOUSE_BIN_DIR={override} has no idp and idp-admin")
        built = subprocess.run(["swift", "build"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=3600)
        if built.returncode != 0:
            raise HarnessError(f"swift build failed:\n{built.stdout[-4000:]}\n{built.stderr[-4000:]}")
    for name in ("idp", "idp-admin"):
        if not os.access(directory / name, os.X_OK):
            raise HarnessError(f"{directory / name} is missing or not executable")
    return directory


# --- ports and environment ------------------------------------------------------------------

def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (callers retry on a lost race)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_is_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def clean_environment(**extra: str) -> dict[str, str]:
    """The caller's environment without any inherited IDP_* setting, plus `extra`."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("IDP_")}
    environment.update(extra)
    return environment


def short_socket_dir() -> Path:
    """A short directory for unix sockets (sun_path holds 107 bytes; pytest's tmp paths can be longer)."""
    return Path(tempfile.mkdtemp(prefix="gh-", dir="/tmp"))


# --- idp ------------------------------------------------------------------------------------

@dataclass
class Idp:
    """One running `idp` daemon in its own working directory."""

    bin_dir: Path
    workdir: Path
    issuer: str
    listen: str
    extra_env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen | None = None
    banner: str = ""
    exit_status: int | None = None

    @property
    def database(self) -> Path:
        return self.workdir / "idp.sqlite3"

    @property
    def stderr_path(self) -> Path:
        return self.workdir / "idp.stderr"

    @property
    def stdout_path(self) -> Path:
        return self.workdir / "idp.stdout"

    def environment(self) -> dict[str, str]:
        return clean_environment(IDP_LISTEN=self.listen, IDP_ISSUER=self.issuer, IDP_DATABASE=str(self.database),
                                 IDP_LOG_LEVEL="info", **self.extra_env)

    def start(self) -> "Idp":
        self.workdir.mkdir(parents=True, exist_ok=True)
        stdout = open(self.stdout_path, "wb")
        stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen([str(self.bin_dir / "idp")], cwd=self.workdir, env=self.environment(),
                                        stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
        stdout.close()
        stderr.close()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            text = self.stdout_path.read_text(errors="replace")
            if "listening on" in text:
                self.banner = text.strip().splitlines()[0]
                return self
            if self.process.poll() is not None:
                raise HarnessError(f"idp exited with status {self.process.returncode} before it listened:\n"
                                   f"{self.stderr_text()[-4000:]}")
            time.sleep(0.05)
        self.kill()
        raise HarnessError(f"idp did not print its banner within {START_TIMEOUT}s:\n{self.stderr_text()[-4000:]}")

    def stop(self) -> int | None:
        """SIGTERM, then wait; returns the exit status (None if it never started)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.kill()
                raise HarnessError(f"idp did not exit within {STOP_TIMEOUT}s of SIGTERM")
        self.exit_status = self.process.returncode
        return self.exit_status

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)

    def stderr_text(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def logs(self) -> list[dict]:
        """stderr parsed as JSON lines; a line that is not JSON fails loudly (the daemon promises JSON)."""
        entries = []
        for number, line in enumerate(self.stderr_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise AssertionError(f"idp stderr line {number} is not JSON ({error}): {line!r}") from None
        return entries

    def url(self, relative: str = "") -> str:
        return self.issuer + relative.lstrip("/")


def start_tcp_idp(bin_dir: Path, workdir: Path, attempts: int = 5, **extra_env: str) -> Idp:
    """An idp on 127.0.0.1:<free port> with the matching http issuer (retried if the port was taken)."""
    last: Exception | None = None
    for attempt in range(attempts):
        port = free_port()
        idp = Idp(bin_dir, workdir / f"idp-{attempt}" if attempt else workdir / "idp",
                  issuer=f"http://127.0.0.1:{port}/", listen=f"127.0.0.1:{port}", extra_env=dict(extra_env))
        try:
            return idp.start()
        except HarnessError as error:
            last = error
            idp.kill()
            if "in use" not in str(error).lower():
                raise
    raise HarnessError(f"could not start idp after {attempts} attempts: {last}")


def wait_http_ok(url: str, verify: str | bool = True, timeout: float = START_TIMEOUT) -> requests.Response:
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        try:
            response = requests.get(url, verify=verify, timeout=2)
            if response.status_code == 200:
                return response
            last = f"{response.status_code} {response.text[:200]}"
        except requests.RequestException as error:
            last = error
        time.sleep(0.05)
    raise HarnessError(f"{url} did not answer 200 within {timeout}s: {last}")


# --- idp-admin ------------------------------------------------------------------------------

@dataclass
class Admin:
    """Runs `idp-admin` against one daemon's database, with the daemon's environment."""

    bin_dir: Path
    idp: Idp

    def run(self, *args: str, input: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.bin_dir / "idp-admin"), *args], cwd=self.idp.workdir,
                              env=self.idp.environment(), input=input, capture_output=True, text=True,
                              timeout=timeout)

    def __call__(self, *args: str, input: str | None = None, timeout: float = 60):
        """Runs with `--json` appended, asserts exit 0, returns the parsed JSON."""
        result = self.run(*args, "--json", input=input, timeout=timeout)
        if result.returncode != 0:
            raise AssertionError(f"idp-admin {' '.join(args)} exited {result.returncode}:\n"
                                 f"stdout: {result.stdout}\nstderr: {result.stderr}")
        try:
            return json.loads(result.stdout)
        except json.JSONDecodeError:
            raise AssertionError(f"idp-admin {' '.join(args)} --json printed non-JSON: {result.stdout!r}") from None

    def create_app(self, name: str, type: str, callbacks: list[str] | None = None, *,
                   auth_method: str | None = None, id_token_alg: str | None = None,
                   grants: list[str] | None = None, logout_urls: list[str] | None = None,
                   web_origins: list[str] | None = None) -> dict:
        args = ["apps", "create", "--name", name, "--type", type]
        if callbacks:
            args += ["--callbacks", ",".join(callbacks)]
        if logout_urls:
            args += ["--logout-urls", ",".join(logout_urls)]
        if web_origins:
            args += ["--web-origins", ",".join(web_origins)]
        if auth_method:
            args += ["--auth-method", auth_method]
        if grants:
            args += ["--grants", ",".join(grants)]
        if id_token_alg:
            args += ["--id-token-alg", id_token_alg]
        app = self(*args)
        assert isinstance(app.get("client_id"), str) and app["client_id"], app
        return app

    def create_user(self, email: str, password: str, name: str | None = None, verified: bool = True) -> dict:
        args = ["users", "create", "--email", email]
        if name:
            args += ["--name", name]
        if verified:
            args.append("--email-verified")
        args.append("--password-stdin")
        user = self(*args, input=password + "\n")
        assert isinstance(user.get("user_id"), str) and user["user_id"], user
        assert user.get("email") == email, user
        if name:
            user.setdefault("name", name)
        return user


# --- nginx ----------------------------------------------------------------------------------

def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A throw-away self-signed certificate for 127.0.0.1 (cert, key)."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


NGINX_CONF = """\
{user}
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {dir}/access.log;
    client_body_temp_path {dir}/tmp/body;
    proxy_temp_path {dir}/tmp/proxy;
    fastcgi_temp_path {dir}/tmp/fastcgi;
    uwsgi_temp_path {dir}/tmp/uwsgi;
    scgi_temp_path {dir}/tmp/scgi;
    upstream gatehouse {{
        server unix:{socket};
        keepalive 8;
    }}
    server {{
        listen 127.0.0.1:{port} ssl;
        server_name 127.0.0.1;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        location / {{
            proxy_pass http://gatehouse;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_redirect off;
        }}
    }}
}}
"""


@dataclass
class Nginx:
    """A real nginx terminating TLS on 127.0.0.1:<port> and proxying to a unix socket."""

    directory: Path
    port: int
    upstream_socket: Path
    cert: Path
    key: Path
    process: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"https://127.0.0.1:{self.port}/"

    def write_config(self) -> Path:
        (self.directory / "tmp").mkdir(parents=True, exist_ok=True)
        config = self.directory / "nginx.conf"
        # As root, nginx would switch its worker to `nobody`, which cannot reach the daemon's socket.
        user = "user root;" if os.geteuid() == 0 else ""
        config.write_text(NGINX_CONF.format(user=user, dir=self.directory, socket=self.upstream_socket,
                                            port=self.port, cert=self.cert, key=self.key))
        return config

    def start(self) -> "Nginx":
        config = self.write_config()
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        log = open(self.directory / "nginx.stderr", "wb")
        self.process = subprocess.Popen([nginx, "-p", str(self.directory), "-c", str(config), "-e", "stderr"],
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise HarnessError(f"nginx exited with status {self.process.returncode}:\n{self.error_text()}")
            if port_is_open(self.port):
                return self
            time.sleep(0.05)
        self.stop()
        raise HarnessError(f"nginx did not listen within {START_TIMEOUT}s:\n{self.error_text()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def error_text(self) -> str:
        parts = []
        for name in ("nginx.stderr", "error.log"):
            path = self.directory / name
            if path.exists():
                parts.append(f"--- {name}\n" + path.read_text(errors="replace")[-4000:])
        return "\n".join(parts)


@dataclass
class Deployment:
    """What a test talks to: an issuer, how to trust it, the daemon and its admin tool."""

    idp: Idp
    admin: Admin
    verify: str | bool = True
    nginx: Nginx | None = None
    socket_dir: Path | None = None

    @property
    def issuer(self) -> str:
        return self.idp.issuer

    def url(self, relative: str = "") -> str:
        return self.idp.url(relative)

    def session(self) -> requests.Session:
        """A fresh cookie jar (one browser), trusting this deployment's certificate."""
        session = requests.Session()
        session.verify = self.verify
        # Otherwise REQUESTS_CA_BUNDLE/CURL_CA_BUNDLE (and proxy variables) override `verify` per request.
        session.trust_env = False
        return session

    def get(self, relative: str, **kwargs) -> requests.Response:
        kwargs.setdefault("timeout", 10)
        kwargs.setdefault("verify", self.verify)
        kwargs.setdefault("allow_redirects", False)
        return requests.get(self.url(relative), **kwargs)

    def post(self, relative: str, **kwargs) -> requests.Response:
        kwargs.setdefault("timeout", 10)
        kwargs.setdefault("verify", self.verify)
        kwargs.setdefault("allow_redirects", False)
        return requests.post(self.url(relative), **kwargs)

    def diagnostics(self) -> str:
        text = f"--- idp stderr ({self.idp.workdir})\n{self.idp.stderr_text()[-6000:]}"
        if self.nginx is not None:
            text += "\n" + self.nginx.error_text()
        return text

    def stop(self) -> int | None:
        if self.nginx is not None:
            self.nginx.stop()
        status = self.idp.stop()
        if self.socket_dir is not None:
            shutil.rmtree(self.socket_dir, ignore_errors=True)
        return status


def start_plain(bin_dir: Path, workdir: Path) -> Deployment:
    idp = start_tcp_idp(bin_dir, workdir)
    wait_http_ok(idp.url("healthz"))
    return Deployment(idp=idp, admin=Admin(bin_dir, idp))


def start_behind_nginx(bin_dir: Path, workdir: Path, cert: Path, key: Path, attempts: int = 5) -> Deployment:
    """idp on a unix socket with issuer https://127.0.0.1:<nginx port>/, nginx in front with TLS."""
    last: Exception | None = None
    for attempt in range(attempts):
        port = free_port()
        socket_dir = short_socket_dir()
        sock = socket_dir / "idp.sock"
        # nginx is the only peer on the socket, so it is trusted: the client IP comes from its X-Forwarded-For.
        idp = Idp(bin_dir, workdir / f"idp-{attempt}", issuer=f"https://127.0.0.1:{port}/", listen=f"unix:{sock}",
                  extra_env={"IDP_TRUSTED_PROXIES": "unix"})
        nginx = Nginx(workdir / f"nginx-{attempt}", port, sock, cert, key)
        try:
            idp.start()
            nginx.start()
            deployment = Deployment(idp=idp, admin=Admin(bin_dir, idp), verify=str(cert), nginx=nginx,
                                    socket_dir=socket_dir)
            wait_http_ok(idp.url("healthz"), verify=str(cert))
            return deployment
        except HarnessError as error:
            last = error
            nginx.stop()
            idp.kill()
            shutil.rmtree(socket_dir, ignore_errors=True)
            if "address already in use" not in str(error).lower():
                raise
    raise HarnessError(f"could not start idp behind nginx after {attempts} attempts: {last}")


# --- a loopback callback receiver (what a native app's redirect lands on) -----------------------

class CallbackServer:
    """A tiny http.server on 127.0.0.1:<port> that records the requests it gets."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        received = self.received = []
        arrived = self.arrived = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                received.append(self.path)
                body = b"<!doctype html><title>Signed in</title><p>You can close this window.</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                arrived.set()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    def __enter__(self) -> "CallbackServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
