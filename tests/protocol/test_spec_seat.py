"""A seat built from protocol/spec.md alone (tests/protocol/spec_seat.py, no `unonet` import)
plays whole matches at a real host beside our own seats: the fair deal, signed acts, UNO calls,
Wild Draw Four challenges both ways, co-signs; its results and match ledger are everyone's.
What a second implementation needs to *play* is in the spec."""

from __future__ import annotations

import ast
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from pathlib import Path

import pytest

pytest.importorskip("noise.connection")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SEAT = HERE / "spec_seat.py"
COMPARED = ("winner", "scores", "rounds", "ledger", "match", "table")


def test_the_spec_seat_imports_nothing_of_ours():
    for path in (SEAT, HERE / "spec_observer.py"):
        tree = ast.parse(path.read_text())
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert "unonet" not in names and "tests" not in names, (path, names)


@pytest.mark.parametrize("kit", [("--no-rejoin",), ("--kill-at", "8")], ids=["match", "killed-and-back"])
def test_a_seat_from_the_spec_alone_plays_a_match_in_the_conformance_kit(kit):
    """Beside the host's own seat and a bot of the host, watched by the spec-only observer; the
    kit compares every round and the match-over line with the host's.  Killed mid-round, the
    seat comes back with its key and rebuilds its hand and duties from the replay (§7 rejoin)."""
    logs = tempfile.mkdtemp(prefix="unonet-test-spec-seat-")
    observer = f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'spec_observer.py'))} {{host}} {{port}} {{code}}"
    try:
        proc = subprocess.run([sys.executable, str(ROOT / "protocol" / "conformance.py"), "--json", "--keep", logs,
                               *kit, "--players", "3", "--target", "150", "--refusals", "3",
                               "--observer", observer, "--",
                               sys.executable, str(SEAT), "{host}", "{port}", "{code}"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        report = json.loads(proc.stdout.strip().splitlines()[-1])
        errs = "".join(p.read_text() for p in Path(logs).glob("peer-*.err"))
        assert proc.returncode == 0 and report["ok"], (report, errs)
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    # a catch may lose its race with the table honestly (§6.3: `stale`); nothing else is refused
    assert all("stale" in json.dumps(r) for r in report["refusals"]), report["refusals"]
    for key in COMPARED:
        assert report["peer"][key] == report["host"][key] == report["observer"][key], key


def free_udp_port() -> int:
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_table(tmp_path: Path, joiners: list[list[str]], target: int) -> tuple[dict, list[tuple[int, str, str]]]:
    """A dealer-only host on 127.0.0.1 whose seats are `joiners` (argv with {code}, {address},
    {host}, {port}); returns the host's match-over line and each joiner's (status, out, err)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    tmp_path.mkdir(exist_ok=True)
    host = subprocess.Popen([sys.executable, "-m", "unonet", "host", "--no-ui", "--json", "--bind", "127.0.0.1",
                             "--port", "0", "--discovery-port", str(free_udp_port()), "--players", str(len(joiners)),
                             "--dealer-only", "--target", str(target), "--bot-pace", "0.02"],
                            cwd=ROOT, env=dict(env, UNONET_HOME=str(tmp_path / "host")),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    procs = [host]
    try:
        table = json.loads(host.stdout.readline())
        assert table["t"] == "table", table
        fill = {"{code}": table["join_code"], "{address}": f"127.0.0.1:{table['port']}", "{host}": "127.0.0.1",
                "{port}": str(table["port"])}
        for i, argv in enumerate(joiners):
            (tmp_path / f"seat{i}").mkdir()
            procs.append(subprocess.Popen([fill.get(a, a) for a in argv], cwd=ROOT,
                                          env=dict(env, UNONET_HOME=str(tmp_path / f"seat{i}")),
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        host_lines = [json.loads(x) for x in host.communicate(timeout=240)[0].splitlines() if x.strip()]
        results = [(p.returncode, out, err) for p in procs[1:] for out, err in [p.communicate(timeout=60)]]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert host.returncode == 0, host_lines[-3:]
    assert not [x for x in host_lines if x.get("t") in ("problem", "refused")], host_lines
    return next(x for x in host_lines if x.get("t") == "match-over"), results


SPEC = [sys.executable, str(SEAT), "{host}", "{port}", "{code}"]
BOT = [sys.executable, "-m", "unonet", "join", "--bot", "--no-ui", "--json", "--code", "{code}", "{address}"]


def spec_over(result) -> dict:
    status, out, err = result
    assert status == 0, err
    return next(x for x in map(json.loads, out.splitlines()) if x.get("t") == "match-over")


def test_a_seat_from_the_spec_alone_plays_beside_our_joined_bots(tmp_path):
    """Two `unonet join --bot` seats and the spec seat: every party's match-over (winner, scores,
    rounds, ledger head, match and table ids) is the host's."""
    want, results = run_table(tmp_path, [BOT, BOT, SPEC], 100)
    got = spec_over(results[2])
    # it recomputed every round's shuffles, salts and card commitments from the revealed seeds
    assert got["decks_checked"] == want["rounds"]
    for key in COMPARED:
        assert got[key] == want[key], (key, results[2][2])
    for status, out, _ in results[:2]:
        theirs = [json.loads(x) for x in out.splitlines() if x.strip()]
        over = [x for x in theirs if x.get("t") in ("match-over", "ended")]
        assert status == 0 and over and over[-1]["ledger"] == want["ledger"], theirs[-3:]
    assert want["rounds"] >= 1


def test_two_spec_seats_catch_each_others_bluffs(tmp_path):
    """Head to head: one spec seat bluffs Wild Draw Fours, the other challenges every one: the
    guilty verdicts (a proof opening sealed, opened and relayed) and the innocent ones stand
    with the host and both seats."""
    verdicts = []
    for match in range(3):  # bounded: a match may deal the bluffer no Wild Draw Four to bluff with
        want, results = run_table(tmp_path / str(match), [SPEC + ["--bluff"], SPEC], 500)
        bluffer, challenger = spec_over(results[0]), spec_over(results[1])
        for key in COMPARED:
            assert bluffer[key] == want[key] == challenger[key], key
        verdicts += challenger["verdicts"]
        if True in verdicts:
            break
    assert True in verdicts, verdicts
