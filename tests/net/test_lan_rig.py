"""Discovery between real processes in network namespaces (scripts/lan-rig).

Every test builds its own uniquely named namespaces and deletes them, whatever
happens; nothing is sent in the machine's own namespace.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .rig_helpers import load_rig

ROOT = Path(__file__).resolve().parents[2]
BEACON_HOST = str(Path(__file__).with_name("beacon_host.py"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0
                       or shutil.which("ip") is None,
                       reason="network namespaces need Linux, root and iproute2"),
]


rig = load_rig()
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


class Host:
    """beacon_host.py running in a node; ``info`` is its first line."""

    def __init__(self, lan, node, *args):
        self.proc = lan.popen(node, [sys.executable, BEACON_HOST, "--seconds", "60", *args],
                              stdout=subprocess.PIPE, text=True, env=ENV)
        self.info = json.loads(self.proc.stdout.readline())

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def unonet_list(lan, node, *args, timeout=1.0):
    out = lan.run(node, [sys.executable, "-m", "unonet", "list", "--json", "--timeout",
                         str(timeout), *args], capture_output=True, text=True, env=ENV,
                  timeout=60)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


LISTEN = """
import socket, sys, time, json
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", 47777)); s.settimeout(float(sys.argv[1]))
got = []
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    try:
        data, src = s.recvfrom(2048)
    except socket.timeout:
        break
    got.append([src[0], data.hex()])
print(json.dumps(got))
"""


def listen(lan, node, seconds):
    out = lan.run(node, [sys.executable, "-c", LISTEN, str(seconds)], capture_output=True,
                  text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_host_in_one_namespace_is_listed_in_another():
    with rig.Rig(3) as lan:
        host = Host(lan, 0, "--name", "Kitchen", "--interval", "3600")
        try:
            rows = unonet_list(lan, 1)
            rows_bound = unonet_list(lan, 2, "--bind", lan.addrs[2])
        finally:
            host.stop()
    assert ip_netns_gone(lan)
    for r in (rows, rows_bound):
        assert len(r) == 1
        t = r[0]
        assert t["name"] == "Kitchen" and t["address"] == lan.addrs[0]
        assert t["port"] == host.info["port"] and t["join_code"] == host.info["join_code"]
        assert t["probed"], "with beacons an hour apart only the probe's unicast answer counts"
        assert t["version"]["compatible"]


def ip_netns_gone(lan) -> bool:
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return not any(n in names for n in lan.names)


def test_directed_broadcast_reaches_a_namespace_without_default_route():
    with rig.Rig(2) as lan:
        # precondition: the limited broadcast cannot even leave (no default route)
        probe = lan.run(0, [sys.executable, "-c",
                            "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM);"
                            "s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1);"
                            "s.sendto(b'x', ('255.255.255.255', 9))"],
                        capture_output=True, text=True)
        assert "unreachable" in probe.stderr
        host = Host(lan, 0, "--interval", "0.2")
        try:
            got = listen(lan, 1, 1.5)
        finally:
            host.stop()
    assert lan.broadcast in host.info["targets"]
    assert len(got) >= 3 and all(src == lan.addrs[0] for src, _ in got)


def test_bind_keeps_beacons_on_that_address():
    with rig.Rig(2) as lan:
        host = Host(lan, 0, "--bind", "127.0.0.1", "--interval", "0.2")
        try:
            heard = listen(lan, 1, 1.2)
            remote = unonet_list(lan, 1, timeout=0.5)
            local = unonet_list(lan, 0, "--bind", "127.0.0.1", timeout=0.5)
        finally:
            host.stop()
        host2 = Host(lan, 0, "--bind", lan.addrs[0], "--interval", "0.2")
        try:
            remote2 = unonet_list(lan, 1, timeout=0.5)
        finally:
            host2.stop()
    assert host.info["targets"] == ["127.255.255.255"]
    assert heard == [] and remote == []
    assert len(local) == 1 and local[0]["address"] == "127.0.0.1"
    assert host2.info["targets"] == [lan.broadcast]
    assert len(remote2) == 1 and remote2[0]["address"] == lan.addrs[0]


def test_malformed_datagrams_do_not_disturb_the_host():
    junk = ("import socket, msgpack; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM);"
            "s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)\n"
            "for d in (b'\\xc1' * 40, b'', bytes(1300), msgpack.packb({'t': 'probe'}),"
            " msgpack.packb({'t': 'probe', 'v': 1, 'vmin': 2, 'nonce': bytes(8)})):\n"
            "    s.sendto(d, ('%s', 47777))")
    with rig.Rig(3) as lan:
        host = Host(lan, 0, "--interval", "3600")
        try:
            out = lan.run(2, [sys.executable, "-c", junk % lan.broadcast], capture_output=True,
                          text=True, env=ENV)
            assert out.returncode == 0, out.stderr
            rows = unonet_list(lan, 1, timeout=0.5)
            assert host.proc.poll() is None
        finally:
            host.stop()
    assert len(rows) == 1 and rows[0]["probed"]


def test_rig_cli_cleans_up_and_reports():
    out = subprocess.run([str(ROOT / "scripts" / "lan-rig"), "run", "--nodes", "2", "--",
                          "sh", "-c", 'echo "$RIG_NS0 $RIG_NS1 $RIG_ADDR1"; '
                                      'ip netns list | grep -c "$RIG_NS0\\|$RIG_NS1"; exit 3'],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 3, out.stderr
    names, count = out.stdout.splitlines()
    ns0, ns1, addr1 = names.split()
    assert ns0.startswith("urig-") and addr1.startswith("10.77.") and count == "2"
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert ns0 not in listed and ns1 not in listed and ns0[:-2] + "-sw" not in listed
    bad = subprocess.run([str(ROOT / "scripts" / "lan-rig"), "run", "--netem", "x", "--", "true"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "NODE:SPEC" in bad.stderr
