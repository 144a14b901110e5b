"""The page end to end in headless Chromium (Debian's chromium + chromium-driver through Selenium), over
a ledger with 2,000 pending proposals: the timeline's bars, the "as known at" control, a reviewer's
walk (filter, reject duplicates after reading the preview, accept by keyboard and move on, undo, read
the timelines of a re-dated and a partly retracted value), the queue's tab stops, a stored `<script>`
value shown as text, and axe-core's check of every page. One browser and one server for the module;
screenshots are saved under pytest's tmp dir (and FACTLEDGER_SCREENSHOTS, when set, e.g. to refresh
docs/images)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the ui extra (fastapi) is not installed")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI: chromium and chromium-driver must be installed (.ci/run installs them)")
    pytest.skip("chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)", allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from factledger.cli.ui.app import create_app  # noqa: E402
from factledger.cli.ui.security import Guard  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from factledger.digest import Digester, Journal, RulesExtractor, Turn, get_proposal, list_proposals, list_rejections  # noqa: E402
from factledger.ledger import Ledger  # noqa: E402

from .ui_support import SCRIPT, axe_violations, seed, seed_backlog, serving  # noqa: E402

TOKEN = "browser-test-operator-token-0123"
SLOT = "/slot?scope=chat&subject=user&predicate=lives_in"


PENDING = 2000
DUPLICATES = 5


def _seed_more(db: Path) -> dict[str, list[int]]:
    """Beside the backlog: five of its turns said again in session s-c (five duplicates), and scope
    "home" where Lisbon is believed and two proposals wait: Paris (a supersede of Lisbon) and tea."""
    with Ledger.open(db) as ledger:
        journal = Journal(ledger)
        for i in range(DUPLICATES):
            journal.append(Turn(scope="chat", text=f"I love thing{i}", said_at=f"2026-08-01T10:00:{i:02d}Z", session="s-c"))
        Digester(ledger, RulesExtractor(), policy="strict").run()
        dups = sorted(p.id for p in list_proposals(ledger, status="pending", limit=PENDING + 100) if p.value and p.value.startswith("thing"))
        journal.append(Turn(scope="home", text="I live in Lisbon", said_at="2026-01-01T10:00:00Z", session="h"))
        Digester(ledger, RulesExtractor()).run()
        journal.append(Turn(scope="home", text="I moved to Paris in March", said_at="2026-04-01T10:00:00Z", session="h"))
        journal.append(Turn(scope="home", text="I love tea", said_at="2026-04-02T10:00:00Z", session="h"))
        Digester(ledger, RulesExtractor(), policy="strict").run()
        home = sorted(p.id for p in list_proposals(ledger, status="pending", scope="home"))
    return {"duplicates": dups[-DUPLICATES:], "home": home}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("ui") / "l.db"
    ids = seed(db)
    ids["backlog"] = seed_backlog(db, PENDING)  # sessions s-a (1,000) and s-b (1,000)
    ids.update(_seed_more(db))
    with serving(create_app(db, guard=Guard(TOKEN, "operator:rita"))) as port:
        yield f"http://127.0.0.1:{port}", db, ids


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


def _shot(browser, shots: Path, name: str) -> None:
    browser.save_screenshot(str(shots / f"{name}.png"))
    extra = os.environ.get("FACTLEDGER_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(extra) / f"{name}.png"))


def _bars(browser) -> list[tuple[str, float]]:
    """The drawn bars' accessible labels with their vertical position, top first."""
    _wait(browser).until(lambda d: d.find_element(By.ID, "timeline").get_attribute("data-rendered") == "true")
    marks = browser.find_elements(By.CSS_SELECTOR, "#timeline g.mark-rect path")
    found = [(m.get_attribute("aria-label") or "", m.rect["y"]) for m in marks]
    return sorted(found, key=lambda item: item[1])


def test_timeline_bars_order_and_classes(server, browser, shots) -> None:
    base, _, _ = server
    browser.get(base + SLOT)
    bars = _bars(browser)  # Vega writes each bar's description channel as its aria-label
    assert len(bars) == 7, bars  # six versions; Paris's retracted part drawn as a piece of its own
    # One row per transaction, in transaction-time order top to bottom: the first belief, the digest's
    # supersede (Lisbon cut, Paris), the operator's correction (Lisbon, Porto), the retract (Paris cut).
    rows: dict[int, set[int]] = {}
    for aria, y in bars:
        rows.setdefault(round(y), set()).add(int(aria.split(" ")[2].lstrip("#")))
    assert [rows[y] for y in sorted(rows)] == [{1}, {2, 3}, {4, 5}, {6}]
    named = ("partly retracted", "retracted", "superseded", "current")
    state = {}
    for aria, _ in bars:
        state.setdefault(int(aria.split(" ")[2].lstrip("#")), next(n for n in named if f" {n}" in aria))
    assert state == {1: "superseded", 2: "superseded", 3: "partly retracted", 4: "current", 5: "current", 6: "current"}
    rows = browser.find_elements(By.CSS_SELECTOR, "#versions tr.version")
    assert [r.get_attribute("class").split()[1] for r in rows] == ["superseded", "superseded", "partly-retracted", "current", "current", "current"]
    marks = browser.find_elements(By.CSS_SELECTOR, "#timeline g.mark-rect path")
    assert len({m.get_attribute("fill") for m in marks}) == 4  # superseded, partly retracted, its removed part, current
    assert all(m.get_attribute("tabindex") == "0" for m in marks)  # every bar is reachable by keyboard
    _shot(browser, shots, "timeline")


def test_known_at_redraws_the_slot_as_believed_then(server, browser, shots) -> None:
    base, _, _ = server
    browser.get(base + SLOT)
    select = Select(browser.find_element(By.ID, "known-at"))
    first = select.options[0].get_attribute("value")
    select.select_by_index(0)  # submits on change
    _wait(browser).until(lambda d: "known_at=" in d.current_url)
    assert first.replace(":", "%3A") in browser.current_url or first in browser.current_url
    bars = _bars(browser)
    assert [a for a, _ in bars] == ["claim version #1 Lisbon current, open end"]
    assert browser.find_element(By.ID, "valid-now").text == "Lisbon"
    _shot(browser, shots, "known-at")
    browser.get(browser.current_url)  # the URL carries the state: a shared link shows the same view
    assert browser.find_element(By.ID, "valid-now").text == "Lisbon"


def test_stored_script_renders_as_text(server, browser) -> None:
    base, _, _ = server
    browser.get(base + "/slot?scope=chat&subject=user&predicate=likes")
    _bars(browser)
    assert browser.title != "owned"
    cell = browser.find_element(By.CSS_SELECTOR, "#versions tr.version td.value")
    assert cell.text == SCRIPT
    browser.get(base + "/subject?scope=chat&subject=user")
    assert SCRIPT in browser.find_element(By.TAG_NAME, "main").text and browser.title != "owned"


class _PageWait(WebDriverWait):
    """Chromium reports an element of the page being left either as stale or, mid-navigation, as an unknown
    error saying its node "does not belong to the document": both mean "look again", nothing else does."""

    def until(self, method, message: str = ""):
        def looking_again(driver):
            try:
                return method(driver)
            except WebDriverException as error:
                if "does not belong to the document" in (error.msg or ""):
                    return False
                raise

        return super().until(looking_again, message)


def _wait(browser) -> WebDriverWait:
    """Wait through page loads: an element of the page being left goes stale, one of the next is not there yet."""
    return _PageWait(browser, 20, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))


def _sign_in(browser, base: str) -> None:
    browser.get(base + "/queue")
    if "signed in as" in browser.find_element(By.TAG_NAME, "header").text:
        return
    form = browser.find_element(By.ID, "login")
    form.find_element(By.NAME, "token").send_keys(TOKEN)
    form.find_element(By.TAG_NAME, "button").click()
    _wait(browser).until(lambda d: "signed in as" in d.find_element(By.TAG_NAME, "header").text)


def _cards(browser) -> list:
    return browser.find_elements(By.CSS_SELECTOR, "#cards article.proposal")


def _active_id(browser) -> str:
    return browser.execute_script("var a = document.activeElement; var c = a && a.closest('article.proposal');"
                                  " return (a === c ? 'card:' : a.tagName + ':') + (c ? c.id : '');")


def test_reviewer_walk_through_a_backlog_of_2000(server, browser, shots) -> None:
    """One reviewer's pass over 2,000 pending: filter the queue, reject the duplicates after reading the
    preview of every change, accept by keyboard (j then a: the card says what changed and the next card
    gets the focus), undo that accept (u), then read the slot's timeline: Lisbon re-dated by the undo,
    and elsewhere Paris partly retracted. Then lift a rejection and reject by keyboard."""
    base, db, ids = server
    _sign_in(browser, base)
    total = int(browser.find_element(By.ID, "queue-total").text.split()[0])
    assert total == PENDING + DUPLICATES + 4  # the backlog, its duplicates, Berlin, the jazz again, home's two
    _shot(browser, shots, "queue")
    # filter, then preview "reject duplicates": every change listed, nothing written yet
    browser.get(base + "/queue?session=s-c")
    assert browser.find_element(By.ID, "queue-total").text.startswith(f"{DUPLICATES} ")
    browser.find_element(By.ID, "reject-duplicates").click()
    _wait(browser).until(lambda d: d.find_element(By.TAG_NAME, "h1").text == f"Preview: reject {DUPLICATES} duplicate proposals")
    items = browser.find_elements(By.CSS_SELECTOR, "#bulk-items > li")
    assert [int(i.get_attribute("id").split("-")[1]) for i in items] == ids["duplicates"]
    for item, original in zip(items, ids["backlog"][:DUPLICATES]):
        assert f"duplicate: repeats proposal #{original}" in item.text and "nothing goes into rejection memory" in item.text
    with Ledger.open(db) as ledger:
        assert {get_proposal(ledger, i).status for i in ids["duplicates"]} == {"pending"}  # a preview changes nothing
    _shot(browser, shots, "bulk-preview")
    browser.find_element(By.CSS_SELECTOR, "#bulk-run button").click()
    _wait(browser).until(lambda d: d.find_element(By.TAG_NAME, "h1").text == f"Done: {DUPLICATES} decided")
    # keyboard: j focuses the first card, a accepts it, the summary replaces the buttons, focus moves on
    paris, tea = ids["home"]

    def home() -> list[tuple[str, str, str | None]]:
        with Ledger.open(db) as ledger:
            history = ledger.history(["home"], subject="user", predicate="lives_in")
            return sorted((h.version.value, h.version.valid_from, h.version.valid_to) for h in history if h.version.tx_to is None)

    before = home()
    browser.get(base + "/queue?scope=home&order=oldest")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    card = browser.find_element(By.ID, f"proposal-{paris}")
    _wait(browser).until(lambda d: "current" in card.get_attribute("class"))
    body.send_keys("a")
    _wait(browser).until(lambda d: "decided" in card.get_attribute("class"))
    said = card.find_element(By.CSS_SELECTOR, "output.outcome").text
    assert "accepted proposal" in said and "closed claim version" in said and "Lisbon" in said
    assert not card.find_element(By.CSS_SELECTOR, "button.accept").is_displayed()  # no second decision to click
    _wait(browser).until(lambda d: _active_id(d) == f"card:proposal-{tea}")  # moved on to the next card
    with Ledger.open(db) as ledger:
        assert [c.value for c in ledger.current(["home"], predicate="lives_in")] == ["Paris"]  # valid now
    # u undoes the last decision: the reopened proposal takes the card's place, in focus
    browser.switch_to.active_element.send_keys("u")
    _wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#cards p.undone"))
    reopened = browser.find_element(By.CSS_SELECTOR, "#cards p.undone").find_element(By.XPATH, "..")
    assert "undid the accept of proposal" in reopened.text and "pending" in reopened.find_element(By.CSS_SELECTOR, ".status").text
    assert _active_id(browser) == f"card:{reopened.get_attribute('id')}"
    assert home() == before and before[0][0] == "Lisbon" and before[0][2] is None  # Lisbon, open-ended, again
    with Ledger.open(db) as ledger:
        assert get_proposal(ledger, paris).status == "applied"  # the decision stays on record
    _shot(browser, shots, "undo")
    # the timeline tells what happened: Lisbon cut by the accept, then re-dated (written whole again) by the undo
    browser.get(base + "/slot?scope=home&subject=user&predicate=lives_in")
    states = {a.rsplit(" ", 1)[0] if a.endswith(" end") else a for a, _ in _bars(browser)}
    assert any(a.endswith("Lisbon re-dated") for a in states) and any(a.endswith("Paris superseded") for a in states), states
    assert any(a.endswith("Lisbon current, open") for a in states), states
    rows = [r.get_attribute("class").split()[1] for r in browser.find_elements(By.CSS_SELECTOR, "#versions tr.version")]
    assert rows.count("re-dated") == 1 and rows.count("current") == 1
    _shot(browser, shots, "timeline-re-dated")
    browser.get(base + SLOT)  # a partly retracted value: its kept part and, apart, the part removed
    labels = [a for a, _ in _bars(browser)]
    assert any(a.startswith("claim version #3 Paris partly retracted from ") for a in labels), labels
    assert any(a.startswith("claim version #3 Paris retracted from ") for a in labels), labels
    # lift a rejection (the jazz comes back, pending) and reject it by keyboard
    browser.get(base + "/queue?q=jazz")
    browser.find_element(By.CSS_SELECTOR, f"#rejection-{ids['rejection']} form.lift button").click()
    _wait(browser).until(
        lambda d: not d.find_elements(By.ID, f"rejection-{ids['rejection']}")
        and "pending" in d.find_element(By.ID, f"proposal-{ids['again']}").find_element(By.CSS_SELECTOR, ".status").text
    )
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    card = browser.find_element(By.ID, f"proposal-{ids['again']}")
    _wait(browser).until(lambda d: "current" in card.get_attribute("class"))
    body.send_keys("r")
    _wait(browser).until(lambda d: card.get_attribute("data-status") == "rejected")
    with Ledger.open(db) as ledger:
        assert get_proposal(ledger, ids["again"]).status == "rejected"
        assert {get_proposal(ledger, i).status for i in ids["duplicates"]} == {"rejected"}
        assert {get_proposal(ledger, i).status for i in ids["backlog"][:DUPLICATES]} == {"pending"}  # the originals wait
        rejections = list_rejections(ledger)
        assert ids["rejection"] not in [r.id for r in rejections] and any(r.rejected_by == "operator:rita" for r in rejections)


def test_queue_tab_stops_one_per_card(server, browser) -> None:
    """Focus roves: with 20 cards of 2,000 on the page, each card is one tab stop and only the card in
    focus has its controls in the tab order; Tab walks from card to card through one card's controls."""
    base, _, _ = server
    _sign_in(browser, base)
    browser.get(base + "/queue")
    tabbable = browser.execute_script(
        "return Array.prototype.filter.call(document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]'),"
        " function (e) { return e.tabIndex >= 0 && !e.disabled && e.type !== 'hidden' && e.offsetParent !== null; }).length;")
    cards = _cards(browser)
    assert len(cards) == 20
    outside = browser.execute_script(
        "return Array.prototype.filter.call(document.querySelectorAll('#cards article.proposal *'),"
        " function (e) { return e.matches('a[href], button, input, select, textarea, [tabindex]') && e.tabIndex >= 0; }).length;")
    assert outside == 0  # no card's controls are in the tab order until the card has focus
    assert tabbable <= 20 + 40, tabbable  # the cards, the header, filters, bulk and pager (was 603)
    # keyboard walk: Tab from the filter's last control reaches the first card, then its controls, then the next card
    browser.find_element(By.CSS_SELECTOR, "#bulk button#reject-duplicates").send_keys(Keys.TAB)
    assert _active_id(browser) == f"card:{cards[0].get_attribute('id')}"
    presses = 0
    while _active_id(browser) != f"card:{cards[1].get_attribute('id')}":
        browser.switch_to.active_element.send_keys(Keys.TAB)
        presses += 1
        assert presses <= 15, _active_id(browser)
    assert presses >= 3  # the first card's own controls came in between (link, reason, accept, reject, ...)
    focused = browser.execute_script("return document.activeElement.querySelectorAll('button.accept[tabindex=\"-1\"]').length")
    assert focused == 0  # the card in focus has its buttons in the tab order
    browser.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)  # back: one stop, the first card itself
    assert _active_id(browser) == f"card:{cards[0].get_attribute('id')}"


def test_proposal_drawn_before_and_after(server, browser, shots) -> None:
    """A proposal's page draws its slot before and after the accept, and the competing proposals as rows
    that link to them; an empty slot draws no "before"."""
    base, _, ids = server
    browser.get(base + f"/proposal/{ids['backlog'][0]}")
    labels = [a for a, _ in _bars(browser)]
    assert f"before: claim version #7 {SCRIPT} unchanged" in labels and "after: thing0 written if accepted" in labels, labels
    competing = [a for a in labels if a.startswith("competing proposal #")]
    assert len(competing) == 5 and browser.find_element(By.ID, "competing-links").text.endswith("all for this slot")
    mark = browser.find_element(By.CSS_SELECTOR, f'#timeline path[aria-label="{competing[0]}"]')
    mark.send_keys(Keys.ENTER)  # a competing proposal's bar is a link
    _wait(browser).until(lambda d: d.current_url.endswith("/proposal/" + competing[0].split("#")[1].split(" ")[0]))
    _shot(browser, shots, "before-after")


def test_every_page_has_no_serious_accessibility_violation(server, browser) -> None:
    """axe-core in the page, signed in (every control shown): no serious or critical violation (contrast
    of text >= 4.5:1, labels, headings, landmarks, the viewport) on any page, a bulk preview and its
    result and an error page included; and signed out on the queue."""
    base, _, ids = server
    pages = ["/", "/subject?scope=chat&subject=user", SLOT, "/slot?scope=chat&subject=user&predicate=likes", "/tx/1",
             "/queue", "/queue?view=rejected_again", "/queue?order=oldest&session=s-b", f"/proposal/{ids['berlin']}",
             f"/proposal/{ids['backlog'][0]}", f"/proposal/{ids['home'][0]}", "/no/such/page", "/proposal/abc"]
    browser.get(base + "/queue")
    if browser.find_elements(By.CSS_SELECTOR, "form[action='/logout'] button"):
        browser.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
        _wait(browser).until(lambda d: d.find_elements(By.ID, "login"))
    for signed_in in (False, True):
        if signed_in:
            _sign_in(browser, base)
        for path in pages if signed_in else ["/queue", SLOT]:
            browser.get(base + path)
            if browser.find_elements(By.ID, "timeline-spec"):
                _bars(browser)
            assert axe_violations(browser) == [], (path, signed_in)
    browser.get(base + "/queue?session=s-a&per_page=5")
    browser.find_element(By.ID, "pick-page").click()
    browser.find_element(By.CSS_SELECTOR, "#bulk button:not([name])").click()
    _wait(browser).until(lambda d: d.find_element(By.TAG_NAME, "h1").text.startswith("Preview:"))
    assert axe_violations(browser) == [], "bulk preview"
    browser.find_element(By.CSS_SELECTOR, "#bulk-run button").click()
    _wait(browser).until(lambda d: d.find_element(By.TAG_NAME, "h1").text.startswith("Done:"))
    assert axe_violations(browser) == [], "bulk done"
    # on a phone (390 px wide): the pages lay out to the screen's width, and stay clean
    browser.set_window_size(390, 844)
    try:
        for path in ["/queue", SLOT, f"/proposal/{ids['backlog'][0]}"]:
            browser.get(base + path)
            if browser.find_elements(By.ID, "timeline-spec"):
                _bars(browser)
            wide = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth];")
            assert wide[0] <= wide[1] + 1, (path, wide)  # no sideways scrolling of the page
            assert axe_violations(browser) == [], (path, "phone")
    finally:
        browser.set_window_size(1280, 900)
    # the check finds what it should: grey text on white and an unlabeled field, added to the page
    browser.execute_script("var m = document.querySelector('main'); m.insertAdjacentHTML('beforeend',"
                           " '<p style=\"color:#aaaaaa\">faint</p><input id=\"bare\">');")
    found = axe_violations(browser)
    assert any(v.startswith("color-contrast (serious)") for v in found) and any(v.startswith("label (critical)") for v in found), found
