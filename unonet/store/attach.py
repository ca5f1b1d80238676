"""`unonet score [HOST[:PORT]]`: the scorekeeper attached to a live table as an observer.

The join path finds and reaches the table (`unonet.net._join.reach_table`: discovery pick,
``--code``, trust on first use; the role ``observer``); `unonet.net._observe.ObserverSide` checks every
public event with the same fair verifier and engine replay the players run and keeps
the same match ledger; `Recorder` writes each round it signs off — or disputes, with the
reason — to the `ScoreStore`, one transaction each.  So the store's chain head equals
the players' ``ledger`` in their match-over line.  Exit 0 when the table closes; 1 when
the table failed (gone, refused, a fair-play check failed: that round recorded
disputed); 2 bad input (arguments, a database that cannot be used).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any, Callable, TextIO

from ..ledger import MatchLedger, RoundEntry
from ._errors import RecordRefused, StoreError
from ._store import ScoreStore, default_db_path
from ._views import plural

__all__ = ["Recorder", "run_attach", "attach_table"]


class Recorder:
    """Rounds into the store as the observer signs them off; ``emit`` gets one JSON-ready
    object per recorded round and per match-over line."""

    def __init__(self, store: ScoreStore, emit: Callable[[dict], None] | None = None,
                 on_change: Callable[[int], None] | None = None, say: Callable[[str], None] | None = None) -> None:
        self.store, self.emit, self.on_change, self.say = store, emit, on_change, say
        self.matches: dict[bytes, int] = {}   # match id -> local match number
        self.rounds = self.disputed = self.voided = 0
        #: rounds signed off that the database held already (another scorekeeper on the same
        #: file wrote them first, or an earlier run; a replay after our link dropped)
        self.known = 0
        self.last_match: int | None = None
        self.last_round: int | None = None  # the round last recorded (signed off or disputed)
        self.overs = 0  # matches seen to their end

    def begin(self, ledger: MatchLedger, names: list[str]) -> int:
        """The match's row, opened when its first round is dealt (so its `started` is the
        match's start, not the time its first round was signed off)."""
        h = ledger.header
        mid = self.matches.get(h.match)
        if mid is None:
            host = getattr(ledger, "host", None)
            mid = self.matches[h.match] = self.store.begin_match(h, names or None, ledger.identities, host=host)
            self.last_match, self.last_round = mid, None
            # a table plays one match at a time: one of it still open in the file ended while
            # we were away (killed in it, back in a later one): said so, not "in play" for ever;
            # only the matches this match's signer signed (the table id is the roster's word)
            self.table_went_on(h.table, h.match, f"the table went on to match {h.match.hex()[:8]}", host)
            if self.on_change is not None:
                self.on_change(mid)
        return mid

    def table_went_on(self, table: bytes | None, going_on: bytes | None, after: str, host: bytes | None) -> None:
        """Matches of ``table`` left open in the file that the table is done with (it plays
        ``going_on`` now, or closed: None) are incomplete: said, and marked in the file.
        ``host``: the fingerprint of the key whose word this is (the match going on's signer,
        or the host that closed); only matches it signed are touched (`ScoreStore.mark_incomplete`)."""
        if not table:
            return
        for mid, key, nxt, why in self.store.mark_incomplete(table, going_on, after, host):
            text = f"match #{mid} ({key.hex()[:8]}) is incomplete: {why}"
            if self.emit is not None:
                self.emit({"t": "incomplete", "id": mid, "match": key.hex(), "from_round": nxt, "why": why,
                           "text": text})
            if self.say is not None:
                self.say(text)

    def round(self, ledger: MatchLedger, entry: RoundEntry, names: list[str]) -> None:
        h = ledger.header
        mid = self.begin(ledger, names)
        if not self.store.record_round(entry):
            self.known += 1
            return  # already held (a replay after our link dropped, or a restart): not news
        self.rounds += 1
        self.disputed += not entry.counted
        self.last_match, self.last_round = mid, entry.round
        if self.emit is not None:
            self.emit({"t": "round", "id": mid, "match": h.match.hex(), "round": entry.round,
                       "attempt": entry.attempt, "status": entry.status, "reason": entry.reason or None,
                       "winner": entry.winner, "points": entry.points, "scores": list(entry.scores),
                       "team_scores": list(entry.team_scores), "head": entry.hash.hex()})
        if self.on_change is not None:
            self.on_change(mid)

    def cosign(self, ledger: MatchLedger, entry: RoundEntry, seat: int, sig: bytes) -> None:
        """A seat's co-signature of a recorded round (the observer checked it): kept beside
        the round, so `unonet score verify` can check the stored result against it."""
        self.begin(ledger, [])
        try:
            self.store.record_cosign(entry, seat, sig)
        except RecordRefused as e:  # (a round recorded disputed, or a match begun without its keys)
            if self.emit is not None:
                self.emit({"t": "problem", "message": f"co-signature not kept: {e}"})

    def void(self, ledger: MatchLedger, entries: list[RoundEntry], why: str) -> None:
        """A host election deals ``entries`` (rounds recorded before) again: the store keeps
        them as voided history, counted nowhere, and the round dealt again is recorded in
        their place (`ScoreStore.void_rounds`); said in words and as a ``voided`` line."""
        mid = self.matches.get(ledger.header.match)
        for e in self.store.void_rounds(entries, why):
            self.voided += 1
            text = (f"round {e.round} as recorded is void ({why}); it stays in the match's history, counted "
                    "nowhere, and the round dealt again counts")
            if self.emit is not None:
                self.emit({"t": "voided", "id": mid, "match": ledger.header.match.hex(), "round": e.round,
                           "attempt": e.attempt, "head": e.hash.hex(), "why": why, "text": text})
            if self.say is not None:
                self.say(text)
            if self.last_round is not None and self.last_round >= e.round:
                self.last_round = e.round - 1 or None
        if mid is not None and self.on_change is not None:
            self.on_change(mid)

    def match_over(self, line: dict) -> None:
        self.overs += 1
        if self.emit is not None:
            self.emit({"t": "match-over", **line})

    def abandoned(self, ledger: MatchLedger | None, why: str) -> None:
        """The table closed (or its host vanished with nobody to take over) in the middle of a
        match: its row says so instead of "in play" for ever."""
        if ledger is None or ledger.header.match not in self.matches:
            return
        if self.store.abandon_match(ledger.header.match) and self.emit is not None:
            self.emit({"t": "abandoned", "id": self.matches[ledger.header.match],
                       "match": ledger.header.match.hex(), "rounds": ledger.rounds, "why": why})


async def attach_table(address: str | None, *, recorder: Recorder, code: str | None, name: str,
                       emit: Callable[[dict], None], bind: str | None = None, discovery_port: int | None = None,
                       timeout: float = 1.0, identity=None, on_feed: Callable[[Any], None] | None = None) -> str:
    """Find and reach the table (the joiner's path), then record until it closes.  Returns how
    it ended in one line; raises JoinFailed (after recording the round in play disputed
    when the host failed a check or broke the session).  ``on_feed`` gets the observer's feed
    values (`unonet.net._observe.watch_table`: what the screen shows besides the standings)."""
    from unonet.net._errors import LinkError, PeerRefused
    from unonet.net._join import JoinFailed, describe_end, first_error, reach_table
    from unonet.net._observe import ObserverSide, watch_table
    from unonet.net._seat import SeatProblem
    from unonet.protocol import KnownPeers, load_or_create_identity
    from unonet.protocol._schema import OBSERVER

    identity = identity or load_or_create_identity()
    known = KnownPeers()

    def found(t) -> None:
        emit({"t": "found", "name": t.beacon.name, "address": t.address, "port": t.port})

    link, table = await reach_table(address, identity, name=name, code=code, bind=bind, discovery_port=discovery_port,
                                timeout=timeout, role=OBSERVER, known=known, on_found=found,
                                # matches whose end we may have missed: the host replays one it finished
                                resume=tuple(recorder.store.open_matches()))
    emit({"t": "attached", "host": link.peer_name, "address": link.address, "fingerprint": link.peer_id.hex()})
    side = ObserverSide(name=name, host_public=link.peer_fair_identity, on_round=recorder.round,
                        on_match_over=recorder.match_over, on_match_begin=recorder.begin,
                        on_cosign=recorder.cosign, on_void=recorder.void)
    # the table's name as its beacon gave it (the roster's, when it names one, comes first)
    side.table_name = table.beacon.name if table is not None else ""
    sides = [side]
    try:
        # through host elections: the scorekeeper follows the table to its new host (spec §7)
        await watch_table(link, side, identity=identity, emit=emit, on_feed=on_feed, on_side=sides.append)
    except BaseException as exc:  # noqa: BLE001 - the round in play is disputed when the host is at fault
        err = first_error(exc, (JoinFailed, LinkError, SeatProblem))
        if err is not None:
            failed = describe_end(err)
            if isinstance(err, PeerRefused) or failed.refused:
                # the host's fatal `error` to us: its word about this link (whatever its code and
                # text), not a finding about the round. Recorded as a dispute, it let a host write
                # any accusation ("seat 1 cheated: ...") into the database against an honest
                # player (redteam18); the match stays open, as when our own link drops
                pass
            elif failed.cheat or failed.code in DISPUTING:
                sides[-1].dispute(str(failed))
            elif failed.code in ("closed", "timeout"):  # the table is gone and nobody took it over
                recorder.abandoned(_open_ledger(sides[-1]), str(failed))
        raise
    # the table closed: a match it was playing will not be finished
    open_match = _open_ledger(sides[-1])
    recorder.abandoned(open_match, "the table closed before the match was won")
    roster = getattr(sides[-1], "roster", None)
    # (the host whose link closed: its own matches only, whatever table its roster names)
    closer = getattr(getattr(sides[-1], "host_public", None), "fingerprint_bytes", None)
    recorder.table_went_on(getattr(roster, "table", None), None, "the table closed without the scorekeeper", closer)
    return closed_text(sides[-1].matches, open_match is not None)


def closed_text(matches: int, mid_match: bool) -> str:
    """How the table's close reads on the board's status line and the end line (play13: a host
    ^C'd in round 2 of its first match read "the table closed after 0 match(es)")."""
    done = f"{matches} match{'es' if matches != 1 else ''}"
    if mid_match:
        return "the table closed in the middle of a match: it is recorded abandoned" + \
            (f" ({done} finished before it)" if matches else "")
    return f"the table closed after {done}"


def _open_ledger(side) -> MatchLedger | None:
    """The ledger of the match the observer is in the middle of (None between matches)."""
    game = getattr(side, "game", None)
    return getattr(game, "ledger", None) if game is not None else None


#: how a session may end that puts the round in play in doubt (the host's fault, not its absence),
#: found by the scorekeeper's own checks: never the host's refusal of us (`PeerRefused`)
DISPUTING = frozenset({"fair-play", "unexpected", "malformed", "protocol", "forbidden", "bad-signature"})


def run_attach(args, *, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """The CLI: ``args`` carries words ([HOST[:PORT]]), db, code, no_ui, json, bind,
    discovery_port, timeout, name."""
    import trio

    from unonet.net._errors import LinkError
    from unonet.net._join import JoinFailed, describe_end, first_error
    from unonet.net._seat import SeatProblem
    from unonet.net.session_cli import JsonOut
    from unonet.protocol import TrustError

    words = list(args.words or [])
    address = words[0] if words else None
    as_json = bool(args.json)
    if not args.no_ui and not (sys.stdin.isatty() and sys.stdout.isatty()):
        which = "stdin" if not sys.stdin.isatty() else "stdout"
        print(f"unonet score: the live board needs a terminal ({which} is not a tty); use --no-ui for scripts",
              file=err)
        return 2
    emit = JsonOut(out, as_json and args.no_ui)
    try:
        store = ScoreStore.open(Path(args.db) if args.db else default_db_path())
    except StoreError as e:
        _fail(f"{e}", as_json, emit, err, code="db")
        return 2
    with store:
        recorder = Recorder(store, emit, say=(lambda text: print(f"unonet score: {text}", file=out, flush=True))
                            if args.no_ui and not as_json else None)
        kw = dict(code=args.code, name=getattr(args, "name", None) or "scorekeeper", emit=emit,
                  bind=getattr(args, "bind", None), discovery_port=getattr(args, "discovery_port", None),
                  timeout=getattr(args, "timeout", 1.0) or 1.0)
        from unonet.heap import settle

        try:
            if args.no_ui:
                settle()  # (start-up's objects out of the cycle collector's way: unonet/heap.py)
                ended = trio.run(lambda: attach_table(address, recorder=recorder, **kw))
            else:
                ended = _on_screen(lambda on_feed: attach_table(address, recorder=recorder, on_feed=on_feed, **kw),
                                   store, recorder)
        except KeyboardInterrupt:
            print("unonet score: interrupted", file=err)
            return 130
        except BaseException as exc:  # noqa: BLE001 - one line for every way the attach ends
            e = first_error(exc, (JoinFailed, LinkError, SeatProblem, TrustError, StoreError, ValueError))
            if e is None:
                raise
            if isinstance(e, ValueError) and not isinstance(e, (StoreError, TrustError)):
                _fail(str(e), as_json, emit, err, code="usage")
                return 2
            if isinstance(e, StoreError):
                _fail(str(e), as_json, emit, err, code="db")
                return 1
            if isinstance(e, TrustError):
                e = JoinFailed(str(e), code="untrusted")
            failed = describe_end(e)
            loud = "FAIR-PLAY VIOLATION: " if failed.cheat else ""
            kept = f" ({plural(recorder.rounds, 'round')} recorded, {recorder.disputed} disputed{_voided(recorder)})" \
                if recorder.rounds else ""
            _fail(f"{loud}{failed}{kept}", as_json, emit, err, code=failed.code, cheat=failed.cheat)
            return 1
    if ended is None:  # the user quit the board before the table closed
        ended = "detached from the table"
    elif not (recorder.rounds or recorder.known or recorder.overs):
        # the table closed before a round of ours ended (in its lobby, or its match over before
        # we came): the scorekeeper kept nothing, which a script must not read as a match kept
        _fail(f"the table closed before any round ended here: nothing was recorded in {store.path}", as_json,
              emit, err, code="nothing-recorded", db=str(store.path))
        return 1
    if not as_json or not args.no_ui:
        print(f"unonet score: {ended}; {plural(recorder.rounds, 'round')} recorded ({recorder.disputed} disputed"
              f"{_voided(recorder)}) in {store.path}", file=out)
    else:  # the last line says how it ended, as the text one does (never a silent exit)
        emit({"t": "closed", "text": ended, "matches": recorder.overs, "rounds": recorder.rounds,
              "disputed": recorder.disputed, "voided": recorder.voided, "known": recorder.known,
              "db": str(store.path)})
    return 0


def _voided(recorder: Recorder) -> str:
    """The end line's count of rounds voided, and of rounds found already recorded (another
    scorekeeper on the same file: its rounds are not ours to count, but they are not lost)."""
    return (f", {recorder.voided} voided and dealt again" if recorder.voided else "") + \
        (f"; {plural(recorder.known, 'round')} already in the database" if recorder.known else "")


def _on_screen(attach, store: ScoreStore, recorder: Recorder) -> str | None:
    """The live screen (unonet/tui/board.py) while ``attach(on_feed)`` records: its view model
    (`unonet.tui.score_view.ScoreView`) takes the observer's feed and, after each recorded
    round, the store's board of the match; afterwards the last screen is printed to the terminal."""
    from ..tui.board import run_board
    from ..tui.score_view import ScoreView
    from ._board import board

    view = ScoreView(str(store.path))
    redraw = [lambda: None]

    def on_feed(value) -> None:
        if view.apply(value):
            redraw[0]()

    def on_change(mid: int) -> None:
        view.recorded(board(store, str(mid)), recorder.last_round)
        redraw[0]()

    def bind(r) -> None:
        redraw[0] = r

    recorder.on_change = on_change

    async def attach_until_closed() -> str:
        ended = await attach(on_feed)
        view.closed()  # (the status line says how; the board no longer says a round is in play)
        return ended

    try:
        return run_board(attach_until_closed, view.lines, bind_redraw=bind)
    finally:
        if view.table or view.board is not None:
            print("\n".join(view.lines(shutil.get_terminal_size().columns)), flush=True)


def _fail(message: str, as_json: bool, emit, err: TextIO, **data) -> None:
    print(f"unonet score: {message}", file=err)
    if as_json:
        emit({"t": "problem", "message": message, **data})
