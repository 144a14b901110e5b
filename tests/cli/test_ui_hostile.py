"""The page against hostile requests (issue 21), over a real server on 127.0.0.1 with raw HTTP (so any
Host, Origin and body can be sent): DNS rebinding (a foreign Host) reads nothing, a foreign origin cannot
sign the reviewer out, malformed requests are 4xx with a message naming the field, and nothing changes.
On main: the foreign Host got the whole page (200), /logout from evil.example was accepted (303), and
the huge id, invalid JSON and `edit_valid_to` without `valid_to` were HTTP 500."""

from __future__ import annotations

import http.client
import json

import pytest

pytest.importorskip("fastapi", reason="the ui extra (fastapi) is not installed")

from factledger.cli.ui.app import create_app  # noqa: E402
from factledger.cli.ui.security import Guard  # noqa: E402
from factledger.digest import get_proposal  # noqa: E402
from factledger.ledger import Ledger  # noqa: E402

from .ui_support import seed, serving  # noqa: E402

TOKEN = "a-test-operator-token-0123456789"
GUARD = Guard(TOKEN, "operator:rita")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("ui-hostile") / "l.db"
    ids = seed(db)
    with serving(create_app(db, guard=GUARD, hosts=("127.0.0.1",)), log_level="critical") as port:
        yield port, db, ids


def request(port: int, method: str, path: str, *, host: str | None = None, headers: dict[str, str] | None = None,
            body: bytes | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", host)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body or b"")))
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def write_headers(port: int, *, origin: str | None = None, json_body: bool = False) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {TOKEN}", "Origin": origin or f"http://127.0.0.1:{port}", "Accept": "application/json",
               "X-CSRF-Token": GUARD.csrf()}
    headers["Content-Type"] = "application/json" if json_body else "application/x-www-form-urlencoded"
    return headers


@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "127.0.0.1.evil.example:{port}", "localhost.evil:{port}",
                                  "10.0.0.7:{port}", "[::2]:{port}", "127.0.0.2:{port}"])
def test_a_foreign_host_reads_nothing(server, host) -> None:
    port, _, _ = server
    for path in ("/", "/queue", "/tx/1", "/subject?scope=chat&subject=user"):
        status, text = request(port, "GET", path, host=host.format(port=port), headers={"Accept": "application/json"})
        assert status == 421, (path, status, text[:200])
        assert "host" in text and "answers only as" in text and "Lisbon" not in text and "user" not in text


def test_no_host_is_refused(server) -> None:
    port, _, _ = server
    status, text = request(port, "GET", "/", host=None)
    assert status in (400, 421) and "Lisbon" not in text


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}", "127.0.0.1"])
def test_the_page_s_own_names_are_answered(server, host) -> None:
    port, _, _ = server
    status, text = request(port, "GET", "/", host=host.format(port=port), headers={"Accept": "application/json"})
    assert status == 200 and "lives_in" in text


def test_logout_from_a_foreign_origin_is_refused(server) -> None:
    port, _, _ = server
    own = f"127.0.0.1:{port}"
    cookie = {"Cookie": f"factledger_token={TOKEN}"}
    for origin in ("http://evil.example", "null", None):
        headers = {**cookie, **({"Origin": origin} if origin else {})}
        status, text = request(port, "POST", "/logout", host=own, headers=headers)
        assert status == 403 and "origin" in text, (origin, status)
    status, _ = request(port, "POST", "/logout", host=own, headers={**cookie, "Origin": f"http://{own}"})
    assert status == 303


def test_malformed_requests_are_4xx_naming_the_field(server) -> None:
    port, db, ids = server
    own = f"127.0.0.1:{port}"
    json_accept = {"Accept": "application/json"}
    for path in ("/tx/99999999999999999999", "/proposal/99999999999999999999", "/tx/-1", "/tx/abc"):
        status, text = request(port, "GET", path, host=own, headers=json_accept)
        assert 400 <= status < 500, (path, status, text)
        assert json.loads(text)["field"] in ("tx_id", "proposal_id"), text
    status, text = request(port, "POST", "/proposal/99999999999999999999/accept", host=own, headers=write_headers(port),
                           body=f"csrf={GUARD.csrf()}".encode())
    assert 400 <= status < 500 and json.loads(text)["field"] == "proposal_id"
    path = f"/proposal/{ids['berlin']}/accept"
    for body in (b"{not json", b"\xff\xfe", b"[" * 100_000, b"[1, 2]", b'"text"'):
        status, text = request(port, "POST", path, host=own, headers=write_headers(port, json_body=True), body=body)
        assert status == 400 and json.loads(text)["field"] == "body", (body[:20], status, text)
    status, text = request(port, "POST", path, host=own, headers=write_headers(port),
                           body=f"csrf={GUARD.csrf()}&edit_valid_to=1".encode())
    assert status == 400 and json.loads(text)["field"] == "valid_to" and "edit_valid_to" in text
    with Ledger.open(db) as ledger:  # nothing changed: the held proposal is still open
        assert get_proposal(ledger, ids["berlin"]).status == "pending"
