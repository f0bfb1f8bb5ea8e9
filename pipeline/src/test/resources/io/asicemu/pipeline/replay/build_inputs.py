# Builds the replay golden inputs with scapy (an independent packet builder). Usage: build_inputs.py SCENARIO OUTDIR
import sys
from scapy.all import Ether, IP, IPv6, UDP, ARP, Raw, wrpcap
from scapy.layers.inet6 import ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr

ROUTER = "02:aa:bb:cc:dd:ee"
HOST = "02:00:00:00:01:02"
scenario, out = sys.argv[1], sys.argv[2]

def stamp(pkts, start=1.0, gap=1e-6):
    for i, p in enumerate(pkts):
        p.time = start + i * gap
    return pkts

def bth(opcode, dest_qp, psn):
    # InfiniBand BTH: opcode, SE/M/pad/tver, P_Key, reserved, dest QP (24 bits), A/reserved, PSN (24 bits); + ICRC.
    return bytes([opcode, 0, 0xff, 0xff, 0]) + dest_qp.to_bytes(3, "big") + bytes([0x80]) + psn.to_bytes(3, "big")

if scenario == "routed":
    pkts = [Ether(dst=ROUTER, src=HOST) / IP(src="10.0.1.2", dst="192.168.7.9", ttl=64) / UDP(sport=1234, dport=5678)
            / Raw(b"v4-payload-%d" % i) for i in range(3)]
    pkts += [Ether(dst=ROUTER, src=HOST) / IPv6(src="2001:db8:1::2", dst="2001:db8:100::9", hlim=64)
             / UDP(sport=1234, dport=5678) / Raw(b"v6-payload-%d" % i) for i in range(3)]
    pkts += [Ether(dst=ROUTER, src=HOST) / IP(src="10.0.1.2", dst="192.168.7.9", ttl=1) / UDP(sport=1, dport=2)]
    wrpcap(out + "/Ethernet0.pcap", stamp(pkts), nano=True)
elif scenario == "roce":
    from scapy.contrib.roce import BTH
    pkts = []
    for flow in range(64):
        for n in range(4):
            # scapy's BTH computes the RoCEv2 ICRC itself (icrc=None), an oracle independent of our parser.
            pkts.append(Ether(dst=ROUTER, src=HOST)
                        / IP(src="10.0.1.2", dst="172.16.%d.%d" % (flow // 8, flow % 8 + 1), ttl=64, tos=0x68)
                        / UDP(sport=49152 + flow, dport=4791, chksum=0)
                        / BTH(opcode=0x04, dqpn=0x100 + flow, psn=n) / Raw(bytes(16)))
    wrpcap(out + "/Ethernet0.pcap", stamp(pkts, gap=2e-6), nano=True)
elif scenario == "arp":
    pkts = [Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST) / ARP(op=1, hwsrc=HOST, psrc="10.0.1.2", pdst="10.0.1.1")]
    pkts += [Ether(dst="33:33:ff:00:00:01", src=HOST)
             / IPv6(src="2001:db8:1::2", dst="ff02::1:ff00:1", hlim=255)
             / ICMPv6ND_NS(tgt="2001:db8:1::1") / ICMPv6NDOptSrcLLAddr(lladdr=HOST)]
    wrpcap(out + "/Ethernet0.pcap", stamp(pkts), nano=True)
elif scenario == "ping":
    from scapy.all import ICMP
    from scapy.layers.inet6 import ICMPv6EchoRequest
    pkts = [Ether(dst=ROUTER, src=HOST) / IP(src="10.0.1.2", dst="10.0.1.1", ttl=64) / ICMP(id=7, seq=1)
            / Raw(b"ping-gateway")]
    pkts += [Ether(dst=ROUTER, src=HOST) / IPv6(src="2001:db8:1::2", dst="2001:db8:1::1", hlim=64)
             / ICMPv6EchoRequest(id=7, seq=2, data=b"ping6-gateway")]
    wrpcap(out + "/Ethernet0.pcap", stamp(pkts), nano=True)
else:
    raise SystemExit("unknown scenario " + scenario)
print("ok")
