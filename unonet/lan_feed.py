"""The feed values only a LAN table sends (the lobby, problems, news, the host's election,
the match's end): read them through `unonet.feed`, which loads this module on first use, so
that `unonet play` (the local table) does not pay for their dataclasses at start-up."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LobbySeat:
    """One seat of a table that is gathering players."""

    seat: int
    name: str
    fingerprint: str = ""            # the player's key fingerprint, short form ("" for a bot)
    bot: bool = False
    connected: bool = True
    team: int | None = None          # 0 even seats, 1 odd seats (with --teams)
    #: not connected because its player said goodbye (`leave`: the roster's `left`, spec §4.9):
    #: a bot plays the seat at once; without it, a seat not connected lost its link (away)
    left: bool = False


@dataclass(frozen=True)
class Lobby:
    """Who is at the table before the match starts (sent again on every change)."""

    table: str                       # the table's name
    code: str                        # the join code
    seats: tuple[LobbySeat, ...]
    me: int | None                   # this client's seat (None: a dealer-only host, a watcher)
    host: bool = False               # this client is the host's operator (it may Start)
    can_start: bool = False          # Start would be accepted now
    players: int = 0                 # seats the match will have (0: as many as are here)
    rules: str = ""                  # the preset and house rules, in words
    address: str = ""                # where the table listens ("10.0.0.5:47800"), for the host to tell
    clock: float = 0.0               # the turn clock in seconds (0: none): screens count it down
    hosted_by: str = ""              # who hosts the table now (a seat's name, else its host's hello name)
    #: (the operator's lobby) free seats the next start keeps for an away player's key: (seat, name)
    kept: tuple[tuple[int, str], ...] = ()
    #: this seat was given back in a match under way: the table as it stands follows (the
    #: rejoin's replay); nobody is waiting for a start
    back: bool = False


@dataclass(frozen=True)
class MatchOver:
    """The match has ended (the feed closes after it).  ``winner`` is a seat, or a team with
    ``teams``; ``scores`` per seat (per team with ``teams``); ``ledger`` the hex hash of the last
    completed round's ledger entry."""

    winner: int | None
    scores: tuple[int, ...]
    rounds: int
    ledger: str = ""
    teams: bool = False
    names: tuple[str, ...] = ()      # the seats' names (to print the standings)


@dataclass(frozen=True)
class TableProblem:
    """Something is wrong with the table.  ``cheat``: the host's (or a peer's) announcement
    failed a check - the message names the cheat and the cheater; ``fatal``: the table cannot
    go on (the client stops taking moves)."""

    message: str
    fatal: bool = True
    cheat: bool = False
    #: the host closed its table on purpose (its `leave`): the table stopped, nothing failed -
    #: said plainly, not as a problem (evening19)
    goodbye: bool = False


@dataclass(frozen=True)
class Notice:
    """News about the table in plain words, not a problem: a player dropped, left or is back,
    a bot stands in for a seat, we are back in our seat.  ``seat``: whom it is about."""

    text: str
    seat: int | None = None
    kind: str = ""                   # dropped, back, left, stand-in, timeout, reconnected, refused
    #: back (``reconnected``: we, ``back``: that seat) on the seat's own turn: the seconds the
    #: host left of that turn (`rejoin.turn_left`, `PlayerEntry.turn_left`); screens count down
    #: from it. None: no turn of the seat's, or an older host (which gives a whole clock)
    left: float | None = None
    #: ``reconnected`` on another seat's turn: whose turn ``left`` is of (the return's roster's
    #: `turn_left` for the seat whose act is owed); None: ``left`` is the seat's own
    clock_of: int | None = None


@dataclass(frozen=True)
class Election:
    """The table's host is gone and another peer takes the table over (spec §7): ``lost``
    and ``successor`` are names (``successor`` None: nobody can, the table ends); ``me``:
    this client's peer hosts it now (its own seat still played from this client).  Play
    resumes with a new deal of the round that was in play."""

    lost: str
    successor: str | None
    me: bool = False
    term: int = 1
    address: str = ""                # where the table listens now (a player who lost it joins there)

    @property
    def text(self) -> str:
        at = f" (the table is at {self.address})" if self.address else ""
        if self.successor is None:
            return f"host {self.lost} is gone and nobody can take the table over"
        if self.me:
            # (not "host Hal is gone": our own link may be what dropped; nobody may follow)
            return f"lost the link to the host {self.lost}: you host the table now{at}"
        # what is known, not what may come (eve12: a player whose own link dropped read "host
        # Pat is gone; Hal takes over", then "the link to the host dropped for a moment"): the
        # screen says `hosted` once the successor deals
        where = f" (at {self.address})" if self.address else ""
        return f"lost the link to the host {self.lost}; trying it again, then its successor {self.successor}{where}"

    @property
    def hosted(self) -> str:
        """Said once the successor has dealt: the table is its now."""
        return f"{self.successor} hosts the table now" if self.successor and not self.me else ""


@dataclass(frozen=True)
class Resumed:
    """After a host election the new host ``host`` confirmed where the match goes on: after
    ``rounds`` completed rounds, at ledger head ``head`` (hex) -- checked against this client's
    own record of the match before this value is made (`net._carry.Follower.confirm`), so the
    record continues on the chain every peer holds."""

    host: str
    rounds: int
    head: str
    term: int = 1


@dataclass(frozen=True, slots=True)
class Start:
    """The host's operator starts the match now (empty seats get bots)."""

    def __str__(self) -> str:
        return "start"


def match_over(match, rounds: int, names=(), ledger: str = "") -> MatchOver:
    """The `MatchOver` of a finished engine match (per team with teams)."""
    teams = match.rules.teams
    return MatchOver(match.winner, tuple(match.standings()), rounds, ledger, teams, tuple(names))
