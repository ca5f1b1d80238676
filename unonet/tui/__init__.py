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
    import asyncio
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        which = "stdin" if not sys.stdin.isatty() else "stdout"
        print(f"unonet play needs a terminal ({which} is not a tty)", file=sys.stderr)
        return 2

    from .app import run_local_async
    from .local import seat_names

    names = seat_names(getattr(args, "name", "You") or "You", args.players)
    return asyncio.run(run_local_async(rules, names, seed=args.seed, bot=getattr(args, "bot", "heuristic"),
                                       pacing=pacing))
