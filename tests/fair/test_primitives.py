"""Byte-level pieces: encodings, identities, seed, shuffle, commitments, seals."""

import collections
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unonet.fair import Card, Identity, Opening, PublicIdentity, SealError, classic_deck, face_colour
from unonet.fair import wild_draw_four_legal
from unonet.fair._encoding import lp, tag, u32
from unonet.fair._seal import deal_ad, open_sealed, seal
from unonet.fair._seed import derive_seed, host_seed_commit, player_seed_commit
from unonet.fair._shuffle import HmacStream, card_commitment, position_salt, shuffle_cards, shuffle_order
from unonet.fair.testing import det_randbytes

R32 = bytes(range(32))
faces = st.text(alphabet="RYGBW0123456789+:SP", min_size=1, max_size=6)
cards = st.builds(Card, faces, st.none() | faces)


def test_classic_deck_is_108_cards_with_the_right_counts():
    deck = classic_deck()
    counts = collections.Counter(c.secret for c in deck)
    assert len(deck) == 108
    assert counts["R0"] == 1 and counts["R7"] == 2 and counts["B+2"] == 2 and counts["GS"] == 2
    assert counts["W"] == 4 and counts["W+4"] == 4
    assert all(c.public is None for c in deck)


def test_card_text_and_json_round_trip():
    flip = Card("R7", "P3")
    assert Card.from_code("R7|P3") == flip and str(flip) == "R7|P3"
    assert repr(Card("Y+2")) == "Card.from_code('Y+2')"
    assert Card.from_json(flip.to_json()) == flip and Card.from_json("W+4") == Card("W+4")
    with pytest.raises(ValueError):
        Card("")
    with pytest.raises(ValueError):
        Card("R|7")


@given(cards, cards)
def test_card_encoding_is_injective_and_decodable(a, b):
    assert (a.encode() == b.encode()) == (a == b)
    decoded, end = Card.decode_from(a.encode(), 0)
    assert decoded == a and end == len(a.encode())


def test_card_encoding_distinguishes_missing_from_present_public_face():
    # "R7" with no public face vs secret "R7" + public that would look like a suffix
    assert Card("R7").encode() == lp(b"R7") + b"\x00"
    assert Card("R7", "0").encode() == lp(b"R7") + b"\x01" + lp(b"0")


def test_length_prefixes_and_domain_tags():
    assert lp(b"ab") == b"\x00\x00\x00\x02ab"
    assert tag("salt") == lp(b"unonet/fair/v1/salt")
    with pytest.raises(ValueError):
        u32(-1)
    with pytest.raises(ValueError):
        u32(1 << 32)


def test_identity_is_deterministic_and_fingerprint_is_short_and_stable():
    a = Identity(bytes(64))
    b = Identity(bytes(64))
    assert a.public == b.public
    fp = a.public.fingerprint
    assert len(fp) == 24 and fp.count("-") == 4 and fp == fp.upper()
    assert Identity(bytes(63) + b"\x01").public.fingerprint != fp
    assert Identity(a.secret_bytes()).public == a.public
    sig = a.sign(b"msg")
    assert a.public.verify(sig, b"msg")
    assert not a.public.verify(sig, b"msh")
    assert not a.public.verify(sig[:-1] + bytes([sig[-1] ^ 1]), b"msg")
    assert PublicIdentity.from_json(a.public.to_json()) == a.public


def test_seed_binds_every_input():
    base = derive_seed(b"t", 1, 0, R32, [(0, R32), (1, bytes(32))])
    variants = [
        derive_seed(b"u", 1, 0, R32, [(0, R32), (1, bytes(32))]),
        derive_seed(b"t", 2, 0, R32, [(0, R32), (1, bytes(32))]),
        derive_seed(b"t", 1, 1, R32, [(0, R32), (1, bytes(32))]),
        derive_seed(b"t", 1, 0, bytes(32), [(0, R32), (1, bytes(32))]),
        derive_seed(b"t", 1, 0, R32, [(0, bytes(32)), (1, R32)]),
        derive_seed(b"t", 1, 0, R32, [(0, R32)]),
    ]
    assert len({base, *variants}) == 7
    # seat order, not arrival order
    assert derive_seed(b"t", 1, 0, R32, [(1, bytes(32)), (0, R32)]) == base
    with pytest.raises(ValueError):
        derive_seed(b"t", 1, 0, R32[:31], [])


def test_seed_commitments_are_bound_to_context():
    c = host_seed_commit(b"t", 1, 0, R32)
    assert c != host_seed_commit(b"t", 2, 0, R32) != host_seed_commit(b"t", 1, 1, R32)
    assert player_seed_commit(b"t", 1, 0, 0, R32) != player_seed_commit(b"t", 1, 0, 1, R32)
    assert c != player_seed_commit(b"t", 1, 0, 0, R32)


def test_shuffle_is_a_deterministic_permutation():
    deck = classic_deck()
    a = shuffle_cards(deck, R32)
    assert a == shuffle_cards(deck, R32)
    assert sorted(map(str, a)) == sorted(map(str, deck))
    assert a != list(deck) and a != shuffle_cards(deck, bytes(32))


def test_rejection_sampling_skips_words_above_the_limit(monkeypatch):
    # bound 3: 2**32 % 3 == 1, so limit = 2**32 - 1 and only 0xFFFFFFFF is rejected
    words = iter([0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE, 5])
    s = HmacStream(R32)
    monkeypatch.setattr(s, "word", lambda: next(words))
    assert s.below(3) == 0xFFFFFFFE % 3
    assert s.below(3) == 5 % 3
    # bound 2**31 + 1: almost half of all words are rejected
    words = iter([2**31 + 1, 2**32 - 1, 2**31])
    assert s.below(2**31 + 1) == 2**31


def test_shuffle_of_three_is_close_to_uniform():
    counts = collections.Counter(tuple(shuffle_order(i.to_bytes(32, "big"), 3)) for i in range(3000))
    assert set(counts) == set(itertools.permutations(range(3)))
    assert all(400 < n < 600 for n in counts.values()), counts


def test_commitment_binds_position_card_salt_and_context():
    salt = position_salt(R32, b"t", 1, 5)
    assert salt != position_salt(R32, b"t", 1, 6) != position_salt(bytes(32), b"t", 1, 5)
    c = card_commitment(b"t", 1, 5, Card("R7"), salt)
    assert Opening(5, Card("R7"), salt).matches(b"t", 1, c)
    for o in [Opening(6, Card("R7"), salt), Opening(5, Card("R8"), salt), Opening(5, Card("R7", "P1"), salt),
              Opening(5, Card("R7"), bytes(32))]:
        assert not o.matches(b"t", 1, c)
    assert not Opening(5, Card("R7"), salt).matches(b"t", 2, c)


def test_commitment_matches_the_documented_bytes():
    # spelled out by hand from docs/fair-play.md, independent of _encoding
    import hashlib
    import hmac

    r_h = bytes(32)
    ctx = b"\x00\x00\x00\x07table-1" + b"\x00\x00\x00\x01"
    salt_tag = b"\x00\x00\x00\x13unonet/fair/v1/salt"
    salt = hmac.new(r_h, salt_tag + ctx + b"\x00\x00\x00\x09", hashlib.sha256).digest()
    assert salt == position_salt(r_h, b"table-1", 1, 9)
    c_tag = b"\x00\x00\x00\x1eunonet/fair/v1/card-commitment"
    card = b"\x00\x00\x00\x02R7" + b"\x00"
    expected = hashlib.sha256(c_tag + ctx + b"\x00\x00\x00\x09" + card + b"\x00\x00\x00\x20" + salt).hexdigest()
    assert card_commitment(b"table-1", 1, 9, Card("R7"), salt).hex() == expected


@given(st.lists(st.builds(Opening, st.integers(0, 2**32 - 1), cards, st.just(R32)), max_size=5))
@settings(max_examples=50)
def test_opening_list_round_trip(openings):
    assert Opening.decode_list(Opening.encode_list(openings)) == openings


def test_seal_opens_only_for_its_recipient_and_context():
    rb = det_randbytes("seal")
    alice, bob = Identity.generate(rb), Identity.generate(rb)
    ad = deal_ad(b"t", 1, 4, 0, alice.public.dh_key)
    blob = seal(b"secret", recipient_dh=alice.public.dh_key, ad=ad, randbytes=rb)
    assert open_sealed(blob, identity=alice, ad=ad) == b"secret"
    with pytest.raises(SealError):
        open_sealed(blob, identity=bob, ad=ad)
    with pytest.raises(SealError):
        open_sealed(blob, identity=alice, ad=deal_ad(b"t", 1, 5, 0, alice.public.dh_key))
    with pytest.raises(SealError):
        open_sealed(blob[:-1] + bytes([blob[-1] ^ 1]), identity=alice, ad=ad)
    with pytest.raises(SealError):
        open_sealed(blob[:10], identity=alice, ad=ad)
    # a fresh ephemeral key each time: the same plaintext never seals the same way
    assert seal(b"secret", recipient_dh=alice.public.dh_key, ad=ad, randbytes=rb) != blob


def test_wild_draw_four_rule():
    assert wild_draw_four_legal(["G1", "W", "B+2"], "R")
    assert not wild_draw_four_legal(["G1", "R7"], "R")
    assert wild_draw_four_legal([], "Y")
    assert wild_draw_four_legal(["W+4", "W"], "R")  # wilds have no colour
    assert face_colour("W+4:R") is None and face_colour("Y+2") == "Y"


def test_the_fair_fingerprint_is_the_link_fingerprint_of_the_noise_static_key():
    from unonet import fingerprint as FP
    from unonet import protocol as P

    link = P.Identity.generate()
    fair = link.fair_identity().public
    assert fair.static_key == link.static_public
    assert fair.fingerprint_bytes == P.fingerprint(link.static_public) == link.fingerprint
    assert fair.fingerprint == link.short_fingerprint == FP.short_fingerprint(link.static_public)
    assert P.join_code is FP.join_code and P.fingerprint is FP.fingerprint
    assert FP.fingerprint_matches(link.join_code, fair.static_key)
    assert FP.fingerprint_matches(link.short_fingerprint.lower(), fair.static_key)
    assert not FP.fingerprint_matches(P.Identity.generate().join_code, fair.static_key)


def test_an_identity_whose_certificate_does_not_bind_its_keys_is_refused():
    import dataclasses

    a, b = Identity(bytes(64)).public, Identity(b"\x01" * 64).public
    # someone's signing key with another party's static key (its fingerprint), or seal key
    for forged in (dict(static_key=b.static_key), dict(dh_key=b.dh_key), dict(cert=b.cert)):
        with pytest.raises(ValueError, match="identity certificate does not verify"):
            dataclasses.replace(a, **forged)
    with pytest.raises(ValueError, match="certificate"):
        PublicIdentity.from_json({**a.to_json(), "static": b.static_key.hex()})
    assert PublicIdentity.from_json(a.to_json()) == a


def test_hex_fields_take_lowercase_hex_and_nothing_else():
    from unonet.fair import EventFormatError
    from unonet.fair._encoding import parse_hex

    assert parse_hex("00ff10", "x") == b"\x00\xff\x10" and parse_hex("", "x") == b""
    for bad in ("00FF", "0", "0 0", " 00", "00 ", "zz", "é0", b"00", 5, None):
        with pytest.raises(EventFormatError, match="lowercase hex"):
            parse_hex(bad, "x")


def test_an_event_read_from_json_is_checked_and_keeps_its_canonical_form():
    from unonet.fair import EventFormatError
    from unonet.fair._events import Act, Event

    act = Act(seat=1, n=3, action={"t": "play", "pos": 7}, opening=Opening(7, Card("R7"), R32),
              sig=bytes(64))
    back = Event.from_json(act.to_json())
    assert back == act and back.canonical() == act.canonical() and type(back.opening) is Opening
    for field, bad in (("seat", True), ("n", "3"), ("n", -1), ("sig", "AB" * 64), ("action", [1])):
        with pytest.raises(EventFormatError):
            Event.from_json({**act.to_json(), field: bad})
    with pytest.raises(EventFormatError, match="unexpected"):
        Event.from_json({**act.to_json(), "extra": 1})


def test_a_seat_signs_its_events_canonical_json_with_an_empty_sig():
    import dataclasses

    from unonet.fair._encoding import lp, round_context, tag
    from unonet.fair._events import Act
    from unonet.fair._seatsig import seat_event_message, seat_event_ok, sign_seat_event

    me = Identity(bytes(range(64)))
    start = bytes(32)

    def expected(ev):  # the definition: the copy with an empty sig, serialised
        body = dataclasses.replace(ev, sig=b"").canonical().encode("ascii")
        return tag("seat-event") + round_context(R32[:16], 2) + lp(start) + lp(body)

    act = sign_seat_event(me, R32[:16], 2, start, Act(seat=0, n=0, action={"t": "draw"}))
    # a nested field repeating the signature's text: the shortcut cannot tell which to empty
    echo = sign_seat_event(me, R32[:16], 2, start, Act(seat=0, n=1, action={"t": "draw", "sig": "x"}))
    echo = dataclasses.replace(echo, action={"t": "draw", "sig": echo.sig.hex()})
    for ev in (act, echo, Act(seat=0, n=2, action={"t": "draw"})):
        assert seat_event_message(R32[:16], 2, start, ev) == expected(ev)
    assert seat_event_ok(me.public, R32[:16], 2, start, act)
    assert not seat_event_ok(me.public, R32[:16], 3, start, act)
