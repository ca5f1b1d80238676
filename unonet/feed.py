"""What a table sends a client, besides the engine's own events - and how it is built.

The engine's events say what happened ("Ana played W+4"); a client also needs to know
whose turn it is, what the table looks like now, and what *it* may do.  A table (the
local one in `tui/local.py`, a LAN seat in `net/`) sends, to each seat:

* ``Lobby`` while players gather at a LAN table (again whenever someone comes or goes);
* ``TableInfo`` once, when the client sits down (the match begins);
* ``RoundStarted`` before a round's first events;
* the engine events of each action, as that seat may see them (``event.visible_to(seat)``);
* one ``TurnState`` after each batch: the public snapshot plus this seat's options;
* ``RoundScored`` after a round's ``RoundOver``;
* ``Resync`` (then a ``TurnState``) when a client comes back mid-round: the table as it stands;
* ``Refused`` when this seat's action was not accepted (the reason, in words);
* ``TableProblem`` when something is wrong with the table (a check the host's
  announcements failed, the host gone, the link dropped);
* ``Notice`` for news in plain words (a player dropped, left, is back; a bot stands in);
* ``Election`` when the host is gone and another peer takes the table over (the round in
  play is dealt again: a new ``TableInfo``/``RoundStarted`` follow); ``Resumed`` when the new
  host confirmed where the match goes on (a scorekeeper's screen says so);
* ``MatchOver`` at the end of a LAN match (then the feed closes).

And it accepts the engine's actions plus ``Ready`` (deal the next round) and ``Start``
(the host operator starts the match) through one ``submit(action)`` call.  These are
plain values: a network table encodes them as protocol messages without the client
changing.  This module is pure (no IO, no trio, no prompt_toolkit): `net/` builds the same
feed from a seat's engine copy with `turn_state` and `round_scored`.  The values only a LAN
table sends (``Lobby``, ``LobbySeat``, ``MatchOver``, ``TableProblem``, ``Notice``,
``Election``, ``Resumed``, ``Start``, `match_over`) are defined in `lan_feed` and read through this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .engine import Phase
from .engine import _events as ev

if TYPE_CHECKING:
    from .lan_feed import Election, Lobby, LobbySeat, MatchOver, Notice, Resumed, Start, TableProblem, match_over

# The values only a LAN table sends live in `lan_feed` and load on first use (PEP 562 module
# __getattr__): `unonet play` never needs them, and every frozen dataclass compiles its
# generated methods at import (issue 26: the first screen).  `feed.Lobby` and
# `from unonet.feed import Lobby` work as before.
_LAN_VALUES = frozenset({"Lobby", "LobbySeat", "MatchOver", "TableProblem", "Notice", "Election", "Resumed", "Start",
                         "match_over"})


def __getattr__(name: str):
    if name in _LAN_VALUES:
        from . import lan_feed

        value = getattr(lan_feed, name)
        globals()[name] = value  # once: later look-ups are plain attributes
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    bots: tuple[bool, ...] = ()  # per seat: a bot plays it (empty: every other seat is a bot, local play)


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
    # -- the receiving seat's own cards and the card on top: a front end that keeps no model
    # of the round (the scripting mode's `state` line) renders the table from this value alone
    hand: tuple = ()
    top: object = None


@dataclass(frozen=True)
class Resync:
    """The round as it stands, for a client that saw none of it (back in its seat after a
    crash): its own hand and the top card.  Nothing happened: the log says nothing of it."""

    hand: tuple
    top: object = None
    color: str | None = None
    #: the replay stopped between rounds: the round is over (its result follows) and ``hand``
    #: is what it left; no hand is dealt until the next round
    between: bool = False


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
    #: the winner's going-out move was a bot's, standing in for a player who was away (a
    #: LAN seat's own copy tells it: the move came as the host's stand-in `host-act`)
    stand_in: bool = False
    #: the winner emptied its hand by the table's default move for a seat whose turn clock ran
    #: out (deadly: the one playable card is played for it, `host-act` "turn timeout"): its
    #: player did not play that card
    by_clock: bool = False


@dataclass(frozen=True)
class Refused:
    """The seat's move was not taken; ``code`` is the host's (`stale`: a race lost, a move
    the table had moved past -- news, not a fault)."""
    reason: str
    action: object = field(default=None, compare=False)
    code: str = ""


@dataclass(frozen=True, slots=True)
class Ready:
    """The seat is ready for the next round (sent from the round-result screen)."""

    seat: int

    def __str__(self) -> str:
        return "ready"


# ---------------------------------------------------------------------- the pure builders
def note_uno(called: set[int], event) -> None:
    """Keep ``called`` (the seats that called UNO and still may be safe) up to date with one
    engine event; `turn_state` reads it."""
    t = type(event)
    if t is ev.UnoCalled:
        called.add(event.seat)
    elif t in (ev.Drew, ev.NewHand, ev.FalseUno):
        called.discard(event.seat)


def turn_state(rnd, seat: int, called: set[int] | frozenset = frozenset()) -> TurnState:
    """The `TurnState` of engine round ``rnd`` as ``seat`` may see it.  ``called``: the seats
    that called UNO (kept by `note_uno`); a seat above two cards is dropped from it here."""
    counts = tuple(len(h) for h in rnd.hands)
    if isinstance(called, set):
        called.difference_update([s for s in called if counts[s] > 2])
    playing = seat in rnd.active and rnd.outcome is None  # deadly: a knocked-out seat only watches
    jump = tuple(c.id for c in rnd.can_jump_in(seat)) if rnd.turn != seat and playing else ()
    racing = rnd.phase is Phase.RACE and rnd.race is not None
    backs = ()
    if rnd.rules.deck == "flip":
        # the side of every held card that faces the table is public (UNO Flip)
        backs = tuple(() if s == seat else tuple(c.other for c in h) for s, h in enumerate(rnd.hands))
    return TurnState(
        turn=rnd.turn, phase=rnd.phase.value, direction=rnd.direction, color=rnd.color,
        pending=rnd.pending, draw_pile=len(rnd.draw_pile), discard=len(rnd.discard),
        counts=counts, catchable=rnd.catchable,
        uno=tuple(sorted(s for s in called if counts[s] == 1)),
        active=tuple(rnd.active),
        playable=tuple(c.id for c in rnd.playable(seat)) if playing else (), jump_in=jump,
        can_catch=rnd.can_catch(seat) if playing else None,
        uno_ok=rnd.uno_call_valid(seat) if playing else False,
        drawn=rnd.drawn.id if rnd.drawn is not None and rnd.turn == seat else None,
        side=rnd.side, colors=tuple(rnd.colors),
        race=tuple(rnd.race.waiting) if racing else (),
        race_by=rnd.race.seat if racing else None,
        backs=backs,
        hand=tuple(rnd.hands[seat]) if 0 <= seat < len(rnd.hands) else (),
        top=rnd.discard[-1] if rnd.discard else None,
    )


def round_scored(number: int, rnd, match) -> RoundScored:
    """The `RoundScored` of a finished round ``rnd`` (round ``number`` of the match), once
    ``match`` has recorded it (`Match.record`)."""
    o = rnd.outcome
    if o is None:
        raise ValueError(f"round {number} is not over")
    return RoundScored(
        number, o.winner, o.points, tuple(o.hand_points),
        tuple(tuple(h) for h in rnd.hands), tuple(match.scores),
        tuple(match.team_scores) if match.team_scores is not None else None, match.over, match.winner)


class SeatFeed:
    """One seat's feed built from an engine round as that seat sees it: what `LocalTable`
    sends its human seat, and what a LAN seat sends its client from its own engine copy.

    ``seat`` -1 is a watcher (every card hidden, no options).  Per round: `round_started`,
    then `batch(rnd, events)` after each action (the events redacted for the seat, then the
    `TurnState`); after the last batch of a round, `round_scored`."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.called: set[int] = set()   # who called UNO and may still be safe (note_uno)
        self._round = None              # `update`: the round, event list and scored round last seen
        self._events = None
        self._scored = None

    def round_started(self, number: int, dealer: int, scores) -> RoundStarted:
        self.called = set()
        return RoundStarted(number, dealer, tuple(scores))

    def batch(self, rnd, events, head=()) -> list:
        out = list(head)
        for e in events:
            note_uno(self.called, e)
            out.append(e.visible_to(self.seat))
        out.append(turn_state(rnd, self.seat, self.called))
        return out

    def update(self, rnd, events, number: int, match=None, finished: bool = False) -> list:
        """The feed values that are new since the last call, for a driver that holds a round
        which something else advances (the host's round for its operator, a seat's engine
        copy): a new ``rnd`` object starts a round (``number``; the scores from ``match``), a
        new ``events`` list object is a batch, and once the round is over and ``finished``
        (``match`` has recorded it) its `RoundScored`.  Nothing new: []."""
        if rnd is None:
            return []
        head, out = [], []
        if rnd is not self._round:
            self._round, self._events = rnd, None
            head = [self.round_started(number, rnd.dealer, match.scores if match is not None else ())]
        if events is not self._events:
            self._events = events
            out += self.batch(rnd, events, head)
        elif head:
            out += self.batch(rnd, [], head)
        if rnd.outcome is not None and finished and match is not None and self._scored is not rnd:
            self._scored = rnd
            out.append(round_scored(number, rnd, match))
        return out
