"""Actions a seat can take, and the errors for refusing them.

Actions are small values with a text form, so errors and logs can name them.  They are
not frozen only because frozen dataclasses cost twice as much to build on the hot path;
treat them as immutable. Each writes its ``__init__`` out, for the reason the events do
(`_events`: a native call where the engine is compiled). Their fields take any value (`Any`): a hostile peer's action is
refused by the round with an ActionError naming it, the same whether the engine is compiled
(where a typed field would check at construction) or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class ActionError(ValueError):
    """Base of the refusals; the round's state is unchanged when one is raised."""


class InvalidActionError(ActionError):
    """The action is malformed: not an action, an unknown seat or colour."""


class IllegalActionError(ActionError):
    """The action is well formed but the rules do not allow it now."""


class OutOfTurnError(IllegalActionError):
    """The rules allow the seat nothing of the kind now: another seat is to act (the wire's
    ``out-of-turn``, spec §4.6, where other refusals are ``illegal``)."""


@dataclass(slots=True)
class Play:
    seat: Any
    card: Any
    color: Any = None
    uno: Any = False

    def __init__(self, seat: Any, card: Any, color: Any = None, uno: Any = False) -> None:
        self.seat = seat
        self.card = card
        self.color = color
        self.uno = uno

    def __str__(self) -> str:
        text = f"play '{self.card}'"
        if self.color:
            text += f" naming {self.color}"
        return text + (" with UNO" if self.uno else "")


@dataclass(slots=True)
class Draw:
    """Draw a card; when a penalty is pending on the seat, accept it and draw the penalty."""

    seat: Any

    def __init__(self, seat: Any) -> None:
        self.seat = seat

    def __str__(self) -> str:
        return "draw"


@dataclass(slots=True)
class Pass:
    """Keep the card just drawn; the turn ends."""

    seat: Any

    def __init__(self, seat: Any) -> None:
        self.seat = seat

    def __str__(self) -> str:
        return "pass"


@dataclass(slots=True)
class Challenge:
    seat: Any

    def __init__(self, seat: Any) -> None:
        self.seat = seat

    def __str__(self) -> str:
        return "challenge"


@dataclass(slots=True)
class CallUno:
    seat: Any

    def __init__(self, seat: Any) -> None:
        self.seat = seat

    def __str__(self) -> str:
        return "UNO"


@dataclass(slots=True)
class Catch:
    seat: Any
    target: Any

    def __init__(self, seat: Any, target: Any) -> None:
        self.seat = seat
        self.target = target

    def __str__(self) -> str:
        return f"catch seat {self.target}"


@dataclass(slots=True)
class ChooseColor:
    """Name the colour when the first discard is a wild."""

    seat: Any
    color: Any

    def __init__(self, seat: Any, color: Any) -> None:
        self.seat = seat
        self.color = color

    def __str__(self) -> str:
        return f"colour {self.color}"


@dataclass(slots=True)
class Swap:
    """Seven-O: after playing a 7, swap hands with ``target``."""

    seat: Any
    target: Any

    def __init__(self, seat: Any, target: Any) -> None:
        self.seat = seat
        self.target = target

    def __str__(self) -> str:
        return f"swap with seat {self.target}"


@dataclass(slots=True)
class Respond:
    """Answer a reaction race (6-smackdown, Wild Kevin's Famous Chili): slap the card."""

    seat: Any

    def __init__(self, seat: Any) -> None:
        self.seat = seat

    def __str__(self) -> str:
        return "respond to the race"


@dataclass(slots=True)
class CloseRace:
    """The referee's clock ran out on a reaction race: whoever has not responded draws 2."""

    seat: Any = None

    def __init__(self, seat: Any = None) -> None:
        self.seat = seat

    def __str__(self) -> str:
        return "close the race"


Action = Play | Draw | Pass | Challenge | CallUno | Catch | ChooseColor | Swap | Respond | CloseRace
