"""Helpers for testing code that uses unonet.fair (like trio.testing)."""

from ._sim import FairTable as FairTable
from ._sim import det_randbytes as det_randbytes
