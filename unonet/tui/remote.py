"""A LAN table in the full-screen client: trio as a guest run inside prompt_toolkit's loop.

The client's screen runs on asyncio (prompt_toolkit); the network runs on trio (`unonet.net`).
`run_remote` starts trio as a *guest* of the asyncio loop (`trio.lowlevel.start_guest_run`
with ``run_sync_soon_threadsafe=loop.call_soon_threadsafe``): both run in this one thread,
trio's IO waits happen in trio's own helper thread, and neither blocks the other.

What the trio side hands over is a seat channel (contract: /docs/client.md "Over the LAN"):

    class SeatChannel:
        feed: trio.MemoryReceiveChannel   # feed values in order, as this seat may see them
        async def submit(self, value)     # an engine action, feed.Ready, feed.Start
        async def leave(self)

`RemoteTable` wraps it behind `LocalTable`'s interface - ``subscribe(listener)`` and
``submit(action)`` - so `TableApp`, the view and the controller do not change.  Keys are
handled on asyncio, so `submit` queues the action and returns None at once; trio sends
it, and a refusal comes back later as `feed.Refused` on the feed.
"""

from __future__ import annotations

import asyncio
import math
from typing import Awaitable, Callable

import trio

from .. import feed
from ..engine import _events as ev

#: how long the reader waits for the rest of a batch (an engine event's TurnState)
BATCH_WAIT = 0.05
#: on quitting, how long the network side has to say goodbye (or close our table) by itself
LEAVE_GRACE = 3.0


class RemoteTable:
    """One seat of a table that runs elsewhere, fed from a seat channel (see the module)."""

    def __init__(self) -> None:
        self._listeners: list = []
        self._early: list = []
        self._token: trio.lowlevel.TrioToken | None = None
        self._outbox: trio.MemorySendChannel | None = None
        self.channel = None
        self.closed = False          # the feed has ended (the match is over, or the link went)
        self.sent = 0                # actions handed to the channel (tests, the benchmark)

    # ------------------------------------------------------------------ asyncio side
    def subscribe(self, listener) -> None:
        """``listener(messages)`` gets every batch of feed values (called in this thread);
        the first listener also gets what came before it subscribed."""
        self._listeners.append(listener)
        if self._early:
            early, self._early = self._early, []
            listener(early)

    def submit(self, action) -> str | None:
        """Queue ``action`` for the table (None: queued; a reason when it cannot be sent)."""
        if self.closed or self._token is None:
            return "the table is closed" if self.closed else "not connected to the table yet"
        try:
            self._token.run_sync_soon(self._queue, action)
        except trio.RunFinishedError:
            return "the table is closed"
        return None

    def _send(self, messages: list) -> None:
        if not self._listeners:
            self._early += messages  # the screen is being built: keep them for it
            return
        for fn in list(self._listeners):
            fn(messages)

    # ------------------------------------------------------------------ trio side
    def _queue(self, action) -> None:
        if self._outbox is not None:
            try:
                self._outbox.send_nowait(action)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                pass

    async def serve(self, channel) -> None:
        """Carry ``channel`` (a seat channel) until its feed ends; then the table is closed.

        Feed values that arrive together are delivered as one batch (one redraw).  A
        problem sending an action becomes a `feed.TableProblem` on the screen."""
        self.channel = channel
        self._token = trio.lowlevel.current_trio_token()
        send, receive = trio.open_memory_channel(math.inf)
        self._outbox = send
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._submitter, receive)
                await self._reader(channel.feed)
                nursery.cancel_scope.cancel()
        finally:
            self.closed = True
            self._outbox = None
            send.close()

    async def _reader(self, stream) -> None:
        async for value in stream:
            batch = [value]
            self._drain(stream, batch)
            # engine events always end with the TurnState of their batch: wait a moment for it,
            # so the screen never shows half a batch (a colour named, the picker still open)
            for _ in range(1000):
                if not isinstance(batch[-1], ev.Event):
                    break
                with trio.move_on_after(BATCH_WAIT):
                    try:
                        batch.append(await stream.receive())
                    except (trio.EndOfChannel, trio.ClosedResourceError):
                        break
                    self._drain(stream, batch)
                    continue
                break
            self._send(batch)

    @staticmethod
    def _drain(stream, batch: list) -> None:
        while True:
            try:
                batch.append(stream.receive_nowait())
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                return

    async def _submitter(self, receive) -> None:
        async for action in receive:
            try:
                await self.channel.submit(action)
            except Exception as exc:  # the link failed under us: say so, keep the screen
                self._send([feed.TableProblem(f"could not send {action}: {one_line(exc)}", fatal=True)])
                return


def one_line(exc: BaseException) -> str:
    """An exception as one line for the screen (our LinkErrors already are one line); a
    group (trio's nurseries) speaks through its first exception."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def problem_of(exc: BaseException) -> feed.TableProblem:
    """What stopped the network side, as a fatal problem on the screen; an exception that
    says ``cheat`` (the session's JoinFailed, SeatProblem) is shown as a cheat."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return feed.TableProblem(one_line(exc), fatal=True, cheat=bool(getattr(exc, "cheat", False)),
                             goodbye=bool(getattr(exc, "goodbye", False)) and not getattr(exc, "cheat", False))


#: what the trio side of a client runs: ``open_seat(task_status)`` connects (or opens the
#: table, for the host's own seat), calls ``task_status.started(seat_channel)`` and keeps
#: running - the links, the table - until the seat channel's feed has ended or it is cancelled.
OpenSeat = Callable[..., Awaitable[None]]


class ConnectError(Exception):
    """The trio side failed before it handed over a seat (one line: what happened)."""


async def run_remote_async(open_seat: OpenSeat, *, make_app=None, input=None, output=None,
                           on_ready=None) -> tuple[int, object]:
    """Run the client on a LAN seat: trio (``open_seat``) as a guest of this asyncio loop,
    the full-screen application beside it.  Returns ``(exit status, ui)``.

    ``make_app(table)`` builds the UI (default: `session.SessionApp`).  Until the seat is
    handed over nothing is drawn; a failure then raises `ConnectError` (one line: the CLI
    prints it and exits non-zero).  Quitting the application cancels trio and waits for it
    (leaving the table politely: ``leave()``).  ``input``/``output`` become the app session's,
    so that anything the trio side shows first (the join picker) uses them too."""
    from prompt_toolkit.application.current import create_app_session

    with create_app_session(input=input, output=output):
        return await _run_remote(open_seat, make_app, input, output, on_ready)


async def _run_remote(open_seat, make_app, input, output, on_ready) -> tuple[int, object]:
    from .session import SessionApp

    loop = asyncio.get_running_loop()
    table = RemoteTable()
    seated: asyncio.Future = loop.create_future()
    done: asyncio.Future = loop.create_future()
    state: dict = {}

    async def trio_main():
        state["token"] = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            state["scope"] = scope
            async with trio.open_nursery() as nursery:
                try:
                    channel = await nursery.start(open_seat)
                except Exception as exc:
                    if not seated.done():
                        seated.set_exception(ConnectError(one_line(exc)))
                    return
                if not seated.done():
                    seated.set_result(channel)
                try:
                    await table.serve(channel)
                    # the feed has ended: the screen stays up (the standings) until the player
                    # quits; the seat's own tasks (the host's table) run on in the nursery
                finally:
                    await _leave(channel)

    def trio_done(outcome) -> None:
        if not done.done():
            done.set_result(outcome)
        if not seated.done():
            try:
                outcome.unwrap()
                seated.set_exception(ConnectError("the table closed before a seat was taken"))
            except BaseException as exc:  # noqa: BLE001 - reported as one line
                seated.set_exception(ConnectError(one_line(exc)))

    from unonet.heap import settle

    settle()  # (start-up's objects out of the cycle collector's way: unonet/heap.py)
    trio.lowlevel.start_guest_run(
        trio_main,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        done_callback=trio_done,
        host_uses_signal_set_wakeup_fd=True,
    )

    async def stop_trio():
        await leave_first(state, table.channel, done)
        return await stop_guest(state, done)

    try:
        await seated
    except BaseException:
        await stop_trio()
        raise
    ui = (make_app or SessionApp)(table, input=input, output=output)
    if on_ready is not None:
        on_ready(ui)
    def watch_trio(fut) -> None:
        try:
            fut.result().unwrap()
        except BaseException as exc:  # noqa: BLE001 - shown, then the player quits
            table._send([problem_of(exc)])

    done.add_done_callback(watch_trio)
    try:
        status = await ui.app.run_async() or 0
    finally:
        await stop_trio()
    return status, ui


async def leave_first(state: dict, channel, done: asyncio.Future, grace: float = LEAVE_GRACE) -> None:
    """The person quits: ask the seat to leave politely (a seat says goodbye; a table we host
    closes, its last words - a match's end above all - written to every peer) and give the
    trio side ``grace`` s to end by itself before it is cancelled."""
    leave = getattr(channel, "_leave", None)
    token = state.get("token")
    if done.done() or leave is None or token is None:
        return
    try:
        token.run_sync_soon(leave.set)
    except trio.RunFinishedError:
        return
    await asyncio.wait({done}, timeout=grace)


async def stop_guest(state: dict, done: asyncio.Future):
    """Cancel a trio guest run (``state`` holds its ``token`` and top ``scope``) unless it
    is done, and wait for its outcome (``done``)."""
    if not done.done():
        token, scope = state.get("token"), state.get("scope")
        if token is not None and scope is not None:
            try:
                token.run_sync_soon(scope.cancel)
            except trio.RunFinishedError:
                pass
    return await done


async def _leave(channel) -> None:
    """Say goodbye to the table (``channel.leave()``), at most one second, even when cancelled."""
    leave = getattr(channel, "leave", None)
    if leave is None:
        return
    with trio.move_on_after(1.0) as scope:
        scope.shield = True
        try:
            await leave()
        except Exception:  # a link already gone: nobody to say goodbye to
            pass


def run_remote(open_seat: OpenSeat, *, command: str = "unonet join") -> int:
    """The CLI's entry point for a LAN seat with the full-screen client: needs a terminal;
    prints one line and returns 1 when the seat cannot be taken; after the client exits,
    prints the standings (and the table's problem, if one stopped it) to the terminal.
    Returns 0, or 1 when a problem stopped the table (a cheat, the host gone)."""
    import sys

    from .session import problem_line

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        which = "stdin" if not sys.stdin.isatty() else "stdout"
        print(f"{command} needs a terminal ({which} is not a tty); use --no-ui for scripts",
              file=sys.stderr)
        return 2
    try:
        status, ui = asyncio.run(run_remote_async(open_seat))
    except ConnectError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 1
    print("\n".join(ui.view.standings()), flush=True)
    problem = problem_line(ui.view)
    if problem:
        print(f"{command}: {problem}", file=sys.stderr)
        return 1
    return status
