# Recomputes the RoCEv2 ICRC of every BTH frame in a capture with scapy and prints "valid N invalid M".
import sys
from scapy.all import rdpcap, raw, Ether
from scapy.contrib.roce import BTH

valid = invalid = 0
for p in rdpcap(sys.argv[1]):
    if BTH not in p:
        continue
    q = p.copy()
    q[BTH].icrc = None
    if Ether(raw(q))[BTH].icrc == p[BTH].icrc:
        valid += 1
    else:
        invalid += 1
print("valid %d invalid %d" % (valid, invalid))
