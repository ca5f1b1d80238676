"""A host that refuses a seat's legal act, over real loopback links (spec §4.6, §6.3).

A refusal (`error`, non-fatal) is the host's word alone: nobody else sees it, the act it refuses
is never published. A host that answered a seat's legal play "stale: too late" each time (the
code a lost reaction race gets, and the seat's screen shows it as news, "Too late: the table
moved on"), until the turn clock ran out, turned that seat's winning turn into the default move
(a draw) with every record in order: the others and the audit saw an ordinary timeout, and the
seat took each refusal and tried again. The seat knows better: an honest host answers an act
before anything that came in after it, so when the refusal reaches the seat, the seat's own
engine copy is at the moment the host refused it; the rules allowing the act then (the seat's
turn, its number, a live round, no challenge) is proof the host refused a legal move. The seat
refuses the refusal, naming the host. A refusal names what it refuses (`error.refuses`, the
SHA-256 of the refused `fair` body), so one of another message of the seat's (a late co-sign)
is never taken for its act's; an older host's unnamed refusal of an act the rules allow is
taken as a refusal of something else (the act stays on its way, and the seat's watch judges
the host's answer: tests/adversaries/test_host_clock.py).

Class 8: an honest host's refusals (a race lost, a late reaction) are never refused back:
tests/net/test_session_match.py's catch races and test_host_clock.py play on to the end."""

from __future__ import annotations

import hashlib

import pytest
import trio

import unonet.protocol as P
from unonet.engine import Play, make_rules
from unonet.net._game import HostGame, bot_step

from tests.adversaries.test_host_clock import _recording, _table, _victim, _victim_erred


def _refusal(msg, code: str, reason: str, *, named: bool) -> P.ErrorReport:
    """The refusal an honest host sends for `msg` (named: with `refuses`, as a host of this
    version; unnamed: as an older host)."""
    kw = {"refuses": hashlib.sha256(msg.body).digest()} if named else {}
    return P.ErrorReport(code=code, message=reason, ref="fair", fatal=False, **kw)


class _FalseStale(HostGame):
    """Refuses every play of seat 1 as a lost race ("stale: too late"), signed words and all
    (the act is checked and valid); its clock then times the turn out: the seat draws."""

    named = True

    def on_message(self, peer, msg):
        if peer.seat == 1 and getattr(msg, "ev", None) == "act" and msg.event().action.get("t") == "play":
            self.refused = getattr(self, "refused", 0) + 1
            self.table.send(peer, _refusal(msg, "stale", "too late: the table moved on", named=self.named))
            return
        super().on_message(peer, msg)


class _FalseStaleUnnamed(_FalseStale):
    named = False


def _paced(side):
    side.bot_pace = 1.0  # (a person's pace: a try a second)
    return bot_step(side)


def _done(seats, table, games):
    return _victim_erred(seats, table) or any(
        getattr(g, "refused", 0) and any(getattr(m, "ev", None) == "host-act" and m.event().seat == 1
                                          for m in g.history) for g in games)


@pytest.mark.parametrize("cls", [_FalseStale, _FalseStaleUnnamed], ids=["named", "unnamed"])
def test_a_host_that_refuses_a_legal_play_as_stale_until_the_clock_runs_out_is_refused_by_that_seat(cls):
    seats: dict = {}
    games: list = []
    _table(_recording(cls, games), seats, steps={0: _paced, 1: _paced},
           until=lambda s, t: _done(s, t, games), turn_timeout=30.0, autojump=True, limit=100_000,
           rules=make_rules("official", [], target=500))
    (game,) = games
    assert getattr(game, "refused", 0) >= 1, "seat 1 never played"
    victim = _victim(seats)
    err = victim.get("error")
    assert err is not None, "seat 1 took the false refusals and was timed out: " + repr(
        [v for v in victim["feed"] if type(v).__name__ in ("Refused", "Notice")][-4:])
    text = str(err)
    assert err.cheat and text.startswith("the host failed a fair-play check: the host refused seat 1's act "), text
    assert "(stale: too late: the table moved on), but the rules allow it now" in text, text
    # nobody else accused anyone: the host's timeout never came
    assert not any(getattr(m, "ev", None) == "host-act" and m.event().seat == 1 for m in game.history)
