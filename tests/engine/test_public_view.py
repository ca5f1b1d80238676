"""Hidden cards are values: public events redact them, and a peer's copy can hold them."""

import pytest

from unonet.engine import UNKNOWN, AnyCard, InvalidActionError, Play, Round, make_rules
from unonet.engine._cards import HiddenCard, HiddenFlipCard, hidden


def test_private_events_are_redacted_for_everyone_else():
    rnd = Round.deal(make_rules(), 4, 0, 7)
    dealt = rnd.start()[0]
    assert dealt.to == dealt.seat and all(c.known for c in dealt.cards)
    assert dealt.visible_to(dealt.seat) is dealt
    public = dealt.visible_to((dealt.seat + 1) % 4)
    assert public.to is None and public.cards == [UNKNOWN] * 7


def test_flip_cards_show_their_other_face_when_hidden():
    rnd = Round.deal(make_rules("flip"), 3, 0, 7)
    dealt = rnd.start()[0]
    public = dealt.public()
    assert all(isinstance(c, HiddenFlipCard) for c in public.cards)
    assert [c.back.code for c in public.cards] == [c.other.code for c in dealt.cards]


def test_a_peer_copy_with_hidden_hands_accepts_the_revealed_play():
    host = Round.deal(make_rules(), 4, 0, 3)
    host.start()
    peer = Round(host.rules, 4, 0, [[hidden(c) for c in h] for h in host.hands],
                 [UNKNOWN] * len(host.draw_pile), host.rng)
    peer.discard, peer.color, peer.turn = list(host.discard), host.color, host.turn
    seat = host.turn
    card = host.playable(seat)[0]
    action = Play(seat, card, "R" if card.wild else None)
    assert [type(e) for e in host.apply(action)] == [type(e) for e in peer.apply(action)]
    assert peer.top is card and peer.turn == host.turn and len(peer.hands[seat]) == len(host.hands[seat])


def test_a_card_or_a_hidden_card_is_one_type():
    """`AnyCard`: what the round's hands and piles and the events hold, in both builds."""
    rnd = Round.deal(make_rules("flip"), 3, 0, 7)
    card = rnd.hands[0][0]
    veiled = hidden(card)
    assert all(isinstance(c, AnyCard) for c in (card, veiled, UNKNOWN))
    assert isinstance(veiled, HiddenFlipCard) and isinstance(veiled, HiddenCard) and not veiled.known
    assert veiled.may_be(card) and not veiled.may_be(rnd.hands[0][1]) and UNKNOWN.may_be(card)
    # turned over, a hidden flip card shows its holder the face everyone saw; a known card its other face
    assert veiled.turned() is card.other and card.turned() is card.other and UNKNOWN.turned() is UNKNOWN


def test_a_play_of_something_that_is_not_a_card_is_refused():
    rnd = Round.deal(make_rules(), 4, 0, 3)
    rnd.start()
    with pytest.raises(InvalidActionError, match="not a card: 'R5'"):
        rnd.apply(Play(rnd.turn, "R5"))
    assert rnd.actions == 0
