package io.asicemu.scenario;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.rdma.dcqcn.DcqcnParameters;
import io.asicemu.rdma.host.RoceHost;
import io.asicemu.tm.counter.PfcStat;
import io.asicemu.tm.counter.QueueStat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Runs a scenario file: builds the {@link Fabric}, posts the flows' messages, steps virtual time until every message
 * is acknowledged (or the duration ends), samples queue depths and rates, and writes the results as CSV files plus a
 * summary into the output folder. Deterministic: the same file and seed give byte-identical outputs.
 */
public final class Scenario {
    private Scenario() {}

    /** One message's life: posted, acknowledged. */
    public record MessageResult(
            String flow, String host, int qpn, long messageId, long bytes, long postedNs, long completedNs) {
        public long fctNs() {
            return completedNs - postedNs;
        }
    }

    /** One flow's totals. */
    public record FlowResult(
            String name,
            String from,
            String to,
            long bytes,
            long startNs,
            long endNs,
            int messages,
            int messagesCompleted,
            long bytesDelivered,
            long cnpsSent,
            long cnpsReceived,
            long ceMarksReceived,
            long rateCuts,
            long packetsRetransmitted,
            long timeouts,
            IncreaseEvents increases) {
        public long fctNs() {
            return endNs - startNs;
        }

        public boolean complete() {
            return messagesCompleted == messages;
        }

        /** Bytes the receiver took in order, per unit of the flow's time (to its end, or the run's). */
        public double goodputGbps() {
            return endNs > startNs ? bytesDelivered * 8.0 / (endNs - startNs) : 0;
        }
    }

    /**
     * The DCQCN reaction points' rate-increase events of a flow's QPs, by stage, and what triggered them (the paper's
     * timer T and byte counter BC); with the cuts they show which of the two drives recovery.
     */
    public record IncreaseEvents(long fastRecovery, long additive, long hyper, long timerEvents, long byteEvents) {}

    /** A queue's counters at the end: {@code switchName:port:queue}. */
    public record QueueResult(
            String switchName,
            String port,
            int queue,
            long packets,
            long ecnMarked,
            long dropped,
            long watermarkBytes) {}

    /** PFC frames a switch port sent, per priority. */
    public record PfcResult(String switchName, String port, int priority, long framesSent, long framesReceived) {}

    /** What a host's NIC saw of PFC: frames received and the time its data priority was paused. */
    public record HostResult(
            String name, long pfcFramesReceived, long dataPausedNs, long controlQueueDrops, long framesIgnored) {}

    /** Everything a run produced; the files are in {@code outDir}. */
    public record Result(
            String name,
            long endNs,
            boolean allComplete,
            List<FlowResult> flows,
            List<MessageResult> messages,
            List<QueueResult> queues,
            List<PfcResult> pfc,
            List<HostResult> hosts,
            long framesOnWire,
            long framesLostOnCables,
            Path outDir) {
        public long dataPausedNs() {
            return hosts.stream().mapToLong(HostResult::dataPausedNs).sum();
        }

        public long cnpsSent() {
            return flows.stream().mapToLong(FlowResult::cnpsSent).sum();
        }

        /** Nearest-rank percentile of every message's completion time. */
        public long messageFctPercentileNs(double p) {
            long[] sorted =
                    messages.stream().mapToLong(MessageResult::fctNs).sorted().toArray();
            return sorted.length == 0 ? 0 : Report.percentile(sorted, p);
        }

        public FlowResult flow(String flowName) {
            return flows.stream()
                    .filter(f -> f.name().equals(flowName))
                    .findFirst()
                    .orElseThrow();
        }

        public long ecnMarked() {
            return queues.stream().mapToLong(QueueResult::ecnMarked).sum();
        }

        public long pfcFramesSent() {
            return pfc.stream().mapToLong(PfcResult::framesSent).sum();
        }
    }

    public static Result run(Path scenarioFile, Path outDir) {
        return run(
                ScenarioSpec.load(scenarioFile), scenarioFile.toAbsolutePath().getParent(), outDir);
    }

    public static Result run(ScenarioSpec spec, Path baseDir, Path outDir) {
        return run(spec, baseDir, outDir, Map.of());
    }

    /**
     * @param configOverrides {@code "switch|TABLE|key|field"} → value, applied to the switches' config_db.json
     *     (a sweep's variations)
     */
    public static Result run(ScenarioSpec spec, Path baseDir, Path outDir, Map<String, String> configOverrides) {
        spec = spec.withDefaults();
        if (spec.durationUs() <= 0) {
            throw new ScenarioException("durationUs must be positive");
        }
        DcqcnParameters dcqcn = spec.dcqcnParameters();
        List<MessageResult> messages = new ArrayList<>();
        Map<RoceHost.QueuePair, String> flowOfQp = new HashMap<>();
        try (Fabric fabric = new Fabric()) {
            Map<String, ConfigDb> configs = new LinkedHashMap<>();
            for (String key : configOverrides.keySet()) {
                String sw = key.split("\\|", 2)[0];
                if (spec.switches().stream().noneMatch(s -> sw.equals(s.name()))) {
                    throw new ScenarioException("config override \"" + key + "\": no switch \"" + sw + "\"");
                }
            }
            for (ScenarioSpec.SwitchSpec s : spec.switches()) {
                if (s.name() == null || s.config() == null) {
                    throw new ScenarioException("switches: every switch needs a name and a config");
                }
                ConfigDb db = override(loadConfig(baseDir, s), s.name(), configOverrides);
                configs.put(s.name(), db);
                fabric.addSwitch(s.name(), db);
            }
            for (ScenarioSpec.LinkSpec l : spec.links()) {
                fabric.cable(
                        fabric.port(l.a(), "links.a"),
                        fabric.port(l.b(), "links.b"),
                        l.cableNs(),
                        "link " + l.a() + " - " + l.b());
            }
            Map<String, Integer> ipOf = new LinkedHashMap<>();
            for (ScenarioSpec.HostSpec h : spec.hosts()) {
                String field = "hosts." + h.name();
                if (fabric.hosts.containsKey(h.name())) {
                    throw new ScenarioException(field + ": defined twice");
                }
                long mac = Macs.parse(h.mac(), field + ".mac");
                int ip = Macs.parseIpv4(h.ip(), field + ".ip");
                LinkPort port = fabric.port(h.attach(), field + ".attach");
                Fabric.HostNode added = fabric.addHost(
                        h.name(),
                        mac,
                        ip,
                        port,
                        h.cableNs(),
                        dcqcn,
                        spec.host(),
                        (qp, id, bytes, posted, done) -> messages.add(new MessageResult(
                                flowOfQp.get(qp), qp.host(), qp.localQpn(), id, bytes, posted, done)));
                added.host.congestionControl(spec.congestionControl());
                ipOf.put(h.name(), ip);
                String sw = h.attach().substring(0, h.attach().indexOf(':'));
                configs.put(
                        sw,
                        withNeighbor(
                                configs.get(sw), h.attach().substring(h.attach().indexOf(':') + 1), h.ip(), h.mac()));
            }
            fabric.start(configs);
            Files.createDirectories(outDir);
            for (String name : spec.captures()) {
                Fabric.HostNode h = fabric.hosts.get(name);
                if (h == null) {
                    throw new ScenarioException("captures: \"" + name + "\" is not a host of the scenario");
                }
                h.rxCapture = new io.asicemu.parser.pcap.PcapWriter(outDir.resolve(name + "-rx.pcap"));
                h.txCapture = new io.asicemu.parser.pcap.PcapWriter(outDir.resolve(name + "-tx.pcap"));
            }

            // Flows: QPs on both ends, messages posted at the start time.
            Map<String, List<RoceHost.QueuePair>> sendersOfFlow = new LinkedHashMap<>();
            Map<String, List<RoceHost.QueuePair>> receiversOfFlow = new LinkedHashMap<>();
            Map<String, Integer> nextQpn = new HashMap<>();
            Map<String, Long> postedBytes = new LinkedHashMap<>();
            int flowIndex = 0;
            int totalMessages = 0;
            Set<String> names = new LinkedHashSet<>();
            for (ScenarioSpec.FlowSpec f : spec.flows()) {
                String field = "flows." + f.name();
                if (f.name() == null || !names.add(f.name())) {
                    throw new ScenarioException("flows: every flow needs a unique name (" + f.name() + ")");
                }
                Fabric.HostNode from = fabric.hosts.get(f.from());
                Fabric.HostNode to = fabric.hosts.get(f.to());
                if (from == null || to == null || from == to) {
                    throw new ScenarioException(field + ": from and to must be two hosts of the scenario");
                }
                if (f.sizeCdf() != null) {
                    Workloads.validateCdf(f.sizeCdf(), field);
                }
                int qps = Math.max(1, f.qps());
                int perQp = Math.max(1, f.messages());
                if (f.bytes() < 0 || f.startUs() < 0) {
                    throw new ScenarioException(field + ": bytes and startUs must not be negative");
                }
                List<RoceHost.QueuePair> senders = new ArrayList<>();
                List<RoceHost.QueuePair> receivers = new ArrayList<>();
                for (int q = 0; q < qps; q++) {
                    int srcQpn = nextQpn.merge(f.from(), 1, Integer::sum) + 0xFF;
                    int dstQpn = nextQpn.merge(f.to(), 1, Integer::sum) + 0xFF;
                    int port = entropyPort(spec.seed(), flowIndex, q);
                    RoceHost.QueuePair s = from.host.connect(srcQpn, ipOf.get(f.to()), dstQpn, port);
                    RoceHost.QueuePair r = to.host.connect(dstQpn, ipOf.get(f.from()), srcQpn, port);
                    flowOfQp.put(s, f.name());
                    flowOfQp.put(r, f.name());
                    long qpBytes = f.bytes() / qps + (q < f.bytes() % qps ? 1 : 0);
                    SplittableRandom random = new SplittableRandom(spec.seed() * 1_000_003L + flowIndex * 1_009L + q);
                    long postNs = f.startUs() * 1_000L;
                    for (int m = 0; m < perQp; m++) {
                        long msgBytes = f.sizeCdf() != null
                                ? Workloads.drawSize(f.sizeCdf(), random, field)
                                : qpBytes / perQp + (m < qpBytes % perQp ? 1 : 0);
                        s.post(msgBytes, postNs);
                        totalMessages++;
                        if (f.meanGapUs() > 0) {
                            postNs += Math.round(-Math.log(1 - random.nextDouble()) * f.meanGapUs() * 1_000);
                        }
                    }
                    senders.add(s);
                    receivers.add(r);
                }
                sendersOfFlow.put(f.name(), senders);
                postedBytes.put(
                        f.name(),
                        senders.stream()
                                .mapToLong(RoceHost.QueuePair::bytesPosted)
                                .sum());
                receiversOfFlow.put(f.name(), receivers);
                flowIndex++;
            }

            Samples samples = new Samples(fabric, sendersOfFlow, receiversOfFlow, spec.sampleUs() * 1_000L);
            long endNs = spec.durationUs() * 1_000L;
            while (messages.size() < totalMessages) {
                long next = Math.min(fabric.nextEventNs(), samples.nextSampleNs());
                if (next > endNs) {
                    break;
                }
                samples.sampleUpTo(next);
                fabric.stepTo(next);
            }
            long finishedNs = fabric.nowNs();
            samples.finish(finishedNs);
            Result result = collect(
                    spec,
                    fabric,
                    messages,
                    sendersOfFlow,
                    receiversOfFlow,
                    postedBytes,
                    finishedNs,
                    messages.size() == totalMessages,
                    outDir);
            write(result, samples, outDir);
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ConfigDb loadConfig(Path baseDir, ScenarioSpec.SwitchSpec s) {
        Path file = Fabric.resolve(baseDir, s.config());
        try {
            return ConfigDb.load(file);
        } catch (RuntimeException e) {
            throw new ScenarioException("switch " + s.name() + ": " + file + ": " + e.getMessage());
        }
    }

    private static ConfigDb override(ConfigDb db, String switchName, Map<String, String> overrides) {
        Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>(db.tables());
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            String[] parts = e.getKey().split("\\|");
            if (parts.length < 4) {
                throw new ScenarioException("config override \"" + e.getKey() + "\": expected switch|TABLE|key|field");
            }
            if (!parts[0].equals(switchName)) {
                continue;
            }
            String table = parts[1];
            String key = String.join("|", java.util.Arrays.copyOfRange(parts, 2, parts.length - 1));
            String field = parts[parts.length - 1];
            Map<String, Map<String, String>> rows = new LinkedHashMap<>(tables.getOrDefault(table, Map.of()));
            Map<String, String> row = new LinkedHashMap<>(rows.getOrDefault(key, Map.of()));
            row.put(field, e.getValue());
            rows.put(key, row);
            tables.put(table, rows);
        }
        return new ConfigDb(tables);
    }

    /** A host answers ARP in a lab; here the switch learns it from the scenario, as a static neighbor. */
    private static ConfigDb withNeighbor(ConfigDb db, String port, String ip, String mac) {
        Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>(db.tables());
        Map<String, Map<String, String>> neigh = new LinkedHashMap<>(tables.getOrDefault("NEIGH", Map.of()));
        neigh.putIfAbsent(port + "|" + ip, Map.of("neigh", mac.toLowerCase(Locale.ROOT), "family", "IPv4"));
        tables.put("NEIGH", neigh);
        return new ConfigDb(tables);
    }

    /** RoCEv2 source ports in the dynamic range, spread by a SplitMix64 step of (seed, flow, QP). */
    static int entropyPort(long seed, int flow, int qp) {
        long z = seed * 0x9E3779B97F4A7C15L + flow * 0xBF58476D1CE4E5B9L + qp * 0x94D049BB133111EBL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return 49_152 + (int) Long.remainderUnsigned(z, 16_384);
    }

    private static Result collect(
            ScenarioSpec spec,
            Fabric fabric,
            List<MessageResult> messages,
            Map<String, List<RoceHost.QueuePair>> senders,
            Map<String, List<RoceHost.QueuePair>> receivers,
            Map<String, Long> postedBytes,
            long endNs,
            boolean allComplete,
            Path outDir) {
        List<FlowResult> flows = new ArrayList<>();
        for (ScenarioSpec.FlowSpec f : spec.flows()) {
            long last = f.startUs() * 1_000L;
            int done = 0;
            for (MessageResult m : messages) {
                if (m.flow().equals(f.name())) {
                    done++;
                    last = Math.max(last, m.completedNs());
                }
            }
            long cnpsSent = 0;
            long ce = 0;
            long delivered = 0;
            for (RoceHost.QueuePair r : receivers.get(f.name())) {
                cnpsSent += r.cnpsSent();
                ce += r.ceMarksReceived();
                delivered += r.bytesReceived();
            }
            long cnpsReceived = 0;
            long cuts = 0;
            long fast = 0;
            long additive = 0;
            long hyper = 0;
            long timerEvents = 0;
            long byteEvents = 0;
            long retx = 0;
            long timeouts = 0;
            for (RoceHost.QueuePair s : senders.get(f.name())) {
                cnpsReceived += s.cnpsReceived();
                cuts += s.reaction().rateCuts();
                fast += s.reaction().fastRecoveryEvents();
                additive += s.reaction().additiveIncreaseEvents();
                hyper += s.reaction().hyperIncreaseEvents();
                timerEvents += s.reaction().timerIncreaseEvents();
                byteEvents += s.reaction().byteCounterIncreaseEvents();
                retx += s.sender().packetsRetransmitted();
                timeouts += s.sender().timeouts();
            }
            int total = Math.max(1, f.qps()) * Math.max(1, f.messages());
            flows.add(new FlowResult(
                    f.name(),
                    f.from(),
                    f.to(),
                    postedBytes.get(f.name()),
                    f.startUs() * 1_000L,
                    done == total ? last : endNs,
                    total,
                    done,
                    delivered,
                    cnpsSent,
                    cnpsReceived,
                    ce,
                    cuts,
                    retx,
                    timeouts,
                    new IncreaseEvents(fast, additive, hyper, timerEvents, byteEvents)));
        }
        List<QueueResult> queues = new ArrayList<>();
        List<PfcResult> pfc = new ArrayList<>();
        for (Fabric.SwitchNode node : fabric.switches.values()) {
            node.pipeline.agent().trafficManager().snapshot(endNs, node.snapshot);
            for (String port : node.ports.keySet()) {
                int index = node.pipeline.control().portIndex(port);
                for (int q = 0; q < 8; q++) {
                    long packets = node.snapshot.queue(index, q, QueueStat.PACKETS);
                    long dropped = node.snapshot.queue(index, q, QueueStat.DROPPED_PACKETS);
                    if (packets > 0 || dropped > 0) {
                        queues.add(new QueueResult(
                                node.name,
                                port,
                                q,
                                packets,
                                node.snapshot.queue(index, q, QueueStat.WRED_ECN_MARKED_PACKETS),
                                dropped,
                                node.snapshot.queue(index, q, QueueStat.SHARED_WATERMARK_BYTES)));
                    }
                }
                for (int p = 0; p < 8; p++) {
                    long tx = node.snapshot.pfc(index, p, PfcStat.TX_PKTS);
                    long rx = node.snapshot.pfc(index, p, PfcStat.RX_PKTS);
                    if (tx > 0 || rx > 0) {
                        pfc.add(new PfcResult(node.name, port, p, tx, rx));
                    }
                }
            }
        }
        List<HostResult> hosts = new ArrayList<>();
        for (Fabric.HostNode h : fabric.hosts.values()) {
            hosts.add(new HostResult(
                    h.host.name(),
                    h.host.pfcFramesReceived(),
                    h.host.pausedNs(spec.host().dataPriority()),
                    h.host.controlQueueDrops(),
                    h.host.framesIgnored()));
        }
        long frames = 0;
        long lost = 0;
        for (Fabric.HostNode h : fabric.hosts.values()) {
            frames += h.host.framesSent();
            lost += h.inbox.overflows();
        }
        for (Fabric.SwitchNode node : fabric.switches.values()) {
            for (LinkPort port : node.ports.values()) {
                frames += port.txFrames();
                lost += port.lostOnCable();
            }
        }
        return new Result(
                spec.name(),
                endNs,
                allComplete,
                flows,
                List.copyOf(messages),
                queues,
                pfc,
                hosts,
                frames,
                lost,
                outDir);
    }

    private static void write(Result r, Samples samples, Path outDir) {
        try {
            Files.createDirectories(outDir);
            StringBuilder flows = new StringBuilder("flow,from,to,bytes,start_ns,end_ns,fct_ns,goodput_gbps,messages,"
                    + "completed,ce_marks,cnps_sent,cnps_received,rate_cuts,retransmitted,timeouts,fast_recovery,"
                    + "additive_increase,hyper_increase,timer_events,byte_counter_events\n");
            for (FlowResult f : r.flows()) {
                IncreaseEvents inc = f.increases();
                flows.append(String.format(
                        Locale.ROOT,
                        "%s,%s,%s,%d,%d,%d,%d,%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d%n",
                        f.name(),
                        f.from(),
                        f.to(),
                        f.bytes(),
                        f.startNs(),
                        f.endNs(),
                        f.fctNs(),
                        f.goodputGbps(),
                        f.messages(),
                        f.messagesCompleted(),
                        f.ceMarksReceived(),
                        f.cnpsSent(),
                        f.cnpsReceived(),
                        f.rateCuts(),
                        f.packetsRetransmitted(),
                        f.timeouts(),
                        inc.fastRecovery(),
                        inc.additive(),
                        inc.hyper(),
                        inc.timerEvents(),
                        inc.byteEvents()));
            }
            Files.writeString(outDir.resolve("flows.csv"), flows);
            StringBuilder msgs = new StringBuilder("flow,host,qpn,message,bytes,posted_ns,completed_ns,fct_ns\n");
            for (MessageResult m : r.messages()) {
                msgs.append(String.format(
                        Locale.ROOT,
                        "%s,%s,%d,%d,%d,%d,%d,%d%n",
                        m.flow(),
                        m.host(),
                        m.qpn(),
                        m.messageId(),
                        m.bytes(),
                        m.postedNs(),
                        m.completedNs(),
                        m.fctNs()));
            }
            Files.writeString(outDir.resolve("messages.csv"), msgs);
            StringBuilder queues = new StringBuilder("switch,port,queue,packets,ecn_marked,dropped,watermark_bytes\n");
            for (QueueResult q : r.queues()) {
                queues.append(String.format(
                        Locale.ROOT,
                        "%s,%s,%d,%d,%d,%d,%d%n",
                        q.switchName(),
                        q.port(),
                        q.queue(),
                        q.packets(),
                        q.ecnMarked(),
                        q.dropped(),
                        q.watermarkBytes()));
            }
            Files.writeString(outDir.resolve("queues.csv"), queues);
            StringBuilder pfc = new StringBuilder("switch,port,priority,pfc_frames_sent,pfc_frames_received\n");
            for (PfcResult p : r.pfc()) {
                pfc.append(String.format(
                        Locale.ROOT,
                        "%s,%s,%d,%d,%d%n",
                        p.switchName(),
                        p.port(),
                        p.priority(),
                        p.framesSent(),
                        p.framesReceived()));
            }
            Files.writeString(outDir.resolve("pfc.csv"), pfc);
            StringBuilder hosts =
                    new StringBuilder("host,pfc_frames_received,data_paused_ns,control_queue_drops,frames_ignored\n");
            for (HostResult h : r.hosts()) {
                hosts.append(String.format(
                        Locale.ROOT,
                        "%s,%d,%d,%d,%d%n",
                        h.name(),
                        h.pfcFramesReceived(),
                        h.dataPausedNs(),
                        h.controlQueueDrops(),
                        h.framesIgnored()));
            }
            Files.writeString(outDir.resolve("hosts.csv"), hosts);
            Files.writeString(outDir.resolve("queue_depth.csv"), samples.queueDepthCsv());
            Files.writeString(outDir.resolve("rates.csv"), samples.ratesCsv());
            Files.writeString(outDir.resolve("pfc_over_time.csv"), samples.pfcCsv());
            Files.writeString(outDir.resolve("ecmp_spread.csv"), samples.spreadCsv());
            Files.writeString(outDir.resolve("flowlets.csv"), samples.flowletsCsv());
            Files.writeString(outDir.resolve("summary.txt"), summary(r));
            Files.writeString(outDir.resolve("report.html"), Report.html(r, samples));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String summary(Result r) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "scenario %s: %s at %.3f us of virtual time, %d frames on the wire%n",
                r.name(),
                r.allComplete() ? "every message acknowledged" : "NOT COMPLETE",
                r.endNs() / 1e3,
                r.framesOnWire()));
        long controlDrops =
                r.hosts().stream().mapToLong(HostResult::controlQueueDrops).sum();
        if (r.framesLostOnCables() > 0 || controlDrops > 0) {
            // Not the model's drops: the harness ran out of room; the run's numbers are suspect.
            sb.append(String.format(
                    Locale.ROOT,
                    "  WARNING: %d frames lost on cables (FIFO full), %d host control "
                            + "frames dropped (control queue full)%n",
                    r.framesLostOnCables(),
                    controlDrops));
        }
        for (FlowResult f : r.flows()) {
            sb.append(String.format(
                    Locale.ROOT,
                    "  flow %-10s %s -> %s  %d B  fct %.3f us  goodput %.2f Gb/s  CE %d  CNP %d/%d  cuts %d  "
                            + "retx %d%n",
                    f.name(),
                    f.from(),
                    f.to(),
                    f.bytes(),
                    f.fctNs() / 1e3,
                    f.goodputGbps(),
                    f.ceMarksReceived(),
                    f.cnpsSent(),
                    f.cnpsReceived(),
                    f.rateCuts(),
                    f.packetsRetransmitted()));
        }
        sb.append(String.format(
                Locale.ROOT,
                "  switches: %d ECN marks, %d PFC frames sent; hosts paused %.3f us in " + "total%n",
                r.ecnMarked(),
                r.pfcFramesSent(),
                r.dataPausedNs() / 1e3));
        if (!r.messages().isEmpty()) {
            sb.append(String.format(
                    Locale.ROOT,
                    "  message FCT P50 %.3f us, P99 %.3f us, P99.9 %.3f us (%d messages)%n",
                    r.messageFctPercentileNs(50) / 1e3,
                    r.messageFctPercentileNs(99) / 1e3,
                    r.messageFctPercentileNs(99.9) / 1e3,
                    r.messages().size()));
        }
        return sb.toString();
    }
}
