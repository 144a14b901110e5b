"""A smoke run of evals/model_fixture.py: ideal extractor output served by a local OpenAI-compatible
server goes through the Hermes provider lifecycle, grounding, policy and apply, and the table is printed.
Figures are the eval's job (docs/BENCHMARKS.md); this keeps the script and its fixture working."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

EVALS = Path(__file__).resolve().parents[2] / "evals"
STYLES = EVALS.parent / ".." / "shared" / "datasets" / "styles-dev.json"


def load_eval():
    spec = importlib.util.spec_from_file_location("model_fixture", EVALS / "model_fixture.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["model_fixture"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


# A scenario written here (not the dataset's): a move, said undated, then dated.
SCENARIO = {
    "id": "toy-1",
    "sessions": [
        {"at": "2026-01-10T09:00:00Z", "id": "toy-1-s1", "turns": [
            {"role": "user", "text": "Quick note: I live in Ghent these days."},
            {"role": "assistant", "text": "Noted, Ghent."}]},
        {"at": "2026-06-02T09:00:00Z", "id": "toy-1-s2", "turns": [
            {"role": "user", "text": "Big news, I moved to Tartu last month."},
            {"role": "assistant", "text": "Congratulations!"}]},
    ],
    "questions": [
        {"kind": "current", "q": "where do I live?", "expect": "Tartu", "stale": ["Ghent"]},
        {"kind": "past", "q": "where did I live in March?", "expect": "Ghent", "stale": ["re:tartu"],
         "valid_at": "2026-03-01", "known_at": "2026-03-01"},
        {"kind": "never", "q": "what's my blood type?", "expect": None, "stale": []},
    ],
}
FIXTURE = {"scenarios": {"toy-1": {
    "toy-1-s1": [{"turn": 1, "op": "add", "subject": "user", "predicate": "lives_in", "cardinality": "one",
                  "template": "{subject} lives in {value}", "value": "Ghent", "quote": "I live in Ghent"}],
    "toy-1-s2": [{"turn": 1, "op": "supersede", "subject": "user", "predicate": "lives_in", "value": "Tartu",
                  "when": "last month", "quote": "I moved to Tartu last month"}],
}}}


@pytest.fixture
def toy(tmp_path: Path) -> tuple[Path, Path]:
    data, fixture = tmp_path / "toy.json", tmp_path / "fixture.json"
    data.write_text(json.dumps({"scenarios": [SCENARIO]}), "utf-8")
    fixture.write_text(json.dumps(FIXTURE), "utf-8")
    return data, fixture


def test_the_fixture_path_and_an_endpoint_print_one_table(toy, capsys) -> None:
    module = load_eval()
    data, fixture = toy
    # The endpoint path, against a second local server that happens to answer as the fixture does.
    with module.FixtureModel(module.load_fixture(fixture, [SCENARIO])) as endpoint:
        endpoint.use(SCENARIO)
        code = module.main(["--data", str(data), "--fixture", str(fixture), "--no-rules",
                            "--base-url", endpoint.base_url, "--model", "stand-in", "--api-key", "sk-local"])
        assert code == 0 and endpoint.requests >= 2  # the endpoint was really asked
    out = capsys.readouterr().out
    assert "facts right / questions" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("scenario"))
    assert "fixture" in header and "endpoint:stand-in" in header
    overall = next(line for line in out.splitlines() if line.strip().startswith("overall"))
    assert overall.split()[1:] == ["3/3", "1.00", "3/3", "1.00"], out
    assert "undigested turns 0" in out


def test_a_fixture_that_does_not_fit_its_dataset_is_refused(toy) -> None:
    module = load_eval()
    data, fixture = toy
    broken = json.loads(json.dumps(FIXTURE))
    broken["scenarios"]["toy-1"]["toy-1-s2"][0]["quote"] = "I moved to Riga"
    broken["scenarios"]["toy-1"]["toy-1-s1"][0]["turn"] = 2  # the assistant's turn
    fixture.write_text(json.dumps(broken), "utf-8")
    with pytest.raises(ValueError) as error:
        module.load_fixture(fixture, [SCENARIO])
    assert "not in the turn" in str(error.value) and "not a user turn" in str(error.value)


def test_mentions() -> None:
    module = load_eval()
    assert module.mentions("Dr. Ruiz (valid 2026-07-14 .. now)", "Dr. Ruiz")
    assert not module.mentions("Portofino", "Porto") and module.mentions("porto", "Porto")
    assert module.mentions("Tuesdays at 10", "re:tuesdays?")


@pytest.mark.skipif(not STYLES.is_file(), reason=f"the styles dev set is not at {STYLES} (../shared/datasets)")
def test_one_styles_scenario_completes_and_the_whole_fixture_fits_the_dataset(capsys) -> None:
    module = load_eval()
    scenarios = json.loads(STYLES.read_text("utf-8"))["scenarios"]
    fixture = module.load_fixture(module.DEFAULT_FIXTURE, scenarios)  # every quote is in its turn
    assert set(fixture) == {s["id"] for s in scenarios}
    assert module.main(["--only", "cmd-1", "--no-rules"]) == 0
    out = capsys.readouterr().out
    assert "cmd-1" in out and "overall" in out and "undigested turns 0" in out
