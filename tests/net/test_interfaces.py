"""Interface enumeration through ifaddr: the adapter lists macOS and Windows report,
run through the same code here (``sys.platform`` set as there), and on Linux the
kernel's own broadcast addresses in a network namespace of the test's own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from ifaddr import IP, Adapter

import unonet.net as N


def macos_adapters() -> list[Adapter]:
    """What ``ifaddr.get_adapters()`` gives on a MacBook on Wi-Fi with Internet sharing:
    IPv6 entries as (address, flowinfo, scope_id) tuples, interfaces with IPv6 only."""
    return [
        Adapter("lo0", "lo0", [IP(("::1", 0, 0), 128, "lo0"), IP("127.0.0.1", 8, "lo0"),
                               IP(("fe80::1", 0, 1), 64, "lo0")], index=1),
        Adapter("en0", "en0", [IP(("fe80::14a3:8c2e:9f1b:77d0", 0, 6), 64, "en0"),
                               IP("192.168.1.23", 24, "en0"),
                               IP(("2a02:8108:1:2::17", 0, 0), 64, "en0")], index=6),
        Adapter("awdl0", "awdl0", [IP(("fe80::c8d1:aff:fe6e:1", 0, 11), 64, "awdl0")], index=11),
        Adapter("utun3", "utun3", [IP(("fe80::ce81:b1c:bd2c:69e", 0, 15), 64, "utun3")], index=15),
        Adapter("bridge100", "bridge100", [IP("192.168.2.1", 24, "bridge100")], index=17),
    ]


def windows_adapters() -> list[Adapter]:
    """What ``ifaddr.get_adapters()`` gives on a Windows laptop: adapters named by GUID,
    the device as ``nice_name``, the connection's name on each IP; a disconnected Wi-Fi
    with a link-local (APIPA) address; a VPN's point-to-point /32."""
    return [
        Adapter("{A1B2C3D4-0E5F-4A6B-8C7D-9E0F1A2B3C4D}", "Intel(R) Ethernet Connection (7) I219-V",
                [IP(("fe80::1c2b:3d4e:5f60:7182", 0, 11), 64, "Ethernet"),
                 IP("192.168.1.40", 24, "Ethernet")], index=11),
        Adapter("{5E6F7A8B-9C0D-4E1F-A2B3-C4D5E6F7A8B9}", "Intel(R) Wi-Fi 6 AX201 160MHz",
                [IP(("fe80::9a7b:6c5d:4e3f:2a1b", 0, 7), 64, "Wi-Fi"),
                 IP("169.254.33.7", 16, "Wi-Fi")], index=7),
        Adapter("{0C1D2E3F-4A5B-4C6D-8E7F-90A1B2C3D4E5}", "TAP-Windows Adapter V9",
                [IP("10.8.0.6", 32, "VPN")], index=21),
        Adapter("{6D7E8F90-A1B2-4C3D-9E4F-5A6B7C8D9E0F}", "Software Loopback Interface 1",
                [IP(("::1", 0, 0), 128, "Loopback Pseudo-Interface 1"),
                 IP("127.0.0.1", 8, "Loopback Pseudo-Interface 1")], index=1),
    ]


def test_macos_adapters(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    ifaces = N.interfaces(macos_adapters())
    assert [(i.name, i.address, i.netmask, i.broadcast, i.up, i.loopback) for i in ifaces] == [
        ("lo0", "127.0.0.1", "255.0.0.0", "127.255.255.255", True, True),
        ("en0", "192.168.1.23", "255.255.255.0", "192.168.1.255", True, False),
        ("bridge100", "192.168.2.1", "255.255.255.0", "192.168.2.255", True, False),
    ]
    assert N.broadcast_targets(None, ifaces) == [
        "255.255.255.255", "127.255.255.255", "192.168.1.255", "192.168.2.255"]
    assert N.broadcast_targets("192.168.1.23", ifaces) == ["192.168.1.255"]
    assert N.broadcast_targets("127.0.0.1", ifaces) == ["127.255.255.255"]


def test_windows_adapters(monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")
    ifaces = N.interfaces(windows_adapters())
    assert [(i.name, i.address, i.broadcast, i.loopback) for i in ifaces] == [
        ("Ethernet", "192.168.1.40", "192.168.1.255", False),
        ("Wi-Fi", "169.254.33.7", "169.254.255.255", False),
        ("VPN", "10.8.0.6", None, False),
        ("Loopback Pseudo-Interface 1", "127.0.0.1", "127.255.255.255", True),
    ]
    assert N.broadcast_targets(None, ifaces) == [
        "255.255.255.255", "192.168.1.255", "169.254.255.255", "127.255.255.255"]
    assert N.broadcast_targets("192.168.1.40", ifaces) == ["192.168.1.255"]
    assert N.broadcast_targets("10.8.0.6", ifaces) == ["10.8.0.6"]  # no broadcast on a /32


def test_this_machine_reports_loopback():
    lo = [i for i in N.interfaces() if i.address == "127.0.0.1"]
    assert lo and lo[0].loopback and lo[0].up and lo[0].broadcast == "127.255.255.255"


RIG = r"""
set -e
ip link set lo up
ip link add xa type veth peer name xb
ip addr add 10.77.0.5/24 brd + dev xa
ip addr add 10.78.1.9/16 brd + dev xa label xa:1
ip addr add 192.168.5.7/24 brd + dev xb
ip link set xa up
ip link set xb up
ip link add xc type veth peer name xd
ip addr add 10.9.0.5/24 brd + dev xc
ip -j -4 addr show > "$OUT/ip.json"
"$PY" -c 'import json, sys, unonet.net as N
json.dump({"all": N.broadcast_targets(),
           "bind": {a: N.broadcast_targets(a) for a in sys.argv[1:]}}, sys.stdout)' \
  127.0.0.1 10.77.0.5 10.78.1.9 192.168.5.7 > "$OUT/ours.json"
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("unshare")
                    or not shutil.which("ip") or os.geteuid() != 0,
                    reason="a network namespace of its own needs Linux, root, unshare and ip")
def test_linux_targets_are_the_kernels_broadcast_addresses(tmp_path):
    # a network namespace of this test's own (gone when its shell exits); nothing is sent
    proc = subprocess.run(["unshare", "-n", "sh", "-c", RIG], capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                                           "OUT": str(tmp_path), "PY": sys.executable})
    assert proc.returncode == 0, proc.stderr
    kernel = json.loads((tmp_path / "ip.json").read_text())
    up = {a["local"]: a.get("broadcast") for link in kernel if "UP" in link["flags"]
          for a in link["addr_info"]}
    down = [a["local"] for link in kernel if "UP" not in link["flags"] for a in link["addr_info"]]
    ours = json.loads((tmp_path / "ours.json").read_text())
    assert down == ["10.9.0.5"] and "127.0.0.1" in up
    up["127.0.0.1"] = "127.255.255.255"  # loopback has no broadcast flag: from its netmask
    assert sorted(ours["all"]) == sorted(["255.255.255.255"] + [b for b in up.values() if b])
    assert "10.9.0.255" not in ours["all"]  # a down interface gets no beacons
    for addr, targets in ours["bind"].items():
        assert targets == [up[addr] or addr]
