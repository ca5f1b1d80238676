"""The challenger's verdict clock (spec §6.4 step 3): a challenger that gives no verdict (nor
dispute) after the response loses its challenge by the host's `verdict-timeout`, as if it had
judged the challenged seat innocent, and the round goes on; a challenger that sent its verdict
or dispute refuses that timeout (the host withheld its word), and nobody else can tell; a
verdict-timeout while no verdict is owed is the host's lie at every verifier and in the audit.

Before this rule a silent challenger (dead, dropped, or a cheater staying quiet) stalled the
table for ever: the host had no timeout for a missed `judge-challenge`."""

from __future__ import annotations

import pytest

from unonet.engine import Challenge
from unonet.fair import FairPlayViolation, FairStateError, audit
from unonet.table import Refusal, TableHost, audit_transcript
from unonet.table._host import Owed
from unonet.table._round import action_json

from .helpers import DECKS, signed_response, w4_table
from .test_live_replay import _caught_at, _caught_offline, _w4_on_the_table
from ..table.helpers import BluffBot


# ---------------------------------------------------------------- the fair layer (sans IO)
def _answered(guilty: bool):
    """Seat 0 played a W+4, seat 1 challenged it on G, seat 0 answered: seat 1 owes its verdict."""
    t, w4 = w4_table(guilty=guilty, strict=False)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    assert t.verifiers[1].pending_action == "judge-challenge"
    return t


@pytest.mark.parametrize("guilty", [False, True])
def test_a_silent_challenger_loses_by_a_verdict_timeout_and_nobody_is_blamed(guilty):
    t = _answered(guilty)
    t.publish([t.dealer.verdict_timeout()])
    ev = t.events[-1]
    assert ev.EV == "verdict-timeout" and (ev.challenger, ev.challenged) == (1, 0)
    for v in t.everyone:
        ch = v.ledger.challenges[-1]
        assert ch.guilty is False and ch.verdict_timed_out and v.ledger.challenge is None
        assert v.pending_action is None
    assert t.violations == []
    t.finish()
    assert t.violations == []
    report = audit(t.lines, decks=DECKS)
    assert report.ok, report.summary
    # a guilty seat that won by its challenger's silence is a fact worth a look, not a cheat
    flagged = [f for f in report.flags if "lost its challenge of seat 0 by a verdict timeout" in f]
    assert bool(flagged) == guilty, report.flags


def test_a_verdict_after_its_timeout_is_refused_stale_not_a_cheat():
    t = _answered(True)
    verdict = t.verifiers[1].judge_challenge()  # on its way ... while the host's clock runs out
    timeout = t.dealer.verdict_timeout()
    with pytest.raises(FairStateError, match="stale"):
        t.dealer.accept(verdict, 1)
    # the challenger, which sent it, refuses the timeout (the residual of every clock: only a
    # verdict in flight longer than the clock makes an honest host look like it withheld it)
    t.publish([timeout])
    assert [who for who, _ in t.violations] == ["seat 1"]
    assert t.violations[0][1].seat is None


@pytest.mark.parametrize("word", ["verdict", "dispute"])
def test_a_challenger_that_sent_its_word_refuses_a_verdict_timeout_naming_the_host(word):
    """Only the challenger knows it spoke: it alone refuses; the others and the audit see an
    ordinary timeout (and nobody blames the challenger)."""
    t = _answered(True)
    v1 = t.verifiers[1]
    if word == "dispute":
        v1._unopened[t.dealer.ledger.challenge.number] = "pretend"  # (it says the response does not open)
        v1.dispute_challenge()
    else:
        v1.judge_challenge()
    # the host swallows it and calls the challenger silent
    t.publish([t.dealer.verdict_timeout()])
    assert [who for who, _ in t.violations] == ["seat 1"]
    exc = t.violations[0][1]
    assert exc.seat is None and f"though seat 1 sent its challenge {word}" in exc.reason, exc.reason
    assert all(v.ledger.challenges[-1].verdict_timed_out for k, v in enumerate(t.everyone) if k != 1)


def _wrong_time(t, ev):
    t.dealer.check_self = False
    t.publish([ev])
    return t.events[-1]


@pytest.mark.parametrize("when", ["before the response", "during a dispute", "after the verdict"])
def test_a_verdict_timeout_while_no_verdict_is_owed_is_the_hosts_lie_everywhere(when):
    from unonet.fair import VerdictTimeout

    t, w4 = w4_table(guilty=True, strict=False)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    if when != "before the response":
        good = t.verifiers[0].answer_challenge()
        if when == "during a dispute":
            garbage, _ = signed_response(t, sealed=bytes(len(good.sealed)))
            t.send(garbage, 0)
            t.send(t.verifiers[1].dispute_challenge(), 1)
        else:
            t.send(good, 0)
            t.send(t.verifiers[1].judge_challenge(), 1)
    ev = _wrong_time(t, VerdictTimeout(challenger=1, challenged=0))
    assert len(t.violations) == 3, t.violations  # both seats and the observer
    for who, exc in t.violations:
        assert exc.seat is None, (who, exc)
    reasons = {exc.reason for _, exc in t.violations if not exc.reason.startswith("the host times out")}
    want = {"before the response": "verdict timeout before seat 0 answered",
            "during a dispute": "verdict timeout during seat 1's dispute",
            "after the verdict": "verdict-timeout event not allowed in phase live"}[when]
    assert reasons and all(want in r for r in reasons), reasons
    report = audit(t.lines, decks=DECKS)
    assert not report.ok and report.line == len(t.lines) and report.seat is None and want in report.reason, \
        report.summary
    assert t.events[-1] is ev


# ---------------------------------------------------------------- the table (host, seats, observer)
def _challenged_table(host_cls, prefix: str, *, guilty: bool | None = None):
    """A 3-seat table where a Wild Draw Four was challenged and answered: the table waits for
    the challenger's verdict (`guilty`: only a table whose challenged hand is, or is not, guilty)."""
    for k in range(30):
        t = _w4_on_the_table(host_cls, f"{prefix}-{k}")
        rnd = t.host.round
        wf = rnd.wild_four
        if guilty is not None and any(c.color == wf.prev_color for c in wf.hand) != guilty:
            continue
        nxt, challenged = rnd.turn, wf.seat
        t.send(nxt, t.seats[nxt].act(action_json(rnd, Challenge(nxt))))
        (answer,) = t.seats[challenged].owed()
        t.send(challenged, answer)
        assert t.host.owed() == [Owed(nxt, "judge-challenge")]
        return t, nxt, challenged
    pytest.fail("no challenged Wild Draw Four")


def _play_out(t, seed: str, gone: int | None = None, limit: int = 3000) -> None:
    """The seats play on (bluffing bots; seat `gone` left: the host's turn timeouts play it)
    until the round ends and every co-sign that will come is in."""
    bots = [BluffBot(f"{seed}/{s}") for s in range(len(t.seats))]
    for _ in range(limit):
        rnd = t.host.round
        if rnd is None or rnd.over:
            break
        (o, *_) = t.host.owed()
        if o.seat == gone:
            t.broadcast(t.host.timeout(o.seat, o.kind))
        elif o.kind == "act":
            t.act(bots[o.seat].act(t.round, o.seat))
        else:
            t.pump()
    t.pump()
    assert t.host.finished and t.host.round.over


def test_a_silent_challenger_at_the_table_loses_and_the_round_and_its_audit_go_on():
    t, nxt, challenged = _challenged_table(TableHost, "silent-judge")
    held = len(t.host.round.hands[nxt])
    out = t.host.timeout(nxt, "judge-challenge")  # it never judges (gone, or silent)
    t.broadcast(out)
    assert [e.EV for e in out][0] == "verdict-timeout"
    record = next(e for e in out if e.EV == "game")
    assert record.data["a"]["t"] == "challenge"
    # the failed challenge: the challenger draws the four and two more, and is skipped
    dealt = [e for e in out if e.EV == "deal" and e.seat == nxt]
    assert len(dealt) == 6 and len(t.host.round.hands[nxt]) == held + 6
    assert all(p.violation is None for p in t.everyone) and not t.violations
    for p in t.everyone:
        ch = p.verifier.ledger.challenges[-1]
        assert ch.guilty is False and ch.verdict_timed_out
    with pytest.raises(Refusal) as late:
        t.host.timeout(nxt, "judge-challenge")  # no verdict owed any more
    assert late.value.code == "stale"
    _play_out(t, "silent-judge")
    assert all(p.violation is None for p in t.everyone) and not t.violations
    report = audit_transcript(t.lines)
    assert report.ok and report.seat is None, report.summary


def test_a_late_verdict_at_the_table_is_refused_stale():
    t, nxt, challenged = _challenged_table(TableHost, "late-judge")
    (verdict,) = t.seats[nxt].owed()  # made, and slow on the wire
    t.host.timeout(nxt, "judge-challenge")
    with pytest.raises(Refusal) as late:
        t.host.receive(nxt, verdict)
    assert late.value.code == "stale" and "stale" in late.value.reason


class VerdictSwallower(TableHost):
    """Takes the challenger's guilty verdict off the wire, never relays it, and calls the
    challenger silent when its clock runs out: the challenge fails, the challenged seat (the
    host's friend) escapes its penalty."""

    swallowed = None

    def receive(self, seat, event):
        if event.EV == "challenge-verdict" and event.guilty:
            self.swallowed = event
            return []
        return super().receive(seat, event)


def test_a_host_that_swallows_a_guilty_verdict_and_times_it_out_is_refused_by_the_challenger_alone():
    t, nxt, challenged = _challenged_table(VerdictSwallower, "swallow-verdict", guilty=True)
    (verdict,) = t.seats[nxt].owed()
    assert verdict.EV == "challenge-verdict" and verdict.guilty
    assert t.send(nxt, verdict) == []  # the challenger sends its verdict ...
    assert t.host.swallowed is not None and t.host.owed() == [Owed(nxt, "judge-challenge")]
    out = t.host.timeout(nxt, "judge-challenge")  # ... and the host calls it silent
    t.broadcast(out)
    timeout = next(e for e in out if e.EV == "verdict-timeout")
    v = t.seats[nxt].violation
    assert v is not None and v.seat is None and t.seats[nxt].violation_event is timeout
    assert f"though seat {nxt} sent its challenge verdict" in v.reason, v.reason
    assert all(p.violation is None for p in t.everyone if p.seat != nxt)
    # the others and the audit see an ordinary timeout; the round's end flags it (the cards say
    # the challenge would have won), blaming nobody
    _play_out(t, "swallow-verdict", gone=nxt)
    assert all(p.violation is None for p in t.everyone if p.seat != nxt)
    report = audit_transcript(t.lines)
    assert report.ok and report.seat is None, report.summary
    assert any(f"seat {nxt} lost its challenge of seat {challenged} by a verdict timeout" in f
               for f in report.flags), report.flags


class EarlyVerdictTimeout(TableHost):
    """Calls the challenger silent before the challenged seat has even answered."""

    def _start_challenge(self, seat, act, action):
        super()._start_challenge(seat, act, action)
        self.dealer.check_self = False
        self._publish([self.dealer.verdict_timeout()])
        self.dealer.check_self = True


def test_a_verdict_timeout_before_the_response_convicts_the_host_at_every_table_verifier():
    t = _w4_on_the_table(EarlyVerdictTimeout, "early-verdict")
    rnd = t.host.round
    nxt = rnd.turn
    try:
        t.send(nxt, t.seats[nxt].act(action_json(rnd, Challenge(nxt))))
    except FairPlayViolation:
        pass
    ev = next(e for e in t.host.events if e.EV == "verdict-timeout")
    why = f"verdict timeout before seat {ev.challenged} answered"
    _caught_at(t, ev, why)
    _caught_offline(t, ev, why)


def test_a_challenger_dropped_for_a_false_innocent_verdict_loses_by_the_clock_and_nobody_else_is_blamed():
    """Since the host refuses a false innocent verdict (the challenger's lie, on its own link:
    `FairDealer._check_innocent`) and drops its sender, that challenger is gone with its
    verdict owed: its clock runs out like a silent one's, and the round goes on."""
    from unonet.fair import ChallengeVerdict
    from unonet.fair._seatsig import sign_seat_event

    t, nxt, challenged = _challenged_table(TableHost, "false-innocent", guilty=True)
    liar = t.seats[nxt]
    lg = liar.verifier.ledger
    lie = sign_seat_event(liar.identity, lg.table, lg.round_no, lg.start_digest,
                          ChallengeVerdict(challenger=nxt, challenged=challenged, guilty=False))
    with pytest.raises(FairPlayViolation) as caught:
        t.host.receive(nxt, lie)
    assert caught.value.seat == nxt and "a false verdict" in caught.value.reason
    assert t.host.owed() == [Owed(nxt, "judge-challenge")]  # (the net layer drops the seat: held, then timed out)
    t.broadcast(t.host.timeout(nxt, "judge-challenge"))
    _play_out(t, "false-innocent", gone=nxt)
    assert all(p.violation is None for p in t.everyone) and not t.violations
    report = audit_transcript(t.lines)
    assert report.ok and report.seat is None, report.summary


def test_a_verdict_from_another_challenge_replayed_by_the_host_convicts_it_everywhere():
    """The challenger's verdict names the challenge it judges (`number`): its word from another
    challenge between the same two seats (an innocent verdict is otherwise the same signed bytes
    every time) cannot be passed off for this one; the host that relays it is convicted at every
    verifier, the challenger never blamed."""
    from unonet.fair import ChallengeVerdict, sign_seat_event

    t = _answered(False)
    v1 = t.verifiers[1]
    lg = v1.ledger
    ch = lg.challenge
    assert v1.judge_challenge().number == ch.number  # (what seat 1 signs now names its challenge)
    # seat 1's own signed word, made in another challenge of this round (number 5 here): the same
    # innocent verdict but for its number, which the host relays instead of the one just sent
    old = sign_seat_event(v1.identity, lg.table, lg.round_no, lg.start_digest,
                          ChallengeVerdict(challenger=1, challenged=0, guilty=False, number=ch.number + 5))
    v1._made.add(old.canonical())  # (seat 1 did sign it, then)
    t.dealer.check_self = False
    t.publish([old])
    assert {who for who, _ in t.violations} == {f"seat {k}" for k in range(len(t.verifiers))} | \
        ({"observer"} if len(t.everyone) > len(t.verifiers) else set()), t.violations
    for _, exc in t.violations:
        assert exc.seat is None and "replayed" in exc.reason, exc.reason
