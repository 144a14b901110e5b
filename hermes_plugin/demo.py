"""A scripted Hermes conversation with factledger as its memory: real Hermes turns, no API key.

Hermes's own AIAgent runs against the scripted model server on 127.0.0.1 (scripted_model.py). The
"model" is a script, but what it is shown is real: the recalled block Hermes fenced into the user's
message, and the JSON our tools returned. Its replies are built from those, so the output shows what a
real model would have been given.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from factledger.ledger import Ledger

from .install import HermesSetupError, install_plugin
from .paths import HermesPaths
from .scripted_model import ChatRequest, ModelReply, ScriptedModelServer


@dataclass
class DemoTurn:
    session: int
    user: str
    recalled: str  # the block Hermes put in front of the model ('' when nothing was recalled)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    reply: str = ""


@dataclass
class HermesDemoReport:
    hermes_home: str
    ledger: str
    turns: list[DemoTurn]
    current: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _recalled_lines(request: ChatRequest) -> list[str]:
    return [line[2:] for line in request.memory_context().splitlines() if line.startswith("- ")]


def _answer_from_memory(request: ChatRequest) -> ModelReply:
    lines = _recalled_lines(request)
    if not lines:
        return ModelReply.say("I don't have anything about that in memory.")
    return ModelReply.say("From my memory: " + "; ".join(lines) + ".")


def _ask_history(request: ChatRequest) -> ModelReply:
    return ModelReply.call("factledger_history", {"subject": "user", "predicate": "lives_in"})


def _answer_from_history(request: ChatRequest) -> ModelReply:
    results = request.tool_results()
    versions = results[-1]["content"].get("versions", []) if results and isinstance(results[-1]["content"], dict) else []
    believed = [v for v in versions if v.get("current_belief")]
    past = [v for v in believed if v.get("valid_to")]
    now = [v for v in believed if not v.get("valid_to")]
    if not now:
        return ModelReply.say("My memory has no home city for you.")
    text = f"You live in {now[0]['value']}"
    if past:
        text += " and before that you lived in " + ", then ".join(v["value"] for v in past)
    return ModelReply.say(text + " (from the ledger's history of that fact).")


# (session, what the user says, how the scripted model answers: replies or tool calls, in order)
SCRIPT: list[tuple[int, str, list[ModelReply | Callable[[ChatRequest], ModelReply]]]] = [
    (1, "Hi! I have lived in Paris since 2019, and I work at Acme.", [ModelReply.say("Nice to meet you! Noted.")]),
    (1, "By the way, I moved to Lisbon last month.", [ModelReply.say("Congratulations on the move!")]),
    (2, "Which city do I live in these days?", [_answer_from_memory]),
    (2, "And where did I live before that?", [_ask_history, _answer_from_history]),
]


def run_hermes_demo(directory: Path, *, echo: Callable[[str], None] = print) -> HermesDemoReport:
    """Install factledger into a fresh Hermes home under `directory` and run the scripted conversation."""
    if importlib.util.find_spec("run_agent") is None:
        raise HermesSetupError("hermes-agent is not installed here; install it with: pip install 'factledger[hermes]'",
                               field="hermes-agent")
    directory = Path(directory)
    home = directory / "hermes-home"
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    paths = HermesPaths(home)
    install_plugin(paths, set_provider=True)

    previous_home = os.environ.get("HERMES_HOME")
    os.environ["HERMES_HOME"] = str(home)  # before importing Hermes: its import creates the home
    try:
        return _converse(paths, echo)
    finally:
        if previous_home is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = previous_home


def _converse(paths: HermesPaths, echo: Callable[[str], None]) -> HermesDemoReport:
    try:
        import run_agent  # Hermes itself
    except ImportError as exc:
        raise HermesSetupError(
            f"hermes-agent is not installed here ({exc}); install it with: pip install 'factledger[hermes]'",
            field="hermes-agent",
        ) from None

    turns: list[DemoTurn] = []
    echo(f"Hermes home: {paths.home}  (factledger installed with `factledger hermes install --set-provider`)")
    echo("The model is a script on 127.0.0.1: no API key, nothing leaves this machine.\n")
    with ScriptedModelServer() as server:
        agent = None
        messages: list[dict[str, Any]] = []
        session = 0
        for number, text, steps in SCRIPT:
            if number != session:
                if agent is not None:
                    agent.shutdown_memory_provider(messages)  # session end: the digest runs now
                    echo("   (session ended: factledger digested the turns into facts)\n")
                session, messages = number, []
                agent = run_agent.AIAgent(
                    base_url=server.base_url, api_key="sk-none", model="fake-model", quiet_mode=True,
                    skip_context_files=True, enabled_toolsets=["memory"], tool_delay=0.0, platform="cli",
                )
                echo(f"== Session {session} ==")
            seen_before = len(server.requests)
            echo(f"you:    {text}")
            server.push(*steps)
            result = agent.run_conversation(text, conversation_history=messages)
            messages = list(result["messages"])
            requests = server.requests[seen_before:]
            turn = DemoTurn(session=session, user=text, recalled=requests[0].memory_context() if requests else "",
                            reply=result.get("final_response") or "")
            for request in requests[1:]:
                turn.tool_calls.extend(r["content"] if isinstance(r["content"], dict) else {"text": r["content"]}
                                       for r in request.tool_results()[-1:])
            turns.append(turn)
            _show(turn, echo)
        if agent is not None:
            agent.shutdown_memory_provider(messages)

    with Ledger.open(paths.ledger_path, read_only=True) as ledger:
        predicates = {p.name: p for p in ledger.predicates()}
        current = [predicates[c.predicate].render(c.subject, c.value) for c in ledger.current()]
    echo("What the ledger holds now (current truth):")
    for line in current:
        echo(f"   - {line}")
    echo("\nAn operator reviews with the factledger CLI on the same file, e.g.:")
    echo(f"   factledger --db {paths.ledger_path} history --subject user --predicate lives_in")
    echo(f"   factledger --db {paths.ledger_path} review list")
    return HermesDemoReport(hermes_home=str(paths.home), ledger=str(paths.ledger_path), turns=turns, current=current)


def _show(turn: DemoTurn, echo: Callable[[str], None]) -> None:
    if turn.recalled:
        echo("   recalled for this turn (what Hermes showed the model):")
        for line in turn.recalled.splitlines():
            if line.strip() and not line.startswith("[System note"):
                echo(f"   | {line}")
    for call in turn.tool_calls:
        if "versions" in call:
            echo(f"   tool factledger_history -> {len(call['versions'])} versions of {call['subject']} / {call['predicate']}")
            for v in call["versions"]:
                state = "believed" if v["current_belief"] else "no longer believed"
                echo(f"   |  {v['value']}: valid [{v['valid_from'][:10]}, {(v['valid_to'] or '…')[:10]}), {state}, by {v['recorded_by']['principal']}")
        else:
            echo(f"   tool result: {call}")
    echo(f"hermes: {turn.reply}\n")
