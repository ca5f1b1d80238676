"""The round: a pure state machine from the deal to the last card.

`Round.legal_actions(seat)` says what a seat may do; `Round.apply(action)` validates,
changes the state and returns the events it caused, or raises an ActionError naming
the action and the state, leaving the state as it was (every check comes before the
first change).  No IO, no clock: randomness comes from a seeded `random.Random`.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from typing import Any, Callable, Final, Protocol

from ._actions import (
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    CloseRace,
    Draw,
    IllegalActionError,
    InvalidActionError,
    OutOfTurnError,
    Pass,
    Play,
    Respond,
    Swap,
)
from ._cards import COLORS, DARK_COLORS, AnyCard
from ._events import (
    Caught,
    Challenged,
    ColorChosen,
    Dealt,
    DirectionChanged,
    Drew,
    Evidence,
    ExactMatch,
    FalseUno,
    FirstDiscard,
    Flipped,
    KnockedOut,
    RaceLost,
    RaceStarted,
    Responded,
    SkippedAll,
    SwapDeclined,
    HandsPassed,
    HandsShuffled,
    Kept,
    NewHand,
    Played,
    Reshuffled,
    ReturnedToDeck,
    RoundOver,
    Skipped,
    Swapped,
    UnoCalled,
)
from ._rules import RuleSet


def fast_shuffle(rng: random.Random, cards: list) -> None:
    """Fisher-Yates on ``rng.random()``: twice as fast as `random.shuffle`; the 2**-53 bias is
    irrelevant to play (the fair-play layer has its own unbiased, committed shuffle)."""
    rand = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


class Phase(enum.Enum):
    """What the seat whose turn it is must do next."""

    PLAY = "play"            # play a matching card or draw (with a pending +2 stack: stack or draw)
    DRAWN = "drawn"          # play the card just drawn, or keep it
    COLOR = "color"          # the first discard is a wild: name the colour
    CHALLENGE = "challenge"  # a Wild Draw Four is on you: challenge or draw (or stack)
    SWAP = "swap"            # seven-o: you played a 7, pick whom to swap hands with
    RACE = "race"            # a reaction race: the others must respond before play goes on
    OVER = "over"

    def __repr__(self) -> str:
        return f"Phase.{self.name}"


PLAY: Final = Phase.PLAY
DRAWN: Final = Phase.DRAWN
COLOR: Final = Phase.COLOR
CHALLENGE: Final = Phase.CHALLENGE
SWAP: Final = Phase.SWAP
RACE: Final = Phase.RACE
OVER: Final = Phase.OVER

_DOING = {
    PLAY: "play or draw",
    DRAWN: "play the drawn card or keep it",
    COLOR: "name the colour",
    CHALLENGE: "challenge or accept the Wild Draw Four",
    SWAP: "choose whom to swap hands with",
    RACE: "wait for the reaction race",
}


class Termination(enum.Enum):
    EMPTIED_HAND = "emptied_hand"
    DECK_EXHAUSTED = "deck_exhausted"  # nobody could play and nothing was left to draw
    STALEMATE = "stalemate"            # ACTION_LIMIT actions without anyone going out


# A round that runs this long is a loop (two players trading the last cards in play, say):
# it ends blocked, like a table would call it a draw.  Real rounds take 20-150 actions.
ACTION_LIMIT: Final = 5000


@dataclass(frozen=True)
class Outcome:
    """How a round ended: the winner (None if blocked) and every hand's points."""

    termination: Termination
    winner: int | None
    points: int                 # what the winner (or the winning team) scores
    hand_points: tuple[int, ...]


@dataclass
class _WildFour:
    """A wild draw card (Wild Draw Four; Flip's Wild Draw Two and Wild Draw Colour) awaiting its
    victim's answer; the evidence is the hand at play time."""

    seat: int
    prev_color: str | None
    hand: tuple[AnyCard, ...]
    going_out: bool


@dataclass
class _Race:
    seat: int
    card: AnyCard
    waiting: list[int]
    responded: list[int]


#: the actions `Round.apply` takes (`Round._handle` gives each its rule)
_ACTIONS: Final = frozenset({Play, Draw, Pass, Challenge, CallUno, Catch, ChooseColor, Swap, Respond, CloseRace})


class RoundHooks(Protocol):
    """Whoever holds the deck beside the engine: told at each point where the engine moves
    cards in a way it alone cannot account for (the fair-play bridge, `unonet.table.FairRound`,
    maps every card to a committed deck position and reports each move to its backend).

    Composition instead of subclassing: `Round` is one final class (compiled when the engine
    is built, see docs/performance.md), and a round with ``hooks`` None takes none of these
    calls. Each call comes at a fixed point of the engine's order of changes."""

    def started(self, rnd: "Round", events: list) -> None:
        """`start()` turned up the first discard; ``events`` are the opening events."""

    def begin(self, rnd: "Round", action: Any) -> None:
        """`apply(action)` begins (before any check)."""

    def end(self, rnd: "Round", action: Any, events: list | None) -> None:
        """`apply(action)` ended with ``events`` (None: the engine refused it, nothing changed)."""

    def shuffle(self, rnd: "Round", cards: list, why: str) -> None:
        """Order ``cards`` in place: every shuffle after the deal. ``why``: "returned" (a wild
        draw turned up first went back into the pile, which is its last card), "discard" (the
        discard pile but its top becomes the draw pile) or "hands" (Wild Shuffle Hands)."""

    def drawing(self, rnd: "Round", seat: int) -> None:
        """``seat`` is about to take cards from the draw pile (a reshuffle may come between)."""

    def drew(self, rnd: "Round") -> None:
        """The cards of the last `drawing` are in the seat's hand."""

    def stops(self, rnd: "Round", seat: int, card: Any, stop: Callable[[Any], bool], then: int,
              events: list) -> bool:
        """Does ``card`` (just drawn) end a draw-until? ``stop(card)`` where the card is known."""

    def verdict(self, rnd: "Round", seat: int, wild_four: "_WildFour") -> bool:
        """The verdict of ``seat``'s challenge of ``wild_four`` (is its player guilty?)."""

    def flipping(self, rnd: "Round") -> None:
        """UNO Flip: the table is about to turn over."""

    def flipped(self, rnd: "Round") -> None:
        """UNO Flip: the table turned over (hands, piles and the side)."""

    def spent(self, rnd: "Round") -> bool:
        """Has the deck holder (nearly) used up what it can number -- the fair layer's epochs
        and positions, which the wire caps -- so that the round must end, blocked, with this
        action as at ACTION_LIMIT?  Asked at each action's end, before `end`."""


class Round:
    """One hand of UNO.  Build it with `Round.deal` or `Round.stacked`, then `start()`.

    A final class: a deck holder plugs in through ``hooks`` (`RoundHooks`), never by subclassing."""

    def __init__(self, rules: RuleSet, players: int, dealer: int, hands, draw_pile,
                 rng: random.Random, active=None) -> None:
        rules.check_players(players)
        self.rules = rules
        self.players = players
        self.active = tuple(sorted(active)) if active is not None else tuple(range(players))
        if len(self.active) < 2:
            raise ValueError("a round needs at least two players in play")
        if dealer not in self.active:
            raise ValueError(f"dealer {dealer} is not a seat in play")
        self.dealer = dealer
        self.hands: list[list[AnyCard]] = [list(h) for h in hands]
        self.draw_pile: list[AnyCard] = list(draw_pile)  # top of the pile is the END of the list
        self.discard: list[AnyCard] = []
        self.rng = rng
        self.hooks: RoundHooks | None = None  # a deck holder beside the engine (fair play)
        self.color: str | None = None
        self.direction = 1
        self.turn: int | None = None
        self.phase = PLAY
        self.pending = 0
        self.drawn: AnyCard | None = None
        self.wild_four: _WildFour | None = None
        self.precall: int | None = None  # the turn seat that called UNO before its play
        self.catchable: int | None = None
        self.just_one: int | None = None
        self.empty_draws = 0
        self.outcome: Outcome | None = None
        self.actions = 0
        self.two_player = len(self.active) == 2
        self.dealt_in = self.active  # every seat dealt into the round (deadly knocks some out)
        succ: list[int] = [-1] * players  # -1: a seat not in play
        pred: list[int] = [-1] * players
        for i, s in enumerate(self.active):
            succ[s] = self.active[(i + 1) % len(self.active)]
            pred[s] = self.active[(i - 1) % len(self.active)]
        self._succ: dict[int, list[int]] = {1: succ, -1: pred}
        self._stacking = rules.stacking
        self._seven_o = rules.seven_o
        self._jump_in = rules.jump_in
        self._no_wild_end = rules.no_wild_endings
        self._keep_drawing = rules.keep_drawing
        has = rules.house.__contains__
        self._mixed = has("stacking-mixed")
        self._challenges = not has("no-challenges") and not has("wd4-strict")
        self._uno_penalty = 4 if has("uno-penalty-4") else 2
        self._draw_and_play = has("draw-and-play")
        self._seven_optional = has("seven-o-optional")
        self._exact = has("exact-match-penalty")
        self._deadly = has("deadly")
        self._six = has("six-smackdown")
        self._wd4_strict = has("wd4-strict")
        self._must_wd4 = has("must-play-wd4")
        self._green_wd4 = has("first-wd4-green")
        # no-draw-first-round: the seats still to have their first turn (empty: no ban)
        self._first_circle = set(self.active) if has("no-draw-first-round") else set()
        self._banning = self._wd4_strict or bool(self._first_circle)
        self.side = 0
        self.colors = COLORS
        self.pending_until = False   # Flip's Wild Draw Colour: draw until the named colour
        self.pending_rank: str | None = None
        self.race: _Race | None = None
        self.last_player: int | None = None
        self.knocked_out: list[int] = []
        # ranks with an effect beyond passing the turn (under these rules)
        self._special = frozenset({"S", "R", "WS", "F", "SE", "WK"}
                                  | ({"7", "0"} if self._seven_o else set())
                                  | ({"6"} if self._six else set()))

    # ------------------------------------------------------------------ set-up
    @classmethod
    def deal(cls, rules: RuleSet, players: int, dealer: int, seed=None, *, active=None,
             deck=None) -> "Round":
        """Shuffle ``deck`` (default: the rules' deck) with ``seed`` and deal from the dealer's left."""
        from ._cards import deck_cards

        rng = random.Random(seed)
        pile = list(deck if deck is not None else deck_cards(rules.deck))
        fast_shuffle(rng, pile)
        hands: list[list] = [[] for _ in range(players)]
        r = cls(rules, players, dealer, hands, [], rng, active=active)
        n = len(r.active)
        dealt = rules.hand_size * n
        s = r._succ[1][dealer]
        # one card at a time from the top (the end of the list), starting at the dealer's left
        for k in range(n):
            hands[s] = pile[-1 - k::-n][: rules.hand_size]
            s = r._succ[1][s]
        del pile[-dealt:]
        r.hands = hands
        r.draw_pile = pile
        return r

    @classmethod
    def stacked(cls, rules: RuleSet, players: int, dealer: int, hands, deck, seed=None,
                *, active=None) -> "Round":
        """A round from given hands and a draw pile listed top first (the scenario format)."""
        return cls(rules, players, dealer, hands, list(reversed(list(deck))),
                   random.Random(seed), active=active)

    def start(self) -> list:
        """Turn up the first discard and apply its effect; returns the opening events."""
        events: list = [Dealt(s, list(self.hands[s]), s) for s in self.active]
        for _ in range(1000):
            if not self.draw_pile:
                raise ValueError("the draw pile is empty: no card to turn up as the first discard")
            card = self.draw_pile.pop()
            if not (card.wild and card.draw) or (self._green_wd4 and card.rank == "W+4"):
                break
            # Official: a Wild Draw Four goes back into the deck, which is reshuffled
            # (Flip's wild draws likewise).
            events.append(ReturnedToDeck(card))
            self.draw_pile.append(card)
            self._shuffle(self.draw_pile, "returned")
        else:
            raise ValueError("the draw pile holds only Wild Draw Fours: no first discard can be turned")
        self.discard.append(card)
        events.append(FirstDiscard(card))
        self.color = card.color
        first = self._succ[1][self.dealer]
        rank = card.rank
        if rank == "S":
            events.append(Skipped(first))
            self.turn = self._succ[1][first]
        elif rank == "R":
            if self.two_player:
                events.append(Skipped(first))
            else:
                self.direction = -1
                events.append(DirectionChanged(-1))
            self.turn = self.dealer
        elif card.draw and not card.wild:
            self._draw_cards(first, card.draw, events, "penalty")
            events.append(Skipped(first))
            self.turn = self._succ[1][first]
        elif card.wild and card.draw:  # first-wd4-green (Power): it stays, green, nobody draws
            self.color = "G"
            self.turn = first
        elif card.wild:
            self.turn = first
            self.phase = COLOR
        elif rank == "SE":
            events.append(Skipped(first))  # Flip's Skip Everyone turned first: acts as a Skip
            self.turn = self._succ[1][first]
        else:
            self.turn = first
        if self._first_circle:
            self._circled(None, events)
        if self.hooks is not None:
            self.hooks.started(self, events)
        return events

    # ------------------------------------------------------------------ queries
    @property
    def top(self) -> AnyCard:
        return self.discard[-1]

    @property
    def over(self) -> bool:
        return self.phase is OVER

    def next_seat(self, seat: int, steps: int = 1) -> int:
        succ = self._succ[self.direction]
        for _ in range(steps):
            seat = succ[seat]
        return seat

    def team_of(self, seat: int) -> int | None:
        return seat % 2 if self.rules.teams else None

    def matches(self, card: AnyCard) -> bool:
        """Does ``card`` match the top discard (ignoring whose turn it is)?"""
        return card.wild or card.color == self.color or card.rank == self.discard[-1].rank

    def playable(self, seat: int) -> list[AnyCard]:
        """The cards ``seat`` may play in its turn right now (fast path for bots)."""
        if seat != self.turn:
            return []
        phase = self.phase
        hand = self.hands[seat]
        if phase is PLAY:
            if self.pending:
                out = [c for c in hand if self._stacks(c)]
            else:
                color = self.color
                rank = self.discard[-1].rank
                out = [c for c in hand if c.wild or c.color == color or c.rank == rank]
            if self._no_wild_end and len(hand) == 1:
                out = [c for c in out if not c.wild]
            if self._banning and not self.pending:
                out = [c for c in out if self._ban(seat, c) is None]
            return out
        if phase is DRAWN:  # the drawn card, if it fits; else it can only be kept
            drawn = self.drawn
            return [drawn] if drawn is not None and self.fits(seat, drawn) else []
        if phase is CHALLENGE and self._stacking and not ((wf := self.wild_four) is not None and wf.going_out):
            out = [c for c in hand if self._stacks(c)]
            if self._no_wild_end and len(hand) == 1:
                out = [c for c in out if not c.wild]
            return out
        return []

    def _ban(self, seat: int, card: AnyCard) -> str | None:
        """Why a house rule forbids ``seat`` to play ``card`` in its turn now (None: it may)."""
        if card.draw and self._first_circle:
            return "no-draw-first-round: no draw card until every player has had a turn"
        if self._wd4_strict and card.rank == "W+4":
            top = self.discard[-1]
            held = [c for c in self.hands[seat] if c is not card and not c.wild
                    and (c.color == self.color or (top.number is not None and c.number == top.number))]
            if held:
                what = f"the number {top.number}" if held[0].color != self.color else f"colour {self.color}"
                return f"wd4-strict: a Wild Draw Four may not be played holding {what} ('{held[0]}')"
        return None

    def _holds_wd4(self, seat: int) -> bool:
        """must-play-wd4: does ``seat`` hold a Wild Draw Four it may play now (then no draw)?"""
        return any(c.rank == "W+4" for c in self.playable(seat))

    def fits(self, seat: int, card: AnyCard) -> bool:
        """May ``seat`` play ``card`` on the table as it is (its turn, nothing pending)?"""
        return self.matches(card) and (not self._banning or self._ban(seat, card) is None)

    def _stacks(self, card: AnyCard) -> bool:
        """May ``card`` go on the pending draw stack?  Same rank, or any draw card when mixed."""
        if not card.draw:
            return False
        return card.rank == self.pending_rank or self._mixed

    def can_jump_in(self, seat: int) -> list[AnyCard]:
        """Cards ``seat`` could jump in with (jump-in rule): exact copies of the top discard."""
        if not self._jump_in or self.phase is not PLAY or self.pending:
            return []
        top = self.discard[-1]
        if top.wild:
            return []
        code = top.code
        return [c for c in self.hands[seat] if c.code == code]

    def uno_call_valid(self, seat: int) -> bool:
        n = len(self.hands[seat])
        if self.phase is OVER:
            return False
        return (n == 1 and self.just_one == seat) or (n == 2 and self.turn == seat)

    def can_catch(self, seat: int) -> int | None:
        q = self.catchable
        if q is not None and q != seat and len(self.hands[q]) == 1 and self.phase is not OVER \
                and seat in self.active:
            return q
        return None

    def legal_actions(self, seat: int) -> list:
        """Everything ``seat`` may do now without penalty (a false UNO call is penalised, not refused)."""
        if self.phase is OVER or seat not in self.active:
            return []
        acts: list = []
        hand = self.hands[seat]
        if seat == self.turn:
            phase = self.phase
            if phase is COLOR:
                acts += [ChooseColor(seat, c) for c in self.colors]
            elif phase is SWAP:
                acts += [Swap(seat, t) for t in self.active if t != seat]
                if self._seven_optional:
                    acts.append(Pass(seat))
            elif phase is RACE:
                pass
            else:
                uno_options = (False, True) if len(hand) == 2 else (False,)
                playable = self.playable(seat)
                for card in playable:
                    for uno in uno_options:
                        if card.wild:
                            acts += [Play(seat, card, c, uno) for c in self.colors]
                        else:
                            acts.append(Play(seat, card, None, uno))
                if phase is DRAWN:
                    if not (self._draw_and_play and playable):
                        acts.append(Pass(seat))
                elif not (self._deadly and playable and phase is PLAY and not self.pending) and not (
                        self._must_wd4 and phase is PLAY and not self.pending and self._holds_wd4(seat)):
                    acts.append(Draw(seat))
                if phase is CHALLENGE and self._challenges:
                    acts.append(Challenge(seat))
        else:
            for card in self.can_jump_in(seat):
                acts.append(Play(seat, card, None, False))
                if len(hand) == 2:
                    acts.append(Play(seat, card, None, True))
        if self.phase is RACE and self.race is not None and seat in self.race.waiting:
            acts.append(Respond(seat))
        if self.uno_call_valid(seat):
            acts.append(CallUno(seat))
        target = self.can_catch(seat)
        if target is not None:
            acts.append(Catch(seat, target))
        return acts

    def describe(self) -> str:
        top = self.discard[-1] if self.discard else None
        return f"top '{top}', colour in force {self.color}, seat {self.turn} to {_DOING.get(self.phase, 'wait')}"

    # ------------------------------------------------------------------ apply
    def apply(self, action) -> list:
        """Validate and perform ``action``; returns its events or raises an ActionError."""
        h = self.hooks
        if h is None:
            return self._apply(action)
        h.begin(self, action)
        try:
            events = self._apply(action)
        except BaseException:
            h.end(self, action, None)
            raise
        h.end(self, action, events)
        return events

    @property
    def hidden_legality(self) -> bool:
        """Do these rules make an action's legality depend on the rest of the actor's hand
        (deadly, must-play-wd4, wd4-strict) or on its hidden drawn card (draw-and-play)?"""
        return bool(self._deadly or self._must_wd4 or self._banning or self._draw_and_play)

    def _apply(self, action) -> list:
        kind = type(action)
        if kind not in _ACTIONS:
            raise InvalidActionError(f"not an action: {action!r}")
        seat = action.seat
        if seat is None and kind is CloseRace and self.phase is not OVER:
            events = self._close_race(action)
            self.actions += 1
            return events
        if type(seat) is not int or not 0 <= seat < self.players:
            raise InvalidActionError(f"{action}: no seat {seat!r} at this table")
        if self.phase is OVER:
            raise IllegalActionError(f"illegal {action}: the round is over")
        if seat not in self.active:
            raise IllegalActionError(f"illegal {action}: seat {seat} is out of this round")
        turn = self.turn
        events = self._handle(action)
        self.actions += 1
        if self._first_circle:
            self._circled(turn if seat == turn else None, events)
        if self.phase is not OVER and (self.actions >= ACTION_LIMIT or (self.hooks is not None
                                                                        and self.hooks.spent(self))):
            self._finish(None, events, Termination.STALEMATE)
        return events

    def _handle(self, action: Any) -> list:
        """The action's own rule (its type is one of `_ACTIONS`).  A chain of identity tests,
        not a dict of bound methods: compiled, each test is a pointer compare and the call is
        direct, where the dict built a bound method per action."""
        kind = type(action)
        if kind is Play:
            return self._play(action)
        if kind is Draw:
            return self._draw(action)
        if kind is Pass:
            return self._pass(action)
        if kind is Challenge:
            return self._challenge(action)
        if kind is CallUno:
            return self._call_uno(action)
        if kind is Catch:
            return self._catch(action)
        if kind is ChooseColor:
            return self._choose_color(action)
        if kind is Swap:
            return self._swap(action)
        if kind is Respond:
            return self._respond(action)
        return self._close_race(action)

    def _circled(self, seat: int | None, events: list) -> None:
        """no-draw-first-round: ``seat`` had its turn, and seats skipped were passed over."""
        self._first_circle.discard(seat)
        for e in events:
            if type(e) is Skipped:
                self._first_circle.discard(e.seat)

    def _not_your_turn(self, action) -> IllegalActionError:
        kind = OutOfTurnError if action.seat != self.turn else IllegalActionError
        return kind(
            f"illegal {action} by seat {action.seat}: it is seat {self.turn}'s turn to "
            f"{_DOING.get(self.phase, 'wait')}"
        )

    def _play(self, a: Play) -> list:
        seat: int = a.seat
        if not isinstance(a.card, AnyCard):
            raise InvalidActionError(f"{a}: not a card: {a.card!r}")
        card: AnyCard = a.card
        phase = self.phase
        top = self.discard[-1]
        jump = False
        if seat != self.turn or phase is COLOR or phase is SWAP or phase is RACE:
            if (self._jump_in and phase is PLAY and not self.pending and not card.wild
                    and card.code == top.code and seat != self.turn):
                jump = True
            elif seat != self.turn and self._jump_in and not card.wild and card.code == top.code:
                raise IllegalActionError(
                    f"illegal jump-in with '{card}': only while seat {self.turn} "
                    "is to play with no penalty pending")
            else:
                raise self._not_your_turn(a)
        if phase is PLAY and not self.pending:
            if not (card.wild or card.color == self.color or card.rank == top.rank):
                raise IllegalActionError(f"illegal play '{card}' on '{top}' (colour in force: {self.color})")
            if self._banning and not jump and (why := self._ban(seat, card)) is not None:
                raise IllegalActionError(f"illegal play '{card}' on '{top}': {why}")
        elif phase is DRAWN:
            if card is not self.drawn:
                raise IllegalActionError(
                    f"illegal play '{card}' after drawing: only the drawn card '{self.drawn}' may be played")
            if not self.fits(seat, card):
                raise IllegalActionError(
                    f"illegal play '{card}' on '{top}' (colour in force: {self.color}): "
                    "a drawn card that cannot be played can only be kept (pass)")
        elif phase is CHALLENGE:
            if not (self._stacking and self._stacks(card) and not ((wf := self.wild_four) is not None and wf.going_out)):
                raise IllegalActionError(
                    f"illegal play '{card}': a {top.code} is on seat {seat}; "
                    + ("challenge or draw" if self._challenges else "draw")
                    + (f", or stack a {top.code}" if self._stacking else ""))
        elif not self._stacks(card):  # PLAY with a pending draw stack
            raise IllegalActionError(
                f"illegal play '{card}' on '{top}': {self.pending} cards are pending; "
                f"stack a {self.pending_rank} or draw")
        hand = self.hands[seat]
        if card.wild:
            if a.color not in self.colors:
                got = "none was named" if a.color is None else f"not {a.color!r}"
                raise InvalidActionError(f"play '{card}': name a colour ({', '.join(self.colors)}); {got}")
            if self._no_wild_end and len(hand) == 1:
                raise IllegalActionError(f"illegal play '{card}': no-wild-endings forbids going out on a wild")
        elif a.color is not None:
            raise InvalidActionError(f"play '{card}': only a wild takes a colour (got {a.color!r})")
        try:
            hand.remove(card)  # the first change: every check above came before it
        except ValueError:
            hidden = next((c for c in hand if not c.known and c.may_be(card)), None)
            if hidden is not None and card.known:
                hand.remove(hidden)  # a peer's copy: the hidden card turns out to be this one
            else:
                raise IllegalActionError(f"illegal play '{card}': seat {seat} does not hold it") from None

        # -- the state changes from here on
        self.catchable = None
        self.just_one = None
        self.drawn = None
        self.empty_draws = 0
        prev_color = self.color
        self.discard.append(card)
        color = a.color if card.wild else card.color
        self.color = color
        events: list = [Played(seat, card, color, jump)]  # type: ignore[arg-type]  # a wild's is named
        self.turn = seat
        self.phase = PLAY
        n = len(hand)
        if n == 1:
            self.just_one = seat
            if a.uno or self.precall == seat:
                if a.uno:
                    events.append(UnoCalled(seat))
            else:
                self.catchable = seat
        elif a.uno and n > 1:
            events.append(FalseUno(seat))
            self._draw_cards(seat, 2, events, "uno")
        self.precall = None  # any play (a jump-in too) ends a pre-call's turn
        rank = card.rank
        succ = self._succ[self.direction]
        prev_player = self.last_player
        self.last_player = seat
        if self._exact and card.number and not jump and prev_player is not None \
                and prev_player != seat and len(self.discard) >= 2 and self.discard[-2].code == card.code:
            events.append(ExactMatch(seat, prev_player, card.number))
            self._draw_cards(prev_player, card.number, events, "penalty")
        draw = card.draw
        if n and not draw and rank not in self._special:
            self.turn = succ[seat]  # a plain card: the common case, kept short
            return events
        if n == 0:
            if draw and card.wild:
                self._wild_draw(seat, card, prev_color, hand, True, succ, events)
                if self.phase is CHALLENGE:
                    return events
            elif draw:
                victim = succ[seat]
                self._draw_cards(victim, self.pending + draw, events, "penalty")
                self.pending = 0
            if self.phase is not OVER:
                self._finish(seat, events)
            return events
        if draw:
            if card.wild:
                self._wild_draw(seat, card, prev_color, hand, False, succ, events)
            else:
                victim = succ[seat]
                if self._stacking:
                    self.pending += draw
                    self.pending_rank = rank
                    self.turn = victim
                else:
                    self._draw_cards(victim, draw, events, "penalty")
                    events.append(Skipped(victim))
                    self.turn = succ[victim]
        elif rank == "S":
            victim = succ[seat]
            events.append(Skipped(victim))
            self.turn = succ[victim]
        elif rank == "R":
            if self.two_player:
                victim = succ[seat]
                events.append(Skipped(victim))
                self.turn = succ[victim]
            else:
                self.direction = -self.direction
                events.append(DirectionChanged(self.direction))
                self.turn = self._succ[self.direction][seat]
        elif rank == "7" and self._seven_o:
            self.phase = SWAP
        elif rank == "0" and self._seven_o:
            self._pass_hands(events)
            self.turn = succ[seat]
        elif rank == "WS":
            self._shuffle_hands(seat, events)
            self.turn = succ[seat]
        elif rank == "F":
            self.turn = succ[seat]
            self._flip(seat, events)
        elif rank == "SE":
            events.append(SkippedAll(seat))  # Flip: everyone else is skipped; play again
        else:
            self.turn = succ[seat]
        if (rank == "WK" or (rank == "6" and self._six)) and self.phase is PLAY:
            waiting = [s for s in self.active if s != seat]
            self.race = _Race(seat, card, waiting, [])
            self.phase = RACE
            events.append(RaceStarted(seat, card, list(waiting)))
        return events

    def _wild_draw(self, seat, card, prev_color, hand, going_out, succ, events) -> None:
        """A Wild Draw Four (or Flip wild draw) lands on the next player: challenge window,
        stack, or — without challenges or stacking — the penalty at once."""
        if card.draw < 0:
            self.pending_until = True
        else:
            self.pending += card.draw
        self.pending_rank = card.rank
        victim = succ[seat]
        if self._challenges or self._stacking:
            self.wild_four = _WildFour(seat, prev_color, tuple(hand), going_out)
            self.turn = victim
            self.phase = CHALLENGE
            return
        self._take_penalty(victim, events, "penalty")
        events.append(Skipped(victim))
        if not going_out:
            self.turn = succ[victim]

    def _take_penalty(self, seat, events, reason, extra: int = 0) -> None:
        """Draw the pending penalty (plus ``extra``) and clear it."""
        if self.pending_until:
            color = self.color
            self._draw_until(seat, lambda c: c.color == color, events, reason, then=self.pending + extra)
        if self.pending or extra:
            self._draw_cards(seat, self.pending + extra, events, reason)
        self.pending = 0
        self.pending_until = False
        self.pending_rank = None

    def _draw_until(self, seat, stop, events, reason, then: int = 0) -> list:
        """Draw one card at a time until one passes ``stop`` (keep-drawing; Flip's Wild Draw
        Colour). ``then``: cards the same penalty draws right after (for `_stops_drawing`)."""
        got: list = []
        while True:
            more = self._draw_cards(seat, 1, events, reason)
            if not more:
                return got
            done = self._stops_drawing(seat, more[0], stop, then, events)
            got.append(self.hands[seat][-1])  # the card drawn (a peer's copy may set it in the hook)
            if done:
                return got

    def _stops_drawing(self, seat, card, stop, then: int, events: list) -> bool:
        """Does ``card`` end a draw-until? A hook: a peer's copy of the round, which cannot see
        another seat's drawn card, follows the record here (the fair bridge)."""
        if self.hooks is not None:
            return self.hooks.stops(self, seat, card, stop, then, events)
        return stop(card)

    def _draw(self, a: Draw) -> list:
        seat = a.seat
        phase = self.phase
        if seat != self.turn or phase is DRAWN or phase is COLOR or phase is SWAP or phase is RACE:
            if seat == self.turn and phase is DRAWN:
                drawn = self.drawn
                assert drawn is not None  # the phase is DRAWN
                if not self.fits(seat, drawn):
                    how = f"keep '{drawn}' (pass)"
                elif self._draw_and_play:
                    how = f"play '{drawn}'"
                else:
                    how = f"play '{drawn}' or keep it (pass)"
                raise IllegalActionError(f"illegal draw: seat {seat} already drew; {how}")
            raise self._not_your_turn(a)
        penalty = phase is CHALLENGE or self.pending
        if self._must_wd4 and not penalty and self._holds_wd4(seat):
            raise IllegalActionError(
                f"illegal draw by seat {seat}: must-play-wd4 - you hold a Wild Draw Four, play it")
        if self._deadly and not penalty:
            if self.playable(seat):
                raise IllegalActionError(
                    f"illegal draw by seat {seat}: under deadly you must play when you can")
            return self._knock_out(seat)
        events: list = []
        self.catchable = None
        self.just_one = None
        self.precall = None
        self.last_player = None  # a turn without a play: no exact match across it
        succ = self._succ[self.direction]
        if penalty:
            wf = self.wild_four
            self._take_penalty(seat, events, "penalty")
            self.wild_four = None
            events.append(Skipped(seat))
            self.phase = PLAY
            if wf is not None and wf.going_out:
                self._finish(wf.seat, events)
            else:
                self.turn = succ[seat]
            return events
        if self._keep_drawing:
            got = self._draw_until(seat, lambda c: self.fits(seat, c), events, "turn")
        else:
            got = self._draw_cards(seat, 1, events, "turn")
        if not got:
            self.empty_draws += 1
            if self.empty_draws >= len(self.active):
                self._finish(None, events)
                return events
            self.turn = succ[seat]
            return events
        self.empty_draws = 0
        # Play it or keep it: the seat always chooses, even when the card does not fit, so
        # the public record never shows whether a drawn card was playable.
        self.phase = DRAWN
        self.drawn = got[-1]
        return events

    def _pass(self, a: Pass) -> list:
        seat = a.seat
        if seat == self.turn and self.phase is SWAP and self._seven_optional:
            self.phase = PLAY
            self.turn = self._succ[self.direction][seat]
            return [SwapDeclined(seat)]
        if seat != self.turn or self.phase is not DRAWN:
            if seat == self.turn:
                raise IllegalActionError(f"illegal pass by seat {seat}: only after drawing")
            raise self._not_your_turn(a)
        drawn = self.drawn
        assert drawn is not None  # the phase is DRAWN
        if self._draw_and_play and self.fits(seat, drawn):
            raise IllegalActionError(
                f"illegal pass by seat {seat}: a playable drawn card must be played ('{drawn}')")
        self.last_player = None
        self.drawn = None
        self.phase = PLAY
        self.turn = self._succ[self.direction][seat]
        return [Kept(seat)]

    def _challenge(self, a: Challenge) -> list:
        seat = a.seat
        if seat != self.turn or self.phase is not CHALLENGE or not self._challenges:
            if self.phase is CHALLENGE and not self._challenges:
                raise IllegalActionError(f"illegal challenge by seat {seat}: this table plays no challenges")
            if seat == self.turn:
                raise IllegalActionError(f"illegal challenge by seat {seat}: no Wild Draw Four was played on you")
            raise OutOfTurnError(
                f"illegal challenge by seat {seat}: only the next player may challenge a Wild Draw Four"
                if self.phase is CHALLENGE else
                f"illegal challenge by seat {seat}: no Wild Draw Four is pending")
        wf = self.wild_four
        assert wf is not None  # the phase is CHALLENGE
        guilty = self._challenge_verdict(seat, wf)
        self.catchable = None
        self.just_one = None
        events: list = [Evidence(seat, wf.seat, list(wf.hand), seat), Challenged(seat, wf.seat, guilty, wf.prev_color)]
        self.wild_four = None
        self.phase = PLAY
        if guilty:
            # The challenged player takes the penalty instead; the challenger plays a normal turn.
            self._take_penalty(wf.seat, events, "challenge")
            if self.catchable == wf.seat:
                self.catchable = None
        else:
            self._take_penalty(seat, events, "challenge", extra=2)
            events.append(Skipped(seat))
            if wf.going_out:
                self._finish(wf.seat, events)
            else:
                self.turn = self._succ[self.direction][seat]
        return events

    def _challenge_verdict(self, seat: int, wf: _WildFour) -> bool:
        """Is the challenged seat guilty? Here: judged on its hand as this copy knows it. A fair
        table's hooks give the verdict its fair exchange already reached (a timeout's or a
        dispute's included), since the evidence is sealed to the challenger alone."""
        if self.hooks is not None:
            return self.hooks.verdict(self, seat, wf)
        if any(not c.known for c in wf.hand):
            raise IllegalActionError("illegal challenge: the evidence is hidden from this copy of the round")
        return any(c.color == wf.prev_color for c in wf.hand)

    def _call_uno(self, a: CallUno) -> list:
        seat = a.seat
        if self.uno_call_valid(seat):
            if len(self.hands[seat]) == 2:
                self.precall = seat
            if self.catchable == seat:
                self.catchable = None
            return [UnoCalled(seat)]
        events: list = [FalseUno(seat)]
        self._draw_cards(seat, 2, events, "uno")
        return events

    def _catch(self, a: Catch) -> list:
        seat, q = a.seat, a.target
        if type(q) is not int or not 0 <= q < self.players:
            raise InvalidActionError(f"{a}: no seat {q!r} at this table")
        if self.can_catch(seat) != q:
            if q == seat:
                raise IllegalActionError(f"illegal catch: seat {seat} cannot catch itself")
            raise IllegalActionError(
                f"illegal catch of seat {q} by seat {seat}: seat {q} "
                + ("holds more than one card" if len(self.hands[q]) != 1 else
                   "called UNO or the next player has begun a turn"))
        self.catchable = None
        events: list = [Caught(seat, q)]
        self._draw_cards(q, self._uno_penalty, events, "catch")
        return events

    def _choose_color(self, a: ChooseColor) -> list:
        if a.seat != self.turn or self.phase is not COLOR:
            if self.phase is not COLOR:
                raise IllegalActionError(f"illegal {a} by seat {a.seat}: no colour is to be named now")
            raise self._not_your_turn(a)
        if a.color not in self.colors:
            raise InvalidActionError(f"{a}: name a colour ({', '.join(self.colors)}), not {a.color!r}")
        self.color = a.color
        self.phase = PLAY
        return [ColorChosen(a.seat, a.color)]

    def _respond(self, a: Respond) -> list:
        race = self.race
        seat = a.seat
        if self.phase is not RACE:
            raise IllegalActionError(f"illegal response by seat {seat}: no reaction race is on")
        assert race is not None  # the phase is RACE
        if seat not in race.waiting:
            raise IllegalActionError(f"illegal response by seat {seat}: already responded or started the race")
        race.waiting.remove(seat)
        race.responded.append(seat)
        events: list = [Responded(seat)]
        if len(race.waiting) == 1 and len(race.responded) >= 1:
            self._lose_race(race.waiting, events)  # the last one left is the last to respond
        elif not race.waiting:
            self._end_race()
        return events

    def _close_race(self, a: CloseRace) -> list:
        if self.phase is not RACE:
            raise IllegalActionError("illegal close of a race: no reaction race is on")
        events: list = []
        race = self.race
        assert race is not None  # the phase is RACE
        self._lose_race(list(race.waiting), events)
        return events

    def _lose_race(self, losers, events) -> None:
        for s in list(losers):
            events.append(RaceLost(s))
            self._draw_cards(s, 2, events, "race")
        self._end_race()

    def _end_race(self) -> None:
        self.race = None
        self.phase = PLAY

    def _knock_out(self, seat: int) -> list:
        """Deadly UNO: ``seat`` leaves the round; its neighbours close ranks."""
        events: list = [KnockedOut(seat)]
        self.catchable = None
        self.just_one = None
        succ, pred = self._succ[1], self._succ[-1]
        nxt, prv = succ[seat], pred[seat]
        succ[prv], pred[nxt] = nxt, prv
        self.active = tuple(s for s in self.active if s != seat)
        self.knocked_out.append(seat)
        self.two_player = len(self.active) == 2
        if len(self.active) == 1 or (self.rules.teams and len({s % 2 for s in self.active}) == 1):
            self._finish(self.active[0], events)
        else:
            self.turn = self._succ[self.direction][seat]
        return events

    def _flip(self, seat: int, events: list) -> None:
        """UNO Flip: every hand, the draw pile and the discard pile turn over.  A pile turned
        over as a whole also reverses; the new top discard is the other face of the former
        bottom card.  A wild face on top is named by the next player, as on a first discard."""
        h = self.hooks
        if h is not None:
            h.flipping(self)
        self.side ^= 1
        self.colors = DARK_COLORS if self.side else COLORS
        for s in range(self.players):
            self.hands[s] = [c.turned() for c in self.hands[s]]
        self.draw_pile = [c.turned() for c in self.draw_pile[::-1]]
        self.discard = [c.turned() for c in self.discard[::-1]]
        if self.drawn is not None:
            self.drawn = self.drawn.turned()
        top = self.discard[-1]
        self.color = top.color
        events.append(Flipped(seat, self.side, top, [[c.other for c in hand] for hand in self.hands]))
        if top.wild:
            self.phase = COLOR
        if h is not None:
            h.flipped(self)

    def _swap(self, a: Swap) -> list:
        seat, t = a.seat, a.target
        if seat != self.turn or self.phase is not SWAP:
            if self.phase is not SWAP:
                raise IllegalActionError(f"illegal {a} by seat {seat}: swaps follow a 7 under seven-o")
            raise self._not_your_turn(a)
        if type(t) is not int or t not in self.active or t == seat:
            raise IllegalActionError(f"illegal {a} by seat {seat}: pick another seat in play")
        hands = self.hands
        hands[seat], hands[t] = hands[t], hands[seat]
        self.catchable = None
        self.just_one = None
        self.phase = PLAY
        self.turn = self._succ[self.direction][seat]
        return [Swapped(seat, t), NewHand(seat, list(hands[seat]), seat), NewHand(t, list(hands[t]), t)]

    # ------------------------------------------------------------------ helpers
    def _shuffle(self, cards: list, why: str) -> None:
        """Every shuffle after the deal goes through here (a deck holder's hooks order the cards)."""
        if self.hooks is not None:
            self.hooks.shuffle(self, cards, why)
        else:
            fast_shuffle(self.rng, cards)

    def _reshuffle(self, events: list) -> bool:
        if len(self.discard) <= 1:
            return False
        rest = self.discard[:-1]
        self.discard = self.discard[-1:]
        self._shuffle(rest, "discard")
        self.draw_pile = rest
        events.append(Reshuffled(len(rest)))
        return True

    def _draw_cards(self, seat: int, n: int, events: list, reason: str) -> list:
        """Every card taken from the pile goes through here (told to the hooks, like _shuffle)."""
        h = self.hooks
        if h is not None:
            h.drawing(self, seat)
        pile = self.draw_pile
        if len(pile) >= n:
            if n == 1:
                got = [pile.pop()]
            else:
                got = pile[-n:]
                got.reverse()
                del pile[-n:]
        else:
            got = []
            while len(got) < n:
                if not pile:
                    if not self._reshuffle(events):
                        break
                    pile = self.draw_pile
                got.append(pile.pop())
        if got:
            self.hands[seat] += got
            events.append(Drew(seat, got, reason, seat))
        if h is not None:
            h.drew(self)
        return got

    def _pass_hands(self, events: list) -> None:
        hands = self.hands
        old = {s: hands[s] for s in self.active}
        succ = self._succ[self.direction]
        for s in self.active:
            hands[succ[s]] = old[s]
        self.catchable = None
        self.just_one = None
        events.append(HandsPassed(self.direction))
        events.extend(NewHand(s, list(hands[s]), s) for s in self.active)

    def _shuffle_hands(self, seat: int, events: list) -> None:
        hands = self.hands
        pool = [c for s in self.active for c in hands[s]]
        self._shuffle(pool, "hands")
        for s in self.active:
            hands[s] = []
        s = self._succ[1][seat]
        for card in pool:
            hands[s].append(card)
            s = self._succ[1][s]
        self.catchable = None
        self.just_one = None
        events.append(HandsShuffled(seat))
        events.extend(NewHand(s, list(hands[s]), s) for s in self.active)

    def _finish(self, winner: int | None, events: list, term=Termination.DECK_EXHAUSTED) -> None:
        hand_points = tuple(sum(c.points for c in h) for h in self.hands)
        if winner is None:
            points = 0
        else:
            term = Termination.EMPTIED_HAND
            if self.rules.teams:
                team = winner % 2
                points = sum(hand_points[s] for s in self.dealt_in if s % 2 != team)
            else:
                points = sum(hand_points[s] for s in self.dealt_in if s != winner)
        self.outcome = Outcome(term, winner, points, hand_points)
        self.phase = OVER
        self.turn = None
        self.pending = 0
        self.catchable = None
        events.append(RoundOver(winner, points, [list(h) for h in self.hands], term.value))

    def exchange(self, a, b) -> None:
        """Swap two card objects wherever this round holds them: the hands, both piles, the card
        just drawn, a wild draw's evidence, a race's card (every place the engine keeps a card).
        A live copy of the round puts a true card where a placeholder stood this way (the fair
        replay). A UNO Flip card is two face objects (`other`): the other faces swap too."""
        pairs = [(a, b), (b, a)]
        if a.other is not None and b.other is not None:
            pairs += [(a.other, b.other), (b.other, a.other)]
        for cards in (*self.hands, self.draw_pile, self.discard):
            hits = []
            for x, y in pairs:  # a card is in a list at most once; cards compare by identity
                if x in cards:
                    hits.append((cards.index(x), y))
            for i, y in hits:
                cards[i] = y
        for x, y in pairs:
            if self.drawn is x:
                self.drawn = y
                break
        wf = self.wild_four
        if wf is not None:
            swap = {id(x): y for x, y in pairs}
            if any(id(c) in swap for c in wf.hand):
                wf.hand = tuple(swap.get(id(c), c) for c in wf.hand)
        race = self.race
        if race is not None:
            for x, y in pairs:
                if race.card is x:
                    race.card = y
                    break

    def card_count(self) -> int:
        return len(self.draw_pile) + len(self.discard) + sum(len(h) for h in self.hands)

    def __repr__(self) -> str:
        hands = " ".join("/".join(c.code for c in h) for h in self.hands)
        return f"<Round {self.describe()}; hands {hands}; pile {len(self.draw_pile)}>"
