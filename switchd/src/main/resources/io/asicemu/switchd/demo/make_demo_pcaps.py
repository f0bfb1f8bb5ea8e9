#!/usr/bin/python3
"""Builds the demo's input captures with scapy (an oracle independent of asic-emu's own frame builders).

leaf0 has two host ports (Ethernet0: h0 10.0.0.1, Ethernet4: h1 10.0.1.1) and four uplinks (Ethernet8..20 to spines
10.1.0.1/3/5/7). The captures, each the traffic a link partner sends into one switch port, at 100G line rate:
  Ethernet0: h0 runs 64 RoCEv2 queue pairs that share one UDP 5-tuple (low entropy) towards 10.200.0.10, routed
             by the 4-way ECMP route 10.200.0.0/16; plus an ARP request for the switch's address, a frame with TTL 1
             and a truncated IPv4 frame.
  Ethernet8, Ethernet12: two spines send RoCEv2 WRITEs (ECT(0), DSCP 3 -> lossless TC3) to h1 at line rate each:
             a 2:1 incast into Ethernet4, which builds queue 3 up past the WRED/ECN thresholds.
Run from this folder:  /usr/bin/python3 make_demo_pcaps.py   (writes *.pcap.gz with nanosecond timestamps)
"""
import gzip
import os
from scapy.all import Ether, IP, UDP, ARP, Raw, PcapWriter
from scapy.contrib.roce import BTH

SPEED_BPS = 100e9
OVERHEAD = 4 + 8 + 12  # FCS + preamble/SFD + inter-frame gap, not in the capture
ROUTER_MAC = "02:ae:00:00:00:01"
START_S = 1.0


def wire_seconds(frame):
    return (len(frame) + OVERHEAD) * 8 / SPEED_BPS


def write(name, frames):
    """frames: list of (frame, earliest send time); sent back to back at line rate."""
    tmp = name + ".tmp"
    writer = PcapWriter(tmp, linktype=1, nano=True, sync=False)
    t = START_S
    for frame, not_before in frames:
        t = max(t, not_before)
        frame.time = t
        writer.write(frame)
        t += wire_seconds(frame)
    writer.close()
    with open(tmp, "rb") as src, gzip.GzipFile(name + ".gz", "wb", mtime=0) as dst:
        dst.write(src.read())
    os.remove(tmp)


def roce_write(src_mac, src_ip, dst_ip, sport, qp, psn, payload_len, dscp=3, ecn=2, ttl=64):
    # RC RDMA WRITE Only (opcode 10) with its RETH; scapy computes the ICRC.
    reth = bytes.fromhex("0000100000000000") + (0x1234).to_bytes(4, "big") + payload_len.to_bytes(4, "big")
    return (Ether(src=src_mac, dst=ROUTER_MAC) /
            IP(src=src_ip, dst=dst_ip, tos=(dscp << 2) | ecn, ttl=ttl, id=psn & 0xFFFF, flags="DF") /
            UDP(sport=sport, dport=4791, chksum=0) /
            BTH(opcode=10, pkey=0xFFFF, dqpn=qp, ackreq=1, psn=psn) /
            Raw(reth + bytes((i * 7) & 0xFF for i in range(payload_len))))


def host0():
    frames = [(Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") /
               ARP(op=1, hwsrc="02:00:00:00:00:01", psrc="10.0.0.1", pdst="10.0.0.0"), 0)]
    for burst in range(16):
        for qp in range(64):
            frames.append((roce_write("02:00:00:00:00:01", "10.0.0.1", "10.200.0.10", 49152, 0x100 + qp,
                                      burst, 1024), 0))
    frames.append((Ether(src="02:00:00:00:00:01", dst=ROUTER_MAC) /
                   IP(src="10.0.0.1", dst="10.200.0.10", ttl=1) / UDP(sport=1234, dport=5678) / Raw(b"x" * 32), 0))
    truncated = bytes(Ether(src="02:00:00:00:00:01", dst=ROUTER_MAC) / IP(src="10.0.0.1", dst="10.200.0.10") /
                      UDP() / Raw(b"y" * 64))[:40]
    frames.append((Ether(truncated), 0))
    return frames


def spine(index, count):
    mac = "02:00:00:00:01:%02x" % index
    src = "10.2%d.0.1" % index
    return [(roce_write(mac, src, "10.0.1.1", 49152 + index, 0x200 + index, psn, 1024), 0) for psn in range(count)]


write("Ethernet0.pcap", host0())
write("Ethernet8.pcap", spine(1, 4000))
write("Ethernet12.pcap", spine(3, 4000))
