"""The review page for a backlog over HTTP (fast: the test client, no browser): exact counts and pages,
filters and search, an unknown scope refused by name, HTML error pages, sign-in that keeps the page,
submit-and-next, bulk preview then run, and a held writer that does not delay reads."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
import re
import shutil
import sqlite3

import pytest

pytest.importorskip("fastapi", reason="the ui extra (fastapi) is not installed")
import httpx  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from factledger.cli.ui.app import create_app  # noqa: E402
from factledger.cli.ui.security import Guard  # noqa: E402
from factledger.digest import Digester, Journal, RulesExtractor, Turn, get_proposal, list_proposals, list_rejections  # noqa: E402
from factledger.ledger import Ledger  # noqa: E402

from .ui_support import seed, seed_backlog  # noqa: E402

TOKEN = "a-test-operator-token-0123456789"
ORIGIN = "http://testserver"
JSON = {"accept": "application/json"}
WRITE = {**JSON, "origin": ORIGIN, "authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def backlog_db(tmp_path_factory):
    """The page's usual ledger plus 30 held proposals; copied per test that writes."""
    db = tmp_path_factory.mktemp("queue") / "l.db"
    ids = seed(db)
    ids["backlog"] = seed_backlog(db, 30)
    return db, ids


@pytest.fixture
def site(backlog_db, tmp_path):
    source, ids = backlog_db
    db = tmp_path / "l.db"
    with sqlite3.connect(source) as src, sqlite3.connect(db) as dst:
        src.backup(dst)
    key = source.with_name(source.name + ".chain-key")  # the hash chain's key file, private as it was
    if key.exists():
        shutil.copy2(key, db.with_name(db.name + ".chain-key"))
    guard = Guard(token=TOKEN, principal="operator:rita")
    return TestClient(create_app(db, guard=guard, hosts=("testserver",))), guard, ids, db


def test_exact_count_pages_and_order(site) -> None:
    client, _, ids, _ = site
    first = client.get("/queue?per_page=10", headers=JSON).json()
    assert (first["total"], first["pages"], first["counts"]["pending"], first["counts"]["rejected_again"]) == (32, 4, 31, 1)
    assert len(first["proposals"]) == 10 and first["proposals"][0]["id"] == ids["backlog"][-1]  # newest first
    competing = first["proposals"][0]["preview"]  # 30 other open `likes` proposals: 10 listed, all counted
    assert (len(competing["competing"]), competing["competing_total"]) == (10, 30) and "and 20 more proposals" in competing["lines"][-1]
    oldest = client.get("/queue?per_page=10&order=oldest", headers=JSON).json()
    assert [p["id"] for p in oldest["proposals"]][:2] == sorted([ids["berlin"], ids["again"]])
    last = client.get("/queue?per_page=10&page=4", headers=JSON).json()
    assert len(last["proposals"]) == 2
    html = client.get("/queue?per_page=10&page=2").text
    assert "showing 11–20 of 32 · page 2 of 4" in html and 'rel="next"' in html and 'rel="prev"' in html
    assert "11 of 32" in html  # each card says where it is in the queue
    again = client.get("/queue?view=rejected_again", headers=JSON).json()
    assert [p["id"] for p in again["proposals"]] == [ids["again"]]
    beyond = client.get("/queue?per_page=10&page=9", headers=JSON)
    assert beyond.status_code == 400 and beyond.json()["field"] == "page"


def test_filters_search_and_unknown_scope(site) -> None:
    client, _, ids, _ = site

    def total(query: str) -> int:
        response = client.get("/queue?" + query, headers=JSON)
        assert response.status_code == 200, response.text
        return response.json()["total"]

    assert total("session=s-a") == 15 and total("session=s-b") == 15
    assert total("q=thing2") == 11  # thing2, thing20…29
    assert total("predicate=lives_in") == 1 and total("subject=user&predicate=likes") == 31
    assert total("extractor=rules&policy=strict") == 32 and total("reason=REJECTED again") == 1 and total("reason=waits for") == 31
    assert total("scope=chat") == 32
    html = client.get("/queue?scope=nowhere")
    assert html.status_code == 400 and "<h1>Error 400</h1>" in html.text and "no scope &#39;nowhere&#39;" in html.text
    data = client.get("/queue?scope=nowhere", headers=JSON)
    assert data.status_code == 400 and data.json()["field"] == "scope"
    assert client.get("/queue?order=sideways", headers=JSON).json()["field"] == "order"


@pytest.mark.parametrize(("path", "status"), [("/no/such/page", 404), ("/proposal/abc", 400), ("/slot?scope=demo", 400)])
def test_error_pages_are_html_for_people_and_json_for_scripts(site, path: str, status: int) -> None:
    client, *_ = site
    page = client.get(path)
    assert page.status_code == status and page.headers["content-type"].startswith("text/html")
    assert f"<h1>Error {status}</h1>" in page.text and 'name="viewport"' in page.text
    data = client.get(path, headers=JSON)
    assert data.status_code == status and "error" in data.json()


def test_sign_in_keeps_the_page_and_its_query(site) -> None:
    client, *_ = site
    form = client.get("/queue?session=s-b&page=2&per_page=5").text
    assert 'name="next" value="/queue?session=s-b&amp;page=2&amp;per_page=5"' in form
    wrong = client.post("/login", data={"token": "nope", "next": "/queue?session=s-b"}, headers={"origin": ORIGIN})
    assert wrong.status_code == 403 and "<h1>Error 403</h1>" in wrong.text and 'value="/queue?session=s-b"' in wrong.text
    ok = client.post("/login", data={"token": TOKEN, "next": "/queue?session=s-b&page=2&per_page=5"}, headers={"origin": ORIGIN},
                     follow_redirects=False)
    assert ok.status_code == 303 and ok.headers["location"] == "/queue?session=s-b&page=2&per_page=5"


def test_submit_and_next_without_script(site) -> None:
    client, guard, ids, db = site
    client.post("/login", data={"token": TOKEN}, headers={"origin": ORIGIN})
    html = client.get("/queue?session=s-a&order=oldest").text
    first, second = ids["backlog"][:2]
    assert f'value="/queue?session=s-a&amp;order=oldest#proposal-{second}"' in html
    done = client.post(f"/proposal/{first}/accept", data={"csrf": guard.csrf(), "next": f"/queue?session=s-a&order=oldest#proposal-{second}"},
                       headers={"origin": ORIGIN}, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == f"/queue?session=s-a&order=oldest#proposal-{second}"
    foreign = client.post(f"/proposal/{second}/reject", data={"csrf": guard.csrf(), "next": "//evil.example/"},
                          headers={"origin": ORIGIN}, follow_redirects=False)
    assert foreign.headers["location"] == f"/proposal/{second}"  # no open redirect
    with Ledger.open(db) as ledger:
        assert [get_proposal(ledger, i).status for i in (first, second)] == ["applied", "rejected"]


def test_bulk_preview_then_run(site) -> None:
    client, guard, ids, db = site
    chosen = ids["backlog"][15:]  # session s-b, chosen as "all matching this filter"
    client.post("/login", data={"token": TOKEN}, headers={"origin": ORIGIN})
    form = {"csrf": guard.csrf(), "action": "reject", "all_matching": "1", "filter": "session=s-b", "reason": "duplicates"}
    preview = client.post("/bulk/preview", data=form, headers={"origin": ORIGIN})
    assert preview.status_code == 200 and "Preview: reject 15 proposals" in preview.text
    assert all(f'id="bulk-{i}"' in preview.text for i in chosen) and "&#39;thing29&#39; goes into rejection memory" in preview.text
    with Ledger.open(db) as ledger:
        assert all(get_proposal(ledger, i).status == "pending" for i in chosen) and len(list_rejections(ledger)) == 1
    posted = re.findall(r'name="id" value="(\d+)"', preview.text)
    assert sorted(map(int, posted)) == chosen  # the confirm form names exactly what was previewed
    run = client.post("/bulk/run", data={"csrf": guard.csrf(), "action": "reject", "id": posted, "reason": "duplicates"},
                      headers={"origin": ORIGIN})
    assert run.status_code == 200 and "Done: 15 decided" in run.text
    clash = client.post("/bulk/preview", headers=WRITE, data={"csrf": guard.csrf(), "action": "accept",
                                                               "id": [str(ids["berlin"]), str(ids["again"])]})
    assert clash.status_code == 200 and clash.json()["blocked"]  # the rejected-again one must be lifted first
    none = client.post("/bulk/preview", headers=WRITE, data={"csrf": guard.csrf(), "action": "reject"})
    assert none.status_code == 400 and none.json()["field"] == "id"
    with Ledger.open(db) as ledger:
        assert {get_proposal(ledger, i).status for i in chosen} == {"rejected"}
        assert get_proposal(ledger, ids["berlin"]).status == "pending"
        assert len(list_proposals(ledger, status="open", limit=500)) == 17


def test_a_held_writer_never_delays_a_read(site) -> None:
    """Another connection holds the ledger's write lock: an accept waits for it in a worker thread,
    while a read is answered meanwhile; once the writer lets go, the accept completes."""
    client, guard, ids, db = site
    app = client.app

    async def scenario() -> tuple[bool, int, int]:
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
                write = asyncio.create_task(http.post(f"/proposal/{ids['berlin']}/accept", data={"csrf": guard.csrf()}, headers=WRITE))
                await asyncio.sleep(0.3)  # let the write start and block on the lock (not a timing assertion)
                read = await http.get("/queue", headers=JSON)
                page = await http.get(f"/proposal/{ids['berlin']}")
                still_waiting = not write.done()
                assert "preview not shown" in page.text  # the card says its preview waits, instead of waiting
                holder.execute("COMMIT")
                written = await write
                return still_waiting, read.status_code, written.status_code
        finally:
            if holder.in_transaction:
                holder.execute("ROLLBACK")
            holder.close()

    still_waiting, read_status, write_status = asyncio.run(scenario())
    assert read_status == 200 and still_waiting  # the read was served while the write waited
    assert write_status == 200
    with Ledger.open(db) as ledger:
        assert get_proposal(ledger, ids["berlin"]).status == "applied"


def test_timeline_states_are_honest(site) -> None:
    """A re-dated value is not 'retracted'; a value retracted from a date is partly retracted (the rest
    kept); a retraction that writes no version gets a row and an 'as known at' moment; open ends and now
    are drawn; a known_at between two moments is named alike by the text, the list and the slider."""
    client, _, _, db = site
    with Ledger.open(db) as ledger:
        with ledger.transaction(principal="operator:ann") as tx:
            tx.add("chat", "user", "works_at", "Acme", valid_from="2023-01-01")
            tx.add("chat", "user", "team", "red", valid_from="2023-01-01")
            tx.add("chat", "user", "born_in", "Oslo", valid_from="1990-01-01")
        with ledger.transaction(principal="operator:ann", reason="re-date") as tx:
            tx.supersede("chat", "user", "works_at", "Acme", replaces="Acme", valid_from="2022-06-01")
            tx.retract("chat", "user", "team", "red", valid_from="2023-09-01")
        with ledger.transaction(principal="operator:ann", reason="wrong") as tx:
            tx.retract("chat", "user", "born_in", "Oslo", valid_from="1990-01-01")

    def slot(predicate: str, extra: str = "") -> dict:
        response = client.get(f"/slot?scope=chat&subject=user&predicate={predicate}{extra}", headers=JSON)
        assert response.status_code == 200, response.text
        return response.json()

    redated = slot("works_at")
    assert [b["state"] for b in redated["bars"]] == ["re-dated", "current"]
    assert redated["bars"][1]["open_end"] and "open end" in redated["bars"][1]["label"]
    team = [(b["state"], b["retracted"]) for b in slot("team")["bars"]]
    assert team == [("partly retracted", [["2023-09-01T00:00:00.000000Z", None]]), ("current", [])]
    born = slot("born_in")
    assert [b["state"] for b in born["bars"]] == ["retracted", "retraction"]  # the retraction has its own row
    assert born["bars"][1]["opened_at"] in born["moments"] and len(born["moments"]) == 2
    layers = born["spec"]["layer"]
    assert any(layer.get("mark", {}).get("type") == "rule" for layer in layers)  # the now line
    assert born["spec"]["width"] == "container"
    segments = [row["state"] for row in slot("team")["spec"]["layer"][0]["data"]["values"]]
    assert segments == ["partly retracted", "retracted", "current"]  # the removed part drawn apart
    assert any(row["open"] for row in redated["spec"]["layer"][0]["data"]["values"])
    # a shared moment between the two transactions: the text, the list and the slider name it alike
    first, second = born["moments"]
    between = (datetime.fromisoformat(first.replace("Z", "+00:00")) + timedelta(microseconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert first < between < second
    page = client.get(f"/slot?scope=chat&subject=user&predicate=born_in&known_at={between}").text
    assert f'<option value="{between}" selected>' in page
    assert 'value="1"' in page.split('id="known-at-range"')[1].split(">")[0]  # the slider is on it
    assert "moment 2 of 3" in page and "retraction of claim version" not in page  # not yet retracted then
    assert "retraction of claim version" in client.get("/slot?scope=chat&subject=user&predicate=born_in").text
    assert slot("born_in", f"&known_at={between}")["moments"] == [first, between, second]
    assert [b["state"] for b in slot("born_in", f"&known_at={between}")["bars"]] == ["current"]  # retracted later


def test_an_empty_slot_with_a_proposal_is_a_page_not_a_404(site) -> None:
    client, _, _, db = site
    with Ledger.open(db) as ledger:
        Journal(ledger).append(Turn(scope="other", text="I love tea", said_at="2026-08-02T10:00:00Z", session="s-c"))
        Digester(ledger, RulesExtractor(), policy="strict").run()
    (card,) = client.get("/queue?scope=other", headers=JSON).json()["proposals"]
    page = client.get("/slot?scope=other&subject=user&predicate=likes")
    assert page.status_code == 200 and "no version of this slot yet" in page.text and f'href="/proposal/{card["id"]}"' in page.text
    data = client.get("/slot?scope=other&subject=user&predicate=likes", headers=JSON).json()
    assert data["bars"] == [] and data["proposals_total"] == 1
    assert client.get("/slot?scope=other&subject=user&predicate=lives_in").status_code == 404  # nothing there at all


def test_undo_the_last_decision(site) -> None:
    """Accept then undo over HTTP: the inverse transaction, the decision kept, a pending copy that can be
    decided again; a repeated undo is harmless; an undo the ledger does not allow says why. Without
    script the undo form sits on the decided proposal's page and lands on the copy."""
    client, guard, ids, db = site
    client.post("/login", data={"token": TOKEN}, headers={"origin": ORIGIN})
    berlin = ids["berlin"]
    with Ledger.open(db) as ledger:
        before = [c.value for c in ledger.current(["chat"], predicate="lives_in")]
    assert client.post(f"/proposal/{berlin}/accept", data={"csrf": guard.csrf()}, headers=WRITE).status_code == 200
    page = client.get(f"/proposal/{berlin}").text
    assert f'action="/proposal/{berlin}/undo"' in page and "undo accept" in page
    undone = client.post(f"/proposal/{berlin}/undo", data={"csrf": guard.csrf(), "reason": "too fast"}, headers=WRITE)
    assert undone.status_code == 200, undone.text
    data = undone.json()
    copy = data["reopened"]["id"]
    assert data["undone"] == "accept" and data["undo_tx"] and not data["already"] and "pending again as proposal" in data["message"]
    again = client.post(f"/proposal/{berlin}/undo", data={"csrf": guard.csrf()}, headers=WRITE)
    assert again.status_code == 200 and again.json()["already"] and again.json()["reopened"]["id"] == copy
    assert f'action="/proposal/{berlin}/undo"' not in client.get(f"/proposal/{berlin}").text  # nothing left to undo
    with Ledger.open(db) as ledger:
        assert [c.value for c in ledger.current(["chat"], predicate="lives_in")] == before
        assert (get_proposal(ledger, berlin).status, get_proposal(ledger, copy).status) == ("applied", "pending")
    # reject, then undo without script: the form posts and the page moves to the reopened proposal
    first = ids["backlog"][0]
    client.post(f"/proposal/{first}/reject", data={"csrf": guard.csrf()}, headers=WRITE)
    moved = client.post(f"/proposal/{first}/undo", data={"csrf": guard.csrf()}, headers={"origin": ORIGIN}, follow_redirects=False)
    assert moved.status_code == 303 and re.fullmatch(r"/proposal/\d+", moved.headers["location"])
    assert "pending" in client.get(moved.headers["location"]).text
    # a later change to the slot stands: undoing the accept under it is refused, by name
    client.post(f"/proposal/{copy}/accept", data={"csrf": guard.csrf()}, headers=WRITE)
    with Ledger.open(db) as ledger, ledger.transaction(principal="operator:ann", reason="later") as tx:
        tx.supersede("chat", "user", "lives_in", "Rome")
    refused = client.post(f"/proposal/{copy}/undo", data={"csrf": guard.csrf()}, headers=WRITE)
    assert refused.status_code == 409 and "that later change stands" in refused.json()["error"]
    html = client.post(f"/proposal/{copy}/undo", data={"csrf": guard.csrf()}, headers={"origin": ORIGIN})
    assert html.status_code == 409 and "<h1>Error 409</h1>" in html.text


def test_reject_duplicates_previews_every_change(site) -> None:
    client, guard, ids, db = site
    with Ledger.open(db) as ledger:  # thing3 and thing4 said again in another session: two duplicates
        journal = Journal(ledger)
        for i in (3, 4):
            journal.append(Turn(scope="chat", text=f"I love thing{i}", said_at=f"2026-08-01T10:00:0{i}Z", session="s-c"))
        Digester(ledger, RulesExtractor(), policy="strict").run()
        dups = sorted(p.id for p in list_proposals(ledger, status="pending", limit=500) if p.id > max(ids["backlog"]))
    assert len(dups) == 2
    client.post("/login", data={"token": TOKEN}, headers={"origin": ORIGIN})
    html = client.get("/queue").text
    assert 'id="reject-duplicates"' in html
    preview = client.post("/bulk/preview", data={"csrf": guard.csrf(), "duplicates": "1", "filter": "", "action": "accept"},
                          headers={"origin": ORIGIN})
    assert preview.status_code == 200 and "Preview: reject 2 duplicate proposals" in preview.text
    assert f"repeats proposal #{ids['backlog'][3]}" in preview.text and "Nothing is written yet" in preview.text
    posted = sorted(map(int, re.findall(r'name="id" value="(\d+)"', preview.text)))
    assert posted == dups and 'name="action" value="reject"' in preview.text
    with Ledger.open(db) as ledger:
        assert {get_proposal(ledger, i).status for i in dups} == {"pending"}  # the preview wrote nothing
    as_json = client.post("/bulk/preview", data={"csrf": guard.csrf(), "duplicates": "1", "filter": "session=s-c"}, headers=WRITE).json()
    assert sorted(int(i) for i in as_json["duplicates"]) == dups and as_json["action"] == "reject"
    none = client.post("/bulk/preview", data={"csrf": guard.csrf(), "duplicates": "1", "filter": "session=s-a"}, headers=WRITE)
    assert none.status_code == 400 and none.json()["field"] == "filter"
    assert 'name="duplicates" value="1"' in preview.text and "nothing goes into rejection memory (a duplicate" in preview.text
    form = {"csrf": guard.csrf(), "action": "reject", "duplicates": "1", "filter": "", "reason": "duplicates"}
    stale = client.post("/bulk/run", data={**form, "id": [str(dups[0]), str(ids["backlog"][5])]}, headers=WRITE)
    assert stale.status_code == 409 and stale.json()["field"] == "id"  # not a duplicate: refused, nothing run
    run = client.post("/bulk/run", data={**form, "id": [str(i) for i in posted]}, headers={"origin": ORIGIN})
    assert "Done: 2 decided" in run.text
    with Ledger.open(db) as ledger:
        assert {get_proposal(ledger, i).status for i in dups} == {"rejected"}
        assert get_proposal(ledger, ids["backlog"][3]).status == "pending"  # the one repeated stays to be decided
        assert len(list_rejections(ledger)) == 1  # duplicates are not remembered as wrong values
    client.post(f"/proposal/{ids['backlog'][3]}/accept", data={"csrf": guard.csrf()}, headers=WRITE).raise_for_status()


def test_a_proposal_drawn_before_and_after_on_an_empty_slot(site) -> None:
    """Two proposals for a slot with no version yet: the chart has no "before" row, an "after" row with
    the value it would write, and the competing proposal as a row linking to it."""
    client, _, _, db = site
    with Ledger.open(db) as ledger:
        journal = Journal(ledger)
        for i, city in enumerate(["Oslo", "Rome"]):
            journal.append(Turn(scope="fresh", text=f"I live in {city}", said_at=f"2026-09-0{i + 1}T10:00:00Z", session="f"))
        Digester(ledger, RulesExtractor(), policy="strict").run()
        oslo, rome = sorted(p.id for p in list_proposals(ledger, scope="fresh"))
    drawn = client.get(f"/proposal/{oslo}", headers=JSON).json()["before_after"]
    rows = [(d["row"], d["value"], d["state"], d["href"]) for d in drawn["layer"][0]["data"]["values"]]
    assert rows == [(f"after: if proposal #{oslo} is accepted", "Oslo", "written if accepted", f"/proposal/{oslo}"),
                    (f"proposal #{rome} (competing)", "Rome", "competing proposal", f"/proposal/{rome}")]
    html = client.get(f"/proposal/{oslo}").text
    assert "(nothing yet: the slot is empty)" in html and 'id="timeline-spec"' in html and f'href="/proposal/{rome}"' in html
