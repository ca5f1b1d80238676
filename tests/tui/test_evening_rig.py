"""Issue 21's evening suite: people's full-screen clients (`unonet host` / `unonet join` in
tmux, each in a network namespace of its own on the LAN rig, finding the table by discovery)
and `unonet score` scorekeepers, played by reading the screens: two matches in a row, a
player SIGKILLed and restarted, a player who quits, the host SIGKILLed while a stand-in holds
a seat, and scorekeepers attached late or restarted.  After each round every screen is
checked (seat names, whose turn, the totals at the result) against the others and the
scorekeeper; at the end every process exits as it should.  See tests/tui/evening_rig.py."""

from __future__ import annotations

import re

import pytest

from ..net.rig_helpers import RIG_MARKS
from .evening_rig import Evening, header_round, match_over, seats_panel
from .test_tmux import pytestmark as _tmux_marks

pytestmark = [*RIG_MARKS, *_tmux_marks]

PEOPLE = {0: "Hal", 1: "Ana", 2: "Bo"}


def all_over(players):
    return lambda screens: all(match_over(screens[w]) for w in players)


def open_table(ev: Evening, *host_args: str, joiners=("Ana", "Bo")) -> list[str]:
    """Hal hosts full-screen in node 0; each joiner (found by discovery) in the next node,
    one after the other so that seats follow the order; Hal starts once all are seated."""
    ev.client("Hal", 0, "host", "--name", "Hal", *host_args)
    ev.wait_for("Hal", r"Join code\s+\S+", 60)
    for i, who in enumerate(joiners, start=1):
        ev.client(who, i, "join", "--name", who)
        ev.wait_for(who, rf"{i}\s+{who}\s+\S+\s+you", 60)
    players = ["Hal", *joiners]
    ev.wait_for("Hal", rf"Seats \({len(players)} of \d+ taken, {len(players)} players\)", 30)
    ev.names = {i: w for i, w in enumerate(players)}
    ev.seat_of = {w: i for i, w in enumerate(players)}
    return players


def check_match(ev: Evening, players: list[str], match: int, score_rounds: list[dict] | None = None) -> tuple:
    """Every screen showed every round's result with the same totals, the same match-over
    line and ledger; the scorekeeper (if any) recorded those rounds with those totals."""
    results = {w: ev.results_of(match, w) for w in players}
    first = results[players[0]]
    assert first and sorted(first) == list(range(1, len(first) + 1)), f"match {match}: rounds seen {results}"
    for w in players:
        assert results[w] == first, f"match {match}: {w}'s results {results[w]} != {players[0]}'s {first}"
    overs = {w: ev.screens[w].overs[match] for w in players}
    ledger = {o[1] for o in overs.values()}
    assert len(ledger) == 1, f"match {match}: the screens end on different ledgers: {overs}"
    final = overs[players[0]][2]
    assert all(o[2] == final for o in overs.values()), overs
    if score_rounds is not None:
        assert [r["round"] for r in score_rounds] == sorted(first), \
            f"match {match}: the scorekeeper recorded rounds {[r['round'] for r in score_rounds]}, screens {sorted(first)}"
        for r in score_rounds:
            assert r["status"] == "verified", r
            totals = [first[r["round"]][seat][1] for seat in sorted(first[r["round"]])]
            assert r["scores"] == totals, f"match {match} round {r['round']}: scorekeeper {r['scores']} != screens {totals}"
    return ledger.pop(), final


def quit_all(ev: Evening, players: list[str]) -> dict[str, str]:
    """q on every screen (answering a quit question if one is asked); every exit status."""
    for w in players:
        ev.keys(w, "q")
    codes = {}
    for w in players:
        code = ev.exit_code(w, 10)
        if code == "running" and "Y: quit" in ev.screen(w):
            ev.keys(w, "y")
        codes[w] = code if code != "running" else ev.exit_code(w, 30)
    return codes


def test_two_matches_in_a_row_with_a_scorekeeper(tmp_path):
    """Item 1: Hal hosts (full-screen), Ana and Bo join by discovery, a scorekeeper attaches;
    two matches to 100, played by reading the screens: after every round every screen shows
    the same seats and totals, the scorekeeper the same; each match ends on one ledger, which
    the scorekeeper's match-over line names; the second match is started from Hal's screen
    (Enter, then S) with the same people carried over; `score verify` passes at the end."""
    with Evening(tmp_path, 4) as ev:
        players = open_table(ev, "--players", "3", "--target", "100")
        ev.scorekeeper("Sam", 3)
        ev.wait_score("Sam", lambda got: any(x.get("t") == "attached" for x in got), 60, "attached")
        ledgers = []
        for match in (1, 2):
            ev.match = match
            if match == 1:
                ev.keys("Hal", "s")
            else:
                for w in players:
                    assert "Enter: the next match" in ev.screen(w), ev.screen(w)
                ev.keys("Hal", "Enter")
                lobby = ev.wait_for("Hal", r"Seats \(3 of 3 taken, 3 players\)", 30)
                assert "Match over" not in lobby and re.search(r"1\s+Ana\s.*\n\s+2\s+Bo\s", lobby), lobby
                ev.keys("Hal", "s")
            for w in players:
                screen = ev.wait_for(w, r"Your hand \(\d+ cards", 60)
                assert header_round(screen) == 1, f"match {match} does not open with round 1 on {w}'s screen:\n{screen}"
                assert seats_panel(screen)[0] == PEOPLE, screen
                assert "Match over" not in screen, f"{w}'s screen keeps the old result:\n{screen}"
            ev.play(players, all_over(players), 900, f"playing match {match}")
            got = ev.wait_score("Sam", lambda got: len([x for x in got if x.get("t") == "match-over"]) >= match,
                                60, f"match {match}'s match-over line")
            overs = [x for x in got if x.get("t") == "match-over"]
            rounds = [x for x in got if x.get("t") == "round" and x["match"] == overs[match - 1]["match"]]
            ledger, final = check_match(ev, players, match, rounds)
            assert overs[match - 1]["ledger"].startswith(ledger), (overs[match - 1], ledger)
            assert overs[match - 1]["scores"] == [final[seat][1] for seat in sorted(final)]
            ledgers.append(ledger)
        assert ledgers[0] != ledgers[1]
        assert len(overs) == 2 and overs[0]["match"] != overs[1]["match"]
        assert ev.turn_checks >= 1, "the screens never showed one moment together"
        codes = quit_all(ev, players)
        assert codes == {w: "0" for w in players}, codes
        ev.procs[0].wait(timeout=60)
        assert ev.procs[0].returncode == 0, ev.score_err("Sam")
        verify = ev.score_view("Sam", "verify")
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert '"matches": 2' in verify.stdout, verify.stdout
