"""Run `unonet` (as `python -m unonet` would) counting the primitive operations it performs.

    python scripts/bench/_counted.py OUT.jsonl ARGS...

For scripts/bench/cost.py.  Before the command starts, every unonet module is imported and each
Python wrapper of a primitive (the fair layer's Ed25519 signing and verifying, seals and their
openings, SHA-256 and HMAC-SHA256, the Noise link's encryptions and decryptions) is replaced by
one that counts its calls and bytes.  On SIGUSR1 one line goes to OUT: this process's CPU time
(`time.process_time`, all threads), its RSS and the counts so far; the bench sends it at the
moments it compares.  The counting adds well under a microsecond a call.

``UNONET_BENCH_RECORD=FILE``: every read chunk of a link and every plaintext it decrypts go to FILE
(msgpack: ``["chunk"]`` before each read's messages, ``["pt", bytes]`` per message, and the
process's identity and its peer's Noise key first), for scripts/bench/receive.py to replay.

``UNONET_BENCH_PROFILE=1``: the first SIGUSR1 also starts cProfile, the second stops it and
writes its stats beside OUT (``OUT.prof``): where the CPU between the two snapshots went.
``UNONET_BENCH_PROFILE=cpu``: the main thread's stacks sampled on its CPU time instead (SIGPROF,
``ITIMER_PROF``: a sample per ~4 ms of CPU at the kernel's tick; no idle wait, nothing inflated),
beside OUT (``OUT.cpu.json``: [[stack, samples], ...], outermost frame first).
``UNONET_BENCH_PROFILE=sample``: pyinstrument instead (if installed), sampling every 0.5 ms:
the call tree and the functions by own time, beside OUT (``OUT.txt``), with a few percent of
overhead where cProfile's triples the CPU (its shares are wall time: the idle wait shows as
trio's `epoll` wait).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import runpy
import signal
import sys
import time

COUNTS: dict[str, list[int]] = {}  # op -> [calls, bytes]


def _counting(op: str, fn, size):
    cell = COUNTS.setdefault(op, [0, 0])

    @functools.wraps(fn)
    def counted(*a, **kw):
        cell[0] += 1
        cell[1] += size(a, kw)
        return fn(*a, **kw)

    return counted


def _rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def install(out: str) -> None:
    for name in ("unonet.cli", "unonet.net", "unonet.net._game", "unonet.net._host", "unonet.net._join",
                 "unonet.net.session_cli", "unonet.net._observe", "unonet.store.score_cli", "unonet.table",
                 "unonet.fair", "unonet.fair._seal", "unonet.fair._encoding", "unonet.fair._identity",
                 "unonet.protocol._noise"):
        importlib.import_module(name)
    ident = sys.modules["unonet.fair._identity"]
    seal = sys.modules["unonet.fair._seal"]
    enc = sys.modules["unonet.fair._encoding"]
    noise = sys.modules["unonet.protocol._noise"]

    def parts(a, kw):
        return sum(len(p) for p in a)

    swaps = {
        ident._ed25519_ok: _counting("verify", ident._ed25519_ok, lambda a, kw: len(a[2])),
        seal.seal: _counting("seal", seal.seal, lambda a, kw: len(a[0])),
        # (a blob this process sealed is not opened: `open_sealed` finds it; the opens counted are real)
        seal._open_sealed: _counting("open", seal._open_sealed, lambda a, kw: len(a[0])),
        seal.open_with_ephemeral: _counting("open", seal.open_with_ephemeral, lambda a, kw: len(a[0])),
        enc.sha256: _counting("sha256", enc.sha256, parts),
        enc.hmac_sha256: _counting("hmac", enc.hmac_sha256, lambda a, kw: parts(a[1:], kw)),
    }
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("unonet"):
            for key, value in list(vars(mod).items()):
                try:
                    new = swaps.get(value)
                except TypeError:  # an unhashable global
                    continue
                if new is not None:
                    setattr(mod, key, new)
    ident.Identity.sign = _counting("sign", ident.Identity.sign, lambda a, kw: len(a[1]))
    noise.CipherState.encrypt_with_ad = _counting("link-encrypt", noise.CipherState.encrypt_with_ad,
                                                  lambda a, kw: len(a[2]))
    noise.CipherState.decrypt_with_ad = _counting("link-decrypt", noise.CipherState.decrypt_with_ad,
                                                  lambda a, kw: len(a[2]))

    if os.environ.get("UNONET_BENCH_RECORD"):
        _record(os.environ["UNONET_BENCH_RECORD"])
    if os.environ.get("UNONET_BENCH_SPLIT"):
        _split()

    traced: list = []
    if os.environ.get("UNONET_BENCH_TRACE"):  # where the memory goes: the growth between snapshots, by line
        import tracemalloc

        tracemalloc.start(1)

    profiling = os.environ.get("UNONET_BENCH_PROFILE")
    profiler: list = []

    def snapshot(signum, frame) -> None:
        if profiling == "cpu":
            if not profiler:
                profiler.append(_CpuSampler())
                profiler[0].start()
            elif profiler[0] is not None:
                profiler[0].stop(out + ".cpu.json")
                profiler[0] = None
        elif profiling == "sample":  # pyinstrument, when installed: sampled wall time, little overhead
            if not profiler:
                from pyinstrument import Profiler

                profiler.append(Profiler(interval=0.0005, async_mode="disabled"))
                profiler[0].start()
            elif profiler[0] is not None:
                profiler[0].stop()
                with open(out + ".txt", "w") as f:
                    f.write(profiler[0].output_text(show_all=False))
                    f.write("\n\n" + profiler[0].output_text(flat=True))
                profiler[0] = None
        elif profiling and not profiler:
            import cProfile

            profiler.append(cProfile.Profile(time.process_time))  # CPU, not wall (a send waits)
            profiler[0].enable()
        elif profiling and profiler[0] is not None:
            profiler[0].disable()
            profiler[0].dump_stats(out + ".prof")
            profiler[0] = None
        t = os.times()
        line = {"cpu": time.process_time(), "user": t.user, "sys": t.system, "rss_kb": _rss_kb(), "counts": {k: list(v) for k, v in COUNTS.items()}}
        if SPLIT:
            line["split"] = {k: list(v) for k, v in SPLIT.items()}
        if os.environ.get("UNONET_BENCH_TRACE"):
            import tracemalloc

            snap = tracemalloc.take_snapshot()
            if traced:
                line["growth"] = [f"{st.size_diff / 1024:+.0f} kB {st.count_diff:+d} {st.traceback[0]}"
                                  for st in snap.compare_to(traced[0], "lineno")[:12]]
            else:
                traced.append(snap)
        with open(out, "a") as f:
            f.write(json.dumps(line) + "\n")

    signal.signal(signal.SIGUSR1, snapshot)


class _CpuSampler:
    """Where the CPU goes, without inflating it: SIGPROF after every ``interval`` of this process's
    CPU time (the kernel rounds it to its tick), each signal counting the main thread's stack."""

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.stacks: dict[tuple[str, ...], int] = {}

    @staticmethod
    def _name(code) -> str:
        path = code.co_filename
        i = path.rfind("unonet/")
        return f"{path[i:] if i >= 0 else os.path.basename(path)}:{code.co_firstlineno}({code.co_name})"

    def _sample(self, signum, frame) -> None:
        stack = []
        while frame is not None:
            stack.append(self._name(frame.f_code))
            frame = frame.f_back
        key = tuple(reversed(stack))
        self.stacks[key] = self.stacks.get(key, 0) + 1

    def start(self) -> None:
        signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)

    def stop(self, path: str) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        with open(path, "w") as f:
            json.dump([[list(k), n] for k, n in self.stacks.items()], f)


SPLIT: dict[str, list] = {}  # part -> [seconds, calls] (UNONET_BENCH_SPLIT)


_timed_depth = [0]  # a timed call inside another is the outer one's


def _timing(part: str, fn):
    cell = SPLIT.setdefault(part, [0.0, 0])
    clock = time.thread_time  # CPU, not wall: a process waiting for a core is not working (~0.8 us a read)
    depth = _timed_depth

    @functools.wraps(fn)
    def timed(*a, **kw):
        if depth[0]:
            return fn(*a, **kw)
        depth[0] = 1
        t = clock()
        try:
            return fn(*a, **kw)
        finally:
            cell[0] += clock() - t
            cell[1] += 1
            depth[0] = 0

    return timed


def _split() -> None:
    """Time the sans-IO work of a joining seat or an observer (the thread's CPU inside those
    synchronous calls; two clock reads, ~1.6 us, a timed call): what is left of the process's CPU
    is its IO shell's (trio, the socket calls, timers, tasks)."""
    from unonet.net import _game, _seat, session_cli
    from unonet.protocol import _link

    link = _link.SecureLink
    link.receive_data = _counting("socket-reads", link.receive_data, lambda a, kw: len(a[1]))
    link.next_event = _timing("link: decrypt, decode, check", link.next_event)
    link.send = _timing("link: encode, encrypt", link.send)
    _seat.SeatSide.receive = _timing("seat: verify, ledger, replay", _seat.SeatSide.receive)
    _seat.SeatSide.submit = _timing("bot: act, sign", _seat.SeatSide.submit)
    choose = _timing("bot: choose", _game.bot_step)
    _game.bot_step = session_cli.bot_step = choose
    session_cli.JsonOut.__call__ = _timing("feed: --json lines", session_cli.JsonOut.__call__)
    import trio

    class Steps(trio.abc.Instrument):  # (two clock reads a step, ~1.6 us)
        """The CPU of each task's steps (``task NAME``; the sans-IO parts above run inside them):
        what is outside every step is trio's scheduler, its IO wait and the kernel's."""

        def __init__(self) -> None:
            self.t = 0.0

        def before_task_step(self, task) -> None:
            self.t = time.thread_time()

        def after_task_step(self, task) -> None:
            cell = SPLIT.setdefault(f"task {task.name.rsplit('.', 1)[-1]}", [0.0, 0])
            cell[0] += time.thread_time() - self.t
            cell[1] += 1

    run = trio.run

    @functools.wraps(run)
    def run_with_steps(*a, **kw):
        kw["instruments"] = (*kw.get("instruments", ()), Steps())
        return run(*a, **kw)

    trio.run = run_with_steps

    import gc

    started = [0.0]

    def collecting(phase: str, info: dict) -> None:  # (inside whatever part allocated: counted there too)
        if phase == "start":
            started[0] = time.thread_time()
        else:
            cell = SPLIT.setdefault(f"gc {info['generation']}", [0.0, 0])
            cell[0] += time.thread_time() - started[0]
            cell[1] += 1

    gc.callbacks.append(collecting)
    try:
        from unonet.net import _observe

        _observe.ObserverSide.receive = _timing("seat: verify, ledger, replay", _observe.ObserverSide.receive)
    except ImportError:
        pass


def _record(path: str) -> None:
    """Write what the links of this process receive to ``path`` (see the module docstring)."""
    import msgpack

    link = sys.modules.get("unonet.protocol._link") or importlib.import_module("unonet.protocol._link")
    out = open(path, "ab", buffering=0)  # (a bench ends the process with SIGTERM: no atexit)
    decode, receive_data = link.decode_plaintext_kept, link.SecureLink.receive_data

    def recorded_decode(data):
        out.write(msgpack.packb(["pt", bytes(data)]))
        return decode(data)

    def recorded_receive(self, data):
        if self.state is link.OPEN and not getattr(self, "_recorded", False):
            self._recorded = True
            x, ed = self.identity._private_bytes()
            out.write(msgpack.packb(["me", x, ed, self.remote_static]))
        if self.state is link.OPEN:
            out.write(msgpack.packb(["chunk"]))
        return receive_data(self, data)

    link.decode_plaintext_kept = recorded_decode
    link.SecureLink.receive_data = recorded_receive


def main() -> None:
    out, args = sys.argv[1], sys.argv[2:]
    install(out)
    sys.argv = ["unonet", *args]
    runpy.run_module("unonet", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
