#!/usr/bin/env bash
# exec -> first forwarded ping of `asic-emu run` as the container runs it (jvm.options, logs to stdout, an AOT
# cache), two veth links present from the start (what a fast wiring gives), h1 pinging h2 every 10 ms from the exec.
# Prints the timeline from the switch's log and, at the first reply, each thread's time on a CPU and waiting for one.
# Usage (root): AOT=cache.aot [JAR=...] [OPTS="extra JVM flags"] [TOP=7] docs/scripts/startup.sh [run options]
# For a quiet-machine measurement on a shared one: setsid bash -c 'echo -20 > /proc/self/autogroup; exec docs/scripts/startup.sh'
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="${JAR:-$root/switchd/target/asic-emu.jar}"
java="${JAVA:-$($root/bin/jdk25)/bin/java}"
ns="st$$"; work="$(mktemp -d)"
cleanup() {
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  [ -n "${ping:-}" ] && kill "$ping" 2>/dev/null || true
  for n in "$ns" "${ns}h1" "${ns}h2"; do ip netns del "$n" 2>/dev/null || true; done
  cp "$work/log" /tmp/startup-last.log 2>/dev/null || true; cp "$work/ping" /tmp/startup-ping-last.log 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for n in "$ns" "${ns}h1" "${ns}h2"; do ip netns add "$n"; ip -n "$n" link set lo up; done
cat > "$work/config.json" <<'J'
{"DEVICE_METADATA": {"localhost": {"mac": "02:ae:00:00:00:99", "hostname": "sw"}},
 "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}, "Ethernet4": {"speed": "100000", "admin_status": "up"},
          "Ethernet8": {"speed": "100000", "admin_status": "up"}},
 "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.10.1.1/24": {}, "Ethernet4": {}, "Ethernet4|10.10.2.1/24": {},
               "Ethernet8": {}, "Ethernet8|10.10.3.1/24": {}}}
J
chmod -R a+rX "$work"
for i in 1 2; do
  ip link add "eth$i" netns "$ns" mtu 9500 type veth peer name eth1 netns "${ns}h$i" mtu 9500
  ip netns exec "${ns}h$i" ethtool -K eth1 tx off >/dev/null
  ip -n "${ns}h$i" link set eth1 up
  ip -n "${ns}h$i" addr add "10.10.$i.2/24" dev eth1
  ip -n "${ns}h$i" route add 10.10.0.0/16 via "10.10.$i.1"
done
aot=(); [ -n "${AOT:-}" ] && aot=(-XX:AOTCache="$AOT")
export MALLOC_ARENA_MAX=2
# shellcheck disable=SC2086
t0=$(date +%s%N)
ip netns exec "$ns" "$java" "@$root/switchd/jvm.options" -Dasicemu.log=stdout \
  "${aot[@]}" ${OPTS:-} -jar "$jar" run --config "$work/config.json" --p4runtime-address 127.0.0.1 \
  --status-file "$work/status" ${RUNARGS:-} "$@" > "$work/log" 2>&1 &
pid=$!
# LabTest's ping (-i 0.01 until one reply); a ping that gave up (its ARP failed while the switch was not there yet) is
# started again
( while ! ip netns exec "${ns}h1" ping -D -i 0.01 -W 1 -c 1 -w 2 10.10.2.2 >> "$work/ping" 2>&1; do :; done ) &
ping=$!
until grep -q "ttl=" "$work/ping"; do
  [ $(( ($(date +%s%N) - t0) / 1000000000 )) -lt 20 ] || { echo "no reply in 20 s"; exit 1; }
  kill -0 "$pid" 2>/dev/null || { echo "switch died"; cat "$work/log"; exit 1; }
  sleep 0.005
done
threads="$(for t in /proc/"$pid"/task/*; do read -r r w _ < "$t/schedstat"; echo "$((r/1000000)) $((w/1000000)) $(cat "$t/comm")"; done | sort -rn)"
cpu=$(awk '{s+=$1} END {print s}' <<< "$threads")
reply=$(grep -m1 "ttl=" "$work/ping" | sed 's/^\[\([0-9.]*\)\].*/\1/')
sleep 1.5
ms() { local at; at=$(grep -m1 "$1" "$work/log" | cut -c1-12); [ -z "$at" ] && { echo "-"; return; }
  echo $(( ($(date -d "$(date -d @$((t0/1000000000)) +%F) $at" +%s%N) - t0) / 1000000 )); }
echo "exec -> eth1 attached $(ms 'port eth1 added') / eth2 $(ms 'port eth2 added') / first reply $(( ($(printf '%.0f' "$(echo "$reply*1000" | bc)") - t0/1000000) )) / live $(ms 'asic-emu live:') ms; CPU at reply $cpu ms; load $(cut -d' ' -f1 /proc/loadavg)"
echo "$threads" | head -${TOP:-7} | awk '{printf "    %5d ran %5d waited  %s %s\n", $1, $2, $3, $4}'
