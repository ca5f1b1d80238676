"""The client at a LAN table: the lobby, table problems, the match's end, the standings.

The table itself is drawn by `view`/`control`/`layout` exactly as for a local match; this
module adds what only a session has (see `unonet.feed`):

* `SessionView` - a `TableView` that also takes ``Lobby``, ``TableProblem`` and
  ``MatchOver``;
* `SessionController` - the keys in the lobby (S or Enter: the host starts the match), after
  a fatal problem (only quitting) and for a watcher (a dealer-only host);
* `session_layout` - the lobby screen and the problem banner around the table's layout;
* `SessionView.standings` - the final standings (with the ledger hash), printed on exit.

A watcher (``TableInfo.me == -1``: the host without a seat) sees every public event and no
hand.
"""

from __future__ import annotations

import time

from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import ConditionalContainer, Dimension, HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from .. import feed
from ..engine import _events as ev
from ..names import clean, pad
from .app import TableApp
from .control import Controller
from .layout import build_layout
from .screen import _width, feedback_text, line_texts, status_text, wrap
from .view import TableView, team_name

WATCHER = -1  # TableInfo.me of a client that holds no seat


class SessionView(TableView):
    """`TableView` plus the session's own values."""

    def __init__(self, me: int = 0) -> None:
        super().__init__(me)
        self.lobby: feed.Lobby | None = None
        self.problem: feed.TableProblem | None = None   # the last fatal one (the banner)
        self.over: feed.MatchOver | None = None
        self.next_lobby: feed.Lobby | None = None       # the host offers another match
        self.started = False                             # a TableInfo came: the match is on
        self.election: feed.Election | None = None      # the host is gone: the table is being taken over
        self.earlier: list[str] = []                    # the last finished match's standings (next match)
        # back after a rejoin: the table as it stood then ("next": the coming TurnState), whose
        # turn clock started before we came, at a time this client cannot know
        self.unclocked: tuple | str | None = None
        self._back_left: float | None = None  # our `reconnected` notice's time left of our turn
        self._back_other: tuple[int, float] | None = None  # its time left of another's turn: (seat, s)
        self.matches_over = 0     # matches this client saw end at this table
        self.match_labelled = 1   # the match (this process's count) the log's last "— next match —" line opened
        self.held_news: list[feed.Notice] = []  # the next match's stand-ins, said when it begins
        self.lobby_news: list[str] = []         # the lobby's comings and goings (not the match's news)
        self.unjudged = ""        # the open challenge was decided by the host's clock (the notice's kind)
        self.link_gone = False    # the link to the table ended after the match: no next match here
        # the table went away while we waited in the next match's lobby: what the seat said
        # (the matches played stand; nothing failed)
        self.table_closed = ""

    @property
    def in_lobby(self) -> bool:
        return self.lobby is not None and not self.started

    @property
    def watching(self) -> bool:
        return self.me == WATCHER or (self.in_lobby and self.lobby.me is None)

    @property
    def stopped(self) -> bool:
        """A fatal problem, or the table gone from under the next match's lobby: the table
        takes no more moves from this client."""
        return self.problem is not None and self.problem.fatal or bool(self.table_closed)

    @property
    def match_over(self) -> bool:
        return self.over is not None or super().match_over

    def apply(self, m) -> None:
        handler = _SESSION.get(type(m))
        if type(m) is ev.Evidence and self.unjudged == "challenge-timeout":
            return  # the hand never came: our engine copy's cards for it are placeholders, not it
        if type(m) is ev.Challenged and self.unjudged:
            # nobody judged the hand: "(Ben held red)" / "(Ben held no red)" would be a claim the
            # table never checked - the notice before it says how it was decided
            self.unjudged = ""
            m = ev.Challenged(m.seat, m.target, m.guilty)
        if handler is None:
            if type(m) is feed.TableInfo:
                self._match_line()
                if not self.started and self.lobby is not None:
                    # the match begins: who is away is the roster's word at the deal, not the
                    # lobby's comings and goings (a seat left and taken again read "away"), and
                    # those are not the match's first news ("* Ann left the table", Ann playing)
                    self.away = {s.seat for s in self.lobby.seats if not s.connected}
                    self.standin = set()
                    self.log[:] = [x for x in self.log if x not in self.lobby_news]
                self.lobby_news = []
            if type(m) in (feed.TableInfo, feed.RoundStarted) and self.election is not None \
                    and self.election.hosted:
                # the successor deals: now it is a fact that it hosts the table
                self._say(f"*** {clean(self.election.hosted)} ***")
                self.election = None
            super().apply(m)
            if type(m) is feed.TableInfo:
                # a match begins (or goes on at an elected host): nothing of the last one's end stays
                if self.over is not None:
                    self.away, self.standin = set(), set()
                self.started, self.over, self.next_lobby, self.result = True, None, None, None
                held, self.held_news = self.held_news, []
                for n in held:
                    self._notice(n)
            elif type(m) is feed.RoundStarted:
                self.election = None  # the table was taken over: play resumes with this deal
            elif type(m) is feed.TurnState and self.unclocked == "next":
                other = self._back_other
                if self.turn == self.me:
                    self._clock_restarted(self._back_left)
                elif other is not None and self.turn == other[0]:
                    self._clock_restarted(other[1])
                else:
                    self.unclocked = self._moment()
            return
        self.changes += 1
        handler(self, m)

    def _lobby(self, m: feed.Lobby) -> None:
        self.clock = m.clock
        if self.over is not None or (self.result is not None and self.result.match_over):
            # the host offers the next match: the final standings stay until the player moves on
            self.next_lobby = m
            return
        self.lobby = m
        if m.me is not None:
            self.me = m.me

    def next_match(self) -> bool:
        """Leave the finished match for the lobby of the next one (if the host offers it)."""
        m = self.next_lobby
        if m is None:
            return False
        self.earlier = self.standings()
        self.started, self.over, self.result, self.next_lobby = False, None, None, None
        self.away, self.standin = set(), set()
        self.round_no = 0
        self.log.clear()
        self.changes += 1
        self._lobby(m)
        return True

    def _problem(self, m: feed.TableProblem) -> None:
        text = clean(m.message)
        if self.over is not None and not m.cheat:
            # the match is over and checked: a link that ends now (the host closing) stops nothing
            self._say("(" + text + ")")
            return
        if m.fatal:
            if self.problem is not None and self.problem.message == text:
                return  # the same failure again: the seat's feed said it, then the trio side raised it
            self.problem = feed.TableProblem(text, m.fatal, m.cheat, m.goodbye and not m.cheat)
        self._say(("!! CHEAT: " if m.cheat else "* " if m.goodbye else "!! ") + text)
        if not m.fatal:
            self.notice, self.notice_at = text, self.changes

    @property
    def final(self) -> bool:
        """The match's end is on the screen (its last result or its standings)."""
        return self.over is not None or (self.result is not None and self.result.match_over)

    def _notice(self, m: feed.Notice) -> None:
        if m.kind == "closed":
            # the table went away between matches: no next match to offer (Enter led to the
            # lobby of a table whose host was gone, "Waiting for the host to start the match")
            self.next_lobby = None
            # said on the final screen: the notice itself went under the match's end said again
            # (play10: Ana's link dropped as the match ended; her screen still read "Q to quit."
            # and she waited for a next match the others were already playing)
            self.link_gone = not self.in_lobby
            if self.in_lobby and self.matches_over:
                # the lobby of a next match that will not come: the matches played stand, as
                # at the final screen (evening17: Ana, who had pressed Enter for the next match,
                # read "The table has stopped (see above)" and on exit "unonet join: TABLE
                # PROBLEM: the host closed the table: there is no next match", exit 1, while
                # Robo, still at the final screen, exited 0)
                self.table_closed = clean(m.text)
                self.notice = None  # the prompt says it (not twice, one line under the other)
                return
        if m.kind == "stand-in" and self.final:
            # a bot seated for the next match (an elected host seats the lost host's): said
            # under the finished match's standings it read as old news of that match
            self.held_news.append(m)
            return
        text = clean(m.text)
        if m.seat is not None:
            if m.kind in ("dropped", "left"):
                self.away.add(m.seat)
            elif m.kind in ("back", "reconnected"):
                self.away.discard(m.seat)
                self.standin.discard(m.seat)
                if m.kind == "reconnected":
                    mine = m.clock_of is None
                    self._back_left = m.left if mine else None
                    # another seat's turn under way, and what the host left of it (evening19)
                    self._back_other = (m.clock_of, m.left) if not mine and m.left is not None else None
                    if self.turn is not None and self.turn == self.me and mine:
                        self._clock_restarted(m.left)
                    elif self.turn is not None and self._back_other is not None and self.turn == m.clock_of:
                        self._clock_restarted(m.left)
                    else:
                        self.unclocked = self._moment() if self.turn is not None else "next"
                elif self.turn is not None and self.turn == m.seat and self.result is None:
                    # the seat whose turn it is came back: the host planned its turn again then,
                    # and says what it left of it (evening17: Hal's screen read [0:00] on Ana's
                    # turn for 25 s after she came back, the table still waiting for her)
                    self._clock_restarted(m.left)
            elif m.kind == "stand-in":
                self.standin.add(m.seat)
        if m.kind in ("challenge-timeout", "verdict-timeout"):
            self.unjudged = m.kind
        if m.kind == "link-back":
            self.election = None  # the lost host answered again: nobody else hosts the table
        self._say(f"* {text}")
        self.notice, self.notice_at = text, self.changes
        if not self.started and m.kind in ("dropped", "left", "back"):
            self.lobby_news.append(f"* {text}")

    def _clock_restarted(self, left: float | None = None) -> None:
        """The host planned again the clock of the seat whose turn it is: a seat held for its
        player, back, has what was left of its turn (at least a short floor, never more than
        the turn's clock and that floor in all: `HostGame.back`), ``left`` seconds from its
        return as the host said (`rejoin.turn_left`, the roster's `turn_left`), which the
        seat's own fair-play watch times from its replay too (`HostWatch.replayed`); None: an
        older host, which gave a whole clock.  Our own turn after a rejoin shows it (evening17:
        Ana, back on her turn, saw no clock for the 90 s the table gave her); another seat's
        turn we came back in counts down from what the return's roster said was left of it
        (`PlayerEntry.turn_left` of the seat whose act is owed: evening19), and stays unclocked
        at an older host, which does not say it: that clock ran before us."""
        self.unclocked = None
        self.turn_since = time.monotonic()
        if left is not None and self.clock:
            self.turn_since -= max(0.0, self.clock - left)  # (the count reads ``left`` now)

    def _moment(self) -> tuple:
        """Where the table stands: every act moves it on (and restarts the table's clock)."""
        return (self.round_no, self.turn, self.phase, self.draw_pile, self.discard, tuple(self.counts),
                self.pending, self.result is None)

    def time_left(self, now: float | None = None) -> int | None:
        """`TableView.time_left`, but none for the turn we came back in: the table's clock for
        it ran before the rejoin (counting from the replay's end showed 20 s more than the
        host's screen); the next act starts a clock this client sees start."""
        if self.unclocked is not None:
            if self.unclocked == "next" or self.unclocked == self._moment():
                return None
            self.unclocked = None
        return super().time_left(now)

    def _election(self, m: feed.Election) -> None:
        self.election = m
        self._say(f"*** {clean(m.text)} ***")
        # not the notice line too: the prompt says the election while it lasts (eve12: Kim's
        # status area read the same election sentence twice, one line under the other)
        self.notice = None

    def _match_line(self) -> None:
        """A next match at this table: its first log line says so (the last match's log is
        still there when the host started before the player pressed Enter)."""
        n = self.matches_over + 1
        if not self.matches_over or self.match_labelled == n:
            return
        lobby = self.next_lobby or self.lobby
        table = clean(lobby.table) if lobby is not None and lobby.table else ""
        # no number: ``n`` counts the matches this process saw, not the table's (eve12: after
        # restarts Hal read "match 16", Pat "match 17" of the same match)
        self._say(f"\u2014 next match{' at ' + table if table else ''} \u2014")
        self.match_labelled = n

    def _match_over(self, m: feed.MatchOver) -> None:
        if self.in_lobby and self.matches_over:
            return  # the last match's end said again as the table went away: not this lobby's
        if self.over is None:
            self.matches_over += 1
        self.over = m
        self._say(f"*** match over after {m.rounds} round{'s' if m.rounds != 1 else ''}: "
                  f"{self.final_winner_text()} ***")

    # ------------------------------------------------------------------ words
    def side_name_of(self, side: int, teams: bool) -> str:
        if teams:
            members = " & ".join(self.team_members(side)) if self.names else ""
            return f"team {team_name(side)}" + (f" ({members})" if members else "")
        return self.name(side) if self.names and 0 <= side < len(self.names) else f"seat {side}"

    def final_winner_text(self) -> str:
        o = self.over
        if o is None or o.winner is None:
            return "no winner"
        mine = (self.me % 2 == o.winner) if o.teams and self.me >= 0 else o.winner == self.me
        who = self.side_name_of(o.winner, o.teams)
        if mine and not o.teams:
            return "you win"
        return who + (" - your team - wins" if mine else " wins")

    def standings(self) -> list[str]:
        """`TableView.standings`, with the match's end as the host declared it (rounds,
        winner) and the ledger hash every process of the table shares."""
        if self.round_no == 0 and self.earlier:
            # left in the lobby of a next match: the last match's standings (and why no next one)
            return self.earlier + ([f"  {self.table_closed}"] if self.table_closed else [])
        lines = super().standings()
        if self.stopped and self.over is None and lines[0].startswith("unonet: you left "):
            # the table stopped under the player (the host closed it, a check failed): the
            # problem's own line follows; "you left" read as if Ann had quit herself
            lines[0] = "unonet: the table stopped " + lines[0][len("unonet: you left "):]
        elif self.lobby is not None and self.lobby.host and self.over is None and \
                lines[0].startswith("unonet: you left "):
            lines[0] = "unonet: you closed the table " + lines[0][len("unonet: you left "):]  # (the table went too)
        o = self.over
        if o is not None:
            lines[0] = (f"unonet: match over after {o.rounds} round{'s' if o.rounds != 1 else ''}: "
                        f"{self.final_winner_text()}.")
            if o.ledger:
                lines.append(f"  ledger {o.ledger}")
        elif self.rejoinable:
            lines += ["  a bot plays your seat meanwhile;",  # two lines: each fits 80 columns
                      "  `unonet join` again (the same key store) takes it back, with your hand"]
        return lines

    @property
    def rejoinable(self) -> bool:
        """A player (not the host) leaves a match in play: the table keeps the seat for its key."""
        lb = self.lobby
        return (self.started and self.round_no > 0 and self.over is None and not self.stopped
                and lb is not None and not lb.host and lb.me is not None and self.me >= 0
                and not (self.result is not None and self.result.match_over))

    def prompt(self) -> str:
        if self.table_closed and self.problem is None:
            text = self.table_closed
            return f"{text[:1].upper() + text[1:]}. Q quits."
        if self.stopped:
            if self.problem is not None and self.problem.goodbye:
                return "The host closed the table (see above). Q quits."
            return "The table has stopped (see above). Q quits."
        if self.election is not None and self.over is None:
            e = self.election
            if e.me or not e.successor:
                return f"{clean(e.text)}: the round in play will be dealt again."
            text = clean(e.text)
            return (f"{text[:1].upper() + text[1:]}.  If {clean(e.successor)} takes the table over, the round "
                    "in play is dealt again.")
        if self.in_lobby:
            lb = self.lobby
            if lb.host and lb.can_start and lb.players and len(lb.seats) >= lb.players:
                return "Every seat is taken. S (or Enter): start the match."
            if lb.host and lb.can_start:
                # a seat kept for an away player's key is no bot's at the start (seen: "(empty)" and
                # "empty seats get bots", then "seat 2 (Lee) starts the match away")
                kept = [clean(name) for seat, name in lb.kept]
                if not kept:
                    return "Players are joining. S (or Enter): start the match now - empty seats get bots."
                whose = " and ".join(f"{n}'s" for n in kept) + (" seats are" if len(kept) > 1 else " seat is")
                free = max(lb.players, len(lb.seats)) - len(lb.seats) - len(kept)
                bots = ", other empty seats get bots" if free > 0 else ""
                one = len(kept) == 1
                return (f"Players are joining. S (or Enter): start the match now - {whose} kept for "
                        f"{'their key (a bot plays it' if one else 'their keys (bots play them'} until they "
                        f"are back){bots}.")
            if lb.host and lb.players and len(lb.seats) >= lb.players:
                # started, its seats not all in it yet (eve12: Kim's link was down as Pat started
                # the next match, and Pat read "Players are joining; the match can start once a
                # player is seated" for a minute, every seat taken)
                away = [s.name for s in lb.seats if not s.connected and not s.bot]
                who = " and ".join(away) if away else "every player"
                return (f"The match is starting: waiting for {who} to join it"
                        + (" (else a bot takes the seat)." if away else "."))
            if lb.host:
                return "Players are joining; the match can start once a player is seated."
            if lb.back:  # (given back mid-match: the roster comes before the rejoin's replay)
                return "Back in the match: the table as it stands follows.  q: leave."
            return "Waiting for the host to start the match.  q: leave."
        if self.over is not None:
            # the period closes the hash: the status line wraps on words and drops the double space
            ledger = f"  Ledger {self.over.ledger[:16]}." if self.over.ledger else ""
            again = "  Enter: the next match." if self.next_lobby is not None else ""
            if self.link_gone:
                again = "  The link to the table is gone: no next match here."
            return f"Match over: {self.final_winner_text()}.{ledger}{again}  Q to quit."
        left = self.time_left()
        clock = f"[{left // 60}:{left % 60:02d}] " if left is not None else ""
        if self.watching and self.names:
            if self.result is not None and self.result.match_over:
                # (play14: Max's dealer-only screen said "Round over: waiting for the players to
                # deal the next round." under "*** Match over: Lee wins! ***")
                again = "  Enter: the next match." if self.next_lobby is not None else ""
                return f"Match over: {self.winner_text()}.{again}  Q to quit."
            if self.result is not None:
                return "Round over: waiting for the players to deal the next round."
            who = self.names[self.turn] if self.turn is not None and self.turn < len(self.names) else "nobody"
            return f"{clock}Watching (you hold no seat): {who}'s turn."
        if self.out and self.turn is not None and 0 <= self.turn < len(self.names):
            # a seat out of the round (deadly) or the match (elimination) has no turn: the clock
            # is the current player's, said beside their name (evening19: "[0:42] You are out of
            # this round" read as if the knocked-out player had 42 s to act)
            return f"{super().prompt()}  {clock}{self.names[self.turn]}'s turn."
        return clock + super().prompt()


_SESSION = {
    feed.Lobby: SessionView._lobby,
    feed.TableProblem: SessionView._problem,
    feed.MatchOver: SessionView._match_over,
    feed.Election: SessionView._election,
    feed.Notice: SessionView._notice,
}


class SessionController(Controller):
    """The table's keys, and the session's: the lobby, a stopped table, watching."""

    view: SessionView

    def status(self) -> str:
        """The quit question says what leaving costs the others: the table itself goes with
        the host (one Y ended the match for every player without a word of warning)."""
        text = super().status()
        v = self.view
        if self.mode == "quit" and v.lobby is not None and v.lobby.host and v.started and not v.match_over:
            return ("Quit? You host this table: the match ends for every player. Y: quit, any other key: "
                    "keep playing.")
        return text

    def key(self, ch: str) -> None:
        v = self.view
        if self.mode == "quit" or ch == "?" and not v.in_lobby:
            super().key(ch)
            return
        low = ch.lower()
        if v.stopped:
            if low == "q":
                self.quit = True
            else:
                self.flash(self._stopped_hint())
            return
        if v.in_lobby:
            if low == "q":
                self.quit = True  # nothing is lost by leaving a lobby
            elif low == "s":
                self.start()
            else:
                self.flash(self._lobby_hint())
            return
        if v.watching:
            if low == "q":
                self.ask_quit()
            else:
                self.flash("You are watching: the players make the moves.  ?: help, q: quit.")
            return
        super().key(ch)

    def enter(self) -> None:
        v = self.view
        if v.stopped:
            self.flash(self._stopped_hint())
        elif v.match_over and self.mode is None:
            if not v.next_match():
                self.flash("The match is over: Q to quit.")
        elif v.in_lobby:
            self.start()
        elif v.watching and self.mode is None:
            self.flash("You are watching: the players make the moves.")
        else:
            super().enter()

    def _stopped_hint(self) -> str:
        v = self.view
        return "No next match here: Q quits." if v.table_closed and v.problem is None else "The table has stopped: Q quits."

    def ask_quit(self) -> None:
        v = self.view
        if v.stopped or v.in_lobby or v.over is not None:
            self.quit = True
        else:
            super().ask_quit()

    def start(self) -> None:
        lb = self.view.lobby
        if lb is None or not lb.host:
            self.flash(self._lobby_hint())
        elif not lb.can_start:
            self.flash("The table cannot start yet (it is still seating players).")
        else:
            self.submit(feed.Start())

    def _lobby_hint(self) -> str:
        lb = self.view.lobby
        if lb is not None and lb.host:
            return "S or Enter starts the match; q closes the table."
        return "The host starts the match; q leaves the table."


# ---------------------------------------------------------------------- the screen
def lobby_lines(view: SessionView, width: int = 80) -> list[tuple[str, str]]:
    """The lobby: the table, its join code, the rules, one line per seat."""
    lb = view.lobby
    if lb is None:
        return [("", " Connecting...")]
    out: list[tuple[str, str]] = []
    # the table keeps its first host's name after an election: a player's lobby says who hosts it
    hosted = f"   (hosted by {clean(lb.hosted_by)})" if lb.hosted_by else ""
    out.append(("class:title", f" Table: {clean(lb.table)}" + ("   (you are the host)" if lb.host else hosted)))
    out.append(("", ""))
    out.append(("", f" Join code   {lb.code}"))
    if lb.host:
        where = f" {lb.address}" if lb.address else ""
        command = f"players type: unonet join --code {lb.code}{where}"
        for line in wrap(command, width - 1, " " * 13, " " * 15):
            out.append(("class:dim", line))
    if lb.rules:
        for line in wrap(clean(lb.rules), width - 1, " Rules       ", " " * 13):
            out.append(("", line))
    out.append(("", ""))
    taken = {s.seat: s for s in lb.seats}
    kept = {seat: clean(name) for seat, name in lb.kept}
    total = max([lb.players] + [s.seat + 1 for s in lb.seats])
    people = sum(1 for s in lb.seats if not s.bot)
    out.append(("class:title", f" Seats ({len(taken)} of {total} taken, {people} "
                               f"player{'s' if people != 1 else ''})"))
    teams = any(s.team is not None for s in lb.seats)
    # a narrow terminal: the seat and team columns close up so a key (24 cells) stays whole
    sw, tw = (5, 5) if 2 + 5 + 15 + (5 if teams else 0) + 24 <= width - 1 else (4, 2)
    team_head = f"{'team' if tw == 5 else 't':<{tw}}" if teams else ""
    key_head = "key (compare it with the player)"
    if 2 + sw + 15 + len(team_head) + len(key_head) > width - 1:
        key_head = "key"  # (a narrow terminal: the keys stay whole, the words go)
    out.append(("class:dim", f"  {'seat' if sw == 5 else '#':<{sw}}{'name':<15}{team_head}{key_head}"))
    for n in range(total):
        s = taken.get(n)
        if s is None and n in kept:
            # free for a newcomer; else the next start keeps it under the away player's key
            head = f"  {n:<{sw}}{pad('(' + kept[n] + ')', 14)} " + (f"{team_name(n % 2):<{tw}}" if teams else "")
            for line in wrap("away: kept for their key unless a newcomer sits here", width - 1, head, " " * len(head)):
                out.append(("class:dim", line))
            continue
        if s is None:
            out.append(("class:dim", (f"  {n:<{sw}}{'(empty)':<15}" + (team_name(n % 2) if teams else "")).rstrip()))
            continue
        team = f"{team_name(s.team) if s.team is not None else '':<{tw}}" if teams else ""
        key = "bot" if s.bot else (clean(s.fingerprint) or "-")
        flags = []
        if n == lb.me:
            flags.append("you")
        if not s.connected and not s.bot:
            # (a goodbye is not a lost link: nobody waits for a player who said they go)
            flags.append("left: a bot plays the seat" if s.left else "gone: waiting for a rejoin")
        style = "class:seat.me" if n == lb.me else ("class:dim" if not s.connected else "")
        row = f"  {n:<{sw}}{pad(clean(s.name), 14)} {team}{key:<25} {', '.join(flags)}".rstrip()
        if len(row) > width - 1 and flags:  # too narrow for the flags beside the key: under it
            row = f"  {n:<{sw}}{pad(clean(s.name), 14)} {team}{key}"
            out.append((style, row))
            row = " " * (2 + sw + 15 + len(team)) + ", ".join(flags)
        out.append((style, row))
    if lb.me is None:
        out.append(("", ""))
        out.append(("class:dim", " You hold no seat (dealer only): you will watch the match."))
    return out


def lobby_text(view: SessionView):
    return [(style, text + "\n") for style, text in lobby_lines(view, _width())]


def problem_line(view) -> str:
    """The fatal problem that stopped the table, in one line ("" if none).  A host that
    closed its table on purpose (its goodbye) is said as it is, not as a problem: "TABLE
    PROBLEM: the host closed the table" alarmed players whose host had gone home (evening19)."""
    p = getattr(view, "problem", None)
    if p is None:
        return ""
    if getattr(p, "goodbye", False) and not p.cheat:
        return p.message
    return ("CHEATING DETECTED: " if p.cheat else "TABLE PROBLEM: ") + p.message


def banner_lines(view: SessionView) -> list[str]:
    line = problem_line(view)
    line = line[:1].upper() + line[1:]  # (a goodbye's words begin the banner)
    return wrap(line, max(20, _width() - 1), " ", "   ") if line else []


def session_header(view: SessionView):
    lb = view.lobby
    name = clean(lb.table) if lb is not None else ""
    left = f" unonet  lobby  {name}"
    right = "q: leave "
    gap = max(1, _width() - len(left) - len(right))
    return [("class:header", left + " " * gap + right)]


def session_layout(view: SessionView, ctl: SessionController) -> Layout:
    """The table's layout, the lobby screen in its place before the match, and a banner on
    top once a fatal problem came."""
    in_lobby = Condition(lambda: view.in_lobby)
    has_problem = Condition(lambda: view.problem is not None)

    def ft(fn):
        return FormattedTextControl(fn, focusable=False)

    table = build_layout(view, ctl).container
    lobby = HSplit([
        Window(ft(lambda: session_header(view)), height=1),
        Window(ft(lambda: lobby_text(view))),
        Window(ft(lambda: status_text(ctl)), height=lambda: Dimension.exact(len(line_texts(ctl.status())))),
        Window(ft(lambda: feedback_text(ctl)), height=lambda: Dimension.exact(len(line_texts(ctl.feedback())))),
    ])
    banner = Window(ft(lambda: [("class:race", "\n".join(banner_lines(view)))]),
                    height=lambda: Dimension.exact(max(1, len(banner_lines(view)))))
    return Layout(HSplit([
        ConditionalContainer(banner, filter=has_problem),
        ConditionalContainer(lobby, filter=in_lobby),
        ConditionalContainer(table, filter=~in_lobby),
    ]))


class SessionApp(TableApp):
    """`TableApp` with the session's view, keys and screens."""

    view_class = SessionView
    controller_class = SessionController
    refresh_interval = 0.5  # the turn clock counts down on the screen

    def build_layout(self):
        return session_layout(self.view, self.ctl)
