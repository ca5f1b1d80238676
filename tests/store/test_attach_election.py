"""The scorekeeper follows the table through a host election (spec §7): the host (a real
`unonet host` process) is killed with SIGKILL mid-match; the players elect a successor and
play on; the attached scorekeeper follows it as an observer, reports its ledger head and
hands its ledger over (checked by the new host), records every completed round once, and
ends with the players' very match-over line.  Real processes, loopback sockets, a real
SQLite file."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time

import pytest

from ..net.session_helpers import finish, first_json, lines, reaped, unonet
from ..net.test_election import LOOP, _free_udp_port, _wait_for, _wait_for_after
from .test_attach import _attached, _db, _overs, _rounds, _score_cli


@contextlib.contextmanager
def _table_with_keeper(*host_args: str):
    """A CLI host on loopback (``host_args``) and a scorekeeper attached to it with a database
    of its own: yields (host, port, db, keeper); both killed at the end if still running."""
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()), *host_args)
    with reaped(host):
        port = first_json(host)["port"]
        db = _db()
        keeper = unonet("score", "--db", db, "--no-ui", "--json", f"127.0.0.1:{port}")
        with reaped(keeper):
            _attached(keeper)
            yield host, port, db, keeper


@contextlib.contextmanager
def _joiners_into_round_2(port: int):
    """Three `join --bot` players (in order: the first is the first in the succession), yielded
    once the first has seen an act of round 2."""
    joins = []
    for i in range(3):
        joins.append(unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", f"j{i}",
                            f"127.0.0.1:{port}"))
        time.sleep(0.3)
    with reaped(*joins):
        _wait_for(joins[0], lambda x: x.get("t") == "round" and x.get("round") == 2)
        _wait_for(joins[0], lambda x: x.get("t") == "game" and x.get("g") == "act")
        yield joins


def test_the_scorekeeper_follows_the_table_to_its_elected_host_and_agrees_with_the_players():
    with _table_with_keeper("--players", "4", "--target", "500") as (host, port, db, keeper):
        with _joiners_into_round_2(port) as joins:
            os.kill(host.pid, signal.SIGKILL)
            host.wait(timeout=10)
            results = [finish(j, 300) for j in joins]
            kcode, kout, kerr = finish(keeper, 60)
            heir_out = results[0][1]
    for code, out, err in results:
        assert code == 0, err[-2000:]
    player = _overs(lines(results[1][1]))[0]
    assert kcode == 0, kerr[-3000:]
    got = lines(kout)
    assert [x for x in got if x["t"] == "election"], "the scorekeeper saw the host go and followed"
    rounds = _rounds(got)
    assert [r["round"] for r in rounds] == list(range(1, player["rounds"] + 1))  # every round, once
    assert all(r["status"] == "verified" for r in rounds)
    assert _overs(got) == [player]            # the players' very line: its ledger equals theirs
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    assert json.loads(v.stdout)["rounds"] == player["rounds"]
    # the new host checked the scorekeeper's report and the ledger it handed over
    handed = [x for x in lines(heir_out) if x.get("t") == "observer"]
    assert handed and "agrees" in handed[0]["text"], lines(heir_out)[-5:]
    # the new host checked the scorekeeper's report and the ledger it handed over


# ---------------------------------------------------------------------------- teams; a failing database
def test_a_partners_table_is_recorded_with_its_team_points():
    """`unonet host --teams` (the host's seat and three bots); the scorekeeper records every
    round with the team scores the players' line gives (team 0 = seats 0 and 2)."""
    with _table_with_keeper("--players", "4", "--bots", "2", "--teams", "--target", "300") as (host, port, db, keeper):
        joiner = unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", f"127.0.0.1:{port}")
        with reaped(joiner):
            jcode, jout, jerr = finish(joiner, 300)
            kcode, kout, kerr = finish(keeper, 60)
    assert jcode == 0 and kcode == 0, (jerr[-2000:], kerr[-2000:])
    player = _overs(lines(jout))[0]
    got = lines(kout)
    assert _overs(got) == [player] and player["teams"] is True
    rounds = _rounds(got)
    last = rounds[-1]
    assert last["team_scores"] == player["team_scores"]
    assert last["team_scores"] == [last["scores"][0] + last["scores"][2], last["scores"][1] + last["scores"][3]]
    assert max(player["team_scores"]) >= 300 and player["winner"] in (0, 1)
    m = json.loads(_score_cli("match", "1", "--db", db, "--json").stdout)["match"]
    assert m["head"] == player["ledger"]


def test_a_database_locked_by_another_process_while_recording_is_one_line_and_nothing_half_written():
    """Another process takes the database (an exclusive transaction) after round 1 was
    recorded: the scorekeeper's next write waits, then fails with one line and exit 1; the
    rounds recorded before are whole and `verify` passes once the lock is gone."""
    import sqlite3

    with _table_with_keeper("--players", "3", "--bots", "1", "--target", "500", "--bot-pace", "0.01") as (host, port, db, keeper):
        joiner = unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--bot-pace", "0.01",
                        f"127.0.0.1:{port}")
        with reaped(joiner):
            _wait_for(keeper, lambda x: x.get("t") == "round", 120)
            thief = sqlite3.connect(db, timeout=5, isolation_level=None)
            try:
                thief.execute("BEGIN EXCLUSIVE")
                kcode, kout, kerr = finish(keeper, 120)
            finally:
                thief.execute("ROLLBACK")
                thief.close()
    assert kcode == 1, (kout[-1000:], kerr[-1000:])
    assert "locked" in kerr and "Traceback" not in kerr and len(kerr.strip().splitlines()) == 1, kerr
    recorded = _rounds(lines(kout))
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    assert json.loads(v.stdout)["rounds"] == len(recorded) >= 1  # every round it said it recorded, whole


def test_a_scorekeeper_attached_to_the_elected_host_while_it_is_being_elected_records_the_match_whole():
    """The host is SIGKILLed mid-match and one player's process is stopped, so the elected host
    waits for its report; a scorekeeper attaches to the elected host in that window. It used
    to take the continued match's `match-start` as a fresh match (no record of the old one) and
    stop at its first round: "… round 1 (attempt 1): refused: round 1: scores [0, 83, 0, 0] do
    not follow from [0, 0, 0, 0] …", exit 1. The elected host now replays it the match once it
    resumes (as to one attached after): every round once, the players' match-over line."""
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "4", "--target", "500")
    with reaped(host):
        port = first_json(host)["port"]
        with _joiners_into_round_2(port) as joins:
            os.kill(joins[2].pid, signal.SIGSTOP)  # its report does not come: the election waits (6 s)
            try:
                os.kill(host.pid, signal.SIGKILL)
                host.wait(timeout=10)
                heir = _wait_for(joins[1], lambda x: x.get("t") == "election")["successor_addr"]
                db = _db()
                keeper = unonet("score", "--db", db, "--no-ui", "--json", heir)
                with reaped(keeper):
                    _attached(keeper)
                    os.kill(joins[2].pid, signal.SIGCONT)
                    results = [finish(j, 300) for j in joins]
                    kcode, kout, kerr = finish(keeper, 60)
            finally:
                if joins[2].poll() is None:
                    os.kill(joins[2].pid, signal.SIGCONT)
    for code, out, err in results:
        assert code == 0, err[-2000:]
    player = _overs(lines(results[0][1]))[0]
    assert kcode == 0, kerr[-3000:]
    got = lines(kout)
    assert _overs(got) == [player], (got[-12:], kerr[-1500:])
    assert [r["round"] for r in _rounds(got)] == list(range(1, player["rounds"] + 1))  # every round, once
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0 and json.loads(v.stdout)["rounds"] == player["rounds"], v.stdout + v.stderr


@pytest.mark.slow
def test_two_scorekeepers_on_one_file_follow_a_table_whose_host_is_replaced_twice():
    """Two `unonet score` processes on one database file (one --json, one in words) at a table
    whose host is SIGKILLed, then its elected successor too: both follow both elections and exit
    0 with the players' line; the file holds every round once (whichever wrote it first), its
    head the players' ledger; the one in words counts what the other wrote first as already
    in the database, not as lost."""
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "4", "--target", "500", "--bot-pace", "0.05")
    with reaped(host):
        port = first_json(host)["port"]
        db = _db()
        keepers = [unonet("score", "--db", db, "--no-ui", *(("--json",) if i == 0 else ()), f"127.0.0.1:{port}")
                   for i in range(2)]
        with reaped(*keepers):
            _attached(keepers[0])
            joins = []
            for i in range(3):  # in order: j0 is elected first, then j1
                joins.append(unonet("join", "--no-ui", "--json", "--bot", "--bot-pace", "0.05", "--bind",
                                    "127.0.0.1", "--name", f"j{i}", f"127.0.0.1:{port}"))
                time.sleep(0.3)
            with reaped(*joins):
                _wait_for(joins[0], lambda x: x.get("t") == "round" and x.get("round") == 2)
                _wait_for(joins[0], lambda x: x.get("t") == "game" and x.get("g") == "act")
                os.kill(host.pid, signal.SIGKILL)
                host.wait(timeout=10)
                # once play has resumed at j0's table, j0 dies too (a target of 500 was once won
                # in round 3, before the old wait for round 4 came: the test failed in CI)
                _wait_for_after(joins[1], lambda x: x.get("t") == "election",
                                lambda x: x.get("t") == "game" and x.get("g") == "act", 300)
                os.kill(joins[0].pid, signal.SIGKILL)
                results = [finish(j, 400) for j in joins[1:]]
                (kcode, kout, kerr), (tcode, tout, terr) = [finish(k, 60) for k in keepers]
    for code, out, err in results:
        assert code == 0, err[-2000:]
    player = _overs(lines(results[0][1]))[0]
    assert kcode == 0 and tcode == 0, (kerr[-2000:], terr[-2000:])
    got = lines(kout)
    assert len([x for x in got if x["t"] == "election"]) == 2, [x for x in got if x["t"] == "election"]
    assert _overs(got) == [player]
    numbers = [r["round"] for r in _rounds(got)]
    assert len(numbers) == len(set(numbers)) and set(numbers) <= set(range(1, player["rounds"] + 1)), numbers
    last = tout.strip().splitlines()[-1]
    # (what the --json one wrote first, the other found already there)
    assert "recorded" in last and (not numbers or "already in the database" in last), (last, numbers, player)
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0 and json.loads(v.stdout)["rounds"] == player["rounds"], v.stdout + v.stderr
    m = json.loads(_score_cli("match", "1", "--db", db, "--json").stdout)["match"]
    assert m["head"] == player["ledger"], m
