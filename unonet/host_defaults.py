"""The host's defaults that `unonet host --help` shows.

They live apart from ``net`` so that building the command line imports no trio, protocol or
cryptography: every command, `--help` included, starts without them (issue 26).
"""

OBSERVERS = 4          # --observers default: a scorekeeper or two and a few screens; each costs the host a copy of every message
HOLD_SEATS = 60.0      # --hold-seats default: long enough to restart a crashed client or wake a laptop
MAX_TARGET = 100_000   # the highest match target a table announces (spec: beacon and roster `target`)
