"""Cards: one interned object per physical card, plus the text notation.

A card is identified by its physical id (its index in the canonical deck order), so
two red sevens are different cards; the notation (`R7`) names only the face.  Hidden
cards are a value of their own (`UNKNOWN`), not a special case: a peer's copy of the
round holds them where the host holds real cards.
"""

from __future__ import annotations

COLORS = ("R", "Y", "G", "B")
COLOR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
NUMBER_RANKS = tuple(str(n) for n in range(10))
ACTION_RANKS = ("S", "R", "+2")
WILD_RANKS = ("W", "W+4", "WS", "WC")  # WS: Wild Shuffle Hands, WC: Wild Customizable

_POINTS = {"S": 20, "R": 20, "+2": 20, "W": 50, "W+4": 50, "WS": 40, "WC": 40}
_DRAW = {"+2": 2, "W+4": 4}


class InvalidCardError(ValueError):
    """Text that is not a card in our notation."""


class Card:
    """One physical card (or, with ``id`` None, just a face)."""

    __slots__ = ("id", "code", "color", "rank", "points", "wild", "draw", "number")

    def __init__(self, code: str, id: int | None = None) -> None:
        color, rank = _split(code)
        self.id = id
        self.code = (color or "") + rank
        self.color = color
        self.rank = rank
        self.wild = color is None
        self.number = int(rank) if rank in NUMBER_RANKS else None
        self.points = self.number if self.number is not None else _POINTS[rank]
        self.draw = _DRAW.get(rank, 0)

    @classmethod
    def from_code(cls, code: str) -> "Card":
        return cls(code)

    @property
    def known(self) -> bool:
        return True

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        if self.id is None:
            return f"Card.from_code({self.code!r})"
        return f"Card({self.code!r}, id={self.id})"

    def same_face(self, other: "Card") -> bool:
        return self.code == other.code


class _UnknownCard:
    """A card whose face this party may not see (another player's hand, the draw pile)."""

    __slots__ = ()
    id = None
    code = "??"
    color = None
    rank = "?"
    wild = False
    number = None
    points = 0
    draw = 0
    known = False

    def __str__(self) -> str:
        return "??"

    def __repr__(self) -> str:
        return "UNKNOWN"

    def same_face(self, other) -> bool:
        return False


UNKNOWN = _UnknownCard()


def _split(code: str) -> tuple[str | None, str]:
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


def parse_card(code: str) -> Card:
    """Parse a face in the notation (`r7`, `W+4`); raises InvalidCardError naming the text."""
    return Card(code)


def parse_color(text: str) -> str:
    """Parse a colour letter or name (`g`, `green`)."""
    if isinstance(text, str):
        t = text.strip().upper()
        if t in COLORS:
            return t
        for letter, name in COLOR_NAMES.items():
            if t == name.upper():
                return letter
    raise InvalidCardError(f"unknown colour {text!r} (expected one of R, Y, G, B)")


def _build_full_deck() -> tuple[Card, ...]:
    codes: list[str] = []
    for c in COLORS:
        codes.append(c + "0")
        for rank in NUMBER_RANKS[1:] + ACTION_RANKS:
            codes += [c + rank, c + rank]
    codes += ["W"] * 4 + ["W+4"] * 4
    codes += ["WS"] + ["WC"] * 3  # 2018 additions, ids 108-111
    return tuple(Card(code, i) for i, code in enumerate(codes))


FULL_DECK = _build_full_deck()
DECKS = {"classic": FULL_DECK[:108], "2018": FULL_DECK}


def deck_cards(deck: str = "classic") -> tuple[Card, ...]:
    """The physical cards of a deck, in canonical order (ids 0..n-1)."""
    try:
        return DECKS[deck]
    except KeyError:
        raise InvalidCardError(f"unknown deck {deck!r} (expected one of {', '.join(DECKS)})") from None


def card_by_id(card_id: int) -> Card:
    return FULL_DECK[card_id]


class CardPool:
    """Hands out physical cards for faces written in notation, refusing extra copies."""

    def __init__(self, deck: str = "classic") -> None:
        self.deck = deck
        self._free: dict[str, list[Card]] = {}
        for card in reversed(deck_cards(deck)):
            self._free.setdefault(card.code, []).append(card)

    def take(self, code: str) -> Card:
        face = parse_card(code)
        free = self._free.get(face.code)
        if free is None:
            raise InvalidCardError(f"card {code!r} is not in the {self.deck} deck")
        if not free:
            raise InvalidCardError(f"too many copies of {face.code!r} for the {self.deck} deck")
        return free.pop()

    def remaining(self) -> list[Card]:
        return sorted((c for cards in self._free.values() for c in cards), key=lambda c: c.id)
