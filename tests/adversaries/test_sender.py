"""A seat speaks only for itself: the host checks the sender of every player message (demo4).

Before, `FairDealer.accept` trusted the seat named inside the event: a challenger, who saw
the challenged hand as evidence, could play that seat's cards or publish its hand, and the
challenged seat could file the challenger's verdict."""

import pytest

from unonet.fair import ChallengeVerdict, FairPlayViolation, Reveal

from .helpers import signed_play, started, w4_table


def _challenged_table():
    t, w4 = w4_table(guilty=False)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    return t


def test_the_challenged_seat_cannot_file_the_challengers_verdict():
    t = _challenged_table()
    with pytest.raises(FairPlayViolation, match="names seat 1 as the challenger, but seat 0 sent it") as ei:
        t.dealer.accept(ChallengeVerdict(challenger=1, challenged=0, guilty=False), 0)
    assert ei.value.seat == 0
    t.send(t.verifiers[1].judge_challenge(), 1)  # the challenger's own verdict goes through


def test_a_challenger_cannot_play_or_reveal_the_challenged_hand():
    t = _challenged_table()
    t.send(t.verifiers[1].judge_challenge(), 1)
    evidence = t.verifiers[1]._evidence
    shown = evidence[max(evidence)]
    o = next(x for x in shown if t.dealer.ledger.positions[x.position].holder == 0)
    with pytest.raises(FairPlayViolation, match="names seat 0 as its seat, but seat 1 sent it"):
        t.dealer.accept(signed_play(t, 1, o, seat=0), 1)
    with pytest.raises(FairPlayViolation, match="but seat 1 sent it"):
        t.dealer.accept(Reveal(seat=0, openings=(o,)), 1)
    assert t.dealer.ledger.positions[o.position].holder == 0


def test_a_seat_cannot_commit_or_answer_for_another():
    t = started(3, seed="sender")
    t.turn_up()
    j = min(t.verifiers[2].hand)
    act = t.verifiers[2].play(j)
    with pytest.raises(FairPlayViolation, match="but seat 1 sent it"):
        t.dealer.accept(act, 1)
    t.send(act, 2)  # from its own seat it is fine
