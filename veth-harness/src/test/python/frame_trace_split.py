#!/usr/bin/env python3
"""Splits each probe frame's latency into where it was spent, joining the switch's FrameTrace record with the probe's.

  frame_trace_split.py TRACE PROBE [PERF_DATA]

TRACE: the file of a switch run with -Dasicemu.frameTrace=TRACE (ASIC_EMU_JAVA_OPTS); PROBE: a probe dump of the same
run (the harness JVM with -Dasicemu.probe.dump=PREFIX writes PREFIX-<run id>.txt: send and receive time per frame,
CLOCK_MONOTONIC ns; the send time is the frame's key in TRACE). PERF_DATA (optional): `perf record -k CLOCK_MONOTONIC
-e sched:sched_switch -a` over the probe run; then the slow frames' ring wait is split by whether the data-plane thread
was off its CPU (and who ran on CPU 1 meanwhile).

Parts: send->kRX (the probe's sendto until the kernel stamped the frame into the switch's RX ring), kRX->read (in the
RX ring until the data plane read it), read->txring (the pipeline: the frame's batch parsed, looked up, queued,
copied to the TX ring), txring->kick (until the TX kick began), kick (the sendto: the kernel delivers the frames
through the veth pair to the probe's ring inside it), kickret->recv (the probe saw it; negative: before sendto returned).
"""
import bisect
import collections
import re
import subprocess
import sys

PARTS = ['total', 'send->kRX', 'kRX->read', 'read->txring', 'txring->kick', 'kick', 'kickret->recv']


def load_trace(path):
    offset, rx, tx, kicks = 0, {}, {}, collections.defaultdict(list)
    for line in open(path):
        f = line.split()
        if f[0] == 'offset':
            offset = int(f[1])
            continue
        a = list(map(int, f[1:]))
        if f[0] == 'rx':
            rx[a[0]] = (a[1], a[2])
        elif f[0] == 'tx':
            tx[a[0]] = (a[1], a[2], a[3])
        else:
            kicks[a[0]].append((a[3], a[1], a[2]))
    for k in kicks.values():
        k.sort()
    return {key: (real - offset, read) for key, (real, read) in rx.items()}, tx, kicks


def rows_of(trace, probe):
    rx, tx, kicks = load_trace(trace)
    rows = []
    for line in open(probe):
        sent, received = map(int, line.split())
        if sent not in rx or sent not in tx:
            continue
        krx, read = rx[sent]
        written, port, count = tx[sent]
        k = kicks[port]
        i = bisect.bisect_left(k, (count, -1, -1))  # the first kick after the frame was on the TX ring
        if i == len(k):
            continue
        _, began, returned = k[i]
        rows.append((received - sent, krx - sent, read - krx, written - read, began - written, returned - began,
                     received - returned, krx, read))
    return rows


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def off_cpu(perf_data):
    """The data-plane thread's off-CPU intervals and every task's run intervals on CPU 1 (ns)."""
    out = subprocess.run(['perf', 'script', '-i', perf_data, '-F', 'cpu,time,event,trace'], capture_output=True,
                         text=True).stdout
    sw = re.compile(r'\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch: prev_comm=(.*?) prev_pid=\d+ prev_prio=\d+ '
                    r'prev_state=(\S+) ==> next_comm=(.*?) next_pid=')
    gaps, runs, out_at, last = [], [], None, None
    for line in out.splitlines():
        m = sw.search(line)
        if not m or int(m.group(1)) != 1:
            continue
        t = int(round(float(m.group(2)) * 1e9))
        if last is not None:
            runs.append((last[0], t, last[1]))
        last = (t, m.group(5))
        if m.group(3).startswith('asicemu-datapla'):
            out_at = (t, m.group(4))
        if m.group(5).startswith('asicemu-datapla') and out_at:
            gaps.append((out_at[0], t, out_at[1]))
            out_at = None
    return gaps, runs


def main():
    rows = rows_of(sys.argv[1], sys.argv[2])
    print('%d frames joined' % len(rows))
    print('%-14s %8s %8s %8s %8s   (us, all frames)' % ('part', 'p50', 'p90', 'p99', 'p99.9'))
    for i, name in enumerate(PARTS):
        v = [r[i] for r in rows]
        print('%-14s %8.1f %8.1f %8.1f %8.1f' % (name, pct(v, .5) / 1e3, pct(v, .9) / 1e3, pct(v, .99) / 1e3,
                                                 pct(v, .999) / 1e3))
    rows.sort()
    slow = rows[int(len(rows) * 0.99):]
    print('slow 1%%: %d frames from %.1f us; the part that took longest:' % (len(slow), slow[0][0] / 1e3),
          dict(collections.Counter(PARTS[1 + max(range(6), key=lambda j: r[1 + j])] for r in slow)))
    if len(sys.argv) > 3:
        gaps, runs = off_cpu(sys.argv[3])
        starts, run_starts = [g[0] for g in gaps], [r[0] for r in runs]
        kinds, who = collections.Counter(), collections.Counter()
        for r in slow:
            krx, read = r[7], r[8]
            wait, off, states = read - krx, 0, set()
            j = bisect.bisect_right(starts, read) - 1
            while j >= 0 and gaps[j][1] > krx:
                o = min(gaps[j][1], read) - max(gaps[j][0], krx)
                if o > 0:
                    off += o
                    states.add(gaps[j][2])
                j -= 1
            if wait < 20000:
                kinds['ring wait < 20 us (the time is elsewhere)'] += 1
            elif off > wait / 2:
                kinds['ring wait, data plane off CPU (%s)' % ','.join(sorted(states))] += 1
                k = max(0, bisect.bisect_right(run_starts, krx) - 1)
                while k < len(runs) and runs[k][0] < read:
                    o = min(runs[k][1], read) - max(runs[k][0], krx)
                    if o > 0 and not runs[k][2].startswith('asicemu-datapla'):
                        who[runs[k][2]] += o
                    k += 1
            else:
                kinds['ring wait, data plane on CPU'] += 1
        print('slow 1%, ring wait:', dict(kinds))
        print('who ran on CPU 1 meanwhile (ms):', {k: round(v / 1e6, 2) for k, v in who.most_common(8)})


if __name__ == '__main__':
    main()
