"""Trust gates a link calls: one at ``PeerKey`` (before the initiator reveals its
static key), one when the peer's ``hello`` has arrived (names and signing keys).

A gate returns ``None`` to accept and raises ``unonet.protocol.TrustError`` to
refuse; the link turns the refusal into ``Untrusted`` and closes.
"""

from __future__ import annotations

from typing import Callable

from unonet.fingerprint import fingerprint_code
from unonet.protocol import (
    Hello, JoinCodeMismatchError, KnownPeers, PeerKey, PeerKeyChangedError, TrustError, check_join_code,
    fingerprint, normalize_join_code,
)

__all__ = ["accept_any", "require_join_code", "require_beacon_key", "BeaconKeyMismatch", "pin_key",
           "pin_hello_name", "KeyGate", "HelloGate", "trust_code"]

KeyGate = Callable[[PeerKey], None]
HelloGate = Callable[[Hello, bytes], None]


def accept_any(key: PeerKey) -> None:
    """Accept every key (a host taking new players; identity is then pinned by name)."""


def require_join_code(code: str) -> KeyGate:
    """``--code``: the host's fingerprint must start with ``code``.

    The code is normalized now, so a malformed one (``InvalidJoinCodeError``) is
    reported before any connection is made."""
    normalize_join_code(code)

    def gate(key: PeerKey) -> None:
        check_join_code(code, key.remote_static)

    return gate


class BeaconKeyMismatch(TrustError):
    """The table found by discovery presents another key than its beacon announced."""


def require_beacon_key(fp: bytes, where: str, then: KeyGate = accept_any) -> KeyGate:
    """Joining a table found by discovery: the key the host presents must be the one its
    beacon announced (``fp``, the fingerprint its join code is shown from), before ``then``
    (the join code, or the pin).  A beacon is a hint anyone may forge; this is what stops a
    listing copied from a real table from taking its joiners elsewhere."""
    def gate(key: PeerKey) -> None:
        got = fingerprint(key.remote_static)
        if got != fp:
            raise BeaconKeyMismatch(
                f"the table at {where} presents key {fingerprint_code(got)}, but the beacon we joined "
                f"announced {fingerprint_code(fp)}: a forged or stale beacon; not joining (check the "
                "host's join code and join with --code)")
        then(key)

    return gate


def pin_key(known: KnownPeers, name: str) -> KeyGate:
    """Trust on first use under ``name`` (e.g. ``host:<table name>`` from the beacon)."""

    def gate(key: PeerKey) -> None:
        known.check(name, key.remote_static)

    return gate


def pin_hello_name(known: KnownPeers, prefix: str = "") -> HelloGate:
    """Trust on first use under ``prefix + hello.name``, static and signing key both
    (the host pins its players this way; the name is only known from the hello)."""

    def gate(hello: Hello, remote_static: bytes) -> None:
        known.check(prefix + hello.name, remote_static, hello.sign_key)

    return gate


def trust_code(exc: Exception) -> str:
    """The wire code for a trust refusal (spec §4.6)."""
    if isinstance(exc, JoinCodeMismatchError):
        return "code-mismatch"
    if isinstance(exc, PeerKeyChangedError):
        return "key-changed"
    if isinstance(exc, BeaconKeyMismatch):
        return "beacon-mismatch"
    return "untrusted"
