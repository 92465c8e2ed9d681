"""The README's own commands, replayed in order on a fresh staged layout, ending in a real sign-in.

The blocks marked `<!-- replay: NAME -->` in README.md ("From install to a first sign-in") run as
written with bash, on a machine layout staged under a temporary directory: `/etc`, `/var/lib`,
`/run` and `/usr/local` in the commands map to the staging directory (scripts/install's DESTDIR),
`sudo` runs the command as the test's user, and `systemctl enable --now gatehouse` starts the
installed unit's own ExecStart with its Environment= lines. Three things differ from a server, each
because the test has no TLS front or root-owned paths: the build step uses the binaries this test
run already built (BUILD_DIR), and the daemon listens on a free loopback port with a matching
http issuer instead of the unit's socket behind nginx. Then the README's app and user sign in.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from flows import authorize_params, exchange_code, check_token_response, sign_in
from harness import REPO_ROOT, free_port, wait_http_ok

pytestmark = pytest.mark.signin

EXPECTED_STEPS = ["build", "install", "configure", "start", "provision"]
MAPPED_ROOTS = ("/etc/gatehouse", "/var/lib/gatehouse", "/run/gatehouse", "/usr/local", "/etc/systemd")


def replay_blocks(readme: str) -> list[tuple[str, str]]:
    """(name, shell text) of every marked block, in README order."""
    return re.findall(r"<!-- replay: ([a-z-]+) -->\n```sh\n(.*?)```", readme, flags=re.S)


def stage_paths(text: str, stage: Path) -> str:
    for root in MAPPED_ROOTS:
        text = re.sub(rf"(?<![\w/.]){re.escape(root)}(?=[/\s'\"]|$)", str(stage) + root, text)
    return text


def unit_service(unit: str) -> tuple[list[str], dict[str, str]]:
    """ExecStart's argv and the Environment= variables of a systemd unit file."""
    exec_start = next(line.split("=", 1)[1] for line in unit.splitlines() if line.startswith("ExecStart="))
    environment = {}
    for line in unit.splitlines():
        if line.startswith("Environment="):
            name, value = line.split("=", 1)[1].split("=", 1)
            environment[name] = value
    return shlex.split(exec_start), environment


def write_tools(tools: Path, stage: Path, port: int, admin_port: int, log: Path) -> None:
    """`sudo` (drops `-u USER`, runs as us) and a `systemctl` that starts the staged unit's ExecStart."""
    tools.mkdir()
    sudo = tools / "sudo"
    sudo.write_text('#!/usr/bin/env bash\nif [ "$1" = "-u" ]; then shift 2; fi\nexec "$@"\n')
    systemctl = tools / "systemctl"
    systemctl.write_text(f"""#!/usr/bin/env bash
set -euo pipefail
case "$*" in
  daemon-reload) exit 0 ;;
  "enable --now gatehouse") exec {shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__).resolve()))} --start-unit \\
      {shlex.quote(str(stage))} {port} {admin_port} {shlex.quote(str(log))} ;;
  *) echo "systemctl stand-in: unsupported: $*" >&2; exit 2 ;;
esac
""")
    for tool in (sudo, systemctl):
        tool.chmod(0o755)


def start_unit(stage: Path, port: int, admin_port: int, log: Path) -> None:
    """What systemd would do with the staged gatehouse.service, in the background (pid in run/)."""
    argv, environment = unit_service((stage / "etc/systemd/system/gatehouse.service").read_text())
    argv = [stage_paths(word, stage) for word in argv]
    environment = {name: stage_paths(value, stage) for name, value in environment.items()}
    environment.update(IDP_LISTEN=f"127.0.0.1:{port}", IDP_ISSUER=f"http://127.0.0.1:{port}/",
                       IDP_ADMIN_LISTEN=f"127.0.0.1:{admin_port}")
    env = {key: value for key, value in os.environ.items() if not key.startswith("IDP_")}
    env.update(environment)
    (stage / "run/gatehouse").mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as output:
        process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=output,
                                   cwd="/", start_new_session=True)
    (stage / "run/gatehouse.pid").write_text(str(process.pid))


def test_the_readme_from_install_to_a_sign_in(bin_dir, tmp_path):
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = replay_blocks(readme)
    assert [name for name, _ in blocks] == EXPECTED_STEPS, "the README's replay markers changed"

    stage, tools, log = tmp_path / "root", tmp_path / "tools", tmp_path / "idp.log"
    stage.mkdir()
    port, admin_port = free_port(), free_port()
    write_tools(tools, stage, port, admin_port, log)
    environment = {key: value for key, value in os.environ.items() if not key.startswith("IDP_")}
    environment.update(PATH=f"{tools}:{stage}/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", DESTDIR=str(stage),
                       BUILD_DIR=str(bin_dir),
                       # What /etc/gatehouse/idp.conf is to idp-admin on a server: the file read by default.
                       IDP_CONFIG=str(stage / "etc/gatehouse/idp.conf"))
    outputs = {}
    try:
        for name, text in blocks:
            if name == "build":
                assert text.strip() == "scripts/build", text  # Replaced by this run's binaries (BUILD_DIR).
                continue
            script = stage_paths(text, stage)
            result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=REPO_ROOT, env=environment,
                                    capture_output=True, text=True, timeout=120)
            assert result.returncode == 0, f"README block {name!r} failed ({result.returncode}):\n{script}\n" \
                                           f"stdout: {result.stdout}\nstderr: {result.stderr}\nidp: {log.read_text() if log.exists() else ''}"
            outputs[name] = result.stdout
            if name == "install":
                # The one path the staged layout cannot keep: the database the installed file names.
                config = stage / "etc/gatehouse/idp.conf"
                config.write_text(stage_paths(config.read_text(), stage))
            if name == "start":
                wait_http_ok(f"http://127.0.0.1:{port}/healthz")

        issuer = f"http://127.0.0.1:{port}/"
        app, _ = json.JSONDecoder().raw_decode(outputs["provision"])
        callback = re.search(r'--callbacks "([^"]+)"', dict(blocks)["provision"]).group(1)
        email = re.search(r"--email (\S+)", dict(blocks)["provision"]).group(1)
        password = re.search(r"printf '%s\\n' '([^']+)'", dict(blocks)["provision"]).group(1)
        params, verifier = authorize_params(app["client_id"], callback)
        browser = requests.Session()
        browser.trust_env = False
        landed = sign_in(browser, requests.Request("GET", issuer + "authorize", params=params).prepare().url, issuer,
                         email, password)
        assert landed.startswith(callback + "?code="), landed
        code = re.search(r"[?&]code=([^&]+)", landed).group(1)
        tokens = check_token_response(exchange_code(issuer + "oauth/token", requests.utils.unquote(code), callback,
                                                    app["client_id"], verifier))
        assert tokens.get("id_token") and tokens.get("access_token"), tokens
    finally:
        pid_file = stage / "run/gatehouse.pid"
        if pid_file.exists():
            pid = int(pid_file.read_text())
            try:
                os.kill(pid, signal.SIGTERM)
                for _ in range(200):
                    os.kill(pid, 0)
                    time.sleep(0.05)
            except ProcessLookupError:
                pass


if __name__ == "__main__":
    if sys.argv[1:2] == ["--start-unit"]:
        start_unit(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5]))
