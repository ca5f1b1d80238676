"""Cards: one interned object per physical card, plus the text notation.

A card is identified by its physical id (its index in the canonical deck order), so
two red sevens are different cards; the notation (`R7`) names only the face.  Hidden
cards are a value of their own (`UNKNOWN`), not a special case: a peer's copy of the
round holds them where the host holds real cards.  `AnyCard` is the type of both (a `Card`
or a `HiddenCard`), with every attribute of a card, so the round and the events are typed
with it and run natively where the engine is compiled.
"""

from __future__ import annotations

from typing import Final

COLORS = ("R", "Y", "G", "B")
DARK_COLORS = ("P", "T", "O", "U")  # UNO Flip's dark side: pink, teal, orange, pUrple
COLOR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue",
               "P": "pink", "T": "teal", "O": "orange", "U": "purple"}
NUMBER_RANKS = tuple(str(n) for n in range(10))
ACTION_RANKS = ("S", "R", "+2")
# WS: Wild Shuffle Hands, WC: Wild Customizable (2018); WK: Wild Kevin's Famous Chili (Office)
WILD_RANKS = ("W", "W+4", "WS", "WC", "WK")

_POINTS = {"S": 20, "R": 20, "+2": 20, "W": 50, "W+4": 50, "WS": 40, "WC": 40, "WK": 50}
_DRAW = {"+2": 2, "W+4": 4}

# UNO Flip faces (variants issue): rank -> (points, cards drawn; -1 = until the named colour)
FLIP_LIGHT = {"+1": (10, 1), "R": (20, 0), "S": (20, 0), "F": (20, 0), "W": (40, 0), "W+2": (50, 2)}
FLIP_DARK = {"+5": (20, 5), "R": (20, 0), "SE": (30, 0), "F": (20, 0), "W": (40, 0), "W+C": (60, -1)}


class InvalidCardError(ValueError):
    """Text that is not a card in our notation."""


class AnyCard:
    """What lies where a card may be: a physical card (`Card`) or one this party may not see
    (`HiddenCard`). One type for both, with every attribute of a card, so the round's hands and
    piles and the events hold either (natively where the engine is compiled) and a peer's copy
    runs the same code as the host's."""

    __slots__ = ("id", "code", "color", "rank", "points", "wild", "draw", "number", "other", "side", "known")
    id: int | None
    code: str
    color: str | None
    rank: str
    points: int
    wild: bool
    draw: int
    number: int | None
    other: Card | None  # the other face of a double-sided (Flip) card
    side: int           # 0 light (every classic card), 1 dark
    known: bool

    def may_be(self, card: AnyCard) -> bool:
        """Could this be ``card``, as far as this party can tell?"""
        return self is card

    def turned(self) -> AnyCard:
        """This card once the table turns over (UNO Flip)."""
        return self

    def same_face(self, other: AnyCard) -> bool:
        return False


class Card(AnyCard):
    """One physical card (or, with ``id`` None, just a face)."""

    __slots__ = ()

    def __init__(self, code: object, id: int | None = None, *,
                 face: tuple[str | None, str, int, int, int] | None = None) -> None:
        if face is None:
            color, rank = _split(code)
            number = int(rank) if rank in NUMBER_RANKS else None
            points = number if number is not None else _POINTS[rank]
            draw = _DRAW.get(rank, 0)
            side = 0
        else:
            color, rank, points, draw, side = face
            number = int(rank) if rank in NUMBER_RANKS else None
        self.id = id
        self.code = (color or "") + rank
        self.color = color
        self.rank = rank
        self.wild = color is None
        self.number = number
        self.points = points
        self.draw = draw
        self.other = None
        self.side = side
        self.known = True

    @classmethod
    def from_code(cls, code: str) -> Card:
        return cls(code)

    def __str__(self) -> str:
        return self.code

    @property
    def full_code(self) -> str:
        """Both faces of a Flip card, light first (`R5/T7`); the code otherwise."""
        other = self.other
        if other is None:
            return self.code
        light, dark = (self, other) if self.side == 0 else (other, self)
        return f"{light.code}/{dark.code}"

    def __repr__(self) -> str:
        if self.id is None:
            return f"Card.from_code({self.code!r})"
        return f"Card({self.full_code!r}, id={self.id})"

    def turned(self) -> AnyCard:
        return self if self.other is None else self.other

    def same_face(self, other: AnyCard) -> bool:
        return self.code == other.code


class HiddenCard(AnyCard):
    """A card whose face this party may not see (another player's hand, the draw pile):
    `UNKNOWN`, or a `HiddenFlipCard`."""

    __slots__ = ()

    def __init__(self) -> None:
        self.id = None
        self.code = "??"
        self.color = None
        self.rank = "?"
        self.points = 0
        self.wild = False
        self.draw = 0
        self.number = None
        self.other = None
        self.side = 0
        self.known = False

    def may_be(self, card: AnyCard) -> bool:
        return True

    def __str__(self) -> str:
        return "??"

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = HiddenCard()


class HiddenFlipCard(HiddenCard):
    """A Flip card whose face toward its holder is secret: the other face (``back``) shows."""

    __slots__ = ("back",)

    def __init__(self, back: Card) -> None:
        super().__init__()
        self.back = back

    def may_be(self, card: AnyCard) -> bool:
        return self.back is card.other

    def turned(self) -> AnyCard:
        return self.back  # turned over, the face that showed is the one toward its holder

    def __repr__(self) -> str:
        return f"HiddenFlipCard(back={self.back.code!r})"


def hidden(card: AnyCard) -> HiddenCard:
    """How ``card`` looks to someone who may not see its face."""
    return UNKNOWN if card.other is None else HiddenFlipCard(card.other)


def _split(code: object) -> tuple[str | None, str]:
    if not isinstance(code, str):
        raise InvalidCardError(f"not a card: {code!r}")
    text = code.strip().upper()
    if text in WILD_RANKS:
        return None, text
    if len(text) >= 2 and text[0] in COLORS:
        rank = text[1:]
        if rank in NUMBER_RANKS or rank in ACTION_RANKS:
            return text[0], rank
    raise InvalidCardError(f"unknown card {code!r}")


def parse_card(code: object) -> Card:
    """Parse a face in the notation (`r7`, `W+4`); raises InvalidCardError naming the text."""
    return Card(code)


def parse_color(text: object) -> str:
    """Parse a colour letter or name (`g`, `green`)."""
    if isinstance(text, str):
        t = text.strip().upper()
        if t in COLORS or t in DARK_COLORS:
            return t
        for letter, name in COLOR_NAMES.items():
            if t == name.upper():
                return letter
    raise InvalidCardError(f"unknown colour {text!r} (expected one of R, Y, G, B; on Flip's dark side P, T, O, U)")


def _build_full_deck() -> tuple[Card, ...]:
    codes: list[str] = []
    for c in COLORS:
        codes.append(c + "0")
        for rank in NUMBER_RANKS[1:] + ACTION_RANKS:
            codes += [c + rank, c + rank]
    codes += ["W"] * 4 + ["W+4"] * 4
    codes += ["WS"] + ["WC"] * 3  # 2018 additions, ids 108-111
    codes += ["WK"] * 4           # Office: Wild Kevin's Famous Chili, ids 112-115
    return tuple(Card(code, i) for i, code in enumerate(codes))


def _flip_faces(colors, table, side) -> list[tuple]:
    faces = []
    for c in colors:
        for rank in NUMBER_RANKS[1:]:
            faces += [(c, rank, int(rank), 0, side)] * 2
        for rank, (points, draw) in table.items():
            if not rank.startswith("W"):
                faces += [(c, rank, points, draw, side)] * 2
    for rank, (points, draw) in table.items():
        if rank.startswith("W"):
            faces += [(None, rank, points, draw, side)] * 4
    return faces


# Flip's light face i is paired with dark face FLIP_PAIRING[i]: a fixed permutation
# (i * 37 + 11) mod 112, so the two sides are not correlated (docs/rules.md).
FLIP_PAIRING = tuple((i * 37 + 11) % 112 for i in range(112))


def _build_flip_deck() -> tuple[Card, ...]:
    light = _flip_faces(COLORS, FLIP_LIGHT, 0)
    dark = _flip_faces(DARK_COLORS, FLIP_DARK, 1)
    assert len(light) == len(dark) == 112 and len(set(FLIP_PAIRING)) == 112
    cards = []
    for i, face in enumerate(light):
        front = Card("", i, face=face)
        back = Card("", i, face=dark[FLIP_PAIRING[i]])
        front.other, back.other = back, front
        cards.append(front)
    return tuple(cards)


def _power_deck(full) -> tuple[Card, ...]:
    """Power UNO (community seed): no 0-5, except one blue 2 and one green 3."""
    keep, kept_b2, kept_g3 = [], False, False
    for card in full[:108]:
        if card.number is not None and card.number <= 5:
            if card.code == "B2" and not kept_b2:
                kept_b2 = True
            elif card.code == "G3" and not kept_g3:
                kept_g3 = True
            else:
                continue
        keep.append(card)
    return tuple(keep)


FULL_DECK = _build_full_deck()
FLIP_DECK = _build_flip_deck()
DECKS = {
    "classic": FULL_DECK[:108],
    "2018": FULL_DECK[:112],
    "office": FULL_DECK[:108] + FULL_DECK[112:116],
    "power": _power_deck(FULL_DECK),
    "flip": FLIP_DECK,
}


def deck_cards(deck: str = "classic") -> tuple[Card, ...]:
    """The physical cards of a deck, in canonical order (ids 0..n-1)."""
    try:
        return DECKS[deck]
    except KeyError:
        raise InvalidCardError(f"unknown deck {deck!r} (expected one of {', '.join(DECKS)})") from None


def card_by_id(card_id: int, deck: str = "classic") -> Card:
    return (FLIP_DECK if deck == "flip" else FULL_DECK)[card_id]


def _parse_flip(code: object) -> tuple[str, str | None]:
    """A Flip card as `R5` (light face) or `R5/T7` (both faces)."""
    if not isinstance(code, str):
        raise InvalidCardError(f"not a card: {code!r}")
    parts = code.strip().upper().split("/")
    if len(parts) > 2 or not all(parts):
        raise InvalidCardError(f"unknown card {code!r}")
    return parts[0], (parts[1] if len(parts) == 2 else None)


class CardPool:
    """Hands out physical cards for faces written in notation, refusing extra copies."""

    def __init__(self, deck: str = "classic") -> None:
        self.deck = deck
        self._taken: set[int] = set()
        self._free: dict[str, list[Card]] = {}
        for card in reversed(deck_cards(deck)):
            self._free.setdefault(card.code, []).append(card)
            if card.other is not None:
                self._free.setdefault(card.full_code, []).append(card)

    def take(self, code: object) -> Card:
        if self.deck == "flip":
            light, dark = _parse_flip(code)
            key = f"{light}/{dark}" if dark else light
            shown = key
        else:
            key = shown = parse_card(code).code
        free = self._free.get(key)
        if free is None:
            raise InvalidCardError(f"card {code!r} is not in the {self.deck} deck")
        while free:
            card = free.pop()
            cid = card.id
            assert cid is not None  # a deck's cards are numbered
            if cid not in self._taken:
                self._taken.add(cid)
                return card
        raise InvalidCardError(f"too many copies of {shown!r} for the {self.deck} deck")

    def remaining(self) -> list[Card]:
        return [c for c in deck_cards(self.deck) if c.id not in self._taken]
