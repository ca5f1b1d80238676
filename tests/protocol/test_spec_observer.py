"""An observer built from protocol/spec.md alone (tests/protocol/spec_observer.py, no `unonet`
import) follows a real host's match in the conformance kit, rejoin included, and its own
match ledger is the host's: what a second implementation needs of §4-§7 is in the spec."""

from __future__ import annotations

import ast
import json
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
OBSERVER = HERE / "spec_observer.py"


def test_the_spec_observer_imports_nothing_of_ours():
    tree = ast.parse(OBSERVER.read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "unonet" not in names and "tests" not in names, names


@pytest.mark.parametrize("table", [
    # `classic` is an alias of the `official` preset: the ledger header hashes the roster's
    # `rules`, which must be the preset's own name (`match-start`'s `rules.preset`), or a
    # peer reading either could not know which to hash (spec §7 `ledger`)
    ("--rules", "classic", "--players", "3"),
    # partners: team totals in the ledger and in round_end, a team's win
    pytest.param(("--teams", "--players", "4"), marks=pytest.mark.slow),
])
def test_an_observer_from_the_spec_alone_keeps_the_hosts_ledger(table):
    observer = f"{shlex.quote(sys.executable)} {shlex.quote(str(OBSERVER))} {{host}} {{port}} {{code}}"
    peer = [sys.executable, "-m", "unonet", "join", "--bot", "--no-ui", "--json", "--code", "{code}", "{address}"]
    logs = tempfile.mkdtemp(prefix="unonet-test-spec-observer-")
    try:
        proc = subprocess.run([sys.executable, str(ROOT / "protocol" / "conformance.py"), "--json", "--keep", logs,
                               *table, "--target", "150",
                               "--observer", observer, "--", *peer],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        report = json.loads(proc.stdout.strip().splitlines()[-1])
        assert proc.returncode == 0 and report["ok"], (report, (Path(logs) / "observer.out").read_text())
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    host, observer_over = report["host"], report["observer"]
    assert observer_over is not None
    for key in ("winner", "scores", "rounds", "ledger", "match", "table"):
        assert observer_over[key] == host[key], key


def test_the_spec_observer_leaves_away_seats_out_of_the_match_id():
    """A fresh match that starts with a seat away (match-start `away`, spec §6.1.1): the
    observer written from the spec alone computes the host's match id from the other seats'
    nonces, and the away seat's late `match-join` (its player back) changes nothing."""
    import importlib.util

    from tests.adversaries.test_fresh_away import AWAY, _fresh
    from unonet.table import TableSeat

    spec = importlib.util.spec_from_file_location("spec_observer", OBSERVER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    t, ids = _fresh("spec-observer-away")
    t.seats = [s for s in t.seats if s.seat != AWAY]
    t.start_match()
    follower = mod.Follower(bytes(16))
    follower.roster_rules = t.host.match.start.rules["preset"]
    follower.on_genesis = lambda head: None
    for e in t.host.events:
        follower.event(0, e.EV, e.canonical().encode("ascii"))
    assert follower.match_id == t.host.match.match_id is not None
    back = TableSeat(AWAY, ids[AWAY], ids[0].public)
    back.recovering = True
    for e in t.host.events:
        back.receive(e)
    back.recovering = False
    t.seats.append(back)
    t.pump()
    late = [e for e in t.host.events if e.EV == "match-join" and e.seat == AWAY]
    assert late
    follower.event(0, "match-join", late[0].canonical().encode("ascii"))
    assert follower.match_id == t.host.match.match_id


def _spawn(args: list[str]):
    """A process with stdout and stderr in files (as tests/net/session_helpers.unonet)."""
    d = Path(tempfile.mkdtemp(prefix="unonet-test-spec-observer-"))
    out, err = open(d / "out", "w"), open(d / "err", "w")
    proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=err, text=True)
    out.close()
    err.close()
    proc.out_path, proc.err_path, proc.read_at = d / "out", d / "err", 0
    return proc


@pytest.mark.slow
def test_the_spec_observer_follows_a_host_election_to_the_match_end():
    """The host SIGKILLed in round 2: the observer written from the spec alone computes the
    successor from its last roster, reports to it, hands its ledger over, checks the
    confirmation and the continued `match-start`, and ends the match with the surviving seats'
    rounds and ledger head (and a real `unonet score` scorekeeper's)."""
    import os
    import signal

    from tests.net.session_helpers import finish, first_json, lines, reaped, unonet
    from tests.net.test_election import LOOP, _agreed, _free_udp_port, _wait_for

    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "4", "--bots", "1", "--target", "500")
    with reaped(host):
        port = first_json(host)["port"]
        observer = _spawn([sys.executable, str(OBSERVER), "127.0.0.1", str(port)])
        keeper = unonet("score", "--no-ui", "--json", "--bind", "127.0.0.1", "--name", "keeper", f"127.0.0.1:{port}")
        with reaped(observer, keeper):
            joins = [unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", f"j{i}",
                            f"127.0.0.1:{port}") for i in range(2)]
            with reaped(*joins):
                # the host dies in round 2, once its first act is in
                _wait_for(joins[0], lambda x: x.get("t") == "round" and x.get("round") == 2)
                _wait_for(joins[0], lambda x: x.get("t") == "game" and x.get("g") == "act" and x.get("round", 2) == 2)
                os.kill(host.pid, signal.SIGKILL)
                host.wait(timeout=10)
                results = [finish(j, 600) for j in joins]
                seen = finish(observer, 120)
                kept = finish(keeper, 120)
    code, out, err = seen
    assert all(c == 0 for c, _, _ in results), ([e[-2000:] for _, _, e in results], out[-2000:])
    over = _agreed(results)
    mine = lines(out)
    assert code == 0 and not [x for x in mine if x.get("t") == "problem"], (out[-3000:], err[-3000:])
    elections = [x for x in mine if x.get("t") == "election"]
    assert len(elections) == 1 and elections[0]["term"] == 1, mine
    seat_elections = [[x for x in lines(o) if x.get("t") == "election"][0] for _, o, _ in results]
    assert {e["successor"] for e in seat_elections} == {elections[0]["successor"]}
    spec_over = [x for x in mine if x.get("t") == "match-over"][-1]
    for key in ("winner", "rounds", "ledger", "match", "table"):
        assert spec_over[key] == over[key], (key, spec_over, over)
    rounds = [x["round"] for x in mine if x.get("t") == "round"]
    assert sorted(set(rounds)) == list(range(1, over["rounds"] + 1)) and rounds == sorted(rounds), rounds
    assert kept[0] == 0, (kept[1][-2000:], kept[2][-2000:])
    keeper_over = [x for x in lines(kept[1]) if x.get("t") == "match-over" or x.get("event") == "match-over"][-1]
    assert keeper_over.get("ledger") == spec_over["ledger"], (keeper_over, spec_over)


@pytest.mark.slow
def test_the_spec_observer_follows_two_elections():
    """The host SIGKILLed, then the seat elected in its place once the observer has reported to
    it: the observer written from the spec alone follows both (term 1, then term 2, the rounds
    carried by both continuations, `continues` checked each time) to the surviving seats' head."""
    import os
    import signal

    from tests.net.session_helpers import finish, first_json, lines, reaped, unonet
    from tests.net.test_election import LOOP, _agreed, _free_udp_port, _wait_for, _wait_for_after, killed_in_round_two

    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "4", "--target", "500")
    with reaped(host):
        port = first_json(host)["port"]
        observer = _spawn([sys.executable, str(OBSERVER), "127.0.0.1", str(port)])
        with reaped(observer):
            joins = [unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", f"j{i}",
                            f"127.0.0.1:{port}") for i in range(3)]
            with reaped(*joins):
                first, rest = killed_in_round_two(host, joins)
                # (the observer followed it: its ledger checked there), and the continued match is under way
                _wait_for(first, lambda x: x.get("t") == "observer" and "specobs" in x.get("text", ""))
                _wait_for_after(rest[0], lambda x: x.get("t") == "election",
                                lambda x: x.get("t") == "game" and x.get("g") == "act")
                os.kill(first.pid, signal.SIGKILL)
                results = [finish(j, 600) for j in rest]
                code, out, err = finish(observer, 120)
    assert all(c == 0 for c, _, _ in results), [e[-2000:] for _, _, e in results]
    over = _agreed(results)
    mine = lines(out)
    assert code == 0 and not [x for x in mine if x.get("t") == "problem"], (out[-3000:], err[-3000:])
    assert [x["term"] for x in mine if x.get("t") == "election"] == [1, 2], mine
    spec_over = [x for x in mine if x.get("t") == "match-over"][-1]
    for key in ("winner", "rounds", "ledger", "match", "table"):
        assert spec_over[key] == over[key], (key, spec_over, over)
