"""Noise protocol framework (revision 34), 25519 / ChaChaPoly / SHA256 only.

Written from the spec on pyca ``cryptography`` primitives so that the link
crypto is small enough to audit and test against the published vectors.  It is
sans-IO: the objects turn bytes into bytes and never touch a socket.  Only the
handshake patterns unonet or its test vectors need are in ``PATTERNS``; the
``pskN`` modifiers are supported because the vector set exercises them, but
unonet itself never uses a pre-shared key (a short join code is not a key).
"""

from __future__ import annotations

import hashlib
import hmac
import re

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import (
    X25519PrivateKey,
    X25519PublicKey,
)
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ._errors import LocalProtocolError, RemoteProtocolError

__all__ = [
    "CipherState",
    "SymmetricState",
    "HandshakeState",
    "KeyPair",
    "PATTERNS",
    "NOISE_PROTOCOL",
    "MAX_NOISE_MESSAGE",
]

NOISE_PROTOCOL = "Noise_XX_25519_ChaChaPoly_SHA256"
MAX_NOISE_MESSAGE = 65535
DHLEN = 32
HASHLEN = 32
TAGLEN = 16
MAX_NONCE = 2**64 - 1  # reserved by the spec: never used to encrypt

# pattern name -> (initiator pre-message, responder pre-message, messages)
PATTERNS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]] = {
    "NN": ((), (), (("e",), ("e", "ee"))),
    "NX": ((), (), (("e",), ("e", "ee", "s", "es"))),
    "XX": ((), (), (("e",), ("e", "ee", "s", "es"), ("s", "se"))),
    "XK": ((), ("s",), (("e", "es"), ("e", "ee"), ("s", "se"))),
    "IK": ((), ("s",), (("e", "es", "s", "ss"), ("e", "ee", "se"))),
    "XN": ((), (), (("e",), ("e", "ee"), ("s", "se"))),
    "NK": ((), ("s",), (("e", "es"), ("e", "ee"))),
    "KK": (("s",), ("s",), (("e", "es", "ss"), ("e", "ee", "se"))),
}

_NAME_RE = re.compile(r"^Noise_([A-Z]+)((?:psk\d)(?:\+psk\d)*)?_25519_ChaChaPoly_SHA256$")


def _hkdf(chaining_key: bytes, ikm: bytes, n: int) -> tuple[bytes, ...]:
    temp = hmac.digest(chaining_key, ikm, "sha256")
    out1 = hmac.digest(temp, b"\x01", "sha256")
    out2 = hmac.digest(temp, out1 + b"\x02", "sha256")
    if n == 2:
        return out1, out2
    return out1, out2, hmac.digest(temp, out2 + b"\x03", "sha256")


class KeyPair:
    """An X25519 key pair with its raw 32-byte public half precomputed."""

    __slots__ = ("private", "public")

    def __init__(self, private: X25519PrivateKey) -> None:
        self.private = private
        self.public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @classmethod
    def generate(cls) -> KeyPair:
        return cls(X25519PrivateKey.generate())

    @classmethod
    def from_private_bytes(cls, raw: bytes) -> KeyPair:
        return cls(X25519PrivateKey.from_private_bytes(bytes(raw)))

    def dh(self, public: bytes) -> bytes:
        try:
            return self.private.exchange(X25519PublicKey.from_public_bytes(public))
        except ValueError as exc:  # low-order point: all-zero output
            raise RemoteProtocolError(
                "peer sent an invalid X25519 public key", code="auth", value=public
            ) from exc


class CipherState:
    """Key ``k`` and nonce ``n``; encrypts with ChaCha20-Poly1305."""

    __slots__ = ("_aead", "n", "_dead")

    def __init__(self, key: bytes | None = None) -> None:
        self._dead: str | None = None
        self.initialize_key(key)

    def initialize_key(self, key: bytes | None) -> None:
        self._aead = None if key is None else ChaCha20Poly1305(key)
        self.n = 0

    def has_key(self) -> bool:
        return self._aead is not None

    def set_nonce(self, n: int) -> None:
        self.n = n

    def _nonce(self) -> bytes:
        if self._dead:
            raise LocalProtocolError(self._dead, code="closed")
        if self.n >= MAX_NONCE:
            self._dead = "nonce exhausted: this cipher state can never be used again"
            raise LocalProtocolError(self._dead, code="nonce-exhausted")
        return b"\x00\x00\x00\x00" + self.n.to_bytes(8, "little")

    def encrypt_with_ad(self, ad: bytes, plaintext: bytes) -> bytes:
        if self._aead is None:
            return plaintext
        ct = self._aead.encrypt(self._nonce(), plaintext, ad)
        self.n += 1
        return ct

    def decrypt_with_ad(self, ad: bytes, ciphertext: bytes) -> bytes:
        if self._aead is None:
            return ciphertext
        nonce = self._nonce()
        try:
            pt = self._aead.decrypt(nonce, ciphertext, ad)
        except InvalidTag:
            raise RemoteProtocolError(
                f"decryption failed at nonce {self.n}: message forged, corrupted or replayed",
                code="decrypt",
            ) from None
        self.n += 1
        return pt

    def rekey(self) -> None:
        """REKEY(k) = ENCRYPT(k, 2^64-1, "", 32 zero bytes)[:32]; n is kept."""
        if self._aead is None:
            raise LocalProtocolError("cannot rekey a cipher state without a key", code="internal")
        nonce = b"\x00\x00\x00\x00" + MAX_NONCE.to_bytes(8, "little")
        key = self._aead.encrypt(nonce, bytes(32), b"")[:32]
        n = self.n
        self.initialize_key(key)
        self.n = n


class SymmetricState:
    __slots__ = ("cipher", "ck", "h")

    def __init__(self, protocol_name: bytes) -> None:
        if len(protocol_name) <= HASHLEN:
            self.h = protocol_name.ljust(HASHLEN, b"\x00")
        else:
            self.h = hashlib.sha256(protocol_name).digest()
        self.ck = self.h
        self.cipher = CipherState()

    def mix_key(self, ikm: bytes) -> None:
        self.ck, temp_k = _hkdf(self.ck, ikm, 2)
        self.cipher.initialize_key(temp_k)

    def mix_hash(self, data: bytes) -> None:
        self.h = hashlib.sha256(self.h + data).digest()

    def mix_key_and_hash(self, ikm: bytes) -> None:
        self.ck, temp_h, temp_k = _hkdf(self.ck, ikm, 3)
        self.mix_hash(temp_h)
        self.cipher.initialize_key(temp_k)

    def encrypt_and_hash(self, plaintext: bytes) -> bytes:
        ct = self.cipher.encrypt_with_ad(self.h, plaintext)
        self.mix_hash(ct)
        return ct

    def decrypt_and_hash(self, ciphertext: bytes) -> bytes:
        pt = self.cipher.decrypt_with_ad(self.h, ciphertext)
        self.mix_hash(ciphertext)
        return pt

    def split(self) -> tuple[CipherState, CipherState]:
        k1, k2 = _hkdf(self.ck, b"", 2)
        return CipherState(k1), CipherState(k2)


def _parse_protocol_name(name: str):
    m = _NAME_RE.match(name)
    if not m or m.group(1) not in PATTERNS:
        raise LocalProtocolError("unsupported Noise protocol", code="internal", value=name)
    pre_i, pre_r, messages = PATTERNS[m.group(1)]
    msgs = [list(p) for p in messages]
    psk_count = 0
    if m.group(2):
        for mod in m.group(2).split("+"):
            idx = int(mod[3:])
            if idx == 0:
                msgs[0].insert(0, "psk")
            elif idx <= len(msgs):
                msgs[idx - 1].append("psk")
            else:
                raise LocalProtocolError("psk modifier out of range", code="internal", value=name)
            psk_count += 1
    return pre_i, pre_r, [tuple(p) for p in msgs], psk_count


class HandshakeState:
    """One side of a Noise handshake; ``write_message``/``read_message`` alternate.

    ``e`` may be given only to replay test vectors.  When the last message has
    been processed, ``complete`` is true and ``split()`` returns the
    ``(send, receive)`` cipher states for *this* side, already oriented.
    """

    def __init__(
        self,
        protocol_name: str = NOISE_PROTOCOL,
        *,
        initiator: bool,
        prologue: bytes = b"",
        s: KeyPair | None = None,
        e: KeyPair | None = None,
        rs: bytes | None = None,
        re: bytes | None = None,
        psks: list[bytes] | None = None,
    ) -> None:
        pre_i, pre_r, self._patterns, psk_count = _parse_protocol_name(protocol_name)
        self.protocol_name = protocol_name
        self.initiator = initiator
        self.s, self.e, self.rs, self.re = s, e, rs, re
        self._psks = list(psks or [])
        if len(self._psks) != psk_count or any(len(p) != 32 for p in self._psks):
            raise LocalProtocolError(
                f"{protocol_name} needs {psk_count} 32-byte pre-shared keys", code="internal"
            )
        self._psk_mode = psk_count > 0
        self._ss = SymmetricState(protocol_name.encode("ascii"))
        self._ss.mix_hash(prologue)
        for owner_is_initiator, pre in ((True, pre_i), (False, pre_r)):
            mine = owner_is_initiator == initiator
            for token in pre:
                key = self._pre_key(token, mine)
                self._ss.mix_hash(key)
                if token == "e" and self._psk_mode:
                    self._ss.mix_key(key)
        self._step = 0
        self._split: tuple[CipherState, CipherState] | None = None

    def _pre_key(self, token: str, mine: bool) -> bytes:
        if token == "s":
            key = (self.s.public if self.s else None) if mine else self.rs
        else:
            key = (self.e.public if self.e else None) if mine else self.re
        if key is None:
            raise LocalProtocolError(f"pre-message key {token!r} missing", code="internal")
        return key

    @property
    def complete(self) -> bool:
        return self._split is not None

    @property
    def handshake_hash(self) -> bytes:
        return self._ss.h

    def is_my_turn_to_write(self) -> bool:
        return (self._step % 2 == 0) == self.initiator

    def _dh_token(self, token: str) -> None:
        if token == "ee":
            self._ss.mix_key(self.e.dh(self.re))
        elif token == "ss":
            self._ss.mix_key(self.s.dh(self.rs))
        elif (token == "es") == self.initiator:
            self._ss.mix_key(self.e.dh(self.rs))
        else:
            self._ss.mix_key(self.s.dh(self.re))

    def _next_pattern(self, writing: bool) -> tuple[str, ...]:
        if self._split is not None:
            raise LocalProtocolError("handshake already complete", code="internal")
        if self.is_my_turn_to_write() != writing:
            raise LocalProtocolError(
                f"out of order: it is our turn to {'read' if writing else 'write'}",
                code="internal",
            )
        pattern = self._patterns[self._step]
        self._step += 1
        return pattern

    def _finish_if_last(self) -> None:
        if self._step == len(self._patterns):
            c1, c2 = self._ss.split()
            self._split = (c1, c2) if self.initiator else (c2, c1)

    def write_message(self, payload: bytes = b"") -> bytes:
        buf = bytearray()
        for token in self._next_pattern(writing=True):
            if token == "e":
                if self.e is None:
                    self.e = KeyPair.generate()
                buf += self.e.public
                self._ss.mix_hash(self.e.public)
                if self._psk_mode:
                    self._ss.mix_key(self.e.public)
            elif token == "s":
                buf += self._ss.encrypt_and_hash(self.s.public)
            elif token == "psk":
                self._ss.mix_key_and_hash(self._psks.pop(0))
            else:
                self._dh_token(token)
        buf += self._ss.encrypt_and_hash(payload)
        if len(buf) > MAX_NOISE_MESSAGE:
            raise LocalProtocolError("handshake message too large", code="too-large")
        self._finish_if_last()
        return bytes(buf)

    def read_message(self, message: bytes) -> bytes:
        if len(message) > MAX_NOISE_MESSAGE:
            raise RemoteProtocolError("handshake message too large", code="too-large",
                                      value=len(message))
        view = memoryview(message)
        pos = 0

        def take(n: int) -> bytes:
            nonlocal pos
            if len(view) - pos < n:
                raise RemoteProtocolError(
                    "handshake message truncated", code="auth", value=len(message)
                )
            chunk = bytes(view[pos : pos + n])
            pos += n
            return chunk

        for token in self._next_pattern(writing=False):
            if token == "e":
                self.re = take(DHLEN)
                self._ss.mix_hash(self.re)
                if self._psk_mode:
                    self._ss.mix_key(self.re)
            elif token == "s":
                n = DHLEN + TAGLEN if self._ss.cipher.has_key() else DHLEN
                self.rs = self._ss.decrypt_and_hash(take(n))
            elif token == "psk":
                self._ss.mix_key_and_hash(self._psks.pop(0))
            else:
                self._dh_token(token)
        payload = self._ss.decrypt_and_hash(bytes(view[pos:]))
        self._finish_if_last()
        return payload

    def split(self) -> tuple[CipherState, CipherState]:
        """(send, receive) cipher states for this side."""
        if self._split is None:
            raise LocalProtocolError("handshake not complete", code="internal")
        return self._split
