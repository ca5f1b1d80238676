"""A cheating seat that tries to get the honest host convicted (frame6).

An innocent Wild Draw Four verdict carries no proof: nobody but the challenger (who saw the
challenged hand) can check it before the round's end opens every hand, and then the false
verdict convicts the host that relayed it (a host passes on only checked seat messages).
So the host, which knows every hand at level A, must check it on the challenger's own link:
a challenger that declares a guilty seat innocent (paying the draw itself, to break the
table and blame the host) is refused, blamed, and its verdict never reaches anyone."""

from __future__ import annotations

import pytest

from unonet.fair import ChallengeVerdict, FairPlayViolation

from .helpers import w4_table


def _challenged(guilty: bool):
    t, w4 = w4_table(guilty=guilty)
    t.strict = False
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    return t


def test_a_challenger_that_declares_a_guilty_seat_innocent_is_refused_and_blamed_by_the_host():
    t = _challenged(guilty=True)
    before = len(t.events)
    lie = t.verifiers[1]._signed(ChallengeVerdict(challenger=1, challenged=0, guilty=False, proof=None))
    with pytest.raises(FairPlayViolation, match="says seat 0 is innocent.*a false verdict") as ei:
        t.send(lie, 1)
    assert ei.value.seat == 1, ei.value.party
    assert len(t.events) == before and not t.violations  # nothing relayed, nobody else misled
    assert t.dealer.ledger.challenge is not None and t.dealer.ledger.phase.value == "challenge"
    # the challenger's true verdict is still taken (its seat, or the stand-in that judges for it)
    t.send(t.verifiers[1].judge_challenge(), 1)
    assert t.dealer.ledger.challenges[-1].guilty is True and not t.violations


def test_a_true_innocent_verdict_is_taken():
    t = _challenged(guilty=False)
    verdict = t.verifiers[1].judge_challenge()
    assert verdict.guilty is False
    t.send(verdict, 1)
    assert t.dealer.ledger.challenges[-1].guilty is False and not t.violations
    t.finish()
    assert not t.violations
