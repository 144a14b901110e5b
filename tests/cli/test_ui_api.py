"""The page's HTTP endpoints: every read, every write, and the guards on writes (token, Origin, CSRF,
operator principal)."""

from __future__ import annotations

import os
import stat

import pytest

pytest.importorskip("fastapi", reason="the ui extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from factledger.cli.ui.app import create_app  # noqa: E402
from factledger.cli.ui.security import COOKIE, Guard, TokenFileError, read_token_file, write_token_file  # noqa: E402
from factledger.digest import get_proposal, list_rejections  # noqa: E402
from factledger.ledger import Ledger  # noqa: E402

from .ui_support import SCRIPT, seed  # noqa: E402

TOKEN = "a-test-operator-token-0123456789"
ORIGIN = "http://testserver"
JSON = {"accept": "application/json"}


@pytest.fixture
def site(tmp_path):
    db = tmp_path / "l.db"
    ids = seed(db)
    guard = Guard(token=TOKEN, principal="operator:rita")
    client = TestClient(create_app(db, guard=guard, hosts=("testserver",)))
    return client, guard, ids, db


def _post(client, path, guard, *, token=TOKEN, origin=ORIGIN, csrf=None, data=None):
    headers = {**JSON}
    if origin is not None:
        headers["origin"] = origin
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    form = {"csrf": guard.csrf() if csrf is None else csrf, **(data or {})}
    return client.post(path, data=form, headers=headers)


SLOT = "/slot?scope=chat&subject=user&predicate=lives_in"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("/", "user"),
        ("/?q=lives", "lives_in"),
        ("/?scope=chat", "chat"),
        ("/subject?scope=chat&subject=user", "nothing now"),
        (SLOT, "timeline-spec"),
        ("/queue", "Review queue"),
        ("/tx/1", "digest:rules"),
        ("/static/vendor/vega-lite.min.js", "vega"),
        ("/static/timeline.js", "vegaEmbed"),
    ],
)
def test_read_pages(site, path: str, text: str) -> None:
    client, *_ = site
    response = client.get(path)
    assert response.status_code == 200 and text in response.text


def test_proposal_page_and_json(site) -> None:
    client, _, ids, _ = site
    page = client.get(f"/proposal/{ids['berlin']}")
    assert page.status_code == 200 and "if accepted:" in page.text and "I live in Berlin" in page.text
    data = client.get(f"/proposal/{ids['berlin']}", headers=JSON).json()
    # Paris was retracted from June, so Berlin (from July) closes nothing: the preview says so.
    assert data["value"] == "Berlin" and data["preview"]["lines"][0] == "accepting runs add"
    assert data["preview"]["closes"] == [] and [o["value"] for o in data["preview"]["opens"]] == ["Berlin"]


def test_slot_json_as_known_at(site) -> None:
    client, *_ = site
    latest = client.get(SLOT, headers=JSON).json()
    assert [b["state"] for b in latest["bars"]] == ["superseded", "superseded", "partly retracted", "current", "current", "current"]
    first_tx_time = latest["bars"][0]["opened_at"]
    then = client.get(SLOT + f"&known_at={first_tx_time}", headers=JSON).json()
    assert [(b["value"], b["state"]) for b in then["bars"]] == [("Lisbon", "current")]
    assert then["valid_now"] == ["Lisbon"] and latest["valid_now"] == []
    bad = client.get(SLOT + "&known_at=yesterday-ish", headers=JSON)
    assert bad.status_code == 400 and bad.json()["field"] == "known_at"


def test_tx_and_queue_json(site) -> None:
    client, _, ids, _ = site
    tx = client.get("/tx/1", headers=JSON).json()
    assert tx["tx"]["principal"] == "digest:rules" and tx["turns"][0]["text"] == "I live in Lisbon"
    assert [p["value"] for p in tx["proposals"]] == ["Lisbon"]
    queue = client.get("/queue", headers=JSON).json()
    assert {p["id"] for p in queue["proposals"]} == {ids["berlin"], ids["again"]}
    assert [r["id"] for r in queue["rejections"]] == [ids["rejection"]]


@pytest.mark.parametrize(
    ("path", "status"),
    [("/tx/999", 404), ("/proposal/999", 404), ("/subject?scope=chat&subject=nobody", 404), ("/slot?scope=chat&subject=user&predicate=owns", 404)],
)
def test_not_found(site, path: str, status: int) -> None:
    client, *_ = site
    assert client.get(path).status_code == status


def test_stored_script_is_escaped(site) -> None:
    client, *_ = site
    for path in ("/slot?scope=chat&subject=user&predicate=likes", "/subject?scope=chat&subject=user"):
        html = client.get(path).text
        assert SCRIPT not in html and "&lt;script&gt;document.title=" in html


def test_writes(site) -> None:
    client, guard, ids, db = site
    accepted = _post(client, f"/proposal/{ids['berlin']}/accept", guard, data={"reason": "moved"})
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["message"].endswith("closed nothing")
    lifted = _post(client, f"/rejection/{ids['rejection']}/lift", guard)
    assert lifted.status_code == 200 and lifted.json()["lifted_by"] == "operator:rita"
    rejected = _post(client, f"/proposal/{ids['again']}/reject", guard, data={"reason": "still no"})
    assert rejected.json()["status"] == "rejected"
    with Ledger.open(db) as ledger:
        berlin = get_proposal(ledger, ids["berlin"])
        assert (berlin.status, berlin.decided_by) == ("applied", "operator:rita")
        assert ledger.transaction_record(berlin.tx).principal == "operator:rita"
        claim = ledger.current(["chat"], predicate="lives_in")[0]
    confirmed = _post(client, f"/claim/{claim.id}/confirm", guard)
    assert confirmed.json()["confirmed_by"] == "operator:rita"
    withdrawn = _post(client, f"/confirmation/{confirmed.json()['id']}/unconfirm", guard)
    assert withdrawn.json()["lifted_by"] == "operator:rita"
    again = _post(client, f"/proposal/{ids['berlin']}/accept", guard)  # a repeat (double click) is harmless
    assert again.status_code == 200 and again.json()["already"] is True and "already accepted by operator:rita" in again.json()["message"]
    twice = _post(client, f"/proposal/{ids['again']}/reject", guard)
    assert twice.status_code == 200 and twice.json()["already"] is True
    contrary = _post(client, f"/proposal/{ids['again']}/accept", guard)  # the other decision is still a conflict
    assert contrary.status_code == 409 and "not pending" in contrary.json()["error"]


def test_edit_and_accept_through_the_page(site) -> None:
    client, guard, ids, db = site
    done = _post(client, f"/proposal/{ids['berlin']}/accept", guard,
                 data={"value": "Hamburg", "valid_from": "2026-07-01", "edit_valid_to": "1", "valid_to": "2026-09-01"})
    assert done.status_code == 200, done.text
    body = done.json()
    assert (body["value"], body["corrected"], body["valid_to"]) == ("Hamburg", ids["berlin"], "2026-09-01T00:00:00.000000Z")
    bad = _post(client, f"/proposal/{body['id']}/accept", guard, data={"valid_from": "whenever"})
    assert bad.status_code == 400 and bad.json()["field"] == "valid_from"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"token": None}, "token"),
        ({"token": "wrong-token-wrong-token"}, "token"),
        ({"origin": "http://evil.example"}, "origin"),
        ({"origin": None}, "origin"),
        ({"csrf": ""}, "csrf"),
        ({"csrf": "0" * 64}, "csrf"),
    ],
)
def test_writes_refused(site, change, field: str) -> None:
    client, guard, ids, db = site
    for path in (f"/proposal/{ids['berlin']}/accept", f"/proposal/{ids['berlin']}/reject", f"/rejection/{ids['rejection']}/lift",
                 "/claim/1/confirm", "/confirmation/1/unconfirm"):
        response = _post(client, path, guard, **change)
        assert response.status_code == 403 and response.json()["field"] == field, (path, response.text)
    with Ledger.open(db) as ledger:
        assert get_proposal(ledger, ids["berlin"]).status == "pending"
        assert len(list_rejections(ledger)) == 1


@pytest.mark.parametrize("guard", [Guard(TOKEN, "agent:hermes"), Guard(TOKEN, "digest:rules"), Guard(None, "operator:rita")])
def test_writes_refused_for_non_operators_and_read_only(tmp_path, guard) -> None:
    db = tmp_path / "l.db"
    ids = seed(db)
    client = TestClient(create_app(db, guard=guard, hosts=("testserver",)))
    response = _post(client, f"/proposal/{ids['berlin']}/accept", Guard(TOKEN, "operator:x"))
    assert response.status_code == 403 and response.json()["field"] == "principal"
    assert "accept</button>" not in client.get("/queue").text
    with Ledger.open(db) as ledger:
        assert get_proposal(ledger, ids["berlin"]).status == "pending"


def test_login_sets_an_httponly_cookie_and_forms_carry_csrf(site) -> None:
    client, guard, ids, _ = site
    assert "accept</button>" not in client.get("/queue").text  # not signed in: read-only
    wrong = client.post("/login", data={"token": "nope"}, headers={"origin": ORIGIN})
    assert wrong.status_code == 403
    foreign = client.post("/login", data={"token": TOKEN}, headers={"origin": "http://evil.example"})
    assert foreign.status_code == 403
    ok = client.post("/login", data={"token": TOKEN, "next": "/queue"}, headers={"origin": ORIGIN}, follow_redirects=False)
    assert ok.status_code == 303 and ok.headers["location"] == "/queue"
    elsewhere = client.post("/login", data={"token": TOKEN, "next": "//evil.example/x"}, headers={"origin": ORIGIN}, follow_redirects=False)
    assert elsewhere.headers["location"] == "/queue"  # no open redirect
    cookie = ok.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    page = client.get("/queue").text
    assert "accept</button>" in page and guard.csrf() in page
    # A form post from the page with the cookie (no Authorization header) works and redirects.
    done = client.post(f"/proposal/{ids['berlin']}/reject", data={"csrf": guard.csrf()}, headers={"origin": ORIGIN}, follow_redirects=False)
    assert done.status_code == 303 and client.cookies.get(COOKIE) == TOKEN
    out = client.post("/logout", headers={"origin": ORIGIN}, follow_redirects=False)
    assert out.status_code == 303


def test_token_file_must_be_private(tmp_path) -> None:
    path = tmp_path / "token"
    write_token_file(path, TOKEN)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and read_token_file(path) == TOKEN
    os.chmod(path, 0o644)
    with pytest.raises(TokenFileError, match="chmod 600"):
        read_token_file(path)
    with pytest.raises(TokenFileError):
        read_token_file(tmp_path / "missing")


def test_ui_command_refuses_a_readable_token_file_and_contradictions(tmp_path) -> None:
    from click.testing import CliRunner

    from factledger.cli.main import cli

    path = tmp_path / "token"
    write_token_file(path, TOKEN)
    os.chmod(path, 0o644)
    db = str(tmp_path / "l.db")
    loose = CliRunner().invoke(cli, ["--db", db, "ui", "--token-file", str(path)])
    assert loose.exit_code == 2 and "token-file:" in loose.output and "chmod 600" in loose.output
    both = CliRunner().invoke(cli, ["--db", db, "ui", "--read-only", "--token-file", str(path)])
    assert both.exit_code == 2 and "--read-only takes no token" in both.output
