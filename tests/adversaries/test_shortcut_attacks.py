"""The speed shortcuts of issue 26's last pass, attacked by a host that signs its own lies
(docs/fair-play.md §11.15): each cheat is caught at the event that carries it, naming the
host, and no honest seat is blamed.

- the known-good signature memory: a seat's genuine signed word, remembered by every party,
  relayed by the host in another round (another context) is verified, fails, and convicts the
  host, never the seat;
- the dealer's own seed reveal, trusted by its own ledger: a host whose dealer stacks its
  deck yet passes as the exact `FairDealer` (so its ledger does trust its reveal) publishes
  it, and every seat and the observer, which check it in full, convict the host at it;
- a seat's quiet path (`TableSeat._quiet`): while it holds that nothing is owed, nothing is
  owed by the full computation either, whatever the host sends (rounds with challenges,
  reshuffles, seven-o hand swaps, draw-until rules)."""

from __future__ import annotations

import pytest

from unonet.engine import make_rules
from unonet.fair import FairDealer
from unonet.fair import _identity
from unonet.fair._events import Act, RoundSign, SeedReveal
from unonet.fair._shuffle import shuffle_cards
from unonet.table import LocalTable, TableHost, TableSeat, audit_transcript
from unonet.table._host import _OWED

from ..table.helpers import play_driven_round
from .helpers import match_table
from .test_relay import VICTIM, Relay, assert_host_convicted


def _rounds(t: LocalTable, seed: str, rounds: int) -> None:
    """Play up to ``rounds`` rounds (stopping at the first violation, which is recorded)."""
    for r in range(rounds):
        try:
            play_driven_round(t, f"{seed}/{r}")
        except Exception:  # noqa: BLE001 - the cheater's round may break; the violations are kept
            return
        if t.violations:
            return


def _relay_table(seed: str, edit, players: int = 3) -> LocalTable:
    t = match_table(seed, players, Relay, rules=make_rules("official", [], target=10_000))
    t.host.edit, t.host.tampered = edit, []
    return t


def _from_an_earlier_round(kind, keep_last: bool):
    """An edit that keeps seat VICTIM's genuine `kind` word of round 1 (its last, or its
    first) and relays it in round 2 in place of the first one seat VICTIM sends there.
    ``hot`` records that the memory held the replayed signature when it was relayed."""
    kept: dict = {}
    hot: list = []

    def edit(ev):
        if not isinstance(ev, kind) or ev.seat != VICTIM:
            return ev
        round_no = edit.host.round_no
        if round_no == 1 and (keep_last or "old" not in kept):
            kept["old"] = ev
        elif round_no == 2 and "done" not in kept:
            kept["done"] = True
            hot.append(kept["old"].sig in _identity._good)
            return kept["old"]
        return ev
    edit.hot = hot
    return edit


@pytest.mark.parametrize("what, kind, keep_last, match", [
    ("its last act of round 1 as its first act of round 2", Act, True, "is not signed by seat 1"),
    ("its co-sign of round 1 as its co-sign of round 2", RoundSign, False, "round-sign of seat 1"),
])
def test_a_seats_remembered_word_relayed_in_another_round_convicts_the_host(what, kind, keep_last, match):
    """Every party of this process made or verified seat 1's round-1 signature (it is in the
    known-good memory, as the test checks when the host relays it); the lookup is by the exact
    (key, message, signature), and the message carries round 2's context, so the memory does
    not vouch for it: it is verified, fails, and the host that relayed it is convicted by
    every seat (seat 1: 'never made') and the observer, at that event, and by the audit."""
    edit = _from_an_earlier_round(kind, keep_last)
    t = _relay_table(f"memory-{kind.EV}", edit)
    edit.host = t.host
    _rounds(t, "memory", 3)
    assert edit.hot == [True], "the replayed signature was not in the memory: the attack did not test it"
    assert_host_convicted(t, match, own_word=True)


def test_a_dealer_that_passes_as_exact_and_stacks_its_deck_is_convicted_at_its_reveal():
    """The dealer's own ledger trusts its seed reveal only for the exact `FairDealer` with
    `check_self` on (docs/fair-play.md §11.15, its end).  A cheating host keeps that type and
    stacks the deck on the instance: its ledger takes the reveal without recomputing the
    commitments and it is published, so each seat and the observer must check it in full:
    all of them convict the host at the `seed-reveal`, and so does the audit."""
    stacked: list = []

    def dealer(*args, **kw):
        d = FairDealer(*args, **kw)

        def order(cards, seed):  # wilds on top: every later opening consistent with its commitment
            stacked.append(d)
            return sorted(shuffle_cards(cards, seed), key=lambda c: not c.secret.startswith("W"))
        d._order = order
        return d

    t = match_table("stacked-exact", 3, dealer_cls=dealer)
    host = t.host
    _rounds(t, "stacked", 1)
    assert stacked and type(stacked[0]) is FairDealer and stacked[0].check_self  # it passed as exact
    reveal = next(e for e in host.events if isinstance(e, SeedReveal))  # published: its ledger trusted it
    for p in t.everyone:
        who = "observer" if p.seat is None else f"seat {p.seat}"
        v = p.violation
        assert v is not None and p.violation_event is reveal, f"{who}: {v} at {p.violation_event}"
        assert v.seat is None and "does not match the deck recomputed from the seed" in v.reason, f"{who}: {v}"
    report = audit_transcript(t.lines)
    assert not report.ok and report.to_json()["blame"] == "host", report.summary
    assert "does not match the deck recomputed from the seed" in report.reason, report.summary


# -- the quiet path ------------------------------------------------------------------------
class _Watched(TableSeat):
    """A seat that, whenever its quiet path answers 'nothing owed', checks that the full
    computation would owe nothing either (no join, no co-sign, no verifier duty)."""

    quiet_answers = 0

    def owed(self):
        if self.violation is None and self.seat is not None and self._quiet and \
                not (self._owed_cache is not None and self._owed_cache[0] == self._received):
            _Watched.quiet_answers += 1
            m, me = self.match, self.seat
            assert not (m.start is not None and not self._joined and me not in m.joins), "a join is owed"
            cur = m.current
            assert not (cur is not None and cur.status == "ended" and (cur.round, cur.attempt) not in self._signed
                        and me not in cur.signs and me not in cur.away), "a co-sign is owed"
            pending = self.verifier.pending_action
            lg = self.verifier.ledger
            duty = (self.rounds, pending, len(lg.epochs), len(lg.challenges), lg.counts["deals"])
            assert _OWED.get(pending) is None or duty == self._duty, f"seat {me} owes {pending}"
        return super().owed()


@pytest.mark.parametrize("preset, house", [
    ("official", ()),
    ("official", ("seven-o",)),
    ("official", ("keep-drawing", "stacking")),
    ("flip", ()),
])
def test_a_quiet_seat_owes_nothing_the_full_computation_would_owe(preset, house):
    """Seeded 4-seat matches with challenges (the heuristic bots challenge), reshuffles, hand
    swaps and UNO Flip: at every `owed()` the quiet path answers, the seat owes nothing."""
    t = match_table(f"quiet-{preset}-{house}", 4, rules=make_rules(preset, list(house), target=10_000),
                    seat_cls=_Watched, strict=True)
    seats = t.seats
    _Watched.quiet_answers = 0
    for r in range(4):
        play_driven_round(t, f"quiet/{r}")
    assert not t.violations
    assert _Watched.quiet_answers > 100  # (the path is taken: the check ran)
    assert max(len(h.verifier.ledger.epochs) for h in seats) >= 1


def test_the_quiet_path_never_hides_a_deal_dispute_from_its_seat():
    """A host that deals seat 1 a card it cannot read in the middle of a run of plain events
    (game records, acts, deals to others), while seat 1 is quiet: seat 1 still disputes it at
    once, and the host's key convicts the host."""
    from unonet.fair._events import Deal

    class BadDealer(TableHost):
        spoiled: list = []

        def _publish(self, events):
            out = []
            for e in events:
                if isinstance(e, Deal) and e.seat == VICTIM and not self.spoiled and self.round is not None \
                        and self.dealer.ledger.counts["deals"] > 25:
                    e = type(e)(position=e.position, seat=e.seat,
                                sealed=e.sealed[:40] + bytes([e.sealed[40] ^ 1]) + e.sealed[41:], public=e.public)
                    self.spoiled.append(e)
                    # (its own record holds what it dealt, and it takes seat 1's dispute over the story it told it)
                    self.dealer.ledger.positions[e.position].sealed = e.sealed
                    self.dealer.check_self = False  # (and discloses its key without checking itself)
                    accept = self.dealer.accept

                    def accept_dispute(ev, sender, accept=accept):  # (it knows the story it told)
                        if getattr(ev, "seen", None) is not None:
                            self.dealer.ledger.digests.add(ev.seen)
                        return accept(ev, sender)
                    self.dealer.accept = accept_dispute
                    self.was_quiet = self.victim._quiet
                out.append(e)
            return super()._publish(out)

    t = match_table("quiet-bad-deal-1", 3, BadDealer, rules=make_rules("official", [], target=10_000),
                    seat_cls=_Watched)
    host = t.host
    host.spoiled, host.victim = [], t.seats[VICTIM]
    _rounds(t, "bad-deal", 3)
    (bad,) = host.spoiled
    assert host.was_quiet  # seat 1 held that it owed nothing when the bad deal came
    disputes = [e for e in host.events if e.EV == "deal-dispute"]
    assert disputes and disputes[0].seat == VICTIM and disputes[0].position == bad.position
    for p in t.everyone:
        v = p.violation
        assert v is not None and v.seat is None and "does not open with its disclosed key" in v.reason, (p.seat, v)


# -- the live replay compares a record as it stands: a result in another JSON type ---------------
@pytest.mark.parametrize("what, change", [
    ("the points as a float", lambda d: dict(d, points=float(d["points"]))),
    ("a hand's points as a float", lambda d: dict(d, hand_points=[float(x) for x in d["hand_points"]])),
    ("the scores as floats", lambda d: dict(d, scores=[float(x) for x in d["scores"]])),
    ("the winner as a boolean", lambda d: dict(d, winner=bool(d["winner"])) if d["winner"] in (0, 1) else d),
])
def test_a_result_recorded_in_another_json_type_is_caught_at_its_end_record(what, change):
    """A host that writes the round's result as 14.0 for 14 (or true for seat 1): Python's ``==``
    took it, so every live check and the audit passed it, and every honest seat then failed to
    co-sign (its tally is over whole numbers: an exception, not a verdict) while a scorekeeper
    stored another number.  Now every seat and the observer refuse the `game {g: end}` record
    itself, naming the host, and so does the audit."""
    def tamper(data):
        return change(data) if data["g"] == "end" else data

    for k in range(6):  # (a seed whose winner is seat 0 or 1, for the boolean)
        t = match_table(f"typed-end-{what}-{k}", 3, tamper_game=tamper)
        host = t.host
        _rounds(t, f"typed/{k}", 1)
        end = next((e for e in host.events if e.EV == "game" and e.data.get("g") == "end"), None)
        if end is not None and ("winner" not in what or type(end.data["winner"]) is bool):
            break
    else:
        raise AssertionError("no seeded round whose result the change applies to")
    for p in t.everyone:
        who = "observer" if p.seat is None else f"seat {p.seat}"
        v = p.violation
        assert v is not None and p.violation_event is end, f"{who}: {v} at {p.violation_event}"
        assert v.seat is None and v.reason.startswith("game record: ") and "the record says" in v.reason, f"{who}: {v}"
    report = audit_transcript(t.lines)
    assert not report.ok and report.to_json()["blame"] == "host" and "the record says" in report.reason, report.summary


# -- whatever one field a host changes: no crash, no seat blamed ---------------------------------
def _mutated(value, rng):
    """Another JSON value of the same shape as ``value`` (one hex digit, number or item changed)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice([value + 1, max(0, value - 1), 0, value + 7])
    if isinstance(value, str):
        if len(value) >= 2 and len(value) % 2 == 0 and all(c in "0123456789abcdef" for c in value):
            i = rng.randrange(len(value))
            return value[:i] + ("1" if value[i] == "0" else "0") + value[i + 1:]
        return rng.choice([value + "x", value[:-1] or "R", "R5", "W+4", "G0", "Y"])
    if isinstance(value, list):
        if not value or rng.random() < 0.3:
            return value[:-1] if value else [0]
        i = rng.randrange(len(value))
        return value[:i] + [_mutated(value[i], rng)] + value[i + 1:]
    if isinstance(value, dict) and value:
        k = rng.choice(sorted(value))
        return {**value, k: _mutated(value[k], rng)}
    return 0 if value is None else value


def test_a_relayed_event_changed_in_any_one_field_crashes_nobody_and_blames_no_seat():
    """A host's lie in any one field of any event of a recorded match (each change keeping the
    wire's rules, as a body the strict decoder takes): a fresh observer and a fresh seat (one
    rebuilt from the match so far, as after a rejoin) reading the match up to the changed
    event either take it (a lie caught later, at the record that shows it) or refuse it naming
    the host; none raises anything else, and none blames a seat."""
    import json
    import random

    from unonet.fair import FairPlayViolation
    from unonet.fair._events import Event
    from unonet.protocol._messages import check_fair_event

    seen: list = []

    class Recording(TableSeat):
        def receive(self, event):
            seen.append(event)
            return super().receive(event)

    t = match_table("one-field", 3, rules=make_rules("official", [], target=10_000), strict=True)
    t.observers = [Recording(None, None, t.host.identity.public)]
    _rounds(t, "one-field", 2)
    assert not t.violations and len(seen) > 200
    ids = {s.seat: s.identity for s in t.seats}
    rng = random.Random(7)
    tried = 0
    while tried < 30:
        i = rng.randrange(len(seen))
        obj = json.loads(seen[i].canonical())
        keys = sorted(k for k in obj if k != "ev")
        k = rng.choice(keys)
        obj[k] = _mutated(obj[k], rng)
        try:
            bad = Event.from_json(obj)
            check_fair_event(bad)
        except Exception:  # noqa: BLE001 - the wire refuses it: nobody reads it
            continue
        if bad == seen[i]:
            continue
        tried += 1
        for seat in (None, 1):
            p = TableSeat(seat, ids.get(seat), t.host.identity.public)
            p.recovering = seat is not None
            for e in seen[:i]:
                p.receive(e)
            try:
                p.receive(bad)
            except FairPlayViolation as exc:
                assert exc.seat is None, f"{k} of {bad.EV} #{i} changed: seat {seat} blames seat {exc.seat}: {exc}"
