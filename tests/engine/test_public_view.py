"""Hidden cards are values: public events redact them, and a peer's copy can hold them."""

from unonet.engine import UNKNOWN, Play, Round, make_rules
from unonet.engine._cards import HiddenFlipCard, hidden


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
