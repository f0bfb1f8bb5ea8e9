#!/usr/bin/env bash
# Per-thread CPU (schedstat) and wake-ups (context switches) of an idle `asic-emu run`: leaf1's lab config on 4 veth
# ports, P4Runtime on loopback, the counters server and a status file as in the container; WIN s measured after WARM s.
# Usage (root): [JAR=asic-emu.jar] [AOT=cache.aot] [JVMOPTS=jvm.options] [OPTS="JVM flags"] [WARM=40] [WIN=30] [STRACE=thread-name-prefix] docs/scripts/idle-threads.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
java="$($root/bin/jdk25)/bin/java"
ns="id$$"; work="$(mktemp -d)"
cleanup() { [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; ip netns del "$ns" 2>/dev/null || true; cp $work/log /tmp/idle-threads-last.log; rm -rf "$work"; }
trap cleanup EXIT
ip netns add "$ns"; ip -n "$ns" link set lo up
for i in 1 2 3 4; do ip -n "$ns" link add "eth$i" mtu 9500 type veth peer name "p$i" mtu 9500; ip -n "$ns" link set "p$i" up; ip -n "$ns" link set "eth$i" up; done
# no IPv6 chatter from the peers (router solicitations, MLD) into the switch's ports
for i in 1 2 3 4; do ip netns exec "$ns" sysctl -qw net.ipv6.conf.p$i.disable_ipv6=1 || true; done
aot=(); [ -n "${AOT:-}" ] && aot=(-XX:AOTCache="$AOT")
MALLOC_ARENA_MAX=2 ip netns exec "$ns" "$java" "@${JVMOPTS:-$root/switchd/jvm.options}" -Dasicemu.log=stdout "${aot[@]}" ${OPTS:-} -jar "${JAR:-$root/switchd/target/asic-emu.jar}" run \
  --config $root/docker/labs/leaf-spine/configs/leaf1.json --p4runtime-address 127.0.0.1 --counters-port 9560 \
  --status-file "$work/status" > "$work/log" 2>&1 &
pid=$!
sleep "${WARM:-40}"
snap() { for t in /proc/$pid/task/*; do read -r r w n < $t/schedstat; v=$(awk '/^voluntary_ctxt/{v=$2}/^nonvoluntary/{n=$2}END{print v+n}' $t/status); echo "$(basename $t) $r $v $(tr ' ' _ < $t/comm)"; done; }
snap > $work/a
if [ -n "${STRACE:-}" ]; then for t in /proc/$pid/task/*; do [[ "$(cat $t/comm)" == $STRACE* ]] || continue; timeout 10 strace -tt -p $(basename $t) 2>&1 | head -30 || true; done; fi
sleep "${WIN:-30}"; snap > $work/b
join <(sort $work/a) <(sort $work/b) | awk -v win=${WIN:-30} '{cpu=($5-$2)/1e6; w=$6-$3; tc+=cpu; tw+=w; if (cpu>0.05||w>0) printf "  %-26s cpu %7.1f ms  wakeups/s %6.2f\n", $4, cpu, w/win} END {printf "TOTAL cpu %.1f ms in %d s = %.3f %% of a core; wakeups/s %.2f; load %s\n", tc, win, tc/win/10, tw/win, "'"$(cut -d' ' -f1 /proc/loadavg)"'"}' | sort -t'|' -k1 
