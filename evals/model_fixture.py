"""The model path with the model taken out: ideal extractor output through grounding, policy and apply.

    .venv/bin/python evals/model_fixture.py [--data ../shared/datasets/styles-dev.json]
        [--fixture evals/data/model_fixture_styles_dev.json] [--only ID ...] [--no-rules] [--pad N] [--verbose] [--json]
        [--base-url URL --model NAME [--api-key KEY]]

Each scenario of styles-dev.json (read from ../shared at run time, never copied here) is replayed through
the Hermes provider lifecycle exactly as evals/capture_locomo.py does it: per session a fresh
`FactledgerMemoryProvider(clock=...)`, `initialize`, one `sync_turn` per user/assistant pair,
`on_session_end`, `shutdown`, the clock at the session's time (each turn TURN_GAP after the previous).
The digest is the LLM extractor (digest.model in the home's config.yaml), pointed at a systems' endpoint:

- `fixture`: an OpenAI-compatible server started here on 127.0.0.1 that answers every extraction request
  with the ideal output written in evals/data/model_fixture_styles_dev.json for the turns the request
  asks about. It finds them by their text in the request's NEW turns, so whatever windows the digest
  cuts, each user turn gets its own claims, renumbered to its place in the window. Grounding, time
  resolution, policy and apply are the product's: this tests everything but the model.
- `endpoint` (with --base-url and --model): the same scenarios against any OpenAI-compatible endpoint.
- `rules` (unless --no-rules): the default digest (no model), as a reference.

Then each question, with the clock a day after the last session: for kinds current and past, the facts
visible at (valid_at, known_at) (now and latest for current) in the user's readable scopes must include
one that mentions an expected value and none that mentions a stale value (expect null: no stale value
mentioned); a fact's text here is its value and its valid interval's dates (so "since when" questions
can be answered, and a stale value of another slot's subject is not counted). Mention = case-insensitive
word-boundary match; a 're:' prefix marks a regular expression. For kind never: recall's fact search
(`Recall.search(question, scopes, kinds="fact")`) must return nothing.

Prints a table: per scenario and overall, facts right / questions, one column per system, in one run;
for the fixture also how many of the slots its supersedes and retracts change were among the held
facts the model was shown (digest/held.py). `--pad N` writes N unrelated facts into each user's scope
before the later sessions (newer than what the first session said), so that figure is measured at scale.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from factledger.digest.prompts.extract_claims import ExtractedClaim
from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.hermes_plugin.scripted_model import ModelReply, ToolCall, completion_body, write_json
from factledger.ledger import Ledger
from factledger.ledger.times import format_time, parse_time, to_datetime

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT / ".." / "shared" / "datasets" / "styles-dev.json"
DEFAULT_FIXTURE = ROOT / "evals" / "data" / "model_fixture_styles_dev.json"
TURN_GAP = timedelta(seconds=30)
API_KEY_ENV = "FACTLEDGER_MODEL_FIXTURE_API_KEY"  # the endpoint's key reaches the provider by name only
NEW_HEADING = "NEW turns"
_NEW_TURN = re.compile(r"^\[T(?P<n>\d+) (?P<role>user|assistant)[^\]]*?, said at [^\]]+\] (?P<text>.*)$")


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


# == the fixture ===================================================================================

def load_fixture(path: Path, scenarios: list[dict]) -> dict[str, dict[str, list[dict]]]:
    """The ideal claims per scenario and session, checked against the dataset: each claim validates as
    the extractor's output model, names a user turn of its session, and quotes that turn verbatim."""
    data = json.loads(path.read_text("utf-8"))["scenarios"]
    by_id = {s["id"]: s for s in scenarios}
    problems = []
    for scenario_id, sessions in data.items():
        scenario = by_id.get(scenario_id)
        if scenario is None:
            continue  # a fixture may cover more scenarios than a --data file holds
        turns_of = {s["id"]: s["turns"] for s in scenario["sessions"]}
        for session_id, claims in sessions.items():
            turns = turns_of.get(session_id)
            if turns is None:
                problems.append(f"{scenario_id}/{session_id}: no such session")
                continue
            for claim in claims:
                where = f"{scenario_id}/{session_id} T{claim.get('turn')}"
                try:
                    ExtractedClaim.model_validate(claim)
                except ValueError as exc:
                    problems.append(f"{where}: {exc}")
                    continue
                if not 1 <= claim["turn"] <= len(turns) or turns[claim["turn"] - 1]["role"] != "user":
                    problems.append(f"{where}: not a user turn of the session")
                elif _folded(claim["quote"]) not in _folded(turns[claim["turn"] - 1]["text"]):
                    problems.append(f"{where}: quote {claim['quote']!r} is not in the turn")
    if problems:
        raise ValueError("the fixture does not fit the dataset:\n  " + "\n  ".join(problems))
    return data


class FixtureModel:
    """An OpenAI-compatible server on 127.0.0.1 answering each extraction request with the fixture's
    claims for the user turns the request names as NEW (by their text), numbered as the request numbers
    them. `use(scenario)` chooses the scenario whose turns and claims it answers from."""

    def __init__(self, fixture: dict[str, dict[str, list[dict]]]):
        self.fixture = fixture
        self._by_text: dict[str, list[dict]] = {}
        self._lock = threading.Lock()
        self.requests = 0
        self.unknown_turns: list[str] = []  # a NEW user turn the scenario does not have (should stay empty)
        self.held_shown: list[int] = []  # held-fact lines per request (what the model was shown)
        # Per supersede or retract the fixture answers with: was its slot among the held facts shown?
        self.changed_slots: list[bool] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                write_json(self, 200, {"object": "list", "data": [{"id": "fixture", "object": "model", "owned_by": "factledger"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                reply = model.answer(body)
                write_json(self, 200, completion_body(str(body.get("model") or "fixture"), reply, model.requests))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "FixtureModel":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def use(self, scenario: dict) -> None:
        by_text: dict[str, list[dict]] = {}
        sessions = self.fixture.get(scenario["id"], {})
        for session in scenario["sessions"]:
            claims = sessions.get(session["id"], [])
            for number, turn in enumerate(session["turns"], start=1):
                if turn["role"] == "user":
                    by_text.setdefault(_folded(turn["text"]), []).extend(c for c in claims if c["turn"] == number)
        with self._lock:
            self._by_text = by_text

    def answer(self, body: dict) -> ModelReply:
        prompt = next((m.get("content") or "" for m in reversed(body.get("messages") or []) if m.get("role") == "user"), "")
        tool = ((body.get("tools") or [{}])[0].get("function") or {}).get("name") or "Extraction"
        claims = []
        with self._lock:
            self.requests += 1
            self.held_shown.append(_held_count(prompt))
            for line in prompt.split(NEW_HEADING, 1)[-1].splitlines():
                m = _NEW_TURN.match(line)
                if not m or m["role"] != "user":
                    continue
                found = self._by_text.get(_folded(m["text"]))
                if found is None:
                    self.unknown_turns.append(m["text"])
                    continue
                claims.extend({**c, "turn": int(m["n"])} for c in found)
            held = _held_lines(prompt)
            for c in claims:
                if c["op"] != "add":
                    slot = f"- {c['subject']} {c['predicate']} = ".casefold()
                    self.changed_slots.append(any(line.casefold().startswith(slot) for line in held))
        return ModelReply(tool_calls=(ToolCall(tool, {"claims": claims}),))


def _held_lines(prompt: str) -> list[str]:
    section = prompt.split("What the ledger holds", 1)[-1].split("\n\n", 1)[0]
    return [line for line in section.splitlines()[1:] if line.startswith("- ") and not line.startswith("- (")]


def _held_count(prompt: str) -> int:
    return len(_held_lines(prompt))


# == replay and questions ==========================================================================

class ReplayClock:
    def __init__(self) -> None:
        self.now = "2000-01-01T00:00:00.000000Z"

    def __call__(self) -> str:
        return self.now


@dataclass(frozen=True)
class System:
    name: str
    base_url: str = ""  # empty: the default digest (the offline rules)
    model: str = ""
    api_key: str = ""
    exit_wait: float = 60.0  # seconds on_session_end may wait for the session's digest


def _settings(home: Path, system: System) -> None:
    state = home / "factledger"
    state.mkdir(parents=True, exist_ok=True)
    model = ""
    if system.base_url:
        model = (f"  model:\n    base_url: {json.dumps(system.base_url)}\n    name: {json.dumps(system.model)}\n"
                 f"    api_key_env: {API_KEY_ENV if system.api_key else json.dumps('')}\n")
    (state / "config.yaml").write_text(
        f"digest:\n  batch_size: 64\n  max_delay_seconds: 5\n  exit_wait_seconds: {system.exit_wait}\n{model}"
        "recall:\n  repeat_after_turns: 0\n",
        "utf-8",
    )


def _identity(scenario: dict) -> dict[str, str]:
    return dict(platform="telegram", agent_context="primary", agent_identity="default", user_id=f"user-{scenario['id']}",
                chat_type="dm", chat_id=f"dm-{scenario['id']}")


def pad(home: Path, scenario: dict, clock: ReplayClock, session: dict, facts: int) -> None:
    """Fill the user's long-term scope with `facts` unrelated facts just before `session` (each its own
    slot, in words no question asks about), so what the session's turns touch is old and buried: the
    model must still be shown it."""
    clock.now = format_time(to_datetime(parse_time(session["at"])) - timedelta(days=1))
    provider = FactledgerMemoryProvider(clock=clock)
    provider.initialize(f"{session['id']}-pad", hermes_home=str(home), **_identity(scenario))
    memory = provider.session
    assert memory is not None and memory.scopes.durable is not None
    scope = memory.scopes.durable
    provider.shutdown()
    ledger = Ledger.open(home / "factledger" / "ledger.db", clock=clock)
    try:
        first = int(ledger.storage.one("SELECT COUNT(*) FROM claims")[0])
        with ledger.transaction(principal="import:pad") as tx:
            for n in range(first, first + facts):
                tx.add(scope, f"ticket {n}", "ticket_note", f"queued item {n}")
    finally:
        ledger.close()


def replay(home: Path, scenario: dict, clock: ReplayClock, padding: int = 0) -> None:
    """One provider lifecycle per session, as Hermes runs it (`padding` facts before each later session,
    or before the only one)."""
    sessions = scenario["sessions"]
    for number, session in enumerate(sessions):
        if padding and (number > 0 or len(sessions) == 1):
            pad(home, scenario, clock, session, padding // max(1, len(sessions) - 1))
        start = to_datetime(parse_time(session["at"]))
        clock.now = format_time(start)
        provider = FactledgerMemoryProvider(clock=clock)
        provider.initialize(session["id"], hermes_home=str(home), **_identity(scenario))
        user: str | None = None
        for index, turn in enumerate(session["turns"]):
            clock.now = format_time(start + TURN_GAP * index)
            if turn["role"] == "user":
                if user is not None:
                    provider.sync_turn(user, "")  # a user turn with no answer ends alone
                user = turn["text"]
            else:
                provider.sync_turn(user or "", turn["text"])
                user = None
        if user is not None:
            provider.sync_turn(user, "")
        provider.on_session_end([])
        provider.shutdown()


def mentions(text: str, value: str) -> bool:
    if value.startswith("re:"):
        return re.search(value[3:], text, re.I) is not None
    return re.search(rf"(?i)(?<!\w){re.escape(value)}(?!\w)", text) is not None


def fact_text(claim) -> str:
    end = claim.valid_to[:10] if claim.valid_to else "now"
    return f"{claim.value} (valid {claim.valid_from[:10]} .. {end})"


@dataclass
class Outcome:
    scenario: str
    kind: str
    question: str
    right: bool
    why: str = ""
    facts: list[str] = field(default_factory=list)


def ask(home: Path, scenario: dict, clock: ReplayClock) -> list[Outcome]:
    last = max(to_datetime(parse_time(s["at"])) for s in scenario["sessions"])
    clock.now = format_time(last + timedelta(days=1))
    provider = FactledgerMemoryProvider(clock=clock)
    provider.initialize(f"{scenario['id']}-questions", hermes_home=str(home), **_identity(scenario))
    outcomes = []
    try:
        session = provider.session
        assert session is not None
        scopes = list(session.scopes.readable)
        ledger = Ledger.open(home / "factledger" / "ledger.db", clock=clock)
        try:
            for q in scenario["questions"]:
                if q["kind"] == "never":
                    hits = session.recall.search(q["q"], scopes, kinds="fact")
                    shown = [h.sentence for h in hits]
                    outcomes.append(Outcome(scenario["id"], "never", q["q"], not hits, "facts came back" if hits else "", shown))
                    continue
                if q["kind"] == "past":
                    facts = ledger.as_of(scopes, valid_at=q.get("valid_at"), known_at=q.get("known_at"))
                else:
                    facts = ledger.current(scopes)
                texts = [fact_text(f) for f in facts]
                expect = q["expect"]
                expected = [] if expect is None else ([expect] if isinstance(expect, str) else list(expect))
                found = not expected or any(mentions(t, e) for t in texts for e in expected)
                stale = [s for s in q.get("stale", []) if any(mentions(t, s) for t in texts)]
                why = ", ".join(filter(None, ["" if found else f"no fact mentions {expected}",
                                              f"stale shown {stale}" if stale else ""]))
                outcomes.append(Outcome(scenario["id"], q["kind"], q["q"], found and not stale, why,
                                        [f"{f.subject} {f.predicate} = {t}" for f, t in zip(facts, texts)]))
        finally:
            ledger.close()
    finally:
        provider.shutdown()
    return outcomes


def backlog(home: Path) -> int:
    ledger = Ledger.open(home / "factledger" / "ledger.db")
    try:
        return int(ledger.storage.one("SELECT COUNT(*) FROM journal WHERE digested_at IS NULL")[0])
    finally:
        ledger.close()


def run_system(system: System, scenarios: list[dict], folder: Path, fixture_model: FixtureModel | None, *,
               padding: int = 0) -> dict:
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    undigested = 0
    for scenario in scenarios:
        if fixture_model is not None:
            fixture_model.use(scenario)
        home = folder / system.name / scenario["id"]
        _settings(home, system)
        clock = ReplayClock()
        replay(home, scenario, clock, padding)
        undigested += backlog(home)
        outcomes.extend(ask(home, scenario, clock))
    report: dict = {"system": system.name, "seconds": round(time.perf_counter() - started, 1), "undigested_turns": undigested,
                    "outcomes": [o.__dict__ for o in outcomes]}
    if fixture_model is not None:
        report["model_requests"] = fixture_model.requests
        report["unknown_turns"] = list(fixture_model.unknown_turns)
        report["held_facts_shown_max"] = max(fixture_model.held_shown, default=0)
        report["changed_slots_shown"] = [sum(fixture_model.changed_slots), len(fixture_model.changed_slots)]
    return report


def figures(outcomes: list[dict]) -> dict[str, tuple[int, int]]:
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for o in outcomes:
        for key in (o["scenario"], f"kind {o['kind']}", "overall"):
            rows[key][0] += int(o["right"])
            rows[key][1] += 1
    return {k: (v[0], v[1]) for k, v in rows.items()}


def print_report(reports: list[dict], scenario_ids: list[str], verbose: bool) -> None:
    tables = [figures(r["outcomes"]) for r in reports]
    names = [r["system"] for r in reports]
    width = max(12, *(len(n) for n in names))
    print("facts right / questions (styles-dev, through the Hermes provider lifecycle)")
    print(f"  {'scenario':<16}" + "".join(f" {n:>{width}}" for n in names))
    for key in [*scenario_ids, "kind current", "kind past", "kind never", "overall"]:
        cells = []
        for table in tables:
            right, total = table.get(key, (0, 0))
            cells.append(f"{right}/{total}" + (f" {right / total:.2f}" if key == "overall" and total else ""))
        print(f"  {key:<16}" + "".join(f" {c:>{width}}" for c in cells))
    for r in reports:
        extra = ""
        if "model_requests" in r:
            shown, changes = r["changed_slots_shown"]
            extra = (f", model requests {r['model_requests']}, held facts shown per request at most"
                     f" {r['held_facts_shown_max']}, slots a supersede/retract changes shown to the model {shown}/{changes}")
        print(f"  {r['system']}: {r['seconds']} s, undigested turns {r['undigested_turns']}{extra}")
        if r.get("unknown_turns"):
            print(f"    user turns the fixture server did not know: {r['unknown_turns']}")
    if verbose:
        for r in reports:
            for o in r["outcomes"]:
                if not o["right"]:
                    print(f"  FAIL {r['system']} {o['scenario']} [{o['kind']}] {o['question']}: {o['why']}")
                    for line in o["facts"]:
                        print(f"       {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE)
    parser.add_argument("--only", nargs="*", help="scenario ids")
    parser.add_argument("--no-rules", action="store_true", help="leave out the default digest's column")
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint to run the same scenarios against")
    parser.add_argument("--model", help="the endpoint's model name")
    parser.add_argument("--api-key", default=None, help="the endpoint's key (default: $OPENAI_API_KEY)")
    parser.add_argument("--exit-wait", type=float, default=120.0, help="seconds a session's end waits for an endpoint's digest")
    parser.add_argument("--pad", type=int, default=0, metavar="N",
                        help="bury what each scenario says under N unrelated facts in the user's scope, written"
                             " before its later sessions (the model path at scale)")
    parser.add_argument("--verbose", action="store_true", help="print each wrong question with the facts it saw")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"error: no dataset at {args.data}", file=sys.stderr)
        return 2
    if bool(args.base_url) != bool(args.model):
        print("error: --base-url and --model go together", file=sys.stderr)
        return 2
    scenarios = json.loads(args.data.read_text("utf-8"))["scenarios"]
    if args.only:
        scenarios = [s for s in scenarios if s["id"] in set(args.only)]
        if not scenarios:
            print(f"error: no scenario {args.only}", file=sys.stderr)
            return 2
    fixture = load_fixture(args.fixture, scenarios)
    reports = []
    with tempfile.TemporaryDirectory(prefix="factledger-model-fixture-") as tmp, FixtureModel(fixture) as server:
        reports.append(run_system(System("fixture", server.base_url, "fixture", exit_wait=60.0), scenarios, Path(tmp), server,
                                  padding=args.pad))
        if args.base_url:
            key = args.api_key if args.api_key is not None else os.environ.get("OPENAI_API_KEY", "")
            endpoint = System(f"endpoint:{args.model}", args.base_url, args.model, key, exit_wait=args.exit_wait)
            before = os.environ.get(API_KEY_ENV)
            os.environ[API_KEY_ENV] = key  # the provider reads the key from the variable its settings name
            try:
                reports.append(run_system(endpoint, scenarios, Path(tmp), None, padding=args.pad))
            finally:
                if before is None:
                    os.environ.pop(API_KEY_ENV, None)
                else:
                    os.environ[API_KEY_ENV] = before
        if not args.no_rules:
            reports.append(run_system(System("rules"), scenarios, Path(tmp), None, padding=args.pad))
    if args.json:
        print(json.dumps(reports, indent=2, ensure_ascii=False))
    else:
        print_report(reports, [s["id"] for s in scenarios], args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
