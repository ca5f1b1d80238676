"""Deal disputes end in a verdict that names the liar (issue 11 class 5): a seat whose sealed
deal does not open files a signed `deal-dispute`; the host must disclose that deal's
ephemeral key at once; everyone opens the deal with it."""

from __future__ import annotations

import dataclasses

from unonet.engine import play_round
from unonet.fair import DealDispute, FairDealer
from unonet.fair._seal import deal_ad, seal
from unonet.fair._shuffle import pad_openings
from unonet.table import audit_transcript

from .test_match_cheats import _bots, _table, caught_live, caught_offline


class MisSealer(FairDealer):
    """Seals seat 1's first deal to seat 2's key (so that seat 2 can read it); keeps the key."""

    check_self = False
    done = False

    def deal(self, seat, *, public=True, position=None):
        ev = super().deal(seat, public=public, position=position)
        if seat == 1 and not MisSealer.done:
            MisSealer.done = True
            wrong = self._start.seats[2].dh_key
            eph = self._deal_keys[ev.position]
            blob = seal(pad_openings([self.opening(ev.position)], self.ledger.opening_size), recipient_dh=wrong,
                        ad=deal_ad(self.table, self.round_no, ev.position, 1, wrong), randbytes=self.randbytes,
                        ephemeral=eph)
            ev = dataclasses.replace(ev, sealed=blob)
            self.ledger.positions[ev.position].sealed = blob
        return ev

    def accept(self, event, sender_seat):
        if isinstance(event, DealDispute) and event.seen is not None:
            self.ledger.digests.add(event.seen)  # (its record absorbed the good bytes; it knows what it sent)
        return super().accept(event, sender_seat)


def test_a_deal_the_holder_cannot_read_is_disputed_and_convicts_the_host():
    MisSealer.done = False
    t = _table("mis-sealed", dealer_cls=MisSealer)
    try:
        rnd = t.start_round()
        rnd.start()
        play_round(rnd, _bots(3, "m"))
    except Exception:
        pass  # the table breaks up once every peer caught the host
    evs = [e.EV for e in t.host.events]
    assert "deal-dispute" in evs and evs[evs.index("deal-dispute") + 1] == "deal-key"
    caught_live(t, "does not open with its disclosed key")
    caught_offline(t.lines, "does not open with its disclosed key", signer=t.host.identity)


def test_a_false_deal_dispute_costs_its_maker_its_card_and_is_recorded_against_it():
    """Seat 1 claims a good deal does not open (to void the round, or to blame the host):
    the disclosed key opens it for everyone; the card is public and the claim is on record."""
    t = _table("false-claim")
    rnd = t.start_round()
    rnd.start()
    liar = t.seats[1]
    j = min(liar.hand)
    lie = liar.verifier._signed(DealDispute(seat=1, position=j))
    t.send(1, lie)
    assert [e.EV for e in t.host.events[-2:]] == ["deal-dispute", "deal-key"]
    for p in t.everyone:  # live: every seat and the observer now know the card and the false claim
        assert p.violation is None
        assert p.ledger.false_claims == {1: 1} and p.ledger.positions[j].public_card is not None
        assert any("seat 1 claimed its deal of position" in note for _, note in p.ledger.flags)
    play_round(rnd, _bots(3, "f"))
    report = audit_transcript(t.lines)
    assert report.ok and any("seat 1 claimed its deal of position" in f and "a false claim" in f
                             for f in report.flags), report.summary


def test_a_deal_dispute_in_another_seats_name_is_refused():
    t = _table("dispute-forge")
    rnd = t.start_round()
    rnd.start()
    j = min(t.seats[1].hand)
    forged = t.seats[2].verifier._signed(DealDispute(seat=1, position=j))  # seat 2 signs seat 1's claim
    import pytest

    from unonet.fair import FairPlayViolation

    with pytest.raises(FairPlayViolation, match="names seat 1 as its seat, but seat 2 sent it") as ei:
        t.host.receive(2, forged)
    assert ei.value.seat == 2
    with pytest.raises(FairPlayViolation, match="deal dispute is not signed by seat 1"):
        t.host.receive(1, forged)  # relayed on seat 1's link, still not seat 1's signature
