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

import pytest

from unonet.fair import ChallengeDispute, FairVerifier, audit
from unonet.fair.testing import det_randbytes

from .helpers import DECKS, w4_table


def _rebuilt_verifier(t) -> FairVerifier:
    """Seat 0 made anew (a new process, its secrets from its key) that read the record so far."""
    back = FairVerifier(seat=0, identity=t.identities[0], host=t.host_identity.public, randbytes=t.randbytes,
                        decks=DECKS)
    back.secrets_from_key = True
    back.recovering = True
    for e in t.events:
        back.receive(e)
    back.recovering = False
    return back


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
    back = _rebuilt_verifier(t)
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
    back = _rebuilt_verifier(t)
    liar = t.verifiers[1]
    t.send(liar._signed(ChallengeDispute(challenger=1, challenged=0, seen=liar.ledger.digest,
                                         number=liar.ledger.challenge.number)), 1)
    assert back.pending_action is None


def test_a_table_seat_back_from_a_rejoin_mid_challenge_discloses_its_key_and_the_liar_is_flagged():
    """The same through the table (`TableSeat`, as the net layer runs it: `secrets_from_key` set
    before it reads the replay): a W+4 is challenged, the challenged seat answers and is rebuilt
    from the host's record; the challenger disputes the answer falsely, signing its lie with its
    own key; the rebuilt seat owes the key, discloses it, and the challenge is the liar's loss."""
    from unonet.engine import Challenge
    from unonet.table import TableHost, audit_transcript
    from unonet.table._round import action_json

    from .test_live_replay import _w4_on_the_table
    from .test_withheld import _rebuilt

    t = _w4_on_the_table(TableHost, "key-rejoin")
    for s in t.seats:
        s.secrets_from_key = s.verifier.secrets_from_key = True  # (as `SeatGame` sets it)
    rnd = t.host.round
    nxt, challenged = rnd.turn, rnd.wild_four.seat
    t.send(nxt, t.seats[nxt].act(action_json(rnd, Challenge(nxt))))
    (answer,) = t.seats[challenged].owed()
    assert answer.EV == "challenge-response"
    t.send(challenged, answer)
    # the challenged seat's link is lost; its player comes back and reads the host's replay
    back = _rebuilt(t, challenged, secrets_from_key=True)
    t.seats[challenged] = back
    # the challenger's answer opened for it; it disputes it all the same
    liar = t.seats[nxt].verifier
    ch = liar.ledger.challenge
    t.send(nxt, liar._signed(ChallengeDispute(challenger=nxt, challenged=challenged, seen=liar.ledger.digest,
                                              number=ch.number)))
    owed = [m.EV for m in back.owed()]
    assert owed == ["challenge-key"], owed
    t.pump()
    assert not t.violations and all(p.violation is None for p in t.everyone)
    for p in t.everyone:
        c = p.verifier.ledger.challenges[-1]
        assert c.guilty is False and not c.timed_out and c.false_dispute, c.resolution
        assert p.verifier.ledger.false_claims == {nxt: 1}
    # the round played out (the rebuilt seat in its seat) and co-signed: the audit flags the liar
    from unonet.engine import make_bot

    from .test_live_replay import _play_until
    bots = [make_bot("heuristic", f"key-rejoin/{s}") for s in range(3)]
    assert _play_until(t, bots, lambda: t.host.round.over)
    t.pump()
    assert not t.violations and all(p.violation is None for p in t.everyone)
    report = audit_transcript(t.lines)
    assert report.ok, report.summary
    assert any(f"seat {nxt} disputed seat {challenged}'s challenge response" in f for f in report.flags), \
        report.summary


@pytest.mark.parametrize("moment", ["challenged", "answered", "disputed"])
def test_a_host_dying_mid_challenge_leaves_every_seat_the_same_continuation_and_accuses_nobody(moment):
    """Honest: the host dies with a challenge open (just made, answered, or answered and
    disputed by a lying challenger); the round is void, every seat carries on from the same
    record, the elected host deals again and nobody, the challenged seat included, is named."""
    from unonet.engine import Challenge, make_bot, play_round
    from unonet.fair import Identity
    from unonet.table import Continuation, LocalTable, TableHost, TableSeat
    from unonet.table._round import action_json

    from .test_live_replay import _w4_on_the_table

    t = _w4_on_the_table(TableHost, f"die-mid-challenge-{moment}")
    for s in t.seats:
        s.secrets_from_key = s.verifier.secrets_from_key = True
    rnd = t.host.round
    nxt, challenged = rnd.turn, rnd.wild_four.seat
    t.send(nxt, t.seats[nxt].act(action_json(rnd, Challenge(nxt))))
    if moment != "challenged":
        t.send(challenged, t.seats[challenged].owed()[0])
    if moment == "disputed":
        liar = t.seats[nxt].verifier
        t.send(nxt, liar._signed(ChallengeDispute(challenger=nxt, challenged=challenged, seen=liar.ledger.digest,
                                                  number=liar.ledger.challenge.number)))
    assert not t.violations and all(p.violation is None for p in t.everyone)
    own = [Continuation.of_seat(s) for s in t.seats]
    assert len(set(own)) == 1 and own[0].rounds == 0  # the round in play is void
    rb = det_randbytes(f"new-host-{moment}")
    new_id = Identity.generate(rb)
    ids = [s.identity for s in t.seats]
    host = TableHost(t.host.rules, 3, identity=new_id, seats=[i.public for i in ids], randbytes=rb,
                     continues=own[0])
    seats = [TableSeat(s, ids[s], new_id.public, randbytes=rb, continues=own[s]) for s in range(3)]
    new = LocalTable(host, seats, [TableSeat(None, None, new_id.public)], strict=True)
    r2 = new.start_round()
    play_round(r2, [make_bot("heuristic", f"n/{s}") for s in range(3)])
    new.pump()
    assert not new.violations and all(p.violation is None for p in new.everyone)
