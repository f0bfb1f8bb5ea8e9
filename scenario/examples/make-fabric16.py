#!/usr/bin/python3
"""Writes the 16-host, two-tier example: fabric16.json (the scenario) and fabric16_<switch>.json (config_db.json of
each switch). Four leaves with four 100G hosts each and two 100G uplinks (2:1 oversubscribed), two spines; RoCE QoS
as the lab's (DSCP 26 -> TC 3 lossless with PFC, WRED/ECN on queue 3 at Kmin 5 kB / Kmax 200 kB / Pmax 1 %, CNPs at
DSCP 48 in queue 6); leaves spread over both spines with the RDMA hash. Hosts 10.<leaf>.<port>.2/24."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LEAVES, SPINES, HOSTS_PER_LEAF = 4, 2, 4


def base(hostname, mac, ports):
    db = {"DEVICE_METADATA": {"localhost": {"hostname": hostname, "mac": mac, "type": "LeafRouter"}},
          "PORT": {}, "INTERFACE": {}, "PORT_QOS_MAP": {}, "QUEUE": {}, "BUFFER_PG": {}, "NEIGH": {}}
    dscp = {str(d): "0" for d in range(64)}
    dscp["26"] = "3"
    dscp["48"] = "6"
    db["DSCP_TO_TC_MAP"] = {"ROCE": dscp}
    db["TC_TO_QUEUE_MAP"] = {"ROCE": {str(t): str(t) for t in range(8)}}
    db["TC_TO_PRIORITY_GROUP_MAP"] = {"ROCE": {str(t): ("3" if t == 3 else "0") for t in range(8)}}
    db["MAP_PFC_PRIORITY_TO_QUEUE"] = {"ROCE": {str(t): str(t) for t in range(8)}}
    db["WRED_PROFILE"] = {"ROCE_LOSSLESS": {"wred_green_enable": "true", "ecn": "ecn_all",
                                            "green_min_threshold": "5000", "green_max_threshold": "200000",
                                            "green_drop_probability": "1"}}
    # SONiC's shape: ingress PGs against an ingress pool (XOFF per lossless PG), egress queues against a lossless
    # pool that never binds (the lossless class is held back by PFC, never dropped) and a dynamic lossy pool.
    db["BUFFER_POOL"] = {"ingress_pool": {"type": "ingress", "mode": "static", "size": "24000000"},
                         "egress_lossless_pool": {"type": "egress", "mode": "static", "size": "24000000"},
                         "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "9000000"}}
    db["BUFFER_PROFILE"] = {
        "pg_lossless_profile": {"pool": "ingress_pool", "size": "0", "static_th": "400000", "xoff": "200000",
                                "xon": "4096"},
        "pg_lossy_profile": {"pool": "ingress_pool", "size": "0", "static_th": "400000"},
        "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "1518", "static_th": "24000000"},
        "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "3"}}
    db["BUFFER_QUEUE"] = {}
    for name, address in ports:
        db["PORT"][name] = {"speed": "100000", "mtu": "9100", "admin_status": "up"}
        db["INTERFACE"][name] = {}
        db["INTERFACE"][name + "|" + address] = {}
        db["PORT_QOS_MAP"][name] = {"dscp_to_tc_map": "ROCE", "tc_to_queue_map": "ROCE", "tc_to_pg_map": "ROCE",
                                    "pfc_to_queue_map": "ROCE", "pfc_enable": "3"}
        db["QUEUE"][name + "|3"] = {"wred_profile": "ROCE_LOSSLESS"}
        db["BUFFER_PG"][name + "|3"] = {"profile": "pg_lossless_profile"}
        db["BUFFER_PG"][name + "|0"] = {"profile": "pg_lossy_profile"}
        db["BUFFER_QUEUE"][name + "|3"] = {"profile": "egress_lossless_profile"}
        db["BUFFER_QUEUE"][name + "|0-2"] = {"profile": "egress_lossy_profile"}
        db["BUFFER_QUEUE"][name + "|4-7"] = {"profile": "egress_lossy_profile"}
    return db


def leaf_mac(n):
    return f"02:ae:00:00:01:{n:02x}"


def spine_mac(s):
    return f"02:ae:00:00:02:{s:02x}"


def leaf(n):
    ports = [(f"Ethernet{4 * p}", f"10.{n}.{p + 1}.1/24") for p in range(HOSTS_PER_LEAF)]
    uplinks = [(f"Ethernet{4 * (HOSTS_PER_LEAF + s)}", f"10.0.{n}{s + 1}.1/24") for s in range(SPINES)]
    db = base(f"leaf{n}", leaf_mac(n), ports + uplinks)
    for s, (port, _) in enumerate(uplinks):
        db["NEIGH"][f"{port}|10.0.{n}{s + 1}.2"] = {"neigh": spine_mac(s + 1), "family": "IPv4"}
    hops = ",".join(f"10.0.{n}{s + 1}.2" for s in range(SPINES))
    ifs = ",".join(p for p, _ in uplinks)
    db["STATIC_ROUTE"] = {f"10.{o}.0.0/16": {"nexthop": hops, "ifname": ifs}
                          for o in range(1, LEAVES + 1) if o != n}
    db["SWITCH_HASH"] = {"GLOBAL": {
        "ecmp_hash": ["SRC_IP", "DST_IP", "L4_SRC_PORT", "L4_DST_PORT", "IP_PROTOCOL"],
        "ecmp_hash_rdma": ["SRC_IP", "DST_IP", "L4_SRC_PORT", "L4_DST_PORT", "IP_PROTOCOL", "RDMA_BTH_DEST_QP"],
        "ecmp_hash_algorithm": "CRC", "ecmp_lb_mode": "enhanced_ecmp"}}
    return db


def spine(s):
    ports = [(f"Ethernet{4 * (n - 1)}", f"10.0.{n}{s}.2/24") for n in range(1, LEAVES + 1)]
    db = base(f"spine{s}", spine_mac(s), ports)
    db["STATIC_ROUTE"] = {}
    for n in range(1, LEAVES + 1):
        port = f"Ethernet{4 * (n - 1)}"
        db["NEIGH"][f"{port}|10.0.{n}{s}.1"] = {"neigh": leaf_mac(n), "family": "IPv4"}
        db["STATIC_ROUTE"][f"10.{n}.0.0/16"] = {"nexthop": f"10.0.{n}{s}.1", "ifname": port}
    return db


def scenario():
    hosts, switches, links = [], [], []
    for n in range(1, LEAVES + 1):
        switches.append({"name": f"leaf{n}", "config": f"fabric16_leaf{n}.json"})
        for p in range(HOSTS_PER_LEAF):
            hosts.append({"name": f"h{n}{p + 1}", "mac": f"02:00:00:00:{n:02x}:{p + 1:02x}",
                          "ip": f"10.{n}.{p + 1}.2", "attach": f"leaf{n}:Ethernet{4 * p}", "cableNs": 500})
        for s in range(1, SPINES + 1):
            links.append({"a": f"leaf{n}:Ethernet{4 * (HOSTS_PER_LEAF + s - 1)}",
                          "b": f"spine{s}:Ethernet{4 * (n - 1)}", "cableNs": 1000})
    for s in range(1, SPINES + 1):
        switches.append({"name": f"spine{s}", "config": f"fabric16_spine{s}.json"})
    return {"name": "fabric16-permutation", "seed": 1, "durationUs": 20000, "sampleUs": 20, "dcqcn": "paper",
            "host": {"mtuPayload": 4096, "windowPackets": 256, "ackTimeoutUs": 1000, "dataDscp": 26,
                     "dataPriority": 3},
            "switches": switches, "hosts": hosts, "links": links,
            "workloads": [{"type": "permutation", "name": "perm", "hosts": [h["name"] for h in hosts],
                           "startUs": 0, "qps": 4, "messages": 40, "sizeCdf": [[262144, 0.0], [262144, 1.0]],
                           "meanGapUs": 80}]}


if __name__ == "__main__":
    for n in range(1, LEAVES + 1):
        json.dump(leaf(n), open(os.path.join(HERE, f"fabric16_leaf{n}.json"), "w"), indent=1)
    for s in range(1, SPINES + 1):
        json.dump(spine(s), open(os.path.join(HERE, f"fabric16_spine{s}.json"), "w"), indent=1)
    json.dump(scenario(), open(os.path.join(HERE, "fabric16.json"), "w"), indent=1)
