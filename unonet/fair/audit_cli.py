"""`unonet audit FILE`: exit 0 clean, 1 first bad line, 2 unreadable file."""

from __future__ import annotations

import json
import sys

from ..fingerprint import InvalidJoinCodeError, normalize_join_code
from ._audit import audit
from ._errors import TranscriptFormatError


def run_audit_cli(path: str, as_json: bool = False, host: str | None = None, continues: str | None = None) -> int:
    """Audit the transcript at `path` and print one line (or one JSON object).

    `host` is the expected host's fingerprint: its join code, short or whole fingerprint
    (Crockford base32; case and dashes ignored): a file signed by another key fails (exit 1)
    at its first `round-start`; text that is no fingerprint at all is exit 2."""
    if host is not None:
        try:
            normalize_join_code(host)
        except InvalidJoinCodeError as exc:
            msg = f"unonet audit: --host: {exc}"
            print(json.dumps({"ok": False, "error": msg}) if as_json else msg, file=sys.stdout if as_json else sys.stderr)
            return 2
    try:
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")
        report = _audit(lines, host)
        if continues is not None and report.ok:
            with open(continues, encoding="utf-8", newline="") as f:
                old = f.read().split("\n")
            report = _handover(report, old, lines)
    except (OSError, UnicodeDecodeError, TranscriptFormatError, RecursionError) as exc:
        msg = f"unonet audit: cannot read {path}: {_describe(exc)}"
        if as_json:
            print(json.dumps({"ok": False, "error": msg}))
        else:
            print(msg, file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(report.to_json(), sort_keys=True))
    else:
        print(report.summary)
    return 0 if report.ok else 1


def _audit(lines, host=None):
    """The fair checks, plus the rules-engine replay of each round's game record.

    The replay lives above this layer (`unonet.table`, which bridges the engine and the
    fair layer); it is imported here, in the command-line glue, not in the pure core."""
    try:
        from ..table import audit_transcript
    except ImportError:  # pragma: no cover - a trimmed install without the bridge
        return audit(lines, host=host)
    return audit_transcript(lines, host=host)


def _handover(report, old, new):
    """``--continues OLD``: the hand-over check (unonet.table._handover), as the report's
    verdict: a lie about the old match fails the new transcript at its line 1."""
    import dataclasses

    from ..table._handover import audit_handover
    from ._errors import FairPlayViolation

    try:
        note = audit_handover(old, new)
    except FairPlayViolation as exc:
        return dataclasses.replace(report, ok=False, line=1, reason=exc.reason)
    return dataclasses.replace(report, flags=report.flags + (f"line 1: {note}",))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    return str(exc)
