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

`exec` commands run in the node's network namespace (nsenter; they set addresses and routes).
Per link (srl-labs/containerlab links/link_veth.go): a veth pair with random names in the host's namespace, MTU
9500 (or the link's `mtu`), TX checksum offload off on both ends (ethtool), each end moved into its node's network
namespace (the container's PID), renamed to the endpoint's name, a MAC from containerlab's OUI aa:c1:ab, up.
Needs root, iproute2, ethtool and a docker CLI ($DOCKER, default `docker`; DOCKER_HOST is honoured; podman works).
"""
import argparse
import json
import os
import random
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


_pids = {}


def container_pid(container):
    if container not in _pids:
        pid = run(DOCKER, "inspect", "-f", "{{.State.Pid}}", container, capture=True)
        if not pid or pid == "0":
            sys.exit(f"labctl: container {container} is not running")
        _pids[container] = pid
    return _pids[container]


def random_mac():
    return "aa:c1:ab:%02x:%02x:%02x" % (random.randrange(256), random.randrange(256), random.randrange(256))


def clear_name(ns, name):
    """After a peer container restarted, the kernel removes its old veth ends (and so this node's old `name`) when it
    gets round to destroying the old namespace: wait for that, then remove a stale interface still in the way."""
    for _ in range(50):
        if subprocess.run([*ns, "ip", "link", "show", name], capture_output=True).returncode != 0:
            return
        time.sleep(0.1)
    print(f"labctl: removing the stale {name} in the way", file=sys.stderr)
    run(*ns, "ip", "link", "del", name)


def wire_link(a_container, a_if, b_container, b_if, mtu):
    """One veth link between two running containers, as containerlab makes it."""
    a_pid, b_pid = container_pid(a_container), container_pid(b_container)
    tag = "%06x" % random.randrange(1 << 24)
    a_tmp, b_tmp = "clab-" + tag + "a", "clab-" + tag + "b"
    run("ip", "link", "add", a_tmp, "mtu", str(mtu), "type", "veth", "peer", "name", b_tmp, "mtu", str(mtu))
    try:
        for tmp, pid, name in ((a_tmp, a_pid, a_if), (b_tmp, b_pid, b_if)):
            run("ethtool", "-K", tmp, "tx", "off", capture=True)
            run("ip", "link", "set", tmp, "netns", pid)
            ns = ("nsenter", "-t", pid, "-n")
            clear_name(ns, name)
            run(*ns, "ip", "link", "set", tmp, "name", name)
            run(*ns, "ip", "link", "set", name, "address", random_mac())
            run(*ns, "ip", "link", "set", name, "up")
    except SystemExit:
        run("ip", "link", "del", a_tmp, check=False)
        raise


def links_and_exec(doc, compose):
    section = doc.get("x-lab", {}) if compose else doc.get("topology", {})
    links = [l["endpoints"] + [l.get("mtu", DEFAULT_MTU)] for l in section.get("links", [])]
    if compose:
        execs = section.get("exec", {})
    else:
        execs = {n: spec.get("exec", []) for n, spec in section.get("nodes", {}).items()}
    return links, execs


_compose_ids = {}


def compose_container(project, service):
    if service in _compose_ids:
        return _compose_ids[service]
    ids = run(DOCKER, "ps", "-q", "--filter", "label=com.docker.compose.project=" + project,
              "--filter", "label=com.docker.compose.service=" + service, capture=True).split()
    if len(ids) != 1:
        sys.exit(f"labctl: expected one running container of service {service} in project {project}, found "
                 f"{len(ids)} (docker-compose up -d first)")
    _compose_ids[service] = ids[0]
    return ids[0]


def do_wire(doc, compose, resolve, only_node):
    links, execs = links_and_exec(doc, compose)
    wired = 0
    touched = set()
    for a, b, mtu in links:
        (an, ai), (bn, bi) = a.split(":"), b.split(":")
        if only_node and only_node not in (an, bn):
            continue
        wire_link(resolve(an), ai, resolve(bn), bi, mtu)
        touched.update((an, bn))
        wired += 1
    for node, commands in execs.items():
        if only_node and node not in touched:  # a peer's new interface needs its addresses again
            continue
        # the commands configure the node's network (addresses, routes): run them in its network namespace
        pid = container_pid(resolve(node))
        for c in commands:
            r = subprocess.run(["nsenter", "-t", pid, "-n", "sh", "-c", c], text=True, capture_output=True)
            if r.returncode != 0:
                sys.exit(f"labctl: exec on {node} failed: {c}: {r.stderr.strip()}")
    print(f"labctl: {wired} links wired")


def clab_container(lab, node):
    return f"clab-{lab}-{node}"


def do_deploy(doc, topo_dir):
    lab = doc["name"]
    nodes = doc["topology"]["nodes"]
    links, _ = links_and_exec(doc, False)
    if not run(DOCKER, "network", "ls", "-q", "--filter", "name=^" + CLAB_MGMT_NETWORK + "$", capture=True):
        run(DOCKER, "network", "create", "--subnet", CLAB_MGMT_SUBNET, CLAB_MGMT_NETWORK, capture=True)
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
        run(*cmd, capture=True)
    do_wire(doc, False, lambda n: clab_container(lab, n), None)


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
        project = a.project or os.environ.get("COMPOSE_PROJECT_NAME") or \
            "".join(c for c in os.path.basename(os.path.dirname(os.path.abspath(path))).lower() if c.isalnum())
        do_wire(doc, True, lambda n: compose_container(project, n), a.node)
    elif a.action == "deploy":
        do_deploy(doc, os.path.dirname(os.path.abspath(path)))
    elif a.action == "destroy":
        do_destroy(doc)
    else:
        do_wire(doc, False, lambda n: clab_container(doc["name"], n), a.node)


if __name__ == "__main__":
    main()
