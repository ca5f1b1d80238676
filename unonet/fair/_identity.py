"""Long-term party identities: Ed25519 to sign, X25519 to receive sealed openings.

A party is named by the fingerprint of its Noise static key (`unonet.fingerprint`, the
same one the link layer shows and pins); the Ed25519 key certifies that static key and
the seal key (`cert`), and every PublicIdentity checks its certificate when it is built,
so no identity read from a transcript or a peer pairs someone's signing key with another
party's fingerprint."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ..fingerprint import fingerprint, short_fingerprint
from ._encoding import lp, parse_hex, tag

RandBytes = Callable[[int], bytes]


def _check_key(value: object, what: str) -> bytes:
    if not isinstance(value, bytes) or len(value) != 32:
        raise ValueError(f"{what} must be 32 bytes")
    return value


# -- a signing key that binds nothing ----------------------------------------------------------
# An Ed25519 public key of small order (the curve's 8 torsion points: the identity, and the
# points of order 2, 4 and 8) makes signatures that prove nothing: under the identity point the
# 64 bytes (identity, 0) verify over every message, and under the others one blob verifies over
# a good share of all messages (the RFC 8032 check as OpenSSL makes it, cofactorless, does not
# refuse such keys).  A party that certified itself with one could disown every word it signed
# (its joins, acts, disputes and co-signs), or the host every round it signed: no honest party
# ever has one (a key from a random secret is of small order with probability 2^-250), so
# `PublicIdentity` refuses it, as it does a key whose encoding is not canonical (y >= p).
_P = 2 ** 255 - 19
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _decode_point(key: bytes) -> tuple[int, int] | None:
    """The Edwards point a 32-byte Ed25519 key encodes (RFC 8032 §5.1.3), or None if none."""
    y = int.from_bytes(key, "little") & ((1 << 255) - 1)
    sign = key[31] >> 7
    if y >= _P:
        return None
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if v * x * x % _P == (-u) % _P:
        x = x * _SQRT_M1 % _P
    if v * x * x % _P != u:
        return None
    if x == 0 and sign:
        return None
    return (x, y) if x % 2 == sign else (_P - x, y)


@functools.lru_cache(maxsize=1024)  # (a few keys a match, parsed again with every round-start)
def weak_sign_key(key: bytes) -> str | None:
    """Why ``key`` cannot be an honest Ed25519 public key (its encoding is not a point's, or
    the point is of small order: signatures under it bind nothing), or None."""
    point = _decode_point(key)
    if point is None:
        return "is not the canonical encoding of a curve point"
    x, y, z = point[0], point[1], 1
    for _ in range(3):  # 8P by three doublings, projective (twisted Edwards, a = -1: dbl-2008-hwcd)
        a, b = x * x % _P, y * y % _P
        e, g = ((x + y) * (x + y) - a - b) % _P, (b - a) % _P
        f, h = (g - 2 * z * z) % _P, (-a - b) % _P
        x, y, z = e * f % _P, g * h % _P, f * g % _P
    if x == 0 and y == z:  # (the neutral point (0 : Z : Z))
        return "is of small order (a signature under it verifies over messages never signed: it binds nothing)"
    return None


def cert_message(sign_key: bytes, static_key: bytes, dh_key: bytes) -> bytes:
    """What an identity's certificate signs: its Noise static key and its seal key."""
    return tag("identity-cert") + lp(sign_key) + lp(static_key) + lp(dh_key)


def _ed25519_ok(sign_key: bytes, signature: bytes, message: bytes) -> bool:
    if not isinstance(signature, bytes) or len(signature) != 64:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(sign_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


#: signatures this process knows to be good: signature -> (Ed25519 key, message), for the
#: ones it made (`Identity.sign`) and the ones it verified, the `KNOWN_GOOD` used last (a
#: signature is checked again within a few messages of its making; a certificate every round).
#: A process checks its own words again and again (the host's referee its own seat's and
#: bots' acts and co-signs, its ledger its own commitments; every seat its own acts relayed
#: back) and a certificate every time an identity is parsed: each is found here by its exact
#: bytes (key, message and signature all equal), which proves what the Ed25519 check would,
#: since a signature made or verified with these bytes verifies with them forever.  Nothing
#: is trusted: a triple not found is verified (docs/fair-play.md §11.15).
KNOWN_GOOD = 512
_good: dict[bytes, tuple[bytes, bytes]] = {}


def _remember(sign_key: bytes, signature: bytes, message: bytes) -> None:
    good = _good
    if len(good) >= KNOWN_GOOD:
        if not good:
            return  # (KNOWN_GOOD 0: nothing is remembered)
        del good[next(iter(good))]  # the one used longest ago (a dict keeps insertion order)
    good[signature] = (sign_key, message)


def signature_ok(sign_key: bytes, signature: bytes, message: bytes) -> bool:
    """Does ``signature`` by ``sign_key`` verify over ``message``?  Known-good triples are
    looked up; the rest are verified (and remembered when they verify)."""
    if isinstance(signature, bytes):
        known = _good.pop(signature, None)
        if known is not None:
            _good[signature] = known  # (used now: the last to go)
            if known[0] == sign_key and known[1] == message:
                return True
    if not _ed25519_ok(sign_key, signature, message):
        return False
    _remember(sign_key, signature, message)
    return True


@dataclass(frozen=True, slots=True)
class PublicIdentity:
    """What the table knows about a party: its Ed25519 key, seal key, Noise static key and
    the Ed25519 signature certifying the other two (checked on construction)."""

    sign_key: bytes
    dh_key: bytes
    static_key: bytes
    cert: bytes

    def __post_init__(self) -> None:
        _check_key(self.sign_key, "Ed25519 public key")
        _check_key(self.dh_key, "X25519 public key")
        _check_key(self.static_key, "Noise static public key")
        weak = weak_sign_key(self.sign_key)
        if weak is not None:
            raise ValueError(f"the identity's Ed25519 key {weak}")
        if not signature_ok(self.sign_key, self.cert, cert_message(self.sign_key, self.static_key, self.dh_key)):
            raise ValueError("identity certificate does not verify (the Ed25519 key did not sign this static "
                             "key and seal key)")

    @property
    def fingerprint_bytes(self) -> bytes:
        """The party's peer id (`unonet.fingerprint.fingerprint` of its Noise static key)."""
        return fingerprint(self.static_key)

    @property
    def fingerprint(self) -> str:
        """The short fingerprint (100 bits, Crockford base32), as the link layer shows it."""
        return short_fingerprint(self.static_key)

    def verify(self, signature: bytes, message: bytes) -> bool:
        return signature_ok(self.sign_key, signature, message)

    def to_json(self) -> dict:
        return {"sign": self.sign_key.hex(), "dh": self.dh_key.hex(), "static": self.static_key.hex(),
                "cert": self.cert.hex()}

    @classmethod
    def from_json(cls, value: object) -> "PublicIdentity":
        if not isinstance(value, dict) or set(value) != {"sign", "dh", "static", "cert"}:
            raise ValueError("identity must be {'sign': hex, 'dh': hex, 'static': hex, 'cert': hex}")
        return cls(parse_hex(value["sign"], "sign"), parse_hex(value["dh"], "dh"),
                   parse_hex(value["static"], "static"), parse_hex(value["cert"], "cert"))

    def __repr__(self) -> str:
        return f"PublicIdentity(<{self.fingerprint}>)"


class Identity:
    """A party's private keys. Build from 64 secret bytes so tests can be replayed.

    `static_key` is the party's Noise static public key (the networked client passes its
    own, `unonet.protocol.Identity.fair_identity()`); without one (simulations, tests) an
    X25519 key derived from the secret stands in, so the party still has a fingerprint."""

    __slots__ = ("_sign", "_dh", "public", "_sign_key")

    def __init__(self, secret: bytes, static_key: bytes | None = None) -> None:
        if not isinstance(secret, bytes) or len(secret) != 64:
            raise ValueError("an identity secret is 64 bytes (Ed25519 seed || X25519 key)")
        self._sign = Ed25519PrivateKey.from_private_bytes(secret[:32])
        self._dh = X25519PrivateKey.from_private_bytes(secret[32:])
        if static_key is None:
            derived = hashlib.sha256(b"unonet-fair-standin-static\x00" + secret).digest()
            static_key = X25519PrivateKey.from_private_bytes(derived).public_key().public_bytes_raw()
        sign_key = self._sign.public_key().public_bytes_raw()
        dh_key = self._dh.public_key().public_bytes_raw()
        _check_key(static_key, "Noise static public key")
        self._sign_key = sign_key
        cert = self._sign.sign(cert_message(sign_key, static_key, dh_key))
        _remember(sign_key, cert, cert_message(sign_key, static_key, dh_key))
        self.public = PublicIdentity(sign_key, dh_key, static_key, cert)

    @classmethod
    def generate(cls, randbytes: RandBytes = os.urandom) -> "Identity":
        return cls(randbytes(64))

    def secret_bytes(self) -> bytes:
        """For the net layer's config directory; keep it private."""
        return self._sign.private_bytes_raw() + self._dh.private_bytes_raw()

    def sign(self, message: bytes) -> bytes:
        signature = self._sign.sign(message)
        _remember(self._sign_key, signature, message)  # our own word, when we check it again
        return signature

    def _x25519(self) -> X25519PrivateKey:
        return self._dh

    def __repr__(self) -> str:
        return f"Identity(<{self.public.fingerprint}>)"
