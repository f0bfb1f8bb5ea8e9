#!/usr/bin/python3
"""Writes configs/<switch>.json, the startup config_db.json of each switch of the leaf-spine lab (run it after
editing this file; the JSON files are committed). The fabric:

  h1 --eth1 leaf1 eth3-- spine1 --eth2 leaf2 eth1-- h3      hosts 10.<leaf>.<port>.2/24, gateway .1
  h2 --eth2       eth4-- spine2 --          eth2-- h4      leaf-spine links 10.0.<leaf><spine>.0/24, leaf .1, spine .2

Every switch: RoCE QoS (DSCP 26 -> TC 3 -> queue 3 / PG 3, lossless priority 3 with PFC, WRED/ECN on queue 3, the
PFC watchdog on priority 3), CNPs (DSCP 48) in queue 6. Leaves: ECMP over both spines with enhanced ECMP (the RDMA
hash: 5-tuple + BTH destination QP for RoCEv2). leaf2's port toward h4 (Ethernet4) is modeled at 1 Mb/s: the lab's
congested receiver, slow enough that a 2:1 incast of scapy senders (a few hundred frames/s) builds queue 3 past the
WRED and PFC thresholds.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SLOW_MBPS = "1"


def base(hostname, mac, dev_type, ports):
    """ports: list of (sonic name, speed Mb/s, address/prefix)."""
    db = {"DEVICE_METADATA": {"localhost": {"hostname": hostname, "mac": mac, "type": dev_type,
                                            "hwsku": "asic-emu-lab"}},
          "PORT": {}, "INTERFACE": {}, "PORT_QOS_MAP": {}, "QUEUE": {}, "BUFFER_PG": {}, "PFC_WD": {}}
    dscp = {str(d): "0" for d in range(64)}
    dscp["26"] = "3"
    dscp["48"] = "6"
    db["DSCP_TO_TC_MAP"] = {"ROCE": dscp}
    db["TC_TO_QUEUE_MAP"] = {"ROCE": {str(t): str(t) for t in range(8)}}
    db["TC_TO_PRIORITY_GROUP_MAP"] = {"ROCE": {str(t): ("3" if t == 3 else "0") for t in range(8)}}
    db["MAP_PFC_PRIORITY_TO_QUEUE"] = {"ROCE": {str(t): str(t) for t in range(8)}}
    db["WRED_PROFILE"] = {
        # queue 3 of the 100G ports: SONiC's AZURE_LOSSLESS thresholds
        "ROCE_LOSSLESS": {"wred_green_enable": "true", "ecn": "ecn_all", "green_min_threshold": "250000",
                          "green_max_threshold": "2097152", "green_drop_probability": "5"},
        # queue 3 of the slow receiver port: scaled to its rate (8 kB = 64 ms of queue at 1 Mb/s), Kmin and Kmax below
        # the lossless PG's XOFF threshold (20 kB, below), so ECN acts before PFC ("ECN before PFC")
        "ROCE_SLOW_PORT": {"wred_green_enable": "true", "ecn": "ecn_all", "green_min_threshold": "8000",
                           "green_max_threshold": "16000", "green_drop_probability": "100"}}
    db["SCHEDULER"] = {"scheduler.0": {"type": "DWRR", "weight": "14"},
                       "scheduler.1": {"type": "DWRR", "weight": "15"}}
    # priority 3 lossless: XOFF once a port's PG 3 holds 20 kB (400 kB headroom absorbs what is in flight)
    db["BUFFER_POOL"] = {"ingress_pool": {"type": "ingress", "mode": "static", "size": "20000000"}}
    db["BUFFER_PROFILE"] = {
        "pg_lossless_profile": {"pool": "ingress_pool", "size": "0", "static_th": "20000", "xoff": "400000",
                                "xon": "2000"},
        "pg_lossy_profile": {"pool": "ingress_pool", "size": "0", "static_th": "400000"}}
    db["PFC_WD"]["GLOBAL"] = {"POLL_INTERVAL": "200"}
    for name, speed, address in ports:
        db["PORT"][name] = {"speed": speed, "mtu": "9100", "admin_status": "up"}
        db["INTERFACE"][name] = {}
        db["INTERFACE"][name + "|" + address] = {}
        db["PORT_QOS_MAP"][name] = {"dscp_to_tc_map": "ROCE", "tc_to_queue_map": "ROCE", "tc_to_pg_map": "ROCE",
                                    "pfc_to_queue_map": "ROCE", "pfc_enable": "3", "pfcwd_sw_enable": "3"}
        db["QUEUE"][name + "|3"] = {"scheduler": "scheduler.1",
                                    "wred_profile": "ROCE_SLOW_PORT" if speed == SLOW_MBPS else "ROCE_LOSSLESS"}
        db["QUEUE"][name + "|0-2"] = {"scheduler": "scheduler.0"}
        db["QUEUE"][name + "|4-6"] = {"scheduler": "scheduler.0"}
        db["BUFFER_PG"][name + "|3"] = {"profile": "pg_lossless_profile"}
        db["BUFFER_PG"][name + "|0"] = {"profile": "pg_lossy_profile"}
        db["PFC_WD"][name] = {"action": "drop", "detection_time": "200", "restoration_time": "200"}
    return db


def leaf(n):
    ports = [("Ethernet0", "100000", f"10.{n}.1.1/24"),
             ("Ethernet4", SLOW_MBPS if n == 2 else "100000", f"10.{n}.2.1/24"),
             ("Ethernet8", "100000", f"10.0.{n}1.1/24"),
             ("Ethernet12", "100000", f"10.0.{n}2.1/24")]
    db = base(f"leaf{n}", f"02:ae:00:00:00:1{n}", "LeafRouter", ports)
    other = 3 - n
    db["STATIC_ROUTE"] = {f"10.{other}.0.0/16": {"nexthop": f"10.0.{n}1.2,10.0.{n}2.2",
                                                  "ifname": "Ethernet8,Ethernet12"}}
    db["SWITCH_HASH"] = {"GLOBAL": {
        "ecmp_hash": ["SRC_IP", "DST_IP", "L4_SRC_PORT", "L4_DST_PORT", "IP_PROTOCOL"],
        "ecmp_hash_rdma": ["SRC_IP", "DST_IP", "L4_SRC_PORT", "L4_DST_PORT", "IP_PROTOCOL", "RDMA_BTH_DEST_QP"],
        "ecmp_hash_algorithm": "CRC",
        "ecmp_lb_mode": "enhanced_ecmp"}}
    return db


def spine(n):
    ports = [("Ethernet0", "100000", f"10.0.1{n}.2/24"), ("Ethernet4", "100000", f"10.0.2{n}.2/24")]
    db = base(f"spine{n}", f"02:ae:00:00:00:2{n}", "SpineRouter", ports)
    db["STATIC_ROUTE"] = {"10.1.0.0/16": {"nexthop": f"10.0.1{n}.1", "ifname": "Ethernet0"},
                          "10.2.0.0/16": {"nexthop": f"10.0.2{n}.1", "ifname": "Ethernet4"}}
    return db


if __name__ == "__main__":
    for name, db in [("leaf1", leaf(1)), ("leaf2", leaf(2)), ("spine1", spine(1)), ("spine2", spine(2))]:
        with open(os.path.join(HERE, "configs", name + ".json"), "w") as f:
            json.dump(db, f, indent=1)
            f.write("\n")
