"""Class 7: cheats beyond legality, caught by every player and observer *at the event that
carries them* (the audit's own engine replay, run as events arrive), and offline by
`unonet audit` at the same line, naming the cheater.

Each cheat is a host that signs its own lies with its own key; the transcript is audited
as it stands at the moment of the cheat (the honest seats left the table), so the audit
names the lie even in a round that never ends."""

from __future__ import annotations

import pytest

from unonet.engine import Challenge, make_bot, make_rules
from unonet.fair.testing import det_randbytes
from unonet.table import TableHost, audit_transcript, make_table
from unonet.table._round import action_json

from ..table.helpers import BluffBot


def _play_until(t, bots, stop, limit=3000):
    """Bots act (reading the host's round, as `simulate` does) until `stop()` holds."""
    for _ in range(limit):
        if stop():
            return True
        if t.host.round is None or t.host.round.over or not t.host.owed():
            return False
        o = t.host.owed()[0]
        if o.kind != "act":
            return False
        t.act(bots[o.seat].act(t.round, o.seat))
    return False


def _caught_at(t, event, match: str):
    """Every seat and the observer raised the violation on `event` itself, blaming the host;
    `event` is the first event that carries the lie, and each party refused everything after."""
    for p in t.everyone:
        who = "observer" if p.seat is None else f"seat {p.seat}"
        assert p.violation is not None, f"{who} did not catch it"
        assert p.violation_event is event, (who, p.violation_event, event)
        assert match in p.violation.reason, (who, p.violation.reason)
        assert p.violation.seat is None, (who, "the host is the cheater")
    assert not any(e.EV == "round-sign" for e in t.host.events[t.host.events.index(event):])


def _caught_offline(t, event, match: str):
    """`unonet audit` over the transcript as it stands names the same line and the same cheat."""
    report = audit_transcript(t.lines)
    line = t.host.events.index(event) + 1
    assert not report.ok and report.line == line, (report.summary, line)
    assert match in report.reason and report.seat is None, report.summary


def _table(host_cls, seed, rules=None, players=3):
    return make_table(rules or make_rules(), players, randbytes=det_randbytes(seed), strict=False,
                      host_cls=host_cls)


# ---------------------------------------------------------------- a card dealt to the wrong seat
class MisDealingHost(TableHost):
    """Deals one drawn card, sealed and signed, to the seat after the one the rules say draws
    it; its own engine carries on as if the drawer had it."""

    lied: int | None = None

    def deal(self, seat: int, position: int) -> None:
        if self.round is not None and self.round.discard and self.lied is None:
            self.lied = position
            seat = (seat + 1) % self.players
        super().deal(seat, position)


def test_a_card_dealt_to_the_wrong_seat_is_caught_at_its_draw():
    t = _table(MisDealingHost, "misdeal")
    t.start_round().start()
    bots = [make_bot("heuristic", f"m/{s}") for s in range(3)]
    assert _play_until(t, bots, lambda: t.host.lied is not None)
    deal = next(e for e in t.host.events if e.EV == "deal" and e.position == t.host.lied)
    # the lying deal is one event of the draw's batch; the batch's game record is where the
    # rules say who drew: refused there, before any event of the next action
    record = next(e for e in t.host.events[t.host.events.index(deal):] if e.EV == "game")
    _caught_at(t, record, f"deals position {t.host.lied} to seat")
    _caught_offline(t, record, f"deals position {t.host.lied} to seat")


# ---------------------------------------------------------------- challenges against the rules
def _w4_on_the_table(host_cls, prefix, tries=40):
    """A 3-seat table of `host_cls` where a Wild Draw Four was just played (bluffing bots)."""
    for k in range(tries):
        t = _table(host_cls, f"{prefix}-{k}", players=3)
        t.start_round().start()
        bots = [BluffBot(f"{prefix}-{k}/{s}") for s in range(3)]
        if _play_until(t, bots, lambda: t.host.round.phase.value == "challenge"):
            return t
    pytest.fail("no Wild Draw Four played")


class TrustingHost(TableHost):
    """A cheating host's engine takes the fair record's verdict without checking the challenge."""

    def challenge(self, challenger, challenged, colour, positions):
        return bool(self.dealer.ledger.challenges[-1].guilty)


class WrongColourHost(TrustingHost):
    """Names another colour than the one in force before the Wild Draw Four in its signed
    `challenge` (so the evidence is judged on it); its own engine takes the verdict unchecked."""

    def _start_challenge(self, seat, act, action):
        real = self.dealer.challenge
        self.dealer.challenge = lambda a, b, colour: real(a, b, next(c for c in "RYGB" if c != colour))
        try:
            super()._start_challenge(seat, act, action)
        finally:
            del self.dealer.challenge


def test_a_challenge_judged_on_the_wrong_colour_is_caught_at_the_challenge():
    t = _w4_on_the_table(WrongColourHost, "colour")
    t.act(Challenge(t.host.round.turn))
    ev = next(e for e in t.host.events if e.EV == "challenge")
    _caught_at(t, ev, "challenge: judged on colour")
    _caught_offline(t, ev, "challenge: judged on colour")


class _AnyoneMayChallenge:
    """The host's round, except that every seat may do what the next player may."""

    def __init__(self, rnd):
        self._rnd = rnd

    def legal_actions(self, seat):
        return self._rnd.legal_actions(self._rnd.turn)

    def __getattr__(self, name):
        return getattr(self._rnd, name)


class AnyChallengerHost(TrustingHost):
    """Accepts a challenge from a seat that is not the next player (a colluder who signs it)."""

    def _start_challenge(self, seat, act, action):
        rnd = self.round
        self.round = _AnyoneMayChallenge(rnd)  # the legality check asks about the next player
        try:
            super()._start_challenge(seat, act, action)
        finally:
            self.round = rnd


def test_a_challenge_by_a_seat_that_is_not_the_next_player_is_caught_at_the_challenge():
    """Issue 11, class 7: the live challenge check verifies that the challenger is the next player."""
    t = _w4_on_the_table(AnyChallengerHost, "anyone")
    rnd = t.host.round
    other = next(s for s in range(3) if s not in (rnd.turn, rnd.wild_four.seat))
    t.send(other, t.seats[other].act(action_json(rnd, Challenge(other))))  # signed by the colluder itself
    t.pump()
    ev = next(e for e in t.host.events if e.EV == "challenge")
    assert ev.challenger == other
    _caught_at(t, ev, f"challenge: seat {other} may not challenge now by the rules (seat {rnd.turn} is the next")
    _caught_offline(t, ev, f"challenge: seat {other} may not challenge now")


class TimeoutInnocentHost(TableHost):
    """Calls the challenged seat's answer a timeout (guilty, by the fair record) and then
    applies the challenge in its engine as innocent: the dispute-timeout verdict ignored."""

    def challenge(self, challenger, challenged, colour, positions):
        ch = self.dealer.ledger.challenges[-1]
        return False if ch.timed_out else bool(ch.guilty)


def test_a_timeout_verdict_the_record_does_not_follow_is_caught_at_the_challenges_record():
    t = _w4_on_the_table(TimeoutInnocentHost, "timeout")
    nxt = t.host.round.turn
    challenged = t.host.round.wild_four.seat
    # the challenged seat's answer is never sent: the host's deadline passes (a timeout: guilty)
    t.send(nxt, t.seats[nxt].act(action_json(t.host.round, Challenge(nxt))))
    t.broadcast(t.host.timeout(challenged, "answer-challenge"))
    record = next(e for e in t.host.events if e.EV == "game" and e.data.get("a", {}).get("t") == "challenge")
    # the guilty seat draws by the fair verdict; the record has the challenger draw
    why = (f"the rules engine deals position {record_deal(t, record)} to seat {challenged}, but the record deals "
           f"it to seat {nxt}")
    _caught_at(t, record, why)
    _caught_offline(t, record, why)


def record_deal(t, record):
    """The first position dealt in the challenge's batch (after the timeout, before its record)."""
    ev = t.host.events
    timeout = max(i for i, e in enumerate(ev) if e.EV == "challenge-timeout")
    return next(e.position for e in ev[timeout:ev.index(record)] if e.EV == "deal")


# ---------------------------------------------------------------- a reshuffle that kept the wrong card
def test_a_reshuffle_that_keeps_another_card_than_the_top_is_caught_at_its_seed_commit():
    """The discard pile is reshuffled minus its top card; a host that keeps another card back
    (one it wants on top) is refused at the reshuffle's own `seed-commit`, by everyone."""
    from .helpers import assert_audit_fails, started

    t = started(2, seed="keep-wrong", strict=False)
    top = t.turn_up()
    while t.dealer.next_position() is not None:
        t.draw(0)
    played = sorted(t.hand(0))[:3]
    for j in played:
        t.play(0, j)
    # the rules keep the top card (the last one played); the cheat keeps the turned-up card back
    lie = t.dealer._seed_commit(tuple(sorted(played)), None)
    t.publish([lie])
    why = f"it keeps position [{top}] instead of the top"
    assert len(t.violations) == 3, t.violations  # both seats and the observer, on that event
    for who, exc in t.violations:
        assert why in exc.reason and exc.seat is None and exc.line is None, (who, exc)
    assert_audit_fails(t.lines, line=len(t.lines), match=why, signer=t.host_identity)


# ---------------------------------------------------------------- a hidden hand's legality
class MustPlayIgnorer(TableHost):
    """Under must-play-wd4, accepts a colluder's draw although it holds a playable Wild Draw
    Four (its engine's rule switched off for that one action)."""

    lied: int | None = None

    def _apply(self, action, act):
        from unonet.engine import Draw

        rnd = self.round
        if type(action) is Draw and self.lied is None and act is not None and rnd._holds_wd4(action.seat):
            rnd._must_wd4 = False
            try:
                super()._apply(action, act)
            finally:
                rnd._must_wd4 = True
            self.lied = action.seat
            return
        super()._apply(action, act)


def test_an_illegal_action_only_the_hidden_hand_shows_is_caught_when_the_hand_opens():
    """Nobody but the colluder sees its hand when it draws holding a Wild Draw Four it must play:
    the others' copies find the draw legal for some hand it could hold, note that a hidden hand
    decided, and replay the round with the true cards when they are known, at `round-end`,
    before co-signing; the audit names the draw's own line."""
    from unonet.engine import Draw

    rules = make_rules("official", {"must-play-wd4"})
    for k in range(60):
        t = _table(MustPlayIgnorer, f"must-wd4-{k}", rules=rules, players=3)
        t.start_round().start()
        bots = [make_bot("heuristic", f"w/{s}") for s in range(3)]
        rnd = t.host.round
        if not _play_until(t, bots, lambda: rnd.phase.value == "play" and not rnd.pending and rnd._holds_wd4(rnd.turn),
                           limit=200):
            continue
        cheat = rnd.turn
        t.act(Draw(cheat))
        assert t.host.lied == cheat
        record = t.host.events[-1]
        assert record.EV == "game" and record.data["a"] == {"t": "draw", "seat": cheat}
        honest = [p for p in t.everyone if p.seat != cheat]
        if any(p.violation is not None for p in honest):
            continue  # this hand could not have drawn whatever its cards: refused at once (another test)
        assert all(p.copy.unsure for p in honest)
        while not t.host.finished:  # the round goes on; the colluder's own seat refused it at once
            o = t.host.owed()[0]
            if o.kind != "act":
                break
            seat = o.seat
            t.act(bots[seat].act(t.round, seat))
        if not t.host.finished:
            continue
        end = next(e for e in t.host.events if e.EV == "round-end")
        for p in honest:
            assert p.violation_event is end, (p.seat, p.violation_event)
            assert "must-play-wd4" in p.violation.reason and p.violation.seat is None, p.violation
        report = audit_transcript(t.lines)
        assert not report.ok and report.line == t.host.events.index(record) + 1, report.summary
        assert "must-play-wd4" in report.reason
        return
    pytest.fail("no seat to move with a playable Wild Draw Four")
