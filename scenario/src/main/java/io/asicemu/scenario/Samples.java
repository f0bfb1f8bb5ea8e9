package io.asicemu.scenario;

import io.asicemu.rdma.host.RoceHost;
import io.asicemu.tm.counter.QueueStat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Series sampled every period of virtual time: each flow's sending rate (the sum of its QPs' DCQCN rates) and
 * goodput (bytes its receivers took in order during the period), and the depth of every switch queue that has held
 * bytes. Kept as CSV text; sampling reads state, it never changes it.
 */
final class Samples {
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
    private long nextNs;

    Samples(Fabric fabric, Map<String, List<RoceHost.QueuePair>> senders,
            Map<String, List<RoceHost.QueuePair>> receivers, long periodNs) {
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
            rateSeries.computeIfAbsent(e.getKey(), k -> new java.util.ArrayList<>())
                    .add(new double[] {tUs, rate / 1e9, goodput});
        }
        for (Fabric.SwitchNode node : fabric.switches.values()) {
            node.pipeline.agent().trafficManager().snapshot(tNs, node.snapshot);
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
                        depth.append(String.format(Locale.ROOT, "%.3f,%s,%s,%d,%d%n", tUs, node.name, port, q,
                                bytes));
                        depthSeries.computeIfAbsent(key + ":" + q, k -> new java.util.ArrayList<>())
                                .add(new double[] {tUs, bytes});
                    }
                }
            }
        }
    }

    String ratesCsv() {
        return rates.toString();
    }

    String queueDepthCsv() {
        return depth.toString();
    }
}
