"""`unonet host` and `unonet join` without a screen (``--no-ui``), and their plumbing.

Scripting mode (``--json``): one JSON object per line on stdout — what this process
may see, in order — and, at the end, the shared match-over line
(`unonet.ledger.MatchLedger.match_over`, docs/scorekeeper.md) with ``"t":
"match-over"``.  Problems go to stderr as one line; the exit status says how it ended:
0 the match was played out, 1 the table failed (host gone, refused, a cheat caught),
2 bad input.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable, TextIO

import trio

from unonet.protocol import Identity, KnownPeers, TrustError, load_or_create_identity

from ._discovery import DISCOVERY_PORT, FoundTable
from ._errors import LinkError
from ._host import HostEvent, HostTable, TableConfig
from ._election import play_with_elections
from ._join import JoinFailed, describe_end, first_error, play_seat, reach_table
from ._serve import listener_port, open_listeners
from ._seat import SeatProblem, SeatSide
from .list_cli import table_line

__all__ = ["run_host", "run_join", "JsonOut", "parse_address", "pick_table"]

DEFAULT_PORT = 47800


class JsonOut:
    """One JSON object per line, flushed at once (a script reads them as they come)."""

    def __init__(self, out: TextIO = sys.stdout, enabled: bool = True) -> None:
        self.out, self.enabled = out, enabled

    def __call__(self, obj: dict) -> None:
        if self.enabled:
            self.out.write(json.dumps(obj, sort_keys=True, default=_jsonable) + "\n")
            self.out.flush()


def _jsonable(v: Any):
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, (set, frozenset, tuple)):
        return list(v)
    if hasattr(v, "code"):
        return v.code
    return str(v)


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT`` or ``[V6]:PORT`` -> (host, port); ValueError in one line."""
    host, port = text, default_port
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ValueError(f"bad address {text!r}: missing ']'")
        host, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"bad address {text!r}")
            port = _port(rest[1:], text)
    elif text.count(":") == 1:
        host, p = text.split(":")
        port = _port(p, text)
    if not host:
        raise ValueError(f"bad address {text!r}: no host")
    return host, port


def _port(p: str, text: str) -> int:
    if not p.isdigit() or not 1 <= int(p) <= 65535:
        raise ValueError(f"bad port in {text!r}: a number 1..65535")
    return int(p)


SHOWN = 10  # tables a "which one?" error lists (a flood of forged beacons stays one screen)


def pick_table(found: list[FoundTable]) -> FoundTable:
    """Without an address: the one compatible table found, or a one-line error listing
    what was found (the client's picker asks instead)."""
    usable = [t for t in found if t.compatible]
    if len(usable) == 1:
        return usable[0]
    if not found:
        raise JoinFailed("no table found on this network (is a host running? where broadcast is "
                         "blocked, give its address: unonet join HOST[:PORT])", code="none")
    if not usable:
        raise JoinFailed("no compatible table found: " + "; ".join(table_line(t) for t in found[:SHOWN]),
                         code="version")
    lines = "\n  ".join(table_line(t) for t in usable[:SHOWN]) + (
        f"\n  ... and {len(usable) - SHOWN} more (unonet list shows them all)" if len(usable) > SHOWN else "")
    raise JoinFailed(f"{len(usable)} tables found; name one as HOST:PORT:\n  {lines}", code="choose")


# -- host ----------------------------------------------------------------------------

def run_host(config: TableConfig, *, as_json: bool, identity: Identity | None = None,
             out: TextIO = sys.stdout, err: TextIO = sys.stderr,
             game_factory=None, local_seat=None) -> int:
    """Headless host: open the table, print what happens, play the match(es), exit."""
    from ._game import HostGame, run_local_seat

    emit = JsonOut(out, as_json)
    identity = identity or load_or_create_identity()
    game_factory = game_factory or HostGame
    local_seat = local_seat or run_local_seat(emit if config.dealer_only is False else None)

    def on_event(e: HostEvent) -> None:
        if e.kind == "open" and as_json:
            emit({"t": "table", "name": config.name, "port": e.data["port"], "bind": config.bind,
                  "join_code": table.join_code, "fingerprint": identity.short_fingerprint,
                  "players": config.players, "rules": config.preset, "house": list(config.house),
                  "teams": config.teams, "target": config.target})
        elif as_json:
            emit({"t": e.kind, "text": e.text, **{k: v for k, v in e.data.items()}})
        else:
            print(f"unonet host: {e.text}", file=err if e.kind in ("refused", "problem") else out, flush=True)

    table = HostTable(config, identity, game_factory=game_factory, on_event=on_event, local_seat=local_seat)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(table.run)

    try:
        trio.run(main)
    except OSError as exc:
        print(f"unonet host: cannot open the table on {config.bind or 'all interfaces'} port "
              f"{config.port}: {exc.strerror or exc}", file=err)
        return 2
    except KeyboardInterrupt:
        print("unonet host: interrupted; the table is closed", file=err)
        return 130
    if table.result is None:
        return 1
    if as_json:
        emit({"t": "match-over", **table.result})
    else:
        print(f"unonet host: match over: {_result_text(table.result)}", file=out)
    return 0 if not table.result.get("problem") else 1


def _result_text(r: dict) -> str:
    who = f"team {r['winner']}" if r.get("teams") else f"seat {r['winner']}"
    return f"{who} wins; scores {r['scores']} after {r['rounds']} rounds; ledger {r['ledger'][:16]}…"


# -- join ----------------------------------------------------------------------------

def run_join(*, address: str | None, name: str, code: str | None, bot: bool, as_json: bool,
             bind: str | None = None, discovery_port: int = DISCOVERY_PORT, timeout: float = 1.0,
             identity: Identity | None = None, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout,
             err: TextIO = sys.stderr, bot_pace: float = 0.0) -> int:
    """Headless join: find or reach the table, take a seat, play (``--bot``) or read this
    seat's actions from stdin, print what this seat sees, exit 0 after the match."""
    from ._game import SeatGame, bot_step, scripted_feed

    emit = JsonOut(out, as_json)
    try:
        identity = identity or load_or_create_identity()
        known = KnownPeers()
    except TrustError as exc:
        print(f"unonet join: {exc}", file=err)
        return 2

    async def main() -> dict | None:
        def found(t) -> None:
            emit({"t": "found", "name": t.beacon.name, "address": t.address, "port": t.port,
                  "join_code": t.join_code})

        # a joiner listens from the start where it would host if elected (spec §7)
        listeners = await open_listeners(0, bind)
        link, t = await reach_table(address, identity, name=name, code=code, bind=bind, known=known,
                                    discovery_port=discovery_port, timeout=timeout, on_found=found,
                                    listen=listener_port(listeners))
        table_name = t.beacon.name if t is not None else None
        side = SeatSide(name=name, identity=identity, host_public=link.peer_fair_identity,
                        game_factory=SeatGame, bot=bot)
        side.bot_pace = bot_pace
        side.table_name = table_name or ""  # the roster's name, when it comes, is the host's word
        emit({"t": "joined", "host": link.peer_name, "address": link.address,
              "fingerprint": link.peer_id.hex()})
        scripted = scripted_feed(emit)

        def on_feed(value) -> None:
            scripted(value)
            if not as_json and type(value).__name__ == "TableProblem":  # a non-fatal problem: say it
                print(f"unonet join: {value.message}", file=err, flush=True)

        def on_event(e) -> None:  # as the elected host
            if e.kind in ("elected", "problem", "refused", "observer"):
                emit({"t": e.kind, "text": e.text, **e.data})
                if not as_json:
                    print(f"unonet join: {e.text}", file=err, flush=True)

        def elections(play, operator=None):
            return play_with_elections(link, side, identity=identity, listeners=listeners, play=play,
                                       game_factory=SeatGame, emit=emit, on_event=on_event, operator=operator,
                                       # found by its beacons: elected, it announces the table
                                       # the same way (a table joined by address does not)
                                       discovery_port=discovery_port if address is None else None)

        if bot:
            async def play(lk, sd):
                return await play_seat(lk, sd, on_feed=on_feed, bot_step=bot_step)

            return await elections(play)
        return await _play_from_stdin(side, on_feed, stdin, elections)

    try:
        result = trio.run(main)
    except ValueError as exc:
        print(f"unonet join: {exc}", file=err)
        return 2
    except KeyboardInterrupt:
        print("unonet join: interrupted", file=err)
        return 130
    except BaseException as exc:  # noqa: BLE001 - one line for every way the session ends
        e = first_error(exc, (JoinFailed, LinkError, SeatProblem, TrustError))
        if e is None:
            raise
        if isinstance(e, TrustError):
            e = JoinFailed(str(e), code="untrusted")
        failed = describe_end(e)
        loud = "FAIR-PLAY VIOLATION: " if failed.cheat else ""
        print(f"unonet join: {loud}{failed}", file=err)
        if as_json:
            emit({"t": "problem", "message": str(failed), "cheat": failed.cheat, "code": failed.code})
        return 1
    if result is None:
        print("unonet join: the host closed the table before the match ended", file=err)
        return 1
    if as_json:
        emit({"t": "match-over", **result})
    else:
        print(f"unonet join: match over: {_result_text(result)}", file=out)
    return 0


async def _play_from_stdin(side: SeatSide, on_feed: Callable, stdin: TextIO, elections):
    """This seat's actions, one per line in the scenario notation, from stdin, through any
    number of host elections (``elections(play, operator)``, `play_with_elections`): each
    line is parsed against the seat side playing now (a followed host's, or, elected, our
    own seat at our table) and goes to whichever of them is current."""
    from ._game import Operator, parse_seat_action

    send, recv = trio.open_memory_channel(64)
    current = [side]
    operator = Operator(None, recv)  # elected: our own seat, played from these lines

    def playing() -> SeatSide:
        return operator.side or current[0]

    async def read_lines() -> None:
        stream = trio.lowlevel.FdStream(os.dup(stdin.fileno()))  # no thread: the fd is polled
        buf = b""
        async with stream:
            for _ in range(1 << 20):  # bounded: a script sends at most this many lines
                while b"\n" not in buf:
                    chunk = await stream.receive_some(4096)
                    if not chunk:
                        return
                    buf += chunk
                raw, buf = buf.split(b"\n", 1)
                line = raw.decode("utf-8", "replace").strip()
                if not line:
                    continue
                try:
                    value = parse_seat_action(playing(), line)
                except ValueError as exc:
                    on_feed({"t": "refused", "reason": str(exc), "input": line})
                    continue
                await send.send(value)

    async def play(lk, sd):
        current[0] = sd
        return await play_seat(lk, sd, on_feed=on_feed, submit=recv)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_lines)
        result = await elections(play, operator)
        nursery.cancel_scope.cancel()
    return result
