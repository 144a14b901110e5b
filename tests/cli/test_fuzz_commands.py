"""Fuzzing the commands that move, prove and review a ledger, and the page's endpoints (issue 21):
`import`, `migrate`, `backup`, `verify`, `export`, `review …` and every route of `factledger ui`. Each
case ends in a result, a clear error (exit status 2, or `verify`'s 1 for a failing check) or, on the
page, a status below 500: never a traceback. Refused writes change no byte of the ledger.

Default run: a few seconds; FACTLEDGER_HYPOTHESIS=thorough runs 40x the cases. The same surfaces are in
evals/fuzz_inputs.py (`--surface commands`, `--surface page`) for counts.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from factledger.cli.main import cli
from tests import fuzz_strategies as fz

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    from .ui_support import seed

    import sqlite3

    path = tmp_path_factory.mktemp("fuzz-commands") / "seed.db"
    seed(path)
    with sqlite3.connect(path) as raw:  # everything in the main file, so a copy of it is the whole ledger
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def fresh_copy(seeded: Path, work: Path) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    target = work / "ledger.db"
    shutil.copyfile(seeded, target)
    return target


def ends_cleanly(args: list[str], *, db: Path | None = None, allowed: tuple[int, ...] = (0, 2)) -> int:
    before = fz.ledger_bytes(db) if db is not None else None
    result = CliRunner().invoke(cli, args, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        raise AssertionError("".join(traceback.format_exception(result.exception)) + f"\nargs: {args!r:.500}")
    assert result.exit_code in allowed, (args, result.exit_code, result.output[-500:])
    if result.exit_code == 2:
        assert "rror" in result.output, result.output
        if db is not None:
            assert fz.ledger_bytes(db) == before, f"a refused command changed the ledger: {args!r:.300}"
    return result.exit_code


def _argv_safe(text: str) -> bool:
    """Text a real command line can carry: argv is bytes, decoded with surrogateescape, so a lone
    surrogate outside U+DC80-U+DCFF (what hypothesis makes of "\\ud800") cannot arrive there."""
    try:
        os.fsencode(text)
    except UnicodeError:
        return False
    return "\x00" not in text


def argv_text(max_size: int = 60) -> st.SearchStrategy:
    return fz.hostile_text(max_size=max_size).filter(_argv_safe)


# Names a user might type for a file or folder: ordinary, long, odd bytes, separators, hostile text.
names = st.one_of(
    st.sampled_from(["out", "a b", "x" * 300, "d/" + "y" * 260, os.fsdecode(b"\xff\xfe"), "-", ".", "..", "a/../b",
                     "nul\x00byte", "new\nline", "ledger.db"]),
    argv_text(max_size=3).filter(lambda t: bool(t.strip())),
)
ids = st.one_of(st.integers(-5, 50), st.sampled_from([2**63, 2**64, 10**30, -(2**63) - 1])).map(str) | st.sampled_from(
    ["abc", "", "1.5", "NaN", "0x10", "١"]
)


def _safe(name: str) -> str:
    return name.replace("\x00", "_")[:600]


@fz.fuzz_settings(8)
@given(data=fz.apply_inputs(), source=st.one_of(st.none(), argv_text()), seed_first=st.booleans())
def test_import(tmp_path_factory, seeded, data, source, seed_first) -> None:
    work = tmp_path_factory.mktemp("import")
    db = fresh_copy(seeded, work) if seed_first else work / "new.db"
    path = work / "history.jsonl"
    path.write_bytes(data)
    args = ["--db", str(db), "import", str(path)] + ([] if source is None else ["--source", source])
    ends_cleanly(args, db=db if db.exists() else None)


@fz.fuzz_settings(2)
@given(garbage=st.binary(max_size=5000), target=names, pairs=st.sampled_from(["1", "3", "0", "-1", str(2**64), "x"]),
       seed=st.sampled_from(["1", str(10**30), "-3", "z"]), source_kind=st.sampled_from(["ledger", "garbage", "missing"]))
def test_migrate(tmp_path_factory, seeded, garbage, target, pairs, seed, source_kind) -> None:
    work = tmp_path_factory.mktemp("migrate")
    source = fresh_copy(seeded, work)
    if source_kind == "garbage":
        source.write_bytes(garbage)
    elif source_kind == "missing":
        source = work / "none.db"
    args = ["migrate", "--from", str(source), "--to", str(work / _safe(target)), "--pairs", pairs, "--seed", seed]
    ends_cleanly(args, allowed=(0, 1, 2))


@fz.fuzz_settings(5)
@given(dest=names, force=st.booleans(), existing=st.sampled_from(["none", "file", "folder"]))
def test_backup(tmp_path_factory, seeded, dest, force, existing) -> None:
    work = tmp_path_factory.mktemp("backup")
    db = fresh_copy(seeded, work)
    target = work / _safe(dest)
    try:
        if existing == "file" and not target.exists():
            target.write_bytes(b"old")
        elif existing == "folder":
            target.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError):
        pass
    ends_cleanly(["--db", str(db), "backup", str(target)] + (["--force"] if force else []), db=db, allowed=(0, 1, 2))


@fz.fuzz_settings(5)
@given(spots=st.lists(st.tuples(st.floats(0, 1), st.binary(min_size=1, max_size=300)), min_size=1, max_size=6),
       truncate=st.one_of(st.none(), st.floats(0, 1)), side=st.sampled_from(["", "-wal", "-shm"]))
def test_verify_of_a_damaged_file(tmp_path_factory, seeded, spots, truncate, side) -> None:
    db = fresh_copy(seeded, tmp_path_factory.mktemp("verify"))
    part = Path(f"{db}{side}")
    if not part.exists():
        part.write_bytes(b"")
    with part.open("r+b") as stream:
        size = max(part.stat().st_size, 1)
        for where, garbage in spots:
            stream.seek(int(where * size))
            stream.write(garbage)
        if truncate is not None:
            stream.truncate(int(truncate * size))
    ends_cleanly(["--db", str(db), "verify"], allowed=(0, 1, 2))
    ends_cleanly(["--db", str(db), "verify", "--json"], allowed=(0, 1, 2))


@fz.fuzz_settings(5)
@given(directory=names, fmt=st.sampled_from(["parquet", "csv", "xlsx", ""]), exists=st.sampled_from(["none", "file", "folder"]))
def test_export(tmp_path_factory, seeded, directory, fmt, exists) -> None:
    work = tmp_path_factory.mktemp("export")
    db = fresh_copy(seeded, work)
    target = work / _safe(directory)
    try:
        if exists == "file" and not target.exists():
            target.write_bytes(b"x")
        elif exists == "folder":
            target.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError):
        pass
    ends_cleanly(["--db", str(db), "export", str(target), "--format", fmt])
    shutil.rmtree(work, ignore_errors=True)


REVIEW = st.one_of(
    st.tuples(st.sampled_from(["accept", "reject"]), st.lists(ids, min_size=0, max_size=3)).map(lambda t: [t[0], *t[1]]),
    st.tuples(st.sampled_from(["show", "confirm", "unconfirm", "lift"]), ids).map(list),
    st.just(["list"]), st.just(["rejections"]), st.just(["confirmations"]),
)


@fz.fuzz_settings(12)
@given(command=REVIEW, reason=st.one_of(st.none(), argv_text()),
       extra=st.lists(st.sampled_from(["--value", "--valid-from", "--valid-to", "--limit", "--scope", "--context", "--status",
                                       "--json"]), max_size=2),
       value=st.one_of(argv_text(), st.sampled_from(fz.TIMES), ids),
       principal=st.sampled_from(["operator:rita", "agent:x", "digest:y", "bogus", ""]))
def test_review(tmp_path_factory, seeded, command, reason, extra, value, principal) -> None:
    db = fresh_copy(seeded, tmp_path_factory.mktemp("review"))
    args = ["--db", str(db), "--principal", principal, "review", *command]
    if reason is not None:
        args += ["--reason", reason]
    for option in extra:
        args += [option] if option == "--json" else [option, value]
    ends_cleanly(args, db=db)


# -- the page -----------------------------------------------------------------------------------------

fastapi = pytest.importorskip("fastapi", reason="the ui extra (fastapi) is not installed")

TOKEN = "a-test-operator-token-0123456789"
ROUTES = [
    ("GET", "/"), ("GET", "/subject"), ("GET", "/slot"), ("GET", "/tx/{id}"), ("GET", "/queue"), ("GET", "/proposal/{id}"),
    ("POST", "/login"), ("POST", "/logout"), ("POST", "/proposal/{id}/accept"), ("POST", "/proposal/{id}/reject"),
    ("POST", "/rejection/{id}/lift"), ("POST", "/claim/{id}/confirm"), ("POST", "/confirmation/{id}/unconfirm"),
    ("GET", "/static/{id}"),
]
QUERY_KEYS = ["q", "scope", "subject", "predicate", "known_at"]
FORM_KEYS = ["csrf", "value", "valid_from", "valid_to", "edit_valid_to", "reason", "token", "next"]


@pytest.fixture(scope="module")
def page(seeded, tmp_path_factory):
    from fastapi.testclient import TestClient

    from factledger.cli.ui.app import create_app
    from factledger.cli.ui.security import Guard

    db = fresh_copy(seeded, tmp_path_factory.mktemp("page"))
    guard = Guard(TOKEN, "operator:rita")
    return TestClient(create_app(db, guard=guard, hosts=("testserver",)), raise_server_exceptions=False), guard


@fz.fuzz_settings(40)
@given(route=st.sampled_from(ROUTES), path_id=st.one_of(ids, fz.hostile_text(max_size=2)),
       query=st.dictionaries(st.sampled_from(QUERY_KEYS), st.one_of(fz.hostile_text(), st.sampled_from(fz.TIMES)), max_size=4),
       form=st.dictionaries(st.sampled_from(FORM_KEYS), st.one_of(fz.hostile_text(), st.sampled_from(fz.TIMES)), max_size=5),
       body=st.one_of(st.none(), st.binary(max_size=200), st.sampled_from([b"{", b"[]", b'{"csrf": 1}', b"[" * 5000, b'"\\ud800"'])),
       host=st.sampled_from(["testserver", "evil.example", "127.0.0.1:1", "[::1]", "", "a" * 300]),
       origin=st.sampled_from([None, "http://testserver", "http://evil.example", "null", "javascript:x"]),
       signed=st.booleans(), csrf_ok=st.booleans(), accept_json=st.booleans())
def test_page_endpoints(page, route, path_id, query, form, body, host, origin, signed, csrf_ok, accept_json) -> None:
    client, guard = page
    method, template = route
    from urllib.parse import quote

    path = template.replace("{id}", quote(path_id.encode("utf-8", "surrogatepass"), safe=""))
    headers = {"host": host} if host else {}
    if origin:
        headers["origin"] = origin
    if accept_json:
        headers["accept"] = "application/json"
    if signed:
        headers["authorization"] = f"Bearer {TOKEN}"
    if csrf_ok:
        form = {**form, "csrf": guard.csrf()}
    try:
        params = {k: v.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for k, v in query.items()}
        clean_form = {k: v.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for k, v in form.items()}
    except UnicodeError:
        return
    if method == "GET":
        response = client.get(path, params=params, headers=headers)
    elif body is not None:
        response = client.post(path, params=params, headers={**headers, "content-type": "application/json"}, content=body)
    else:
        response = client.post(path, params=params, headers=headers, data=clean_form)
    assert response.status_code < 500, (method, path, response.status_code, response.text[:500])
    if host and host != "testserver" and not host.startswith(("127.0.0.1", "[::1]")):
        assert response.status_code in (400, 421), (host, response.status_code)
