"""The full-screen terminal client (prompt_toolkit on asyncio).

* `view.TableView`  - the view model, fed by engine events and `feed` messages
* `control.Controller` - what keys mean now (selection, typing, pickers)
* `layout`, `keys`  - the screen and the key bindings
* `local.LocalTable` - engine + bots in this process, behind the same feed a LAN table sends
* `app.TableApp`    - ties them together
"""

from __future__ import annotations


def run_play(rules, args, pacing=None) -> int:
    """`unonet play`: you at seat 0 against bots, a whole match to the target (``pacing``:
    a `local.Pacing`, the bots' speed)."""
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        which = "stdin" if not sys.stdin.isatty() else "stdout"
        print(f"unonet play needs a terminal ({which} is not a tty)", file=sys.stderr)
        return 2

    from .control import Controller
    from .first_frame import FirstFrame
    from .local import LocalTable, seat_names
    from .screen import STYLE_RULES, table_screen
    from .view import TableView

    names = seat_names(getattr(args, "name", "You") or "You", args.players)
    table = LocalTable(rules, names, seed=args.seed, bot=getattr(args, "bot", "heuristic"))
    # the dealt table on the screen before asyncio and prompt_toolkit load (they take longer
    # than the start-up budget): see first_frame.py
    first = FirstFrame.open()
    try:
        view = TableView(0)
        ctl = Controller(view, table)
        table.subscribe(view.apply_all)
        table.start()
        table.unsubscribe(view.apply_all)  # (the application takes over the feed)
        if first is not None:
            lines = table_screen(view, ctl, first.columns, first.rows)  # None: too small (the application says so)
            if lines is None or not first.draw(lines, STYLE_RULES):
                first.close()
                first = None
        import asyncio

        from .app import run_local_async

        return asyncio.run(run_local_async(rules, names, pacing=pacing, table=table, view=view, ctl=ctl,
                                           first_frame=first))
    finally:
        if first is not None:
            first.close()
