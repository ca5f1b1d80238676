"""Cheating hosts: each attack must be caught live by a verifier and/or by the offline audit."""

import dataclasses

import pytest

from unonet.fair import (
    Card, ChallengeVerdict, Commitments, Deal, FairDealer, FairPlayViolation, PlayerCommit, RoundEnd, RoundStart,
    SeedReveal, classic_deck,
)
from unonet.fair._seed import host_seed_commit

from .helpers import (
    DECKS, assert_audit_fails, line_of, resign_commitments, round_end_sig, seal_deal, started, table, w4_table,
)


def test_host_changes_r_h_after_commit():
    """Shuffling with a secret other than the committed one (to pick a deck) shows at reveal."""

    class BiasingHost(FairDealer):
        check_self = False

        def _shuffle_if_ready(self):
            if self.ledger.phase.value == "shuffling":
                self._secrets[-1] = b"\x42" * 32  # ground out after seeing the players' r_i
            return super()._shuffle_if_ready()

    t = table(seed="bias-rh", dealer_cls=BiasingHost)
    t.start()
    t.deal_hands()
    with pytest.raises(FairPlayViolation, match="revealed r_h does not match the host.s commitment for epoch 0") as ei:
        t.publish(t.dealer.finish())
    assert ei.value.seat is None  # the host is blamed
    assert_audit_fails(t.lines, line=len(t.lines), match="does not match the host's commitment for epoch 0 (changed after commit)", signer=t.host_identity)


def test_player_changes_r_i_after_commit():
    t = table(seed="bias-ri")
    t.publish(t.dealer.start())
    for v in t.verifiers:
        t.send(v.commit_seed(), v.seat)
    cheat = dataclasses.replace(t.verifiers[1].reveal_seed(), secret=b"\x07" * 32)
    with pytest.raises(FairPlayViolation, match="seat 1 does not match its commitment") as ei:
        t.dealer.accept(cheat, 1)  # the host refuses it ...
    assert ei.value.seat == 1
    with pytest.raises(FairPlayViolation, match="seat 1 does not match its commitment"):
        t.publish([cheat])  # ... and so does every peer if a colluding host relays it
    assert_audit_fails(t.lines, line=len(t.lines), match="seed contribution of seat 1 does not match", signer=t.host_identity)


def test_reordered_deck():
    """A host that stacks the deck (here: wilds first) keeps every opening consistent, until r_h opens."""

    class StackingHost(FairDealer):
        check_self = False

        def _order(self, cards, seed):
            return sorted(super()._order(cards, seed), key=lambda c: not c.secret.startswith("W"))

    t = table(seed="stack", dealer_cls=StackingHost, strict=False)
    t.start()
    t.deal_hands()
    assert t.verifiers[0].card(0).secret.startswith("W")
    t.play(0, min(t.hand(0)))
    assert not t.violations  # plays and deals all check out against the (dishonest) commitments
    t.finish()
    assert len(t.violations) == 4 and all("position 0 does not match the deck" in str(e) for _, e in t.violations)
    commit_line = line_of(t, lambda e: isinstance(e, Commitments))
    assert_audit_fails(t.lines, line=commit_line, match="does not match the deck recomputed from the seed", unproven=False)


def test_reordered_deck_is_caught_live_at_round_end():
    class StackingHost(FairDealer):
        check_self = False

        def _order(self, cards, seed):
            return list(reversed(super()._order(cards, seed)))

    t = table(seed="stack-live", dealer_cls=StackingHost)
    t.start()
    t.deal_hands()
    with pytest.raises(FairPlayViolation, match="commitment of position 0 does not match the deck"):
        t.publish(t.dealer.finish())


def test_commitments_that_do_not_match_the_deck():
    t = table(seed="badcommit", strict=False)

    def tamper(ev):
        if isinstance(ev, Commitments):
            fake = list(ev.commitments)
            fake[2] = bytes(32)  # position 2 committed to nothing in particular
            return resign_commitments(t, ev, fake)
        return ev

    t.tamper = tamper
    t.start()
    t.deal_hands(1)  # position 2 goes to seat 2, who checks it on arrival
    assert [who for who, _ in t.violations] == ["seat 2"]
    assert "deal of position 2 (to seat 2) opens to" in str(t.violations[0][1])
    t.tamper = None
    t.finish()
    report_line = next(i for i, e in enumerate(t.events, 1) if getattr(e, "EV", "") == "reveal" and e.seat == 2)
    assert_audit_fails(t.lines, line=report_line, match="reveal of position 2 (seat 2) opens to", signer=t.host_identity)


def test_dealing_a_position_twice():
    t = started(seed="twice")
    first = next(e for e in t.events if isinstance(e, Deal))
    again = Deal(position=first.position, seat=1, sealed=seal_deal(t, t.dealer.opening(first.position), 1,
                                                                   t.identities[1].public.dh_key))
    with pytest.raises(FairPlayViolation, match="position 0 was already dealt to seat 0") as ei:
        t.publish([again])
    assert ei.value.position == 0 and ei.value.seat is None
    assert_audit_fails(t.lines, line=len(t.lines), match="already dealt to seat 0", signer=t.host_identity)


def test_dealing_out_of_order():
    t = started(seed="order")
    skip = t.dealer.next_position() + 1  # keep a good card back for later
    ev = Deal(position=skip, seat=0, sealed=seal_deal(t, t.dealer.opening(skip), 0, t.identities[0].public.dh_key))
    with pytest.raises(FairPlayViolation, match=f"position {skip} dealt out of order \\(next undealt position is {skip - 1}\\)"):
        t.publish([ev])
    assert_audit_fails(t.lines, line=len(t.lines), match="out of order", signer=t.host_identity)


def test_a_different_deck_declared():
    deck = list(classic_deck())
    deck[0] = Card("W+4")  # a fifth Wild Draw Four instead of R0
    t = table(seed="deck")

    def tamper(ev):
        return dataclasses.replace(ev, deck=tuple(deck)) if isinstance(ev, RoundStart) else ev

    t.tamper = tamper
    with pytest.raises(FairPlayViolation, match="deck is not the 'classic' deck"):
        t.start()
    assert_audit_fails(t.lines, line=1, match="first difference at index 0", signer=t.host_identity)


def test_a_different_deck_shuffled_behind_a_correct_declaration():
    class SubstitutingHost(FairDealer):
        check_self = False

        def _order(self, cards, seed):
            out = super()._order(cards, seed)
            return [Card("W+4") if c.secret == "R0" else c for c in out]

    t = table(seed="subst", dealer_cls=SubstitutingHost, strict=False)
    t.play_simple_round()
    assert len(t.violations) == 4
    assert_audit_fails(t.lines, line=line_of(t, lambda e: isinstance(e, Commitments)),
                       match="reordered or substituted deck", unproven=False)


def test_host_alters_a_played_card():
    t = started(seed="alter")
    j = min(t.verifiers[0].hand)
    real = t.verifiers[0].play(j)
    forged = dataclasses.replace(real, opening=dataclasses.replace(real.opening, card=Card("W+4")))
    t.dealer.accept(real, 0)
    with pytest.raises(FairPlayViolation, match="the host published an act in seat 0's name that seat 0 never made"):
        t.publish([forged])  # seat 0 hears it first: not its word
    t.strict = False
    t.publish([forged])
    assert all("is not signed by seat 0" in str(exc) for _, exc in t.violations[1:]) and len(t.violations) == 4
    assert_audit_fails(t.lines, line=len(t.lines) - 1, match="act 0 of seat 0 is not signed by seat 0", signer=t.host_identity)


def test_host_lies_that_a_challenge_was_innocent():
    t, w4 = w4_table(guilty=True)
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    honest = t.verifiers[1].judge_challenge()
    assert honest.guilty
    # the challenger colludes with the host: it signs the false verdict with its own key
    lie = t.verifiers[1]._signed(ChallengeVerdict(challenger=1, challenged=0, guilty=False, proof=None))
    # the colluding host records it without the check an honest host makes of an innocent
    # verdict against the hand it dealt (FairDealer.accept refuses it, blaming the challenger)
    t.dealer.ledger.apply(lie, sender=1)
    t.strict = False
    t.publish([lie])
    assert [who for who, _ in t.violations] == ["seat 1"]  # the challenger sees the lie at once
    assert "published verdict says innocent" in str(t.violations[0][1])
    t.dealer.check_self = False
    t.publish(t.dealer.finish())  # everybody else finds it when the hands and r_h open
    verdict_line = line_of(t, lambda e: isinstance(e, ChallengeVerdict))
    r = assert_audit_fails(t.lines, line=verdict_line, match="innocent verdict is false: seat 0 held position",
                           decks=DECKS, unproven=False)
    assert "of colour G" in r.reason


def test_host_lies_that_a_challenge_was_guilty():
    t, w4 = w4_table(guilty=False)
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    some = min(t.dealer.hand(0))
    lie = t.verifiers[1]._signed(ChallengeVerdict(challenger=1, challenged=0, guilty=True,
                                                  proof=t.dealer.opening(some)))
    with pytest.raises(FairPlayViolation, match="is not of colour G"):
        t.publish([lie])
    assert_audit_fails(t.lines, line=len(t.lines), match="guilty verdict's proof", decks=DECKS, signer=t.host_identity)
    no_proof = t.verifiers[1]._signed(dataclasses.replace(lie, proof=None, sig=b""))
    with pytest.raises(FairPlayViolation, match="guilty verdict without a proof"):
        t2, w = w4_table(guilty=False)
        t2.play(0, w)
        t2.publish([t2.dealer.challenge(1, 0, "G")])
        t2.send(t2.verifiers[0].answer_challenge(), 0)
        t2.publish([no_proof])


def test_forged_signatures():
    # 1. commitment list signed by someone else
    t = table(seed="forge")
    t.tamper = lambda ev: dataclasses.replace(ev, sig=bytes(64)) if isinstance(ev, Commitments) else ev
    with pytest.raises(FairPlayViolation, match="host signature over the epoch 0 commitments does not verify"):
        t.start()
    assert_audit_fails(t.lines, line=len(t.lines), match="signature over the epoch 0 commitments", signer=t.host_identity)

    # 2. a player's seed commitment invented by the host
    t = table(seed="forge2")
    t.publish(t.dealer.start())
    real = t.verifiers[2].commit_seed()
    fake = dataclasses.replace(real, commit=bytes(32))
    with pytest.raises(FairPlayViolation, match="seed commitment of seat 2 has a bad signature"):
        t.publish([fake])

    # 3. the round-end signature
    t = started(seed="forge3")
    t.tamper = lambda ev: dataclasses.replace(ev, sig=bytes(64)) if isinstance(ev, RoundEnd) else ev
    with pytest.raises(FairPlayViolation, match="host signature over the round does not verify"):
        t.finish()
    assert_audit_fails(t.lines, line=len(t.lines), match="host signature over the round", unproven=True)


def test_opening_sealed_to_the_wrong_player():
    class LeakyHost(FairDealer):
        def deal(self, seat, *, public=True):
            ev = super().deal(seat, public=public)
            if seat == 1:  # seat 1's card is sealed so that seat 2 can read it
                wrong = self._start.seats[2].dh_key
                from unonet.fair._seal import deal_ad, seal
                from unonet.fair._shuffle import pad_openings

                blob = seal(pad_openings([self.opening(ev.position)], self.ledger.opening_size), recipient_dh=wrong,
                            ad=deal_ad(self.table, self.round_no, ev.position, seat, wrong), randbytes=self.randbytes)
                ev = dataclasses.replace(ev, sealed=blob)
            return ev

    t = table(seed="leak", dealer_cls=LeakyHost)
    t.start()
    with pytest.raises(FairPlayViolation, match="sealed opening of position 1 for seat 1 does not open for seat 1") as ei:
        t.deal_hands(1)
    assert ei.value.seat is None and ei.value.position == 1


def test_withheld_r_h():
    t = started(seed="withhold", strict=False)
    for s in range(3):
        t.publish([t.dealer.reveal(s)])
    # skip SeedReveal: sign and publish the end anyway
    t.publish([RoundEnd(digest=t.dealer.ledger.digest, sig=round_end_sig(t, t.dealer.ledger.digest))])
    assert t.violations and all("r_h was withheld for epoch(s) [0]" in str(e) for _, e in t.violations)
    assert_audit_fails(t.lines, line=len(t.lines), match="r_h was withheld", unproven=False)
    # a transcript that simply stops before the reveal is flagged too
    assert_audit_fails(t.lines[:-1], line=len(t.lines) - 1, match="r_h withheld for epoch(s) [0]", unproven=True)


def test_host_equivocates_on_a_player_commitment():
    """The host swaps a player's (signed) commitment for an older one: the player notices."""
    t = table(seed="equiv")
    t.publish(t.dealer.start())
    v = t.verifiers[0]
    mine = v.commit_seed()
    other = PlayerCommit(epoch=0, seat=0, commit=host_seed_commit(b"x", 1, 0, bytes(32)), sig=mine.sig)
    with pytest.raises(FairPlayViolation):
        t.publish([other])


def test_host_reveals_a_seed_for_the_wrong_epoch():
    t = started(seed="epoch")
    with pytest.raises(FairPlayViolation, match="seed reveal for epoch 1: the host reveals its round secret r_h once"):
        t.publish([SeedReveal(epoch=1, host_secret=bytes(32))])
