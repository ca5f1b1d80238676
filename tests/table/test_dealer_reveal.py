"""The dealer applies its own seed reveal trusting it (docs/fair-play.md, the end of §11.15):
its ledger ends the round as a checking ledger does, and a dealer whose output is altered
keeps the full check of its own reveal."""

import pytest

from unonet.engine import make_rules
from unonet.fair import FairDealer, FairPlayViolation, Identity
from unonet.fair.testing import FairTable, det_randbytes
from unonet.table import LocalTable, TableHost, TableSeat

from .helpers import play_driven_round


def ledger_state(lg):
    return (lg.phase, lg.digest, dict(lg.cards), [e.host_secret for e in lg.epochs],
            [(p.holder, p.public_card) for p in lg.positions])


def test_the_dealer_s_ledger_ends_each_round_as_a_checking_ledger_does():
    """Seeded rounds with hands changing holders (seven-o: a new epoch per swap, each re-derived
    at the reveal): after every round the dealer's ledger and a checking observer's agree."""
    rules = make_rules("official", ("seven-o",))
    rb = det_randbytes("reveal-trusted")
    host_id = Identity.generate(rb)
    ids = [Identity.generate(rb) for _ in range(4)]
    host = TableHost(rules, 4, identity=host_id, seats=[i.public for i in ids], randbytes=rb)
    observer = TableSeat(None, None, host_id.public)
    table = LocalTable(host, [TableSeat(s, ids[s], host_id.public, randbytes=rb) for s in range(4)], [observer])
    epochs = []
    for r in range(3):
        play_driven_round(table, f"reveal/{r}")
        lg = host.dealer.ledger
        assert lg.phase.value == "ended" and not lg.trusted and not observer.ledger.trusted
        assert ledger_state(observer.ledger) == ledger_state(lg)
        epochs.append(len(lg.epochs))
    assert max(epochs) > 1, epochs  # (the seed gives a round with more than one deck)


def test_a_dealer_whose_output_is_altered_keeps_its_own_full_check():
    """A subclass that stacks the deck (its commitments consistent with its openings) is stopped
    by its own ledger at its reveal when it checks itself: nothing false is published."""

    class StackingDealer(FairDealer):
        def _order(self, cards, seed):
            return sorted(super()._order(cards, seed), key=lambda c: not c.secret.startswith("W"))

    t = FairTable(3, seed="reveal-stacked", dealer_cls=StackingDealer)
    t.start()
    t.deal_hands()
    published = len(t.lines)
    with pytest.raises(FairPlayViolation, match="does not match the deck recomputed from the seed"):
        t.dealer.finish()
    assert len(t.lines) == published and not t.dealer.ledger.trusted
