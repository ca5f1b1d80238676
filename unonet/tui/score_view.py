"""The scorekeeper's live screen as a plain object (`ScoreView`), apart from its layout.

Two sources fill it, and nothing else: the observer's feed (`unonet.net._observe.watch_table`:
the table and its seats, each round dealt, a host election and where the new host continues
the record, news of players) through `apply`, and the standings as the store recorded them
(`unonet.store.Board`) through `recorded`.  ``lines(width)`` is the whole screen as text; the
full-screen layout (`board.py`) and the last screen printed after ``q`` only draw it.
"""

from __future__ import annotations

import textwrap
from collections import deque
from typing import TYPE_CHECKING

from unonet import feed as F

if TYPE_CHECKING:
    from unonet.store import Board

__all__ = ["ScoreView"]

NEWS_KEPT = 3  # the latest lines of news about players shown


class ScoreView:
    """What the scorekeeper's screen shows; ``db`` is where the rounds are recorded."""

    def __init__(self, db: str = "") -> None:
        self.db = db
        self.table = ""                 # the table's name
        self.rules = ""                 # the preset, house rules and target, in words
        self.host = ""                  # who hosts the table now
        self.seats: tuple = ()          # feed.LobbySeat, in seat order
        self.players = 0                # seats the match will have
        self.round: int | None = None   # the round dealt and not yet recorded
        self.dealer: int | None = None
        self.recorded_round: int | None = None
        self.board: Board | None = None
        self.over = False               # the match on the board was won
        self.host_change: tuple[str, ...] = ()  # the last election: the host lost, who took over, the record
        self.lost = ""                  # the host the last election lost
        # the last host change a new host confirmed (`Resumed`), and whether an election since
        # is still unconfirmed: the lost host answering again takes that one back
        self.confirmed: tuple[tuple[str, ...], str] = ((), "")
        self.unconfirmed = False
        self.news: deque[str] = deque(maxlen=NEWS_KEPT)
        self.news_seen = 0              # news lines of this match (its lobby) so far, kept or not
        self.next_lobby: F.Lobby | None = None  # the next match's table, once this one is over
        self.dealt = False              # a round was dealt at this table (the lobby's news is over)
        self.closed_at: int | None = None  # the table closed with this round dealt and unfinished (0: none)

    # -- the observer's feed ------------------------------------------------------------
    def apply(self, value) -> bool:
        """One value of the observer's feed; True when the screen changed."""
        if isinstance(value, F.Lobby):
            if self.over or not self.dealt:
                # a player who sat down while the table gathers is news: "news: Ben left the
                # table" stood under the board while Ben was back for the next match (evening17)
                came = self._comers(value)
                for name in came:
                    self.news.append(f"{name} joined the table" + (" for the next match" if self.over else ""))
                    self.news_seen += 1
            if self.over:
                # the next match gathers: the finished match's board keeps its seats (a player
                # who left it vanished from its standings) until the next deal
                self.next_lobby = value
                return bool(came)
            seats = tuple(sorted(value.seats, key=lambda s: s.seat))
            new = (value.table, value.rules, value.hosted_by, seats, value.players)
            if new == (self.table, self.rules, self.host, self.seats, self.players):
                return False
            self.table, self.rules, self.host, self.seats, self.players = new
            return True
        if isinstance(value, F.RoundStarted):
            if self.over:  # the next match's first deal: the last one's host change and news were its own
                self.host_change, self.lost = (), ""
                self.confirmed, self.unconfirmed = ((), ""), False
                self.news.clear()
                self.news_seen = 0
                lobby, self.next_lobby, self.over = self.next_lobby, None, False
                if lobby is not None:
                    self.apply(lobby)
            elif not self.dealt:
                self.news.clear()  # the match's first deal: the lobby's comings and goings are done
                self.news_seen = 0
            self.dealt = True
            self.round, self.dealer, self.over = value.number, value.dealer, False
            return True
        if isinstance(value, F.Election):
            self.round = None  # the round in play is void: the new host deals it again
            self.unconfirmed = True
            if value.successor:
                # what is known, not what may come (the players' screens say it so too): our own
                # link may be what dropped; "HOST CHANGED" once the new host confirms (`Resumed`)
                self.lost = value.lost
                self.host_change = (f"HOST LOST: the link to {value.lost} is down; following its successor "
                                    f"{value.successor} (election {value.term})",
                                    "  waiting for the new host to confirm where the record goes on …")
            else:
                self.host_change = (f"HOST GONE: {value.lost} is gone and nobody can take the table over",
                                    "  the record stops at the last round recorded")
            return True
        if isinstance(value, F.Resumed):
            self.host, self.unconfirmed = value.host, False
            after = f"after round {value.rounds}" if value.rounds else "from the match's start"
            first = (f"HOST CHANGED: {value.host} took the table over" + (f" from {self.lost}" if self.lost else "")
                     + f" (election {value.term})",)
            if self.over:  # (seen: "continues from the match's start, on ledger head 0e58…" under a won
                # match whose head read acdc…: the host left after the match, nothing of it goes on)
                self.host_change = first + (f"  {value.host} hosts now; this match was over: the next one "
                                            f"is dealt at {value.host}'s table",)
            else:
                self.host_change = first + (f"  {value.host} hosts now; the record continues {after},",
                                            f"  on ledger head {value.head[:16]}…, the same as ours")
            self.confirmed = (self.host_change, self.lost)
            return True
        if isinstance(value, F.MatchOver):
            self.round, self.over = None, True
            return True
        if isinstance(value, F.Notice):
            if value.kind in ("timeout", "challenge-timeout", "verdict-timeout"):
                return False  # the table moving for a slow or absent seat: play, not news here
            if value.kind == "stand-in" and self.over:
                return False  # a bot seated for the next match: not news of the finished one
            if value.kind == "reconnected" and self.unconfirmed:
                # the lost host answered again: only our own link had dropped, nobody took the
                # table over (play13: "HOST LOST: the link to Hal is down; following its
                # successor Robo" stayed for good under the rounds Hal went on dealing)
                (self.host_change, self.lost), self.unconfirmed = self.confirmed, False
            self.news.append(value.text)
            self.news_seen += 1
            return True
        return False

    def _comers(self, lobby: F.Lobby) -> list[str]:
        """The players seated (and linked) in ``lobby`` who were not in the table's last one
        this screen saw (none the first time: everyone is new then)."""
        before = self.next_lobby.seats if self.over and self.next_lobby is not None else self.seats
        if not before:
            return []
        was = {s.name for s in before if s.connected and not s.bot}
        return [s.name for s in sorted(lobby.seats, key=lambda s: s.seat)
                if s.connected and not s.bot and s.name not in was]

    def closed(self) -> None:
        """The table closed (its host's ^C, or its last match played): a round dealt and not yet
        recorded will never be (play13: the board still read "round 2 in play, Robo deals" under
        "the table closed")."""
        done = self.recorded_round
        unfinished = self.round is not None and not self.over and (done is None or self.round > done)
        self.closed_at = self.round if unfinished else 0
        self.round = None

    def apply_all(self, values) -> bool:
        changed = False
        for v in values:
            changed = self.apply(v) or changed
        return changed

    # -- the store's standings ----------------------------------------------------------
    def recorded(self, board: Board, last_round: int | None) -> None:
        """The board of the match being recorded, after its row opened or a round was recorded
        (``last_round``: that round's number, None when none yet)."""
        self.board, self.recorded_round = board, last_round
        if board.winner is not None:
            self.over = True

    # -- the screen -------------------------------------------------------------------------
    def lines(self, width: int = 80, height: int | None = None) -> list[str]:
        """The screen as text lines no wider than ``width`` and, given ``height``, no more than
        that many: the scores, the ledger head and where it records always show; the news
        is cut to the latest that fit (a line says how many older ones were left out), then
        the last rounds listed (words12: at 80x24 news piled up and pushed "ledger head" and
        "recording into" off the bottom)."""
        if not self.table and not self.seats and self.board is None:
            # no table heard of yet (found, or not: the status line says): nothing gathers
            return [line[:width].rstrip() for line in [self._title(), ""]
                    + ([f"recording into {self.db}"] if self.db else [])]
        # the title and the match's line wrapped on words (evening18: at 80 columns the title
        # of a dirty table read "(dirty + exact-match-penalty, seven-o, seven-o", the rest cut)
        out = [*_wrap(self._title(), width), *_wrap(self._match_line(), width), self._round_line(), ""]
        out += self._seat_lines()
        lead = self._leader()
        if lead:
            out.append(lead)
        b = self.board
        rounds = [""] + [f"  {r}" for r in b.last_rounds] if b is not None and b.last_rounds else []
        after = []
        if b is not None and b.winner:
            after += ["", f"  {b.winner}"]
        # the host change and the news wrapped on words (eve12: at 60 columns the screen read
        # "HOST CHANGED: Hal is gone; Pat takes the table over (electio", the rest cut off)
        if self.host_change:
            after += [""] + [w for line in self.host_change for w in _wrap(line, width)]
        tail = [""] if b is not None and b.head else []
        # (play13: at 60 columns the head read to its 48th digit, with nothing to say it was cut;
        # a scorekeeper compares it with the players' whole "ledger" line: it wraps, as the path does)
        for line in ([f"ledger head {b.head}"] if b is not None and b.head else []) + \
                ([f"recording into {self.db}"] if self.db else []):
            tail += _wrap(line, width)
        room = None if height is None else height - len(out) - len(after) - len(tail)
        if room is not None:
            # the latest news first, then the latest rounds listed (the scores above say where
            # the match stands; the rounds are its story)
            latest = self._news_lines(width, room, most=1)
            if len(rounds) > room - len(latest):
                keep = room - len(latest) - 1
                rounds = [""] + rounds[-keep:] if keep > 0 else []
            room -= len(rounds)
        news = self._news_lines(width, room)
        out += rounds + after + news
        if height is not None:
            out = out[:max(0, height - len(tail))]  # (the essentials still too tall: the end goes first)
        return [line[:width].rstrip() for line in out + tail]

    def _news_lines(self, width: int, room: int | None, most: int = NEWS_KEPT) -> list[str]:
        """The news block: the latest news (``most`` at most) that fit in ``room`` lines (None:
        no limit), after a line that says how many older ones it leaves out."""
        items = [_wrap(f"news: {n}", width) for n in self.news]
        shown: list[list[str]] = []
        for item in reversed(items[-most:]):
            left = self.news_seen - len(shown) - 1
            need = 1 + sum(map(len, shown)) + len(item) + (1 if left else 0)
            if room is not None and need > room:
                break
            shown.insert(0, item)
        left = self.news_seen - len(shown)
        if not shown:
            return ["", f"({left} news left out: no room)"] if left and room is not None and room >= 2 else []
        return [""] + ([f"({left} older news left out)"] if left else []) + [w for item in shown for w in item]

    def _title(self) -> str:
        if not self.table and not self.seats:
            return "unonet score: attaching to the table …"
        host = f", hosted by {self.host}" if self.host else ""
        # (once the match has a row, its line says the rules: "official, teams, to 500")
        rules = f"  ({self.rules})" if self.rules and not (self.board is not None and self.board.sides) else ""
        return f"table {self.table or '?'}{host}{rules}"

    def _match_line(self) -> str:
        b = self.board
        if b is not None and b.sides:
            # "#19" is this store's row for the match, not a count the table keeps (eve12: beside
            # the players' "match 16" and "match 17" a bare "#19" read as a third count): say so
            return ("recorded as " + b.title) if b.title.startswith("match #") else b.title
        if self.round is not None:
            return "match under way (its row opens with its first deal)"
        if self.closed_at is not None:
            return "no match recorded: the table closed"
        taken = len(self.seats)
        if self.players and taken >= self.players:
            # (evening19: three of three seats taken read "the table is gathering players")
            return f"no match yet: every seat is taken ({taken} of {self.players}); the host starts the match"
        of = f" ({taken} of {self.players} seats taken)" if self.players and taken < self.players else ""
        return f"no match yet: the table is gathering players{of}"

    def _round_line(self) -> str:
        if self.over:
            return "the match is over"
        if self.closed_at:
            return f"the table closed in round {self.closed_at}, before the match was won"
        if self.closed_at is not None:
            return "the table closed" + (f" after round {self.recorded_round} was recorded"
                                         if self.recorded_round is not None else "")
        done = self.recorded_round
        if self.round is not None and (done is None or self.round > done):
            dealer = self._name(self.dealer)
            return f"round {self.round} in play" + (f", {dealer} deals" if dealer else "")
        if self.host_change and self.round is None and self.board is not None:
            return "the round in play is void: the new host deals it again"
        if done is not None:
            return f"round {done} recorded; waiting for the next deal"
        return "waiting for the first deal"

    def _name(self, seat: int | None) -> str:
        return next((s.name for s in self.seats if s.seat == seat), "") if seat is not None else ""

    def _seat_lines(self) -> list[str]:
        """One line per seat (its score and what is left, unless the scores are by team),
        then one per team at a partners table."""
        b = self.board
        sides = b.sides if b is not None else ()
        teams = any(s.team is not None for s in self.seats) or (len(sides) == 2 and len(self.seats) > 2)
        name_w = max([len(_seat_label(s)) for s in self.seats] + [8])
        out = []
        for s in self.seats:
            label = _seat_label(s).ljust(name_w)
            team = f"  team {'AB'[s.team]}" if s.team is not None else ""
            side = sides[s.seat] if not teams and s.seat < len(sides) else None
            if side is None:
                out.append(f"    {s.seat}  {label}{team}")
            else:
                mark = ">" if side.leading and not _unscored(b) else " "
                out.append(f"  {mark} {s.seat}  {label}  {side.score:>5}  {side.state()}")
        if not self.seats or teams:  # the standings by side (teams, or seats the feed has not named)
            label_w = max([len(s.label) for s in sides] + [6])
            if sides and self.seats:
                out.append("")
            for side in sides:
                mark = ">" if side.leading and not _unscored(b) else " "
                out.append(f"  {mark} {side.label:<{label_w}}  {side.score:>5}  {side.state()}")
        return out

    def _leader(self) -> str:
        """Who leads, and by how much (nobody before a point is scored)."""
        b = self.board
        if b is None or not b.sides or b.winner:
            return ""
        lead = next((s for s in b.sides if s.leading), None)
        if lead is None or _unscored(b):
            return "nobody has scored yet"
        others = [s.score for s in b.sides if s is not lead and not s.out]
        if others and max(others) == lead.score and not b.elimination:
            return f"tied at {lead.score}: {', '.join(s.label for s in b.sides if s.score == lead.score)}"
        by = f", {lead.score - max(others)} ahead" if others and not b.elimination else ""
        left = f"; {lead.to_target} to go" if lead.to_target and not lead.out else ""
        return f"{lead.label} leads with {lead.score}{by}{left}"


def _unscored(board) -> bool:
    return all(s.score == 0 for s in board.sides)


def _seat_label(seat) -> str:
    # (a host's own bots are named so already: "Ben (bot)")
    # a goodbye is said as every player's screen says it (words15: "Lee (away)" for a player
    # who quit, whose seat a bot plays at once); a lost link is away
    marks = [m for m, on in (("bot", seat.bot and "(bot)" not in seat.name),
                             ("left; a bot plays", not seat.connected and seat.left),
                             ("away", not seat.connected and not seat.left)) if on]
    return seat.name + (f" ({', '.join(marks)})" if marks else "")


def _wrap(line: str, width: int) -> list[str]:
    """``line`` on as many lines of ``width`` as it needs, broken between words; the rest of
    it indented as its first line is, two more."""
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.wrap(line, max(width, len(indent) + 10), subsequent_indent=indent, break_on_hyphens=False,
                         drop_whitespace=True) or [""]
