"""``unonet list``: what discovery finds, as lines for people or JSON for scripts."""

from __future__ import annotations

import json
import sys
from typing import TextIO

import trio

from ._address import table_line
from ._errors import BindFailed
from ._discovery import DISCOVERY_PORT, FoundTable, discover

__all__ = ["run_list", "table_json", "table_line"]


def table_json(t: FoundTable) -> dict:
    b = t.beacon
    return {
        "name": b.name, "host": b.host, "address": t.address, "port": b.port,
        "seats": b.seats, "taken": b.taken, "rules": b.rules, "house": list(b.house),
        "teams": b.teams, "target": b.target, "state": b.state, "join_code": t.join_code,
        "fingerprint": b.fp.hex(), "table": b.table.hex(), "probed": t.probed,
        "version": {"min": b.vmin, "max": b.v, "compatible": t.compatible, "use": t.version},
    }


def run_list(timeout: float, *, as_json: bool = False, bind: str | None = None,
             port: int = DISCOVERY_PORT, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Exit 0 whether or not a table was found (none found is an answer, not an error);
    2 when discovery itself cannot run (bad --bind address, port).  ``as_json``: one line
    per table, printed the moment it first answers (a script can act on it at once)."""
    def at_once(t: FoundTable) -> None:  # --json: each table the moment it answers
        print(json.dumps(table_json(t), sort_keys=True), file=out, flush=True)

    try:
        found = trio.run(lambda: discover(timeout, port=port, bind=bind, on_found=at_once if as_json else None))
    except OSError as exc:
        where = f" on {bind}" if bind else ""
        print(f"unonet: {exc}" if isinstance(exc, BindFailed) else
              f"unonet: cannot listen for tables{where}: {exc.strerror or exc}", file=err)
        return 2
    if as_json:
        pass  # (printed as found)
    elif not found:
        print(f"no tables found within {timeout:g} s (is a host running on this network? "
              "where broadcast is blocked, use: unonet join HOST[:PORT])", file=out)
    else:
        for t in found:
            print(table_line(t), file=out)
    return 0
