"""What a table sends a client, besides the engine's own events.

The engine's events say what happened ("Ana played W+4"); a client also needs to know
whose turn it is, what the table looks like now, and what *it* may do.  A table (the
local one in `local.py`, a LAN host later) sends, to each seat:

* ``TableInfo`` once, when the client sits down;
* ``RoundStarted`` before a round's first events;
* the engine events of each action, as that seat may see them (``event.visible_to(seat)``);
* one ``TurnState`` after each batch: the public snapshot plus this seat's options;
* ``RoundScored`` after a round's ``RoundOver``;
* ``Refused`` when this seat's action was not accepted (the reason, in words).

And it accepts the engine's actions plus ``Ready`` (deal the next round) through one
``submit(action)`` call.  These are plain values: a network table can encode them as
protocol messages without the client changing.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TableInfo:
    names: tuple[str, ...]
    me: int
    rules_text: str              # RuleSet.describe()
    house: tuple[str, ...] = ()  # house rules in force (names)
    preset: str = "official"
    teams: bool = False
    target: int = 500
    scoring: str = "standard"
    deck: str = "classic"


@dataclass(frozen=True)
class RoundStarted:
    number: int
    dealer: int
    scores: tuple[int, ...]


@dataclass(frozen=True)
class TurnState:
    """The table as it is now, public part plus what the receiving seat may do."""

    turn: int | None
    phase: str                       # engine Phase value: play, drawn, color, challenge, swap, race, over
    direction: int
    color: str | None
    pending: int
    draw_pile: int
    discard: int
    counts: tuple[int, ...]
    catchable: int | None            # seat that may be caught without UNO (public)
    uno: tuple[int, ...] = ()        # seats on one card who called UNO (safe)
    active: tuple[int, ...] = ()
    # -- for the receiving seat only
    playable: tuple[int, ...] = ()   # card ids it may play now (its turn)
    jump_in: tuple[int, ...] = ()    # card ids it may jump in with (out of turn)
    can_catch: int | None = None     # seat it may catch now
    uno_ok: bool = False             # a UNO call now would be valid
    drawn: int | None = None         # id of the card just drawn (phase "drawn")
    # -- variants (public)
    side: int = 0                    # UNO Flip: 0 light side up, 1 dark side up
    colors: tuple[str, ...] = ("R", "Y", "G", "B")   # the colours a wild may name now
    race: tuple[int, ...] = ()       # a reaction race is on: the seats that have not responded
    race_by: int | None = None       # who started it
    backs: tuple[tuple, ...] = ()    # UNO Flip: per seat, the faces the table sees (the other
                                     # side of each held card); () for the receiving seat


@dataclass(frozen=True)
class RoundScored:
    number: int
    winner: int | None
    points: int
    hand_points: tuple[int, ...]
    hands: tuple[tuple, ...]
    scores: tuple[int, ...]
    team_scores: tuple[int, ...] | None
    match_over: bool
    match_winner: int | None         # a seat, or a team number with teams


@dataclass(frozen=True)
class Refused:
    reason: str
    action: object = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Ready:
    """The seat is ready for the next round (sent from the round-result screen)."""

    seat: int

    def __str__(self) -> str:
        return "ready"
