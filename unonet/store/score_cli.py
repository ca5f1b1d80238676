"""`unonet score …`: the scorekeeper's offline views and `verify`, and the place the live attach goes.

``unonet score standings|history|match ID|export ID|verify`` read the database (never
write it).  Anything else — no word, or HOST[:PORT] — is the live attach to a table, which
records the table's rounds as an observer (``attach.py``).  Exit codes: 0 done (the
attached table closed); 1 `verify` found a bad row (or `match ID` names a match that does
not check, or `standings` left out a match that does not check; or the attached table failed; or `export ID` names a match that does not check); 2 bad input (arguments, or a database that
cannot be used: missing, not ours, locked, corrupted, newer).
"""

from __future__ import annotations

import difflib
import json
import sqlite3
import sys
from pathlib import Path

from ._errors import StoreError
from ._store import ScoreStore, default_db_path, sqlite_failure
from ._verify import verify
from ._views import (MatchView, checked_standings, export_csv, history, key_text, match_view, plural, round_labels,
                     rounds_scored)

VIEWS = ("standings", "history", "match", "export", "verify")
_ARITY = {"standings": 0, "history": 0, "match": 1, "export": 1, "verify": 0}


class ScoreUsage(Exception):
    """Bad words or options for `unonet score`: one line, exit 2."""


def run_score(args) -> int:
    """Dispatch on the first word; ``args`` carries words, db, json, code, no_ui, player."""
    words = list(args.words or [])
    if not words or words[0] not in VIEWS:
        return _attach(args, words)
    view, rest = words[0], words[1:]
    try:
        if len(rest) != _ARITY[view]:
            need = "a match (its number from `unonet score history`, or a prefix of its id)" if _ARITY[view] else "nothing more"
            raise ScoreUsage(f"`unonet score {view}` takes {need}, not {' '.join(rest) or 'nothing'}")
        if args.code or args.no_ui:
            raise ScoreUsage(f"--code and --no-ui are for attaching to a table, not for `unonet score {view}`")
        if args.player and view != "history":
            raise ScoreUsage("--player goes with `unonet score history`")
        if view == "export" and args.json:
            raise ScoreUsage("`unonet score export` writes CSV; --json does not apply (try `unonet score match ID --json`)")
        path = Path(args.db) if args.db else default_db_path()
        with ScoreStore.open(path, readonly=True) as store:
            try:
                return _VIEWS[view](store, args, *rest)
            except (sqlite3.Error, UnicodeDecodeError) as e:  # damage past the open's quick check
                raise sqlite_failure(path, e) from None
    except (ScoreUsage, StoreError) as e:
        msg = str(e)
        if args.json and view != "export":
            print(json.dumps({"ok": False, "error": msg}))
        else:
            print(f"unonet score: {msg}", file=sys.stderr)
        return 2


def _attach(args, words: list[str]) -> int:
    """No view word: attach to a table (unonet/store/attach.py)."""
    if len(words) > 1:
        print(f"unonet score: {' '.join(words[1:])!r}: attach takes one HOST[:PORT] (the views are: "
              f"{', '.join(VIEWS)})", file=sys.stderr)
        return 2
    if args.player:
        print("unonet score: --player goes with `unonet score history`", file=sys.stderr)
        return 2
    if args.code is not None:
        from ..protocol import InvalidJoinCodeError, normalize_join_code

        try:
            normalize_join_code(args.code)
        except InvalidJoinCodeError as e:
            print(f"unonet score: --code: {e}", file=sys.stderr)
            return 2
    if words and not any(ch in words[0] for ch in ".:[") and (
            near := difflib.get_close_matches(words[0].lower(), VIEWS, n=1, cutoff=0.75)):
        # a misspelt view, not a table's host name (a host that is one: give HOST:PORT)
        print(f"unonet score: {words[0]!r} is not a view: did you mean `unonet score {near[0]}`? (to attach "
              f"to a table on a host of that name, give its port too: {words[0]}:47800)", file=sys.stderr)
        return 2
    if words:
        from ..net._address import parse_address

        try:
            parse_address(words[0])
        except ValueError as e:
            print(f"unonet score: {e} (the views are: {', '.join(VIEWS)})", file=sys.stderr)
            return 2
    from .attach import run_attach

    return run_attach(args)


def _standings(store: ScoreStore, args) -> int:
    """The standings of the matches that check; one line (stderr) and exit 1 per match left out."""
    rows, left_out = checked_standings(store)
    code = 1 if left_out else 0
    if args.json:
        print(json.dumps({"ok": not left_out, "db": str(store.path), "players": [vars(r) for r in rows],
                          "left_out": [vars(m) for m in left_out]}))
        return code
    for m in left_out:
        print(f"unonet score standings: {store.path}: {m}", file=sys.stderr)
    if not rows:
        print(f"No match in {store.path} checks." if left_out else f"No matches recorded yet in {store.path}.")
        return code
    print(f"Standings ({store.path})")
    table = [["", "Player", "Key", "Matches", "Won", "Playing", "Rounds won", "Points"]]
    for i, r in enumerate(rows, 1):
        also = f" (was {', '.join(r.names[:-1])})" if len(r.names) > 1 else ""
        table.append([str(i), r.name + also, key_text(bytes.fromhex(r.key)), str(r.matches), str(r.wins),
                      str(r.playing), str(r.rounds_won), str(r.points)])
    _print_table(table, right=range(3, 8))
    return code


def _history(store: ScoreStore, args) -> int:
    matches = history(store, args.player)
    if args.json:
        print(json.dumps({"ok": True, "db": str(store.path), "matches": [m.to_json() for m in matches]}))
        return 0
    if not matches:
        who = f" for {args.player!r}" if args.player else ""
        print(f"No matches recorded{who} in {store.path}.")
        return 0
    for m in matches:
        print(_match_title(m))
        if m.problem:
            continue
        print("     " + "  ·  ".join(f"{n} {s}" for n, s in zip(m.side_names(), m.team_scores or m.scores)))
    return 0


def _match(store: ScoreStore, args, ref: str) -> int:
    m = match_view(store, ref)
    if args.json:
        print(json.dumps({"ok": not m.problem, "db": str(store.path), "match": m.to_json(rounds=True)}))
        return 0 if not m.problem else 1
    print(_match_title(m))
    if m.problem:
        return 1
    print(f"     table {m.table[:16]}, started {m.started}" + (f", finished {m.finished}" if m.finished else ""))
    print("     seats: " + ", ".join(f"{n} ({key_text(bytes.fromhex(k))})" for n, k in zip(m.names, m.keys)))
    table = [["Round", "Dealer", "Went out", "Points", *m.names, *(["Team A", "Team B"] if m.teams else [])]]
    notes = []
    for r, label in zip(m.round_lines, round_labels(m.round_lines)):
        if r.status != "verified":
            table.append([label, m.names[r.dealer], "disputed", "-", *map(str, r.scores), *map(str, r.team_scores)])
            notes.append(f"     round {label} disputed, not counted: {r.reason}")
            continue
        went_out = m.names[r.winner] if r.winner is not None else "blocked"
        table.append([label, m.names[r.dealer], went_out, str(r.points), *map(str, r.scores),
                      *map(str, r.team_scores)])
    if m.round_lines:
        _print_table(table, right=[0, 3, *range(4, len(table[0]))])
    else:  # (not a table's heading over nothing)
        print("     no round was scored")
    for note in notes:
        print(note)
    for v in m.voided:
        went = f"{m.names[v['winner']]} went out, {v['points']} points" if v["winner"] is not None else "blocked"
        print(f"     round {v['round']} as first recorded ({went}) was voided, not counted: {v['why']}")
    sides = m.side_names()
    if m.incomplete:
        print(f"     incomplete: {m.incomplete}; its last rounds and its result are not in this file "
              "(the scores are as far as it was recorded)")
    if m.winner is None:
        if m.scoring == "elimination":
            print("     to elimination: " + ", ".join(f"{n} {d}" for s, (n, d) in enumerate(zip(sides, m.to_target))
                                                 if s not in m.eliminated))
        else:
            # (was "to the target (500): Hal 500", which reads as Hal's score)
            print(f"     points still to score to reach {m.target}: "
                  + ", ".join(f"{n} {d}" for n, d in zip(sides, m.to_target)))
    print(f"     ledger head {m.head}")
    return 0


def _export(store: ScoreStore, args, ref: str) -> int:
    m = match_view(store, ref)
    if m.problem:  # as `match ID` and verify: a bad row found is exit 1, the file named
        print(f"unonet score export: {store.path}: match #{m.id} {m.problem}", file=sys.stderr)
        return 1
    sys.stdout.write(export_csv(m))
    return 0


def _verify(store: ScoreStore, args) -> int:
    report = verify(store)
    if args.json:
        print(json.dumps({"db": str(store.path), **report.to_json()}))
    elif report.ok:
        # (play15: "ok: scores2.db: 1 matches, 11 rounds ...")
        matches = f"{report.matches} match" + ("" if report.matches == 1 else "es")
        print(f"ok: {store.path}: {matches}, {plural(report.rounds, 'round')} ({report.disputed} disputed) "
              f"check against their chains, the rules and the players' co-signatures")
        for line in report.incomplete:
            print(f"note: {line}: its last rounds and its result are not in this file")
        if report.unanchored:
            shown = ", ".join(report.unanchored[:5]) + (" …" if len(report.unanchored) > 5 else "")
            print(f"note: {len(report.unanchored)} counted round(s) keep no player's co-signature, so their points "
                  f"rest on the scorekeeper's word alone: {shown}")
    else:
        print(f"unonet score verify: {store.path}: {report.problem}", file=sys.stderr)
    return 0 if report.ok else 1


_VIEWS = {"standings": _standings, "history": _history, "match": _match, "export": _export, "verify": _verify}


def _match_title(m: MatchView) -> str:
    if m.problem:
        return f"#{m.id:<3} {m.started[:16].replace('T', ' ')}  {m.match[:8]}  {m.problem}"
    how = f"{m.preset}, {len(m.names)} seats" + (", teams" if m.teams else "") + \
        (", elimination" if m.scoring == "elimination" else "") + f", to {m.target}"
    # an open match is "not finished": the file cannot tell a table still playing it from one
    # killed with its scorekeeper (evening18: a Flip match killed at its start read "0 rounds
    # in play" ever after)
    state = f"won by {m.winner_text}" if m.winner is not None else (
        "abandoned" if m.abandoned else f"incomplete: {m.incomplete}" if m.incomplete else "not finished")
    disputed = f" (+{m.disputed} disputed)" if m.disputed else ""
    counted = rounds_scored(m.rounds, m.disputed)
    return (f"#{m.id:<3} {m.started[:16].replace('T', ' ')}  {m.match[:8]}  {how}  "
            f"{counted}{disputed}  {state}")


def _print_table(rows: list[list[str]], right) -> None:
    right = set(right)
    widths = [max(len(r[c]) for r in rows if c < len(r)) for c in range(len(rows[0]))]
    for r in rows:
        cells = [r[c].rjust(widths[c]) if c in right else r[c].ljust(widths[c]) for c in range(len(r))]
        print("  " + "  ".join(cells).rstrip())
