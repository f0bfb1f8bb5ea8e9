package io.asicemu.pipeline.replay;

import io.asicemu.parser.pcap.PcapWriter;
import io.asicemu.pipeline.Pipeline;
import io.asicemu.pipeline.config.CompiledConfig;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.config.SwitchConfig;
import io.asicemu.pipeline.control.TableEntryCounters;
import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.pipeline.counter.PuntReason;
import io.asicemu.pipeline.dataplane.DataPlaneAgent;
import io.asicemu.pipeline.port.PcapFilePort;
import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.time.ManualClock;
import io.asicemu.tm.counter.TmCountersSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Deterministic offline replay, the analogue of BMv2's {@code --use-files}: runs the whole pipeline in virtual time
 * over per-port input pcaps and writes what every port transmits to {@code <outDir>/<port>.pcap} (nanosecond
 * timestamps = the end of serialization at the port's modeled speed, switch-generated frames such as ARP requests
 * and PFC included), punted packets to {@code <outDir>/cpu.pcap}, and the counters to {@code <outDir>/counters.txt}.
 * <p>
 * Time starts at the earliest input timestamp and jumps from event to event (the next input frame, the next frame a
 * port may start, the next timer) until every input was received and every queue drained. Same inputs, same bytes
 * out. Runs on the caller's thread; not thread safe.
 * <p>
 * With {@link ReplayOptions#linkPartner()} {@link LinkPartnerMode#PFC} each input capture is a {@link LinkPartnerPort}:
 * a NIC that honours the PFC frames the switch sends back on that port after the cable delay, so its frames may
 * arrive later than recorded (in order, back to back).
 */
public final class Replay {
    /** Safety bound on duty cycles per input frame. */
    private static final long MAX_CYCLES_PER_FRAME = 10_000;

    private Replay() {}

    /**
     * What a replay produced.
     *
     * @param outputs port name → output pcap.
     * @param cpuPcap the punted packets.
     * @param countersFile the rendered counters.
     * @param counters the counters.
     * @param cycles duty cycles run.
     * @param startNs the virtual time at the start (the earliest input timestamp; 0 without input).
     * @param endNs the virtual time at the end.
     * @param linkPartners port name → what its link partner did (empty without link partners).
     * @param trafficManager the traffic manager's counters at the end (queues, PGs, PFC, watchdog; null without one).
     * @param portNames port names by the index the traffic manager's counters use.
     * @param tableEntries per-route, per-next-hop and per-neighbor hit counters at the end.
     */
    public record Result(
            Map<String, Path> outputs,
            Path cpuPcap,
            Path countersFile,
            CountersSnapshot counters,
            long cycles,
            long startNs,
            long endNs,
            Map<String, LinkPartnerStats> linkPartners,
            TmCountersSnapshot trafficManager,
            List<String> portNames,
            TableEntryCounters tableEntries) {
        /** @return the virtual time the replay spanned, from the earliest input frame to the last thing done (ns). */
        public long spanNs() {
            return endNs - startNs;
        }
    }

    /**
     * Replays with default sizes.
     *
     * @param configDbJson config_db.json.
     * @param inputs SONiC port name → input pcap (ports without input receive nothing).
     * @param outDir output directory (created).
     * @return what was produced.
     */
    public static Result run(final Path configDbJson, final Map<String, Path> inputs, final Path outDir) {
        return run(ConfigDb.load(configDbJson), inputs, outDir, PipelineSizing.defaults());
    }

    /**
     * Replays.
     *
     * @param db the configuration.
     * @param inputs SONiC port name → input pcap.
     * @param outDir output directory (created).
     * @param sizing table sizes.
     * @return what was produced.
     * @throws io.asicemu.pipeline.config.ConfigException if the configuration is refused.
     * @throws IllegalArgumentException if an input names a port the configuration lacks.
     */
    public static Result run(
            final ConfigDb db, final Map<String, Path> inputs, final Path outDir, final PipelineSizing sizing) {
        return run(db, inputs, outDir, sizing, ReplayOptions.defaults());
    }

    /**
     * Replays with options (link partners, cable delay).
     *
     * @param db the configuration.
     * @param inputs SONiC port name → input pcap.
     * @param outDir output directory (created).
     * @param sizing table sizes.
     * @param options link partner mode and cable delay.
     * @return what was produced.
     * @throws io.asicemu.pipeline.config.ConfigException if the configuration is refused.
     * @throws IllegalArgumentException if an input names a port the configuration lacks, an output file name would
     *     leave {@code outDir} ({@link OutputPaths}), or {@code outDir} is not a directory.
     * @throws ReplayFailedException if the run failed midway (the outputs and counters so far are written).
     */
    public static Result run(
            final ConfigDb db,
            final Map<String, Path> inputs,
            final Path outDir,
            final PipelineSizing sizing,
            final ReplayOptions options) {
        return run(db, inputs, outDir, sizing, options, 0, false);
    }

    /**
     * {@link #run(ConfigDb, Map, Path, PipelineSizing, ReplayOptions)} with its safety bound on duty cycles given
     * (tests; 0 = {@link #MAX_CYCLES_PER_FRAME} per input frame), and optionally stepping through idle time from timer
     * to timer as before the jump existed (tests compare the two).
     */
    static Result run(
            final ConfigDb db,
            final Map<String, Path> inputs,
            final Path outDir,
            final PipelineSizing sizing,
            final ReplayOptions options,
            final long cycleLimit,
            final boolean stepThroughIdleTime) {
        final ManualClock clock = new ManualClock();
        final Map<String, Port> ports = new LinkedHashMap<>();
        final Map<String, Path> outputs = new LinkedHashMap<>();
        final CompiledConfig probe = io.asicemu.pipeline.config.ConfigCompiler.compile(db, sizing, Map.of());
        for (final String name : inputs.keySet()) {
            if (!probe.setup().portIndex().containsKey(name)) {
                throw new IllegalArgumentException("input for " + name + ", which is not in PORT");
            }
        }
        // every output is checked (confined, not a symbolic link) before the first is created: a refusal writes nothing
        for (final String name : probe.setup().portNames()) {
            outputs.put(name, OutputPaths.confined(outDir, name + ".pcap"));
        }
        final Path cpuPcap = OutputPaths.confined(outDir, "cpu.pcap");
        final Path countersFile = OutputPaths.confined(outDir, "counters.txt");
        OutputPaths.createDirectory(outDir);
        try (Pipeline pipeline = Pipeline.create(clock, sizing, Map.of())) {
            long startNs = Long.MAX_VALUE;
            for (final String name : probe.setup().portNames()) {
                final Path out = outputs.get(name);
                final long speed =
                        Long.parseLong(db.table("PORT").get(name).get("speed").trim());
                final int mtu = Integer.parseInt(
                        db.table("PORT").get(name).getOrDefault("mtu", "9100").trim());
                final Port port = openPort(probe, name, inputs.get(name), out, mtu, speed, options);
                ports.put(name, port);
                startNs = Math.min(startNs, nextRxNs(port));
                pipeline.control().attachPort(name, port);
            }
            startNs = startNs == Long.MAX_VALUE ? 0 : startNs;
            clock.nowNs(startNs);
            SwitchConfig.of(pipeline.control()).applyConfig(db);
            final long[] cycles = new long[1];
            RuntimeException failure = null;
            try (PcapWriter cpu = new PcapWriter(cpuPcap)) {
                try {
                    loop(pipeline, clock, ports, cpu, cycles, cycleLimit, stepThroughIdleTime);
                } catch (final RuntimeException e) {
                    failure = e; // keep what was produced: the outputs so far and the counters
                }
            }
            final Map<String, LinkPartnerStats> partners = new LinkedHashMap<>();
            for (final Port port : ports.values()) {
                if (port instanceof LinkPartnerPort lp) {
                    partners.put(port.name(), LinkPartnerStats.of(lp));
                }
                port.close();
            }
            final CountersSnapshot counters = pipeline.control().counters();
            // the data thread (here: this one) takes the traffic manager's snapshot at its next duty cycle
            final CompletableFuture<TmCountersSnapshot> tmCounters =
                    pipeline.control().trafficManagerCounters();
            final CompletableFuture<TableEntryCounters> entries =
                    pipeline.control().tableEntryCounters();
            try {
                pipeline.agent().doWork();
            } catch (final RuntimeException e) {
                if (failure == null) {
                    throw e;
                }
                failure.addSuppressed(e); // the pipeline's own counters are still written below
            }
            final List<String> portNames = pipeline.control().portNames();
            final Result result = new Result(
                    outputs,
                    cpuPcap,
                    countersFile,
                    counters,
                    cycles[0],
                    startNs,
                    clock.nowNs(),
                    partners,
                    tmCounters.getNow(null),
                    portNames,
                    entries.getNow(null));
            if (failure != null) {
                final String reason = "replay failed after " + cycles[0] + " cycles, " + result.spanNs()
                        + " ns of virtual time after the first input frame: " + failure.getMessage();
                Files.writeString(
                        countersFile,
                        "# INCOMPLETE: " + reason + "; the counters and captures hold what " + "happened until then\n"
                                + render(result));
                throw new ReplayFailedException(reason, result, failure);
            }
            Files.writeString(countersFile, render(result));
            return result;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (final Port port : ports.values()) {
                port.close();
            }
        }
    }

    private static Port openPort(
            final CompiledConfig config,
            final String name,
            final Path input,
            final Path out,
            final int mtu,
            final long speed,
            final ReplayOptions options) {
        if (input == null || options.linkPartner() == LinkPartnerMode.NONE) {
            return new PcapFilePort(name, input, out, mtu, speed);
        }
        return new LinkPartnerPort(
                name,
                input,
                out,
                mtu,
                speed,
                options.cableDelayNs(),
                SwitchPriorityClassifier.of(
                        config.setup().tables().qos(),
                        config.setup().portIndex().get(name)));
    }

    private static long nextRxNs(final Port port) {
        return port instanceof LinkPartnerPort lp ? lp.nextRxTimestampNs() : ((PcapFilePort) port).nextRxTimestampNs();
    }

    private static int pendingRx(final Port port) {
        return port instanceof LinkPartnerPort lp ? lp.pendingRx() : ((PcapFilePort) port).pendingRx();
    }

    private static void loop(
            final Pipeline pipeline,
            final ManualClock clock,
            final Map<String, Port> ports,
            final PcapWriter cpu,
            final long[] cyclesOut,
            final long cycleLimit,
            final boolean stepThroughIdleTime) {
        final DataPlaneAgent agent = pipeline.agent();
        long frames = 0;
        for (final Port port : ports.values()) {
            frames += pendingRx(port);
        }
        final long maxCycles = cycleLimit > 0 ? cycleLimit : (frames + 16) * MAX_CYCLES_PER_FRAME;
        long cycles = 0;
        agent.doWork();
        while (true) {
            long nextRx = Long.MAX_VALUE;
            for (final Port port : ports.values()) {
                nextRx = Math.min(nextRx, nextRxNs(port));
            }
            if (nextRx == Long.MAX_VALUE && !agent.hasQueuedPackets()) {
                break;
            }
            // Idle (nothing queued): the timers due before the next frame (watchdog polls, FDB aging) change nothing
            // a frame could see that they would not also do when run late at their own instants, so jump to the
            // frame in one step: a gap of days costs one cycle, not one per timer period.
            final long next =
                    stepThroughIdleTime || agent.hasQueuedPackets() ? Math.min(nextRx, agent.nextDeadlineNs()) : nextRx;
            if (next != Long.MAX_VALUE && next > clock.nowNs()) {
                clock.nowNs(next);
            }
            agent.doWork();
            drainCpu(pipeline, cpu);
            cyclesOut[0] = ++cycles;
            if (cycles > maxCycles) {
                throw new IllegalStateException(
                        "replay made no progress after " + cycles + " cycles at " + clock.nowNs() + " ns");
            }
        }
        drainCpu(pipeline, cpu);
    }

    private static void drainCpu(final Pipeline pipeline, final PcapWriter cpu) {
        pipeline.control()
                .cpuPort()
                .poll(
                        (segment, offset, length, port, reason, timestampNs) ->
                                cpu.write(segment, offset, length, timestampNs),
                        Integer.MAX_VALUE);
    }

    /**
     * @param result a replay's result.
     * @return the pipeline's counters ({@link #render(CountersSnapshot)}), then the traffic manager's non-zero
     *     counters as COUNTERS_DB names them: {@code <port>:<queue> SAI_QUEUE_STAT_…}, {@code <port>:<pg>
     *     SAI_INGRESS_PRIORITY_GROUP_STAT_…}, {@code <port> SAI_PORT_STAT_PFC_n_…}, and stormed watchdog queues;
     *     then the routes, next hops and neighbors that forwarded packets ({@link TableEntryCounters#render()}).
     */
    public static String render(final Result result) {
        final StringBuilder out = new StringBuilder(render(result.counters()));
        if (result.tableEntries() != null) {
            out.append(result.tableEntries().render());
        }
        final TmCountersSnapshot tm = result.trafficManager();
        if (tm == null) {
            return out.toString();
        }
        final List<String> names = result.portNames();
        for (int port = 0; port < names.size(); port++) {
            final String name = names.get(port);
            for (int q = 0; q < 8; q++) {
                appendNonZero(out, name + ':' + q, tm.queueFields(port, q));
            }
            for (int pg = 0; pg < 8; pg++) {
                appendNonZero(out, name + ':' + pg, tm.pgFields(port, pg));
            }
            appendNonZero(out, name, tm.portPfcFields(port));
        }
        return out.toString();
    }

    private static void appendNonZero(final StringBuilder out, final String key, final Map<String, String> fields) {
        fields.forEach((field, value) -> {
            final boolean quiet = value.equals("0") || value.equals("false") || value.equals("operational");
            if (!quiet) {
                out.append(key)
                        .append(' ')
                        .append(field)
                        .append(' ')
                        .append(value)
                        .append('\n');
            }
        });
    }

    /**
     * @param counters a snapshot.
     * @return the replay's text rendering: {@code <port> <counter> <value>} for non-zero values, then punt totals.
     */
    public static String render(final CountersSnapshot counters) {
        final StringBuilder out = new StringBuilder(counters.render());
        for (final PuntReason r : PuntReason.values()) {
            final long n = counters.punts().getOrDefault(r.counterName(), 0L);
            if (n != 0) {
                out.append("CPU ").append(r.counterName()).append(' ').append(n).append('\n');
            }
        }
        return out.toString();
    }
}
