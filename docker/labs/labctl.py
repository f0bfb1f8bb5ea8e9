#!/usr/bin/python3
"""Point-to-point links for asic-emu labs, wired exactly as containerlab wires them, for docker-compose fabrics and
for machines without containerlab.

  labctl.py wire -f docker-compose.yml [-p PROJECT] [--node NAME]   after `docker-compose up -d`: creates the
      links listed under the compose file's `x-lab: links:` and runs its `x-lab: exec:` commands (host addresses).
      --node: only the links of that node (after it was restarted: a restarted container has lost them).
  labctl.py deploy -t topo.clab.yml      what `containerlab deploy -t` does for this lab's `linux`-kind nodes:
      a management network, the nodes (started first), then the links, then each node's `exec`.
  labctl.py destroy -t topo.clab.yml     removes the nodes and the management network.
  labctl.py wire -t topo.clab.yml [--node NAME]    re-creates links of a deployed topology.

`exec` commands run in the node's network namespace (nsenter; they set addresses and routes), nodes side by side.
Per link (srl-labs/containerlab links/link_veth.go): a veth pair with random names in the host's namespace, MTU
9500 (or the link's `mtu`), then per end: TX checksum offload off (the ethtool ioctl), moved into its node's network
namespace (the container's PID), renamed to the endpoint's name, a MAC from containerlab's OUI aa:c1:ab, up. Like
containerlab, this process does it itself over rtnetlink (no ip/ethtool processes: a link takes about a millisecond)
and asks the docker CLI once for all the containers' PIDs.
Needs root, nsenter (util-linux, for `exec`) and a docker CLI ($DOCKER, default `docker`; DOCKER_HOST is honoured;
podman works).
"""
import argparse
import concurrent.futures
import ctypes
import fcntl
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time

import yaml  # python3-yaml (docker-compose depends on it)

DOCKER = os.environ.get("DOCKER", "docker")
DEFAULT_MTU = 9500
CLAB_MGMT_NETWORK = "clab"
CLAB_MGMT_SUBNET = "172.20.20.0/24"


def run(*cmd, check=True, capture=False):
    r = subprocess.run(list(cmd), check=False, text=True,
                       stdout=subprocess.PIPE if capture else None, stderr=subprocess.PIPE)
    if check and r.returncode != 0:
        sys.exit(f"labctl: {' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout.strip() if capture else r


# ---- rtnetlink and the ethtool ioctl, in this process (containerlab does the same through Go's netlink library):
# a link costs a few system calls instead of a dozen ip/ethtool/nsenter processes (tens of ms each on a small VM,
# which delayed the links of a switch that had just started by over a second).
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 0x1, 0x4, 0x200, 0x400
NLMSG_ERROR = 2
RTM_NEWLINK, RTM_DELLINK, RTM_GETLINK = 16, 17, 18
IFLA_ADDRESS, IFLA_IFNAME, IFLA_MTU, IFLA_LINKINFO, IFLA_NET_NS_FD = 1, 3, 4, 18, 28
IFLA_INFO_KIND, IFLA_INFO_DATA, VETH_INFO_PEER = 1, 2, 1
IFF_UP = 0x1
SIOCETHTOOL, ETHTOOL_GTXCSUM, ETHTOOL_STXCSUM = 0x8946, 0x16, 0x17
CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _attr(kind, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def _name(name):
    return name.encode() + b"\0"


def _ifinfo(index=0, flags=0, change=0):
    return struct.pack("=BxHiII", socket.AF_UNSPEC, 0, index, flags, change)


def _setns(fd, what):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        sys.exit(f"labctl: setns into {what}: {os.strerror(err)}")


class Netlink:
    """NETLINK_ROUTE requests, each acknowledged, on a socket of one network namespace: the one this process was in
    when it was made (a socket stays in the namespace it was created in)."""

    def __init__(self, where):
        self.where = where
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, 0)  # 0: NETLINK_ROUTE
        self.sock.bind((0, 0))
        self.seq = 0

    def request(self, kind, flags, body, what):
        """Sends one request and returns (errno, the messages answered before the acknowledgement)."""
        self.seq += 1
        self.sock.send(struct.pack("=IHHII", 16 + len(body), kind, NLM_F_REQUEST | NLM_F_ACK | flags, self.seq, 0)
                       + body)
        replies = []
        while True:
            data = self.sock.recv(65536)
            at = 0
            while at + 16 <= len(data):
                length, kind_, _, seq, _ = struct.unpack_from("=IHHII", data, at)
                if length < 16:
                    break
                if seq == self.seq:
                    if kind_ == NLMSG_ERROR:
                        return -struct.unpack_from("=i", data, at + 16)[0], replies
                    replies.append((kind_, data[at + 16:at + length]))
                at += (length + 3) & ~3

    def must(self, kind, flags, body, what):
        err, replies = self.request(kind, flags, body, what)
        if err:
            sys.exit(f"labctl: {what} in {self.where}: {os.strerror(err)}")
        return replies

    def index(self, name):
        """The interface's index, or None if there is none of that name."""
        err, replies = self.request(RTM_GETLINK, 0, _ifinfo() + _attr(IFLA_IFNAME, _name(name)), "get " + name)
        if err or not replies:
            return None
        return struct.unpack_from("=BxHiII", replies[0][1])[2]

    def must_index(self, name):
        index = self.index(name)
        if index is None:
            sys.exit(f"labctl: no interface {name} in {self.where}")
        return index

    def add_veth(self, a, b, mtu):
        peer = _ifinfo() + _attr(IFLA_IFNAME, _name(b)) + _attr(IFLA_MTU, struct.pack("=I", mtu))
        info = _attr(IFLA_INFO_KIND, b"veth\0") + _attr(IFLA_INFO_DATA, _attr(VETH_INFO_PEER, peer))
        self.must(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL,
                  _ifinfo() + _attr(IFLA_IFNAME, _name(a)) + _attr(IFLA_MTU, struct.pack("=I", mtu))
                  + _attr(IFLA_LINKINFO, info), f"veth pair {a}/{b} (mtu {mtu})")

    def move(self, name, netns_fd, node):
        self.must(RTM_NEWLINK, 0, _ifinfo(self.must_index(name)) + _attr(IFLA_NET_NS_FD, struct.pack("=I", netns_fd)),
                  f"move {name} into {node}")

    def rename(self, index, name):
        self.must(RTM_NEWLINK, 0, _ifinfo(index) + _attr(IFLA_IFNAME, _name(name)), "rename to " + name)

    def set_mac(self, index, mac, name):
        self.must(RTM_NEWLINK, 0, _ifinfo(index) + _attr(IFLA_ADDRESS, bytes.fromhex(mac.replace(":", ""))),
                  f"address {mac} on {name}")

    def up(self, index, name):
        self.must(RTM_NEWLINK, 0, _ifinfo(index, IFF_UP, IFF_UP), f"{name} up")

    def delete(self, name):
        index = self.index(name)
        if index is not None:
            self.request(RTM_DELLINK, 0, _ifinfo(index), "delete " + name)


def ethtool_tx_off(name):
    """TX checksum offload off, as containerlab's utils.EthtoolTXOff does (ETHTOOL_GTXCSUM, then ETHTOOL_STXCSUM 0 if
    on; the kernel then turns the segmentation offloads that depend on it off too), in this process's namespace."""
    value = ctypes.create_string_buffer(8)  # struct ethtool_value
    ctypes.memmove(value, struct.pack("=II", ETHTOOL_GTXCSUM, 0), 8)
    request = struct.pack("=16sQ", name.encode(), ctypes.addressof(value)).ljust(40, b"\0")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            fcntl.ioctl(s.fileno(), SIOCETHTOOL, request)
            if struct.unpack("=II", value.raw[:8])[1] == 0:
                return
            ctypes.memmove(value, struct.pack("=II", ETHTOOL_STXCSUM, 0), 8)
            fcntl.ioctl(s.fileno(), SIOCETHTOOL, request)
        except OSError as e:
            sys.exit(f"labctl: ethtool tx off on {name}: {e.strerror}")


class Node:
    """A running container's network namespace (through its PID), with a netlink socket opened inside it."""

    def __init__(self, name, pid, host_ns):
        self.name, self.pid = name, pid
        try:
            self.ns_fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        except OSError as e:
            sys.exit(f"labctl: container {name} (pid {pid}): {e.strerror}")
        _setns(self.ns_fd, name)
        try:
            self.netlink = Netlink(name)
        finally:
            _setns(host_ns, "the host's namespace")


def pids(containers):
    """Container → PID for all of them with one `docker inspect`."""
    names = sorted(set(containers))
    r = run(DOCKER, "inspect", "-f", "{{.Name}} {{.State.Pid}}", *names, check=False, capture=True)
    found = {}
    for line in r.splitlines():
        name, _, pid = line.strip().lstrip("/").partition(" ")
        if pid and pid != "0":
            found[name] = pid
    for c in names:
        if c not in found:
            sys.exit(f"labctl: container {c} is not running")
    return found


def random_mac():
    return "aa:c1:ab:%02x:%02x:%02x" % (random.randrange(256), random.randrange(256), random.randrange(256))


def clear_name(node, name):
    """After a peer container restarted, the kernel removes its old veth ends (and so this node's old `name`) when it
    gets round to destroying the old namespace: wait for that, then remove a stale interface still in the way."""
    for _ in range(50):
        if node.netlink.index(name) is None:
            return
        time.sleep(0.1)
    print(f"labctl: removing the stale {name} in the way", file=sys.stderr)
    node.netlink.delete(name)


def wire_link(host, a, a_if, b, b_if, mtu):
    """One veth link between two running containers, as containerlab makes it (links/link_veth.go): a pair with random
    names in the host's namespace; then per end: TX offload off, moved into its node, renamed, a MAC, up."""
    tag = "%06x" % random.randrange(1 << 24)
    a_tmp, b_tmp = "clab-" + tag + "a", "clab-" + tag + "b"
    host.add_veth(a_tmp, b_tmp, mtu)
    try:
        for tmp, node, name in ((a_tmp, a, a_if), (b_tmp, b, b_if)):
            ethtool_tx_off(tmp)
            clear_name(node, name)
            host.move(tmp, node.ns_fd, node.name)
            index = node.netlink.must_index(tmp)
            node.netlink.rename(index, name)
            node.netlink.set_mac(index, random_mac(), name)
            node.netlink.up(index, name)
    except BaseException:
        host.delete(a_tmp)
        host.delete(b_tmp)
        raise


def links_and_exec(doc, compose):
    section = doc.get("x-lab", {}) if compose else doc.get("topology", {})
    links = [l["endpoints"] + [l.get("mtu", DEFAULT_MTU)] for l in section.get("links", [])]
    if compose:
        execs = section.get("exec", {})
    else:
        execs = {n: spec.get("exec", []) for n, spec in section.get("nodes", {}).items()}
    return links, execs


def default_project(compose_file):
    """docker-compose's own default project name for a compose file: its directory's name in lower case, keeping
    a-z, 0-9, "-" and "_" (docker-compose 1.29 and v2), so `docker-compose up` and `labctl wire -f` meet without -p."""
    name = os.path.basename(os.path.dirname(os.path.abspath(compose_file))).lower()
    return "".join(c for c in name if c in "abcdefghijklmnopqrstuvwxyz0123456789-_")


def compose_pids(project):
    """The pids(services) of a compose project's running containers: one `docker ps` and one `docker inspect`."""
    def resolve(services):
        ids = run(DOCKER, "ps", "-q", "--filter", "label=com.docker.compose.project=" + project, capture=True).split()
        found = {}
        if ids:
            out = run(DOCKER, "inspect", "-f", '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Pid}}',
                      *ids, capture=True)
            for line in out.splitlines():
                service, _, pid = line.strip().partition(" ")
                if pid and pid != "0":
                    found.setdefault(service, []).append(pid)
        for service in services:
            if len(found.get(service, [])) != 1:
                sys.exit(f"labctl: expected one running container of service {service} in project {project}, found "
                         f"{len(found.get(service, []))} (docker-compose up -d first)")
        return {service: found[service][0] for service in services}
    return resolve


def clab_pids(lab):
    """The pids(nodes) of a deployed topology's containers (clab-LAB-NODE): one `docker inspect`."""
    def resolve(nodes):
        by_container = pids([clab_container(lab, n) for n in nodes])
        return {n: by_container[clab_container(lab, n)] for n in nodes}
    return resolve


def run_exec(node, pid, commands):
    """A node's exec commands, in order, in its network namespace (they set addresses and routes)."""
    for c in commands:
        r = subprocess.run(["nsenter", "-t", pid, "-n", "sh", "-c", c], text=True, capture_output=True)
        if r.returncode != 0:
            return f"labctl: exec on {node} failed: {c}: {r.stderr.strip()}"
    return None


def do_wire(doc, compose, resolve_pids, only_node):
    links, execs = links_and_exec(doc, compose)
    chosen = []
    for a, b, mtu in links:
        (an, ai), (bn, bi) = a.split(":"), b.split(":")
        if not only_node or only_node in (an, bn):
            chosen.append((an, ai, bn, bi, mtu))
    touched = {n for an, _, bn, _, _ in chosen for n in (an, bn)}
    # a peer's new interface needs its addresses again
    execs = {n: c for n, c in execs.items() if c and (not only_node or n in touched)}
    pid = resolve_pids(sorted(touched | set(execs)))
    host_ns = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    host = Netlink("the host's namespace")
    nodes = {n: Node(n, pid[n], host_ns) for n in sorted(touched)}
    for an, ai, bn, bi, mtu in chosen:
        wire_link(host, nodes[an], ai, nodes[bn], bi, mtu)
    # each node's commands in order, the nodes side by side (containerlab runs them per node, concurrently)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(execs))) as pool:
        failures = [f for f in pool.map(lambda n: run_exec(n, pid[n], execs[n]), execs) if f]
    if failures:
        sys.exit(failures[0])
    print(f"labctl: {len(chosen)} links wired")


def clab_container(lab, node):
    return f"clab-{lab}-{node}"


def do_deploy(doc, topo_dir):
    lab = doc["name"]
    nodes = doc["topology"]["nodes"]
    links, _ = links_and_exec(doc, False)
    if not run(DOCKER, "network", "ls", "-q", "--filter", "name=^" + CLAB_MGMT_NETWORK + "$", capture=True):
        run(DOCKER, "network", "create", "--subnet", CLAB_MGMT_SUBNET, CLAB_MGMT_NETWORK, capture=True)
    commands = []
    for name, spec in nodes.items():
        spec = {**doc["topology"].get("kinds", {}).get(spec.get("kind", "linux"), {}), **spec}
        intfs = sum(1 for l in links for ep in l[:2] if ep.split(":")[0] == name)
        cmd = [DOCKER, "run", "-d", "--name", clab_container(lab, name), "--hostname", name,
               "--network", CLAB_MGMT_NETWORK, "--label", "containerlab=" + lab, "--label", "clab-node-name=" + name,
               "-e", f"CLAB_INTFS={intfs}", "-e", "CLAB_LABEL_CLAB_NODE_NAME=" + name]
        for k, v in spec.get("env", {}).items():
            cmd += ["-e", f"{k}={v}"]
        for bind in spec.get("binds", []):
            src, rest = bind.split(":", 1)
            cmd += ["-v", os.path.join(topo_dir, src) + ":" + rest]
        for cap in spec.get("cap-add", []):
            cmd += ["--cap-add", cap]
        if spec.get("privileged"):
            cmd += ["--privileged"]
        for k, v in spec.get("sysctls", {}).items():
            cmd += ["--sysctl", f"{k}={v}"]
        cmd.append(spec["image"])
        if spec.get("cmd"):
            cmd += spec["cmd"].split()
        commands.append(cmd)
    # every node started before any link, the nodes side by side (containerlab creates them concurrently too)
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(commands) or 1) as pool:
        results = list(pool.map(lambda c: subprocess.run(c, text=True, capture_output=True), commands))
    for cmd, r in zip(commands, results):
        if r.returncode != 0:
            sys.exit(f"labctl: {' '.join(cmd)} failed: {r.stderr.strip()}")
    do_wire(doc, False, clab_pids(lab), None)


def do_destroy(doc):
    lab = doc["name"]
    ids = run(DOCKER, "ps", "-aq", "--filter", "label=containerlab=" + lab, capture=True).split()
    if ids:
        run(DOCKER, "rm", "-f", *ids, capture=True)
    if not run(DOCKER, "ps", "-aq", "--filter", "network=" + CLAB_MGMT_NETWORK, capture=True):
        run(DOCKER, "network", "rm", CLAB_MGMT_NETWORK, check=False, capture=True)
    print(f"labctl: {len(ids)} nodes removed")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=["wire", "deploy", "destroy"])
    p.add_argument("-f", "--compose-file")
    p.add_argument("-p", "--project", help="compose project (default: the compose file's directory name)")
    p.add_argument("-t", "--topo")
    p.add_argument("--node", help="wire: only this node's links and exec")
    a = p.parse_args()
    if bool(a.compose_file) == bool(a.topo):
        p.error("give exactly one of -f COMPOSE_FILE or -t TOPO")
    path = a.compose_file or a.topo
    with open(path) as f:
        doc = yaml.safe_load(f)
    if a.compose_file:
        if a.action != "wire":
            p.error("with -f only wire (docker-compose up/down does the rest)")
        project = a.project or os.environ.get("COMPOSE_PROJECT_NAME") or default_project(path)
        do_wire(doc, True, compose_pids(project), a.node)
    elif a.action == "deploy":
        do_deploy(doc, os.path.dirname(os.path.abspath(path)))
    elif a.action == "destroy":
        do_destroy(doc)
    else:
        do_wire(doc, False, clab_pids(doc["name"]), a.node)


if __name__ == "__main__":
    main()
