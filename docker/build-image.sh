#!/usr/bin/env bash
# Builds the asic-emu appliance image and the lab host image with no container registry and no daemon (what CI
# uses; anyone offline with a Debian mirror can run it). Root is needed (mmdebstrap's root mode, chroot).
#
#   docker/build-image.sh [--out DIR] [appliance|host|all]        (default: all, into docker/target/)
#   docker load -i docker/target/asic-emu-image.tar               # asic-emu:dev
#   docker load -i docker/target/asic-emu-host-image.tar          # asic-emu-host:dev
#
# appliance: Debian bookworm's Essential set (mmdebstrap; the mirror is the one in /etc/apt/sources.list*, or
#   $ASICEMU_DEBIAN_MIRROR), a jlink'ed Java 25 runtime made from the JDK 25 on this machine
#   (bin/jdk25; only the modules jdeps finds in the jar), the switchd jar, and a Java AOT cache recorded by a
#   training run of `run` (start-up, P4Runtime, two attached AF_PACKET ports, ARP through the pipeline), so the
#   container forwards well under a second after it starts. Same layout, entrypoint and flags as docker/Dockerfile.
# host: Debian bookworm minbase + iproute2, iputils-ping, ethtool, tcpdump, tshark, python3-scapy (the lab hosts), and
#   the same Java runtime and jar for `asic-emu host` (a RoCEv2 endpoint with DCQCN on the host's eth1).
#
# Environment: ASICEMU_JAR (default switchd/target/asic-emu.jar, built if missing), ASICEMU_TAG (default dev),
# ASICEMU_DEB_CACHE (downloaded .debs kept between builds; default ~/.cache/asic-emu/debs).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$repo/docker/target"
what=all
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    appliance|host|all) what="$1"; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "build-image: unknown argument $1" >&2; exit 2 ;;
  esac
done
# Every tool the build runs, as tool=Debian package, checked before the first step so that a missing one fails at
# once, not minutes in (ethtool and ip: the training run's veth links; ping: its ARP; python3: the archive writer).
# The README's lab install line installs these packages (a test compares the two); tar, coreutils and util-linux are
# Essential in Debian and always there.
PREREQUISITES=(mmdebstrap=mmdebstrap ethtool=ethtool ip=iproute2 ping=iputils-ping python3=python3)
ESSENTIAL=(tar=tar unshare=util-linux chroot=coreutils sha256sum=coreutils)
missing=()
for pair in "${PREREQUISITES[@]}" "${ESSENTIAL[@]}"; do
  command -v "${pair%%=*}" >/dev/null 2>&1 || missing+=("${pair#*=}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "build-image: missing tools; install them first: apt-get install $(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')" >&2
  exit 2
fi
[ "$(id -u)" = 0 ] || { echo "build-image: needs root (mmdebstrap root mode, chroot)" >&2; exit 2; }
tag="${ASICEMU_TAG:-dev}"
cache="${ASICEMU_DEB_CACHE:-${HOME:-/root}/.cache/asic-emu/debs}"
mkdir -p "$out" "$cache"
work="$(mktemp -d "$out/build.XXXXXX")"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

mirror="${ASICEMU_DEBIAN_MIRROR:-$(grep -rhs -E '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
  /etc/apt/sources.list.d/*.list | awk '{print $2}' | grep -E '/debian/?$' | head -n 1 || true)}"
[ -n "$mirror" ] || { echo "build-image: no Debian mirror in /etc/apt/sources.list*; set ASICEMU_DEBIAN_MIRROR" >&2; exit 2; }

# rootfs DIR VARIANT [PACKAGES]: a bookworm VARIANT (mmdebstrap) with PACKAGES; no docs, man pages or locales, no
# apt lists
rootfs() {
  local dir="$1" variant="$2" packages="${3:-}"
  mmdebstrap --quiet --variant="$variant" ${packages:+--include="$packages"} \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='force-unsafe-io' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --setup-hook="mkdir -p \"\$1/var/cache/apt/archives\"; cp -a '$cache'/. \"\$1/var/cache/apt/archives/\" 2>/dev/null || true" \
    --customize-hook="cp -a \"\$1/var/cache/apt/archives/\"*.deb '$cache'/ 2>/dev/null || true" \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*' \
    --skip=cleanup/apt/cache \
    bookworm "$dir" "$mirror"
}

labels() {  # OCI labels as JSON members
  local version source revision
  version="$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$repo/pom.xml" | head -n 1)"
  source="${ASICEMU_SOURCE:-$(git -C "$repo" config --get remote.origin.url 2>/dev/null || echo unknown)}"
  revision="$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
  printf '"org.opencontainers.image.title": "%s", "org.opencontainers.image.version": "%s",
    "org.opencontainers.image.source": "%s", "org.opencontainers.image.revision": "%s",
    "org.opencontainers.image.licenses": "%s", "org.opencontainers.image.created": "%s"' \
    "$1" "$version" "$source" "$revision" "${ASICEMU_LICENSE:-NOASSERTION}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}

jar="${ASICEMU_JAR:-$repo/switchd/target/asic-emu.jar}"
ensure_jar() {
  if [ ! -f "$jar" ]; then
    echo "build-image: building $jar" >&2
    "$repo/bin/mvn" -B -q -DskipTests -Dmaven.test.skip=true package -pl switchd -am >&2
  fi
}

# install_asic_emu ROOTFS JAR: /opt/asic-emu with a jlink'ed Java 25 runtime of the modules jdeps finds in the jar
# (from the JDK 25 on this machine), the jar, the entrypoint (also /usr/local/bin/asic-emu) and the JVM
# flags; both images get the same (the host image runs `asic-emu host`, the lab's RoCEv2 traffic host)
install_asic_emu() {
  local r="$1" jar="$2" java_home modules
  java_home="$("$repo/bin/jdk25")"
  # one jlink per build: `all` copies the runtime the first image made (jdeps + jlink take ≈ 40 s on a loaded machine)
  if [ ! -d "$work/jre" ]; then
    echo "build-image: Java runtime (jlink)" >&2
    modules="$("$java_home/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 25 "$jar")"
    "$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
      --compress=zip-6 --output "$work/jre"
    # the JDK here links cacerts into /etc; a runtime inside an image needs the file itself
    if [ -L "$work/jre/lib/security/cacerts" ] || [ ! -e "$work/jre/lib/security/cacerts" ]; then
      rm -f "$work/jre/lib/security/cacerts"
      cp -L "$java_home/lib/security/cacerts" "$work/jre/lib/security/cacerts"
    fi
  fi
  mkdir -p "$r/opt/asic-emu/bin"
  cp -a "$work/jre" "$r/opt/asic-emu/jre"
  cp "$jar" "$r/opt/asic-emu/asic-emu.jar"
  install -m 0755 "$repo/docker/image/entrypoint" "$r/opt/asic-emu/bin/"
  install -m 0644 "$repo/switchd/jvm.options" "$r/opt/asic-emu/jvm.options"
  ln -s /opt/asic-emu/bin/entrypoint "$r/usr/local/bin/asic-emu"
}

# what went into an image, so that tests can tell whether its archive is current
inputs() {
  /usr/bin/python3 "$repo/docker/image/jar-digest.py" "$jar"
  cat "$repo"/docker/image/* "$0" "$repo/switchd/jvm.options" | sha256sum | cut -d' ' -f1
}

build_appliance() {
  local t0 r
  t0=$(date +%s)
  ensure_jar
  r="$work/appliance"
  echo "build-image: appliance rootfs (mmdebstrap, $mirror)" >&2
  # Debian's Essential set only (bash, coreutils, libc; no apt): the switch needs no tools of its own (it talks
  # netlink and AF_PACKET itself), and glibc's iconv modules are of no use to a JVM
  rootfs "$r" essential
  rm -rf "$r/usr/lib/x86_64-linux-gnu/gconv"
  mkdir -p "$r/etc/asic-emu" "$r/run/asic-emu"
  # the unprivileged user the entrypoint runs the JVM as (with CAP_NET_ADMIN and CAP_NET_RAW only)
  echo 'asicemu:x:10001:10001:asic-emu:/nonexistent:/usr/sbin/nologin' >> "$r/etc/passwd"
  echo 'asicemu:x:10001:' >> "$r/etc/group"
  chown 10001:10001 "$r/run/asic-emu"
  install_asic_emu "$r" "$jar"
  install -m 0755 "$repo/docker/image/asic-emu-health" "$r/opt/asic-emu/bin/"
  ln -s /opt/asic-emu/bin/asic-emu-health "$r/usr/local/bin/asic-emu-health"
  echo "build-image: AOT cache (training run)" >&2
  train "$r"
  cat > "$work/appliance.json" <<EOF
{
  "Entrypoint": ["/opt/asic-emu/bin/entrypoint"],
  "Cmd": ["run"],
  "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"],
  "ExposedPorts": {"9559/tcp": {}},
  "StopSignal": "SIGTERM",
  "WorkingDir": "/",
  "Healthcheck": {"Test": ["CMD", "/opt/asic-emu/bin/asic-emu-health"], "Interval": 30000000000,
                  "Timeout": 3000000000, "StartPeriod": 30000000000, "Retries": 2},
  "Labels": { $(labels asic-emu),
    "org.opencontainers.image.description": "asic-emu switch-ASIC emulator appliance: data ports eth1..N = Ethernet0,4,8..., config /etc/asic-emu/config_db.json, P4Runtime 9559 on eth0" }
}
EOF
  /usr/bin/python3 "$repo/docker/image/docker-archive.py" "$r" "$out/asic-emu-image.tar" --tag "asic-emu:$tag" \
    --config "$work/appliance.json"
  inputs > "$out/asic-emu-image.inputs"
  echo "build-image: appliance built in $(( $(date +%s) - t0 )) s; sizes:" >&2
  for p in "$r" "$r/opt/asic-emu/jre" "$r/opt/asic-emu/asic-emu.jar" "$r/opt/asic-emu/asic-emu.aot" "$r/usr" "$r/var"; do
    du -sh "$p" >&2
  done
}

# train ROOTFS: records the AOT cache with a run of the switch in a private network and mount namespace: two veth
# pairs (eth1, eth2 attached as Ethernet0/Ethernet4), P4Runtime on loopback, ARP for the switch's addresses.
train() {
  local r="$1"
  cat > "$r/tmp/train-config.json" <<'EOF'
{"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01", "hostname": "train"}},
 "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}, "Ethernet4": {"speed": "100000", "admin_status": "up"}},
 "INTERFACE": {"Ethernet0": {}, "Ethernet4": {}, "Ethernet0|10.9.1.1/24": {}, "Ethernet4|10.9.2.1/24": {}}}
EOF
  R="$r" unshare --mount --net --pid --fork --propagation private bash -euo pipefail -c '
    mount -t proc proc "$R/proc"; mount -t sysfs sysfs "$R/sys"; mount --rbind /dev "$R/dev"
    ip link set lo up
    for i in 1 2; do
      ip link add "eth$i" type veth peer name "peer$i"; ip link set "peer$i" up
      ethtool -K "peer$i" tx off >/dev/null
      ip addr add "10.9.$i.2/24" dev "peer$i"
    done
    ASICEMU_USER=root ASICEMU_NO_AOT=1 ASICEMU_JAVA_OPTS="-XX:AOTCacheOutput=/opt/asic-emu/asic-emu.aot -Xlog:aot=error" \
      chroot "$R" /opt/asic-emu/bin/entrypoint run --config /tmp/train-config.json --p4runtime-address 127.0.0.1 \
      --status-file /tmp/train-status > "$R/tmp/train.log" 2>&1 &
    pid=$!
    for _ in $(seq 300); do grep -qs "state=ready" "$R/tmp/train-status" && break; sleep 0.1; done
    grep -qs "state=ready" "$R/tmp/train-status" || { cat "$R/tmp/train.log" >&2; exit 1; }
    for i in 1 2; do ping -c 3 -i 0.2 -W 1 -I "peer$i" "10.9.$i.1" >/dev/null || true; done
    kill -TERM "$pid"; wait "$pid" || true
    umount -l "$R/dev" "$R/sys" "$R/proc"
  '
  if [ ! -s "$r/opt/asic-emu/asic-emu.aot" ]; then
    cat "$r/tmp/train.log" >&2
    echo "build-image: the training run wrote no AOT cache" >&2
    exit 1
  fi
  rm -f "$r/tmp/train-config.json" "$r/tmp/train-status" "$r/tmp/train.log"
}

build_host() {
  local t0 r
  t0=$(date +%s)
  ensure_jar
  r="$work/host"
  echo "build-image: host rootfs (mmdebstrap, $mirror)" >&2
  rootfs "$r" minbase iproute2,iputils-ping,ethtool,tcpdump,tshark,python3-scapy,procps
  # `asic-emu host` (the RoCEv2 endpoint model with DCQCN over AF_PACKET): the same runtime and jar as the switch
  install_asic_emu "$r" "$jar"
  cat > "$work/host.json" <<EOF
{
  "Cmd": ["sleep", "infinity"],
  "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"],
  "StopSignal": "SIGKILL",
  "WorkingDir": "/root",
  "Labels": { $(labels asic-emu-host),
    "org.opencontainers.image.description": "asic-emu lab host: iproute2, ping, ethtool, tcpdump, tshark, scapy, asic-emu host (RoCEv2 with DCQCN)" }
}
EOF
  /usr/bin/python3 "$repo/docker/image/docker-archive.py" "$r" "$out/asic-emu-host-image.tar" \
    --tag "asic-emu-host:$tag" --config "$work/host.json"
  inputs > "$out/asic-emu-host-image.inputs"
  echo "build-image: host built in $(( $(date +%s) - t0 )) s; sizes:" >&2
  for p in "$r" "$r/opt/asic-emu/jre" "$r/opt/asic-emu/asic-emu.jar" "$r/usr"; do
    du -sh "$p" >&2
  done
}

case "$what" in
  appliance) build_appliance ;;
  host) build_host ;;
  all) build_appliance; build_host ;;
esac
