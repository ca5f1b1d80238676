"""Long-term party identities: Ed25519 to sign, X25519 to receive sealed openings."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ._encoding import lp, sha256, tag

RandBytes = Callable[[int], bytes]


def _check_key(value: object, what: str) -> bytes:
    if not isinstance(value, bytes) or len(value) != 32:
        raise ValueError(f"{what} must be 32 bytes")
    return value


@dataclass(frozen=True, slots=True)
class PublicIdentity:
    """What the table knows about a party: two raw 32-byte public keys."""

    sign_key: bytes
    dh_key: bytes

    def __post_init__(self) -> None:
        _check_key(self.sign_key, "Ed25519 public key")
        _check_key(self.dh_key, "X25519 public key")

    @property
    def fingerprint_bytes(self) -> bytes:
        return sha256(tag("fingerprint"), lp(self.sign_key), lp(self.dh_key))

    @property
    def fingerprint(self) -> str:
        """80 bits in base32, grouped: short enough to read aloud, long enough to pin."""
        text = base64.b32encode(self.fingerprint_bytes[:10]).decode("ascii").lower()
        return "-".join(text[i : i + 4] for i in range(0, 16, 4))

    def verify(self, signature: bytes, message: bytes) -> bool:
        if not isinstance(signature, bytes) or len(signature) != 64:
            return False
        try:
            Ed25519PublicKey.from_public_bytes(self.sign_key).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True

    def to_json(self) -> dict:
        return {"sign": self.sign_key.hex(), "dh": self.dh_key.hex()}

    @classmethod
    def from_json(cls, value: object) -> "PublicIdentity":
        if not isinstance(value, dict) or set(value) != {"sign", "dh"}:
            raise ValueError("identity must be {'sign': hex, 'dh': hex}")
        from ._events import parse_hex

        return cls(parse_hex(value["sign"], "sign"), parse_hex(value["dh"], "dh"))

    def __repr__(self) -> str:
        return f"PublicIdentity(<{self.fingerprint}>)"


class Identity:
    """A party's private keys. Build from 64 secret bytes so tests can be replayed."""

    __slots__ = ("_sign", "_dh", "public")

    def __init__(self, secret: bytes) -> None:
        if not isinstance(secret, bytes) or len(secret) != 64:
            raise ValueError("an identity secret is 64 bytes (Ed25519 seed || X25519 key)")
        self._sign = Ed25519PrivateKey.from_private_bytes(secret[:32])
        self._dh = X25519PrivateKey.from_private_bytes(secret[32:])
        self.public = PublicIdentity(
            self._sign.public_key().public_bytes_raw(), self._dh.public_key().public_bytes_raw()
        )

    @classmethod
    def generate(cls, randbytes: RandBytes = os.urandom) -> "Identity":
        return cls(randbytes(64))

    def secret_bytes(self) -> bytes:
        """For the net layer's config directory; keep it private."""
        return self._sign.private_bytes_raw() + self._dh.private_bytes_raw()

    def sign(self, message: bytes) -> bytes:
        return self._sign.sign(message)

    def _x25519(self) -> X25519PrivateKey:
        return self._dh

    def __repr__(self) -> str:
        return f"Identity(<{self.public.fingerprint}>)"
