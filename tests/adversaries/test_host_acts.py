"""Issue 22 class 3: the host plays for present players.

A `host-act` says why the host acts for a seat, and the reason bounds it: a turn that
timed out gets exactly the default action (draw, pass or keep, accept; else the first legal
choice), never a choice made for the seat — every seat's replay and the audit check it at
the act's game record; a stand-in is for a seat that is away — a seat that hears the table
live refuses one in its name at once, and the audit flags a stand-in for a seat that was at
the table when the round started; any other reason is refused."""

from __future__ import annotations

import pytest

from unonet.engine import make_bot
from unonet.fair import HostAct
from unonet.table import LocalTable, audit_transcript
from tests.adversaries.helpers import assert_convicted_when_signed

from unonet.table._round import STAND_IN, TIMEOUT, action_json, default_action

from .helpers import match_table



def _table(seed: str, players: int = 3) -> LocalTable:
    return match_table(seed, players)


def _host_act(t: LocalTable, seat: int, action, reason: str) -> list:
    """The host acts for `seat`, in its own name, with `reason` (a play opens its card)."""
    host = t.host
    js = action_json(host.round, action)
    opening = host.dealer.opening(js["pos"]) if js.get("pos") is not None else None
    out = host._collect(host._apply, action, HostAct(seat=seat, action=js, reason=reason, opening=opening))
    t.broadcast(out)
    return out


def _until(t: LocalTable, want, seed: str, limit: int = 400):
    """Play with bots until the seat to move has a legal action `want(action)` picks;
    returns (seat, that action)."""
    rnd = t.start_round()
    rnd.start()
    bots = [make_bot("heuristic", f"{seed}/{s}") for s in range(len(t.seats))]
    for _ in range(limit):
        assert not rnd.over, "the round ended before the moment came"
        seat = rnd.turn
        if rnd.phase.value == "play":
            pick = next((a for a in rnd.legal_actions(seat) if want(a, rnd, seat)), None)
            if pick is not None:
                return seat, pick
        t.act(bots[seat].act(rnd, seat))
    raise AssertionError("no such moment")


def _game_line_after(t: LocalTable, ev) -> int:
    i = next(i for i, e in enumerate(t.host.events) if e is ev)
    return next(k for k, e in enumerate(t.host.events[i:], i + 1) if e.EV == "game")


def test_a_turn_timeout_that_plays_a_card_for_the_seat_is_caught_everywhere():
    """The host calls it a timeout, but plays the seat's card (a winning turn turned into a
    play of the host's choosing, or a wild naming the host's colour)."""
    t = _table("timeout-plays")
    seat, play = _until(t, lambda a, rnd, s: type(a).__name__ == "Play" and a != default_action(rnd, s), "tp")
    out = _host_act(t, seat, play, TIMEOUT)
    (ha,) = [e for e in out if e.EV == "host-act"]
    for p in t.everyone:
        v = p.violation
        assert v is not None and v.seat is None, p.seat
        assert "turn-timeout act for seat" in v.reason and "not the default action" in v.reason, v.reason
        assert p.violation_event.EV == "game", p.violation_event.EV
    # the record stops at the lie: it blames nobody until the host signs the round over it
    assert_convicted_when_signed(t.lines, t.host.identity, line=_game_line_after(t, ha), auditor=audit_transcript)


def test_an_honest_turn_timeout_is_the_default_action_and_passes():
    t = _table("timeout-honest")
    seat, _ = _until(t, lambda a, rnd, s: True, "th")
    t.broadcast(t.host.timeout(seat, "act"))
    assert not any(p.violation for p in t.everyone)
    assert t.host.dealer.ledger.host_acts[seat] == 1


def test_a_stand_in_for_a_seat_at_the_table_is_refused_by_that_seat_and_flagged_by_the_audit():
    t = _table("stand-in-present")
    seat, action = _until(t, lambda a, rnd, s: True, "sp")
    out = _host_act(t, seat, action, STAND_IN)
    (ha,) = [e for e in out if e.EV == "host-act"]
    v = t.seats[seat].violation
    assert v is not None and v.seat is None and t.seats[seat].violation_event is ha
    assert f"stands in for seat {seat}" in v.reason and "at the table" in v.reason
    # the others cannot tell a drop from a lie; the host plays the seat on to the round's end
    assert all(p.violation is None for p in t.everyone if p.seat != seat)
    rnd = t.host.round
    bots = [make_bot("heuristic", f"sp-end/{s}") for s in range(3)]
    for _ in range(2000):
        if rnd.over:
            break
        s = rnd.turn if rnd.phase.value != "race" else min(rnd.race.waiting)
        a = bots[s].act(rnd, s)
        if s != seat:
            t.act(a)
        elif type(a).__name__ == "Challenge":
            t.timeout(s, "act")
        else:
            _host_act(t, s, a, STAND_IN)
    t.pump()
    assert rnd.over and all(p.violation is None for p in t.everyone if p.seat != seat)
    report = audit_transcript(t.lines)  # the audit flags it for a look, once per seat and round
    assert report.ok, report.summary
    assert sum(f"the host stood in for seat {seat}, which was at the table" in f for f in report.flags) == 1, \
        report.summary


@pytest.mark.parametrize("reason", ["the host felt like it", ""])
def test_a_host_act_with_another_reason_is_refused(reason):
    t = _table(f"reason-{reason}")
    seat, action = _until(t, lambda a, rnd, s: True, "rs")
    t.host.dealer.check_self = False  # (its own ledger would refuse it)
    _host_act(t, seat, action, reason)
    for p in t.everyone:
        v = p.violation
        assert v is not None and v.seat is None, p.seat
        assert ("gives no reason" in v.reason) if not reason else ("the host acts for a seat only for" in v.reason)


def test_the_audit_flags_turn_timeouts_of_seats_that_were_at_the_table_once_per_seat_and_round():
    """Only the seat can tell whether its clock had run out (it refuses an early timeout live):
    the audit flags a timeout of a seat that was at the table for a look, never fails it."""
    t = _table("timeout-flag")
    rnd = t.start_round()
    rnd.start()
    bots = [make_bot("heuristic", f"tf/{s}") for s in range(3)]
    timed: set[int] = set()
    for _ in range(2000):
        if rnd.over:
            break
        s = rnd.turn if rnd.phase.value != "race" else min(rnd.race.waiting)
        if s in (0, 2) and rnd.phase.value in ("play", "drawn"):
            t.timeout(s, "act")  # the honest default move, twice a turn at most
            timed.add(s)
        else:
            t.act(bots[s].act(rnd, s))
    t.pump()
    assert rnd.over and timed == {0, 2} and not any(p.violation for p in t.everyone)
    report = audit_transcript(t.lines)
    assert report.ok, report.summary
    flagged = [f for f in report.flags if "timed out seat" in f]
    assert sorted(f.split("timed out seat ")[1][0] for f in flagged) == ["0", "2"], report.flags
    assert all("which was at the table when the round started" in f for f in flagged)


def test_a_referee_act_that_plays_for_a_seat_is_refused_everywhere():
    """The referee closes the table's races; a `referee` host act carrying a seat's action is
    the host playing a present player's seat under another name."""
    t = _table("referee-plays")
    seat, action = _until(t, lambda a, rnd, s: True, "rp")
    out = _host_act(t, seat, action, "referee")
    (ha,) = [e for e in out if e.EV == "host-act"]
    for p in t.everyone:
        v = p.violation
        assert v is not None and v.seat is None, p.seat
        assert f"a referee's host act plays {action} for seat {seat}" in v.reason, v.reason
    assert_convicted_when_signed(t.lines, t.host.identity, line=_game_line_after(t, ha), auditor=audit_transcript)
