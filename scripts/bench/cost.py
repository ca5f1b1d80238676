#!/usr/bin/env python3
"""CPU a round of the host and of a seat against their floor, and memory over a long match.

    python3 scripts/bench/cost.py [--rounds 8] [--skip 1] [--only 4|10]
    python3 scripts/bench/cost.py --memory 200
    python3 scripts/bench/cost.py --only 4 --profile 40 --party seat1   # a joining seat's profile
    python3 scripts/bench/cost.py --only 4 --sample                     # the host, sampled (pyinstrument)
    python3 scripts/bench/cost.py --only 4 --rounds 40 --cpu-sample 40  # the host, sampled on its CPU time

A real table on loopback, every party a process of its own, as on a LAN: `unonet host --no-ui
--json --bind 127.0.0.1` (its own seat a bot), `unonet join --no-ui --bot` for every other
seat, and with observers `unonet score --no-ui` (its own database); a target no round reaches,
so the match runs as long as the bench needs.  Each runs under scripts/bench/_counted.py, which
counts the primitive operations the process performs (Ed25519 signatures and verifications,
seals and their openings, SHA-256, HMAC-SHA256, the Noise link's encryptions and decryptions:
calls and bytes).  When the host announces round ``skip + 1`` the bench asks every process for
its CPU time, RSS and counts, and again ``--rounds`` rounds later.

The floor of a party is what a correct party must compute: its counted operations priced at
their unit costs, measured in this process in this run (per call and per byte, from two sizes).
Printed per round: CPU, floor, CPU/floor, and the operations; the issue's target is <= 2x.
Then the same per message (the host's: what it sent over its links; a seat's or an observer's:
what it received), which compares across runs whose rounds differ in length.
Configurations: 4 seats; 10 seats with 2 observers.

``--cpu-sample N``: ``--party``'s stacks sampled on its CPU time (SIGPROF, _counted.py), the shares
of its N costliest functions (inclusive and own) and its call tree down to 1 %: the shares as
they are (cProfile's overhead triples a Python call's cost, pyinstrument's shares are wall time).
A sample is a kernel tick of CPU (~4 ms): forty rounds give ~1,500 samples.

``--split``: each seat and observer also times its sans-IO work (the link's decryption and
decoding, its verifier, ledger and replay, the bot, the ``--json`` lines: _counted.py,
``UNONET_BENCH_SPLIT``); the rest of its CPU is its IO shell (trio, the socket calls, timers).

``--memory N``: 4 seats, RSS of the host and of a seat after round 1 and every N/4 rounds
to round N (goal: within 5 MB of round 1 after 200 rounds).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
PY = sys.executable
CPU_TOP = 40  # --cpu-sample: the functions listed
TARGET = 100_000  # the most a table takes; no round reaches it: the match lasts as long as the bench needs


# -- unit costs --------------------------------------------------------------------------
def _per_call(fn, seconds: float = 0.05) -> float:
    """CPU seconds per call of ``fn`` (the best of three batches)."""
    best = float("inf")
    n = 1
    while True:  # size a batch
        t = time.process_time()
        for _ in range(n):
            fn()
        if time.process_time() - t > seconds / 10 or n >= 1 << 16:
            break
        n *= 4
    for _ in range(3):
        t = time.process_time()
        for _ in range(n):
            fn()
        best = min(best, (time.process_time() - t) / n)
    return best


def unit_costs() -> dict[str, tuple[float, float]]:
    """op -> (s per call, s per byte), fitted from a small and a large input."""
    from unonet.fair import _encoding as enc
    from unonet.fair import _seal
    from unonet.fair._identity import Identity, _ed25519_ok
    from unonet.protocol._noise import CipherState

    me, other = Identity.generate(), Identity.generate()
    key = os.urandom(32)
    ad = os.urandom(40)
    small, large = 64, 4096

    def fit(make) -> tuple[float, float]:
        t1, t2 = _per_call(make(small)), _per_call(make(large))
        b = max(0.0, (t2 - t1) / (large - small))
        return max(0.0, t1 - b * small), b

    def sign(n):
        m = os.urandom(n)
        return lambda: me.sign(m)

    def verify(n):
        m = os.urandom(n)
        s = me.sign(m)
        pk = me.public.sign_key
        return lambda: _ed25519_ok(pk, s, m)

    def seal(n):
        m = os.urandom(n)
        return lambda: _seal.seal(m, recipient_dh=other.public.dh_key, ad=ad, randbytes=os.urandom)

    def open_(n):
        blob = _seal.seal(os.urandom(n), recipient_dh=other.public.dh_key, ad=ad, randbytes=os.urandom)
        return lambda: _seal._open_sealed(blob, identity=other, ad=ad)  # (the decryption: never found)

    def sha(n):
        m = os.urandom(n)
        return lambda: enc.sha256(m)

    def hmac_(n):
        m = os.urandom(n)
        return lambda: enc.hmac_sha256(key, m)

    def encrypt(n):
        m, cs = os.urandom(n), CipherState(key)
        return lambda: cs.encrypt_with_ad(b"", m)

    def decrypt(n):
        ct = CipherState(key).encrypt_with_ad(b"", os.urandom(n))
        rx = CipherState(key)

        def one():
            rx.n = 0  # the one nonce the ciphertext was made under
            return rx.decrypt_with_ad(b"", ct)
        return one

    return {"sign": fit(sign), "verify": fit(verify), "seal": fit(seal), "open": fit(open_),
            "sha256": fit(sha), "hmac": fit(hmac_), "link-encrypt": fit(encrypt), "link-decrypt": fit(decrypt)}


def floor_of(counts: dict[str, list[int]], units: dict[str, tuple[float, float]]) -> float:
    return sum(calls * units[op][0] + size * units[op][1] for op, (calls, size) in counts.items() if op in units)


# -- the table -----------------------------------------------------------------------------
def host_port(host_log: Path) -> int:
    """The port in the host's first `--json` line (its table open), waited for up to 30 s."""
    for _ in range(1500):
        lines = host_log.read_text().splitlines()
        if lines and lines[0].endswith("}"):
            return json.loads(lines[0])["port"]
        time.sleep(0.02)
    raise SystemExit("the host did not open its table")


def rounds_started(host_log: Path) -> int:
    """Rounds the host has announced so far (its `--json` lines, complete ones only)."""
    n = 0
    with open(host_log) as f:
        for line in f:
            if line.startswith("{") and line.rstrip().endswith("}") and '"t": "round"' in line:
                n += 1
    return n


class Table:
    """A host, its joiners and observers, each under _counted.py, each with its own HOME."""

    def __init__(self, work: Path, seats: int, observers: int, profile: int = 0, party: str = "host",
                 split: bool = False) -> None:
        self.work, self.seats, self.observers, self.profile = work, seats, observers, profile
        self.party, self.split = party, split
        self.extra_env: dict[str, dict[str, str]] = {}  # label -> more environment for that process
        self.procs: list[tuple[str, subprocess.Popen, Path]] = []
        self.host_log = work / "host.jsonl"
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def _spawn(self, label: str, args: list[str], stdout) -> subprocess.Popen:
        home = self.work / label
        home.mkdir()
        out = self.work / f"{label}.counts"
        env = dict(self.env, HOME=str(home), UNONET_HOME=str(home), **self.extra_env.get(label, {}))
        if self.profile and label == self.party:
            # cProfile (or pyinstrument: --sample) between the two snapshots (_counted.py)
            env["UNONET_BENCH_PROFILE"] = {-1: "sample", -2: "cpu"}.get(self.profile, "1")
        if self.split and label != "host":
            env["UNONET_BENCH_SPLIT"] = "1"  # the sans-IO work timed apart from the shell (_counted.py)
        proc = subprocess.Popen([PY, str(HERE / "_counted.py"), str(out), *args], stdout=stdout,
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
        self.procs.append((label, proc, out))
        return proc

    def start(self) -> None:
        log = open(self.host_log, "w")
        self._spawn("host", ["host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0",
                             "--players", str(self.seats), "--target", str(TARGET), "--name", "Hal",
                             "--observers", str(max(self.observers, 1)),
                             "--discovery-port", str(random.randint(40000, 60000))], log)
        address = f"127.0.0.1:{host_port(self.host_log)}"
        for k in range(self.observers):
            self._spawn(f"observer{k}", ["score", "--no-ui", "--json", "--db", str(self.work / f"obs{k}.db"),
                                         "--name", f"obs{k}", address], subprocess.DEVNULL)
        time.sleep(0.5 if self.observers else 0)  # observers attached before the seats fill
        for k in range(1, self.seats):
            self._spawn(f"seat{k}", ["join", "--no-ui", "--json", "--bot", "--name", f"s{k}", address],
                        subprocess.DEVNULL)

    def rounds_started(self) -> int:
        return rounds_started(self.host_log)

    def wait_round(self, n: int, limit: float) -> None:
        end = time.monotonic() + limit
        while self.rounds_started() < n:
            if time.monotonic() > end:
                raise SystemExit(f"round {n} did not start within {limit:g} s")
            if self.procs[0][1].poll() is not None:
                raise SystemExit(f"the host ended (exit {self.procs[0][1].returncode}) before round {n}")
            time.sleep(0.01)

    def snapshot(self) -> None:
        for _, proc, _ in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGUSR1)

    def snapshots(self) -> dict[str, list[dict]]:
        out = {}
        for label, _, path in self.procs:
            out[label] = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        return out

    def stop(self) -> None:
        for _, proc, _ in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for _, proc, _ in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def run(seats: int, observers: int, marks: list[int], limit: float, profile: int = 0,
        party: str = "host", split: bool = False) -> dict[str, list[dict]]:
    """Snapshots of every process after each round in ``marks`` (``profile``: print ``party``'s
    ``profile`` costliest functions between the first two marks, by own time and cumulative)."""
    work = Path(tempfile.mkdtemp(prefix="unonet-bench-cost-"))
    table = Table(work, seats, observers, profile, party, split)
    try:
        table.start()
        for k, mark in enumerate(marks):
            table.wait_round(mark + 1, limit)  # round mark+1 starts: round mark is over
            table.snapshot()
            want = k + 1
            end = time.monotonic() + 10
            while time.monotonic() < end and any(len(s) < want for s in table.snapshots().values()):
                time.sleep(0.01)
        snaps = table.snapshots()
        prof = work / f"{party}.counts.prof"
        sampled = work / f"{party}.counts.txt"
        if profile < 0 and sampled.exists():
            keep = Path(tempfile.gettempdir()) / f"unonet-cost-{party}-{seats}.txt"
            shutil.copy(sampled, keep)
            print(f"\n{party}'s sampled profile (pyinstrument, wall time: the idle wait is trio's epoll): {keep}")
        if profile == -2 and (work / f"{party}.counts.cpu.json").exists():
            cpu_profile(work / f"{party}.counts.cpu.json", party, CPU_TOP)
        if profile > 0 and prof.exists():
            import pstats

            for order in ("tottime", "cumulative"):
                print(f"\n{party}'s profile (cProfile: its overhead inflates CPU), by {order}:")
                pstats.Stats(str(prof)).sort_stats(order).print_stats(profile)
            keep = Path(tempfile.gettempdir()) / f"unonet-cost-{party}-{seats}.prof"
            shutil.copy(prof, keep)
            print(f"(the whole profile: {keep}, for python -m pstats)")
        return snaps
    finally:
        table.stop()
        shutil.rmtree(work, ignore_errors=True)


def cpu_profile(path: Path, party: str, top: int) -> None:
    """A CPU-time sampled profile (``--cpu-sample``): shares by function, then the call tree."""
    rows = [(tuple(stack), n) for stack, n in json.loads(path.read_text())]
    total = sum(n for _, n in rows) or 1
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    tree: dict[tuple[str, ...], int] = {}
    for stack, n in rows:
        for name in set(stack):
            inclusive[name] = inclusive.get(name, 0) + n
        own[stack[-1]] = own.get(stack[-1], 0) + n
        for d in range(1, len(stack) + 1):
            tree[stack[:d]] = tree.get(stack[:d], 0) + n
    print(f"\n{party}'s CPU, sampled ({total} samples of its CPU time), by function, inclusive / own:")
    for name, n in sorted(inclusive.items(), key=lambda x: -x[1])[:top]:
        print(f"  {n / total * 100:5.1f} % / {own.get(name, 0) / total * 100:4.1f} %  {name}")
    print("  by own share: " + ", ".join(
        f"{name} {n / total * 100:.1f} %" for name, n in sorted(own.items(), key=lambda x: -x[1])[:top // 2]))
    print(f"{party}'s call tree (each line >= 1 %, the trio frames above the tasks left out):")

    def walk(prefix: tuple[str, ...], depth: int) -> None:
        kids = sorted(((k, n) for k, n in tree.items() if len(k) == len(prefix) + 1 and k[:-1] == prefix),
                      key=lambda x: -x[1])
        for k, n in kids:
            if n / total < 0.01:
                continue
            skip = "trio/" in k[-1] or "_run.py" in k[-1] or "runpy" in k[-1] or "_counted.py" in k[-1] \
                or "cli.py" in k[-1] or "__main__" in k[-1] or "session_cli" in k[-1]
            if not skip:
                print(f"  {'  ' * depth}{n / total * 100:5.1f} %  {k[-1]}")
            walk(k, depth if skip else depth + 1)

    walk((), 0)


def delta(a: dict, b: dict) -> tuple[float, float, dict[str, list[int]]]:
    """CPU, of which in the kernel (system time: on loopback a send's delivery is charged to the
    sender), and the counts, between two snapshots."""
    counts = {op: [v[0] - a["counts"].get(op, [0, 0])[0], v[1] - a["counts"].get(op, [0, 0])[1]]
              for op, v in b["counts"].items()}
    return b["cpu"] - a["cpu"], b.get("sys", 0.0) - a.get("sys", 0.0), counts


def split_report(rows: list[tuple[dict, dict]], rounds: int) -> None:
    """A seat's or an observer's CPU a round by part (``--split``): the sans-IO work, timed inside
    the process, and the rest, its IO shell (trio's scheduling, the socket calls, timers, tasks)."""
    parts: dict[str, float] = {}
    cpu = msgs = reads = 0.0
    for a, b in rows:
        cpu += b["cpu"] - a["cpu"]
        msgs += b["counts"].get("link-decrypt", [0])[0] - a["counts"].get("link-decrypt", [0])[0]
        reads += b["counts"].get("socket-reads", [0])[0] - a["counts"].get("socket-reads", [0])[0]
        for part, (t, _) in b.get("split", {}).items():
            parts[part] = parts.get(part, 0.0) + t - a.get("split", {}).get(part, [0.0])[0]
    if not parts:
        return
    n = len(rows) * rounds
    tasks = {p[5:]: t for p, t in parts.items() if p.startswith("task ")}
    gcs = {p: t for p, t in parts.items() if p.startswith("gc ")}
    work = {p: t for p, t in parts.items() if not p.startswith(("task ", "gc "))}
    shell = cpu - sum(work.values())
    print(f"    by part, a round ({msgs / n:.0f} messages received in {reads / n:.0f} socket reads; a message's CPU "
          f"{cpu / msgs * 1e6:.0f} us): "
          + ", ".join(f"{p} {t / n * 1000:.1f} ms" for p, t in sorted(work.items()))
          + f"; the rest, the IO shell {shell / n * 1000:.1f} ms ({shell / cpu * 100:.0f} %, "
            f"{shell / msgs * 1e6:.0f} us a message, {shell / reads * 1e6:.0f} us a read)")
    if tasks:
        inside = sum(tasks.values())
        print("    the shell: trio's scheduler, IO wait and the kernel, outside every task step, "
              f"{(cpu - inside) / n * 1000:.1f} ms; the tasks' own steps but for the work above: "
              + ", ".join(f"{name} {t / n * 1000:.1f} ms" for name, t in sorted(tasks.items(), key=lambda x: -x[1])
                          if name not in ("reader",))
              + f", reader {(tasks.get('reader', 0.0) - sum(work.values())) / n * 1000:.1f} ms")
    if gcs:
        print("    the cycle collector, wherever it ran (inside the parts above): "
              + ", ".join(f"generation {p[3:]} {t / n * 1000:.1f} ms" for p, t in sorted(gcs.items())))


def cpu_report(seats: int, observers: int, rounds: int, skip: int, units, limit: float,
               profile: int = 0, party: str = "host", split: bool = False) -> None:
    snaps = run(seats, observers, [skip, skip + rounds], limit, profile, party, split)
    print(f"\n{seats} seats (the host's own seat a bot in its process, {seats - 1} `join --bot`), "
          f"{observers} observers: rounds {skip + 1}..{skip + rounds}, per round")
    kinds = {"host": ["host"], "seat": [k for k in snaps if k.startswith("seat")],
             "observer": [k for k in snaps if k.startswith("observer")]}
    for kind, labels in kinds.items():
        rows, pairs = [], []
        for label in labels:
            s = snaps[label]
            if len(s) < 2:
                print(f"  {label}: no snapshot (it ended early)")
                continue
            cpu, sys_cpu, counts = delta(s[0], s[1])
            pairs.append((s[0], s[1]))
            rows.append((cpu / rounds, floor_of(counts, units) / rounds, counts, sys_cpu / rounds))
        if not rows:
            continue
        cpu = sum(r[0] for r in rows) / len(rows)
        fl = sum(r[1] for r in rows) / len(rows)
        sys_cpu = sum(r[3] for r in rows) / len(rows)
        ops = {op: sum(r[2].get(op, [0, 0])[0] for r in rows) / len(rows) / rounds for op in units}
        what = kind if len(rows) == 1 else f"{kind} (mean of {len(rows)})"
        print(f"  {what:<22} CPU {cpu * 1000:7.1f} ms   floor {fl * 1000:6.1f} ms   "
              f"ratio {cpu / fl if fl else float('inf'):5.1f}x   (target <= 2x)   "
              f"of the CPU in the kernel {sys_cpu * 1000:.1f} ms")
        print("    ops a round: " + ", ".join(f"{op} {n:.0f}" for op, n in ops.items() if n))
        # a round's CPU moves with its length: per message it compares across runs (the host's
        # messages are its encryptions over its links; a seat's and an observer's, its decryptions)
        msgs = ops["link-encrypt"] / (seats - 1 + observers) if kind == "host" else ops["link-decrypt"]
        if msgs:
            print(f"    a message ({msgs:.0f} a round): CPU {cpu / msgs * 1e6:.0f} us, floor {fl / msgs * 1e6:.0f} us")
        if split and kind != "host":
            split_report(pairs, rounds)


def memory_report(rounds: int, limit: float) -> None:
    step = max(1, rounds // 4)
    marks = [1] + list(range(step, rounds + 1, step))
    if marks[-1] != rounds:
        marks.append(rounds)
    marks = sorted(set(marks))
    snaps = run(4, 0, marks, limit)
    print("\nmemory, 4 seats (host + 3 `join --no-ui --bot`), RSS after round: " + ", ".join(map(str, marks)))
    for label in ("host", "seat1", "seat2", "seat3"):
        s = snaps.get(label, [])
        mbs = [x["rss_kb"] / 1024 for x in s]
        grow = f"   growth {mbs[-1] - mbs[0]:+.1f} MB (goal: within 5 MB after 200 rounds)" if len(mbs) > 1 else ""
        print(f"  {label:<6} " + "  ".join(f"{m:6.1f}" for m in mbs) + " MB" + grow)
        if s and "growth" in s[-1]:  # UNONET_BENCH_TRACE=1: what grew, by line (tracemalloc)
            for g in s[-1]["growth"]:
                print(f"      {g}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=8, help="rounds measured")
    ap.add_argument("--skip", type=int, default=1, help="rounds played before measuring (start-up, match start)")
    ap.add_argument("--only", type=int, choices=[4, 10], help="one configuration")
    ap.add_argument("--memory", type=int, metavar="N", help="instead: RSS after round 1 and up to round N")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="also print a party's N costliest functions (cProfile; inflates its CPU)")
    ap.add_argument("--sample", action="store_true",
                    help="profile --party with pyinstrument (sampling, little overhead; if installed) instead")
    ap.add_argument("--cpu-sample", type=int, default=0, metavar="N",
                    help="profile --party by sampling its stacks on its CPU time: its N costliest functions "
                         "and its call tree")
    ap.add_argument("--party", default="host", metavar="LABEL",
                    help="the party --profile profiles: host (default), seat1, seat2, ..., observer0, ...")
    ap.add_argument("--split", action="store_true",
                    help="a seat's and an observer's CPU by part: the sans-IO work and the IO shell")
    ap.add_argument("--limit", type=float, default=600, help="seconds a round may take before the bench gives up")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    if args.memory:
        memory_report(args.memory, args.limit)
        return 0
    if args.sample:
        args.profile = -1
    if args.cpu_sample:
        global CPU_TOP
        CPU_TOP, args.profile = args.cpu_sample, -2
    units = unit_costs()
    print("unit costs (this process, this run): " + ", ".join(
        f"{op} {c * 1e6:.1f} us + {b * 1e9:.2f} ns/B" for op, (c, b) in units.items()))
    for seats, observers in ((4, 0), (10, 2)):
        if args.only in (None, seats):
            cpu_report(seats, observers, args.rounds, args.skip, units, args.limit, args.profile, args.party,
                       args.split)
    return 0


if __name__ == "__main__":
    sys.exit(main())
