package io.asicemu.scenario;

import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.rdma.host.RoceHost;
import io.asicemu.tm.counter.PfcStat;
import io.asicemu.tm.counter.QueueStat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Series sampled every period of virtual time: each flow's sending rate (the sum of its QPs' DCQCN rates) and
 * goodput (bytes its receivers took in order during the period), the depth of every switch queue that has held
 * bytes, the time each port and priority spent paused by PFC during the period (hosts' NICs and switch ports) with
 * the PFC frames each switch port sent, and how each ECMP/ARS group spread its packets over its members (plus
 * flowlets started and moved when the group runs flowlets). A series starts at the first period in which it has
 * something to show. Kept as CSV text; sampling reads state, it never changes it.
 */
final class Samples {
    /** Group ids the scenario's switches may use (the pipeline's default sizing, as {@link Fabric} builds them). */
    private static final int PIPELINE_GROUPS =
            io.asicemu.pipeline.table.PipelineSizing.defaults().maxGroups();

    private final Fabric fabric;
    private final Map<String, List<RoceHost.QueuePair>> senders;
    private final Map<String, List<RoceHost.QueuePair>> receivers;
    private final long periodNs;
    private final Map<String, Long> lastReceived = new LinkedHashMap<>();
    private final Map<String, int[]> seenQueues = new LinkedHashMap<>();
    private final StringBuilder rates = new StringBuilder("time_us,flow,rate_gbps,goodput_gbps\n");
    private final StringBuilder depth = new StringBuilder("time_us,switch,port,queue,bytes\n");
    /** flow → rows of {time µs, rate Gb/s, goodput Gb/s}. */
    final Map<String, java.util.List<double[]>> rateSeries = new LinkedHashMap<>();
    /** switch:port:queue → rows of {time µs, bytes}. */
    final Map<String, java.util.List<double[]>> depthSeries = new LinkedHashMap<>();

    private final StringBuilder pfc = new StringBuilder("time_us,node,port,priority,paused_us,pfc_frames_sent\n");
    private final StringBuilder spread = new StringBuilder("time_us,switch,group,member_port,packets,bytes,gbps\n");
    private final StringBuilder flowlets = new StringBuilder("time_us,switch,group,mode,new_flowlets,reassignments\n");
    /** node:port:priority → rows of {time µs, % of the period paused}. */
    final Map<String, List<double[]>> pauseSeries = new LinkedHashMap<>();
    /**
     * switch:member port (switch:group:member port where a switch has several groups) → rows of {time µs, Gb/s the
     * group assigned to that member during the period}.
     */
    final Map<String, List<double[]>> spreadSeries = new LinkedHashMap<>();
    /** switch:group → rows of {time µs, flowlets moved to another member during the period}. */
    final Map<String, List<double[]>> reassignmentSeries = new LinkedHashMap<>();
    /** Counter values at the previous sample, by series key. */
    private final Map<String, long[]> previous = new HashMap<>();
    /** Switch → ECMP groups of two or more members (found at the first sample: scenarios configure once). */
    private final Map<String, int[]> groupsOfSwitch = new HashMap<>();

    private long nextNs;

    Samples(
            Fabric fabric,
            Map<String, List<RoceHost.QueuePair>> senders,
            Map<String, List<RoceHost.QueuePair>> receivers,
            long periodNs) {
        this.fabric = fabric;
        this.senders = senders;
        this.receivers = receivers;
        this.periodNs = periodNs;
        for (String flow : senders.keySet()) {
            lastReceived.put(flow, 0L);
        }
    }

    long nextSampleNs() {
        return nextNs;
    }

    /** Takes every sample due at or before {@code atNs} (the fabric has run up to the previous event). */
    void sampleUpTo(long atNs) {
        while (nextNs <= atNs) {
            take(nextNs);
            nextNs += periodNs;
        }
    }

    /**
     * Ends the series: the samples due by {@code endNs}, and one more at the next period boundary when anything
     * happened after the last one (nothing happens after the end, so that sample closes the last period whole).
     */
    void finish(long endNs) {
        sampleUpTo(endNs);
        if (nextNs - periodNs < endNs) {
            sampleUpTo(nextNs);
        }
    }

    private void take(long tNs) {
        double tUs = tNs / 1e3;
        for (Map.Entry<String, List<RoceHost.QueuePair>> e : senders.entrySet()) {
            double rate = 0;
            for (RoceHost.QueuePair qp : e.getValue()) {
                boolean active = !qp.sender().idle();
                rate += active ? qp.reaction().currentRateBps() : 0;
            }
            long received = 0;
            for (RoceHost.QueuePair qp : receivers.get(e.getKey())) {
                received += qp.bytesReceived();
            }
            long delta = received - lastReceived.get(e.getKey());
            lastReceived.put(e.getKey(), received);
            double goodput = tNs == 0 ? 0.0 : delta * 8.0 / periodNs;
            rates.append(String.format(Locale.ROOT, "%.3f,%s,%.3f,%.3f%n", tUs, e.getKey(), rate / 1e9, goodput));
            rateSeries
                    .computeIfAbsent(e.getKey(), k -> new java.util.ArrayList<>())
                    .add(new double[] {tUs, rate / 1e9, goodput});
        }
        for (Fabric.HostNode h : fabric.hosts.values()) {
            for (int p = 0; p < 8; p++) {
                long pausedNs = h.host.pausedNsUpTo(p, tNs);
                pfcRow(tUs, h.host.name(), "nic", p, pausedNs, 0);
            }
        }
        for (Fabric.SwitchNode node : fabric.switches.values()) {
            node.pipeline.agent().trafficManager().snapshot(tNs, node.snapshot);
            for (String port : node.ports.keySet()) {
                int index = node.pipeline.control().portIndex(port);
                for (int p = 0; p < 8; p++) {
                    pfcRow(
                            tUs,
                            node.name,
                            port,
                            p,
                            node.snapshot.pfc(index, p, PfcStat.RX_PAUSE_DURATION_US) * 1_000L,
                            node.snapshot.pfc(index, p, PfcStat.TX_PKTS));
                }
            }
            spread(tUs, node);
            for (String port : node.ports.keySet()) {
                int index = node.pipeline.control().portIndex(port);
                String key = node.name + ":" + port;
                for (int q = 0; q < 8; q++) {
                    long bytes = node.snapshot.queue(index, q, QueueStat.CURR_OCCUPANCY_BYTES);
                    int[] seen = seenQueues.computeIfAbsent(key, k -> new int[8]);
                    if (bytes > 0) {
                        seen[q] = 1;
                    }
                    if (seen[q] == 1) {
                        depth.append(String.format(Locale.ROOT, "%.3f,%s,%s,%d,%d%n", tUs, node.name, port, q, bytes));
                        depthSeries
                                .computeIfAbsent(key + ":" + q, k -> new java.util.ArrayList<>())
                                .add(new double[] {tUs, bytes});
                    }
                }
            }
        }
    }

    /** One row per period for a port and priority that has been paused or has sent PFC frames. */
    private void pfcRow(double tUs, String node, String port, int priority, long pausedNs, long framesSent) {
        String key = node + ":" + port + ":" + priority;
        long[] last = previous.get(key);
        if (last == null) {
            if (pausedNs == 0 && framesSent == 0) {
                return;
            }
            last = new long[2];
            previous.put(key, last);
        }
        long paused = pausedNs - last[0];
        long frames = framesSent - last[1];
        last[0] = pausedNs;
        last[1] = framesSent;
        pfc.append(
                String.format(Locale.ROOT, "%.3f,%s,%s,%d,%.3f,%d%n", tUs, node, port, priority, paused / 1e3, frames));
        pauseSeries.computeIfAbsent(key, k -> new ArrayList<>()).add(new double[] {tUs, 100.0 * paused / periodNs});
    }

    /** Packets and bytes each member of each multi-member group carried during the period; flowlet moves. */
    private void spread(double tUs, Fabric.SwitchNode node) {
        ForwardingTables tables = node.pipeline.agent().tables();
        int[] groups = groupsOfSwitch.computeIfAbsent(node.name, k -> {
            List<Integer> ids = new ArrayList<>();
            for (int g = 0; g < PIPELINE_GROUPS; g++) {
                LoadBalanceGroup group = tables.group(g);
                if (group != null && group.memberCount() > 1) {
                    ids.add(g);
                }
            }
            return ids.stream().mapToInt(Integer::intValue).toArray();
        });
        for (int g : groups) {
            LoadBalanceGroup group = tables.group(g);
            if (group == null) {
                continue;
            }
            String groupKey = node.name + ":group" + g;
            long total = 0;
            for (int m = 0; m < group.memberCount(); m++) {
                total += group.memberSelections(m);
            }
            if (total == 0 && !previous.containsKey(groupKey)) {
                continue;
            }
            long[] groupLast = previous.computeIfAbsent(groupKey, k -> new long[2]);
            for (int m = 0; m < group.memberCount(); m++) {
                String port = portName(node, group.memberPort(m));
                String key = groupKey + ":" + m;
                long[] last = previous.computeIfAbsent(key, k -> new long[2]);
                long packets = group.memberSelections(m) - last[0];
                long bytes = group.memberBytes(m) - last[1];
                last[0] = group.memberSelections(m);
                last[1] = group.memberBytes(m);
                double gbps = bytes * 8.0 / periodNs;
                spread.append(String.format(
                        Locale.ROOT, "%.3f,%s,%d,%s,%d,%d,%.3f%n", tUs, node.name, g, port, packets, bytes, gbps));
                // The group's id only where a switch has more than one group to tell apart (short legends).
                String label = groups.length > 1 ? groupKey + ":" + port : node.name + ":" + port;
                spreadSeries.computeIfAbsent(label, k -> new ArrayList<>()).add(new double[] {tUs, gbps});
            }
            if (group.settings().mode().flowlet()) {
                long started = group.newFlowlets() - groupLast[0];
                long moved = group.flowletReassignments() - groupLast[1];
                groupLast[0] = group.newFlowlets();
                groupLast[1] = group.flowletReassignments();
                flowlets.append(String.format(
                        Locale.ROOT,
                        "%.3f,%s,%d,%s,%d,%d%n",
                        tUs,
                        node.name,
                        g,
                        group.settings().mode(),
                        started,
                        moved));
                reassignmentSeries
                        .computeIfAbsent(groupKey, k -> new ArrayList<>())
                        .add(new double[] {tUs, moved});
            }
        }
    }

    private static String portName(Fabric.SwitchNode node, int index) {
        for (String name : node.ports.keySet()) {
            if (node.pipeline.control().portIndex(name) == index) {
                return name;
            }
        }
        return "port" + index;
    }

    String pfcCsv() {
        return pfc.toString();
    }

    String spreadCsv() {
        return spread.toString();
    }

    String flowletsCsv() {
        return flowlets.toString();
    }

    String ratesCsv() {
        return rates.toString();
    }

    String queueDepthCsv() {
        return depth.toString();
    }
}
