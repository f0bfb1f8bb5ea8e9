"""Frame sender for the asic-emu veth harness (scapy 2.5, Debian python3-scapy).

Sub-commands (all send on --iface and print "sent N"; --print also prints each frame as hex, --dry-run only prints):
  hex  --frames HEX[,HEX...] [--count N]                      raw frames
  roce --smac --dmac --sip --dip --qps Q[,Q...] [--dscp 26] [--ecn 2] [--count 1] [--sport 49152] [--payload 16]
       RoCEv2 RC SEND_ONLY with a valid ICRC (scapy.contrib.roce), one frame per QP per count
  pfc  --smac [--enable MASK] [--quanta Q] [--count 1] [--interval 0]   802.1Qbb PFC frames (all enabled classes get Q)
  udp  --smac --dmac --sip --dip [--dscp 0] [--ecn 0] [--count 1] [--size 64] [--sport 1234] [--dport 5678]
  arp  --smac --sip --dip                                      an ARP request
"""
import argparse
import sys
from scapy.all import Ether, IP, UDP, ARP, Raw, sendp, conf
from scapy.contrib.roce import BTH
from scapy.contrib.mac_control import MACControlClassBasedFlowControl

conf.verb = 0


def pad(frame, size):
    missing = size - len(frame)
    return frame / Raw(b"\x00" * missing) if missing > 0 else frame


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode")
    p.add_argument("--iface", required=True)
    p.add_argument("--frames")
    p.add_argument("--smac")
    p.add_argument("--dmac")
    p.add_argument("--sip")
    p.add_argument("--dip")
    p.add_argument("--qps")
    p.add_argument("--dscp", type=int, default=0)
    p.add_argument("--ecn", type=int, default=0)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--sport", type=int, default=49152)
    p.add_argument("--dport", type=int, default=5678)
    p.add_argument("--payload", type=int, default=16)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--enable", type=lambda s: int(s, 0), default=0x08)
    p.add_argument("--quanta", type=int, default=0xffff)
    p.add_argument("--interval", type=float, default=0.0)
    p.add_argument("--print", action="store_true", help="print each frame as hex")
    p.add_argument("--dry-run", action="store_true", help="build and print, do not send")
    a = p.parse_args()

    frames = []
    if a.mode == "hex":
        frames = [Ether(bytes.fromhex(h)) for h in a.frames.split(",")] * a.count
    elif a.mode == "roce":
        tos = (a.dscp << 2) | a.ecn
        for _ in range(a.count):
            for qp in a.qps.split(","):
                frames.append(Ether(src=a.smac, dst=a.dmac) / IP(src=a.sip, dst=a.dip, tos=tos, flags="DF")
                              / UDP(sport=a.sport, dport=4791, chksum=0)
                              / BTH(opcode=4, pkey=0xffff, dqpn=int(qp, 0), ackreq=1, psn=100)
                              / Raw(bytes((48 + i) % 256 for i in range(a.payload))))
    elif a.mode == "pfc":
        fields = {}
        for c in range(8):
            enabled = (a.enable >> c) & 1
            fields["c%d_enabled" % c] = enabled
            fields["c%d_pause_time" % c] = a.quanta if enabled else 0
        frame = Ether(src=a.smac, dst="01:80:c2:00:00:01") / MACControlClassBasedFlowControl(**fields)
        frames = [frame] * a.count
    elif a.mode == "udp":
        tos = (a.dscp << 2) | a.ecn
        base = Ether(src=a.smac, dst=a.dmac) / IP(src=a.sip, dst=a.dip, tos=tos) / UDP(sport=a.sport, dport=a.dport)
        frames = [pad(base, a.size)] * a.count
    elif a.mode == "arp":
        frames = [Ether(src=a.smac, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=a.smac, psrc=a.sip, pdst=a.dip)]
    else:
        sys.exit("unknown mode " + a.mode)
    if a.print or a.dry_run:
        for f in frames:
            print(bytes(f).hex())
    if not a.dry_run:
        sendp(frames, iface=a.iface, inter=a.interval, verbose=0)
        print("sent %d" % len(frames))


main()
