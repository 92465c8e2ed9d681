"""Fixtures of the real-peer interop suite: idp, idp-admin, nginx with TLS, per test dirs and ports.

Run from the repository root: python3 -m pytest -q Tests/interop
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import requests

import harness
from harness import Admin, Deployment


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Remembers each phase's outcome on the item, so fixtures can print diagnostics on failure."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


def _failed(request) -> bool:
    return any(getattr(getattr(request.node, f"report_{when}", None), "failed", False)
               for when in ("setup", "call"))


@pytest.fixture(scope="session")
def bin_dir() -> Path:
    """Where idp and idp-admin are (`swift build --show-bin-path`, computed once; built only if missing)."""
    try:
        return harness.locate_binaries()
    except harness.HarnessError as error:
        pytest.exit(f"interop: {error}", returncode=3)


@pytest.fixture(scope="session")
def tls_certificate(tmp_path_factory) -> tuple[Path, Path]:
    """A throw-away self-signed certificate for 127.0.0.1, made once per session (cert, key)."""
    if shutil.which("nginx") is None or shutil.which("openssl") is None:
        pytest.fail("nginx and openssl are needed: run scripts/install-deps --test")
    return harness.make_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def free_port() -> int:
    return harness.free_port()


def _deployment(request, deployment: Deployment):
    try:
        yield deployment
    finally:
        status = deployment.stop()
        if _failed(request):
            print(deployment.diagnostics())
    assert status == 0, f"idp exited {status} after SIGTERM (expected 0):\n{deployment.diagnostics()}"


@pytest.fixture
def gatehouse(request, bin_dir, tmp_path) -> Deployment:
    """A running idp on 127.0.0.1:<free port> with issuer http://127.0.0.1:<port>/."""
    yield from _deployment(request, harness.start_plain(bin_dir, tmp_path))


@pytest.fixture
def gatehouse_tls(request, bin_dir, tmp_path, tls_certificate) -> Deployment:
    """idp on a unix socket behind a real nginx terminating TLS; issuer https://127.0.0.1:<nginx port>/."""
    cert, key = tls_certificate
    yield from _deployment(request, harness.start_behind_nginx(bin_dir, tmp_path, cert, key))


@pytest.fixture
def idp(gatehouse):
    return gatehouse.idp


@pytest.fixture
def admin(gatehouse) -> Admin:
    """`admin("keys", "list")` runs idp-admin --json against the plain deployment's database."""
    return gatehouse.admin




def pytest_report_header(config):
    try:
        version = subprocess.run(["nginx", "-v"], capture_output=True, text=True, timeout=10).stderr.strip()
    except OSError:
        version = "nginx not found"
    return [f"interop: repo {harness.REPO_ROOT}", f"interop: {version}"]
