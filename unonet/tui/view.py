"""`TableView`: the client's view model, a plain object fed by table messages.

It knows only what seat ``me`` may know: it is fed the engine's events as that seat
sees them (``event.visible_to(me)``) plus the table messages of `feed.py`.  The layout
reads it; nothing here imports prompt_toolkit, so it is tested on its own.
"""

from __future__ import annotations


import math
import time

from ..engine import HOUSE_RULES, RulesError, find_preset, narrate
from ..engine import _events as ev
from ..engine._cards import COLOR_NAMES, DARK_COLORS as DARK
from .. import feed
from ..names import clean, pad, width as cells

COLOR_ORDER = {"R": 0, "Y": 1, "G": 2, "B": 3, "P": 0, "T": 1, "O": 2, "U": 3, None: 4}
RANK_ORDER = {r: i for i, r in enumerate(
    ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "+1", "S", "SE", "R", "F", "+2", "+5",
     "W", "WC", "WS", "WK", "W+2", "W+C", "W+4"])}
LIGHT = ("R", "Y", "G", "B")
LOG_KEEP = 300


def _cards(hand) -> list:
    """A hand as (id, face) pairs in a fixed order, to compare two readings of it."""
    return sorted((c.id, c.code) for c in hand)


def card_sort_key(card):
    return (COLOR_ORDER.get(card.color, 4), RANK_ORDER.get(card.rank, 99), card.id or 0)


def colors_text(colors) -> str:
    """``R, Y, G or B`` (or the dark side's ``P, T, O or U``)."""
    letters = list(colors)
    return ", ".join(letters[:-1]) + " or " + letters[-1]


def color_name(color: str | None) -> str:
    return COLOR_NAMES.get(color, "none") if color else "none"


def team_name(team: int) -> str:
    return "AB"[team]


#: what the special cards of a deck do, for the help's rules in force (docs/rules.md)
DECK_WORDS = {
    "2018": ["WS (Wild Shuffle Hands): name a colour; every hand is gathered, shuffled and dealt "
             "out again, one at a time from the player's left. WC (Wild Customizable): a plain wild. Both 40 points."],
    "office": ["WK (Wild Kevin's Famous Chili): a wild that starts a reaction race: every other "
               "player slaps it (SPACE); the last, or too slow, draws 2. 50 points."],
}


class TableView:
    """Everything the screen shows, updated by `apply(message)`."""

    def __init__(self, me: int = 0) -> None:
        self.me = me
        self.names: list[str] = []
        self.players = 0
        self.bots: tuple[bool, ...] = ()   # per seat (TableInfo.bots)
        self.rules_text = ""
        self.house: tuple[str, ...] = ()
        self.scoring = "standard"
        self.preset = "official"
        self.teams = False
        self.target = 500
        self.deck = "classic"
        self.round_no = 0
        self.dealer: int | None = None
        self.scores: list[int] = []
        self.log: list[str] = []
        self.notice: str | None = None      # the table refused our last action: why
        self.notice_at = 0                  # `changes` when it came (the next message ends it)
        self.result: feed.RoundScored | None = None  # the last round's, for the result screen
        self.readied: feed.RoundScored | None = None  # the result we said ready after (Enter)
        self.ending: tuple[str, ...] = ()   # the last round's log from its last play on
        self.changes = 0                    # bumped on every message (for redraw and tests)
        self.log_back = 0                   # the log panel shows the log this many lines back (PgUp)
        self.clock = 0.0                    # the table's turn clock in seconds (LAN; 0: none)
        self.turn_since = 0.0               # (monotonic) when the table last told whose turn it is
        self.away: set[int] = set()         # seats whose player dropped or left (LAN)
        self.standin: set[int] = set()      # seats a bot of the host plays for their player (LAN)
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
        self.since_play: list[str] = []      # the log since the last card played (how a round ended)
        # variants
        self.side = 0                        # UNO Flip: 0 light side up, 1 dark
        self.colors: tuple[str, ...] = LIGHT  # what a wild may name now
        self.race: tuple[int, ...] = ()      # a reaction race is on: who has not responded
        self.race_by: int | None = None      # who started it
        self.race_card = None
        self.race_over = None                # the card of the race that just ended (until a play)
        self.backs: list[tuple] = []         # Flip: per seat, the faces the table sees
        self.knocked_out: list[int] = []     # deadly: out of this round, in order

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

    def house_in_words(self) -> list[str]:
        """Each house rule in force as "name: what it does", as it works beside the others
        (keep-drawing's "then play it or keep it" is wrong where draw-and-play holds)."""
        words = []
        for h in self.house:
            text = HOUSE_RULES.get(h, "")
            if h == "keep-drawing" and "draw-and-play" in self.house:
                text = "drawing goes on until a playable card comes, which must be played (draw-and-play)"
            if h == "stacking" and "stacking-mixed" in self.house:
                text = "a +2 or +4 on you may be answered with another; who cannot stack draws the sum"
            words.append(f"{h}: {text}")
        return words + DECK_WORDS.get(self.deck, [])

    def extra_house(self) -> tuple[str, ...]:
        """The house rules in force beyond the preset's own (the header names those)."""
        try:
            own = find_preset(self.preset).house
        except RulesError:
            own = frozenset()
        return tuple(h for h in self.house if h not in own)

    def has(self, rule: str) -> bool:
        """Is house rule ``rule`` in force?"""
        return rule in self.house

    @property
    def flip(self) -> bool:
        return self.deck == "flip"

    @property
    def racing(self) -> bool:
        """A reaction race is on and this seat has still to respond."""
        return self.me in self.race and self.result is None

    @property
    def out(self) -> bool:
        """This seat was knocked out of the round (deadly)."""
        return self.result is None and self.players > 0 and self.me not in self.active

    @property
    def wild_draw_on_me(self) -> bool:
        return self.my_turn and self.phase == "challenge"

    def side_name(self) -> str:
        return "dark" if self.side else "light"

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
            played = f"{self.name(m.seat)} played {m.card.code}" if t is ev.RaceStarted else None
            if played and self.log and line and \
                    (self.log[-1] == played or self.log[-1].startswith(played + ",")):
                # "Ana played R6" then "race on R6! ...": one line that says who started it
                started = self.log.pop()
                if self.since_play and self.since_play[-1] == started:
                    self.since_play.pop()
                line = started + ": race! everyone else must slap it; the last draws 2"
            if line:
                self._say(line)

    def _say(self, line: str) -> None:
        self.log.append(line)
        if self.result is None:
            self.since_play.append(line)
        if len(self.log) > LOG_KEEP:
            del self.log[: len(self.log) - LOG_KEEP]

    # -- feed messages
    def _table_info(self, m: feed.TableInfo) -> None:
        # names are untrusted text (soon from other machines): never print a control character
        self.names = [clean(n) for n in m.names]
        self.players = len(m.names)
        self.bots = tuple(m.bots) if m.bots else tuple(s != m.me for s in range(len(m.names)))
        self.me = m.me
        self.rules_text = m.rules_text
        self.house = tuple(m.house)
        self.scoring = m.scoring
        self.preset = m.preset
        self.teams = m.teams
        self.target = m.target
        self.deck = m.deck
        self.scores = [0] * self.players
        self._reset_round()

    def _round_started(self, m: feed.RoundStarted) -> None:
        self.round_no = m.number
        self.dealer = m.dealer
        self.scores = list(m.scores)
        self.result = None
        self.notice = None
        self._reset_round()
        dealer = "you deal" if m.dealer == self.me else f"{self.names[m.dealer]} deals"
        self._say(f"--- round {m.number}: {dealer} ---")

    def _turn_state(self, m: feed.TurnState) -> None:
        self.turn_since = time.monotonic()  # the table's clock restarts with every batch it sends
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
        if "deadly" in self.house and self.scoring != "elimination":
            # deadly: a seat not in the round was knocked out of it - also one whose knock-out a
            # rejoin did not replay (evening18: Dev, back, read "You are out of the match
            # (elimination)" at a deadly table, his seat marked "out", not "OUT")
            self.knocked_out += [s for s in range(self.players) if s not in self.active and s not in self.knocked_out]
        self.playable = set(m.playable)
        self.jump_in = set(m.jump_in)
        self.can_catch = m.can_catch
        self.uno_ok = m.uno_ok
        if self.me >= 0 and _cards(m.hand) != _cards(self.hand):
            # the seat's hand as the table holds it now: at a LAN seat a moved hand (a 7 swap, a 0
            # passed, hands shuffled) is opened after the event that moved it, whose cards were
            # the copy's placeholders then (play16: "Y2 Y4 Y6 Y9" shown for R6 G2 G4 W)
            self.hand = list(m.hand)
        self.drawn = next((c for c in self.hand if c.id == m.drawn), None) if m.drawn is not None else None
        if m.phase != "challenge":
            self.wild_four_by = None
        self.side = m.side
        self.colors = tuple(m.colors) or LIGHT
        self.race = tuple(m.race)
        if m.race_by is not None or not m.race:
            self.race_by = m.race_by
        if not m.race:
            if self.race_card is not None:
                self.race_over = self.race_card
            self.race_card = None
        self.backs = list(m.backs)

    def _round_scored(self, m: feed.RoundScored) -> None:
        self.scores = list(m.scores)
        self.result = m
        self.ending = tuple(self.since_play)
        self.turn = None
        self.phase = "over"
        self.race = ()
        self.playable = set()
        self.jump_in = set()
        self.can_catch = None
        self.uno_ok = False
        if m.match_over:
            self._say(f"*** {self.winner_text()} the match ***")

    def _resync(self, m: feed.Resync) -> None:
        self.hand = list(m.hand)
        self.new_ids = set()
        self.top = m.top
        self.color = m.color
        self.since_play = []  # the round so far went unseen: its header is no part of its end

    def _refused(self, m: feed.Refused) -> None:
        # `stale`: a catch or jump-in that lost its race (another move reached the table first)
        self.notice = "Too late: the table moved on before your move reached it." if m.code == "stale" else m.reason
        self.notice_at = self.changes

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
        self.race_over = None
        self.since_play = []  # the play's own line follows (apply narrates after the handler)
        self.evidence = None
        if e.card.wild and e.card.draw:  # W+4, and Flip's W+2 and W+C
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
        self.race = ()

    def _flipped(self, e: ev.Flipped) -> None:
        # every card turns over: my hand shows its other faces; the table's backs come
        # with the next TurnState (the event does not carry them)
        self.side = e.side
        self.colors = DARK if e.side else LIGHT
        self.hand = [c.other if c.other is not None else c for c in self.hand]
        self.new_ids = set()
        self.top = e.top
        self.color = e.top.color
        self.last_play = None
        self.backs = []

    def _race_started(self, e: ev.RaceStarted) -> None:
        self.race = tuple(e.waiting)
        self.race_by = e.seat
        self.race_card = e.card

    def _responded(self, e: ev.Responded) -> None:
        self.race = tuple(s for s in self.race if s != e.seat)

    def _race_lost(self, e: ev.RaceLost) -> None:
        self.race = tuple(s for s in self.race if s != e.seat)

    def _knocked_out(self, e: ev.KnockedOut) -> None:
        if e.seat not in self.knocked_out:
            self.knocked_out.append(e.seat)
        self.active = tuple(s for s in self.active if s != e.seat)

    def _grow(self, seat: int) -> None:
        if seat >= len(self.counts):
            self.counts += [0] * (seat + 1 - len(self.counts))

    def time_left(self, now: float | None = None) -> int | None:
        """Whole seconds the seat whose turn it is has left on the table's clock (None: no
        clock, or nobody's turn)."""
        if not self.clock or self.turn is None or self.result is not None or self.top is None:
            return None
        now = time.monotonic() if now is None else now
        return max(0, math.ceil(self.clock - (now - self.turn_since)))

    # ------------------------------------------------------------------ words
    def winner_text(self) -> str:
        r = self.result
        if r is None or r.match_winner is None:
            return ""
        if self.teams:
            mine = self.me >= 0 and r.match_winner == self.me % 2
            return (f"team {team_name(r.match_winner)} ({' & '.join(self.team_members(r.match_winner))})"
                    + (" - your team - wins" if mine else " wins"))
        return "you win" if r.match_winner == self.me else f"{self.names[r.match_winner]} wins"

    def standings(self) -> list[str]:
        """The match as it stands, for the terminal after the client closes: where it
        stopped, then one line a seat, best first (and the team totals with partners)."""
        if not self.names or self.round_no == 0:
            return ["unonet: you left before the first deal."]
        r = self.result
        if r is not None and r.match_over:
            head = f"unonet: match over after round {self.round_no}: {self.winner_text()}."
        elif r is not None:
            head = f"unonet: you left after round {self.round_no}, first to {self.target} wins."
        else:
            head = f"unonet: you left during round {self.round_no}, first to {self.target} wins."
        lines = [head]
        # with partners the match is a team's: a player's place is their team's (its total),
        # and the points they took themselves order the partners
        rank = [self.team_scores()[s % 2] if self.teams else self.scores[s] for s in range(self.players)]
        order = sorted(range(self.players), key=lambda s: (-rank[s], -self.scores[s], s))
        label = [n + (" (you)" if s == self.me else "") for s, n in enumerate(self.names)]
        wide = max(cells(n) for n in label)
        for s in order:
            place = 1 + (sum(1 for t in (0, 1) if self.team_scores()[t] > rank[s]) if self.teams
                         else sum(1 for t in range(self.players) if self.scores[t] > self.scores[s]))
            team = f"  team {team_name(s % 2)}" if self.teams else ""
            lines.append(f"  {place:>2}. {pad(label[s], wide)}  {self.scores[s]:>5} points{team}")
        if self.teams:
            for t, total in enumerate(self.team_scores()):
                mine = " (yours)" if self.me >= 0 and t == self.me % 2 else ""
                lines.append(f"  team {team_name(t)}{mine}: {' & '.join(self.team_members(t))}, {total} points")
        return lines

    @property
    def is_ready(self) -> bool:
        """We pressed Enter after the result on the screen: the table deals the next round
        once every player has (or its clock for them runs out)."""
        return self.result is not None and self.readied is self.result and not self.result.match_over

    def ready_text(self) -> str:
        """The result screen after Enter: the screen did not change at all, and a player
        pressed Enter again and again while the table waited for the others (play10)."""
        # (a seat a bot stands in for is not waited for)
        away = [self.names[s] for s in sorted(self.away - self.standin) if s != self.me and s < len(self.names)]
        if away:
            return (f"You are ready; waiting for the others ({' and '.join(away)} "
                    f"{'is' if len(away) == 1 else 'are'} away).")
        return "You are ready; the next round is dealt once every player is."

    def prompt(self) -> str:
        """What seat ``me`` should do now, in one line (the status line's first half)."""
        if self.result is not None:
            if self.result.match_over:
                return f"Match over: {self.winner_text()}. Q to quit."
            if self.is_ready:
                return self.ready_text()
            return "Round over. Enter: deal the next round."
        if not self.names or self.top is None:
            return "Waiting for the deal..."
        extra = ""
        if self.can_catch is not None:
            cost = ", draws 4" if self.has("uno-penalty-4") else ""
            # (play15: a partner offered as any other: catching them costs our own team)
            partner = ", your partner" if self.teams and self.me is not None and self.can_catch % 2 == self.me % 2 else ""
            extra = f"  X: catch {self.names[self.can_catch]}{partner} (no UNO!{cost})"
        if self.race:
            card = self.race_card.code if self.race_card is not None else "the card"
            by = self.name(self.race_by)
            if self.me in self.race:
                return f"RACE! {by} played {card}: press SPACE (or !) to slap it - the last one draws 2!"
            names = ", ".join(self.names[s] for s in self.race)
            return f"Race on {card}: waiting for {names} to slap it (the last draws 2)." + extra
        if self.out:
            if self.me in self.knocked_out:
                return "You are out of this round (deadly: you could not play). Watching the others."
            return "You are out of the match (elimination). Watching the others."
        if self.turn != self.me:
            who = self.names[self.turn] if self.turn is not None else "nobody"
            text = f"{who}'s turn."
            # (a jump-in card the hand shown does not hold is no hint, never a StopIteration that
            # kills the screen: play16 saw one while the shown hand was behind the seat's)
            code = next((c.code for c in self.hand if c.id in self.jump_in), None)
            if code is not None:
                text += f"  J: jump in with {code}"
            return text + extra
        phase = self.phase
        colors = colors_text(self.colors)
        if phase == "color":
            what = "The first card" if self.discard <= 1 and not self.flip else "The top card"
            return f"{what} is a wild: name the colour - {colors}." + extra
        if phase == "swap":
            if self.has("seven-o-optional"):
                return "Seven: type a seat number to swap hands with, or K to keep your hand." + extra
            return "Seven: whom do you swap hands with? Type the seat number." + extra
        top = self.top.code
        if phase == "challenge":
            by = self.names[self.wild_four_by] if self.wild_four_by is not None else "Someone"
            stacks = sorted({c.code for c in self.hand if c.id in self.playable})
            stack = f"  Or stack: {', '.join(stacks)}." if stacks else ""
            if self.top.draw < 0:
                take = f"draw until {color_name(self.color)}"
            else:
                take = f"draw {self.pending}"
            keys = "C challenge, D accept" if not self.has("no-challenges") else "D to accept"
            return f"{by} played {top} on you: {keys} ({take}).{stack}" + extra
        if phase == "drawn":
            code = self.drawn.code if self.drawn is not None else "it"
            if self.drawn is not None and self.drawn.id not in self.playable:
                return f"You drew {code}, which cannot be played: Enter or K keeps it." + extra
            if self.has("draw-and-play"):
                return f"You drew {code}: it fits, so you must play it - Enter." + extra
            return f"You drew {code}: Enter to play it, K to keep it." + extra
        if self.pending:
            stacks = sorted({c.code for c in self.hand if c.id in self.playable})
            what = ("play " + " or ".join(stacks) + " to stack, or") if stacks else "nothing to stack:"
            return f"{self.pending} cards are on you: {what} D to draw {self.pending}." + extra
        uno_key = "!" if self.side else "U"  # on the dark side U starts a purple card
        uno = f"  {uno_key}: UNO!" if self.uno_ok and len(self.hand) == 2 else ""
        if not self.playable:
            if self.has("deadly"):
                return "Your turn: nothing fits - under deadly D takes you out of the round." + extra
            return "Your turn: nothing fits - D to draw." + extra  # no UNO to call without a play
        example = "p5" if self.side else "r7"
        if self.has("deadly"):
            return f"Your turn: play a card (<- -> Enter, or type e.g. {example}) - deadly: no drawing." + uno + extra
        return f"Your turn: play a card (<- -> Enter, or type e.g. {example}) or D to draw." + uno + extra


_HANDLERS = {
    feed.TableInfo: TableView._table_info,
    feed.RoundStarted: TableView._round_started,
    feed.TurnState: TableView._turn_state,
    feed.RoundScored: TableView._round_scored,
    feed.Refused: TableView._refused,
    feed.Resync: TableView._resync,
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
    ev.Flipped: TableView._flipped,
    ev.RaceStarted: TableView._race_started,
    ev.Responded: TableView._responded,
    ev.RaceLost: TableView._race_lost,
    ev.KnockedOut: TableView._knocked_out,
}
