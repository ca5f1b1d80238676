"""Seeded Fisher-Yates, position salts and card commitments."""

from __future__ import annotations

import functools
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from ._cards import Card
from ._encoding import hmac_sha256, lp, parse_hex, parse_int, round_context, sha256, tag, u32

SALT_LEN = 32


class HmacStream:
    """Uniform integers from HMAC-SHA256(seed, tag || counter) blocks.

    Rejection sampling on 32-bit words removes modulo bias: a word is used
    only if it falls below the largest multiple of the bound.
    """

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._words: list[int] = []  # the current block's words not yet used, last one next
        self._prefix = tag("shuffle-stream")

    def word(self) -> int:
        if not self._words:
            block = hmac_sha256(self._seed, self._prefix + self._counter.to_bytes(8, "big"))
            self._counter += 1
            self._words = list(_WORDS.unpack(block))
            self._words.reverse()
        return self._words.pop()

    def below(self, bound: int) -> int:
        if not 0 < bound <= 1 << 32:
            raise ValueError("bound out of range")
        limit = (1 << 32) - ((1 << 32) % bound)
        while True:
            w = self.word()
            if w < limit:
                return w % bound


#: one HMAC-SHA256 block as eight big-endian 32-bit words
_WORDS = struct.Struct(">8I")


def shuffle_order(seed: bytes, n: int) -> list[int]:
    """perm with perm[i] = index into the canonical deck of the card at slot i."""
    perm = list(range(n))
    below = HmacStream(seed).below
    for i in range(n - 1, 0, -1):
        k = below(i + 1)
        perm[i], perm[k] = perm[k], perm[i]
    return perm


def shuffle_cards(cards: Sequence[Card], seed: bytes) -> list[Card]:
    return [cards[k] for k in shuffle_order(seed, len(cards))]


def dealer_draw_key(match_id: bytes, reveals) -> bytes:
    """What round 1's dealer draw is seeded from (protocol version 4): the match id and the
    seats' epoch-0 seed reveals of round 1's attempt (``reveals``: seat -> r_i), in seat
    order.  Each r_i was committed to before any was revealed, and after the match id was
    fixed: the last joiner, who can grind its `match-join` nonce (the match id), cannot
    see the draw; a last revealer can only withhold its reveal (a stall the table names)."""
    items = sorted(reveals.items())
    parts = [tag("dealer-draw-key"), lp(match_id), u32(len(items))]
    for seat, r in items:
        parts += [u32(seat), lp(r)]
    return sha256(*parts)


def dealer_draw_seed(key: bytes, draw: int) -> bytes:
    """The seed of round 1's dealer draw number `draw` (0, 1, ... while seats tie), from the
    draw key (`dealer_draw_key`), so nobody chooses the dealer."""
    return sha256(tag("dealer-draw"), lp(key), u32(draw))


def position_salt(host_secret: bytes, table: bytes, round_no: int, position: int) -> bytes:
    """s_j = HMAC(r_h, tag || table || round || j): one secret opens the whole deck at the end."""
    return hmac_sha256(host_secret, _prefix("salt", table, round_no) + u32(position))


def card_commitment(table: bytes, round_no: int, position: int, card: Card, salt: bytes) -> bytes:
    """C_j = SHA-256(tag || table || round || j || card_j || s_j)."""
    return sha256(_prefix("card-commitment", table, round_no) + u32(position) + card.encode() + lp(salt))


@functools.lru_cache(maxsize=64)
def _prefix(name: str, table: bytes, round_no: int) -> bytes:
    """tag(name) || table || round: what every salt, or every commitment, of a round opens with."""
    return tag(name) + round_context(table, round_no)


def deck_commitments(host_secret: bytes, table: bytes, round_no: int, base: int, cards: Sequence[Card]) -> list[bytes]:
    """C_j of every card of an epoch, dealt from position ``base`` on, with its salt s_j from
    ``host_secret`` (`position_salt`, `card_commitment`: the same bytes, each message's fixed
    prefix made once for the deck instead of once per card)."""
    salt_prefix = _prefix("salt", table, round_no)
    commit_prefix = _prefix("card-commitment", table, round_no)
    salt_len = SALT_LEN.to_bytes(4, "big")  # (lp(salt))
    out = []
    for j, card in enumerate(cards, base):
        pos = u32(j)
        salt = hmac_sha256(host_secret, salt_prefix + pos)
        out.append(sha256(commit_prefix + pos + card.encode() + salt_len + salt))
    return out


def commitments_message(
    table: bytes,
    round_no: int,
    epoch: int,
    base: int,
    host_commit: bytes,
    contributions_digest: bytes,
    commitments: Sequence[bytes],
) -> bytes:
    """What the host signs for one epoch's deck."""
    return (
        tag("commitments")
        + round_context(table, round_no)
        + u32(epoch)
        + u32(base)
        + lp(host_commit)
        + lp(contributions_digest)
        + u32(len(commitments))
        + b"".join(lp(c) for c in commitments)
    )


def round_end_message(table: bytes, round_no: int, digest: bytes) -> bytes:
    return tag("round-end") + round_context(table, round_no) + lp(digest)


@dataclass(frozen=True, slots=True)
class Opening:
    """(j, card_j, s_j): everything needed to check C_j."""

    position: int
    card: Card
    salt: bytes

    def __post_init__(self) -> None:
        u32(self.position)
        if not isinstance(self.card, Card):
            raise ValueError("opening card must be a Card")
        if not isinstance(self.salt, bytes) or len(self.salt) != SALT_LEN:
            raise ValueError(f"opening salt must be {SALT_LEN} bytes")

    def matches(self, table: bytes, round_no: int, commitment: bytes) -> bool:
        return card_commitment(table, round_no, self.position, self.card, self.salt) == commitment

    def encode(self) -> bytes:
        return u32(self.position) + self.card.encode() + lp(self.salt)

    @classmethod
    def decode_from(cls, data: bytes, offset: int) -> tuple["Opening", int]:
        if offset + 4 > len(data):
            raise ValueError("truncated opening")
        pos = int.from_bytes(data[offset : offset + 4], "big")
        card, offset = Card.decode_from(data, offset + 4)
        if offset + 4 > len(data):
            raise ValueError("truncated opening")
        n = int.from_bytes(data[offset : offset + 4], "big")
        salt = data[offset + 4 : offset + 4 + n]
        if len(salt) != n:
            raise ValueError("truncated opening salt")
        return cls(pos, card, salt), offset + 4 + n

    @classmethod
    def decode_list(cls, data: bytes) -> list["Opening"]:
        if len(data) < 4:
            raise ValueError("truncated opening list")
        count = int.from_bytes(data[:4], "big")
        out, offset = [], 4
        for _ in range(count):
            o, offset = cls.decode_from(data, offset)
            out.append(o)
        if offset != len(data):
            raise ValueError("trailing bytes after openings")
        return out

    @staticmethod
    def encode_list(openings: Sequence["Opening"]) -> bytes:
        return u32(len(openings)) + b"".join(o.encode() for o in openings)

    def to_json(self) -> dict:
        return {"pos": self.position, "card": self.card.to_json(), "salt": self.salt.hex()}

    @classmethod
    def from_json(cls, value: object) -> "Opening":
        if not isinstance(value, dict) or set(value) != {"pos", "card", "salt"}:
            raise ValueError("opening must be {'pos', 'card', 'salt'}")
        return cls(parse_int(value["pos"], "pos"), Card.from_json(value["card"]), parse_hex(value["salt"], "salt"))


# -- padding: a sealed opening's size says nothing of the card ---------------------------
#: ephemeral public key (32) + ChaCha20-Poly1305 tag (16): what sealing adds
SEAL_OVERHEAD = 48


def opening_size(deck: Sequence[Card]) -> int:
    """The padded size of one opening for this deck: its longest card's encoding (UNO Flip:
    both faces), so every sealed opening of a round has one size."""
    return _OPENING_FIXED + max(len(c.encode()) for c in deck)


#: an opening's encoding beside its card's: u32(position) and lp(salt)
_OPENING_FIXED = 4 + 4 + SALT_LEN


def pad_openings(openings: Sequence[Opening], size: int) -> bytes:
    """u32(count) || each opening's encoding followed by zero bytes up to `size`."""
    out = [u32(len(openings))]
    for o in openings:
        b = o.encode()
        if len(b) > size:
            raise ValueError(f"opening of position {o.position} is {len(b)} bytes, more than the deck's {size}")
        out.append(b + bytes(size - len(b)))
    return b"".join(out)


def unpad_openings(data: bytes, size: int) -> list[Opening]:
    """The openings of `pad_openings`; refuses any other size or non-zero padding."""
    if len(data) < 4:
        raise ValueError("truncated opening list")
    count = int.from_bytes(data[:4], "big")
    if len(data) != 4 + count * size:
        raise ValueError(f"{count} padded openings take {4 + count * size} bytes, not {len(data)}")
    out = []
    for k in range(count):
        chunk = data[4 + k * size: 4 + (k + 1) * size]
        o, end = Opening.decode_from(chunk, 0)
        if any(chunk[end:]):
            raise ValueError("non-zero padding after an opening")
        out.append(o)
    return out


def sealed_size(count: int, size: int) -> int:
    """The exact size of `count` padded openings, sealed."""
    return SEAL_OVERHEAD + 4 + count * size
