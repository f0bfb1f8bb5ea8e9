#!/usr/bin/python3
# Golden oracle for the parser: scapy (Debian python3-scapy, contrib.roce/mac_control/lldp) builds frames, writes
# them as LE/µs pcap, BE/ns pcap, scapy pcapng (LE) and a hand-made BE pcapng (ns tsresol, one SPB), then prints
# for every frame the fields scapy dissects back out of the bytes. Usage: scapy_golden.py OUTDIR
import struct
import sys
from decimal import Decimal

from scapy.all import (ARP, ICMP, IP, TCP, UDP, Dot1AD, Dot1Q, Ether, IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, ICMPv6EchoRequest, IPOption_RR, Raw, raw, conf)
from scapy.utils import PcapNgWriter, RawPcapWriter
from scapy.contrib.roce import BTH, AETH, cnp
from scapy.contrib.mac_control import MACControlClassBasedFlowControl, MACControlPause
from scapy.contrib.lldp import (LLDPDUChassisID, LLDPDUEndOfLLDPDU, LLDPDUPortID, LLDPDUTimeToLive)

conf.verb = 0
out = sys.argv[1]
A = "02:00:00:00:00:01"
B = "02:00:00:00:00:02"
PAY16 = b"0123456789ABCDEF"

frames = []  # (name, packet, expected reason)


def add(name, pkt, reason="OK"):
    frames.append((name, pkt, reason))


add("roce_v4", Ether(src=A, dst=B) / IP(src="10.0.0.1", dst="10.0.0.2", tos=(26 << 2) | 2, ttl=64, flags="DF")
    / UDP(sport=49152, dport=4791, chksum=0) / BTH(opcode=4, dqpn=0x123, psn=100, ackreq=1) / Raw(PAY16))
add("roce_v6", Ether(src=A, dst=B)
    / IPv6(src="2001:db8::1", dst="2001:db8::2", tc=(34 << 2) | 1, hlim=17, fl=0x12345)
    / UDP(sport=50001, dport=4791) / BTH(opcode=4, dqpn=0xABCDEF, psn=0x10203, pkey=0x8001) / Raw(PAY16))
add("roce_vlan", Ether(src=A, dst=B) / Dot1Q(vlan=100, prio=3) / IP(src="10.1.0.1", dst="10.2.0.1", tos=(26 << 2) | 2)
    / UDP(sport=49200, dport=4791, chksum=0) / BTH(opcode=10, dqpn=0x77, psn=5) / Raw(b"\x00" * 16) / Raw(PAY16))
add("roce_qinq", Ether(src=A, dst=B) / Dot1AD(vlan=200, prio=5) / Dot1Q(vlan=100, prio=3)
    / IP(src="10.3.0.1", dst="10.4.0.1", tos=(46 << 2) | 2, ttl=9)
    / UDP(sport=49300, dport=4791, chksum=0) / BTH(opcode=0x64, dqpn=0x1, psn=7) / Raw(b"\x00" * 8) / Raw(PAY16))
add("cnp", Ether(src=A, dst=B) / IP(src="10.0.0.2", dst="10.0.0.1", tos=(48 << 2) | 1)
    / UDP(sport=49153, dport=4791, chksum=0) / cnp(0x456))
add("roce_ack", Ether(src=A, dst=B) / IP(src="10.0.0.2", dst="10.0.0.1", tos=(26 << 2) | 2)
    / UDP(sport=49154, dport=4791, chksum=0) / BTH(opcode=0x11, dqpn=0x999, psn=0xFFFFFE) / AETH(syndrome=0x1F, msn=42))
add("pfc", Ether(src=A, dst="01:80:c2:00:00:01")
    / MACControlClassBasedFlowControl(c0_enabled=1, c0_pause_time=0, c3_enabled=1,
                                      c3_pause_time=0xFFFF, c7_enabled=1, c7_pause_time=0x1234))
add("pause", Ether(src=A, dst="01:80:c2:00:00:01") / MACControlPause(pause_time=0x2345))
add("arp", Ether(src=A, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=A, psrc="10.0.0.1", pdst="10.0.0.2"))
add("tcp", Ether(src=A, dst=B) / IP(src="192.168.1.1", dst="192.168.1.2", ttl=33) / TCP(sport=1234, dport=80,
                                                                                         flags="SA"))
add("icmp", Ether(src=A, dst=B) / IP(src="192.168.1.1", dst="192.168.1.2") / ICMP(type=8, code=0) / Raw(b"x" * 20))
add("icmpv6_ext", Ether(src=A, dst=B) / IPv6(src="fe80::1", dst="ff02::1", hlim=255) / IPv6ExtHdrHopByHop()
    / IPv6ExtHdrDestOpt() / IPv6ExtHdrRouting() / ICMPv6EchoRequest(id=1, seq=2))
add("ipv6_frag_first", Ether(src=A, dst=B) / IPv6(src="2001:db8::1", dst="2001:db8::2")
    / IPv6ExtHdrFragment(offset=0, m=1, id=5) / UDP(sport=7, dport=9) / Raw(b"y" * 16))
add("ipv6_frag_later", Ether(src=A, dst=B) / IPv6(src="2001:db8::1", dst="2001:db8::2", nh=44)
    / IPv6ExtHdrFragment(offset=3, m=0, id=5, nh=17) / Raw(b"z" * 24))
add("ipv4_options", Ether(src=A, dst=B) / IP(src="10.9.9.9", dst="10.8.8.8", options=[IPOption_RR()])
    / UDP(sport=5000, dport=5001) / Raw(b"w" * 20))
add("lldp", Ether(src=A, dst="01:80:c2:00:00:0e") / LLDPDUChassisID(subtype=4, id=A)
    / LLDPDUPortID(subtype=5, id=b"Ethernet0") / LLDPDUTimeToLive(ttl=120) / LLDPDUEndOfLLDPDU())
add("unknown_ethertype", Ether(src=A, dst=B, type=0x1234) / Raw(b"q" * 50), "UNKNOWN_ETHER_TYPE")
add("ipv4_bad_ihl", Ether(src=A, dst=B) / IP(src="10.0.0.1", dst="10.0.0.2", ihl=4) / UDP() / Raw(b"p" * 30),
    "IPV4_BAD_IHL")
add("ipv4_len_beyond", Ether(src=A, dst=B) / IP(src="10.0.0.1", dst="10.0.0.2", len=400) / UDP() / Raw(b"p" * 30),
    "IPV4_TOTAL_LENGTH_BEYOND_FRAME")
add("too_many_tags", Ether(src=A, dst=B) / Dot1AD(vlan=1) / Dot1Q(vlan=2) / Dot1Q(vlan=3) / IP() / UDP()
    / Raw(b"r" * 20), "TOO_MANY_VLAN_TAGS")
add("runt", Ether(src=A, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=A, psrc="10.0.0.1", pdst="10.0.0.2"), "RUNT")

BASE_SEC = 1700000000
for i, (name, pkt, _) in enumerate(frames):
    pkt.time = Decimal(BASE_SEC + i) + Decimal("0.123456789")

blobs = []
for name, pkt, _ in frames:
    b = raw(pkt)
    if name != "runt" and len(b) < 60:
        b = b + b"\x00" * (60 - len(b))
    blobs.append(b)

with RawPcapWriter(out + "/golden_le_us.pcap", linktype=1, endianness="<", nano=False) as w:
    w._write_header(None)
    for i, b in enumerate(blobs):
        w._write_packet(b, sec=BASE_SEC + i, usec=123456, caplen=len(b), wirelen=len(b))
with RawPcapWriter(out + "/golden_be_ns.pcap", linktype=1, endianness=">", nano=True) as w:
    w._write_header(None)
    for i, b in enumerate(blobs):
        w._write_packet(b, sec=BASE_SEC + i, usec=123456789, caplen=len(b), wirelen=len(b))
with PcapNgWriter(out + "/golden_le.pcapng") as w:
    for i, b in enumerate(blobs):
        p = Ether(b)
        p.time = Decimal(BASE_SEC + i) + Decimal("0.123456")
        w.write(p)


def block(btype, body):
    body += b"\x00" * (-len(body) % 4)
    total = 12 + len(body)
    return struct.pack(">II", btype, total) + body + struct.pack(">I", total)


# Hand-made big-endian pcapng: SHB, IDB with if_tsresol=9 (ns), EPBs, and the first frame again as an SPB.
ng = block(0x0A0D0D0A, struct.pack(">IHHq", 0x1A2B3C4D, 1, 0, -1))
ng += block(1, struct.pack(">HHI", 1, 0, 65535) + struct.pack(">HHB3x", 9, 1, 9) + struct.pack(">HH", 0, 0))
for i, b in enumerate(blobs):
    ts = (BASE_SEC + i) * 1000000000 + 123456789
    ng += block(6, struct.pack(">IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(b), len(b)) + b)
ng += block(3, struct.pack(">I", len(blobs[0])) + blobs[0])
with open(out + "/golden_be.pcapng", "wb") as f:
    f.write(ng)


def mac(m):
    return "%x" % int(m.replace(":", ""), 16)


def ip4(a):
    return "%x" % struct.unpack(">I", bytes(int(x) for x in a.split(".")))[0]


def fields(name, data, reason):
    p = Ether(data)
    f = {"reason": reason, "len": len(data)}
    if reason in ("RUNT", "TOO_MANY_VLAN_TAGS"):
        return f
    f["dst"] = mac(p.dst)
    f["src"] = mac(p.src)
    tags = []
    q = p.payload
    while isinstance(q, (Dot1Q, Dot1AD)):
        tags.append(q)
        q = q.payload
    f["vlans"] = len(tags)
    if tags:
        f["outer_vid"] = tags[0].vlan
        f["outer_pcp"] = tags[0].prio
    if len(tags) > 1:
        f["inner_vid"] = tags[1].vlan
        f["inner_pcp"] = tags[1].prio
    f["ethertype"] = "%x" % (tags[-1].type if tags else p.type)
    if reason != "OK":
        return f
    if IP in p:
        ip = p[IP]
        f.update(ipv=4, dscp=ip.tos >> 2, ecn=ip.tos & 3, ttl=ip.ttl, proto=ip.proto, sip=ip4(ip.src), dip=ip4(ip.dst))
    if IPv6 in p:
        ip = p[IPv6]
        f.update(ipv=6, dscp=ip.tc >> 2, ecn=ip.tc & 3, ttl=ip.hlim)
        f["sip"] = "%032x" % int.from_bytes(raw(ip)[8:24], "big")
        f["dip"] = "%032x" % int.from_bytes(raw(ip)[24:40], "big")
        if IPv6ExtHdrFragment in p:
            f["frag_later"] = int(p[IPv6ExtHdrFragment].offset != 0)
            f["proto"] = p[IPv6ExtHdrFragment].nh
    if UDP in p:
        f.update(sport=p[UDP].sport, dport=p[UDP].dport)
        if IPv6 in p:
            f["proto"] = 17
    if TCP in p:
        f.update(sport=p[TCP].sport, dport=p[TCP].dport, tcp_flags=int(p[TCP].flags))
    if ICMP in p:
        f.update(icmp_type=p[ICMP].type, icmp_code=p[ICMP].code)
    if ICMPv6EchoRequest in p:
        f.update(icmp_type=p[ICMPv6EchoRequest].type, icmp_code=p[ICMPv6EchoRequest].code, proto=58)
    if BTH in p:
        bth = p[BTH]
        f.update(bth_opcode=bth.opcode, dqpn=bth.dqpn, psn=bth.psn, ackreq=bth.ackreq, pkey=bth.pkey,
                 becn=bth.becn, fecn=bth.fecn, bth_offset=len(data) - len(raw(bth)))
        if IP in p:
            # scapy recomputes the ICRC over the masked pseudo-header (IPv4 only in scapy 2.5).
            q = Ether(data)
            q[BTH].icrc = None
            f["icrc"] = "%08x" % struct.unpack("<I", raw(q)[-4:])[0]
    if AETH in p:
        f.update(aeth_msn=p[AETH].msn, aeth_syndrome=p[AETH].syndrome)
    if MACControlClassBasedFlowControl in p:
        c = p[MACControlClassBasedFlowControl]
        vec = sum(getattr(c, "c%d_enabled" % i) << i for i in range(8))
        f.update(macc_opcode=0x0101, pfc_vector=vec)
        for i in range(8):
            f["pfc_q%d" % i] = getattr(c, "c%d_pause_time" % i)
    if MACControlPause in p:
        f.update(macc_opcode=1, pause=p[MACControlPause].pause_time)
    if ARP in p:
        f.update(arp_op=p[ARP].op, arp_spa=ip4(p[ARP].psrc), arp_tpa=ip4(p[ARP].pdst), arp_sha=mac(p[ARP].hwsrc))
    if LLDPDUTimeToLive in p:
        f["lldp_ttl"] = p[LLDPDUTimeToLive].ttl
    return f


for i, (name, pkt, reason) in enumerate(frames):
    f = fields(name, blobs[i], reason)
    print(name + "|" + ",".join("%s=%s" % kv for kv in f.items()))
