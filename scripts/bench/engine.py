"""Engine benchmark: random-play 4-player rounds per second, unonet beside RLCard 1.2.0.

    python3 scripts/bench/engine.py [--seconds 2] [--reps 5] [--players 4] [--profile]

RLCard is not a project dependency: the first run makes `.bench-venv/` (rlcard==1.2.0 and
unonet, editable: compiled by mypyc where a C compiler is, see setup.py) and re-runs itself
there.  Both engines run one after the other in alternating repetitions, pinned to one core, so
they see the same machine; the figure reported is the median of the repetitions.  When the
compiled engine runs, the pure one is measured too, in the same repetitions, by a worker
process started with ``UNONET_PURE=1`` (the engine's build is fixed at import).

The policy is RLCard's random agent on both sides: a random playable card if there is one, else
draw, and the drawn card is played when it fits (RLCard does that inside its draw action; unonet
plays it as a second action).  The decisions RLCard lacks — UNO calls, catches, challenges, the
colour of a wild — are coin flips on the unonet side (`RandomBot`).  unonet plays the full rules:
the Wild Draw Four challenge, UNO calls and catches, scoring, events for every action.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pathlib
import pstats
import random
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
VENV = ROOT / ".bench-venv"


def ensure_rlcard() -> None:
    try:
        import rlcard  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("UNONET_BENCH_REEXEC"):
        sys.exit("bench: rlcard is still not importable inside .bench-venv")
    py = VENV / "bin" / "python"
    if not py.exists():
        print("bench: creating .bench-venv with rlcard==1.2.0 (once)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "rlcard==1.2.0", "-e", str(ROOT)], check=True)
    env = dict(os.environ, UNONET_BENCH_REEXEC="1")
    os.execve(str(py), [str(py), *sys.argv], env)


# ---------------------------------------------------------------- unonet
def unonet_batch(seconds: float, players: int, seed: int, catch: float = 0.5):
    from unonet.engine import RandomBot, Round, make_rules, play_round

    rules = make_rules()
    rng = random.Random(seed)
    bots = [RandomBot(rng.getrandbits(32), catch=catch) for _ in range(players)]
    rounds = actions = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        for _ in range(50):
            rnd = Round.deal(rules, players, rounds % players, rng.getrandbits(64))
            rnd.start()
            play_round(rnd, bots)
            rounds += 1
            actions += rnd.actions
    return rounds, actions, time.perf_counter() - start


# ---------------------------------------------------------------- RLCard
def rlcard_batch(seconds: float, players: int, seed: int):
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=players)
    game.np_random = np.random.RandomState(seed)
    rng = random.Random(seed)
    rounds = actions = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        for _ in range(50):
            game.init_game()
            steps = 0
            while not game.is_over() and steps < 5000:
                legal = game.get_legal_actions()
                game.step(legal[int(rng.random() * len(legal))])
                steps += 1
            rounds += 1
            actions += steps
    return rounds, actions, time.perf_counter() - start


def profile_unonet(players: int, rounds: int = 1500) -> str:
    from unonet.engine import RandomBot, Round, make_rules, play_round

    rules = make_rules()
    rng = random.Random(1)
    bots = [RandomBot(rng.getrandbits(32)) for _ in range(players)]
    prof = cProfile.Profile()
    prof.enable()
    for i in range(rounds):
        rnd = Round.deal(rules, players, i % players, rng.getrandbits(64))
        rnd.start()
        play_round(rnd, bots)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(14)
    return buf.getvalue()


def pure_worker() -> None:
    """``--worker``: unonet batches on request, one JSON line in, one out (the pure engine)."""
    for line in sys.stdin:
        seconds, players, seed, catch = json.loads(line)
        print(json.dumps(unonet_batch(seconds, players, seed, catch)), flush=True)


class PureEngine:
    """The pure engine in a worker process beside the compiled one in this process."""

    def __init__(self) -> None:
        env = dict(os.environ, UNONET_PURE="1")
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)

    def batch(self, seconds: float, players: int, seed: int, catch: float = 0.5):
        self.proc.stdin.write(json.dumps([seconds, players, seed, catch]) + "\n")
        self.proc.stdin.flush()
        return tuple(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def main() -> None:
    if sys.argv[1:] == ["--worker"]:
        return pure_worker()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds per repetition per engine")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--profile", action="store_true", help="print where unonet's time goes")
    ap.add_argument("--no-rlcard", action="store_true", help="measure unonet alone")
    args = ap.parse_args()
    if not args.no_rlcard:
        ensure_rlcard()
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        core = "pinned to one core"
    except (AttributeError, OSError):
        core = "unpinned"
    from unonet.engine import COMPILED

    build = "compiled (mypyc)" if COMPILED else "pure Python"
    pure = PureEngine() if COMPILED else None
    results: dict[str, list] = {"unonet": [], "rlcard": [], "nocatch": [], "pure": []}
    unonet_batch(0.3, args.players, 0)  # warm-up
    if pure is not None:
        pure.batch(0.3, args.players, 0)
    if not args.no_rlcard:
        rlcard_batch(0.3, args.players, 0)
    for rep in range(args.reps):
        results["unonet"].append(unonet_batch(args.seconds, args.players, rep + 1))
        if pure is not None:
            results["pure"].append(pure.batch(args.seconds, args.players, rep + 1))
        results["nocatch"].append(unonet_batch(args.seconds / 2, args.players, rep + 1, catch=0.0))
        if not args.no_rlcard:
            results["rlcard"].append(rlcard_batch(args.seconds, args.players, rep + 1))
    if pure is not None:
        pure.close()

    def summary(runs):
        rps = statistics.median(r / s for r, a, s in runs)
        aps = statistics.median(a / s for r, a, s in runs)
        per = sum(a for r, a, s in runs) / sum(r for r, a, s in runs)
        return rps, aps, per

    print(f"random-play {args.players}-player rounds, {args.reps} x {args.seconds:.1f} s each, {core}, "
          f"Python {sys.version.split()[0]}; the unonet engine here: {build}")
    u = summary(results["unonet"])
    c = summary(results["nocatch"])
    print(f"  unonet  {u[0]:9.0f} rounds/s  {u[1]:10.0f} actions/s  {u[2]:6.1f} actions/round  ({build})")
    p = summary(results["pure"]) if results["pure"] else None
    if p is not None:
        print(f"  unonet  {p[0]:9.0f} rounds/s  {p[1]:10.0f} actions/s  {p[2]:6.1f} actions/round  (pure Python)")
    print(f"  (unonet {build}, nobody catches a forgotten UNO: {c[0]:.0f} rounds/s, {c[2]:.1f} actions/round)")
    if results["rlcard"]:
        r = summary(results["rlcard"])
        print(f"  rlcard  {r[0]:9.0f} rounds/s  {r[1]:10.0f} actions/s  {r[2]:6.1f} actions/round")
        print(f"  ratio unonet ({build})/rlcard: {u[0] / r[0]:.2f}x rounds/s, {u[1] / r[1]:.2f}x actions/s"
              f"  (without catches: {c[0] / r[0]:.2f}x rounds/s)")
        if p is not None:
            print(f"  ratio unonet (pure Python)/rlcard: {p[0] / r[0]:.2f}x rounds/s, {p[1] / r[1]:.2f}x actions/s")
    if p is not None:
        print(f"  compiled/pure: {u[0] / p[0]:.2f}x rounds/s")
    if args.profile:
        print(profile_unonet(args.players))


if __name__ == "__main__":
    main()
