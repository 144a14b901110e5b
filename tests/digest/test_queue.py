"""The review queue for a backlog (digest/queue.py): exact counts per status, pages in both orders,
every filter and the search, an unknown scope refused by name, and a bulk preview that shows every
change and changes nothing. SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from factledger.digest import bulk_preview, get_proposal, list_proposals, queue_filter, queue_page, reject
from factledger.ledger import ValidationError

pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]

ANN = "operator:ann"


@pytest.fixture
def backlog(talk):
    """Eleven held proposals over two sessions (strict policy), one of them rejected."""
    talk.policy = "strict"
    cities = ["Lisbon", "Porto", "Paris", "Berlin", "Rome", "Oslo", "Vienna"]
    for i, city in enumerate(cities):
        talk.say(f"I live in {city}", f"2026-01-0{i + 1}T10:00:00Z", session="s1")
    for i, food in enumerate(["jazz", "tea", "chess", "50%_off"]):
        talk.say(f"I love {food}", f"2026-02-0{i + 1}T10:00:00Z", session="s2")
    talk.digest("2026-03-01T00:00:00Z")
    tea = next(p for p in list_proposals(talk.ledger) if p.value == "tea")
    reject(talk.ledger, tea.id, principal=ANN, reason="no")
    return talk


def _values(page) -> list[str]:
    return [p.value for p in page.proposals]


def test_exact_counts_and_pages_both_orders(backlog) -> None:
    lg = backlog.ledger
    f = queue_filter(lg)
    first = queue_page(lg, f, per_page=4)
    assert (first.total, first.pages, first.counts["pending"], first.counts["rejected"]) == (10, 3, 10, 1)
    assert _values(first) == ["50%_off", "chess", "jazz", "Vienna"] and (first.first, first.last) == (1, 4)
    last = queue_page(lg, f, per_page=4, page=3)
    assert _values(last) == ["Porto", "Lisbon"] and (last.first, last.last) == (9, 10)
    oldest = queue_page(lg, f, per_page=4, oldest_first=True)
    assert _values(oldest) == ["Lisbon", "Porto", "Paris", "Berlin"]
    pages = [p.id for n in (1, 2, 3) for p in queue_page(lg, f, per_page=4, page=n).proposals]
    assert len(pages) == len(set(pages)) == 10  # every open proposal on exactly one page
    with pytest.raises(ValidationError) as beyond:
        queue_page(lg, f, per_page=4, page=4)
    assert beyond.value.field == "page"
    with pytest.raises(ValidationError) as huge:
        queue_page(lg, f, per_page=10_000)
    assert huge.value.field == "per_page"


def test_filters_and_search(backlog) -> None:
    lg = backlog.ledger

    def values(**kw) -> list[str]:
        return sorted(_values(queue_page(lg, queue_filter(lg, **kw), per_page=50)))

    assert values(predicate="lives_in") == sorted(["Lisbon", "Porto", "Paris", "Berlin", "Rome", "Oslo", "Vienna"])
    assert values(session="s2") == ["50%_off", "chess", "jazz"]
    assert values(session="s2", view="all") == ["50%_off", "chess", "jazz", "tea"]
    assert values(view="rejected") == ["tea"]
    assert values(search="PORTO") == ["Porto"]  # case-insensitive, anywhere in the text
    assert values(search="%_") == ["50%_off"]  # wildcards are taken literally
    assert values(subject="User", predicate="likes", session="s2") == ["50%_off", "chess", "jazz"]
    assert values(scope="chat", extractor="rules", policy="strict") == values()
    some = get_proposal(lg, queue_page(lg, queue_filter(lg), per_page=1).proposals[0].id)
    assert values(reason=some.reason[:12].upper()) == values()  # every one held for the same reason
    assert values(extractor="llm:x") == [] and values(session="nope") == []


@pytest.mark.parametrize(("kw", "field"), [({"scope": "nowhere"}, "scope"), ({"view": "stale"}, "view"), ({"subject": "\ud800"}, "subject")])
def test_unknown_scope_or_view_is_an_error(backlog, kw, field) -> None:
    with pytest.raises(ValidationError) as bad:
        queue_filter(backlog.ledger, **kw)
    assert bad.value.field == field
    if field == "scope":
        assert "chat" in str(bad.value)  # names the scopes there are


def test_bulk_preview_shows_every_change_and_changes_nothing(backlog) -> None:
    lg = backlog.ledger
    opened = {p.value: p.id for p in list_proposals(lg, status="open")}
    before = [(p.id, p.status) for p in list_proposals(lg, status=None)]
    accept = bulk_preview(lg, [opened["jazz"], opened["chess"]], "accept", principal=ANN)
    assert accept.blocked == "" and [i.proposal.id for i in accept.items] == [opened["jazz"], opened["chess"]]
    assert accept.items[0].lines[0] == "accept: add user likes 'jazz'" and accept.items[0].lines[1] == "write 'jazz' [unknown, …)"
    rejected = bulk_preview(lg, [opened["Rome"]], "reject", principal=ANN)
    assert "'Rome' goes into rejection memory" in rejected.items[0].lines[1]
    clash = bulk_preview(lg, [opened["Rome"], opened["Oslo"]], "accept", principal=ANN)  # one slot: refused together
    assert "compete for the same slot" in clash.blocked and len(clash.items) == 2
    assert [(p.id, p.status) for p in list_proposals(lg, status=None)] == before
    assert lg.current(["chat"]) == []
