#!/usr/bin/env bash
# records an AOT cache from a training run of `run` as docker/build-image.sh's train() does (2 veth ports, P4Runtime on
# loopback, ARP/ping), on the host's JDK, for docs/scripts/startup.sh.
# Usage (root): [TRAINARGS="run options"] docs/scripts/aot-train-run.sh OUT.aot [extra JVM flags for the training run]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"; out="$1"; shift
jar="${JAR:-$root/switchd/target/asic-emu.jar}"
java="$($root/bin/jdk25)/bin/java"
ns="tr$$"; work="$(mktemp -d)"
trap 'ip netns del $ns 2>/dev/null; rm -rf $work' EXIT
ip netns add "$ns"; ip -n "$ns" link set lo up
cat > "$work/c.json" <<'J'
{"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01", "hostname": "train"}},
 "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}, "Ethernet4": {"speed": "100000", "admin_status": "up"}},
 "INTERFACE": {"Ethernet0": {}, "Ethernet4": {}, "Ethernet0|10.9.1.1/24": {}, "Ethernet4|10.9.2.1/24": {}}}
J
for i in 1 2; do
  ip -n "$ns" link add "eth$i" type veth peer name "peer$i"; ip -n "$ns" link set "peer$i" up
  ip netns exec "$ns" ethtool -K "peer$i" tx off >/dev/null
  ip -n "$ns" addr add "10.9.$i.2/24" dev "peer$i"
done
rm -f "$out"
MALLOC_ARENA_MAX=2 ip netns exec "$ns" "$java" "@$root/switchd/jvm.options" -Dasicemu.log=stdout \
  -XX:AOTCacheOutput="$out" -Xlog:aot=error "$@" -jar "$jar" run --config "$work/c.json" --p4runtime-address 127.0.0.1 \
  --status-file "$work/status" ${TRAINARGS:-} > "${TRAINLOG:-$work/log}" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -qs "state=ready" "$work/status" && break; sleep 0.1; done
grep -qs "state=ready" "$work/status" || { cat "$work/log"; exit 1; }
for i in 1 2; do ip netns exec "$ns" ping -c 3 -i 0.2 -W 1 -I "peer$i" "10.9.$i.1" >/dev/null || true; done
kill -TERM "$pid"; wait "$pid" || true
ls -la "$out"
