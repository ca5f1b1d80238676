"""The join picker: the tables discovery found, one a line; arrow keys and Enter pick one.

`unonet join` without an address runs discovery (net/) and, when several tables answer,
calls `pick_table(tables)`.  Everything shown comes from a beacon - a hint from another
machine - so every text is cleaned of control characters before it is drawn; a table
that speaks no protocol version we speak is listed but cannot be picked.
"""

from __future__ import annotations

import asyncio

from prompt_toolkit.application import Application
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from ..names import clean, pad
from .layout import STYLE
from .screen import _width, wrap


def table_rows(t, width: int = 80) -> tuple[str, str]:
    """One found table in two lines: its name, host, seats and rules; then where it is,
    its join code and whether we speak its protocol version."""
    b = t.beacon
    rules = clean(b.rules) + (" +" + ",".join(clean(h) for h in b.house) if b.house else "")
    rules += ", teams" if b.teams else ""
    state = "" if b.state == "lobby" else f" ({b.state})"
    first = (f"{pad(clean(b.name), 20)} host {pad(clean(b.host), 12)} {b.taken}/{b.seats} seats{state}"
             f"  {rules}, to {b.target}")
    compat = f"protocol v{t.version}" if t.compatible else f"INCOMPATIBLE (speaks v{b.vmin}..v{b.v})"
    second = f"{t.address}:{b.port}   code {t.join_code}   {compat}"
    room = max(10, width)
    return first[:room], second[:room]


class Picker:
    """The picker's state, apart from prompt_toolkit (tested with plain calls)."""

    def __init__(self, tables) -> None:
        self.tables = list(tables)
        self.selected = next((i for i, t in enumerate(self.tables) if t.compatible), 0)
        self.message = ""
        self.choice = None
        self.done = False

    def move(self, step: int) -> None:
        if self.tables:
            self.selected = (self.selected + step) % len(self.tables)
            self.message = ""

    def pick(self) -> None:
        if not self.tables:
            self.done = True
            return
        t = self.tables[self.selected]
        if not t.compatible:
            b = t.beacon
            self.message = (f"{clean(b.name)} speaks protocol v{b.vmin}..v{b.v}, which this unonet "
                            "does not: pick another table, or update one side.")
            return
        # a beacon saying "full" is not refused here: the host decides.  Its bots give way to a
        # newcomer in the lobby (a table between matches, filled with bots, says 4/4 and seats
        # a friend), and any device may send a beacon in the table's name - even from its
        # address - saying it is full: refusing on that word hid the real table
        self.choice, self.done = t, True

    def cancel(self) -> None:
        self.choice, self.done = None, True

    def lines(self, width: int = 80) -> list[tuple[str, str]]:
        out = [("class:header", pad(" unonet join: tables on this network", width - 1)), ("", "")]
        if not self.tables:
            out.append(("", " No tables found."))
        for i, t in enumerate(self.tables):
            mark = ">" if i == self.selected else " "
            style = "class:card.selected" if i == self.selected else ""
            if not t.compatible:
                style += " class:dim"
            first, second = table_rows(t, width - 3)
            out.append((style, f"{mark} {first}"))
            out.append(("class:dim", f"    {second}"[: width - 1]))
        out.append(("", ""))
        out.append(("class:status", " Up/Down: choose   Enter: join   q or Esc: cancel"))
        if self.message:
            out += [("class:notice", line) for line in wrap(self.message, width - 1, " ", "   ")]
        return out


def build_picker_app(picker: Picker, *, input=None, output=None) -> Application:
    kb = KeyBindings()

    def finish(event) -> None:
        if picker.done:
            event.app.exit(result=picker.choice)

    @kb.add("up")
    @kb.add("k")
    def _(event):
        picker.move(-1)

    @kb.add("down")
    @kb.add("j")
    @kb.add("tab")
    def _(event):
        picker.move(1)

    @kb.add("enter")
    def _(event):
        picker.pick()
        finish(event)

    @kb.add("q")
    @kb.add("escape", eager=True)
    @kb.add("c-c")
    @kb.add("<sigint>")  # (as Ctrl-C: a SIGINT from outside)
    def _(event):
        picker.cancel()
        finish(event)

    @kb.add(Keys.Any)
    def _(event):
        picker.message = "Up/Down choose a table, Enter joins it, q cancels."

    control = FormattedTextControl(
        lambda: [(style, text + "\n") for style, text in picker.lines(_width())], focusable=False)
    return Application(layout=Layout(HSplit([Window(control)])), key_bindings=kb, style=STYLE,
                       full_screen=True, input=input, output=output)


async def pick_table_async(tables, *, input=None, output=None):
    """The table the player picks among ``tables`` (discovery's `FoundTable`s), or None."""
    return await build_picker_app(Picker(tables), input=input, output=output).run_async()


def pick_table(tables, *, input=None, output=None):
    """`pick_table_async` for a caller outside any event loop (the CLI)."""
    return asyncio.run(pick_table_async(tables, input=input, output=output))


class NothingPicked(Exception):
    """The player left the picker without choosing a table."""


async def pick_in_client(tables):
    """`pick_table_async` called from trio running as a guest of the client's asyncio loop
    (`unonet join` without an address, several tables found): the picker runs on asyncio,
    trio waits for it.  Raises `NothingPicked` (one line) when the player cancels."""
    import trio

    loop = asyncio.get_running_loop()  # the host loop: trio's guest ticks run inside it
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    task = loop.create_task(pick_table_async(tables))
    task.add_done_callback(lambda _t: token.run_sync_soon(done.set))
    try:
        await done.wait()
    finally:
        if not task.done():
            task.cancel()
    choice = task.result()
    if choice is None:
        raise NothingPicked("no table chosen: nothing joined")
    return choice
