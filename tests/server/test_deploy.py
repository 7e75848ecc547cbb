"""The deployment recipe under ``deploy/``: Debian's nginx run on ``deploy/nginx/baccarat.conf.template``
(rendered with this test's ports and a self-signed certificate) in front of two ``baccarat serve``
processes on PostgreSQL; a round played over HTTPS and WSS, the client's address forwarded (and a
forged one replaced), nginx's per-address limits; the systemd units checked by ``systemd-analyze``."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from sqlalchemy import create_engine, text
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from baccarat.server.api.body_limit import MAX_BODY

from .. import provision, server_kit

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
TEMPLATE = DEPLOY / "nginx" / "baccarat.conf.template"
UNIT = DEPLOY / "systemd" / "baccarat@.service"
ENV_EXAMPLE = DEPLOY / "systemd" / "baccarat.env.example"
#: the template's variables (its header and docs/deploying.md name the same eight)
VARIABLES = ("BACCARAT_SERVER_NAME", "BACCARAT_HTTP_LISTEN", "BACCARAT_HTTPS_LISTEN", "BACCARAT_HTTPS_PORT",
             "BACCARAT_TLS_CERTIFICATE", "BACCARAT_TLS_CERTIFICATE_KEY", "BACCARAT_UPSTREAMS", "BACCARAT_ACCESS_LOG")
#: the limits the template sets, as the test expects them
CONNECTIONS_PER_ADDRESS, BURST = 32, 40
OTHER = "127.0.0.2"  #: a second client address (all of 127.0.0.0/8 is this machine's)


def render(template: str, values: dict[str, str]) -> str:
    """``envsubst`` naming only ``values`` (nginx's own ``$variables`` are left as they are)."""
    out = template
    for name, value in values.items():
        out = out.replace("${" + name + "}", value)
    return out


@pytest.mark.slow
def test_the_template_names_exactly_its_variables_and_the_server_s_body_limit():
    template = TEMPLATE.read_text()
    assert set(re.findall(r"\$\{(\w+)\}", template)) == set(VARIABLES)
    values = {name: f"value-of-{name.lower()}" for name in VARIABLES}
    assert "${" not in render(template, values)
    envsubst = shutil.which("envsubst")
    if envsubst is not None:  # the operator's way (the template's header) gives the same file
        named = " ".join("${" + name + "}" for name in VARIABLES)
        done = subprocess.run([envsubst, named], input=template, capture_output=True, text=True, check=True,
                              env={**os.environ, **values}, timeout=30)
        assert done.stdout == render(template, values)
    # nginx's client_max_body_size, in kibibytes, is the server's own MAX_BODY
    sizes = re.findall(r"client_max_body_size (\d+)k;", template)
    assert sizes and all(int(size) * 1024 == MAX_BODY for size in sizes)
    assert f"limit_conn baccarat_connections {CONNECTIONS_PER_ADDRESS};" in template
    assert f"burst={BURST} nodelay" in template


def test_the_template_retries_on_the_other_server_exactly_the_requests_done_once_per_key():
    """The location with ``non_idempotent`` matches every route the server does once per Idempotency-Key (the
    routes that take the header) and no other: a money route left out would answer nginx's 502 where the other
    server could have placed it; a route put in that is not done once per key could be done twice."""
    from baccarat.server.api.app import create_app

    pattern = re.search(r"location ~ (\S+) \{\n(?:[^}]*\n)*?\s*proxy_next_upstream error timeout non_idempotent;",
                        TEMPLATE.read_text())
    assert pattern is not None
    retried = re.compile(pattern.group(1))
    schema = create_app().openapi()
    for path, operations in schema["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "7", path)
        once = any(p["name"].lower() == "idempotency-key" for o in operations.values() for p in o.get("parameters", []))
        assert bool(retried.match(concrete)) == once, (path, once)


@pytest.mark.slow
def test_the_systemd_unit_passes_systemd_analyze_verify(tmp_path: Path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here (Debian's systemd package has it)")
    # an instance of the template (a template itself is not verified), its program this environment's
    unit = tmp_path / "baccarat@8001.service"
    unit.write_text(UNIT.read_text().replace("/opt/baccarat/venv/bin/baccarat", server_kit.EXE))
    done = subprocess.run([analyze, "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr
    settings = UNIT.read_text()
    for hardening in ("NoNewPrivileges=yes", "ProtectSystem=strict", "User=baccarat",
                      "EnvironmentFile=/etc/baccarat/baccarat.env", "--trusted-proxy 127.0.0.1",
                      "--workers ${BACCARAT_WORKERS}"):
        assert hardening in settings
    # the environment file sets what the unit reads, the audit key outside the data directory
    env = dict(line.split("=", 1) for line in ENV_EXAMPLE.read_text().splitlines()
               if line and not line.startswith("#"))
    assert env["BACCARAT_DATABASE_URL"].startswith("postgresql+psycopg://") and int(env["BACCARAT_WORKERS"]) >= 1
    for outside in ("BACCARAT_AUDIT_KEY_FILE", "BACCARAT_AUDIT_HEADS_FILE", "BACCARAT_SEED_KEY_FILE"):
        assert not Path(env[outside]).is_relative_to(env["BACCARAT_DATA_DIR"]), outside


# --- alerts and scheduled checks ----------------------------------------------------------------------

ALERTS = DEPLOY / "prometheus" / "baccarat-alerts.yml"
SCHEDULED = [DEPLOY / "systemd" / name for name in ("baccarat-backup.service", "baccarat-backup.timer",
                                                     "baccarat-checks.service", "baccarat-checks.timer")]
#: the moments the scheduled jobs write for node_exporter's textfile collector, which the alert rules read
JOB_METRICS = {"baccarat_backup_last_success_timestamp_seconds", "baccarat_ledger_check_last_success_timestamp_seconds",
               "baccarat_audit_verify_last_success_timestamp_seconds"}


def _promtool(request: pytest.FixtureRequest) -> str:
    found = shutil.which("promtool")
    if found is None:
        why = "promtool is not installed (Debian's prometheus package has it; scripts/provision installs it)"
        if os.environ.get("BACCARAT_REQUIRE_PROMTOOL"):
            pytest.fail(f"BACCARAT_REQUIRE_PROMTOOL is set but {why}")
        pytest.skip(why)
    return found


@pytest.mark.slow
def test_the_alert_rules_pass_promtool_and_their_unit_tests(request: pytest.FixtureRequest):
    """``promtool check rules`` and ``promtool test rules`` (deploy/prometheus/baccarat-alerts.test.yml: each alert
    fires when it should, and not before); the rules read only what the server exports, ``up``, and the moments the
    scheduled jobs write."""
    from baccarat.server.storage import metrics

    promtool = _promtool(request)
    for command in (["check", "rules", ALERTS.name], ["test", "rules", "baccarat-alerts.test.yml"]):
        done = subprocess.run([promtool, *command], cwd=ALERTS.parent, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
    exported = {metric._name for metric in metrics.ALL} | {f"{metric._name}_bucket" for metric in metrics.ALL}
    named = set(re.findall(r"\b(baccarat_\w+|up)\b", ALERTS.read_text()))
    assert named - exported - JOB_METRICS == {"up"}, named
    assert named >= JOB_METRICS


@pytest.mark.slow
def test_the_scheduled_backup_and_checks_pass_systemd_analyze_and_write_what_the_alerts_read(tmp_path: Path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here (Debian's systemd package has it)")
    for unit in SCHEDULED:
        copy = tmp_path / unit.name
        copy.write_text(unit.read_text().replace("/opt/baccarat/venv/bin/baccarat", server_kit.EXE))
    for unit in SCHEDULED:
        done = subprocess.run([analyze, "verify", "--man=no", str(tmp_path / unit.name)], capture_output=True,
                              text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 0 and done.stderr.strip() == "", (unit.name, done.stderr)
    written = " ".join(unit.read_text() for unit in SCHEDULED)
    assert all(name in written for name in JOB_METRICS)
    assert "baccarat backup" in written and "baccarat ledger check" in written and "baccarat audit verify" in written


# --- nginx in front of two processes -----------------------------------------------------------------


@pytest.fixture
def nginx(request: pytest.FixtureRequest) -> str:
    """The nginx binary (scripts/provision installs Debian's; CI requires it)."""
    found = provision.nginx_binary()
    if found is None:
        if os.environ.get("BACCARAT_REQUIRE_NGINX"):
            pytest.fail(f"BACCARAT_REQUIRE_NGINX is set but there is {provision.why_no_nginx(request.config)}")
        pytest.skip(provision.why_no_nginx(request.config))
    return found


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, and its key (PEM files)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(
                       ipaddress.ip_address("127.0.0.1"))]), critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_file.chmod(0o600)
    return cert_file, key_file


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Proxy:
    """nginx running in the foreground on a prefix of its own: ``base`` (https://127.0.0.1:PORT), ``tls`` (an
    SSL context trusting the test's certificate), ``error_log``."""

    def __init__(self, process: subprocess.Popen[bytes], base: str, plain: str, tls: ssl.SSLContext,
                 error_log: Path, access_log: Path):
        self.process, self.base, self.plain, self.tls = process, base, plain, tls
        self.error_log, self.access_log = error_log, access_log
        self.servers: list[server_kit.Served] = []

    def client(self, address: str = "127.0.0.1") -> httpx.Client:
        """An HTTPS client whose connections come from ``address``."""
        transport = httpx.HTTPTransport(verify=self.tls, local_address=address)
        return httpx.Client(base_url=self.base, transport=transport, timeout=15)

    def socket(self, table: int, address: str = "127.0.0.1") -> ws_connect:
        """A WSS connection to ``/ws/tables/TABLE`` from ``address``, with the browser's Origin (``async with``).

        asyncio's client, not websockets' threaded one: that one reads the TLS connection in a thread of its own
        while the handshake writes from another, and a TLS 1.3 session ticket arriving then can lose the request
        (OpenSSL's connections are not for two threads at once), so one handshake in a few hung until nginx's
        client_header_timeout.  A browser's TLS has no such race."""
        return ws_connect(self.base.replace("https", "wss") + f"/ws/tables/{table}", ssl=self.tls,
                          origin=self.base, local_addr=(address, 0), open_timeout=15)  # type: ignore[arg-type]


@contextmanager
def _nginx(nginx: str, prefix: Path, upstreams: str) -> Iterator[Proxy]:
    """nginx on the recipe's template with ``upstreams``, its files under ``prefix``, answering ``/health``."""
    prefix.mkdir()
    cert, key = _certificate(prefix)
    http_port, https_port = _free_port(), _free_port()
    access_log = prefix / "baccarat.access.log"
    site = render(TEMPLATE.read_text(), {
        "BACCARAT_SERVER_NAME": "localhost 127.0.0.1", "BACCARAT_HTTP_LISTEN": f"127.0.0.1:{http_port}",
        "BACCARAT_HTTPS_LISTEN": f"127.0.0.1:{https_port}", "BACCARAT_HTTPS_PORT": str(https_port),
        "BACCARAT_TLS_CERTIFICATE": str(cert), "BACCARAT_TLS_CERTIFICATE_KEY": str(key),
        "BACCARAT_UPSTREAMS": upstreams, "BACCARAT_ACCESS_LOG": str(access_log)})
    (prefix / "baccarat.conf").write_text(site)
    error_log = prefix / "error.log"
    # the rest of an nginx.conf, every file under the prefix; as root the workers run as root too (the
    # prefix's files are root's), otherwise nginx runs as the user running the test
    temp = " ".join(f"{kind}_temp_path {prefix / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                       "scgi"))
    (prefix / "nginx.conf").write_text(
        ("user root root;\n" if os.geteuid() == 0 else "")
        + f"daemon off;\nworker_processes 1;\npid {prefix / 'nginx.pid'};\nerror_log {error_log} warn;\n"
        f"events {{ worker_connections 1024; }}\n"
        f"http {{ access_log {prefix / 'access.log'}; {temp}\n include {prefix / 'baccarat.conf'}; }}\n")
    command = [nginx, "-p", str(prefix), "-e", str(error_log), "-c", str(prefix / "nginx.conf")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tls = ssl.create_default_context(cafile=str(cert))
    running = Proxy(process, f"https://127.0.0.1:{https_port}", f"http://127.0.0.1:{http_port}", tls, error_log,
                    access_log)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert process.poll() is None, error_log.read_text()
            try:
                with running.client() as client:
                    if client.get("/health").status_code == 200:
                        break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, error_log.read_text()
            time.sleep(0.1)
        yield running
    finally:
        process.terminate()  # fast shutdown: open connections (the test's sockets) closed at once
        process.wait(timeout=30)


@pytest.fixture
def proxy(nginx: str, tmp_path: Path, database_url: str, serve: Callable[..., server_kit.Served]) -> Iterator[Proxy]:
    """Two ``baccarat serve`` processes on ``database_url`` trusting 127.0.0.1 as their proxy, and nginx on the
    recipe's template in front of them."""
    first = serve("--database", database_url, "--trusted-proxy", "127.0.0.1", "--betting-seconds", "3",
                  data_dir=tmp_path / "a")  # first alone: it makes the database's tables
    second = serve("--database", database_url, "--trusted-proxy", "127.0.0.1", data_dir=tmp_path / "b")
    upstreams = f"server 127.0.0.1:{first.port}; server 127.0.0.1:{second.port};"
    with _nginx(nginx, tmp_path / "nginx", upstreams) as running:
        running.servers = [first, second]
        yield running


def _play_a_round(proxy: Proxy) -> None:
    """Register, log in, sit and bet over HTTPS; the round's result and settlement over WSS."""
    with proxy.client() as client:
        assert client.post("/api/accounts", json={"username": "dora", "password": "correct horse"}).status_code == 201
        token = client.post("/api/sessions", json={"username": "dora", "password": "correct horse"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        assert client.post("/api/tables/2/seats", json={}, headers=auth).status_code == 201
        deadline = time.monotonic() + 40
        for attempt in range(1000):  # until a betting window is open (the table's first may have closed)
            placed = client.post("/api/tables/2/bets", json={"bets": {"banker": 500}},
                                 headers={**auth, "Idempotency-Key": f"proxy-bet-{attempt:04}"})
            if placed.status_code != 409 or placed.json()["code"] != "bet.closed" or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert placed.status_code == 201, placed.text
    bet_round = placed.json()["round"]

    async def watch() -> tuple[dict[str, Any], dict[str, Any]]:
        async with proxy.socket(2) as table:
            await table.send(json.dumps({"type": "auth", "token": token}))
            async with asyncio.timeout(40):
                while True:
                    state = json.loads(await table.recv())
                    assert state["type"] == "state"
                    result, you = state["table"]["result"], state["you"]
                    if result is not None and result["round"] == bet_round and you["settlement"] is not None:
                        return result, you

    result, you = asyncio.run(watch())
    assert result["winner"] in ("banker", "player", "tie")
    assert you["settlement"]["bets"]["banker"]["amount"] == 500


def _fail_logins(client: httpx.Client, count: int, forged: bool = False) -> list[httpx.Response]:
    answers = []
    for n in range(count):
        headers = {"X-Forwarded-For": f"203.0.113.{n + 1}"} if forged else {}
        answers.append(client.post("/api/sessions", json={"username": "dora", "password": "not the password"},
                                   headers=headers))
    return answers


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_nginx_recipe_serves_https_and_wss_forwards_the_address_and_limits_each_address(proxy: Proxy,
                                                                                           database_url: str):
    # plain HTTP only redirects
    with httpx.Client(timeout=10) as plain:
        moved = plain.get(proxy.plain + "/api/tables")
    assert moved.status_code == 301 and moved.headers["location"] == proxy.base + "/api/tables"  # its port kept
    try:
        _play_a_round(proxy)
    except Exception:  # what the servers said, to read with the failure
        print(*(served.stderr()[-3000:] for served in proxy.servers), sep="\n")
        raise

    # the login limits count the client's address, not nginx's, and a client's own X-Forwarded-For is replaced:
    # 10 failures from 127.0.0.1 (each claiming another address) refuse the 11th, not another address's
    with proxy.client() as here, proxy.client(OTHER) as there:
        assert [answer.status_code for answer in _fail_logins(here, 10, forged=True)] == [401] * 10
        refused = _fail_logins(here, 1)[0]  # the server's refusal (nginx's is rate.too_many, without params)
        assert refused.status_code == 429 and refused.json()["code"] == "rate.limited"
        assert _fail_logins(there, 1)[0].status_code == 401
        # nginx refuses a body over the server's MAX_BODY before reading it
        assert there.post("/api/sessions", content=b"x" * (MAX_BODY + 1)).status_code == 413
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            seen = set(connection.execute(text("SELECT DISTINCT address FROM attempts")).scalars())
    finally:
        engine.dispose()
    assert seen == {"127.0.0.1", OTHER}

    time.sleep(BURST / 10 + 0.5)  # the request rate's burst back in full
    # one address holds at most CONNECTIONS_PER_ADDRESS connections with a request in progress (each open
    # WebSocket is one); one more, WebSocket or not, is nginx's 429, while another address gets through
    async def crowd() -> None:
        async with AsyncExitStack() as held:
            for _ in range(CONNECTIONS_PER_ADDRESS):
                await held.enter_async_context(proxy.socket(2))
            with pytest.raises(InvalidStatus) as refused_socket:
                async with proxy.socket(2):
                    pass
            assert refused_socket.value.response.status_code == 429
            with proxy.client() as here:  # a blocking client is fine here: nginx and the servers are processes
                refused = here.get("/health")
            assert refused.status_code == 429 and refused.json()["code"] == "rate.too_many"
            assert refused.headers["retry-after"] == "1" and refused.json()["params"] == {}  # nginx's own
            with proxy.client(OTHER) as there:
                assert there.get("/health").status_code == 200
            async with proxy.socket(2, OTHER) as other_socket:
                await other_socket.send(json.dumps({"type": "auth", "token": "not-a-token"}))

    asyncio.run(crowd())
    assert 'limiting connections by zone "baccarat_connections"' in proxy.error_log.read_text()
    time.sleep(0.5)
    with proxy.client() as here:
        assert here.get("/health").status_code == 200  # the sockets closed, the address is let in again

    time.sleep(BURST / 10 + 0.5)
    # the request rate: a burst of BURST at once, then 10 a second; more from one address are 429, while
    # another address is answered
    with proxy.client() as here:
        statuses = [here.get("/health").status_code for _ in range(3 * BURST)]
    assert statuses[:BURST] == [200] * BURST and 429 in statuses, statuses
    assert set(statuses) == {200, 429}
    assert 'limiting requests, excess' in proxy.error_log.read_text()
    with proxy.client(OTHER) as there:
        assert there.get("/health").status_code == 200


class _Unanswering:
    """A stand-in for a server in trouble: every GET is answered the server's own 503 with ``Retry-After`` (its
    database cannot save), every POST's connection dropped before an answer (a server killed mid-request)."""

    REFUSAL: ClassVar[dict[str, Any]] = {"error": "Unavailable", "code": "server.unavailable", "params": {},
                                         "detail": "the table cannot save right now",
                                         "message": "the table cannot save right now"}

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.gets = self.posts = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        body = json.dumps(self.REFUSAL).encode()
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return  # closed
            with connection:
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    head += chunk
                if head.startswith(b"POST"):
                    self.posts += 1
                    continue  # closed unanswered
                self.gets += 1
                connection.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                                   b"Retry-After: 7\r\nConnection: close\r\n"
                                   + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)

    def close(self) -> None:
        self.listener.close()


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_nginx_passes_a_server_s_503_retries_a_dropped_bet_on_the_other_and_names_each_request(
        nginx: str, tmp_path: Path, database_url: str, serve: Callable[..., server_kit.Served]):
    """Issue 40 item 7: a server's 503 with ``Retry-After`` reaches the client as the server said it, and that
    server stays in; a bet whose connection a server dropped before answering is placed through the other (the
    Idempotency-Key makes the retry safe); nginx's request id is the server's and is in both logs."""
    real = serve("--database", database_url, "--trusted-proxy", "127.0.0.1", "--betting-seconds", "3",
                 data_dir=tmp_path / "a")
    trouble = _Unanswering()
    try:
        with _nginx(nginx, tmp_path / "nginx", f"server 127.0.0.1:{trouble.port}; server 127.0.0.1:{real.port};"
                    ) as proxy, proxy.client() as client:
            answers = [client.get("/api/tables") for _ in range(6)]
            refused = [answer for answer in answers if answer.status_code == 503]
            # every GET the troubled server took came back as its own answer, not retried on the other, and it
            # was not taken out for answering: the six alternated between the two
            assert len(refused) == 3 and trouble.gets >= 3 and {a.status_code for a in answers} == {200, 503}
            for answer in refused:
                assert answer.headers["retry-after"] == "7" and answer.json() == _Unanswering.REFUSAL
            with httpx.Client(base_url=real.url, timeout=15) as direct:  # the player, made on the server itself
                assert direct.post("/api/accounts", json={"username": "nell", "password": "correct horse"}
                                   ).status_code == 201
                token = direct.post("/api/sessions", json={"username": "nell", "password": "correct horse"}
                                    ).json()["token"]
            bets = [client.post("/api/tables/2/bets", json={"bets": {"banker": 100}},
                                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"nginx-bet-{n}"})
                    for n in range(2)]
            assert trouble.posts >= 1  # one reached the troubled server, which dropped it
            for bet in bets:  # and every bet was answered by the other: placed, or refused by its rules
                assert bet.status_code in (201, 409), bet.text
                assert bet.status_code == 201 or bet.json()["code"] == "bet.closed", bet.text
            named = client.get("/api/games")  # the troubled server is out for 10 s after a dropped connection
            assert named.status_code == 200
            request_id = named.headers["x-request-id"]
            assert re.fullmatch(r"[0-9a-f]{32}", request_id), request_id  # nginx's $request_id
            assert f"request_id={request_id}" in proxy.access_log.read_text()
            deadline = time.monotonic() + 10  # the server writes its access line after it answers
            while request_id not in real.stderr():
                assert time.monotonic() < deadline, real.stderr()[-2000:]  # the server's own line for it
                time.sleep(0.1)
    finally:
        trouble.close()
