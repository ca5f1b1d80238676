"""Card records as the fair layer sees them: opaque faces, never rules.

A card has a secret face (what its holder sees) and an optional public face
(what the table sees while it is held: UNO Flip's other side). The classic deck
has no public faces.

A two-sided (UNO Flip) card is recorded as (light face, dark face) in the `secret` and
`public` fields: the names are right while the light side is in play. Which face is the
holder's secret and which one the table sees depends on the side in play (`face(side)`,
`shown(side)`); the round's ledger keeps the side.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ._encoding import lp


def _check_face(face: object, what: str) -> str:
    if not isinstance(face, str) or not face or len(face) > 64:
        raise ValueError(f"card {what} face must be a non-empty string of at most 64 characters, not {face!r}")
    if not face.isprintable() or "|" in face:
        raise ValueError(f"card {what} face {face!r} has unprintable characters or '|'")
    return face


@dataclass(frozen=True, slots=True)
class Card:
    secret: str
    public: str | None = None

    def __post_init__(self) -> None:
        _check_face(self.secret, "secret")
        if self.public is not None:
            _check_face(self.public, "public")

    @property
    def two_sided(self) -> bool:
        return self.public is not None

    def face(self, side: int = 0) -> str:
        """The face its holder plays while `side` is in play (0 light: `secret`, 1 dark: `public`)."""
        return self.public if side and self.public is not None else self.secret

    def shown(self, side: int = 0) -> str | None:
        """The face the table sees while it is held and `side` is in play (None: one-faced)."""
        if self.public is None:
            return None
        return self.secret if side else self.public

    def encode(self) -> bytes:
        """Unambiguous bytes: lp(secret) || 0x00, or lp(secret) || 0x01 || lp(public)."""
        return _encode_card(self.secret, self.public)

    @classmethod
    def decode_from(cls, data: bytes, offset: int) -> tuple["Card", int]:
        secret, offset = _take_lp(data, offset)
        if offset >= len(data):
            raise ValueError("truncated card encoding")
        flag = data[offset]
        offset += 1
        public = None
        if flag == 1:
            pub, offset = _take_lp(data, offset)
            public = pub.decode("utf-8")
        elif flag != 0:
            raise ValueError("bad public-face flag in card encoding")
        return cls(secret.decode("utf-8"), public), offset

    @classmethod
    def from_code(cls, code: str) -> "Card":
        """'R7' or, with a public face, 'R7|P3'."""
        secret, sep, public = code.partition("|")
        return cls(secret, public if sep else None)

    def code(self) -> str:
        return self.secret if self.public is None else f"{self.secret}|{self.public}"

    def __str__(self) -> str:
        return self.code()

    def __repr__(self) -> str:
        return f"Card.from_code({self.code()!r})"

    def to_json(self) -> object:
        return self.secret if self.public is None else [self.secret, self.public]

    @classmethod
    def from_json(cls, value: object) -> "Card":
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
            return cls(value[0], value[1])
        raise ValueError(f"not a card: {value!r}")


@functools.lru_cache(maxsize=4096)
def _encode_card(secret: str, public: str | None) -> bytes:
    out = lp(secret.encode("utf-8"))
    if public is None:
        return out + b"\x00"
    return out + b"\x01" + lp(public.encode("utf-8"))


def _take_lp(data: bytes, offset: int) -> tuple[bytes, int]:
    if offset + 4 > len(data):
        raise ValueError("truncated length prefix")
    n = int.from_bytes(data[offset : offset + 4], "big")
    end = offset + 4 + n
    if end > len(data):
        raise ValueError("truncated field")
    return data[offset + 4 : end], end


COLOURS = ("R", "Y", "G", "B")


def classic_deck() -> tuple[Card, ...]:
    """The 108-card deck in canonical order (the order before shuffling)."""
    faces: list[str] = []
    for c in COLOURS:
        faces.append(f"{c}0")
        for rank in [str(n) for n in range(1, 10)] + ["S", "R", "+2"]:
            faces += [f"{c}{rank}"] * 2
    faces += ["W"] * 4 + ["W+4"] * 4
    return tuple(Card(f) for f in faces)


def deck_2018() -> tuple[Card, ...]:
    """The 112-card 2018 deck: the classic deck, then one Wild Shuffle Hands (`WS`) and three
    Wild Customizable (`WC`), in the rules engine's canonical order."""
    return classic_deck() + (Card("WS"),) + (Card("WC"),) * 3


#: Decks an auditor accepts by name; a round announces its deck by name and list.
KNOWN_DECKS: dict[str, tuple[Card, ...]] = {"classic": classic_deck(), "2018": deck_2018()}


def face_colour(face: str) -> str | None:
    """The colour a held face counts as for the Wild Draw Four rule; wilds have none."""
    if face.startswith("W"):
        return None
    return face[0]


#: Faces that carry the Wild Draw Four rule (and its challenge): UNO Flip's wild draws too.
WILD_DRAWS = frozenset({"W+4", "W+2", "W+C"})


def is_wild_draw(face: str) -> bool:
    return face in WILD_DRAWS


def matching_faces(hand: Iterable[str], colour: str) -> list[str]:
    return [f for f in hand if face_colour(f) == colour]


def wild_draw_four_legal(hand: Iterable[str], colour_in_force: str) -> bool:
    """A Wild Draw Four is legal only if its player held no card of the colour in force.

    `hand` is the faces held at the time of the play (without the W+4 played).
    """
    return not matching_faces(hand, colour_in_force)


def same_multiset(a: Sequence[Card], b: Sequence[Card]) -> bool:
    return sorted(c.code() for c in a) == sorted(c.code() for c in b)
