"""Openings sealed for one recipient: ephemeral X25519 -> HKDF-SHA256 -> ChaCha20-Poly1305.

A fresh ephemeral key per seal makes every AEAD key single-use, so the fixed
zero nonce is safe and no nonce counter has to survive a host restart or a
host migration (a per-pair key with a counter would reuse nonces exactly
then). Cost: one X25519 key generation and one DH per seal, ~0.1 ms.
The associated data binds table, round, position(s) and the recipient's seat
and key, so a sealed opening cannot be replayed into another slot.
"""

from __future__ import annotations

from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ._encoding import lp, round_context, tag, u32
from ._identity import Identity, RandBytes

_NONCE = b"\x00" * 12
EPHEMERAL_LEN = 32


class SealError(ValueError):
    """A sealed blob does not open for this recipient with this context."""


def deal_ad(table: bytes, round_no: int, position: int, seat: int, recipient_dh: bytes) -> bytes:
    return tag("seal-deal") + round_context(table, round_no) + u32(position) + u32(seat) + lp(recipient_dh)


def challenge_ad(
    table: bytes, round_no: int, challenge_no: int, challenger: int, challenged: int,
    positions: Sequence[int], recipient_dh: bytes,
) -> bytes:
    return (
        tag("seal-challenge")
        + round_context(table, round_no)
        + u32(challenge_no)
        + u32(challenger)
        + u32(challenged)
        + u32(len(positions))
        + b"".join(u32(p) for p in positions)
        + lp(recipient_dh)
    )


def _key(shared: bytes, ephemeral_pub: bytes, recipient_dh: bytes) -> bytes:
    return HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None,
        info=tag("seal-key") + lp(ephemeral_pub) + lp(recipient_dh),
    ).derive(shared)


#: what this process sealed: blob -> (recipient's DH key, associated data, plaintext), the
#: `SEALED_KNOWN` made last.  A blob made by sealing P to key R under ad A opens, with R's
#: private key under A, to P and to nothing else; so a party in the process that sealed it
#: (the host's own seat and bots, their deals sealed by their table's dealer) takes P from
#: here when its own key is R and its ad is A, and a blob, key or ad that differs in one
#: byte is not found and is opened as before (docs/fair-play.md §11.15).  A blob has one
#: recipient, who opens it once: it is forgotten when found.
SEALED_KNOWN = 256
_sealed: dict[bytes, tuple[bytes, bytes, bytes]] = {}


def seal(plaintext: bytes, *, recipient_dh: bytes, ad: bytes, randbytes: RandBytes,
         ephemeral: bytes | None = None) -> bytes:
    """ephemeral public key (32) || ChaCha20-Poly1305 ciphertext+tag.

    `ephemeral` (32 bytes) is the ephemeral private key to use, for a sender that keeps it
    so it can disclose this one message later (a challenge dispute)."""
    eph = X25519PrivateKey.from_private_bytes(ephemeral if ephemeral is not None else randbytes(32))
    eph_pub = eph.public_key().public_bytes_raw()
    shared = eph.exchange(X25519PublicKey.from_public_bytes(recipient_dh))
    blob = eph_pub + ChaCha20Poly1305(_key(shared, eph_pub, recipient_dh)).encrypt(_NONCE, plaintext, ad)
    if SEALED_KNOWN:
        if len(_sealed) >= SEALED_KNOWN:
            del _sealed[next(iter(_sealed))]  # (the oldest: a dict keeps insertion order)
        _sealed[blob] = (recipient_dh, ad, plaintext)
    return blob


def open_sealed(blob: bytes, *, identity: Identity, ad: bytes) -> bytes:
    """The plaintext of ``blob`` for ``identity`` under ``ad`` (`SealError` if it does not
    open): found among what this process sealed (`_sealed`), else decrypted."""
    known = _sealed.get(blob)
    if known is not None and known[0] == identity.public.dh_key and known[1] == ad:
        del _sealed[blob]
        return known[2]
    return _open_sealed(blob, identity=identity, ad=ad)


def _open_sealed(blob: bytes, *, identity: Identity, ad: bytes) -> bytes:
    if len(blob) < EPHEMERAL_LEN + 16:
        raise SealError("sealed blob too short")
    eph_pub, ct = blob[:EPHEMERAL_LEN], blob[EPHEMERAL_LEN:]
    try:
        shared = identity._x25519().exchange(X25519PublicKey.from_public_bytes(eph_pub))
        key = _key(shared, eph_pub, identity.public.dh_key)
        return ChaCha20Poly1305(key).decrypt(_NONCE, ct, ad)
    except (InvalidTag, ValueError) as exc:
        raise SealError("sealed blob does not open (wrong recipient, wrong context or tampered)") from exc


def open_with_ephemeral(blob: bytes, *, ephemeral: bytes, recipient_dh: bytes, ad: bytes) -> bytes:
    """Open a sealed blob with its disclosed ephemeral private key (anyone can, once it is public)."""
    if len(blob) < EPHEMERAL_LEN + 16 or len(ephemeral) != 32:
        raise SealError("sealed blob too short or key not 32 bytes")
    eph_pub, ct = blob[:EPHEMERAL_LEN], blob[EPHEMERAL_LEN:]
    try:
        eph = X25519PrivateKey.from_private_bytes(ephemeral)
        if eph.public_key().public_bytes_raw() != eph_pub:
            raise SealError("the disclosed key is not the seal's ephemeral key")
        shared = eph.exchange(X25519PublicKey.from_public_bytes(recipient_dh))
        return ChaCha20Poly1305(_key(shared, eph_pub, recipient_dh)).decrypt(_NONCE, ct, ad)
    except (InvalidTag, ValueError) as exc:
        if isinstance(exc, SealError):
            raise
        raise SealError("sealed blob does not open with the disclosed key") from exc


def challenge_response_message(table: bytes, round_no: int, challenge_no: int, challenger: int, challenged: int,
                               positions: Sequence[int], sealed: bytes) -> bytes:
    """What the challenged seat signs: its sealed answer to one challenge."""
    return (tag("challenge-response") + round_context(table, round_no) + u32(challenge_no) + u32(challenger)
            + u32(challenged) + u32(len(positions)) + b"".join(u32(p) for p in positions) + lp(sealed))


def challenge_key_message(table: bytes, round_no: int, challenge_no: int, challenged: int, secret: bytes) -> bytes:
    return tag("challenge-key") + round_context(table, round_no) + u32(challenge_no) + u32(challenged) + lp(secret)
