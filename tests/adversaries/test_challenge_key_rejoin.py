"""A challenged seat that comes back through a rejoin after answering can still prove its
answer (redhost19).

The challenged seat seals its hand to the challenger under a fresh ephemeral key and keeps
that key: if the challenger disputes the response, the seat discloses the key and everyone
opens it (a response that stands costs the challenger the challenge, spec §6.6).  The key was
drawn at random and kept in memory only, so a seat rebuilt from the host's replay (a rejoin:
a crash, or a link lost and the seat made anew, spec §7) no longer had it: it owed nothing
when the dispute came, the host's clock timed it out, and a timeout is *guilty*.  A cheating
challenger (relayed by an honest host) that saw the honest seat drop after answering could
then dispute a response that opened perfectly well: the honest seat drew the penalty, and
the false dispute -- which the key would have exposed, flagging the challenger -- was never
shown.  Now a seat whose secrets come from its key (`secrets_from_key`, as every net seat)
derives the ephemeral from its signing key too (`challenge_secret_from_key`), and a rebuilt
seat finds it again on reading its own response in the replay."""

from __future__ import annotations

from unonet.fair import ChallengeDispute, FairVerifier, audit

from .helpers import DECKS, w4_table


def _answered_then_rebuilt():
    """Seat 0 played a W+4 holding no card of the colour (innocent), seat 1 challenged, seat 0
    answered; then seat 0 is rebuilt from the record (its process is new)."""
    t, w4 = w4_table(guilty=False)
    for v in t.verifiers:
        v.secrets_from_key = True  # (as every net seat: `SeatGame`)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    back = FairVerifier(seat=0, identity=t.identities[0], host=t.host_identity.public, randbytes=t.randbytes,
                        decks=DECKS)
    back.secrets_from_key = True
    back.recovering = True
    for e in t.events:
        back.receive(e)
    back.recovering = False
    t.verifiers[0] = back
    return t


def test_a_false_dispute_of_a_rebuilt_seats_response_still_costs_the_challenger_the_challenge():
    t = _answered_then_rebuilt()
    # the challenger lies: the response opened for it; it disputes it, signed with its own key
    liar = t.verifiers[1]
    t.send(liar._signed(ChallengeDispute(challenger=1, challenged=0, seen=liar.ledger.digest,
                                         number=liar.ledger.challenge.number)), 1)
    back = t.verifiers[0]
    assert back.pending_action == "disclose-key", back.pending_action
    t.send(back.disclose_challenge_key(), 0)
    for v in t.everyone:
        ch = v.ledger.challenges[-1]
        assert ch.guilty is False and not ch.timed_out, ch.resolution
        assert v.ledger.false_claims == {1: 1}
    t.finish()
    report = audit(t.lines, decks=DECKS)
    assert report.ok and any("seat 1 disputed seat 0's challenge response" in f for f in report.flags), report.summary


def test_the_ephemeral_from_the_key_is_the_one_the_response_was_sealed_under():
    """The rebuilt seat takes the derived key only if it is the one its response was sealed
    under (a response it sealed under a drawn key, before, owes nothing: no false disclosure)."""
    t, w4 = w4_table(guilty=False)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)  # a drawn ephemeral (secrets_from_key off)
    back = FairVerifier(seat=0, identity=t.identities[0], host=t.host_identity.public, randbytes=t.randbytes,
                        decks=DECKS)
    back.secrets_from_key = True
    back.recovering = True
    for e in t.events:
        back.receive(e)
    back.recovering = False
    liar = t.verifiers[1]
    t.send(liar._signed(ChallengeDispute(challenger=1, challenged=0, seen=liar.ledger.digest,
                                         number=liar.ledger.challenge.number)), 1)
    assert back.pending_action is None
