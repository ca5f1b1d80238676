"""The full-screen application: view model + controller + layout + keys, on asyncio.

`TableApp` works with any table that offers ``subscribe(listener)`` and
``submit(action)`` (see `feed.py`); `run_local` attaches it to a `LocalTable` and runs
the bot driver as an asyncio task next to the prompt_toolkit application.  A LAN table
will start its trio side as a guest run (`trio.lowlevel.start_guest_run`) in the same
place and feed the same view.
"""

from __future__ import annotations

import asyncio

from prompt_toolkit.application import Application

from ..heap import frame_drawn
from .control import Controller
from .keys import build_keys
from .layout import STYLE, build_layout
from .view import TableView


class TableApp:
    view_class = TableView        # a LAN table's client uses the session's (tui/session.py)
    controller_class = Controller
    refresh_interval: float | None = None  # redraw this often even when nothing came (a clock)

    def __init__(self, table, *, me: int = 0, input=None, output=None, view=None, ctl=None) -> None:
        self.table = table
        self.view = view if view is not None else self.view_class(me)  # (given: fed so far by the caller)
        self.ctl = ctl if ctl is not None else self.controller_class(self.view, table)
        self.app = Application(
            layout=self.build_layout(),
            key_bindings=build_keys(self.ctl, self._quit),
            style=STYLE,
            full_screen=True,
            mouse_support=False,
            input=input,
            output=output,
            refresh_interval=self.refresh_interval,
        )
        self.app.after_render += frame_drawn  # (a frame's cycles freed: unonet/heap.py)
        table.subscribe(self._on_messages)

    def build_layout(self):
        return build_layout(self.view, self.ctl)

    def _on_messages(self, messages) -> None:
        self.view.apply_all(messages)
        self.app.invalidate()

    def _quit(self) -> None:
        if not self.app.is_done:
            self.app.exit(result=0)

    async def run(self, driver=None) -> int:
        """Run the application; ``driver`` (a coroutine) runs beside it until it exits."""
        task = asyncio.ensure_future(driver) if driver is not None else None
        try:
            if task is not None:
                task.add_done_callback(self._driver_done)
            return await self.app.run_async() or 0
        finally:
            if task is not None and not task.done():
                task.cancel()
                try:
                    await task
                except (asyncio.CancelledError, Exception):
                    pass

    def _driver_done(self, task) -> None:
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None and not self.app.is_done:
            self.app.exit(exception=exc)


async def run_local_async(rules, names, *, seed=None, bot="heuristic", pacing=None,
                          input=None, output=None, stdout=None, table=None, view=None, ctl=None,
                          first_frame=None) -> int:
    """Play a match against bots; when the client closes (the terminal is back to normal)
    the standings are printed on ``stdout`` (default: sys.stdout), so they stay visible.
    ``table``, ``view`` and ``ctl``: a table already dealt and the client's state so far
    (`run_play` draws the first frame from them); ``first_frame`` is told when this
    application has drawn its own."""
    import sys

    from .local import LocalTable, drive

    if table is None:
        table = LocalTable(rules, names, seed=seed, bot=bot)
    ui = TableApp(table, input=input, output=output, view=view, ctl=ctl)
    if first_frame is not None:
        ui.app.after_render += first_frame.handed_over
    if table.rnd is None:
        table.start()  # dealt before the first frame: the screen opens on the table (no empty frame first)
    try:
        return await ui.run(drive(table, pacing))
    finally:
        print("\n".join(ui.view.standings()), file=stdout or sys.stdout, flush=True)
