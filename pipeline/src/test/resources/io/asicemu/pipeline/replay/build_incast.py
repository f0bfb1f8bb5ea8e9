# Builds incast inputs with scapy (independent packet builder): RoCEv2 (IPv4/UDP 4791/BTH RC SEND_ONLY, ICRC by
# scapy.contrib.roce) from N senders into one receiver, every sender at line rate.
# Usage: build_incast.py OUTDIR SENDERS FRAMES FRAME_LEN DSCP ECN GAP_NS
import sys
from decimal import Decimal
from scapy.all import Ether, IP, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH

ROUTER = "02:aa:bb:cc:dd:ee"
out = sys.argv[1]
senders, frames, frame_len, dscp, ecn, gap_ns = (int(a) for a in sys.argv[2:8])
for s in range(senders):
    pkts = []
    for n in range(frames):
        p = (Ether(dst=ROUTER, src="02:00:00:00:0%d:02" % (s + 1))
             / IP(src="10.0.%d.2" % (s + 1), dst="10.0.9.2", ttl=64, tos=(dscp << 2) | ecn)
             / UDP(sport=49152 + s, dport=4791)
             / BTH(opcode=4, dqpn=0x100 + s, psn=n))
        p = p / Raw(bytes(frame_len - len(p)))  # len(p) counts the 4-byte ICRC scapy appends
        # ns timestamps: one frame every gap_ns from t = 1 s, exact (Decimal)
        p.time = Decimal(1) + Decimal(n * gap_ns) / Decimal(10**9)
        pkts.append(p)
    assert len(bytes(pkts[0])) == frame_len, len(bytes(pkts[0]))
    wrpcap("%s/Ethernet%d.pcap" % (out, 4 * s), pkts, nano=True)
print("ok")
