"""A fresh match (no election) whose start names a seat *away* (match-start `away`, spec §7
"away seats"): the seat's player went silent between matches and did not come back in time.
The seat keeps its player's key, signs no join (the match id hashes the others' nonces), is
dealt absent and played by the host's stand-in, and the player who comes back joins late
and plays on.  Every verifier (seats, observers/scorekeepers, the audit) takes it; a
malformed list is refused naming the input; a host that calls a present player away to cut
it out is refused by that player (only it can tell: it is at the table)."""

from __future__ import annotations

import pytest

import unonet.fair as F
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.fair import FairPlayViolation, Identity, audit
from unonet.fair._match import MatchLedger, sign_match_start
from unonet.fair.testing import det_randbytes
from unonet.protocol._errors import ProtocolError
from unonet.table import LocalTable, TableHost, TableSeat

from tests.table.test_rejoin import _joins_late, _play_with_absent

AWAY = 3  # (the last seat: the in-memory table finds the others by index while it is away)
VICTIM = 2


def _fresh(seed: str, away=(AWAY,)):
    rules = make_rules(target=10_000)
    rb = det_randbytes(seed)
    ids = [Identity.generate(rb) for _ in range(4)]
    host = TableHost(rules, 4, identity=ids[0], seats=[i.public for i in ids], host_seat=0, randbytes=rb,
                     away=away)
    seats = [TableSeat(s, ids[s], ids[0].public, randbytes=rb) for s in range(4)]
    observer = TableSeat(None, None, ids[0].public)
    return LocalTable(host, seats, [observer], strict=False), ids


def test_a_fresh_match_with_a_seat_away_plays_it_absent_and_its_player_joins_late():
    t, ids = _fresh("fresh-away")
    t.strict = True
    t.seats = [s for s in t.seats if s.seat != AWAY]  # its player is away: nothing reaches it
    t.start_match()
    start = t.host.events[0]
    assert start.EV == "match-start" and start.away == (AWAY,) and start.continues is None
    assert '"away":[3]' in start.canonical()
    assert t.host.match.joined and t.host.match.away == {AWAY} and AWAY not in t.host.match.joins
    t.broadcast(t.host.start_round())
    t.pump()
    assert next(e for e in t.host.events if e.EV == "round-start").absent == (AWAY,)
    _play_with_absent(t, AWAY, "fresh-away")
    assert t.host.finished and not t.violations
    assert all(s.violation is None for s in t.seats + t.observers)
    assert audit(t.lines).ok, audit(t.lines).summary  # (the offline audit takes it too)
    # the player is back: its seat rebuilt from the replay (read away: no cheat then) joins late
    _joins_late(t, TableSeat(AWAY, ids[AWAY], ids[0].public), AWAY)
    assert audit(t.lines).ok, audit(t.lines).summary


def test_a_host_that_calls_a_present_player_away_at_a_fresh_start_is_refused_by_that_player():
    t, _ = _fresh("called-away", away=(VICTIM,))
    t.start_match()
    v = t.seats[VICTIM].violation
    assert v is not None and "calls seat 2 away at the match's start" in str(v) and v.seat is None
    assert "match-start away [2]" in str(v)
    assert all(s.violation is None for s in t.seats if s.seat != VICTIM)  # (only the seat can tell)


def _start(away=None, host_seat=0, continues=None, n=4):
    rb = det_randbytes(f"bad-away-{away}-{host_seat}-{continues}")
    ids = [Identity.generate(rb) for _ in range(n)]
    host = ids[0] if host_seat == 0 else Identity.generate(rb)
    return sign_match_start(host, F.MatchStart(
        nonce=bytes(16), host=host.public, host_seat=host_seat, seats=tuple(i.public for i in ids),
        names=tuple(f"p{s}" for s in range(n)), rules={"deck": "classic"}, continues=continues,
        away=None if away is None else tuple(away)))


@pytest.mark.parametrize("away, host_seat, words", [
    ((0, 3), 0, "none the host's seat 0"),             # the host's own seat away
    ((3, 1), 0, "distinct seats of the match in order"),  # not ascending
    ((1, 1), 0, "distinct seats"),                       # twice
    ((4,), 0, "0..3"),                                   # no such seat
    ((0, 1, 2, 3), None, "one seat left to join"),      # every seat away (a dealer-only host)
    ((), 0, "match-start's away []"),                    # an empty list is left out, not sent
])
def test_a_malformed_away_list_is_refused_by_every_verifier_naming_it(away, host_seat, words):
    ev = _start(away, host_seat)
    with pytest.raises(FairPlayViolation, match="match-start's away") as exc:
        MatchLedger().apply(ev)
    assert words in str(exc.value) and exc.value.seat is None  # the host is blamed
    keeper = TableSeat(None, None, ev.host)  # an observer: a scorekeeper's check of the match
    with pytest.raises(FairPlayViolation, match="match-start's away"):
        keeper.receive(ev)


def test_a_continuation_names_its_away_seats_in_continues_only():
    ev = _start((2,), 0, continues={"match": "00" * 16, "away": [3]})
    with pytest.raises(FairPlayViolation, match=r"carries continues and a top-level away \[2\]"):
        MatchLedger().apply(ev)


def test_the_wire_refuses_an_empty_or_null_away_and_takes_a_list_of_seats():
    ev = _start((1, 2), 0)
    P.Fair.of(ev, 0)  # (its wire rules hold)
    body = ev.canonical().encode("ascii")
    assert P.Fair(round=0, ev="match-start", body=body).event().away == (1, 2)
    for bad, field in ((b'"away":[]', "away"), (b'"away":null', "null")):
        raw = body.replace(b'"away":[1,2]', bad)
        with pytest.raises((ProtocolError, F.EventFormatError, ValueError), match=field):
            P.Fair(round=0, ev="match-start", body=raw).event()
