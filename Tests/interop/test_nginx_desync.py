"""J06: the framing rows of the negative catalogue (I01-I13) sent through nginx, which keeps
HTTP/1.1 connections to Gatehouse open (proxy_http_version 1.1, keepalive).

nginx re-frames what it forwards, so the desync check is agreement: a request sent behind each row
reaches Gatehouse exactly when nginx itself parsed it as a request, never behind a refused one, and
the pooled upstream connections stay healthy.

Run:  python3 -m pytest -q Tests/interop/test_nginx_desync.py
"""
import itertools
import re
import time

import pytest

from test_nginx_proxy import stack  # noqa: F401 (the module-scoped idp + nginx fixture)

HOST = b"Host: 127.0.0.1\r\n"
TOKEN = b"POST /oauth/token HTTP/1.1\r\n" + HOST
ROWS = [
    ("I01 CL and TE", TOKEN + b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("I02 two CL", TOKEN + b"Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello"),
    ("I02 CL list", TOKEN + b"Content-Length: 5, 6\r\n\r\nhello"),
    ("I03 CL +5", TOKEN + b"Content-Length: +5\r\n\r\nhello"),
    ("I03 CL -1", TOKEN + b"Content-Length: -1\r\n\r\n"),
    ("I03 CL 0x10", TOKEN + b"Content-Length: 0x10\r\n\r\n"),
    ("I03 CL 30 digits", TOKEN + b"Content-Length: 123456789012345678901234567890\r\n\r\n"),
    ("I04 TE gzip", TOKEN + b"Transfer-Encoding: gzip\r\n\r\n"),
    ("I04 TE chunked, chunked", TOKEN + b"Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"),
    ("I04 TE xchunked", TOKEN + b"Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
    ("I05 chunk size overflow", TOKEN + b"Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n"),
    ("I05 missing CRLF after data", TOKEN + b"Transfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n"),
    ("I06 space before colon", TOKEN + b"Content-Length : 5\r\n\r\nhello"),
    ("I06 obs-fold", TOKEN + b"X-A: 1\r\n Content-Length: 5\r\n\r\nhello"),
    ("I07 two Host", TOKEN + b"Host: other.example\r\nContent-Length: 0\r\n\r\n"),
    ("I08 bare CR", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\rX: y\r\n\r\n"),
    ("I08 NUL", b"GET /healthz HTTP/1.1\r\n" + HOST + b"X: a\x00b\r\n\r\n"),
    ("I08 bare LF", b"GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n"),
    ("I12 two pipelined", b"GET /healthz HTTP/1.1\r\n" + HOST + b"\r\nGET /readyz HTTP/1.1\r\n" + HOST + b"\r\n"),
    ("I13 framing error mid-pipeline", b"GET /healthz HTTP/1.1\r\n" + HOST + b"\r\n"
     + TOKEN + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
]
serial = itertools.count()


def nginx_requests(stack) -> list[str]:
    """The request lines nginx logged (combined format: the first quoted field)."""
    text = (stack.dir / "nginx-access.log").read_text(errors="replace")
    return re.findall(r'"([A-Z]+ [^ "]+) HTTP/[0-9.]+"', text)


@pytest.mark.parametrize("name, raw", ROWS, ids=[row[0] for row in ROWS])
def test_framing_row_through_nginx_never_desyncs(stack, name, raw):
    tag = f"/smuggled-{next(serial)}"
    smuggled = f"GET {tag} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
    answer = stack.raw_tls(raw + smuggled)
    assert re.match(rb"HTTP/1\.1 [1-5]\d\d ", answer), (name, answer[:200])
    time.sleep(0.3)  # access lines are written after the response
    seen_by_idp = [event.get("path") for event in stack.events("access")]
    seen_by_nginx = [line.split(" ", 1)[1] for line in nginx_requests(stack)]
    # nginx forwards a request it parsed (a valid GET) and never one it did not: the two agree.
    assert (tag in seen_by_idp) == (tag in seen_by_nginx), f"{name}: nginx {tag in seen_by_nginx}, Gatehouse {tag in seen_by_idp}"
    if answer.startswith((b"HTTP/1.1 4", b"HTTP/1.1 5")):
        assert tag not in seen_by_idp, f"{name}: the request behind a refused one ran"
    for _ in range(3):
        assert stack.curl("/healthz")[0] == 200, f"{name}: the upstream pool is unhealthy"
