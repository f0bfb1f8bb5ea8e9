# Seed frames for the frame fuzzer, built by scapy (an independent packet builder): protocols and shapes our own
# FrameBuilder does not make (TCP with options, IPv4 options and fragments, IPv6 extension headers, GRE, QinQ, LLDP,
# ICMPv6 ND, 802.3 LLC) plus scapy's own fuzz() of every layer. Usage: build_fuzz_seeds.py OUT.pcap
import sys, random
from scapy.all import (Ether, Dot1Q, Dot1AD, IP, IPv6, UDP, TCP, ICMP, ARP, GRE, Raw, LLC, SNAP, wrpcap, fuzz,
                       IPOption_RR, IPv6ExtHdrHopByHop, IPv6ExtHdrFragment, IPv6ExtHdrRouting, fragment)
from scapy.layers.inet6 import ICMPv6ND_NS, ICMPv6ND_NA, ICMPv6EchoRequest, ICMPv6NDOptSrcLLAddr
from scapy.contrib.lldp import LLDPDUChassisID, LLDPDUPortID, LLDPDUTimeToLive, LLDPDUEndOfLLDPDU

random.seed(14)
ROUTER = "02:aa:bb:cc:dd:ee"
HOST = "02:00:00:00:01:02"
base = Ether(dst=ROUTER, src=HOST)
pkts = [
    base / IP(src="10.0.1.2", dst="192.168.1.1", options=[IPOption_RR()]) / UDP(sport=1, dport=2) / Raw(b"x" * 40),
    base / IP(src="10.0.1.2", dst="192.168.1.1") / TCP(sport=1234, dport=80, flags="S",
                                                        options=[("MSS", 1460), ("SAckOK", b""), ("WScale", 7)]),
    base / IP(src="10.0.1.2", dst="192.168.1.1") / GRE() / IP(src="1.1.1.1", dst="2.2.2.2") / UDP(),
    base / IP(src="10.0.1.2", dst="10.0.1.1") / ICMP() / Raw(b"ping"),
    base / IPv6(src="2001:db8::2", dst="2001:db8::1") / IPv6ExtHdrHopByHop() / UDP(sport=1, dport=2),
    base / IPv6(src="2001:db8::2", dst="2001:db8::1") / IPv6ExtHdrRouting() / IPv6ExtHdrFragment() / UDP(),
    base / IPv6(src="fe80::2", dst="ff02::1:ff00:1") / ICMPv6ND_NS(tgt="fe80::1") / ICMPv6NDOptSrcLLAddr(lladdr=HOST),
    base / IPv6(src="fe80::2", dst="fe80::1") / ICMPv6ND_NA(tgt="fe80::2"),
    base / IPv6(src="2001:db8::2", dst="2001:db8::1") / ICMPv6EchoRequest(),
    Ether(dst=ROUTER, src=HOST, type=0x88a8) / Dot1Q(vlan=100) / Dot1Q(vlan=200) / IP(dst="192.168.1.1") / UDP(),
    Ether(dst=ROUTER, src=HOST) / Dot1Q(vlan=0, prio=5) / IP(dst="192.168.1.1") / UDP(),
    Ether(dst="01:80:c2:00:00:0e", src=HOST) / LLDPDUChassisID(subtype=4, id=HOST) / LLDPDUPortID(subtype=5, id=b"eth1")
        / LLDPDUTimeToLive(ttl=120) / LLDPDUEndOfLLDPDU(),
    Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST) / ARP(op=1, hwsrc=HOST, psrc="10.0.1.2", pdst="10.0.1.1"),
    Ether(dst=ROUTER, src=HOST) / LLC() / SNAP() / Raw(b"llc"),
]
pkts += fragment(base / IP(src="10.0.1.2", dst="192.168.1.1") / UDP() / Raw(b"f" * 3000), fragsize=1000)
for i in range(150):
    layer = random.choice([IP() / UDP(), IP() / TCP(), IP() / ICMP(), IPv6() / UDP(), ARP(), IP() / UDP() / Raw(b"r" * 64)])
    pkts.append(Ether(dst=random.choice([ROUTER, "ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01"]), src=HOST) / fuzz(layer))
frames = []
for p in pkts:
    try:
        frames.append(Ether(bytes(p)))
    except Exception:
        pass
wrpcap(sys.argv[1], frames)
print("ok", len(frames))
