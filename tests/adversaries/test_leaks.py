"""Leaks by size and by shape (issue 11 class 6): what an observer or a sniffer can infer from
the public record and from sealed sizes — nothing beyond the public moves."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from unonet.engine import make_rules
from unonet.fair import Deal, FairDealer, audit
from unonet.fair._events import ChallengeResponse
from unonet.fair._seal import deal_ad, seal
from unonet.fair._shuffle import sealed_size
from unonet.table import TABLE_DECKS

from tests.table.helpers import BluffBot, fair_round, game_events

from .helpers import table


@pytest.mark.parametrize("preset", ["official", "flip"])
def test_every_sealed_opening_of_a_round_has_one_size_whatever_the_card(preset):
    """Deals (and challenge responses, per card) are padded to the deck's longest card: the
    size of a sealed opening says nothing of Wilds, Draw cards or Flip's secret face."""
    rules = make_rules(preset)
    sizes: Counter[int] = Counter()
    by_card: dict[str, set[int]] = {}
    responses = 0
    for k in range(3):
        host, _ = fair_round(rules, 3, seed=f"pad-{preset}-{k}", bots=[BluffBot(f"b{k}{s}") for s in range(3)])
        lg = host.dealer.ledger
        for e in host.host.events:
            if isinstance(e, Deal):
                sizes[len(e.sealed)] += 1
                by_card.setdefault(lg.cards[e.position].secret, set()).add(len(e.sealed))
            elif isinstance(e, ChallengeResponse):
                responses += 1
                assert len(e.sealed) == sealed_size(len(e.positions), lg.opening_size)
    assert len(sizes) == 1, sizes  # one size for every deal of every round of this deck
    (size,) = sizes
    assert size == sealed_size(1, lg.opening_size)
    assert len(by_card) > 20 and all(s == {size} for s in by_card.values())
    assert any(c.startswith("W") for c in by_card) and any("+" in c for c in by_card)


def test_a_host_that_does_not_pad_its_deals_is_caught_by_everyone():
    """An unpadded deal tells every peer (and a sniffer) the card's length: every verifier,
    the observer included, refuses it at once, blaming the host; so does the audit."""

    class Unpadded(FairDealer):
        def deal(self, seat, *, public=True, position=None):
            ev = super().deal(seat, public=public, position=position)
            key = self._start.seats[seat].dh_key
            raw = seal(self.opening(ev.position).encode(), recipient_dh=key,
                       ad=deal_ad(self.table, self.round_no, ev.position, seat, key), randbytes=self.randbytes)
            return dataclasses.replace(ev, sealed=raw)

    Unpadded.check_self = False
    t = table(seed="unpadded", dealer_cls=Unpadded, strict=False)
    t.start()
    t.publish([t.dealer.deal(0)])
    assert len(t.violations) == len(t.verifiers) + 1  # every seat and the observer
    for who, exc in t.violations:
        assert "an unpadded opening leaks the card" in exc.reason and exc.seat is None, (who, exc)
    report = audit(t.lines)
    assert not report.ok and "an unpadded opening leaks the card" in report.reason and report.seat is None


def _draw_then(lines):
    """For every turn draw in the public record: what the record shows next of that seat."""
    games = [d for _, d in game_events(lines) if d["g"] == "act"]
    out = []
    for k, d in enumerate(games[:-1]):
        a = d["a"]
        # a draw that accepts a penalty (a Draw Two, a Wild Draw Four) ends the turn: only turn draws count
        if a["t"] != "draw" or any(row[0] == "Drew" and row[-1] != "turn" for row in d["ev"]):
            continue
        nxt = games[k + 1]["a"]
        out.append((nxt.get("seat") == a["seat"], nxt["t"]))
    return out


def test_an_observer_cannot_tell_a_playable_draw_from_an_unplayable_one():
    """Every turn draw ends with the drawer's own play-or-keep choice, whatever it drew: the
    public record has the same shape after a playable and an unplayable draw. (Before the
    engine's draw change an unplayable draw ended the turn at once: the next public step was
    another seat's, which told everyone the drawn card did not fit.)"""
    seen = []
    for k in range(6):
        host, _ = fair_round(make_rules(), 3, seed=f"shape-{k}")
        seen += _draw_then(host.lines)
    assert len(seen) >= 10, "too few draws to measure"
    assert all(same for same, _ in seen), [s for s in seen if not s[0]]
    kinds = Counter(t for _, t in seen)
    assert set(kinds) <= {"play", "pass"} and kinds["pass"] > 0


def test_the_public_record_of_a_deal_names_no_card():
    """A deal's public part is its position, its seat and (UNO Flip only) the face the whole
    table sees anyway; its sealed part has the deck's one size."""
    host, _ = fair_round(make_rules(), 3, seed="public-deal")
    for e in host.host.events:
        if isinstance(e, Deal):
            assert e.public is None and set(e.to_json()) == {"ev", "position", "seat", "sealed", "public"}
    flip_rules = make_rules("flip")
    host, _ = fair_round(flip_rules, 3, seed="public-deal-flip")
    lg = host.dealer.ledger
    for e in host.host.events:
        if isinstance(e, Deal):  # the face the whole table sees by the rules (one of the card's two)
            c = lg.cards[e.position]
            assert e.public in (c.secret, c.public)
    assert TABLE_DECKS["flip"]
