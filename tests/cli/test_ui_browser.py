"""The page end to end in headless Chromium (Debian's chromium + chromium-driver through Selenium):
the timeline's bars, the "as known at" control, accept / reject / lift through the page, and a stored
`<script>` value shown as text. One browser and one server for the module; screenshots are saved under
pytest's tmp dir (and FACTLEDGER_SCREENSHOTS, when set, e.g. to refresh docs/images)."""

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
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from factledger.cli.ui.app import create_app  # noqa: E402
from factledger.cli.ui.security import Guard  # noqa: E402
from factledger.digest import get_proposal, list_rejections  # noqa: E402
from factledger.ledger import Ledger  # noqa: E402

from .ui_support import SCRIPT, seed, seed_backlog, serving  # noqa: E402

TOKEN = "browser-test-operator-token-0123"
SLOT = "/slot?scope=chat&subject=user&predicate=lives_in"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("ui") / "l.db"
    ids = seed(db)
    ids["backlog"] = seed_backlog(db, 6)  # sessions s-a (3) and s-b (3)
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


def _wait(browser) -> WebDriverWait:
    """Wait through page loads: an element of the page being left goes stale, one of the next is not there yet."""
    return WebDriverWait(browser, 20, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))


def _sign_in(browser, base: str) -> None:
    browser.get(base + "/queue")
    form = browser.find_element(By.ID, "login")
    form.find_element(By.NAME, "token").send_keys(TOKEN)
    form.find_element(By.TAG_NAME, "button").click()
    _wait(browser).until(lambda d: "signed in as" in d.find_element(By.TAG_NAME, "header").text)


def test_reviewer_walk_through(server, browser, shots) -> None:
    """One reviewer's pass: filter the queue, bulk-reject a session's proposals after reading the preview,
    accept by keyboard (j then a: the card says what changed and the next card gets the focus), lift a
    rejection and reject by keyboard."""
    base, db, ids = server
    _sign_in(browser, base)
    _shot(browser, shots, "queue")
    # filter by session, then bulk-reject every proposal matching it, previewed first
    browser.get(base + "/queue?session=s-b")
    assert browser.find_element(By.ID, "queue-total").text.startswith("3 ")
    bulk = browser.find_element(By.ID, "bulk")
    bulk.find_element(By.NAME, "all_matching").click()
    bulk.find_element(By.NAME, "reason").send_keys("duplicates")
    bulk.find_element(By.TAG_NAME, "button").click()
    _wait(browser).until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Preview: reject 3 proposals")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#bulk-items > li")) == 3
    with Ledger.open(db) as ledger:
        assert {get_proposal(ledger, i).status for i in ids["backlog"][3:]} == {"pending"}  # a preview changes nothing
    browser.find_element(By.CSS_SELECTOR, "#bulk-run button").click()
    _wait(browser).until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Done: 3 decided")
    # keyboard: j focuses the first card, a accepts it; the summary replaces the buttons
    browser.get(base + "/queue?predicate=lives_in")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    card = browser.find_element(By.ID, f"proposal-{ids['berlin']}")
    _wait(browser).until(lambda d: "current" in card.get_attribute("class"))
    body.send_keys("a")
    _wait(browser).until(lambda d: "decided" in card.get_attribute("class"))
    assert "accepted proposal" in card.find_element(By.CSS_SELECTOR, "output.outcome").text
    assert not card.find_element(By.CSS_SELECTOR, "button.accept").is_displayed()  # no second decision to click
    browser.get(base + "/queue")
    browser.find_element(By.CSS_SELECTOR, f"#rejection-{ids['rejection']} form.lift button").click()
    _wait(browser).until(
        lambda d: not d.find_elements(By.ID, f"rejection-{ids['rejection']}")
        and "pending" in d.find_element(By.ID, f"proposal-{ids['again']}").find_element(By.CSS_SELECTOR, ".status").text
    )  # lifted: decidable again
    browser.get(base + "/queue?q=jazz")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    card = browser.find_element(By.ID, f"proposal-{ids['again']}")
    _wait(browser).until(lambda d: "current" in card.get_attribute("class"))
    body.send_keys("r")
    _wait(browser).until(lambda d: card.get_attribute("data-status") == "rejected")
    with Ledger.open(db) as ledger:
        berlin = get_proposal(ledger, ids["berlin"])
        assert (berlin.status, berlin.decided_by) == ("applied", "operator:rita")
        assert [c.value for c in ledger.current(["chat"], predicate="lives_in")] == ["Berlin"]
        assert get_proposal(ledger, ids["again"]).status == "rejected"
        assert {get_proposal(ledger, i).status for i in ids["backlog"][3:]} == {"rejected"}
        rejections = list_rejections(ledger)
        assert ids["rejection"] not in [r.id for r in rejections] and any(r.rejected_by == "operator:rita" for r in rejections)
