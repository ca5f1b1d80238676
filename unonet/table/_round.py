"""`FairRound`: the fair-play layer holding the deck of a rules engine Round.

The engine decides what happens to cards; the fair layer decides *which* card is where.
`FairRound.open` builds an engine `Round` whose `hooks` (`engine.RoundHooks`) are a
`FairRound`: it keeps a map between the engine's physical cards and fair deck positions and
tells a *backend* about every card movement, in the order the engine makes them:

| engine                                   | backend call                                  |
|------------------------------------------|-----------------------------------------------|
| the deal (built here, from the fair deck) | `deal(seat, j)` for positions 0.. in order    |
| first discard turned up                   | `turn_up(j)`                                  |
| Wild Draw Four turned up first, returned  | `turn_up(j)`, then `reshuffle(W+4 + pile)`    |
| a card drawn (any reason)                 | `deal(seat, j)`                               |
| a card played (in turn or jump-in)        | `play(seat, j)`                               |
| a Wild Draw Four challenge                | `challenge(...)` -> the fair verdict (settled before) |
| discard pile reshuffled into the pile     | `reshuffle(discard minus top)`                |
| Wild Shuffle Hands                        | `reshuffle(all held)`, `deal` each to its seat |
| seven-o swap, zero pass (a hand moves)    | per moved hand: `reshuffle(hand)`, `deal` all to the new holder |
| UNO Flip: the table turns over             | `flip(side, every held position)`             |

UNO Flip: a fair card record is (light face, dark face) and the engine's two face objects of
one physical card share its id, so a position is a physical card whatever side shows. Cards
are matched by both faces (`R5/T7`). The draw pile's top is its lowest undealt position on
the light side and its highest on the dark side: a flip reverses the pile, and a pile
reshuffled on the dark side is laid with its highest position on top.

Every shuffle goes through the engine's `shuffle` hook, which orders the cards as the fair
layer's committed shuffle did. A hand that changes holder becomes an epoch of
its own, re-dealt (sealed) to its new holder: the fair layer proves at round end that
the new holder got exactly the cards of the old hand.

Two backends exist: `TableHost` (runs a FairDealer and talks to the seats) and the
auditor's replay (checks each call against the public record). Both drive this same
class, so the host and the auditor run the same engine and the same bridge. The round they
hold is the engine's own Round (composition, not a subclass: the engine's class stays final,
so it can be compiled); `fair_of(rnd)` is its fair side.
"""

from __future__ import annotations

import functools
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import fields
from typing import Protocol

from ..engine import CloseRace, Draw, InvalidActionError, Pass, Play, Respond, Round, RuleSet, deck_cards
from ..engine._events import HandsPassed, HandsShuffled, RoundOver, Swapped
from ..fair import KNOWN_DECKS, FairPlayViolation
from ..fair import Card as FairCard


def _table_decks() -> dict:
    """The engine's decks as the fair layer sees them (faces only), by name.

    A UNO Flip card is the record (light face, dark face): both are committed."""
    out = dict(KNOWN_DECKS)
    from ..engine._cards import DECKS

    for name, cards in DECKS.items():
        faces = tuple(FairCard(c.code) if c.other is None else FairCard(c.code, c.other.code) for c in cards)
        if name in out and out[name] != faces:
            raise AssertionError(f"the engine's {name} deck differs from the fair layer's")
        out[name] = faces
    return out


#: Every deck a fair table can be dealt from (the auditor accepts these by name).
TABLE_DECKS: dict = _table_decks()


def fair_key(card: FairCard) -> str:
    """How the bridge matches a fair card record to engine cards: `R7`, or `R5/T7` (Flip)."""
    return card.secret if card.public is None else f"{card.secret}/{card.public}"


class Backend(Protocol):
    def deck(self) -> list[str]:
        """The cards of epoch 0 (`fair_key`), in position order (after the seed dance)."""

    def deal(self, seat: int, position: int) -> None: ...

    def turn_up(self, position: int) -> None: ...

    def play(self, seat: int, position: int) -> None: ...

    def reshuffle(self, sources: Sequence[int], to: int | None = None) -> tuple[int, list[str]]:
        """A new epoch over `sources`; returns its base position and its cards (`fair_key`) in order."""

    def challenge(self, challenger: int, challenged: int, colour: str, positions: Sequence[int]) -> bool:
        """The verdict of the fair challenge settled before the engine's Challenge action
        (check it is this one: challenger, challenged, colour in force, hand)."""

    def flip(self, side: int, held: Sequence[int]) -> None:
        """UNO Flip: the table turned over to `side`; `held` is every position in a hand."""

    def after(self, rnd: Round, action, events: list) -> None:
        """An action (None: the start) was applied and produced `events`."""

    def stops(self, rnd: Round, seat: int, card, stop, then: int, events: list) -> bool:
        """Does the card just drawn end a draw-until (keep-drawing, Flip's Wild Draw Colour)?
        The host and the audit answer `stop(card)`; a peer's copy that cannot see the card
        makes it agree with the record (`then`: cards the same penalty draws right after;
        `events`: the engine events of the action so far)."""


def _order_like(cards: Sequence, faces: Sequence[str], what: str) -> list:
    """The engine cards of `cards` arranged to show `faces` (`fair_key`s: a permutation of theirs)."""
    by_face: dict[str, list] = defaultdict(list)
    for c in cards:
        by_face[c.full_code].append(c)
    out = []
    for f in faces:
        free = by_face.get(f)
        if not free:
            raise FairPlayViolation(f"{what}: the fair deck shows {f!r}, which is not among the cards shuffled")
        out.append(free.pop())
    if len(out) != len(cards):
        raise FairPlayViolation(f"{what}: {len(faces)} positions for {len(cards)} cards")
    return out


#: The fair record's caps (spec §6.1: `epoch` 0..255; §6.2: positions 0..4095 a round): a round
#: that comes within one action's worth of either ends blocked (`spent`), every party alike. One
#: action adds at most a reshuffle, a shuffle of hands and a pass of every hand (each an epoch
#: of its own, up to 10; the moves of a pass are told after the engine asks), so two actions at
#: most 2 + 2 x 10 epochs, and 3 x 112 + 112 positions.
MAX_EPOCHS = 256
MAX_POSITIONS = 4096
EPOCH_ROOM = 24
POSITION_ROOM = 512


class FairRound:
    """The fair side of a round: the engine's `Round` plays by the rules, and this, its
    `hooks` (`engine.RoundHooks`), keeps which fair deck position each of its cards is and
    tells the backend every move; see the module docstring. Composition, not a subclass:
    the engine's Round stays one final class (compiled when built), and every reader of the
    round (seats, bots, the client) holds the plain Round; `fair_of(rnd)` finds this."""

    def __init__(self, rnd: Round, backend: Backend, cards: Sequence) -> None:
        self.round = rnd
        self.backend = backend
        self._card_at: dict[int, object] = dict(enumerate(cards))
        self._pos: dict[int, int] = {c.id: j for j, c in enumerate(cards)}
        self._pile_pos: list[int] = []
        self._action = None
        self._action_done = True
        self._turned = False
        self._drawing: list[int] = []  # the seats taking cards from the pile (innermost last)
        self._hands_epoch: range = range(0)
        self._epochs = 1                # epoch 0, the deck; one more each reshuffle
        self._next = len(self._card_at)  # the next unused position

    @classmethod
    def open(cls, rules: RuleSet, players: int, dealer: int, backend: Backend, *,
             active=None) -> Round:
        """The round built from the fair deck (epoch 0), dealt from the dealer's left: an
        engine Round whose hooks are a FairRound."""
        if rules.deck not in TABLE_DECKS:
            raise ValueError(f"fair play does not support the {rules.deck} deck yet")
        faces = backend.deck()
        full = deck_cards(rules.deck)
        if len(faces) != len(full):
            raise FairPlayViolation(f"the fair deck has {len(faces)} cards, the {rules.deck} deck {len(full)}")
        cards = _order_like(full, faces, "deal")
        r = Round(rules, players, dealer, [[] for _ in range(players)], [], random.Random(0), active=active)
        r.hooks = cls(r, backend, cards)
        order = []
        s = r.next_seat(dealer)  # clockwise: nothing has reversed play yet
        for _ in r.active:
            order.append(s)
            s = r.next_seat(s)
        n = len(order)
        dealt = rules.hand_size * n
        for j in range(dealt):
            seat = order[j % n]
            r.hands[seat].append(cards[j])
            backend.deal(seat, j)
        r.draw_pile = cards[dealt:][::-1]
        r.hooks._pile_pos = list(range(len(cards) - 1, dealt - 1, -1))
        return r

    # ------------------------------------------------------------------ queries
    def position_of(self, card) -> int:
        return self._pos[card.id]

    def holds(self, position: int) -> bool:
        """Is ``position`` a card of this round (any epoch's)?"""
        return position in self._card_at

    def positions(self):
        """Every position that holds a card now, with its card (the record's face, any side)."""
        return self._card_at.items()

    def card_at(self, position: int):
        """The card at a position, as the face in play (UNO Flip: the side showing)."""
        c = self._card_at[position]
        return c if c.other is None or c.side == self.round.side else c.other

    def record_card(self, position: int):
        """The card object kept for a position (the face it was dealt with; `full_code` names it)."""
        return self._card_at[position]

    def hand_positions(self, seat: int) -> list[int]:
        return [self._pos[c.id] for c in self.round.hands[seat]]

    def exchange(self, j: int, k: int) -> None:
        """Swap the cards at positions j and k, wherever the engine holds them (a live copy
        putting a true card where a placeholder stood)."""
        a, b = self._card_at[j], self._card_at[k]
        self.round.exchange(a, b)
        self._card_at[j], self._card_at[k] = b, a
        self._pos[a.id], self._pos[b.id] = k, j

    # ------------------------------------------------------------------ engine hooks
    def started(self, rnd: Round, events: list) -> None:
        self._flush()
        self.backend.after(rnd, None, events)

    def begin(self, rnd: Round, action) -> None:
        self._action = action
        self._action_done = False

    def end(self, rnd: Round, action, events: list | None) -> None:
        if events is None:  # refused: nothing moved
            self._action = None
            self._drawing.clear()
            return
        try:
            self._flush()
        finally:
            self._action = None
        for e in events:
            t = type(e)
            if t is HandsShuffled:  # Wild Shuffle Hands: the new epoch, re-dealt hand by hand
                holder = {c.id: s for s in rnd.active for c in rnd.hands[s]}
                for j in self._hands_epoch:
                    self.backend.deal(holder[self._card_at[j].id], j)
            elif t is Swapped:
                self._transfer(e.target, e.seat)  # seat's old hand is now the target's
                self._transfer(e.seat, e.target)
            elif t is HandsPassed:
                for s in rnd.active:
                    self._transfer(s, None)
        self.backend.after(rnd, action, events)

    def stops(self, rnd: Round, seat: int, card, stop, then: int, events: list) -> bool:
        return self.backend.stops(rnd, seat, card, stop, then, events)

    def verdict(self, rnd: Round, seat: int, wf) -> bool:
        """The fair exchange settled the challenge before this action was applied: the
        backend checks it is this challenge (challenger, challenged, colour, hand) and
        gives its verdict (a timeout's or a dispute's included)."""
        self._flush()
        return self.backend.challenge(seat, wf.seat, wf.prev_color, [self._pos[c.id] for c in wf.hand])

    def drawing(self, rnd: Round, seat: int) -> None:
        self._flush()
        self._drawing.append(seat)

    def drew(self, rnd: Round) -> None:
        try:
            self._flush()
        finally:
            self._drawing.pop()

    def shuffle(self, rnd: Round, cards: list, why: str) -> None:
        """Every shuffle after the deal: order `cards` as the fair layer's new epoch says."""
        self._flush()
        if why == "returned":
            # A Wild Draw Four turned up first: shown, returned, and reshuffled with the pile.
            j = self._pile_pos[-1]
            if self._card_at[j] is not cards[-1]:
                raise AssertionError("turned-up Wild Draw Four is not the top of the pile")
            self.backend.turn_up(j)
            self._lay_pile(cards, sorted(self._pile_pos))
        elif why == "discard":
            self._lay_pile(cards, sorted(self._pos[c.id] for c in cards))
        elif why == "hands":
            sources = sorted(self._pos[c.id] for c in cards)
            base, faces = self.backend.reshuffle(sources)
            cards[:] = [self.card_at(j) for j in sources]  # as in _lay_pile
            ordered = _order_like(cards, faces, "shuffle of hands")
            self._place(base, ordered)
            cards[:] = ordered  # the engine re-deals from the front of the list
            self._hands_epoch = range(base, base + len(ordered))
        else:
            raise AssertionError(f"a shuffle the fair bridge does not know ({why!r})")

    def spent(self, rnd: Round) -> bool:
        """A round near the fair record's caps ends, blocked, at this action (see MAX_EPOCHS):
        ~2,300 reshuffles in a round of house rules whose players' clocks ran out once failed
        the table at its 256th epoch."""
        return self._epochs + EPOCH_ROOM > MAX_EPOCHS or self._next + POSITION_ROOM > MAX_POSITIONS

    def flipping(self, rnd: Round) -> None:
        self._flush()

    def flipped(self, rnd: Round) -> None:
        """UNO Flip: the engine turned hands and piles; the draw pile's positions reverse with
        it, and the fair layer opens every held card whose newly showing face was secret."""
        self._pile_pos.reverse()
        held = sorted(self._pos[c.id] for h in rnd.hands for c in h)
        self.backend.flip(rnd.side, held)

    # ------------------------------------------------------------------ bookkeeping
    def _lay_pile(self, cards: list, sources: list) -> None:
        """Reshuffle ``sources`` into a new epoch and lay ``cards`` as the draw pile in its order."""
        base, faces = self.backend.reshuffle(sources)
        cards[:] = [self.card_at(j) for j in sources]  # a peer's copy may have swapped placeholders in
        ordered = _order_like(cards, faces, "reshuffle")
        self._place(base, ordered)
        if self.round.side:  # UNO Flip's dark side draws from the highest position (see the docstring)
            cards[:] = ordered
            self._pile_pos = list(range(base, base + len(ordered)))
        else:
            cards[:] = ordered[::-1]
            self._pile_pos = list(range(base + len(ordered) - 1, base - 1, -1))

    def _place(self, base: int, ordered: list) -> None:
        """The cards of a new epoch, at ``base`` on."""
        self._epochs += 1
        self._next = max(self._next, base + len(ordered))
        for i, c in enumerate(ordered):
            del self._card_at[self._pos[c.id]]
            self._pos[c.id] = base + i
            self._card_at[base + i] = c

    def _flush(self) -> None:
        """Tell the backend what the engine did since the last call, in the engine's order."""
        rnd = self.round
        if not self._turned and rnd.discard:
            j = self._pile_pos.pop()
            if self._card_at[j] is not rnd.discard[0]:
                raise AssertionError("first discard is not the top of the pile")
            self.backend.turn_up(j)
            self._turned = True
        a = self._action
        if not self._action_done and a is not None:
            self._action_done = True
            if type(a) is Play:
                self.backend.play(a.seat, self._pos[a.card.id])
        taken = len(self._pile_pos) - len(rnd.draw_pile)
        if taken > 0:
            seat = self._drawing[-1] if self._drawing else None
            for _ in range(taken):
                self.backend.deal(seat, self._pile_pos.pop())

    def _transfer(self, seat: int, frm: int | None) -> None:
        """`seat` now holds another seat's old hand: a new epoch over it, re-dealt to `seat`."""
        hand = self.round.hands[seat]
        if not hand:
            return
        base, faces = self.backend.reshuffle(sorted(self._pos[c.id] for c in hand), seat)
        ordered = _order_like(hand, faces, "hand passed")
        self._place(base, ordered)
        for j in range(base, base + len(ordered)):
            self.backend.deal(seat, j)


def fair_of(rnd: Round) -> FairRound:
    """The fair side of a round `FairRound.open` built."""
    h = rnd.hooks
    if type(h) is not FairRound:
        raise TypeError(f"not a fair round: {rnd!r}")
    return h


# ---------------------------------------------------------------------- the game record
def rules_json(rules: RuleSet) -> dict:
    out = {}
    for f in fields(rules):
        v = getattr(rules, f.name)
        out[f.name] = sorted(v) if isinstance(v, (set, frozenset)) else v
    return out


def rules_from_json(obj) -> RuleSet:
    if not isinstance(obj, dict):
        raise ValueError(f"rules must be an object, not {obj!r}")
    names = {f.name for f in fields(RuleSet)}
    unknown = sorted(set(obj) - names)
    if unknown:
        raise ValueError(f"unknown rule option {unknown[0]!r}")
    kw = dict(obj)
    if "house" in kw:
        if not isinstance(kw["house"], list) or not all(isinstance(h, str) for h in kw["house"]):
            raise ValueError(f"bad house rules {kw['house']!r}")
        kw["house"] = frozenset(kw["house"])
    return RuleSet(**kw)


def _action_types() -> dict[str, type]:
    from .. import engine

    names = ("Play", "Draw", "Pass", "Challenge", "CallUno", "Catch", "ChooseColor", "Swap", "Respond", "CloseRace")
    return {n.lower(): getattr(engine, n) for n in names if hasattr(engine, n)}


_ACTIONS = _action_types()
_ACTION_NAMES = {v: k for k, v in _ACTIONS.items()}


def action_json(rnd: Round, a) -> dict:
    """An engine action as JSON: its type and fields; a played card as its position."""
    out: dict = {"t": _ACTION_NAMES[type(a)]}
    for f in fields(a):
        v = getattr(a, f.name)
        if f.name == "card":
            out["pos"] = fair_of(rnd).position_of(v)
        else:
            out[f.name] = v
    return out


# the types an action's fields take (a float or boolean seat would pass `==` checks and
# wedge the round when the engine refuses it later; protocol's `check_action` refuses it
# on the wire, this in every other reader, the audit's included)
_ACTION_VALUE = {
    "seat": lambda v: v is None or type(v) is int,
    "target": lambda v: type(v) is int,
    "uno": lambda v: type(v) is bool,
    "color": lambda v: v is None or (type(v) is str and len(v) <= 2),
}


@functools.lru_cache(maxsize=None)
def _names(cls) -> tuple[str, ...]:
    """A dataclass's field names, in order (`dataclasses.fields` walks the class every call)."""
    return tuple(f.name for f in fields(cls))


def action_from_json(rnd: Round, obj):
    if not isinstance(obj, dict) or not isinstance(obj.get("t"), str):
        raise InvalidActionError(f"not an action: {obj!r}")
    cls = _ACTIONS.get(obj["t"])
    if cls is None:
        raise InvalidActionError(f"unknown action {obj['t']!r}")
    kw = {}
    names = _names(cls)
    for name in names:
        if name == "card":
            pos = obj.get("pos")
            if type(pos) is not int or not fair_of(rnd).holds(pos):
                raise InvalidActionError(f"play of position {pos!r}: no such card in this round")
            kw["card"] = fair_of(rnd).card_at(pos)
        elif name in obj:
            v = obj[name]
            if not _ACTION_VALUE.get(name, lambda v: True)(v):
                raise InvalidActionError(f"action {obj['t']!r}: bad {name} {v!r}")
            kw[name] = v
    extra = set(obj) - {"t", "pos"} - set(names)
    if extra:
        raise InvalidActionError(f"action {obj['t']!r} has no field {sorted(extra)[0]!r}")
    return cls(**kw)


def events_json(events) -> list:
    """The public view of engine events, as JSON values (hidden cards become counts)."""
    out = []
    for e in events:
        e = e.public()
        row: list = [type(e).__name__]
        for name in _names(type(e)):
            if name == "to":
                continue
            v = getattr(e, name)
            if type(e) is RoundOver and name == "hands":
                v = [sorted(c.code for c in h) for h in v]
            elif isinstance(v, list):
                v = len(v)
            elif hasattr(v, "code"):
                v = v.code
            row.append(v)
        out.append(row)
    return out


def scores_after(rules: RuleSet, players: int, scores: Sequence[int], outcome) -> list[int]:
    """The match scores once this round's outcome is added (Match.apply_outcome's rule)."""
    from ..engine import Match

    m = Match(rules, players, scores=list(scores), dealer=0)
    m.apply_outcome(outcome.winner, outcome.points, outcome.hand_points, outcome.termination)
    return list(m.scores)


#: why the host acts for a seat (`host-act.reason`), the only reasons a table accepts
TIMEOUT = "turn timeout"                       # a present seat's clock ran out: the default action
STAND_IN = "stand-in for a dropped player"     # the seat is away: a bot plays it
REFEREE = "referee"                            # the table's call (closing a reaction race)
HOST_ACT_REASONS = (TIMEOUT, STAND_IN, REFEREE)


def default_action(rnd: Round, seat: int):
    """What the host does for a seat whose turn timed out: draw, pass or keep, accept a
    penalty; else the first legal choice (a colour, a swap target). A `host-act` with the
    reason "turn timeout" must be exactly this (every verifier checks it: issue 22 class 3)."""
    legal = rnd.legal_actions(seat)
    for kind in (Draw, Pass, Respond):
        for a in legal:
            if type(a) is kind:
                return a
    non_play = [a for a in legal if type(a).__name__ not in ("Play", "CallUno", "Catch")]
    if non_play:
        return non_play[0]
    if legal:
        return legal[0]
    return CloseRace() if rnd.phase.value == "race" else Draw(seat)
