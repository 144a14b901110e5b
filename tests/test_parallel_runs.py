"""How `./dev test` runs the suite in parallel: the arguments the script gives pytest (a copy of ./dev
beside a stand-in interpreter that prints them), and the order tests/support/parallel.py hands modules
out in under pytest-xdist (a small suite run in a pytest subprocess)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


def dev_test_arguments(tmp_path: Path, *args: str) -> list[str]:
    """What `./dev test ARGS` runs .venv/bin/python with, in a copy whose .venv says the project is installed."""
    for name in ("dev", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    bindir = tmp_path / ".venv" / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    (bindir / "python").write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    (bindir / "python").chmod(0o755)
    digest = hashlib.sha256((tmp_path / "pyproject.toml").read_bytes()).hexdigest()
    (tmp_path / ".venv" / ".factledger-installed").write_text(f"{digest} [test]\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_THREAD_LIMIT")}  # nproc reads them
    result = subprocess.run(["bash", str(tmp_path / "dev"), "test", *args], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return result.stdout.splitlines()


def test_dev_test_runs_one_worker_per_core_unless_told_otherwise(tmp_path):
    workers = min(len(os.sched_getaffinity(0)), 4)
    parallel = ["-n", str(workers), "--dist", "loadscope", "--no-loadscope-reorder"] if workers > 1 else []
    assert dev_test_arguments(tmp_path) == ["-m", "pytest", "-q", *parallel]
    picked = ["tests/cli/test_demo.py", "-k", "demo"]
    assert dev_test_arguments(tmp_path, *picked) == ["-m", "pytest", "-q", *parallel, *picked]
    for chosen in (["-n", "0"], ["-n3"], ["--dist", "load", "-n", "2"], ["-p", "no:xdist"], ["--pdb"], ["-s", "-k", "x"]):
        assert dev_test_arguments(tmp_path, *chosen) == ["-m", "pytest", "-q", *chosen], chosen


MODULE = """
import os
import pytest

def _log(name):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "serial")
    with open(os.path.join({log!r}, worker + ".log"), "a") as out:
        out.write(name + "\\n")

{tests}
"""


def _module(log: Path, names: list[str], slow: str | None = None) -> str:
    tests = "\n".join(("@pytest.mark.slow\n" if name == slow else "") + f"def test_{name}():\n    _log({name!r})\n" for name in names)
    return MODULE.format(log=str(log), tests=tests)


def test_modules_with_a_slow_test_go_first_then_the_largest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("xdist")
    log = pytester.path / "logs"
    log.mkdir()
    # Collected a, b, c: a has one test, b five, c two (one slow).
    pytester.makepyfile(test_a=_module(log, ["a1"]), test_b=_module(log, [f"b{i}" for i in range(5)]),
                        test_c=_module(log, ["c1", "c2"], slow="c2"))
    pytester.makeini("[pytest]\nmarkers =\n    slow: long-running\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)  # this test may itself run in a worker: the inner serial run is not one

    serial = pytester.runpytest_subprocess("-p", "tests.support.parallel", "-p", "no:cacheprovider")
    serial.assert_outcomes(passed=8)
    assert (log / "serial.log").read_text().split() == ["a1", *[f"b{i}" for i in range(5)], "c1", "c2"]  # as collected

    (log / "serial.log").unlink()
    parallel = pytester.runpytest_subprocess("-p", "tests.support.parallel", "-p", "no:cacheprovider", "-n", "2",
                                             "--dist", "loadscope", "--no-loadscope-reorder")
    parallel.assert_outcomes(passed=8)
    runs = {path.stem: path.read_text().split() for path in log.glob("gw*.log")}
    # c (the slow test's module) and b (the largest) are the two workers' first units; each module whole
    # on one worker, in its own order; a, the smallest, comes after.
    assert sorted(tests[0][0] for tests in runs.values()) == ["b", "c"], runs
    for module, names in (("a", ["a1"]), ("b", [f"b{i}" for i in range(5)]), ("c", ["c1", "c2"])):
        (holder,) = [tests for tests in runs.values() if any(t.startswith(module) for t in tests)]
        assert [t for t in holder if t.startswith(module)] == names, runs
