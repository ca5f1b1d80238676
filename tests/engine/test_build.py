"""The compiled engine and the pure one are one engine (setup.py, unonet/engine/_load.py).

Where this environment's build compiled the engine (mypyc, a C compiler), the compiled
modules are the ones that run; ``UNONET_PURE=1`` runs the pure sources (CI runs these tests
both ways). Either way, a pure run in a separate process plays the same seeded rounds --
plain and fair, under several rule sets -- to the same events, transcripts and results, and
sees the same fields, public views and hidden cards in every event.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import unonet.engine as engine
from unonet.engine import _load

ROOT = Path(__file__).resolve().parents[2]

#: (preset, house rules, players): classic play, stacking and seven-o, UNO Flip, the 2018 deck
CASES = [("official", [], 4), ("house", ["stacking", "seven-o", "jump-in"], 5), ("flip", ["keep-drawing"], 3),
         ("2018", [], 4), ("official", ["deadly", "no-draw-first-round"], 6)]

#: plays the cases and prints what they gave, one JSON line (run here and under UNONET_PURE=1)
PLAY = """
import json, sys
from dataclasses import fields, replace
import unonet.engine as engine
from unonet.engine import Round, make_bot, make_rules, play_round
from unonet.fair.testing import det_randbytes
from unonet.table import make_table

out = {"compiled": engine.COMPILED, "plain": [], "fair": []}


def seen(e):
    # what the table's readers take from an event: its fields (dataclasses.fields, as
    # table.events_json reads them), a replace of it, and its public view
    return [repr(e), [f.name for f in fields(e)], repr(replace(e)), repr(e.public()), e == replace(e)]


for preset, house, players in json.loads(sys.argv[1]):
    rules = make_rules(preset=preset, house=set(house))
    for seed in range(6):
        rnd = Round.deal(rules, players, seed % players, seed=f"{preset}-{seed}")
        log = [seen(e) for e in rnd.start()]
        bots = [make_bot("random" if s % 2 else "heuristic", f"{seed}/{s}") for s in range(players)]
        play_round(rnd, bots, on_events=lambda a, ev: log.extend([repr(a)] + [seen(e) for e in ev]))
        out["plain"].append([log, repr(rnd.outcome)])
    table = make_table(rules, players, randbytes=det_randbytes(f"build-{preset}"))
    rnd = table.open_round()
    rnd.start()
    if not rnd.over:
        play_round(rnd, [make_bot("random", f"f/{s}") for s in range(players)])
    out["fair"].append(table.lines)
print(json.dumps(out))
"""


def _play(pure: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "UNONET_PURE"}
    if pure:
        env["UNONET_PURE"] = "1"
    done = subprocess.run([sys.executable, "-c", PLAY, json.dumps(CASES)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _loaded_files() -> list[str]:
    return [sys.modules[f"unonet.engine.{m}"].__file__ or "" for m in _load.MODULES]


def test_the_build_that_runs_is_the_one_built():
    files = _loaded_files()
    compiled = [not f.endswith(".py") for f in files]
    assert all(compiled) == engine.COMPILED and any(compiled) == engine.COMPILED, files  # never a mix
    rnd = engine.Round.deal(engine.make_rules(), 4, 0, seed=1)
    assert hasattr(rnd, "__dict__") != engine.COMPILED  # a compiled class keeps its attributes natively
    if os.environ.get("UNONET_PURE"):
        assert not engine.COMPILED, files
    elif importlib.util.find_spec("unonet_engine__mypyc") is not None:
        # this environment's build compiled the engine (its shared runtime is installed): it runs
        assert engine.COMPILED, files


def test_the_pure_engine_plays_the_same_rounds_as_this_one():
    mine = _play(pure=False)  # the build this environment runs by default
    pure = _play(pure=True)
    assert pure["compiled"] is False
    assert mine["compiled"] == (importlib.util.find_spec("unonet_engine__mypyc") is not None)
    assert len(mine["plain"]) == len(pure["plain"]) == 6 * len(CASES)
    for k, (a, b) in enumerate(zip(mine["plain"], pure["plain"])):
        assert a == b, f"plain round {k} ({CASES[k // 6]}) differs between the builds"
    for k, (a, b) in enumerate(zip(mine["fair"], pure["fair"])):
        assert a == b, f"fair round {k} ({CASES[k]}): the transcripts differ between the builds"
    assert len(mine["fair"]) == len(pure["fair"]) == len(CASES)
    assert sum(len(lines) for lines in mine["fair"]) > 100 * len(mine["fair"])


def _dataclasses(module) -> list[type]:
    return [c for c in vars(module).values()
            if isinstance(c, type) and c.__module__ == module.__name__ and dataclasses.is_dataclass(c)]


def test_each_event_and_action_builds_exactly_its_fields():
    """Events and actions write their ``__init__`` out (a native call where compiled): each
    takes its fields in order, with the dataclass's defaults, and a compiled build runs it natively."""
    from unonet.engine import _actions, _events

    classes = _dataclasses(_events) + _dataclasses(_actions)
    assert len(classes) >= 35
    for cls in classes:
        fs = dataclasses.fields(cls)
        values = [object() if f.name not in ("seat", "target") else 3 for f in fs]
        try:
            built = cls(*values)
        except TypeError:  # a compiled class checks its typed fields: give each a value of its type
            built = cls(*[_typed(f) for f in fs])
            values = [getattr(built, f.name) for f in fs]
        assert [getattr(built, f.name) for f in fs] == values, cls
        required = [v for f, v in zip(fs, values) if f.default is dataclasses.MISSING]
        short = cls(*required)
        for f in fs:
            if f.default is not dataclasses.MISSING:
                assert getattr(short, f.name) == f.default, (cls, f.name)
        assert (type(cls.__init__).__name__ != "function") == engine.COMPILED, cls


def _typed(f: dataclasses.Field):
    """A value of the field's type, by its name (a compiled dataclass's `Field.type` is not kept)."""
    if f.name in ("cards", "hands", "waiting", "visible"):
        return []
    if f.name in ("card", "top"):
        return engine.UNKNOWN
    if f.name in ("jump_in", "guilty", "uno"):
        return True
    if f.name in ("reason", "color", "termination"):
        return "R"
    return 5
