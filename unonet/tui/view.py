"""`TableView`: the client's view model, a plain object fed by table messages.

It knows only what seat ``me`` may know: it is fed the engine's events as that seat
sees them (``event.visible_to(me)``) plus the table messages of `feed.py`.  The layout
reads it; nothing here imports prompt_toolkit, so it is tested on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import narrate
from ..engine import _events as ev
from ..engine._cards import COLOR_NAMES
from . import feed

COLOR_ORDER = {"R": 0, "Y": 1, "G": 2, "B": 3, None: 4}
RANK_ORDER = {r: i for i, r in enumerate(
    ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2", "W", "WC", "WS", "W+4"])}
LOG_KEEP = 300


def card_sort_key(card):
    return (COLOR_ORDER.get(card.color, 4), RANK_ORDER.get(card.rank, 99), card.id or 0)


def color_name(color: str | None) -> str:
    return COLOR_NAMES.get(color, "none") if color else "none"


def team_name(team: int) -> str:
    return "AB"[team]


@dataclass
class Result:
    """The last round's result, for the result screen."""

    number: int
    winner: int | None
    points: int
    hand_points: tuple[int, ...]
    hands: tuple[tuple, ...]
    scores: tuple[int, ...]
    team_scores: tuple[int, ...] | None
    match_over: bool
    match_winner: int | None


class TableView:
    """Everything the screen shows, updated by `apply(message)`."""

    def __init__(self, me: int = 0) -> None:
        self.me = me
        self.names: list[str] = []
        self.players = 0
        self.rules_text = ""
        self.house: tuple[str, ...] = ()
        self.preset = "official"
        self.teams = False
        self.target = 500
        self.round_no = 0
        self.dealer: int | None = None
        self.scores: list[int] = []
        self.log: list[str] = []
        self.notice: str | None = None      # the table refused our last action: why
        self.result: Result | None = None
        self.changes = 0                    # bumped on every message (for redraw and tests)
        self._reset_round()

    def _reset_round(self) -> None:
        self.hand: list = []
        self.counts: list[int] = [0] * self.players
        self.top = None
        self.color: str | None = None
        self.direction = 1
        self.turn: int | None = None
        self.phase = "play"
        self.pending = 0
        self.draw_pile = 0
        self.discard = 0
        self.catchable: int | None = None
        self.uno: set[int] = set()
        self.active: tuple[int, ...] = tuple(range(self.players))
        self.playable: set[int] = set()
        self.jump_in: set[int] = set()
        self.can_catch: int | None = None
        self.uno_ok = False
        self.drawn = None
        self.new_ids: set[int] = set()      # cards that just arrived in my hand
        self.wild_four_by: int | None = None
        self.evidence: tuple[int, list] | None = None
        self.last_play: tuple[int, object] | None = None

    # ------------------------------------------------------------------ queries
    @property
    def my_turn(self) -> bool:
        return self.turn == self.me and self.result is None

    @property
    def round_over(self) -> bool:
        return self.result is not None

    @property
    def match_over(self) -> bool:
        return self.result is not None and self.result.match_over

    def sorted_hand(self) -> list:
        return sorted(self.hand, key=card_sort_key)

    def is_playable(self, card) -> bool:
        return card.id in self.playable or card.id in self.jump_in

    def team_of(self, seat: int) -> int | None:
        return seat % 2 if self.teams else None

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return "you" if seat == self.me else self.names[seat]

    def team_scores(self) -> list[int] | None:
        if not self.teams:
            return None
        return [sum(self.scores[0::2]), sum(self.scores[1::2])]

    def team_members(self, team: int) -> list[str]:
        return [self.names[s] for s in range(self.players) if s % 2 == team]

    # ------------------------------------------------------------------ feeding
    def apply_all(self, messages) -> None:
        for m in messages:
            self.apply(m)

    def apply(self, m) -> None:
        """Take one message: an engine event (already redacted for us) or a feed message."""
        self.changes += 1
        t = type(m)
        handler = _HANDLERS.get(t)
        if handler is not None:
            handler(self, m)
        if isinstance(m, ev.Event):
            line = narrate(m, self.names, me=self.me) if self.names else None
            if line:
                self._say(line)

    def _say(self, line: str) -> None:
        self.log.append(line)
        if len(self.log) > LOG_KEEP:
            del self.log[: len(self.log) - LOG_KEEP]

    # -- feed messages
    def _table_info(self, m: feed.TableInfo) -> None:
        self.names = list(m.names)
        self.players = len(m.names)
        self.me = m.me
        self.rules_text = m.rules_text
        self.house = tuple(m.house)
        self.preset = m.preset
        self.teams = m.teams
        self.target = m.target
        self.scores = [0] * self.players
        self._reset_round()

    def _round_started(self, m: feed.RoundStarted) -> None:
        self.round_no = m.number
        self.dealer = m.dealer
        self.scores = list(m.scores)
        self.result = None
        self.notice = None
        self._reset_round()
        self._say(f"--- round {m.number}: {self.names[m.dealer]} deals ---")

    def _turn_state(self, m: feed.TurnState) -> None:
        self.turn = m.turn
        self.phase = m.phase
        self.direction = m.direction
        self.color = m.color
        self.pending = m.pending
        self.draw_pile = m.draw_pile
        self.discard = m.discard
        self.counts = list(m.counts)
        self.catchable = m.catchable
        self.uno = set(m.uno)
        self.active = tuple(m.active) or tuple(range(self.players))
        self.playable = set(m.playable)
        self.jump_in = set(m.jump_in)
        self.can_catch = m.can_catch
        self.uno_ok = m.uno_ok
        self.drawn = next((c for c in self.hand if c.id == m.drawn), None) if m.drawn is not None else None
        if m.phase != "challenge":
            self.wild_four_by = None

    def _round_scored(self, m: feed.RoundScored) -> None:
        self.scores = list(m.scores)
        self.result = Result(m.number, m.winner, m.points, tuple(m.hand_points),
                             tuple(tuple(h) for h in m.hands), tuple(m.scores),
                             tuple(m.team_scores) if m.team_scores is not None else None,
                             m.match_over, m.match_winner)
        self.turn = None
        self.phase = "over"
        self.playable = set()
        self.jump_in = set()
        self.can_catch = None
        self.uno_ok = False
        if m.match_over:
            self._say(f"*** {self.winner_text()} the match ***")

    def _refused(self, m: feed.Refused) -> None:
        self.notice = m.reason

    # -- engine events
    def _dealt(self, e: ev.Dealt) -> None:
        self._grow(e.seat)
        self.counts[e.seat] = len(e.cards)
        if e.seat == self.me:
            self.hand = list(e.cards)
            self.new_ids = set()

    def _drew(self, e: ev.Drew) -> None:
        self._grow(e.seat)
        self.counts[e.seat] += len(e.cards)
        self.uno.discard(e.seat)
        if e.seat == self.me:
            self.hand += list(e.cards)
            self.new_ids = {c.id for c in e.cards}

    def _played(self, e: ev.Played) -> None:
        self._grow(e.seat)
        self.counts[e.seat] = max(0, self.counts[e.seat] - 1)
        self.top = e.card
        self.color = e.color
        self.last_play = (e.seat, e.card)
        self.evidence = None
        if e.card.rank == "W+4":
            self.wild_four_by = e.seat
        if e.seat == self.me:
            for i, c in enumerate(self.hand):
                if c.id == e.card.id:
                    del self.hand[i]
                    break
            self.new_ids = set()

    def _first(self, e: ev.FirstDiscard) -> None:
        self.top = e.card
        self.color = e.card.color

    def _color(self, e: ev.ColorChosen) -> None:
        self.color = e.color

    def _direction(self, e: ev.DirectionChanged) -> None:
        self.direction = e.direction

    def _uno(self, e: ev.UnoCalled) -> None:
        self.uno.add(e.seat)

    def _new_hand(self, e: ev.NewHand) -> None:
        self._grow(e.seat)
        self.counts[e.seat] = len(e.cards)
        self.uno.discard(e.seat)
        if e.seat == self.me:
            self.hand = list(e.cards)
            self.new_ids = set()

    def _evidence(self, e: ev.Evidence) -> None:
        if e.cards and getattr(e.cards[0], "known", False):
            self.evidence = (e.target, list(e.cards))

    def _round_over(self, e: ev.RoundOver) -> None:
        self.turn = None
        self.phase = "over"

    def _grow(self, seat: int) -> None:
        if seat >= len(self.counts):
            self.counts += [0] * (seat + 1 - len(self.counts))

    # ------------------------------------------------------------------ words
    def winner_text(self) -> str:
        r = self.result
        if r is None or r.match_winner is None:
            return ""
        if self.teams:
            mine = r.match_winner == self.me % 2
            return (f"team {team_name(r.match_winner)} ({' & '.join(self.team_members(r.match_winner))})"
                    + (" - your team - wins" if mine else " wins"))
        return "you win" if r.match_winner == self.me else f"{self.names[r.match_winner]} wins"

    def prompt(self) -> str:
        """What seat ``me`` should do now, in one line (the status line's first half)."""
        if self.result is not None:
            if self.result.match_over:
                return f"Match over: {self.winner_text()}. Q to quit."
            return "Round over. Enter: deal the next round."
        if not self.names or self.top is None:
            return "Waiting for the deal..."
        extra = ""
        if self.can_catch is not None:
            extra = f"  X: catch {self.names[self.can_catch]} (no UNO!)"
        if self.turn != self.me:
            who = self.names[self.turn] if self.turn is not None else "nobody"
            text = f"{who}'s turn."
            if self.jump_in:
                code = next(c.code for c in self.hand if c.id in self.jump_in)
                text += f"  J: jump in with {code}"
            return text + extra
        phase = self.phase
        if phase == "color":
            return "The first card is a wild: name the colour - R, Y, G or B." + extra
        if phase == "swap":
            return "Seven: whom do you swap hands with? Type the seat number." + extra
        if phase == "challenge":
            by = self.names[self.wild_four_by] if self.wild_four_by is not None else "Someone"
            stack = "  Or play a W+4 to stack." if self.playable else ""
            return f"{by} played W+4 on you: C challenge, D accept (draw {self.pending}).{stack}" + extra
        if phase == "drawn":
            code = self.drawn.code if self.drawn is not None else "it"
            return f"You drew {code}: Enter to play it, K to keep it." + extra
        if self.pending:
            return f"{self.pending} cards are on you: play a +2 to stack, or D to draw {self.pending}." + extra
        uno = "  U: UNO!" if self.uno_ok and len(self.hand) == 2 else ""
        if not self.playable:
            return "Your turn: nothing fits - D to draw." + uno + extra
        return "Your turn: play a card (<- -> Enter, or type e.g. r7) or D to draw." + uno + extra


_HANDLERS = {
    feed.TableInfo: TableView._table_info,
    feed.RoundStarted: TableView._round_started,
    feed.TurnState: TableView._turn_state,
    feed.RoundScored: TableView._round_scored,
    feed.Refused: TableView._refused,
    ev.Dealt: TableView._dealt,
    ev.Drew: TableView._drew,
    ev.Played: TableView._played,
    ev.FirstDiscard: TableView._first,
    ev.ColorChosen: TableView._color,
    ev.DirectionChanged: TableView._direction,
    ev.UnoCalled: TableView._uno,
    ev.NewHand: TableView._new_hand,
    ev.Evidence: TableView._evidence,
    ev.RoundOver: TableView._round_over,
}
