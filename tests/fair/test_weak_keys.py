"""A signing key that binds nothing is refused (`weak_sign_key`, `PublicIdentity`).

Under the Ed25519 identity point the 64 bytes (identity, 0) verify over every message (the
RFC 8032 check as OpenSSL makes it does not refuse small-order keys): a party certified under
such a key could disown each word it signed, and the signature memory would remember any
message "verified" under it.  No honest key is one (a key from a random secret never is)."""

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from unonet.fair import Identity, PublicIdentity
from unonet.fair._identity import cert_message, weak_sign_key

P = 2 ** 255 - 19
NEUTRAL = bytes([1]) + bytes(31)      # y = 1: the identity point (order 1)
UNIVERSAL = NEUTRAL + bytes(32)       # R = the identity, S = 0
SMALL_ORDER = {
    "order 1": NEUTRAL,
    "order 2": (P - 1).to_bytes(32, "little"),
    "order 4": bytes(32),
    "order 4, the other": bytes(31) + b"\x80",
    # the two order-8 points' encodings (libsodium's blocklist) and one with the sign bit set
    "order 8": bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    "order 8, another": bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
    "order 8, negated": bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"),
}


def test_the_neutral_key_verifies_one_blob_over_every_message():
    """What the check is for: the cryptography the table uses takes the blob for any message."""
    for msg in (b"act 0", b"act 1", cert_message(NEUTRAL, bytes(32), bytes(32))):
        Ed25519PublicKey.from_public_bytes(NEUTRAL).verify(UNIVERSAL, msg)  # no InvalidSignature


@pytest.mark.parametrize("name", sorted(SMALL_ORDER))
def test_a_small_order_key_is_weak_and_no_identity_takes_it(name):
    key = SMALL_ORDER[name]
    assert "small order" in weak_sign_key(key)
    honest = Identity.generate().public
    with pytest.raises(ValueError, match="Ed25519 key is of small order"):
        PublicIdentity(key, honest.dh_key, honest.static_key, UNIVERSAL)
    with pytest.raises(ValueError, match="small order"):
        PublicIdentity.from_json({**honest.to_json(), "sign": key.hex(), "cert": UNIVERSAL.hex()})


def test_a_key_whose_encoding_is_not_canonical_is_refused():
    assert "not the canonical encoding" in weak_sign_key(P.to_bytes(32, "little"))  # y = p (0, out of range)
    assert "not the canonical encoding" in weak_sign_key((2).to_bytes(32, "little"))  # y = 2: no x


def test_every_honest_key_passes():
    for _ in range(50):
        ident = Identity.generate()
        assert weak_sign_key(ident.public.sign_key) is None
        assert PublicIdentity.from_json(ident.public.to_json()) == ident.public
