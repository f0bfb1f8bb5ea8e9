#!/usr/bin/env bash
# Footprint of `asic-emu run` (root): PORTS (default 32) ports on veth pairs of MTU (default 1500) inside a private
# network namespace, no traffic. Prints the time from exec to the first forwarded ping (through Ethernet0 -> Ethernet4,
# routed), the CPU time the process used until then (user + system: a start-up cost that does not depend on the
# machine's load, unlike the wall clock), and VmRSS/VmHWM from /proc/<pid>/status after it settles. Extra arguments go
# to `run` (e.g. --max-routes 1048576).
# Usage: [PORTS=4] [MTU=9500] [CONFIG=config_db.json] docs/scripts/footprint.sh [run options...]
#   (ASIC_EMU_JAVA_OPTS adds JVM flags; CONFIG runs that config instead of the generated one, e.g. the lab's
#   docker/labs/leaf-spine/configs/leaf1.json with PORTS=4: the ping goes between the first two ports' subnets)
#   TIMEOUT_S (20) bounds the wait for the first forwarded ping (a loaded machine needs more)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ns="fp$$"
ports="${PORTS:-32}"
mtu="${MTU:-1500}"
[ "$ports" -ge 2 ] || { echo "PORTS must be >= 2" >&2; exit 2; }
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
chmod 755 "$work"
# prints the two hosts' "address/len gateway" lines (Ethernet0's and Ethernet4's subnets)
mapfile -t hosts < <(python3 - "$work/config_db.json" "$ports" "${CONFIG:-}" <<'PY'
import ipaddress, json, sys
if sys.argv[3]:
    cfg = json.load(open(sys.argv[3]))
else:
    ports = {f"Ethernet{4*i}": {"speed": "100000", "admin_status": "up", "mtu": "9100"} for i in range(int(sys.argv[2]))}
    intf = {}
    for i in range(2):  # the ping path; the other 30 ports are free for a controller's router interfaces
        intf[f"Ethernet{4*i}"] = {}
        intf[f"Ethernet{4*i}|10.0.{i}.1/24"] = {}
    cfg = {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:bb:cc:dd:ee"}}, "PORT": ports, "INTERFACE": intf}
json.dump(cfg, open(sys.argv[1], "w"))
for port in ("Ethernet0", "Ethernet4"):
    gw = next(ipaddress.ip_interface(k.split("|")[1]) for k in cfg["INTERFACE"] if k.startswith(port + "|"))
    host = next(a for a in gw.network.hosts() if a != gw.ip)
    print(f"{host}/{gw.network.prefixlen} {gw.ip}")
PY
)
for i in $(seq 1 "$ports"); do
  if [ "$i" -le 2 ]; then
    ip link add "eth$i" netns "$ns" mtu "$mtu" type veth peer name "h$i" netns "${ns}h$i" mtu "$mtu"
  else
    ip -n "$ns" link add "eth$i" mtu "$mtu" type veth peer name "p$i" mtu "$mtu"
    ip -n "$ns" link set "p$i" up
  fi
  ip -n "$ns" link set "eth$i" up
done
for h in 1 2; do
  read -r address gateway <<<"${hosts[$((h - 1))]}"
  ip -n "${ns}h$h" link set lo up
  ip -n "${ns}h$h" link set "h$h" up
  ip -n "${ns}h$h" addr add "$address" dev "h$h"
  ip -n "${ns}h$h" route add default via "$gateway"
done
target="${hosts[1]%%/*}"
"$root/bin/asic-emu" --help >/dev/null 2>&1   # builds the jar first if needed, outside the timing
start=$(date +%s%N)
# RUN_AS=user: the switch runs as that user with CAP_NET_ADMIN and CAP_NET_RAW only (ambient capabilities, setpriv)
as=()
[ -n "${RUN_AS:-}" ] && as=(setpriv --reuid "$RUN_AS" --regid "$(id -g "$RUN_AS")" --clear-groups --inh-caps=-all,+net_admin,+net_raw
  --ambient-caps=-all,+net_admin,+net_raw --bounding-set=-all,+net_admin,+net_raw --)
ip netns exec "$ns" "${as[@]}" "$root/bin/asic-emu" run --config "$work/config_db.json" "$@" >"$work/log" 2>&1 &
pid=$!
until ip netns exec "${ns}h1" ping -c 1 -W 0.05 -q "$target" >/dev/null 2>&1; do
  [ $(( ($(date +%s%N) - start) / 1000000 )) -lt $(( ${TIMEOUT_S:-20} * 1000 )) ] || { echo "no forwarding after ${TIMEOUT_S:-20} s"; cat "$work/log"; exit 1; }
done
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
jpid=$(pgrep -P "$pid" java || echo "$pid")
read -r -a stat < <(sed 's/.*) //' "/proc/$jpid/stat")
echo "start to first forwarded ping: $elapsed ms; CPU used by then: $(( (stat[11] + stat[12]) * 1000 / $(getconf CLK_TCK) )) ms"
if [ -n "${THREADS:-}" ]; then  # THREADS=1: where the start-up CPU went, per thread, at the first forwarded ping
  # schedstat: ns on a CPU, ns runnable but waiting for one (the run queue: 2 cores shared by main, JIT, GC ...)
  for t in /proc/"$jpid"/task/*; do
    read -r run wait _ < "$t/schedstat"
    echo "$(( run / 1000000 )) ms ran, $(( wait / 1000000 )) ms waited: $(cat "$t/comm")"
  done | sort -rn | head -10 | sed 's/^/    /'
fi
sleep 5
echo "  exec at $(date -d "@$((start / 1000000000)).$(printf %03d $(( (start / 1000000) % 1000 )))" +%T.%3N)," \
  "first port attached at $(grep -m1 -o '^[0-9:.]* .*port eth[0-9]* added' "$work/log" | cut -d' ' -f1)," \
  "P4Runtime serving at $(grep -m1 -o '^[0-9:.]* .*asic-emu live:' "$work/log" | cut -d' ' -f1)"
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
