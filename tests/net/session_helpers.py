"""Helpers for session tests: a live `HostTable` on loopback (port 0, no beacons unless
asked), joiners over real TCP, and the CLI as subprocesses (`sys.executable -m unonet`)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame
from unonet.net._host import HostTable, TableConfig

ROOT = Path(__file__).resolve().parents[2]


def config(players: int = 3, **kw) -> TableConfig:
    rules = kw.pop("rules", None) or make_rules(kw.pop("preset", "official"), kw.pop("house_list", []),
                                                 teams=kw.get("teams", False))
    kw.setdefault("bind", "127.0.0.1")
    kw.setdefault("announce", False)
    return TableConfig(rules=rules, players=players, **kw)


@contextlib.asynccontextmanager
async def live_table(cfg: TableConfig, **kw):
    """A running HostTable; yields it (``table.port`` set). Closed on exit."""
    events = []
    table = HostTable(cfg, P.Identity.generate(), on_event=events.append, **kw)
    table.events = events
    async with trio.open_nursery() as nursery:
        await nursery.start(table.run)
        try:
            yield table
        finally:
            nursery.cancel_scope.cancel()


async def join(table: HostTable, name: str, **kw) -> N.Link:
    return await N.connect("127.0.0.1", table.port, P.Identity.generate(), name=name,
                           timeouts=N.Timeouts(idle=3.0), **kw)


async def refused(link: N.Link, code: str, what: str) -> None:
    """The host refuses ``link`` with ``code`` before any roster (``what`` names the wrong outcome)."""
    try:
        await receive_until(link, P.Roster)
    except N.PeerRefused as exc:
        assert exc.code == code, (exc.code, str(exc))
    else:
        raise AssertionError(what)


async def receive_until(link: N.Link, kind, limit: float = 5.0):
    """Messages until one of type ``kind`` (returned with the ones before it)."""
    seen = []
    with trio.fail_after(limit):
        while True:
            msg = await link.receive()
            seen.append(msg)
            if isinstance(msg, kind):
                return msg, seen


def env_home() -> dict:
    env = dict(os.environ)
    env["UNONET_HOME"] = tempfile.mkdtemp(prefix="unonet-test-home-")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def at_a_terminal() -> None:
    """A ``preexec_fn``: the child starts as a shell at a terminal starts it, ^C not ignored.
    A command a script runs in the background (`cmd &`, as CI's runner may run the suite)
    inherits SIGINT ignored, and Python and trio then leave it ignored, as they should: that
    ^C is not meant for it.  A test about a person's ^C starts its processes so."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def unonet(*args: str, prelude: str | None = None, **kw) -> subprocess.Popen:
    """``sys.executable -m unonet ARGS`` with its own key store; stdout and stderr go to
    files (an unread pipe would stall a chatty --json process), read with `first_json`
    and `finish`.  ``prelude``: Python run first in that process (to take something
    away, as another system lacks it)."""
    d = Path(tempfile.mkdtemp(prefix="unonet-test-proc-"))
    out, err = open(d / "out", "w"), open(d / "err", "w")
    start = ["-m", "unonet"] if prelude is None else [
        "-c", f"{prelude}\nimport runpy; runpy.run_module('unonet', run_name='__main__')"]
    proc = subprocess.Popen([sys.executable, *start, *args], cwd=ROOT, env=env_home(),
                            stdout=out, stderr=err, text=True, **kw)
    out.close()
    err.close()
    proc.out_path, proc.err_path, proc.read_at = d / "out", d / "err", 0
    return proc


def first_json(proc: subprocess.Popen, limit: float = 15.0) -> dict:
    """The next complete stdout line of a --json process, as JSON (waits up to ``limit``)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        text = proc.out_path.read_text()
        rest = text[proc.read_at:]
        if "\n" in rest:
            line, _ = rest.split("\n", 1)
            proc.read_at += len(line) + 1
            return json.loads(line)
        if proc.poll() is not None and "\n" not in proc.out_path.read_text()[proc.read_at:]:
            break
        time.sleep(0.02)
    raise AssertionError(f"no JSON line from {proc.args}: {proc.err_path.read_text()}")


def finish(proc: subprocess.Popen, limit: float = 120) -> tuple[int, str, str]:
    """Wait for the process; its exit status, stdout and stderr."""
    proc.wait(timeout=limit)
    return proc.returncode, proc.out_path.read_text(), proc.err_path.read_text()


def lines(text: str) -> list[dict]:
    """The JSON lines of a process's output.  Read while the process runs, the output may end
    in a line it is still writing: that unfinished line is left for the next read."""
    whole = text.splitlines()
    if whole and not text.endswith("\n"):
        whole.pop()
    return [json.loads(x) for x in whole if x.strip()]


@contextlib.contextmanager
def reaped(*procs: subprocess.Popen):
    """Kill whatever is still running at the end, whatever happens."""
    try:
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            with contextlib.suppress(Exception):
                p.wait(timeout=5)


OWN_NETWORK = "UNONET_TEST_OWN_NETWORK"


def rerun_in_own_network(request) -> bool:
    """A test whose table listens on every interface (as `join` without --bind does) makes a
    host that, once elected, announces itself there: never in this machine's own network (CI
    runs the suite in it).  Run the test again in a network namespace of its own (`unshare
    -n`, loopback up; gone when it ends) and say so (True: the caller returns); False inside it."""
    if os.environ.get(OWN_NETWORK) == "1":
        return False
    env = {**os.environ, OWN_NETWORK: "1", "PY": sys.executable, "NODE": request.node.nodeid}
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    proc = subprocess.run(["unshare", "-n", "sh", "-c",
                           'ip link set lo up && exec "$PY" -m pytest -q -p no:cacheprovider -p no:xdist "$NODE"'],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    return True


def recording_games():
    """A `HostGame` factory that keeps every game it made (the host's truth, for checks)."""
    hosts: list[HostGame] = []

    def factory(table):
        hosts.append(HostGame(table))
        return hosts[-1]

    return hosts, factory
