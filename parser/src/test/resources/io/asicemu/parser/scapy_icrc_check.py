#!/usr/bin/python3
# ICRC/FCS oracle: reads a pcap written by the Java tests and prints, per frame, what scapy (contrib.roce) computes.
# IPv4 RoCEv2: scapy recomputes the ICRC (q[BTH].icrc = None). IPv6 RoCEv2 (scapy 2.5 cannot): an independent
# masked pseudo-header CRC as in Linux rxe_icrc.c. MAC control frames of 64 bytes: zlib CRC-32 of the first 60 bytes
# against the stored FCS. Output lines: index|kind=...,stored=xxxxxxxx,computed=xxxxxxxx
import struct
import sys
import zlib

from scapy.all import IP, UDP, Ether, IPv6, raw, rdpcap, conf
from scapy.contrib.roce import BTH

conf.verb = 0


def ipv6_icrc(data, ip_off):
    ip = bytearray(data[ip_off:ip_off + 40])
    ip[0] |= 0x0F          # traffic class (low nibble of byte 0 and high nibble of byte 1) and flow label
    ip[1] = ip[2] = ip[3] = 0xFF
    ip[7] = 0xFF           # hop limit
    udp = bytearray(data[ip_off + 40:ip_off + 48])
    udp[6] = udp[7] = 0xFF
    bth_and_rest = bytearray(data[ip_off + 48:-4])
    bth_and_rest[4] = 0xFF
    return zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth_and_rest)) & 0xFFFFFFFF


for i, p in enumerate(rdpcap(sys.argv[1])):
    data = raw(p)
    if BTH in p and IP in p:
        q = Ether(data)
        q[BTH].icrc = None
        computed = struct.unpack("<I", raw(q)[-4:])[0]
        kind = "roce4"
    elif BTH in p and IPv6 in p:
        computed = ipv6_icrc(data, len(data) - len(raw(p[IPv6])))
        kind = "roce6"
    elif p.type == 0x8808 and len(data) == 64:
        computed = zlib.crc32(data[:60]) & 0xFFFFFFFF
        kind = "fcs"
    else:
        continue
    stored = struct.unpack("<I", data[-4:])[0]
    print("%d|kind=%s,stored=%08x,computed=%08x" % (i, kind, stored, computed))
