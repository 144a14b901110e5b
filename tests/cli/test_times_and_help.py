"""One rule for times on every command (in: the same forms, offset-less = UTC; out: the short form in
tables, the canonical text in JSON), and help on every option and command, never cut mid-sentence."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from factledger.cli.app import FactledgerGroup
from factledger.cli.main import cli

SEED = "".join(json.dumps(line) + "\n" for line in [
    {"op": "define", "predicate": "lives_in", "cardinality": "one", "template": "{subject} lives in {value}"},
    # valid_from without an offset: UTC, like every other input path.
    {"op": "add", "scope": "s", "subject": "user", "predicate": "lives_in", "value": "Berlin", "valid_from": "2024-06-01 10:00"},
])
TURN = json.dumps({"scope": "s", "session": "a", "text": "I moved to Lisbon last month", "said_at": "2024-07-01T09:30:15"}) + "\n"

# The same instant in the forms a user may type; every command must treat them alike.
SAME_INSTANT = ["2024-06-01T10:00:00Z", "2024-06-01 10:00", "2024-06-01T10:00", "2024-06-01T12:00:00+02:00", "2024-06-01 10:00Z"]


def run(db, *args, input=None):
    return CliRunner().invoke(cli, ["--db", str(db), "--principal", "operator:tester", *args], input=input)


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "ledger.db"
    assert run(path, "apply", "-", input=SEED).exit_code == 0
    assert run(path, "journal", "add", "-", input=TURN).exit_code == 0
    return path


# Every command that reads at a time, with its time option given as {t}.
TIMED = [
    ["as-of", "--valid-at", "{t}", "--json"],
    ["as-of", "--known-at", "2999-01-01", "--valid-at", "{t}", "--json"],
    ["search", "where does the user live", "--scope", "s", "--valid-at", "{t}", "--json"],
    ["recall", "where does the user live", "--scope", "s", "--valid-at", "{t}", "--json"],
    ["memories", "--scope", "s", "--valid-at", "{t}", "--json"],
    ["sql", "SELECT value FROM claims FOR VALID_TIME AS OF '{t}'", "--json"],
]


EPISODE_INSTANT = ["2024-07-01T09:30:15Z", "2024-07-01 09:30:15", "2024-07-01T11:30:15+02:00", "2024-07-01 09:30:15Z"]
CASES = [(args, SAME_INSTANT, "2024-06-01 09:59") for args in TIMED] + [
    # An episode is valid from the moment it was said (09:30:15 UTC).
    (["episodes", "--scope", "s", "--valid-at", "{t}", "--json"], EPISODE_INSTANT, "2024-07-01 09:30:14"),
]


@pytest.mark.parametrize("args,forms,earlier", CASES, ids=lambda a: a[0] + " " + a[-3] if isinstance(a, list) and a[0][0] != "2" else "")
def test_every_time_option_takes_the_same_forms_and_offset_less_is_utc(db, args, forms, earlier):
    answers = set()
    for form in forms:
        result = run(db, *[a.replace("{t}", form) for a in args])
        assert result.exit_code == 0, (form, result.output)
        answers.add(result.stdout)
    assert len(answers) == 1, answers
    # Just earlier the claim (valid from 10:00 UTC) is not yet valid: the forms really mean that UTC instant.
    before = run(db, *[a.replace("{t}", earlier) for a in args])
    assert before.exit_code == 0 and before.stdout != answers.pop()
    bad = run(db, *[a.replace("{t}", "yesterday") for a in args])
    assert bad.exit_code == 2 and "yesterday" in bad.stderr


def test_write_paths_take_offset_less_times_as_utc(db):
    claim = json.loads(run(db, "current", "--json").stdout)[0]
    assert claim["valid_from"] == "2024-06-01T10:00:00.000000Z"  # apply's JSON line
    turn = json.loads(run(db, "journal", "list", "--json").stdout)[0]
    assert turn["said_at"] == "2024-07-01T09:30:15.000000Z"  # journal add's said_at
    kept = run(db, "journal", "prune", "--said-before", "2024-07-01 09:30", "--json")  # before the turn: nothing
    assert kept.exit_code == 0 and json.loads(kept.stdout) == {"removed": 0}


def test_a_review_edit_takes_an_offset_less_valid_from_as_utc(tmp_path):
    db = tmp_path / "ledger.db"
    assert run(db, "journal", "add", "-", input=json.dumps({"scope": "s", "text": "I live in Porto"}) + "\n").exit_code == 0
    assert run(db, "digest", "--policy", "strict").exit_code == 0
    [proposal] = json.loads(run(db, "review", "list", "--json").stdout)
    accepted = run(db, "review", "accept", str(proposal["id"]), "--valid-from", "2024-03-01 08:00", "--json")
    assert accepted.exit_code == 0, accepted.output
    assert json.loads(run(db, "current", "--json").stdout)[0]["valid_from"] == "2024-03-01T08:00:00.000000Z"
    # The accept registered the proposal's predicate, which nobody had defined: it says what it now means.
    assert json.loads(accepted.stdout)[0]["undeclared_predicates"] == ["lives_in"]
    assert "note: 'lives_in' is new to this ledger; this accept defined it as the proposal gives it: one value at a time, shown as" in accepted.stderr


def test_tables_print_the_short_form_and_json_the_canonical_one(db):
    table = run(db, "current").stdout
    assert "[2024-06-01 10:00Z, …)" in table and ".000000" not in table
    history = run(db, "history", "--subject", "user", "--predicate", "lives_in").stdout
    assert "2024-06-01 10:00Z" in history and ".0000" not in history  # the tx time: seconds shown only if non-zero
    journal = run(db, "journal", "list").stdout
    assert "2024-07-01 09:30:15Z" in journal  # seconds are non-zero, so shown; never microseconds
    episodes = run(db, "episodes", "--scope", "s").stdout
    assert "2024-07-01 09:30:15Z" in episodes
    sql = run(db, "sql", "SELECT valid_from FROM claims").stdout
    assert "2024-06-01 10:00Z" in sql
    assert json.loads(run(db, "episodes", "--scope", "s", "--json").stdout)[0]["said_at"] == "2024-07-01T09:30:15.000000Z"
    recalled = run(db, "recall", "where does the user live", "--scope", "s").stdout
    assert "(since 2024-06-01 10:00Z)" in recalled


def test_a_time_printed_in_a_table_reads_back_as_input(db):
    shown = "2024-06-01 10:00Z"  # as `current` prints valid_from
    assert json.loads(run(db, "as-of", "--valid-at", shown, "--json").stdout)[0]["value"] == "Berlin"


def _commands(command: click.Command, path: tuple[str, ...] = ("factledger",)):
    yield path, command
    subs = command.every_command() if isinstance(command, FactledgerGroup) else getattr(command, "commands", {})
    for name, sub in subs.items():
        yield from _commands(sub, (*path, name))


def test_every_option_and_command_has_help():
    missing = [
        f"{' '.join(path)} {param.opts[0]}"
        for path, command in _commands(cli)
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden and not (param.help or "").strip()
    ]
    assert missing == []
    assert [" ".join(path) for path, command in _commands(cli) if not (command.help or "").strip()] == []


@pytest.mark.parametrize("width", [80, 200])
def test_group_listings_show_whole_sentences(width):
    groups = [path for path, command in _commands(cli) if isinstance(command, click.Group)]
    assert len(groups) >= 5  # factledger, journal, review, index, hermes
    for path in groups:
        result = CliRunner().invoke(cli, [*path[1:], "--help"], terminal_width=width)
        assert result.exit_code == 0
        listing = result.stdout.split("Commands:", 1)[1]
        assert "..." not in listing, (path, listing)
    for path, command in _commands(cli):
        if len(path) > 1:
            short = command.get_short_help_str()
            assert short.endswith((".", ")")) and command.help.split()[:3] == short.split()[:3], (path, short)


def test_review_list_status_documents_every_value():
    from factledger.digest.review import STATUSES

    command = cli.every_command()["review"].commands["list"]
    [status] = [p for p in command.params if p.name == "status"]
    assert set(status.type.choices) == {"open", "all", *STATUSES}
    for value in status.type.choices:
        assert f"{value} = " in status.help, value
    shown = CliRunner().invoke(cli, ["review", "list", "--help"], terminal_width=200).stdout
    assert "rejected_again = proposed again after its value was rejected" in shown


# Every read command, given a scope the ledger has never seen (a typo of the real "s1").
UNKNOWN_SCOPE = [
    ["current", "--scope", "s1x"],
    ["as-of", "--scope", "s1x", "--valid-at", "2024-07-01"],
    ["history", "--scope", "s1x", "--subject", "user", "--predicate", "lives_in"],
    ["search", "where does the user live", "--scope", "s1x"],
    ["recall", "where does the user live", "--scope", "s1x"],
    ["memories", "--scope", "s1x"],
    ["episodes", "--scope", "s1x"],
    ["journal", "list", "--scope", "s1x"],
    ["review", "list", "--scope", "s1x", "--status", "all"],
    ["review", "rejections", "--scope", "s1x"],
    ["review", "confirmations", "--scope", "s1x"],
]


@pytest.fixture()
def named_db(tmp_path):
    path = tmp_path / "ledger.db"
    assert run(path, "apply", "-", input=SEED.replace('"scope": "s"', '"scope": "s1"')).exit_code == 0
    assert run(path, "journal", "add", "-", input=TURN.replace('"scope": "s"', '"scope": "s1"')).exit_code == 0
    return path


@pytest.mark.parametrize("args", UNKNOWN_SCOPE, ids=lambda a: " ".join(a[:2]))
@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_every_read_says_when_a_scope_it_was_given_is_unknown(named_db, args, as_json):
    result = run(named_db, *args, *(["--json"] if as_json else []))
    assert result.exit_code == 0, result.output
    assert "note: no scope 's1x' holds claims or conversation turns; did you mean s1?" in result.stderr
    if as_json:
        json.loads(result.stdout)  # stdout stays parseable; the note is on stderr
    known = run(named_db, *[("s1" if a == "s1x" else a) for a in args], *(["--json"] if as_json else []))
    assert "note:" not in known.stderr  # a known scope: no note, whether or not the read found anything


def test_an_unknown_predicate_or_subject_is_named_on_every_slot_read(named_db):
    for args in (["current"], ["as-of"], ["history", "--subject", "user"]):
        result = run(named_db, *args, "--predicate", "lives")
        assert "note: no predicate 'lives'; did you mean lives_in?" in result.stderr, args
    assert "note: no subject 'usr' in any scope" in run(named_db, "current", "--subject", "usr").stderr


def test_recall_json_carries_the_notes_as_a_field(named_db):
    shown = json.loads(run(named_db, "recall", "where does the user live", "--scope", "s1x", "--json").stdout)
    assert shown["unknown"] == ["no scope 's1x' holds claims or conversation turns; did you mean s1?"]
    assert shown["text"] == ""


def test_the_digest_names_the_predicates_it_registers_on_every_path(tmp_path):
    db = tmp_path / "ledger.db"
    assert run(db, "journal", "add", "-", input=json.dumps({"scope": "s", "text": "I live in Lisbon"}) + "\n").exit_code == 0
    result = run(db, "digest", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["undeclared_predicates"] == ["lives_in"]  # the JSON field
    assert "note: 'lives_in' is new to this ledger; the digest defined it as the proposal gives it" in result.stderr  # stderr
    [proposal] = json.loads(run(db, "review", "list", "--status", "applied", "--json").stdout)
    assert "registered predicate 'lives_in', which nobody had defined, as 'one'" in proposal["reason"]  # the receipt
    # Once defined, later proposals register nothing and say nothing of it.
    assert run(db, "journal", "add", "-", input=json.dumps({"scope": "s", "text": "I moved to Porto"}) + "\n").exit_code == 0
    again = run(db, "digest", "--json")
    assert json.loads(again.stdout)["undeclared_predicates"] == [] and "warning" not in again.stderr


def test_strict_predicates_hold_a_digest_proposal_until_the_predicate_is_defined(tmp_path):
    db = tmp_path / "ledger.db"
    assert run(db, "journal", "add", "-", input=json.dumps({"scope": "s", "text": "I live in Lisbon"}) + "\n").exit_code == 0
    held = run(db, "--strict-predicates", "digest", "--json")
    assert held.exit_code == 0 and json.loads(held.stdout)["proposals"]["pending"] == 1
    [proposal] = json.loads(run(db, "review", "list", "--json").stdout)
    assert "predicate 'lives_in' was never defined" in proposal["reason"]
    refused = run(db, "--strict-predicates", "review", "accept", str(proposal["id"]))
    assert refused.exit_code == 2 and "no predicate 'lives_in'" in refused.stderr
    define = json.dumps({"op": "define", "predicate": "lives_in", "cardinality": "one"}) + "\n"
    assert run(db, "apply", "-", input=define).exit_code == 0
    accepted = run(db, "--strict-predicates", "review", "accept", str(proposal["id"]), "--json")
    assert accepted.exit_code == 0 and json.loads(accepted.stdout)[0]["undeclared_predicates"] == []
    assert json.loads(run(db, "current", "--json").stdout)[0]["value"] == "Lisbon"


def test_tables_print_every_value_whole_in_a_pipe(tmp_path):
    """Why emit_table and not rich's Table (docs/ARCHITECTURE.md): a pipe is 80 columns to rich, which
    wraps or elides cells; a table here keeps each row on one line with every value whole."""
    db = tmp_path / "ledger.db"
    value = "a very long value " * 11 + "end"
    line = json.dumps({"op": "add", "scope": "s", "subject": "user", "predicate": "note", "value": value.strip()})
    assert run(db, "apply", "-", input=line + "\n").exit_code == 0
    table = CliRunner().invoke(cli, ["--db", str(db), "current"], terminal_width=80).stdout
    [row] = [r for r in table.splitlines() if r.split() and r.split()[0].isdigit()]
    assert value.strip() in row and len(row) > 200
