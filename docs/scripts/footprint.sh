#!/usr/bin/env bash
# Footprint of `asic-emu run` (root): 32 ports on veth pairs inside a private network namespace, no traffic.
# Prints the time from exec to the first forwarded ping (through Ethernet0 -> Ethernet4, routed) and VmRSS/VmHWM from
# /proc/<pid>/status after it settles. Extra arguments go to `run` (e.g. --max-routes 1048576).
# Usage: docs/scripts/footprint.sh [run options...]   (JAVA_OPTS_EXTRA is passed to the launcher's JVM)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ns="fp$$"
work="$(mktemp -d)"
cleanup() {
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  ip netns del "${ns}h1" 2>/dev/null || true
  ip netns del "${ns}h2" 2>/dev/null || true
  cp "$work/log" /tmp/footprint-last.log 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns"; ip netns add "${ns}h1"; ip netns add "${ns}h2"
ip -n "$ns" link set lo up
python3 - "$work/config_db.json" <<'PY'
import json, sys
ports = {f"Ethernet{4*i}": {"speed": "100000", "admin_status": "up", "mtu": "9100"} for i in range(32)}
intf = {}
for i in range(2):  # the ping path; the other 30 ports are free for a controller's router interfaces
    intf[f"Ethernet{4*i}"] = {}
    intf[f"Ethernet{4*i}|10.0.{i}.1/24"] = {}
cfg = {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}}, "PORT": ports, "INTERFACE": intf}
json.dump(cfg, open(sys.argv[1], "w"))
PY
for i in $(seq 1 32); do
  if [ "$i" -le 2 ]; then
    ip link add "eth$i" netns "$ns" type veth peer name "h$i" netns "${ns}h$i"
  else
    ip -n "$ns" link add "eth$i" type veth peer name "p$i"
    ip -n "$ns" link set "p$i" up
  fi
  ip -n "$ns" link set "eth$i" up
done
for h in 1 2; do
  ip -n "${ns}h$h" link set lo up
  ip -n "${ns}h$h" link set "h$h" up
  ip -n "${ns}h$h" addr add "10.0.$((h - 1)).2/24" dev "h$h"
  ip -n "${ns}h$h" route add default via "10.0.$((h - 1)).1"
done
"$root/bin/asic-emu" --help >/dev/null 2>&1   # builds the jar first if needed, outside the timing
start=$(date +%s%N)
ip netns exec "$ns" "$root/bin/asic-emu" run --config "$work/config_db.json" "$@" >"$work/log" 2>&1 &
pid=$!
until ip netns exec "${ns}h1" ping -c 1 -W 0.05 -q 10.0.1.2 >/dev/null 2>&1; do
  [ $(( ($(date +%s%N) - start) / 1000000 )) -lt 20000 ] || { echo "no forwarding after 20 s"; cat "$work/log"; exit 1; }
done
echo "start to first forwarded ping: $(( ($(date +%s%N) - start) / 1000000 )) ms"
echo "  exec at $(date -d "@$((start / 1000000000)).$(printf %03d $(( (start / 1000000) % 1000 )))" +%T.%3N)," \
  "first port attached at $(grep -m1 -o '^[0-9:.]* .*port eth[0-9]* added' "$work/log" | cut -d' ' -f1)," \
  "P4Runtime serving at $(grep -m1 -o '^[0-9:.]* .*asic-emu live:' "$work/log" | cut -d' ' -f1)"
sleep 5
jpid=$(pgrep -P "$pid" java || echo "$pid")
# HOOK=script: run with the switch's pid now (e.g. a smaps / NMT breakdown; NMT needs
# ASIC_EMU_JAVA_OPTS=-XX:NativeMemoryTracking=summary)
[ -n "${HOOK:-}" ] && bash "$HOOK" "$jpid" || true
grep -E 'VmRSS|VmHWM' "/proc/$jpid/status"
echo "threads: $(ls /proc/$jpid/task | wc -l)"
if [ -n "${ROUNDS:-}" ]; then
  # P4Runtime churn: ROUNDS x (insert ENTRIES routes, delete them), RSS after each phase (benchmarks.jar must exist)
  ip netns exec "$ns" "$("$root/bin/jdk25")/bin/java" -Xmx256m -cp "$root/benchmarks/target/benchmarks.jar" \
    io.asicemu.bench.p4rt.WriteRounds 127.0.0.1 9559 "$jpid" "$ROUNDS" "${ENTRIES:-100000}" 2 ${KEEP:+keep}
  sleep 10
  echo "10 s after the last round: $(grep -E 'VmRSS' "/proc/$jpid/status" | tr -s ' \t' ' ')"
  sleep 30
  echo "40 s after the last round: $(grep -E 'VmRSS' "/proc/$jpid/status" | tr -s ' \t' ' ')"
  [ -n "${AFTER_HOOK:-}" ] && bash "$AFTER_HOOK" "$jpid" || true
fi
