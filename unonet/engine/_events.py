"""Events: what an action caused, and who may see it.

An event with ``to`` set is private to that seat (its cards are real); everyone else
gets ``event.public()``, where the hidden cards are UNKNOWN.  The host sends each seat
its own view; scorekeepers and the transcript get the public one.
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

    def public(self) -> Dealt:
        return Dealt(self.seat, _hidden(self.cards))


@dataclass(slots=True)
class Drew(Event):
    """``reason``: turn, penalty, challenge, uno, catch."""

    seat: int
    cards: list[AnyCard]
    reason: str = "turn"
    to: int | None = None

    def public(self) -> Drew:
        return Drew(self.seat, _hidden(self.cards), self.reason)


@dataclass(slots=True)
class FirstDiscard(Event):
    card: AnyCard


@dataclass(slots=True)
class ReturnedToDeck(Event):
    """A Wild Draw Four turned up as the first discard goes back and the deck is reshuffled."""

    card: AnyCard


@dataclass(slots=True)
class Reshuffled(Event):
    count: int


@dataclass(slots=True)
class Played(Event):
    seat: int
    card: AnyCard
    color: str
    jump_in: bool = False


@dataclass(slots=True)
class Kept(Event):
    seat: int


@dataclass(slots=True)
class ColorChosen(Event):
    seat: int
    color: str


@dataclass(slots=True)
class Skipped(Event):
    seat: int


@dataclass(slots=True)
class DirectionChanged(Event):
    direction: int


@dataclass(slots=True)
class UnoCalled(Event):
    seat: int


@dataclass(slots=True)
class FalseUno(Event):
    seat: int


@dataclass(slots=True)
class Caught(Event):
    seat: int
    target: int


@dataclass(slots=True)
class Challenged(Event):
    """``color`` is the colour that was in force when the wild draw was played: the verdict
    says whether ``target`` held it."""

    seat: int
    target: int
    guilty: bool
    color: str | None = None


@dataclass(slots=True)
class Evidence(Event):
    """The challenged hand, shown to the challenger alone."""

    seat: int
    target: int
    cards: list[AnyCard]
    to: int | None = None

    def public(self) -> Evidence:
        return Evidence(self.seat, self.target, _hidden(self.cards))


@dataclass(slots=True)
class Swapped(Event):
    seat: int
    target: int


@dataclass(slots=True)
class HandsPassed(Event):
    direction: int


@dataclass(slots=True)
class HandsShuffled(Event):
    seat: int


@dataclass(slots=True)
class NewHand(Event):
    """The seat's hand is now exactly ``cards`` (after a swap, a pass or a shuffle of hands)."""

    seat: int
    cards: list[AnyCard]
    to: int | None = None

    def public(self) -> NewHand:
        return NewHand(self.seat, _hidden(self.cards))


@dataclass(slots=True)
class RoundOver(Event):
    winner: int | None
    points: int
    hands: list[list[AnyCard]]
    termination: str


@dataclass(slots=True)
class RaceStarted(Event):
    """A reaction race: ``waiting`` must respond; the last (or too slow) draws 2."""

    seat: int
    card: AnyCard
    waiting: list[int]


@dataclass(slots=True)
class Responded(Event):
    seat: int


@dataclass(slots=True)
class RaceLost(Event):
    seat: int


@dataclass(slots=True)
class Flipped(Event):
    """Every card turned over (UNO Flip); ``side`` 0 light, 1 dark; the new top discard.
    ``visible`` is, per seat, the faces the table now sees of that hand (public: they were
    each holder's secret until the flip)."""

    seat: int
    side: int
    top: AnyCard
    visible: list[list[Card | None]] | None = None


@dataclass(slots=True)
class SwapDeclined(Event):
    """Seven-O with the optional swap: the player of the 7 keeps their own hand."""

    seat: int


@dataclass(slots=True)
class SkippedAll(Event):
    seat: int


@dataclass(slots=True)
class ExactMatch(Event):
    """Dirty UNO: ``seat`` matched ``target``'s card exactly; ``target`` draws its number."""

    seat: int
    target: int
    count: int


@dataclass(slots=True)
class KnockedOut(Event):
    """Deadly UNO: ``seat`` could not play and is out of the round."""

    seat: int
