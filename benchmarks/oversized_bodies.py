"""Memory of a real ``baccarat serve`` under an oversized request: one chunked body of N MB (which
declares no length) to ``POST /api/accounts``; the server's resident and peak memory are read from
``/proc`` before and after.  The server must refuse the body (413) once 16 KB have arrived, so its
peak memory grows by about a megabyte, not by the body.

    python benchmarks/oversized_bodies.py --megabytes 256 [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _memory(pid: int, key: str) -> int:
    """``VmRSS`` or ``VmHWM`` (peak) of the process, in MiB."""
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(rf"{key}:\s+(\d+) kB", text)
    assert found, key
    return int(found.group(1)) // 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=256)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args()
    data_dir = tempfile.mkdtemp()
    code = "import sys; from baccarat.cli.app import main; sys.exit(main())"
    server = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", "0", "--data-dir", data_dir,
                               "--log-level", "error"],  # its output read up to the ready line, then never again
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        found = re.search(r"ready at http://([0-9.]+):(\d+)", server.stdout.readline())
        assert found, "the server did not start"
        host, port = found.group(1), int(found.group(2))
        before, peak_before = _memory(server.pid, "VmRSS"), _memory(server.pid, "VmHWM")
        sock = socket.create_connection((host, port))
        sock.sendall(b"POST /api/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        chunk, sent, started = b" " * 65536, 0, time.monotonic()
        try:
            for _ in range(options.megabytes * 16):
                sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                sent += len(chunk)
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server closed the connection: it stopped reading
        sock.settimeout(60)
        reply = b""
        try:
            while b"\r\n\r\n" not in reply and (data := sock.recv(65536)):
                reply += data
        except OSError:
            pass
        status = reply.split(b"\r\n", 1)[0].decode(errors="replace")
        report = {"megabytes_offered": options.megabytes, "megabytes_sent": round(sent / 2**20, 1),
                  "seconds": round(time.monotonic() - started, 2), "answer": status,
                  "rss_before_mib": before, "rss_after_mib": _memory(server.pid, "VmRSS"),
                  "peak_before_mib": peak_before, "peak_after_mib": _memory(server.pid, "VmHWM")}
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"{report['answer'] or 'no answer'} after {report['megabytes_sent']} of {options.megabytes} MB sent; "
          f"peak memory {report['peak_before_mib']} -> {report['peak_after_mib']} MiB")
    if options.json:
        options.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
