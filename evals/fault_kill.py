"""SIGKILL real `factledger` processes at random moments and check what is left.

Surfaces (each its own ledger, growing over the run; all subprocesses on this machine; seeded):
- apply: `factledger apply` of a file of 40 transactions (single lines and `tx` groups of 2-4 lines),
  killed after a random number of printed transactions plus a random few milliseconds (or during start).
  Checked: every transaction it printed is in the ledger with its reason; the committed ones are a
  prefix of the file in order; each committed transaction has every version its lines open (nothing
  half-applied); none is there twice. Every fifth kill, the run is resumed to the end with `--from-line`.
- search: `factledger search` while the outbox holds fresh changes (the search drains it into LanceDB).
- rebuild / repair: `factledger index rebuild` and `factledger index repair` over the same ledger.
- digest: `factledger digest` of a journal of a few thousand turns (rules extractor), killed and run
  again until the backlog is empty; the claims at the end must equal a reference ledger that digested
  the same turns with no kill, and no journal entry may have been digested twice.
- hermes: the Hermes provider (`FactledgerMemoryProvider`, as Hermes loads it) in a process of its own,
  journaling turns with `sync_turn` and digesting them on its worker thread, killed between turns or
  while it digests and shuts down: every turn it acknowledged is in the journal, once.

After every kill: `PRAGMA integrity_check` is `ok`, and `factledger verify --json` passes every check
but two that a kill may legitimately leave failing, both documented as repairable: `outbox_drained`
(changes not yet in the vector companion) and `vector_index` (the companion behind or half-written).
Then `factledger index repair` runs and `verify` must pass every check (exit 0). Both run in this
process through click's runner (the command's own code, without a process start per check).

    .venv/bin/python evals/fault_kill.py [--kills 200] [--seed 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.digest import Journal, Turn
from factledger.ledger import Ledger

FACTLEDGER = str(Path(sys.executable).with_name("factledger"))
# A kill may leave these failing; `index repair` must clear them (DESIGN §5: the index is rebuildable).
REPAIRABLE = {"outbox_drained", "vector_index"}
SURFACES = ("apply", "search", "rebuild", "repair", "digest", "hermes")
SHARE = {"apply": 0.35, "search": 0.14, "rebuild": 0.14, "repair": 0.14, "digest": 0.14, "hermes": 0.09}


@dataclass
class Tally:
    kills: int = 0
    resumed: int = 0  # killed apply runs resumed with --from-line to the end of their file
    mid_work: int = 0  # kills that landed after the command had changed something and before it finished
    printed: int = 0  # transactions printed before a kill (apply)
    committed_unprinted: int = 0  # committed, killed before printing (apply): allowed, reported
    lost: int = 0
    duplicated: int = 0
    half_applied: int = 0
    integrity_failures: int = 0
    verify_findings: Counter = field(default_factory=Counter)  # repairable checks left failing by a kill
    unrepaired: list[str] = field(default_factory=list)  # verify still failing after repair
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "kills": self.kills, "mid_work": self.mid_work, "resumed": self.resumed, "printed": self.printed,
            "committed_unprinted": self.committed_unprinted, "lost": self.lost, "duplicated": self.duplicated,
            "half_applied": self.half_applied, "integrity_failures": self.integrity_failures,
            "verify_findings_before_repair": dict(self.verify_findings),
            "verify_failures_after_repair": len(self.unrepaired), "problems": self.problems[:10] + self.unrepaired[:10],
        }

    @property
    def held(self) -> bool:
        return not (self.lost or self.duplicated or self.half_applied or self.integrity_failures or self.unrepaired or self.problems)


def run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def check_store(db: Path, tally: Tally, label: str) -> None:
    """integrity_check, then verify (only repairable findings allowed), then repair, then verify clean."""
    with Ledger.open(db) as ledger:
        result = ledger.storage.one("PRAGMA integrity_check")[0]
    if result != "ok":
        tally.integrity_failures += 1
        tally.problems.append(f"{label}: integrity_check: {result}")
    code, out = run_cli("--db", str(db), "verify", "--json")
    failing = {c["name"] for c in json.loads(out)["checks"] if not c["ok"]}
    tally.verify_findings.update(failing)
    if failing - REPAIRABLE:
        tally.problems.append(f"{label}: verify failed {sorted(failing - REPAIRABLE)} (exit {code})")
    code, out = run_cli("--db", str(db), "index", "repair", "--json")
    if code != 0:
        tally.unrepaired.append(f"{label}: index repair exit {code}: {out.strip()[-300:]}")
        return
    code, out = run_cli("--db", str(db), "verify", "--json")
    if code != 0:
        failing = [c["name"] for c in json.loads(out)["checks"] if not c["ok"]]
        tally.unrepaired.append(f"{label}: verify after repair failed {failing}")


def spawn(db: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [FACTLEDGER, "--db", str(db), "--principal", "operator:faults", *args],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )


def kill(proc: subprocess.Popen) -> tuple[bool, str]:
    """SIGKILL; returns (finished before the kill, what it printed that was still in the pipe)."""
    finished = proc.poll() is not None
    if not finished:
        os.kill(proc.pid, signal.SIGKILL)
    rest = proc.stdout.read()
    proc.wait()
    return finished, rest


def timed_kill(proc: subprocess.Popen, delay: float) -> tuple[bool, str]:
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.002)
    return kill(proc)


def written(pid: int) -> int | None:
    """Bytes the process has written so far (/proc/<pid>/io wchar), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/io") as io:
            for line in io:
                if line.startswith("wchar:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


STARTUP_WRITES = 4096  # a command writes a few bytes while it starts (SQLite's -shm); work writes far more


def measure_writes(db: Path, args: tuple[str, ...]) -> int:
    """How many bytes one uninterrupted run of the command writes (to place kills across its work)."""
    proc = spawn(db, *args)
    most = 0
    while proc.poll() is None:
        most = max(most, written(proc.pid) or 0)
        time.sleep(0.001)
    proc.stdout.read()
    return max(most, STARTUP_WRITES * 2)


def kill_during_work(proc: subprocess.Popen, rng: random.Random, total_writes: int) -> bool:
    """SIGKILL once the process has written a random share of what a whole run writes (most kills), or
    after a random delay in its first second (some kills land while it starts and opens the ledger).
    Returns True when it ended by itself first."""
    if rng.random() < 0.15:
        return timed_kill(proc, rng.uniform(0.0, 1.0))[0]
    threshold = rng.uniform(STARTUP_WRITES, total_writes)
    while proc.poll() is None:
        done = written(proc.pid)
        if done is None or done >= threshold:
            break
        time.sleep(0.0005)
    return kill(proc)[0]


# -- apply ---------------------------------------------------------------------------------------


def apply_file(path: Path, round_: int, rng: random.Random) -> list[tuple[int, int, str]]:
    """Write 40 transactions; returns (first line, lines, reason) per transaction, in file order."""
    lines, plan, number = [], [], 0
    for t in range(40):
        size = rng.choice((1, 1, 1, 2, 3, 4))
        reason = f"r{round_}-t{t}"
        first = number + 1
        for k in range(size):
            op = {"op": "add", "scope": f"apply{round_ % 7}", "subject": f"r{round_} t{t} k{k}",
                  "predicate": "note", "value": f"value {round_}.{t}.{k}"}
            if size > 1:
                op["tx"] = f"g{t}"
            if k == 0:
                op["reason"] = reason
            lines.append(json.dumps(op))
            number += 1
        plan.append((first, size, reason))
    path.write_text("\n".join(lines) + "\n")
    return plan


def check_apply(db: Path, plan: list[tuple[int, int, str]], printed: list[dict], tally: Tally, label: str) -> int:
    """The checks after an apply kill; returns how many of the file's transactions are committed."""
    with Ledger.open(db) as ledger:
        rows = ledger.storage.query(
            "SELECT t.id, t.reason, (SELECT COUNT(*) FROM claims c WHERE c.opened_by = t.id) AS opened"
            " FROM transactions t WHERE t.reason LIKE ? ORDER BY t.id",
            (label.split(":")[0] + "-t%",),
        )
    by_reason: dict[str, list] = {}
    for r in rows:
        by_reason.setdefault(r["reason"], []).append(r)
    tally.duplicated += sum(1 for v in by_reason.values() if len(v) > 1)
    committed = 0
    for first, size, reason in plan:
        if reason not in by_reason:
            break
        committed += 1
        if by_reason[reason][0]["opened"] != size:
            tally.half_applied += 1
            tally.problems.append(f"{label}: {reason} opened {by_reason[reason][0]['opened']} of {size} versions")
    if len(by_reason) != committed:
        tally.problems.append(f"{label}: committed transactions are not a prefix of the file")
    ids = {r["id"]: r["reason"] for r in rows}
    for entry in printed:
        if ids.get(entry["tx"]) != entry["reason"]:
            tally.lost += 1
            tally.problems.append(f"{label}: printed tx {entry['tx']} ({entry['reason']}) is not in the ledger")
    tally.printed += len(printed)
    tally.committed_unprinted += committed - len(printed)
    return committed


def apply_kills(root: Path, kills: int, rng: random.Random, tally: Tally, *, resume_every: int = 5) -> None:
    db = root / "apply.db"
    with Ledger.open(db) as ledger, ledger.transaction(principal="operator:faults") as tx:
        tx.define("note", "many")
    for round_ in range(kills):
        ops = root / f"apply-{round_}.jsonl"
        plan = apply_file(ops, round_, rng)
        proc = spawn(db, "apply", str(ops))
        wait_for = rng.randint(0, len(plan) - 1)
        printed: list[dict] = []
        if wait_for == 0:
            finished, rest = timed_kill(proc, rng.uniform(0.0, 0.5))  # while it starts or on its first transactions
        else:
            while len(printed) < wait_for:
                line = proc.stdout.readline()
                if not line:
                    break
                printed.append(json.loads(line))
            time.sleep(rng.uniform(0.0, 0.004))
            finished, rest = kill(proc)
        printed += [json.loads(line) for line in rest.splitlines() if line.endswith("}")]
        tally.kills += 1
        label = f"r{round_}: apply kill {round_}"
        committed = check_apply(db, plan, printed, tally, label)
        tally.mid_work += 0 < committed < len(plan) and not finished
        if round_ % resume_every == resume_every - 1 and committed < len(plan):  # resume the killed run to its end
            resume = subprocess.run(
                [FACTLEDGER, "--db", str(db), "apply", str(ops), "--from-line", str(plan[committed][0])],
                capture_output=True, text=True,
            )
            if resume.returncode != 0:
                tally.problems.append(f"{label}: resume failed: {resume.stderr.strip()[-200:]}")
            done = [json.loads(line) for line in resume.stdout.splitlines()]
            if check_apply(db, plan, printed + done, Tally(), label) != len(plan):
                tally.problems.append(f"{label}: the resume did not complete the file")
            tally.resumed += 1
        check_store(db, tally, label)


# -- recall: search, rebuild, repair -------------------------------------------------------------


def fill_recall(db: Path, rng: random.Random, batch: int, tag: str) -> None:
    """New claims (and so outbox rows) for the next recall kill to index."""
    with Ledger.open(db) as ledger, ledger.transaction(principal="operator:faults", reason=tag) as tx:
        for i in range(batch):
            tx.add(f"recall{i % 5}", f"person {tag} {i}", "note", f"{rng.choice(WORDS)} {rng.choice(WORDS)} {i}")


WORDS = ["harbour", "violin", "granite", "saffron", "lantern", "meadow", "copper", "orchid", "glacier", "falcon",
         "teapot", "canyon", "walnut", "compass", "ember", "lagoon"]


def recall_kills(root: Path, surface: str, kills: int, rng: random.Random, tally: Tally) -> None:
    db = root / f"{surface}.db"
    with Ledger.open(db) as ledger, ledger.transaction(principal="operator:faults") as tx:
        tx.define("note", "many")
    fill_recall(db, rng, 400, "seed")
    args = {
        "search": ("search", "violin harbour", "--scope", "recall1", "--json"),
        "rebuild": ("index", "rebuild", "--json"),
        "repair": ("index", "repair", "--json"),
    }[surface]
    run_cli("--db", str(db), "index", "rebuild")
    fill_recall(db, rng, 300, "calibration")
    total = measure_writes(db, args)
    for round_ in range(kills):
        # search and repair drain what the outbox holds; rebuild rewrites everything (kept small so each run is short)
        fill_recall(db, rng, rng.randint(20, 60) if surface == "rebuild" else rng.randint(100, 500), f"{surface}{round_}")
        before = _index_state(db)
        proc = spawn(db, *args)
        finished = kill_during_work(proc, rng, total)
        tally.kills += 1
        tally.mid_work += not finished and _index_state(db) != before
        check_store(db, tally, f"{surface} kill {round_}")


def _index_state(db: Path) -> tuple:
    """What a recall command changes: the outbox and the LanceDB folder's files."""
    with Ledger.open(db) as ledger:
        outbox = ledger.storage.one("SELECT COUNT(*) FROM recall_outbox")[0]
    folder = Path(str(db) + ".lance")
    files = sorted((str(p), p.stat().st_size) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []
    return outbox, tuple(files)


# -- digest --------------------------------------------------------------------------------------

CITIES = ["Porto", "Lisbon", "Zurich", "Oslo", "Tallinn", "Krakow", "Ghent", "Bergen", "Turin", "Seville"]
FIRMS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne"]


def digest_turns(count: int, rng: random.Random) -> list[Turn]:
    turns = []
    for i in range(count):
        person = i % 150
        kind = rng.randrange(5)
        text = (
            f"I live in {rng.choice(CITIES)}.", f"I work at {rng.choice(FIRMS)}.", f"I love {rng.choice(WORDS)}s.",
            f"My name is {rng.choice(['Ana', 'Ben', 'Chidi', 'Dana', 'Eero'])}.", "Thanks, that helps a lot.",
        )[kind]
        said = f"2026-0{1 + (i // 1000) % 9}-{1 + (i // 40) % 28:02d}T{(i // 60) % 24:02d}:{i % 60:02d}:00Z"
        turns.append(Turn(scope=f"user{person}", session=f"s{person}-{i // 300}", role="user", text=text, said_at=said))
    return turns


def journal(db: Path, turns: list[Turn]) -> None:
    with Ledger.open(db) as ledger, ledger.storage.atomic():  # one transaction for the whole batch
        book = Journal(ledger)
        for turn in turns:
            book.append(turn)


def claims_of(db: Path) -> Counter:
    with Ledger.open(db) as ledger:
        rows = ledger.storage.query(
            "SELECT scope, subject_key, predicate, value_key, valid_from, valid_to FROM claims WHERE tx_to IS NULL"
        )
    return Counter(tuple(r) for r in rows)


def digested_twice(db: Path) -> int:
    with Ledger.open(db) as ledger:
        rows = ledger.storage.query(
            "SELECT entry_id, COUNT(*) FROM proposals GROUP BY entry_id, ordinal HAVING COUNT(*) > 1"
        )
    return len(rows)


def backlog(db: Path) -> int:
    with Ledger.open(db) as ledger:
        return ledger.storage.one("SELECT COUNT(*) FROM journal WHERE digested_at IS NULL")[0]


def digest_kills(root: Path, kills: int, turns_per_batch: int, rng: random.Random, tally: Tally) -> None:
    db, reference = root / "digest.db", root / "digest-reference.db"
    total = None
    for round_ in range(kills):
        if not db.exists() or backlog(db) == 0:
            turns = digest_turns(turns_per_batch, random.Random(rng.random()))
            journal(db, turns)
            journal(reference, turns)
            if total is None:  # the reference digests with no kill (and tells how much a whole run writes)
                total = measure_writes(reference, ("digest", "--rules"))
            else:
                subprocess.run([FACTLEDGER, "--db", str(reference), "digest", "--rules"], capture_output=True)
        before = backlog(db)
        proc = spawn(db, "digest", "--rules", "--json")
        finished = kill_during_work(proc, rng, total)
        tally.kills += 1
        after = backlog(db)
        tally.mid_work += not finished and 0 < before - after and after > 0
        check_store(db, tally, f"digest kill {round_}")
    subprocess.run([FACTLEDGER, "--db", str(db), "digest", "--rules"], capture_output=True)  # finish the backlog
    if backlog(db):
        tally.problems.append(f"digest: {backlog(db)} turns left undigested after a final run")
    ours, theirs = claims_of(db), claims_of(reference)
    if ours != theirs:
        tally.lost += sum((theirs - ours).values())
        tally.duplicated += sum((ours - theirs).values())
        tally.problems.append(f"digest: claims differ from the unkilled reference: {len(theirs - ours)} missing, {len(ours - theirs)} extra")
    tally.duplicated += digested_twice(db)
    check_store(db, tally, "digest, final")


# -- Hermes provider journaling ------------------------------------------------------------------

HERMES_CHILD = """
import os, sys
home, start, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.environ["HERMES_HOME"] = home
os.environ.setdefault("HF_HUB_OFFLINE", "1")
from factledger.hermes_plugin.provider import FactledgerMemoryProvider
provider = FactledgerMemoryProvider()
provider.initialize("kills", hermes_home=home, platform="cli", agent_identity="default")
for i in range(start, start + count):
    provider.sync_turn(f"I live in Porto and my lucky number is {i}.", f"Noted number {i}.")
    print(i, flush=True)  # sync_turn returned: the turn is journaled (its digest runs on the worker)
provider.shutdown()
"""


def hermes_kills(root: Path, kills: int, rng: random.Random, tally: Tally) -> None:
    """Hermes's `sync_turn` in a process of its own (the provider as Hermes loads it), killed between or
    during turns and during its background digest: every turn it acknowledged is in the journal, once."""
    home = root / "hermes-home"
    home.mkdir()
    db = home / "factledger" / "ledger.db"
    per_run = 40
    for round_ in range(kills):
        start = round_ * per_run
        proc = subprocess.Popen(
            [sys.executable, "-c", HERMES_CHILD, str(home), str(start), str(per_run)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        acked = []
        wait_for = rng.randint(0, per_run)  # per_run: kill while it digests and shuts down
        while len(acked) < wait_for:
            line = proc.stdout.readline()
            if not line:
                break
            acked.append(int(line))
        time.sleep(rng.uniform(0.0, 0.01 if wait_for < per_run else 0.5))
        finished, rest = kill(proc)
        acked += [int(line) for line in rest.split()]
        tally.kills += 1
        tally.printed += len(acked)
        with Ledger.open(db) as ledger:
            texts = Counter(r["text"] for r in ledger.storage.query("SELECT text FROM journal"))
        for i in acked:
            for text in (f"I live in Porto and my lucky number is {i}.", f"Noted number {i}."):
                if texts[text] == 0:
                    tally.lost += 1
                    tally.problems.append(f"hermes kill {round_}: acknowledged turn {i} is not in the journal")
        tally.duplicated += sum(1 for n in texts.values() if n > 1)
        tally.mid_work += not finished and 0 < len(acked)
        check_store(db, tally, f"hermes kill {round_}")


# -- run -----------------------------------------------------------------------------------------


def plan_kills(total: int) -> dict[str, int]:
    counts = {s: max(1, int(round(total * SHARE[s]))) for s in SURFACES}
    counts["apply"] += total - sum(counts.values())
    return counts


def run(kills: dict[str, int], *, seed: int = 7, turns: int = 2500, workdir: Path | None = None) -> dict[str, Tally]:
    rng = random.Random(seed)
    tallies = {s: Tally() for s in kills}
    with tempfile.TemporaryDirectory(prefix="fault-kill-", dir=workdir) as tmp:
        root = Path(tmp)
        for surface, count in kills.items():
            if count <= 0:
                continue
            if surface == "apply":
                apply_kills(root, count, rng, tallies[surface])
            elif surface == "digest":
                digest_kills(root, count, turns, rng, tallies[surface])
            elif surface == "hermes":
                hermes_kills(root, count, rng, tallies[surface])
            else:
                recall_kills(root, surface, count, rng, tallies[surface])
    return tallies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200, help="kills in all, shared out over the surfaces")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--turns", type=int, default=2500, help="journal turns per digest batch")
    parser.add_argument("--only", choices=SURFACES, action="append", help="only these surfaces")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    counts = plan_kills(args.kills)
    if args.only:
        share = args.kills // len(args.only)
        counts = {s: share for s in args.only}
    started = time.monotonic()
    tallies = run(counts, seed=args.seed, turns=args.turns)
    report = {s: t.to_dict() for s, t in tallies.items()}
    report["seconds"] = round(time.monotonic() - started, 1)
    report["held"] = all(t.held for t in tallies.values())
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for surface, t in tallies.items():
            d = t.to_dict()
            print(
                f"{surface:8s} kills {d['kills']:4d} (mid-work {d['mid_work']:3d})  lost {d['lost']}  duplicated {d['duplicated']}  "
                f"half-applied {d['half_applied']}  integrity failures {d['integrity_failures']}  "
                f"verify before repair {d['verify_findings_before_repair'] or '{}'}  after repair: {d['verify_failures_after_repair']} failing"
                + (f"  printed {d['printed']}, committed unprinted {d['committed_unprinted']}, resumed {d['resumed']}" if surface == "apply" else "")
                + (f"  turns acknowledged {d['printed']}" if surface == "hermes" else "")
            )
            for problem in d["problems"]:
                print(f"    {problem}")
        print(f"{sum(t.kills for t in tallies.values())} kills in {report['seconds']} s: {'everything held' if report['held'] else 'SOMETHING BROKE'}")
    return 0 if report["held"] else 1


if __name__ == "__main__":
    sys.exit(main())
