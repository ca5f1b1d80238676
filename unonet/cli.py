"""The `unonet` command line: argparse entry point (filled in by the engine work)."""

import sys


def main(argv=None) -> int:
    print("unonet: no commands yet", file=sys.stderr)
    return 2
