"""Issue 22 class 5: an elected host cannot give a seat of the match to another key.

The elected host (one of the players, signing with its own key) continues the match; its
`match-start` carries the old match's seat keys in ``continues`` and seats exactly them. A
host that seats its own bot's key in a live player's seat (keeping that seat's score) is
refused by every follower and by ``unonet audit NEW --continues OLD``, naming the new host,
whether it carries the true old keys (the seat list then differs from them) or rewrites
them (they then differ from every follower's own record). Honest: a seat whose player is
not at the new table keeps its key, away (no join, no seed, no co-sign; stand-in acts), and
the player that comes back joins late and plays on."""

from __future__ import annotations

import dataclasses

import pytest

from unonet.engine import make_bot, make_rules, play_round
from unonet.fair import FairPlayViolation, Identity, audit
from unonet.fair.testing import det_randbytes
from unonet.table import Continuation, LocalTable, TableHost, TableSeat, make_table
from unonet.table._handover_audit import audit_handover

from tests.table.test_rejoin import _joins_late

VICTIM = 2
AWAY = 3  # (the last seat: the in-memory table finds the others by index while it is away)


def _old_match(seed: str):
    rules = make_rules(target=10_000)
    rb = det_randbytes(seed)
    ids = [Identity.generate(rb) for _ in range(4)]
    t = make_table(rules, 4, randbytes=rb, identities=ids)
    for r in range(2):
        rnd = t.start_round()
        play_round(rnd, [make_bot("heuristic", f"{seed}/{r}/{s}") for s in range(4)])
        t.pump()
    t.start_round()  # the round in progress when the host died: void
    return rules, rb, ids, t


def _elected(rules, rb, ids, old, *, seat_ids, claim, away=()):
    """Seat 0's player is elected: it hosts with its own key and plays its own seat."""
    own = [Continuation.of_seat(s) for s in old.seats]
    claimed = dataclasses.replace(claim(own[0]), away=tuple(away))
    host = TableHost(rules, 4, identity=ids[0], seats=[i.public for i in seat_ids], host_seat=0,
                     randbytes=rb, continues=claimed)
    seats = [TableSeat(s, ids[s], ids[0].public, randbytes=rb, continues=own[s]) for s in range(4)]
    observer = TableSeat(None, None, ids[0].public, continues=own[0])
    return LocalTable(host, seats, [observer], strict=False)


def _bot_in_the_victims_seat(ids, rb):
    bot = Identity.generate(rb)  # the elected host's own bot: its key, not the player's
    return [bot if s == VICTIM else ids[s] for s in range(4)]


def _followers_refuse(t: LocalTable, words: str) -> None:
    t.start_match()
    parties = [s for s in t.seats if s.seat not in (0, VICTIM)] + list(t.observers)
    for party in parties:
        assert party.violation is not None, "a follower took a seat given to another key"
        assert words in str(party.violation) and "the new host" in str(party.violation)
        assert party.violation.seat is None  # the host is blamed, never a seat
        assert party.violation_event.EV == "match-start"


@pytest.mark.parametrize("rewrite", [False, True], ids=["true-old-keys", "rewritten-old-keys"])
def test_an_elected_host_that_seats_its_bot_in_a_live_players_seat_is_refused_by_every_follower(rewrite):
    rules, rb, ids, old = _old_match(f"bot-seat-{rewrite}")
    seat_ids = _bot_in_the_victims_seat(ids, rb)
    fake = tuple(i.public.fingerprint for i in seat_ids)
    claim = (lambda c: dataclasses.replace(c, seats=fake)) if rewrite else (lambda c: c)
    t = _elected(rules, rb, ids, old, seat_ids=seat_ids, claim=claim)
    _followers_refuse(t, "gives seat 2 to key" if rewrite else "seats key")
    assert "not ours" in str(t.seats[VICTIM].violation)  # the victim: announced with another key
    # and offline: `unonet audit NEW --continues OLD` names the same lie
    with pytest.raises(FairPlayViolation, match="gives seat 2 to key" if rewrite else "seats key"):
        audit_handover(old.lines, t.lines)


def test_an_elected_host_that_calls_a_live_player_away_is_refused_by_that_player():
    rules, rb, ids, old = _old_match("called-away")
    t = _elected(rules, rb, ids, old, seat_ids=ids, claim=lambda c: c, away=[VICTIM])
    t.start_match()
    v = t.seats[VICTIM].violation
    assert v is not None and "calls seat 2 away" in str(v) and v.seat is None
    assert all(s.violation is None for s in t.seats if s.seat != VICTIM)  # (only the seat can tell)


def test_a_seat_away_after_the_election_keeps_its_key_is_played_absent_and_joins_late():
    """Honest: seat 3's player did not come back. It keeps its key (every follower and the
    audit take it); every round deals it absent and the host stands in for it; its player's
    late join is taken, and the next round deals it its share again."""
    from tests.table.test_rejoin import _play_with_absent

    rules, rb, ids, old = _old_match("away-honest")
    t = _elected(rules, rb, ids, old, seat_ids=ids, claim=lambda c: c, away=[AWAY])
    t.strict = True
    t.seats = [s for s in t.seats if s.seat != AWAY]  # its player is away: nothing reaches it
    t.start_match()
    assert t.host.match.joined and t.host.match.away == {AWAY}
    t.broadcast(t.host.start_round())
    t.pump()
    assert next(e for e in t.host.events if e.EV == "round-start").absent == (AWAY,)
    _play_with_absent(t, AWAY, "away")
    assert t.host.finished and not t.violations
    assert audit(t.lines).ok, audit(t.lines).summary
    assert "after 2 completed rounds" in audit_handover(old.lines, t.lines)
    # the player is back: its seat rebuilt from the replay (called away: no cheat then) joins late
    _joins_late(t, TableSeat(AWAY, ids[AWAY], ids[0].public, continues=Continuation.of_seat(old.seats[AWAY])), AWAY)
    assert audit(t.lines).ok, audit(t.lines).summary


def test_unonet_audit_continues_refuses_a_seat_given_to_another_key(tmp_path):
    import subprocess
    import sys

    from unonet.fair._events import MatchJoin
    from unonet.fair._match import sign_match_join

    rules, rb, ids, old = _old_match("bot-seat-cli")
    seat_ids = _bot_in_the_victims_seat(ids, rb)
    host = _elected(rules, rb, ids, old, seat_ids=seat_ids, claim=lambda c: c).host
    host.start_match()
    for s in range(4):  # the cheater's record as it writes it: every key it seated joins (its bot's too)
        host.receive(s, sign_match_join(seat_ids[s], MatchJoin(seat=s, start=host.match.start_hash, nonce=rb(16))))
    assert audit(host.lines).ok  # (the new transcript alone is well formed: only the hand-over check sees it)
    (tmp_path / "old.jsonl").write_text("\n".join(old.lines) + "\n")
    (tmp_path / "new.jsonl").write_text("\n".join(host.lines) + "\n")
    run = subprocess.run([sys.executable, "-m", "unonet", "audit", str(tmp_path / "new.jsonl"), "--continues",
                          str(tmp_path / "old.jsonl")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "seats key" in run.stdout and "in seat 2" in run.stdout, run.stdout + run.stderr
