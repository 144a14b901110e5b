"""What factledger adds to every Hermes process: start, exit and status, beside the same Hermes home with no
memory provider, in the same process of this script (runs alternate, so load on the machine hits both).

    .venv/bin/python evals/hermes_timings.py [--runs 3] [--json]

One Hermes home (installed with `factledger hermes install --set-provider`, a ledger with a few facts) and a
local scripted model. Each run is a real `hermes chat -Q -q "..."` process; the figures per run:
- start: from the process's launch to the model's first chat request (Hermes's own start, plus the
  provider's load and `initialize`);
- exit: from that reply to the process's end (the end-of-session digest, the provider's shutdown, Hermes's
  own exit);
- start cpu, exit cpu: the CPU seconds the Hermes process used in those two spans (its own and its
  waited-for children's, from /proc and wait4): on a shared machine the wall-clock figures move with
  the other jobs' load, the CPU figures much less;
- status: `hermes memory status` and `factledger status` (no provider: `hermes memory status` alone);
- digested after exit: from the process's end until the journal has no backlog: the exit hands the
  digest to a process of its own (hermes_plugin/exit_digest.py, started by after_exit.py), which starts once Hermes has ended. Nobody
  waits for it; the eval does, untimed, so that no other figure shares the CPU with it.
With factledger selected the run is "with", with `memory.provider` empty it is "without". The targets:
start +0.5 s at most, exit +0.3 s at most (medians), `factledger status` at most 1 s.

Processes run with compiled bytecode, as an installed Hermes does (pip compiles it): a shell with
PYTHONDONTWRITEBYTECODE=1 would otherwise make every process compile each module it imports again
(~0.2 s for `factledger status` alone). The bytecode goes to a cache under the run's temporary folder
(PYTHONPYCACHEPREFIX), filled by one untimed run of each kind before the timed ones.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from factledger.hermes_plugin.scripted_model import ChatRequest, ModelReply, ScriptedModelServer

BIN = Path(sys.executable).parent
TARGETS = {"start": 0.5, "exit": 0.3}
STATUS_TARGET = 1.0
WORDS = ["I moved to Munich in May.", "I work at Initech now.", "My sister is called Ada.", "I like sailing."]


def environment(home: Path) -> dict[str, str]:
    # TIRITH_ENABLED=0: Hermes's command scanner would otherwise try to download its binary.
    env = {**os.environ, "HERMES_HOME": str(home), "HF_HUB_OFFLINE": "1", "TIRITH_ENABLED": "0",
           "PYTHONPYCACHEPREFIX": str(home.parent / "bytecode")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def select(home: Path, provider: str, base_url: str) -> None:
    config = yaml.safe_load((home / "config.yaml").read_text()) or {}
    config["model"] = {"provider": "custom", "base_url": base_url, "default": "fake-model", "api_key": "sk-none"}
    config.setdefault("memory", {})["provider"] = provider
    (home / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


def backlog(home: Path) -> int:
    from factledger.digest import Journal
    from factledger.ledger import Ledger

    with Ledger.open(home / "factledger" / "ledger.db", read_only=True) as ledger:
        return Journal(ledger).backlog_size()


def digested_after(home: Path, ended: float, timeout: float = 120.0) -> float:
    """Seconds from the Hermes process's end until the journal has no backlog (the digest after exit,
    a process of its own, has finished); untimed runs wait for it so no figure shares the CPU with it."""
    deadline = time.perf_counter() + timeout
    while backlog(home) and time.perf_counter() < deadline:
        time.sleep(0.05)
    if backlog(home):
        raise SystemExit(f"the turns were not digested within {timeout} s of the exit")
    return time.perf_counter() - ended


def cpu_seconds(pid: int) -> float:
    """The CPU the process has used so far, its waited-for children included (as wait4 counts it)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime


def chat(home: Path, server: ScriptedModelServer, text: str) -> dict[str, float]:
    arrivals: list[float] = []
    cpu_at_reply: list[float] = []
    process: list[subprocess.Popen] = []

    def reply(request: ChatRequest) -> ModelReply:
        arrivals.append(time.perf_counter())
        cpu_at_reply.append(cpu_seconds(process[0].pid))
        return ModelReply.say("Noted.")

    server.push(reply)
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process.append(subprocess.Popen([str(BIN / "hermes"), "chat", "-Q", "-q", text], env=environment(home),
                                        stdin=subprocess.DEVNULL, stdout=out, stderr=err, text=True))
        _, status, usage = os.wait4(process[0].pid, 0)
        ended = time.perf_counter()
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0 or not arrivals:
            raise SystemExit(f"hermes chat failed ({os.waitstatus_to_exitcode(status)}): {err.read()[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    figures = {"start": arrivals[0] - started, "exit": ended - arrivals[-1], "total": ended - started,
               "start cpu": cpu_at_reply[0], "exit cpu": cpu - cpu_at_reply[-1]}
    with_provider = "factledger" in (yaml.safe_load((home / "config.yaml").read_text()).get("memory") or {}).get("provider", "")
    if with_provider:
        figures["digested after exit"] = digested_after(home, ended)
    return figures


def timed(command: list[str], home: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env=environment(home), capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return time.perf_counter() - started


def measure(runs: int, folder: Path) -> dict:
    home = folder / "hermes-home"
    install = subprocess.run([str(BIN / "factledger"), "hermes", "install", "--set-provider"], env=environment(home),
                             capture_output=True, text=True)
    if install.returncode != 0:
        raise SystemExit(install.stderr)
    figures: dict[str, dict[str, list[float]]] = {"with": {}, "without": {}}
    with ScriptedModelServer() as server:
        select(home, "factledger", server.base_url)
        # Untimed: the ledger exists, Hermes's first-run work is done and the bytecode cache is filled.
        chat(home, server, WORDS[0])
        timed([str(BIN / "factledger"), "status"], home)
        timed([str(BIN / "hermes"), "memory", "status"], home)
        select(home, "", server.base_url)
        chat(home, server, WORDS[0])
        for run in range(runs):
            for label, provider in (("with", "factledger"), ("without", "")):
                select(home, provider, server.base_url)
                for name, value in chat(home, server, WORDS[(run + 1) % len(WORDS)]).items():
                    figures[label].setdefault(name, []).append(value)
                figures[label].setdefault("hermes memory status", []).append(
                    timed([str(BIN / "hermes"), "memory", "status"], home))
                if provider:
                    figures[label].setdefault("factledger status", []).append(
                        timed([str(BIN / "factledger"), "status"], home))
    medians = {label: {name: statistics.median(values) for name, values in rows.items()} for label, rows in figures.items()}
    added = {name: medians["with"][name] - medians["without"][name]
             for name in ("start", "exit", "total", "start cpu", "exit cpu", "hermes memory status")}
    met = {f"start +{TARGETS['start']} s": added["start"] <= TARGETS["start"],
           f"exit +{TARGETS['exit']} s": added["exit"] <= TARGETS["exit"],
           f"factledger status {STATUS_TARGET} s": medians["with"]["factledger status"] <= STATUS_TARGET}
    return {"runs": runs, "medians_s": medians, "added_s": added, "targets_met": met, "all_runs_s": figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="alternating runs with and without the provider")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="factledger-hermes-timings-"))
    try:
        report = measure(max(1, args.runs), folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    medians = report["medians_s"]
    print(f"hermes chat -Q -q, medians of {report['runs']} alternating runs (seconds)")
    print(f"{'':24}{'without':>10}{'with':>10}{'added':>10}")
    for name in ("start", "exit", "total", "start cpu", "exit cpu", "hermes memory status"):
        print(f"{name:24}{medians['without'][name]:>10.2f}{medians['with'][name]:>10.2f}{report['added_s'][name]:>+10.2f}")
    print(f"{'factledger status':24}{'':>10}{medians['with']['factledger status']:>10.2f}")
    print(f"{'digested after exit':24}{'':>10}{medians['with']['digested after exit']:>10.2f}"
          "  (the digest's own process, after Hermes ended: nobody waits for it)")
    for target, ok in report["targets_met"].items():
        print(f"target {target}: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
