"""The request body limit (:mod:`baccarat.server.api.body_limit`) under attack (issue 11, items 4 and 8):
bodies capped by the bytes received, not the length declared, on a real server (uvicorn through
``baccarat serve``)."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from baccarat.server.api.body_limit import MAX_BODY

from ... import server_kit
from ...server_kit import Served

PASSWORD = "a long and unusual passphrase 7"


# --- a real server (uvicorn through `baccarat serve`) -------------------------------------------------------


def _peak_rss_mb(served: Served) -> float:
    """The server process's peak resident memory so far (VmHWM)."""
    status = Path(f"/proc/{served.pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    if not Path("/proc/self/status").exists():
        pytest.skip("reads the server's memory from /proc")
    with server_kit.served(data_dir=tmp_path_factory.mktemp("served")) as server:
        yield server


def _exchange(served: Served, head: bytes, body: Iterator[bytes]) -> tuple[int, dict[str, str], bytes, int]:
    """Send ``head`` then ``body`` on a raw socket (in a thread, so that a server that stops
    reading cannot block us) and read the answer; returns status, headers, body and bytes sent."""
    sock = socket.create_connection((served.host, served.port), timeout=60)
    sent = [0]

    def send() -> None:
        try:
            sock.sendall(head)
            for piece in body:
                sock.sendall(piece)
                sent[0] += len(piece)
        except OSError:  # the server answered and closed: it read no further
            pass

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    answer = b""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
            head_end = answer.find(b"\r\n\r\n")
            if head_end >= 0:
                length = re.search(rb"content-length: (\d+)", answer[:head_end], re.IGNORECASE)
                if length and len(answer) >= head_end + 4 + int(length.group(1)):
                    break
    except ConnectionResetError:
        pass
    sender.join(timeout=60)
    sock.close()
    head_bytes, _, content = answer.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    assert lines and lines[0].startswith("HTTP/1.1 "), answer[:200]
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, content, sent[0]


def _chunked(total: int, piece: int = 65_536) -> Iterator[bytes]:
    """``total`` bytes of JSON whitespace as HTTP/1.1 chunks, then the last chunk."""
    while total > 0:
        size = min(piece, total)
        yield b"%x\r\n" % size + b" " * size + b"\r\n"
        total -= size
    yield b"0\r\n\r\n"


POST_CHUNKED = (b"POST /api/accounts HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")


# --- (attack: a chunked body that never ends) ---------------------------------------------------------------


@pytest.mark.slow
def test_a_chunked_body_is_cut_off_at_the_limit_not_read_whole(served: Served):
    """Before: a chunked body declares no length, the limit read only Content-Length, and the whole
    body was read (256 MB: peak RSS from 86 to 598 MB).  Now the bytes received are counted."""
    before = _peak_rss_mb(served)
    status, headers, content, sent = _exchange(served, POST_CHUNKED, _chunked(64 * 2**20))
    grown = _peak_rss_mb(served) - before
    assert status == 413, content
    assert json.loads(content) == {"error": "TooLarge", "code": "request.too_large", "params": {"limit": MAX_BODY},
                                   "detail": f"The request is too large: it may be at most {MAX_BODY} bytes.",
                                   "message": f"The request is too large: it may be at most {MAX_BODY} bytes."}
    assert headers.get("connection") == "close"  # stop taking the rest of it
    assert grown < 16, f"the server grew {grown:.0f} MB on a body it refused ({sent / 2**20:.0f} MB sent)"
    # a declared length over the limit is refused before anything is read, as before
    declared = (b"POST /api/accounts HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % (64 * 2**20))
    status, _, content, _ = _exchange(served, declared, iter([b" " * 65_536]))
    assert status == 413 and json.loads(content)["error"] == "TooLarge"


@pytest.mark.slow
def test_a_chunked_body_up_to_the_limit_is_taken(served: Served):
    """The count is of body bytes: a body of exactly MAX_BODY bytes in many chunks is read and answered."""
    payload = json.dumps({"username": "chunky", "password": PASSWORD}).encode()
    payload += b" " * (MAX_BODY - len(payload))
    pieces = [payload[i:i + 1000] for i in range(0, len(payload), 1000)]
    status, _, content, _ = _exchange(
        served, POST_CHUNKED, iter([b"%x\r\n" % len(p) + p + b"\r\n" for p in pieces] + [b"0\r\n\r\n"]))
    assert status == 201, content
    status, _, content, _ = _exchange(served, POST_CHUNKED, iter([b"%x\r\n" % (len(payload) + 1) + payload + b" \r\n",
                                                                   b"0\r\n\r\n"]))
    assert status == 413, content
