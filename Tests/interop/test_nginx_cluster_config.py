"""Config/nginx-cluster.conf is a configuration nginx accepts as written (README "Running several nodes").

Run:  python3 -m pytest -q Tests/interop/test_nginx_cluster_config.py  (part of scripts/test)
Only the certificate paths and the listen port are replaced; MultiNodeTests runs the same upstream
and retry rules against three real nodes.
"""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def check(site_text):
    directory = Path(tempfile.mkdtemp(prefix="gatehouse-nginx-cluster-"))
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-days", "1", "-subj", "/CN=id.example.com", "-keyout", str(directory / "key.pem"),
                        "-out", str(directory / "cert.pem")], check=True, capture_output=True)
        site = site_text.replace("/etc/ssl/certs/id.example.com.crt", str(directory / "cert.pem"))
        site = site.replace("/etc/ssl/private/id.example.com.key", str(directory / "key.pem"))
        site = site.replace("listen 443 ssl", "listen 127.0.0.1:1 ssl")
        (directory / "cluster.conf").write_text(site)
        user = "user root;\n" if os.geteuid() == 0 else ""
        (directory / "nginx.conf").write_text(
            f"{user}pid {directory}/nginx.pid;\nerror_log {directory}/error.log;\nevents {{}}\n"
            f"http {{\n    access_log off;\n    include {directory}/cluster.conf;\n}}\n")
        return subprocess.run([NGINX, "-t", "-p", str(directory), "-c", str(directory / "nginx.conf"),
                               "-e", str(directory / "error.log")], capture_output=True, text=True)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def test_the_cluster_sample_passes_nginx_t():
    result = check((ROOT / "Config" / "nginx-cluster.conf").read_text())
    assert result.returncode == 0, result.stderr
    assert "syntax is ok" in result.stderr


def test_a_broken_directive_fails_the_same_check():
    # The check can fail: a misspelt retry rule is refused.
    broken = (ROOT / "Config" / "nginx-cluster.conf").read_text().replace("proxy_next_upstream error", "proxy_next_upstrem error")
    assert check(broken).returncode != 0
