"""The `unonet` command line.  Every command reports bad input in one line and exits 2."""

from __future__ import annotations

import argparse
import json
import sys

from . import __version__

BOT_NAMES = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun"]


class UsageError(Exception):
    """Bad input on the command line or in a file: one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _house_list(values) -> list[str]:
    out = []
    for v in values or []:
        out += [x for x in v.split(",") if x.strip()]
    return out


def _rules_from(args):
    """The rule set the options name, checked against ``args.players``."""
    from .engine import RulesError, make_rules

    try:
        rules = make_rules(args.rules, _house_list(args.house), deck=args.deck, teams=args.teams,
                           scoring=args.scoring, target=args.target)
        rules.check_players(args.players)
        return rules
    except RulesError as e:
        raise UsageError(str(e)) from None


def _add_rule_options(p) -> None:
    p.add_argument("--rules", default="official", metavar="PRESET", help="rules preset (see `unonet rules`)")
    p.add_argument("--house", action="append", metavar="R1,R2", help="extra house rules, comma separated")
    p.add_argument("--deck", choices=["classic", "2018", "office", "power", "flip"],
                   help="deck (default: the preset's)")
    p.add_argument("--teams", action="store_true", help="partners opposite, scored as teams")
    p.add_argument("--scoring", default="standard", choices=["standard", "elimination"])
    p.add_argument("--target", type=int, default=500, help="match target (default 500)")


def cmd_rules(args) -> int:
    from .engine import HOUSE_RULES, PRESETS

    if args.json:
        print(json.dumps({
            "presets": [{"name": p.name, "aliases": list(p.aliases), "summary": p.summary,
                         "deck": p.deck, "house": sorted(p.house), "seed": p.seed} for p in PRESETS],
            "house_rules": [{"name": k, "summary": v} for k, v in HOUSE_RULES.items()],
        }, indent=2))
        return 0
    print("Presets (--rules NAME):")
    for p in PRESETS:
        alias = f" (also: {', '.join(p.aliases)})" if p.aliases else ""
        print(f"  {p.name:<16}{p.summary}{alias}")
    print("House rules (--house NAME,NAME):")
    for k, v in HOUSE_RULES.items():
        print(f"  {k:<16}{v}")
    return 0


def cmd_scenario(args) -> int:
    from .engine import ScenarioError, run_scenario

    try:
        with open(args.file, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise UsageError(f"cannot read scenario {args.file!r}: {e.strerror}") from None
    except (ValueError, RecursionError) as e:  # JSONDecodeError, bad UTF-8, huge ints, deep nesting
        reason = "nested too deeply" if isinstance(e, RecursionError) else str(e).splitlines()[0]
        raise UsageError(f"scenario {args.file!r} is not valid JSON: {reason}") from None
    try:
        status, out = run_scenario(data)
    except (ScenarioError, RecursionError) as e:
        reason = "nested too deeply" if isinstance(e, RecursionError) else str(e)
        raise UsageError(f"scenario {args.file!r}: {reason}") from None
    print(json.dumps(out, ensure_ascii=False))
    return status


def cmd_simulate(args) -> int:
    from .sim import simulate

    rules = _rules_from(args)
    bots = [b.strip() for b in args.bot.split(",") if b.strip()]
    for b in bots:
        if b not in ("random", "heuristic"):
            raise UsageError(f"unknown bot {b!r} (known: random, heuristic)")
    if args.rounds is not None and args.rounds < 0 or args.matches is not None and args.matches < 0:
        raise UsageError("--rounds and --matches take a count of 0 or more")
    rounds, matches = args.rounds, args.matches
    if rounds is None and matches is None:
        rounds = 1 if args.watch else 100
    names = BOT_NAMES[: args.players]
    kw = {}
    if args.watch:
        from .watch import Watcher

        delay = args.delay if args.delay is not None else (0.4 if sys.stdout.isatty() else 0.0)
        watcher = Watcher(names, delay=delay)
        kw = {"on_events": watcher.on_events, "on_round": watcher.on_round}
    if args.transcript:
        from .fairsim import transcript_factory

        kw.update(transcript_factory(args.transcript))
    stats = simulate(rules, args.players, rounds=rounds, matches=matches, seed=args.seed, bots=bots, **kw)
    out = stats.as_dict(by_match=matches is not None)
    if args.json:
        out.update(players=args.players, seed=args.seed, bots=bots, rules=rules.describe())
        print(json.dumps(out))
        return 0
    print(f"{rules.describe()}; {args.players} players; bots: {', '.join(bots)}")
    print(f"{out['rounds']} rounds, {out['matches']} matches, {out['actions']} actions in "
          f"{out['seconds']:.2f} s ({out['rounds_per_s']:.0f} rounds/s, {out['actions_per_s']:.0f} actions/s)")
    label = "match wins" if matches is not None else "round wins"
    if rules.teams:
        print(f"{label} per team: " + ", ".join(f"team {t}: {w}" for t, w in enumerate(out["team_wins"])))
    wins = out["match_wins"] if matches is not None else out["round_wins"]
    print(f"{label} per seat: " + ", ".join(f"{names[s]} (seat {s}, {bots[s % len(bots)]}): {w}"
                                              for s, w in enumerate(wins)) if not (rules.teams and matches) else "")
    if out["blocked_rounds"]:
        print(f"{out['blocked_rounds']} rounds ended blocked (nothing to draw, nobody could play)")
    return 0


def cmd_play(args) -> int:
    rules = _rules_from(args)
    if not args.name.strip() or len(args.name) > 16:
        raise UsageError(f"--name must be 1..16 characters, not {args.name!r}")
    from .tui import run_play

    return run_play(rules, args)


def cmd_audit(args) -> int:
    from .fair.audit_cli import run_audit_cli

    return run_audit_cli(args.file, args.json)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="unonet", description="UNO played for real across a LAN.")
    p.add_argument("--version", action="version", version=f"unonet {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    r = sub.add_parser("rules", help="list the rule presets and house rules")
    r.add_argument("--json", action="store_true", help="one JSON object")
    r.set_defaults(func=cmd_rules)

    s = sub.add_parser("scenario", help="run a stacked-deck rule scenario (JSON) and print the state")
    s.add_argument("file", metavar="FILE")
    s.set_defaults(func=cmd_scenario)

    m = sub.add_parser("simulate", help="bot-versus-bot rounds or matches, with a summary")
    m.add_argument("--players", type=int, default=4, help="2..10 (default 4)")
    g = m.add_mutually_exclusive_group()
    g.add_argument("--rounds", type=int, help="play N single rounds (default 100; 1 with --watch)")
    g.add_argument("--matches", type=int, help="play N whole matches to the target")
    m.add_argument("--seed", type=int, default=None, help="seed for a replayable run")
    _add_rule_options(m)
    m.add_argument("--bot", default="heuristic", metavar="KIND[,KIND…]",
                   help="random or heuristic, one per seat, cycled (default heuristic)")
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.add_argument("--watch", action="store_true", help="draw the table as the bots play")
    m.add_argument("--delay", type=float, default=None, help="seconds between actions with --watch")
    m.add_argument("--transcript", metavar="DIR", help="write one fair-play transcript per round into DIR")
    m.set_defaults(func=cmd_simulate)

    au = sub.add_parser("audit", help="re-verify a fair-play transcript offline")
    au.add_argument("file", metavar="TRANSCRIPT", help="a JSON Lines transcript (round or match)")
    au.add_argument("--json", action="store_true", help="one JSON object")
    au.set_defaults(func=cmd_audit)

    pl = sub.add_parser("play", help="play a match against bots in the full-screen client")
    pl.add_argument("--players", type=int, default=4, help="2..10 seats, you and bots (default 4)")
    _add_rule_options(pl)
    pl.add_argument("--name", default="You", help="your name at the table")
    pl.add_argument("--seed", type=int, default=None, help="seed for a replayable deal")
    pl.add_argument("--bot", default="heuristic", choices=["random", "heuristic"], help="bot kind")
    pl.set_defaults(func=cmd_play)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return args.func(args)
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("unonet: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
