"""Events: what an action caused, and who may see it.

An event with ``to`` set is private to that seat (its cards are real); everyone else
gets ``event.public()``, where the hidden cards are UNKNOWN.  The host sends each seat
its own view; scorekeepers and the transcript get the public one.

Each event class writes its ``__init__`` out although it is a dataclass: where the engine is
compiled, that makes building an event a native call (a dataclass's generated ``__init__`` is
interpreted Python, ~4x slower to call, and the engine builds one or two events an action).
The dataclass still gives the repr, ``==`` and `dataclasses.fields` (the table's readers);
tests/engine/test_build.py checks each ``__init__`` against the fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._cards import AnyCard, Card, hidden


def _hidden(cards: list[AnyCard]) -> list[AnyCard]:
    return [hidden(c) for c in cards]


class Event:
    __slots__ = ()
    to: int | None = None  # the one seat this event is for (its private cards), None: everyone

    def public(self) -> Event:
        return self

    def visible_to(self, seat: int | None) -> Event:
        """The event as ``seat`` sees it (None: a public observer)."""
        if self.to is None or self.to == seat:
            return self
        return self.public()


@dataclass(slots=True)
class Dealt(Event):
    seat: int
    cards: list[AnyCard]
    to: int | None = None

    def __init__(self, seat: int, cards: list[AnyCard], to: int | None = None) -> None:
        self.seat = seat
        self.cards = cards
        self.to = to

    def public(self) -> Dealt:
        return Dealt(self.seat, _hidden(self.cards))


@dataclass(slots=True)
class Drew(Event):
    """``reason``: turn, penalty, challenge, uno, catch."""

    seat: int
    cards: list[AnyCard]
    reason: str = "turn"
    to: int | None = None

    def __init__(self, seat: int, cards: list[AnyCard], reason: str = "turn", to: int | None = None) -> None:
        self.seat = seat
        self.cards = cards
        self.reason = reason
        self.to = to

    def public(self) -> Drew:
        return Drew(self.seat, _hidden(self.cards), self.reason)


@dataclass(slots=True)
class FirstDiscard(Event):
    card: AnyCard

    def __init__(self, card: AnyCard) -> None:
        self.card = card


@dataclass(slots=True)
class ReturnedToDeck(Event):
    """A Wild Draw Four turned up as the first discard goes back and the deck is reshuffled."""

    card: AnyCard

    def __init__(self, card: AnyCard) -> None:
        self.card = card


@dataclass(slots=True)
class Reshuffled(Event):
    count: int

    def __init__(self, count: int) -> None:
        self.count = count


@dataclass(slots=True)
class Played(Event):
    seat: int
    card: AnyCard
    color: str
    jump_in: bool = False

    def __init__(self, seat: int, card: AnyCard, color: str, jump_in: bool = False) -> None:
        self.seat = seat
        self.card = card
        self.color = color
        self.jump_in = jump_in


@dataclass(slots=True)
class Kept(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class ColorChosen(Event):
    seat: int
    color: str

    def __init__(self, seat: int, color: str) -> None:
        self.seat = seat
        self.color = color


@dataclass(slots=True)
class Skipped(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class DirectionChanged(Event):
    direction: int

    def __init__(self, direction: int) -> None:
        self.direction = direction


@dataclass(slots=True)
class UnoCalled(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class FalseUno(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class Caught(Event):
    seat: int
    target: int

    def __init__(self, seat: int, target: int) -> None:
        self.seat = seat
        self.target = target


@dataclass(slots=True)
class Challenged(Event):
    """``color`` is the colour that was in force when the wild draw was played: the verdict
    says whether ``target`` held it."""

    seat: int
    target: int
    guilty: bool
    color: str | None = None

    def __init__(self, seat: int, target: int, guilty: bool, color: str | None = None) -> None:
        self.seat = seat
        self.target = target
        self.guilty = guilty
        self.color = color


@dataclass(slots=True)
class Evidence(Event):
    """The challenged hand, shown to the challenger alone."""

    seat: int
    target: int
    cards: list[AnyCard]
    to: int | None = None

    def __init__(self, seat: int, target: int, cards: list[AnyCard], to: int | None = None) -> None:
        self.seat = seat
        self.target = target
        self.cards = cards
        self.to = to

    def public(self) -> Evidence:
        return Evidence(self.seat, self.target, _hidden(self.cards))


@dataclass(slots=True)
class Swapped(Event):
    seat: int
    target: int

    def __init__(self, seat: int, target: int) -> None:
        self.seat = seat
        self.target = target


@dataclass(slots=True)
class HandsPassed(Event):
    direction: int

    def __init__(self, direction: int) -> None:
        self.direction = direction


@dataclass(slots=True)
class HandsShuffled(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class NewHand(Event):
    """The seat's hand is now exactly ``cards`` (after a swap, a pass or a shuffle of hands)."""

    seat: int
    cards: list[AnyCard]
    to: int | None = None

    def __init__(self, seat: int, cards: list[AnyCard], to: int | None = None) -> None:
        self.seat = seat
        self.cards = cards
        self.to = to

    def public(self) -> NewHand:
        return NewHand(self.seat, _hidden(self.cards))


@dataclass(slots=True)
class RoundOver(Event):
    winner: int | None
    points: int
    hands: list[list[AnyCard]]
    termination: str

    def __init__(self, winner: int | None, points: int, hands: list[list[AnyCard]], termination: str) -> None:
        self.winner = winner
        self.points = points
        self.hands = hands
        self.termination = termination


@dataclass(slots=True)
class RaceStarted(Event):
    """A reaction race: ``waiting`` must respond; the last (or too slow) draws 2."""

    seat: int
    card: AnyCard
    waiting: list[int]

    def __init__(self, seat: int, card: AnyCard, waiting: list[int]) -> None:
        self.seat = seat
        self.card = card
        self.waiting = waiting


@dataclass(slots=True)
class Responded(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class RaceLost(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class Flipped(Event):
    """Every card turned over (UNO Flip); ``side`` 0 light, 1 dark; the new top discard.
    ``visible`` is, per seat, the faces the table now sees of that hand (public: they were
    each holder's secret until the flip)."""

    seat: int
    side: int
    top: AnyCard
    visible: list[list[Card | None]] | None = None

    def __init__(
            self, seat: int, side: int, top: AnyCard, visible: list[list[Card | None]] | None = None) -> None:
        self.seat = seat
        self.side = side
        self.top = top
        self.visible = visible


@dataclass(slots=True)
class SwapDeclined(Event):
    """Seven-O with the optional swap: the player of the 7 keeps their own hand."""

    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class SkippedAll(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True)
class ExactMatch(Event):
    """Dirty UNO: ``seat`` matched ``target``'s card exactly; ``target`` draws its number."""

    seat: int
    target: int
    count: int

    def __init__(self, seat: int, target: int, count: int) -> None:
        self.seat = seat
        self.target = target
        self.count = count


@dataclass(slots=True)
class KnockedOut(Event):
    """Deadly UNO: ``seat`` could not play and is out of the round."""

    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat
