"""A throwaway PostgreSQL cluster for the tests: initdb into a temp dir, a server on a unix socket in
that dir (no TCP port), stopped and removed afterwards.

initdb refuses to run as root, so as root the server runs as the `postgres` user Debian's package
creates (the temp dir is handed to it); as anyone else it runs as that user. Nothing here talks to a
server the machine already runs.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SERVER_USER = "postgres"
PORT = 5432  # only names the socket file inside our own directory; no TCP listener
TEST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


class ClusterUnavailable(RuntimeError):
    """PostgreSQL's server programs are not installed (or cannot run here)."""


def find_bindir() -> Path:
    """The directory holding initdb and pg_ctl: $FACTLEDGER_PG_BINDIR alone when set; else PATH, then
    Debian's versioned /usr/lib/postgresql/<major>/bin (the newest)."""
    override = os.environ.get("FACTLEDGER_PG_BINDIR")
    if override:
        candidates = [Path(override)]
    else:
        on_path = shutil.which("initdb")
        candidates = [Path(on_path).parent] if on_path else []
        debian = glob.glob("/usr/lib/postgresql/*/bin")
        candidates += [Path(p) for p in sorted(debian, key=_major, reverse=True)]
    for bindir in candidates:
        if (bindir / "initdb").is_file() and (bindir / "pg_ctl").is_file():
            return bindir
    where = f"FACTLEDGER_PG_BINDIR={override}" if override else "PATH or /usr/lib/postgresql/*/bin"
    raise ClusterUnavailable(
        f"PostgreSQL's initdb/pg_ctl were not found in {where} (install Debian's `postgresql` package)"
    )


def _major(bindir: str) -> int:
    name = Path(bindir).parent.name
    return int(name) if name.isdigit() else 0


def unavailable(reason: str) -> None:
    """Under CI=true the PostgreSQL tests must run: a missing server fails the test there, and skips
    it, with the reason, elsewhere."""
    import pytest

    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and PostgreSQL is unavailable: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL is unavailable: {reason}")


@dataclass
class Cluster:
    root: Path
    bindir: Path
    as_user: list[str]  # prefix that runs a program as the server's user

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host={self.socket_dir} port={PORT} user={SERVER_USER} dbname={dbname}"

    def url(self, dbname: str = "postgres") -> str:
        """The same database as a URL (what `--db` and `factledger.open` take)."""
        return f"postgresql://{SERVER_USER}@/{dbname}?host={self.socket_dir}&port={PORT}"

    def _run(self, *args: str) -> None:
        result = subprocess.run(
            [*self.as_user, *args], capture_output=True, text=True, cwd=self.root, timeout=120
        )
        if result.returncode != 0:
            raise ClusterUnavailable(f"{Path(args[0]).name} failed ({result.returncode}): {result.stderr.strip()[-2000:]}")

    def start(self, settings: dict[str, str] | None = None) -> None:
        """initdb, then the server; `settings` override TEST_SETTINGS (evals/bench_ledger.py keeps fsync on)."""
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data_dir), "-U", SERVER_USER, "-A", "trust",
            "-E", "UTF8", "--locale=C", "--no-sync",
        )
        # No TCP, the socket in our dir; for tests no durability either (the data dies with the run).
        chosen = {**TEST_SETTINGS, **(settings or {})}
        options = f"-c listen_addresses='' -c unix_socket_directories='{self.socket_dir}' -p {PORT} " + " ".join(
            f"-c {name}={value}" for name, value in chosen.items()
        )
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.root / "server.log"),
            "-o", options, "-w", "-t", "60", "start",
        )

    def stop(self) -> None:
        try:
            if (self.data_dir / "postmaster.pid").exists():
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _as_server_user() -> tuple[list[str], int | None, int | None]:
    """The command prefix, uid and gid the server runs under."""
    if os.geteuid() != 0:
        return [], None, None
    try:
        entry = pwd.getpwnam(SERVER_USER)
    except KeyError:
        raise ClusterUnavailable(f"running as root and there is no `{SERVER_USER}` user to run the server as") from None
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise ClusterUnavailable("running as root and setpriv (util-linux) is missing")
    prefix = [setpriv, f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups", "--"]
    return prefix, entry.pw_uid, entry.pw_gid


def start_cluster(settings: dict[str, str] | None = None) -> Cluster:
    """Initialise and start a cluster in a fresh temp dir; the caller stops it. `settings`: server
    settings over TEST_SETTINGS."""
    bindir = find_bindir()
    prefix, uid, gid = _as_server_user()
    # Short path: a unix socket path must fit in about 100 bytes.
    root = Path(tempfile.mkdtemp(prefix="factledger-pg-", dir="/tmp"))
    if uid is not None:
        os.chown(root, uid, gid)
    cluster = Cluster(root=root, bindir=bindir, as_user=prefix)
    try:
        cluster.start(settings)
    except BaseException:
        log = root / "server.log"
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        cluster.stop()
        if detail:
            raise ClusterUnavailable(f"the PostgreSQL server did not start: {detail}") from None
        raise
    return cluster
