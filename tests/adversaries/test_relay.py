"""Issue 22 class 1: the relay frames a player.

Every seat's word reaches the other peers only through the host, which must check it
before relaying it. A host that alters one byte of a seat's message (its seed commitment
or reveal, an act, a co-sign, a join, a challenge verdict), makes a false reveal of a
seat's hand, or splices a seat's message from another match, is convicted live by every
seat and the observer at that event, and by `unonet audit` at that line; the seat named
in the message — which said nothing wrong — is never the one blamed."""

from __future__ import annotations

import dataclasses
import json

import pytest

from unonet.engine import make_bot, play_round
from unonet.fair import FairPlayViolation, audit
from unonet.fair._events import Act, MatchJoin, PlayerCommit, PlayerReveal, Reveal, RoundSign
from unonet.fair.testing import det_randbytes
from unonet.table import LocalTable, TableHost, audit_transcript

from .helpers import DECKS, assert_unproven, line_of, match_table, w4_table

VICTIM = 1


def flip(b: bytes, at: int = 0) -> bytes:
    return b[:at] + bytes([b[at] ^ 1]) + b[at + 1:]


class Relay(TableHost):
    """A host that passes its seats' messages on after changing them (`edit(event)` returns
    the event to publish); it checks and records the genuine ones itself."""

    edit = staticmethod(lambda ev: ev)
    tampered: list

    def _publish(self, events):
        out = []
        for e in events:
            new = self.edit(e)
            if new is not e:
                self.tampered.append(new)
            out.append(new)
        return super()._publish(out)


def _table(seed: str, edit, players: int = 3) -> LocalTable:
    t = match_table(seed, players, Relay)
    t.host.edit, t.host.tampered = edit, []
    return t


def _once(kind, change):
    """An edit that changes the first event of seat VICTIM matching `kind`."""
    done = []

    def edit(ev):
        if not done and isinstance(ev, kind) and getattr(ev, "seat", None) == VICTIM:
            done.append(ev)
            return change(ev)
        return ev
    return edit


def _play(t: LocalTable, seed: str) -> None:
    try:
        rnd = t.start_round()
        rnd.start()
        if not rnd.over:
            play_round(rnd, [make_bot("heuristic", f"{seed}/{s}") for s in range(len(t.seats))])
    except (FairPlayViolation, AssertionError, Exception):  # noqa: BLE001 - the cheater's round may break
        pass


def assert_host_convicted(t: LocalTable, match: str, *, own_word: bool = False) -> None:
    """Every seat (the victim included) and the observer caught it at the tampered event,
    blaming the host; the audit names the host at that event's line; nobody names a seat.
    ``own_word``: the tampered event is the victim's own signed word (from elsewhere), which
    it may find failing the check as the others do."""
    (bad,) = t.host.tampered
    for p in t.everyone:
        who = "observer" if p.seat is None else f"seat {p.seat}"
        v = p.violation
        assert v is not None, f"{who} did not catch it"
        assert v.seat is None, f"{who} blames {v.party}: {v.reason}"
        assert p.violation_event is bad, f"{who} caught it at {p.violation_event.EV}, not at the tampered event"
        if p.seat != VICTIM:
            assert v.reason.startswith("the host relayed") and match in v.reason, f"{who}: {v.reason}"
        else:  # the victim knows its own word
            assert "not ours" in v.reason or "never made" in v.reason or \
                (own_word and v.reason.startswith("the host relayed")), v.reason
    report = audit_transcript(t.lines)
    # (a line is the event's JSON with its `prev`; a word spliced from an earlier round is there too)
    line = max(i for i, text in enumerate(t.lines, 1)
               if {k: v for k, v in json.loads(text).items() if k != "prev"} == bad.to_json())
    # (the host's record stops at its lie: no round it signed covers the line, so the file alone
    # blames nobody -- the live peers, which had it on the host's link, convict the host)
    assert_unproven(report, line=line, match=match)


@pytest.mark.parametrize("what, kind, change, match", [
    ("a byte of a seed commitment's signature", PlayerCommit,
     lambda e: dataclasses.replace(e, sig=flip(e.sig)), "has a bad signature"),
    ("a byte of a seed reveal", PlayerReveal,
     lambda e: dataclasses.replace(e, secret=flip(e.secret, 5)), "does not match its commitment"),
    ("a byte of an act's signature", Act,
     lambda e: dataclasses.replace(e, sig=flip(e.sig, 7)), "is not signed by seat 1"),
    ("the action of an act", Act,
     lambda e: dataclasses.replace(e, action=dict(e.action, t="pass" if e.action.get("t") == "draw" else "draw"),
                                   opening=None),
     "is not signed by seat 1"),
    ("a byte of a join's signature", MatchJoin,
     lambda e: dataclasses.replace(e, sig=flip(e.sig)), "match-join of seat 1 is not signed by seat 1"),
    ("a byte of a co-sign's signature", RoundSign,
     lambda e: dataclasses.replace(e, sig=flip(e.sig)), "round-sign of seat 1 is not signed by seat 1"),
])
def test_a_host_that_alters_a_seats_message_is_convicted_and_the_seat_is_not(what, kind, change, match):
    t = _table(f"relay-{what}", _once(kind, change))
    _play(t, "relay")
    assert_host_convicted(t, match)


def test_a_false_reveal_of_a_seats_hand_convicts_the_host_not_the_holder():
    """At the round's end the host opens every hand itself; a `reveal` of seat 1's cards
    that does not match their commitments is the host's, though it names seat 1."""
    def change(ev: Reveal):
        o = ev.openings[0]
        return dataclasses.replace(ev, openings=(dataclasses.replace(o, salt=flip(o.salt)),) + ev.openings[1:])
    for k in range(1, 6):  # a match in which seat 1 still holds cards at the end (it did not go out)
        t = _table(f"relay-reveal-{k}", _once(Reveal, change))
        _play(t, "reveal")
        if t.host.tampered:
            break
    (bad,) = t.host.tampered
    for p in t.everyone:
        v = p.violation
        assert v is not None and v.seat is None and p.violation_event is bad, (p.seat, v)
        assert v.reason.startswith("the host published a reveal of seat 1's cards"), v.reason
    report = audit_transcript(t.lines)
    assert_unproven(report, line=next(i for i, e in enumerate(t.host.events, 1) if e is bad))


def test_a_seed_commitment_spliced_from_another_match_convicts_the_host():
    """Same players, another night: the host swaps in seat 1's signed commitment of last
    night's round 1 (which seat 1 really made, in another match) for tonight's."""
    last = _table("splice-night", lambda e: e)
    _play(last, "night-1")
    old = next(e for e in last.host.events if isinstance(e, PlayerCommit) and e.seat == VICTIM)
    t = _table("splice-night", _once(PlayerCommit, lambda e: old))  # the same keys
    t.host.randbytes = det_randbytes("splice-tonight")
    _play(t, "night-2")
    assert_host_convicted(t, "has a bad signature")


def test_the_honest_host_refuses_an_altered_message_naming_its_sender():
    """The check before the relay: a seat that sends a reveal that does not match its own
    commitment is refused by the host (naming that seat, whose own link carried it) and is
    never relayed."""
    t = _table("relay-direct", lambda e: e)
    t.start_match()
    t.broadcast(t.host.start_round())
    for s in range(3):
        t.send(s, t.seats[s].owed()[0])
    reveal = t.seats[VICTIM].owed()[0]
    bad = dataclasses.replace(reveal, secret=flip(reveal.secret))
    before = len(t.host.events)
    with pytest.raises(FairPlayViolation, match="does not match its commitment") as ei:
        t.host.receive(VICTIM, bad)
    assert ei.value.seat == VICTIM and len(t.host.events) == before


def test_a_relayed_challenge_verdict_that_fails_convicts_the_host_not_the_challenger():
    """The fair layer alone: a verdict whose signature the relay broke."""
    t, w4 = w4_table(guilty=True)
    t.strict = False
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    verdict = t.verifiers[1].judge_challenge()
    t.dealer.accept(verdict, 1)  # the host checks it, then relays another
    t.publish([dataclasses.replace(verdict, sig=flip(verdict.sig))])
    assert {who for who, _ in t.violations} == {"seat 0", "seat 1", "observer"}
    for who, exc in t.violations:
        assert exc.seat is None, (who, exc.reason)
    line = line_of(t, lambda e: e.EV == "challenge-verdict")
    assert_unproven(audit(t.lines, decks=DECKS), line=line, match="is not signed by the challenger")
