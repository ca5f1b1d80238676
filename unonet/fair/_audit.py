"""Offline audit of a transcript: re-run every check a live peer would, plus the chain."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..fingerprint import fingerprint_matches, normalize_join_code
from ._cards import KNOWN_DECKS, Card
from ._errors import AuditFailure, EventFormatError, FairPlayViolation, TranscriptFormatError
from ._events import Event, GameEvent, MatchJoin, MatchStart, RoundAbort, RoundEnd, RoundSign, RoundStart
from ._ledger import Phase, RoundLedger
from ._match import MatchLedger
from ._encoding import lp, round_context, sha256, tag
from ._shuffle import round_end_message
from ._transcript import GENESIS, line_hash, parse_line, split_lines

#: Called at each `game` line, once the round's ledger took it, with the line number, the
#: game data and that ledger.
GameHook = Callable[[int, dict, RoundLedger], None]
#: Called when a round's `round-end` line is read, before it is checked, with the line
#: number and the round's ledger (every card known once all r_h are revealed). Returns
#: true when it checked the round's game record (counted in the report). Raise
#: FairPlayViolation (with `line` set to the game line at fault) to reject the round.
RoundHook = Callable[[int, RoundLedger], object]
#: Called after each match-level event (match-start, match-join, round-abort, round-sign)
#: is checked, with its line, the event and the match ledger.
MatchHook = Callable[[int, Event, MatchLedger], None]
#: Called after each other event of a round (not `game`) is applied, with its line, the
#: event and the round's ledger (the engine replay checks a `challenge` against the rules).
EventHook = Callable[[int, Event, RoundLedger], None]


@dataclass(frozen=True, slots=True)
class AuditReport:
    ok: bool
    lines: int = 0
    rounds: int = 0
    positions: int = 0
    deals: int = 0
    plays: int = 0
    openings: int = 0
    challenges: int = 0
    games: int = 0
    flips: int = 0
    line: int | None = None
    reason: str | None = None
    seat: int | None = None
    position: int | None = None
    #: fingerprint of the host key that signed every round of the file
    host: str | None = None
    #: "line N: note" for facts that are no proven violation but deserve a look (a seat timed
    #: out in a challenge its cards would have won: its answer may have been withheld; a
    #: challenger timed out of a challenge the cards say it would have won: its verdict may have been)
    flags: tuple[str, ...] = ()
    #: aborted attempts; how often each seat was named as the staller ("seat": count)
    aborts: int = 0
    stalls: tuple[tuple[int, int], ...] = ()
    #: "round R: seats [..]" for every ended round some seat did not co-sign and no next
    #: round-start waived (the transcript's last round: nothing follows to need them)
    unsigned: tuple[str, ...] = ()
    #: "round R: seats [..]" for every round whose missing co-signs the next round-start waived
    #: (the host says those seats dropped; a seat that co-signed contests it live)
    waived: tuple[str, ...] = ()
    #: actions the host made for a seat (turn timeouts, referee), per seat
    host_acts: tuple[tuple[int, int], ...] = ()
    #: the failure would blame the host (a relayed seat message, or one of the host's own lines,
    #: that fails its check), and no round the host signed later in the file covers its line, or
    #: it is one no signature settles (a broken chain, a file that stops): the file does not show
    #: who put it there (the host, or whoever altered or cut the file since), so it blames nobody
    unproven: bool = False

    @property
    def summary(self) -> str:
        if self.ok:
            return (
                f"clean: {self.rounds} round{'s' * (self.rounds != 1)}, {self.positions} positions, "
                f"{self.deals} deals, {self.plays} plays, {self.openings} openings, "
                f"{self.challenges} challenge{'s' * (self.challenges != 1)} checked"
                + (f", {self.flips} flip{'s' * (self.flips != 1)}" if self.flips else "")
                + (f", {self.games} round{'s' * (self.games != 1)} replayed by the rules engine" if self.games else "")
                + f" ({self.lines} lines)"
                + (f"; host key {self.host}" if self.host else "")
                + (f"; {self.aborts} aborted attempt{'s' * (self.aborts != 1)}"
                   + (" (stalled: " + ", ".join(f"seat {s} x{n}" for s, n in self.stalls) + ")" if self.stalls else "")
                   if self.aborts else "")
                + ("; host acts: " + ", ".join(f"seat {s} x{n}" for s, n in self.host_acts) if self.host_acts else "")
                + "".join(f"; co-signs missing: {u}" for u in self.unsigned)
                + "".join(f"; co-signs waived: {u}" for u in self.waived)
                + "".join(f"; flagged: {f}" for f in self.flags)
            )
        return f"line {self.line}: {self.reason}"

    def raise_for_failure(self) -> None:
        """Raise the failure as an AuditFailure (seat None blames the host, unless `unproven`)."""
        if not self.ok:
            raise AuditFailure(self.reason or "audit failed", seat=self.seat, position=self.position, line=self.line)

    def to_json(self) -> dict:
        return {
            "ok": self.ok, "summary": self.summary, "lines": self.lines, "rounds": self.rounds,
            "positions": self.positions, "deals": self.deals, "plays": self.plays, "openings": self.openings,
            "challenges": self.challenges,
            "flips": self.flips, "games": self.games, "line": self.line, "reason": self.reason,
            "blame": None if self.ok or self.line is None or self.unproven else (
                "host" if self.seat is None else f"seat {self.seat}"),
            "unproven": self.unproven,
            "position": self.position, "host": self.host, "flags": list(self.flags),
            "aborts": self.aborts, "stalls": {str(s): n for s, n in self.stalls}, "unsigned": list(self.unsigned),
            "waived": list(self.waived),
            "host_acts": {str(s): n for s, n in self.host_acts},
        }


class _Totals:
    def __init__(self) -> None:
        self.rounds = self.positions = self.deals = self.plays = self.openings = self.challenges = self.flips = 0
        self.flags: list[str] = []
        self.host_acts: dict[int, int] = {}

    def add(self, lg: RoundLedger) -> None:
        for s, n in enumerate(lg.host_acts):
            if n:
                self.host_acts[s] = self.host_acts.get(s, 0) + n
        self.positions += len(lg.positions)
        self.deals += lg.counts["deals"]
        self.plays += lg.counts["plays"]
        self.openings += lg.counts["openings"]
        self.challenges += lg.counts["challenges"]
        self.flips += lg.counts["flips"]
        self.flags += [f"line {n}: {note}" if n is not None else note for n, note in lg.flags]


def audit(
    lines: Iterable[str],
    *,
    decks: Mapping[str, Sequence[Card]] = KNOWN_DECKS,
    on_game: GameHook | None = None,
    on_round_end: RoundHook | None = None,
    host: str | None = None,
    on_match: MatchHook | None = None,
    require_match: bool = False,
    on_event: EventHook | None = None,
) -> AuditReport:
    """Re-verify a transcript (a round or a whole match).

    Returns a clean report or the first failure found in reading order, naming
    the line that carries the false claim. `on_game(line, data, ledger)` sees every
    "game" event; raise ValueError or FairPlayViolation in it to reject one.
    `on_round_end(line, ledger)` runs at each round's `round-end` line, before its checks
    (the engine replay of `unonet.table` uses it; see RoundHook).
    Raises TranscriptFormatError when the text is not a transcript at all.

    Anchoring: every round of one file must be signed by one host key (its fingerprint is
    in the report; `host`, if given, is the fingerprint it must have), round numbers must
    increase, each `round-start` must name the chain head before it (signed into the round
    digest), and no `game` line may stand outside a round.

    A match transcript opens with `match-start` and the seats' `match-join`s
    (`require_match`: it must): every round then belongs to that match (its id, host and
    seats), rounds and attempts are numbered in order (a new attempt only after a signed
    `round-abort` that names real stallers) and each round's co-signs are checked.
    """
    text = split_lines(lines)
    if not text:
        raise TranscriptFormatError("empty transcript")
    totals = _Totals()
    games = 0
    head = GENESIS
    ledger: RoundLedger | None = None
    host_key = None
    last_round: int | None = None
    match = MatchLedger()
    if host:
        normalize_join_code(host)  # InvalidJoinCodeError (a ValueError) when it is no fingerprint at all

    def extras() -> dict:
        ended = [a for a in match.attempts if a.status == "ended" and match.start is not None]
        unsigned = tuple(f"round {a.round}: seats {[s for s in range(len(match.seats)) if s not in owed]}"
                         for a in ended
                         for owed in [set(a.signs) | a.away | set(a.waived)]  # (away after an election: none owed)
                         if len(owed) < len(match.seats))
        waived = tuple(f"round {a.round}: seats {list(a.waived)}" for a in ended if a.waived)
        return {"aborts": len(match.aborts), "stalls": tuple(sorted(match.stalls.items())), "unsigned": unsigned,
                "waived": waived,
                "host_acts": tuple(sorted(totals.host_acts.items()))}

    def fail(number: int, reason: str, seat: int | None = None, position: int | None = None,
             unproven: bool = False) -> AuditReport:
        return AuditReport(
            ok=False, lines=len(text), rounds=totals.rounds, positions=totals.positions, deals=totals.deals,
            plays=totals.plays, openings=totals.openings, challenges=totals.challenges, games=games,
            flips=totals.flips,
            line=number, reason=reason, seat=seat, position=position,
            host=host_key.fingerprint if host_key is not None else None, unproven=unproven, **extras(),
        )

    def blame_host(at: int, number: int, reason: str, position: int | None = None, *, plain: str = "",
                   inside: RoundLedger | None = None, before: bytes | None = None,
                   provable: bool = True) -> AuditReport:
        """A failure the host would answer for. A file's lines carry no signature of their own:
        anyone who holds it can edit a line, recompute the chain and cut the file, so the host is
        blamed only when a host signature later in the file covers line `number` (its round's
        `round-end`, or a later `round-start` naming the chain head: `_host_signed_after`).
        Otherwise the report names what failed and blames nobody (`unproven`). `provable`: false
        for what no signature can settle (a broken chain, a file that stops)."""
        if provable and host_key is not None and _host_signed_after(text, number, host_key, inside, before):
            return fail(at, reason, None, position)
        why = (f": no round the host signed later in it covers line {number} " if provable else " ") + \
            "(the host may have written it, or the file was altered or cut since)"
        what = plain or (f"this line says {reason}" if reason.startswith("the host ") else reason)
        return fail(at, f"{what}; the file does not show who put it there{why}, so it blames nobody",
                    None, position, unproven=True)

    for number, raw in enumerate(text, 1):
        obj = parse_line(raw, number)
        prev = obj.pop("prev", None)
        if prev != head:
            if number == 1:
                return blame_host(number, number, "first line does not chain from the genesis hash (lines missing "
                                  "at the start?)", provable=False)
            return blame_host(number, number, f"prev does not match the hash of line {number - 1} "
                                              "(a line was removed, reordered or edited)", provable=False)
        head = line_hash(raw)
        try:
            event = Event.from_json(obj)
        except EventFormatError as exc:
            return blame_host(number, number, str(exc), provable=False)
        # (a file's proof: the round this line is in, and its digest before the line)
        inside = ledger if ledger is not None and ledger.start is not None and ledger.phase is not Phase.ENDED \
            and not isinstance(event, (MatchStart, MatchJoin, RoundAbort, RoundSign)) else None
        before = ledger.digest if inside is not None else None

        def host_line(reason: str, *, at: int = number, position: int | None = None, plain: str = "",
                      provable: bool = True) -> AuditReport:
            return blame_host(at, number, reason, position, plain=plain, inside=inside, before=before,
                              provable=provable)
        try:
            if number == 1 and require_match and not isinstance(event, MatchStart):
                return blame_host(number, number, "a match transcript opens with its match-start", provable=False)
            if isinstance(event, (MatchStart, MatchJoin, RoundAbort, RoundSign)):
                late = isinstance(event, MatchJoin) and event.seat in match.away  # (back after an election)
                if isinstance(event, (MatchStart, MatchJoin)) and match.attempts and not late:
                    return host_line(f"{event.EV} after the match's first round")
                if isinstance(event, MatchStart):
                    if number != 1:
                        return host_line("match-start must be the transcript's first line")
                    if host and not fingerprint_matches(host, event.host.static_key):
                        return fail(number, f"the host key is {event.host.fingerprint}, not the expected {host}",
                                    unproven=True)  # (another host's file: no one's cheat)
                    host_key = event.host
                match.apply(event, ledger, number)
                if isinstance(event, RoundAbort):
                    totals.rounds -= 1
                    ledger = None  # the attempt is over; the next round-start tries again
                if on_match is not None:
                    on_match(number, event, match)
                continue
            if isinstance(event, GameEvent):
                if ledger is None or ledger.phase is Phase.ENDED:
                    return host_line("game event outside a round (in no host-signed round digest)")
                ledger.apply(event, number)
                if on_game is not None:
                    on_game(number, event.data, ledger)
                continue
            if isinstance(event, RoundStart):
                if match.start is not None:
                    match.check_round_start(event, number)
                if ledger is not None and ledger.phase is not Phase.ENDED:
                    return host_line(f"round {event.round} starts before round {ledger.round_no} ended")
                if host_key is None:
                    if host and not fingerprint_matches(host, event.host.static_key):
                        return fail(number, f"the host key is {event.host.fingerprint}, not the expected {host}",
                                    unproven=True)  # (another host's file: no one's cheat)
                    host_key = event.host
                elif event.host != host_key:
                    return host_line(f"round {event.round} is signed by host key {event.host.fingerprint}, but "
                                     f"this file's earlier rounds by {host_key.fingerprint} (one host key per file)", provable=False)
                if match.start is None and last_round is not None and event.round <= last_round:
                    return host_line(f"round {event.round} follows round {last_round} (round numbers must "
                                     "increase within a file)", provable=False)
                last_round = event.round
                if event.digest.hex() != prev:
                    return host_line("round-start does not name the transcript's chain head before it "
                                     "(a round moved from another place or file)", provable=False)
                ledger = RoundLedger(decks=decks)
                totals.rounds += 1
            elif ledger is None or ledger.phase is Phase.ENDED:
                return host_line(f"{event.EV} event outside a round")
            elif on_round_end is not None and isinstance(event, RoundEnd):
                if on_round_end(number, ledger):
                    games += 1
            ledger.apply(event, number)
            if on_event is not None:
                on_event(number, event, ledger)
        except FairPlayViolation as exc:
            at = exc.line if exc.line is not None else number
            if exc.seat is not None or exc.signed:  # (a seat's own signature, or the host's, carries the proof)
                return fail(at, exc.reason, exc.seat, exc.position)
            return host_line(exc.reason, at=at, position=exc.position, plain=exc.plain)
        except ValueError as exc:  # from the game hook
            return host_line(str(exc))
        if ledger.phase is Phase.ENDED:
            totals.add(ledger)
            if match.start is not None:
                match.round_ended(ledger)
    if match.start is not None and not match.joined:
        return blame_host(len(text), len(text), f"transcript ends before seat(s) {match.missing_joins()} joined "
                                                "the match", provable=False)
    if ledger is not None and ledger.phase is not Phase.ENDED:
        lg = ledger
        withheld = [e.number for e in lg.epochs if e.host_secret is None]
        why = f"; r_h withheld for epoch(s) {withheld}" if withheld and lg.phase is not Phase.SEED_COMMITS else ""
        return blame_host(len(text), len(text), f"transcript ends in phase {lg.phase.value} before round "
                                                f"{lg.round_no if lg.start else '?'} ended{why}", provable=False)
    return AuditReport(
        ok=True, lines=len(text), rounds=totals.rounds, positions=totals.positions, deals=totals.deals,
        plays=totals.plays, openings=totals.openings, challenges=totals.challenges, games=games,
        flips=totals.flips, host=host_key.fingerprint if host_key is not None else None,
        flags=tuple(totals.flags), **extras(),
    )


def _host_signed_after(text: Sequence[str], number: int, host_key, ledger: RoundLedger | None,
                       before: bytes | None) -> bool:
    """Does a round the host signed later in the file cover line `number` (1-based)?

    A transcript line carries no signature of its own: a relayed seat message or a host line
    that fails its check is the host's doing only if the host published it, and a file shows that only when
    the line is under a host signature -- the `round-end` of its round (whose digest absorbs it)
    or of a later round (whose `round-start` names the chain head that hashes it), every line
    between chaining by `prev`. `ledger`: the round the line is in (its digest before the line),
    or None for a match-level line; `before`: its digest before the line."""
    digest = before if ledger is not None else None
    ctx = (ledger.table, ledger.round_no) if ledger is not None else None
    raw_prev = text[number - 1]
    for k in range(number, len(text) + 1):
        raw = text[k - 1]
        try:
            obj = parse_line(raw, k)
            prev = obj.pop("prev", None)
            if k > number and prev != line_hash(raw_prev):
                return False  # the chain breaks: what follows is not the same file's
            event = Event.from_json(obj)
        except (EventFormatError, TranscriptFormatError, ValueError):
            return False
        raw_prev = raw
        if isinstance(event, (MatchStart, MatchJoin, RoundAbort, RoundSign)):
            continue  # (not in any round digest)
        if isinstance(event, RoundStart):
            if event.host != host_key or event.digest.hex() != prev:
                return False
            digest = sha256(tag("round-digest"), round_context(event.table, event.round), lp(event.digest))
            ctx = (event.table, event.round)  # (the round-start is then absorbed, as every event but round-end)
        if digest is None or ctx is None:
            continue
        if isinstance(event, RoundEnd):
            return event.digest == digest and host_key.verify(event.sig, round_end_message(ctx[0], ctx[1], digest))
        body = event.canonical().encode("ascii")
        digest = sha256(digest, len(body).to_bytes(4, "big"), body)
    return False
