"""docs/scenario-format.md's extensions stay true: every example under "Extensions" is run
through the real `unonet scenario -` and must print exactly the output shown under it."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import pytest

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "scenario-format.md"


def examples() -> list[tuple[str, dict, dict]]:
    """(name, scenario, output) for each pair of json blocks after "## Extensions"."""
    text = DOC.read_text(encoding="utf-8").split("\n## Extensions\n", 1)[1]
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)\n```", text, re.S)]
    assert len(blocks) % 2 == 0, "every example is followed by its output"
    return [(b["name"], b, out) for b, out in zip(blocks[0::2], blocks[1::2])]


EXAMPLES = examples()


def test_every_extension_has_an_example():
    text = json.dumps([s for _n, s, _o in EXAMPLES])
    for needle in ('"respond": true', '{"timeout": true}', '"R3/TR"', '"WK"', '"pass": true',
                   '"elimination"', '"deadly"', '"flip"'):
        assert needle in text, needle


@pytest.mark.parametrize("name,scenario,output", EXAMPLES, ids=[n for n, _s, _o in EXAMPLES])
def test_the_documented_example_prints_the_documented_output(name, scenario, output):
    proc = subprocess.run([sys.executable, "-m", "unonet", "scenario", "-"], input=json.dumps(scenario),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == (3 if "error" in output else 0), proc.stderr
    assert json.loads(proc.stdout) == output
