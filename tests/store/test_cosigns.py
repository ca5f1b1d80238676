"""Issue 22 class 7: the scorekeeper's database is anchored in what the players signed.

A real table on loopback (the host's seat and two bots) with a real `unonet score` process
recording into a real SQLite file: every round keeps its players' co-signatures of its
result.  Then the scorekeeper turns cheat and rewrites its own file the way its own code
would write it (the project's `RoundEntry`, hashes re-chained, the match head moved): the
hashes agree, the rules agree, the players' signatures do not, and `unonet score verify`
names the round."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

import trio

from unonet.engine import make_rules
from unonet.net._game import HostGame
from unonet.store._rows import match_row, round_rows

from ..net.session_helpers import config
from .test_attach import _db, _keeper_beside, _score_cli


def _recorded_match() -> str:
    """A whole 3-seat match recorded by a scorekeeper process; the database's path."""
    cfg = config(3, rules=make_rules("official", [], target=200), bots=2, turn_timeout=2.0, matches=1)
    db = _db()

    async def one_match(table):
        table.start()
        while table.matches_played < 1:
            await trio.sleep(0.05)
        table.close()  # (closed in order: the scorekeeper reads the table's goodbye, not a cut frame)
        await trio.sleep(1.0)

    code, out, err = _keeper_beside(cfg, db, one_match, limit=240, game_factory=HostGame)
    assert code == 0, err
    return db


def _rewrite_hands(db: str) -> int:
    """The scorekeeper's cheat: in the first round whose two losers' hands differ, swap their
    hand points (the winner's points and every score stay the same, so the rules agree), then
    re-chain that round and every later one and move the match's head.  The round's number."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    m = match_row(conn, 1)
    rows = list(round_rows(conn, m))
    target = next(rr for rr in rows if rr.entry.counted and len({h for s, h in enumerate(rr.entry.hand_points)
                                                                  if s != rr.entry.winner}) == 2)
    prev = rows[rows.index(target) - 1].entry.hash if rows.index(target) else m.header.genesis
    for rr in rows[rows.index(target):]:
        e = rr.entry
        hands = list(e.hand_points)
        if rr is target:
            a, b = [s for s in range(len(hands)) if s != e.winner]
            hands[a], hands[b] = hands[b], hands[a]
            for s in (a, b):
                conn.execute("UPDATE seat_points SET hand_points = ? WHERE round_id = ? AND seat = ?",
                             (hands[s], rr.id, s))
        forged = dataclasses.replace(e, hand_points=tuple(hands), prev=prev)
        conn.execute("UPDATE rounds SET prev = ?, hash = ? WHERE id = ?", (forged.prev, forged.hash, rr.id))
        prev = forged.hash
    conn.execute("UPDATE matches SET head = ? WHERE id = 1", (prev,))
    conn.execute("COMMIT")
    conn.close()
    return target.entry.round


def test_every_round_keeps_its_players_co_signatures_and_an_honest_database_verifies():
    db = _recorded_match()
    conn = sqlite3.connect(db)
    rounds = conn.execute("SELECT count(*) FROM rounds").fetchone()[0]
    signed = conn.execute("SELECT round_id, count(*) FROM round_cosigns GROUP BY round_id").fetchall()
    idents = conn.execute("SELECT count(*) FROM seat_identities WHERE match_id = 1").fetchone()[0]
    conn.close()
    assert idents == 3
    assert len(signed) == rounds and all(n == 3 for _, n in signed), (rounds, signed)
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    report = json.loads(v.stdout)
    assert report["ok"] and report["unanchored"] == [] and report["rounds"] == rounds


def test_a_consistently_rewritten_database_fails_verify_naming_the_round():
    db = _recorded_match()
    forged = _rewrite_hands(db)
    v = _score_cli("verify", "--db", db)
    assert v.returncode == 1, v.stdout + v.stderr
    line = v.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line, line
    assert f"round {forged}" in line and "co-signature does not verify over the round's stored result" in line, line
    # the chain and the rules alone were fooled: with the co-signatures gone the rows check,
    # and verify says which rounds rest on the scorekeeper's word alone
    conn = sqlite3.connect(db)
    rid = conn.execute("SELECT id FROM rounds WHERE round = ?", (forged,)).fetchone()[0]
    conn.execute("DELETE FROM round_cosigns WHERE round_id = ?", (rid,))
    conn.commit()
    conn.close()
    v = _score_cli("verify", "--db", db)
    assert v.returncode == 0, v.stdout + v.stderr
    assert f"keep no player's co-signature" in v.stdout and f"match #1 round {forged}" in v.stdout, v.stdout
