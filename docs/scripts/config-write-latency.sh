#!/usr/bin/env bash
# Latency of a single-field CONFIG_DB write over the Redis port, as an operator meets it: `asic-emu run` in a network
# namespace of its own (two veth ports, ROUTES static routes over one next hop), python3-redis sends WRITES times
# `HSET WRED_PROFILE|AZURE_LOSSLESS green_min_threshold <v>` (each value differs from the last, so every write is a
# real change applied by the data plane before the reply) and prints p50/p90/p99/max in ms. WARMUP writes (default
# 20) come first, unmeasured; READBACK=1 also times an HGET of the field after each write.
#
#   sudo docs/scripts/config-write-latency.sh [JAR] [ROUTES...]      (root: it makes the namespace; Debian python3-redis)
#   e.g. sudo docs/scripts/config-write-latency.sh switchd/target/asic-emu.jar 0 20000 100000
#
# KEY, FIELD and VALUES (comma-separated, written in turn) choose another write, e.g. an interface shutdown/startup:
#   KEY='PORT|Ethernet0' FIELD=admin_status VALUES=down,up sudo docs/scripts/config-write-latency.sh JAR 100000
# JAR defaults to this tree's switchd/target/asic-emu.jar (build it with bin/asic-emu --help); the JVM flags are
# switchd/jvm.options plus ASIC_EMU_JAVA_OPTS (default -Xmx1g, since a 100k-route config needs more than the
# appliance's 256 MiB default to be compiled at all). Everything runs inside the namespace, on its loopback; the
# namespace and the switch are removed on exit.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="${1:-$root/switchd/target/asic-emu.jar}"
shift || true
counts=("$@")
[ "${#counts[@]}" -gt 0 ] || counts=(0 20000 100000)
writes="${WRITES:-200}"
java_home="$("$root/bin/jdk25")"
ns="cwl$$"
work="$(mktemp -d)"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$ns"
ip -n "$ns" link set lo up
for i in 1 2; do
  ip -n "$ns" link add "eth$i" type veth peer name "peer$i"
  ip -n "$ns" link set "eth$i" up
  ip -n "$ns" link set "peer$i" up
done

for routes in "${counts[@]}"; do
  /usr/bin/python3 - "$routes" >"$work/config_db.json" <<'EOF'
import json, sys
n = int(sys.argv[1])
cfg = {
    "DEVICE_METADATA": {"localhost": {"hostname": "bench", "mac": "02:aa:00:00:00:01"}},
    "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up", "index": "0"},
             "Ethernet4": {"speed": "100000", "admin_status": "up", "index": "1"}},
    "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.1/24": {}, "Ethernet4": {}, "Ethernet4|10.0.1.1/24": {}},
    "WRED_PROFILE": {"AZURE_LOSSLESS": {"wred_green_enable": "true", "ecn": "ecn_all",
                                        "green_min_threshold": "100000", "green_max_threshold": "2000000",
                                        "green_drop_probability": "5"}},
    "QUEUE": {"Ethernet0,Ethernet4|3-4": {"wred_profile": "AZURE_LOSSLESS"}},
    "STATIC_ROUTE": {},
}
for i in range(n):
    cfg["STATIC_ROUTE"]["%d.%d.%d.0/24" % (100 + i // 65536, i // 256 % 256, i % 256)] = {"nexthop": "10.0.1.2"}
print(json.dumps(cfg))
EOF
  # shellcheck disable=SC2086
  ip netns exec "$ns" "$java_home/bin/java" "@$root/switchd/jvm.options" ${ASIC_EMU_JAVA_OPTS:--Xmx1g} \
      -Dasicemu.home="$root" -jar "$jar" run --config "$work/config_db.json" --redis-port 6379 \
      >"$work/switch.log" 2>&1 &
  pid=$!
  ip netns exec "$ns" /usr/bin/python3 - "$routes" "$writes" "${KEY:-}" "${FIELD:-}" "${VALUES:-}" <<'EOF' \
      || { tail -n 20 "$work/switch.log" >&2; exit 1; }
import os, redis, statistics, sys, time
routes, writes = int(sys.argv[1]), int(sys.argv[2])
key, field, values = sys.argv[3] or "WRED_PROFILE|AZURE_LOSSLESS", sys.argv[4] or "green_min_threshold", sys.argv[5]
value = (lambda i: values.split(",")[i % len(values.split(","))]) if values else \
        (lambda i: str(100000 + (i % 2) * 8 + i * 16))
r = redis.Redis(host="127.0.0.1", port=6379, db=4, socket_timeout=60)
deadline = time.time() + 300
while True:
    try:
        if r.hget("WRED_PROFILE|AZURE_LOSSLESS", "green_min_threshold") is not None:
            break
    except redis.exceptions.ConnectionError:
        pass
    if time.time() > deadline:
        sys.exit("the switch did not serve its Redis port within 300 s")
    time.sleep(0.2)
for i in range(int(os.environ.get("WARMUP", "20"))):  # warm-up: the first writes load and JIT-compile the path
    r.hset(key, field, value(i))
ms, reads = [], []
for i in range(writes):
    t = time.perf_counter()
    r.hset(key, field, value(i))
    ms.append((time.perf_counter() - t) * 1000)
    if os.environ.get("READBACK"):  # the operator's next read (`show`, HGET) sees the change
        t = time.perf_counter()
        assert r.hget(key, field).decode() == value(i)
        reads.append((time.perf_counter() - t) * 1000)
for name, xs in (("write", ms), ("read after write", reads)):
    if xs:
        xs.sort()
        q = lambda p: xs[min(len(xs) - 1, int(p * len(xs)))]
        print("%s %s  routes %7d  %s x%d  p50 %8.2f ms  p90 %8.2f ms  p99 %8.2f ms  max %8.2f ms"
              % (key, field, routes, name, len(xs), q(0.50), q(0.90), q(0.99), xs[-1]))
EOF
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
done
