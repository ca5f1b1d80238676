"""One fingerprint for a unonet party, shared by the link layer and the fair layer.

A party is named by its Noise static X25519 public key: its fingerprint is
SHA-256("unonet-fingerprint-v1\\0" || static key) (spec §4.5), shown in Crockford
base32. The short form (100 bits, five groups of four) and the join code (its first
50 bits or more) are prefixes of that text, so any of them pins the same party.
Pure: no IO, no imports from the rest of unonet (both `protocol` and `fair` use it).
"""

from __future__ import annotations

import hashlib
import hmac

__all__ = [
    "CROCKFORD", "FP_DOMAIN", "JOIN_CODE_CHARS", "MIN_JOIN_CODE_CHARS", "SHORT_FP_CHARS", "TrustError",
    "InvalidJoinCodeError", "JoinCodeMismatchError", "fingerprint", "fingerprint_text", "short_fingerprint",
    "join_code", "normalize_join_code", "check_join_code", "fingerprint_matches",
]

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_DECODE_FIXUPS = str.maketrans({"I": "1", "L": "1", "O": "0"})
JOIN_CODE_CHARS = 10  # 50 bits, shown as XXXX-XXXX-XX
# 50 bits: the least we accept with --code.  A join code is an unsalted prefix
# of a long-term fingerprint, so an attacker grinds keys offline until one's
# fingerprint starts with the code: 2^40 is an afternoon on a GPU, 2^50 is not
# worth it for a card table (spec §4.5).
MIN_JOIN_CODE_CHARS = 10
SHORT_FP_CHARS = 20  # 100 bits, shown in five groups of four
FULL_FP_CHARS = 52   # 256 bits
FP_DOMAIN = b"unonet-fingerprint-v1\x00"


class TrustError(Exception):
    """Base for refusals about who a peer is (not wire-format problems)."""


class InvalidJoinCodeError(TrustError, ValueError):
    """The code the user typed is not a join code at all."""


class JoinCodeMismatchError(TrustError):
    """The host's key is not the one ``code`` names.  The answering key's own code is never
    said: whoever answered may be an impostor, and its code would only help it."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(
            f"host key does not match join code {code}: refusing to join; check the code "
            "shown on the host's screen, and that the address is the host's."
        )


def _b32(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    bits = len(data) * 8
    chars = (bits + 4) // 5
    n <<= chars * 5 - bits
    return "".join(CROCKFORD[(n >> (5 * (chars - 1 - i))) & 31] for i in range(chars))


def _group(s: str) -> str:
    return "-".join(s[i : i + 4] for i in range(0, len(s), 4))


def fingerprint(static_public: bytes) -> bytes:
    """32-byte peer id: SHA-256 over a domain tag and the Noise static public key."""
    if len(static_public) != 32:
        raise ValueError("an X25519 public key is 32 bytes")
    return hashlib.sha256(FP_DOMAIN + static_public).digest()


def fingerprint_text(static_public: bytes) -> str:
    """The whole fingerprint in Crockford base32 (52 characters, no dashes)."""
    return _b32(fingerprint(static_public))


def short_fingerprint(static_public: bytes) -> str:
    """100-bit human form, e.g. ``7KQ2-M9XD-4TAB-...``; the join code is its prefix."""
    return _group(fingerprint_text(static_public)[:SHORT_FP_CHARS])


def fingerprint_code(fp: bytes, chars: int = 10) -> str:
    """The join code (spec §4.5) from a 32-byte fingerprint (a beacon's ``fp``): its
    first ``chars`` Crockford base32 characters, grouped by four."""
    return _group(_b32(fp)[:chars])


def join_code(static_public: bytes, chars: int = JOIN_CODE_CHARS) -> str:
    """The code a host shows: the first ``chars`` Crockford characters of its fingerprint."""
    if chars < MIN_JOIN_CODE_CHARS:
        raise ValueError(f"a join code carries at least {MIN_JOIN_CODE_CHARS * 5} bits")
    return _group(fingerprint_text(static_public)[:chars])


def normalize_join_code(code: str) -> str:
    """Upper-case, drop dashes and spaces, read I/L as 1 and O as 0 (Crockford)."""
    if not isinstance(code, str):
        raise InvalidJoinCodeError("a join code is text")
    s = "".join(code.split()).replace("-", "").upper().translate(_DECODE_FIXUPS)
    bad = sorted({c for c in s if c not in CROCKFORD})
    if bad:
        raise InvalidJoinCodeError(f"join code {code!r} contains invalid characters {''.join(bad)!r}")
    if len(s) < MIN_JOIN_CODE_CHARS:
        raise InvalidJoinCodeError(
            f"join code {code!r} is too short: need at least {MIN_JOIN_CODE_CHARS} characters"
        )
    if len(s) > FULL_FP_CHARS:
        raise InvalidJoinCodeError(f"join code {code!r} is longer than a whole fingerprint")
    return s


def fingerprint_matches(code: str, static_public: bytes) -> bool:
    """Does a typed join code, short or whole fingerprint (any case, dashes or not) name this key?

    Raises InvalidJoinCodeError when `code` is not one of those forms."""
    want = normalize_join_code(code)
    return hmac.compare_digest(want, fingerprint_text(static_public)[: len(want)])


def check_join_code(code: str, static_public: bytes) -> None:
    """Refuse (``JoinCodeMismatchError``) a host whose key does not match ``code``."""
    want = normalize_join_code(code)
    have = fingerprint_text(static_public)[: len(want)]
    if not hmac.compare_digest(want, have):
        raise JoinCodeMismatchError(_group(want))
