"""Score database benchmark: rounds recorded per second (one transaction each, WAL,
synchronous=FULL), and the time `verify` and the views take over the whole file.

    python3 scripts/bench/store.py [--matches 30] [--dir DIR]

The rounds are real bot matches (`unonet.store.testing`), played before the clock starts.
DIR (default: a new temporary directory) decides the disk: fsync costs what the disk says.
"""

from __future__ import annotations

import argparse
import pathlib
import tempfile
import time

from unonet.store import ScoreStore, history, standings, verify
from unonet.store.testing import feed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=30, help="matches, in thirds standard/teams/elimination")
    ap.add_argument("--dir", default=None, help="where the database goes (default: a temporary directory)")
    args = ap.parse_args()
    matches = feed(7, max(1, args.matches // 3))
    rounds = sum(len(pm.entries) for pm in matches)
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        path = pathlib.Path(d) / "bench.db"
        t0 = time.perf_counter()
        with ScoreStore.open(path) as store:
            for pm in matches:
                store.begin_match(pm.header, pm.names)
                for e in pm.entries:
                    store.record_round(e)
        t1 = time.perf_counter()
        with ScoreStore.open(path, readonly=True) as store:
            t2 = time.perf_counter()
            report = verify(store)
            t3 = time.perf_counter()
            standings(store)
            history(store)
            t4 = time.perf_counter()
        size = path.stat().st_size
    assert report.ok, report.problem
    print(f"{len(matches)} matches, {rounds} rounds, database {size / 1024:.0f} KiB ({d})")
    print(f"record: {rounds / (t1 - t0):.0f} rounds/s ({(t1 - t0) / rounds * 1000:.2f} ms a round, "
          f"one transaction each, synchronous=FULL)")
    print(f"verify: {t3 - t2:.3f} s ({(t3 - t2) / rounds * 1e6:.0f} us a round)")
    print(f"standings + history: {t4 - t3:.3f} s")


if __name__ == "__main__":
    main()
