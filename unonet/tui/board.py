"""The scorekeeper's live screen drawn full screen while the attach (trio) runs as a guest of
prompt_toolkit's asyncio loop, as the LAN client runs (`remote.py`).

The screen only reads: it draws ``lines(width, height)`` (the attach gives `ScoreView.lines`, the view
model in `score_view.py`, fed by the observer's feed and the store's board), and each change
the caller reports invalidates it.  The attach ending (the table closed, or a failure) leaves
the last screen up with a status line until ``q``."""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Dimension, HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from .remote import stop_guest
from .screen import wrap

__all__ = ["run_board", "run_board_async"]


async def run_board_async(attach: Callable[[], Awaitable[str]], lines: Callable[[int, int | None], list[str]], *,
                          bind_redraw: Callable[[Callable[[], None]], None] | None = None,
                          input=None, output=None) -> str | None:
    """Run ``attach()`` (trio) as a guest while the board (``lines(width, height)``) is on screen;
    ``bind_redraw(redraw)`` hands the caller the call that redraws it.  Returns what
    ``attach`` returned (None if the user quit first), or raises what it raised."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()
    state: dict = {"status": "attaching…"}

    async def trio_main():
        state["token"] = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            state["scope"] = scope
            return await attach()

    def trio_done(outcome) -> None:
        if not done.done():
            done.set_result(outcome)

    from unonet.heap import settle

    settle()  # (start-up's objects out of the cycle collector's way: unonet/heap.py)
    trio.lowlevel.start_guest_run(trio_main, run_sync_soon_threadsafe=loop.call_soon_threadsafe,
                                  done_callback=trio_done, host_uses_signal_set_wakeup_fd=True)

    def body():
        size = app.output.get_size() if app.output is not None else None
        width = size.columns if size is not None else 80
        # the rows above the status line: the view model keeps its essentials within them
        height = max(1, size.rows - len(status_lines())) if size is not None else None
        return "\n".join(lines(width, height))

    keys = KeyBindings()

    @keys.add("q")
    @keys.add("c-c")
    @keys.add("<sigint>")  # (as Ctrl-C: a SIGINT from outside)
    def _quit(event) -> None:
        event.app.exit()

    def status_lines() -> list[str]:
        # a failure's line is often wider than the screen: every word of it is shown
        width = app.output.get_size().columns if app.output is not None else 80
        return wrap(state["status"] + "   (q: quit)", max(1, width), first="", rest="  ")[:4]

    app = Application(layout=Layout(HSplit([Window(FormattedTextControl(body)),
                                            Window(FormattedTextControl(lambda: "\n".join(status_lines())),
                                                   height=lambda: Dimension.exact(len(status_lines())),
                                                   style="reverse")])),
                      key_bindings=keys, full_screen=True, input=input, output=output)

    def finished(fut) -> None:
        outcome = fut.result()  # unwrapped (once) after the screen closes
        exc = getattr(outcome, "error", None)
        if exc is None:
            state["status"] = f"{outcome.value}" if outcome.value else "detached"
        else:
            state["status"] = f"stopped: {_first_line(exc)}"
        app.invalidate()

    done.add_done_callback(finished)
    if bind_redraw is not None:
        bind_redraw(app.invalidate)
    state["status"] = "attached: recording every verified round"
    try:
        await app.run_async()
    finally:
        outcome = await stop_guest(state, done)
    return outcome.unwrap()


def run_board(attach: Callable[[], Awaitable[str]], lines: Callable[[int, int | None], list[str]], *,
              bind_redraw: Callable[[Callable[[], None]], None] | None = None) -> str | None:
    """The CLI's entry point (the caller checks for a terminal)."""
    return asyncio.run(run_board_async(attach, lines, bind_redraw=bind_redraw))


def _first_line(exc: BaseException) -> str:
    """The most telling line of a failure (the join path's one-line text)."""
    from unonet.net._errors import LinkError
    from unonet.net._join import JoinFailed, describe_end, first_error
    from unonet.net._seat import SeatProblem

    e = first_error(exc, (JoinFailed, LinkError, SeatProblem))
    text = str(describe_end(e)) if e is not None else (str(exc) or type(exc).__name__)
    return text.splitlines()[0] if text else type(exc).__name__
