package io.asicemu.switchd;

import io.asicemu.config.ConfigException;
import io.asicemu.pipeline.config.AdminDownPorts;
import io.asicemu.pipeline.config.ConfigCompiler;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.replay.LinkPartnerMode;
import io.asicemu.pipeline.replay.Replay;
import io.asicemu.pipeline.replay.ReplayOptions;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code replay}: runs the whole switch in deterministic virtual time over per-port input captures (the analogue of
 * BMv2's {@code --use-files}) and writes per-port output captures and the counters.
 */
@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        description = "Replay per-port pcap/pcapng captures through the switch in virtual time; write <port>.pcap, "
                + "cpu.pcap and counters.txt to the output directory.")
final class ReplayCommand implements Callable<Integer> {
    /** The largest input capture: a replay holds each input in memory whole (arrays index at most 2 GiB). */
    static final long MAX_CAPTURE_BYTES = 1L << 30;

    @picocli.CommandLine.Mixin
    private SizingOptions sizing = new SizingOptions();

    @Option(names = "--config", required = true, paramLabel = "config_db.json", description = "SONiC CONFIG_DB JSON")
    private Path config;

    @CommandLine.Mixin
    private ConfigOptions configOptions = new ConfigOptions();

    @Option(
            names = "--in",
            required = true,
            paramLabel = "PORT=FILE",
            description = "input capture of a port, e.g. Ethernet0=a.pcap (repeatable)")
    private Map<String, Path> inputs = new LinkedHashMap<>();

    @Option(names = "--out-dir", required = true, paramLabel = "DIR", description = "where outputs are written")
    private Path outDir;

    @Option(
            names = "--link-partner",
            paramLabel = "none|pfc",
            defaultValue = "none",
            description = "pfc: each input capture is a NIC that honours the PFC frames the switch sends it (default: "
                    + "${DEFAULT-VALUE}, inputs arrive at their recorded times)")
    private String linkPartner;

    @Option(
            names = "--cable-delay-ns",
            paramLabel = "NS",
            defaultValue = "0",
            description = "one-way cable delay of every port in ns (default: ${DEFAULT-VALUE})")
    private long cableDelayNs;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        final PrintWriter out = spec.commandLine().getOut();
        for (final Map.Entry<String, Path> input : inputs.entrySet()) {
            checkCapture(input.getKey(), input.getValue());
        }
        final ConfigDb db = configOptions.load(config, spec.commandLine().getErr(), "replay");
        final ReplayOptions options = new ReplayOptions(LinkPartnerMode.parse(linkPartner), cableDelayNs);
        final Replay.Result result;
        try {
            // a refused config is one line; an accepted one says first which ports it leaves admin down
            ConfigCompiler.compile(db, sizing.sizing(), Map.of());
            final String adminDown = AdminDownPorts.warning(db);
            if (adminDown != null) {
                spec.commandLine().getErr().println("replay: warning: " + adminDown);
                spec.commandLine().getErr().flush();
            }
            result = Replay.run(db, inputs, outDir, sizing.sizing(), options);
        } catch (final ConfigException e) {
            throw new CliError(config + ": configuration refused: " + e.getMessage(), e);
        }
        out.print(Replay.render(result));
        result.linkPartners()
                .forEach((port, partner) -> out.println(port + " link partner: "
                        + partner.pfcFramesReceived() + " PFC frames received, " + partner.delayedFrames()
                        + " frames delayed by " + partner.totalDelayNs() + " ns in total"));
        out.println(summary(result, outDir));
        out.flush();
        return 0;
    }

    /**
     * @param result a replay's result.
     * @param outDir where its outputs are.
     * @return the last line: cycles, the virtual time the replay spanned (from its first input frame, whatever epoch
     *     the captures' timestamps count from) and where the outputs are.
     */
    static String summary(final Replay.Result result, final Path outDir) {
        return "replay: " + result.cycles() + " cycles, " + result.spanNs() + " ns of virtual time ("
                + String.format(java.util.Locale.ROOT, "%.6f", result.spanNs() / 1e9)
                + " s, from the first input frame to the last frame out); outputs in " + outDir;
    }

    /** An input capture must be a readable regular file of at most {@link #MAX_CAPTURE_BYTES}. */
    static void checkCapture(final String port, final Path file) {
        if (!Files.exists(file)) {
            throw new CliError(file + ": no such capture (the input of " + port + ")");
        }
        if (!Files.isRegularFile(file)) {
            throw new CliError(file + ": the capture of " + port + " is not a regular file");
        }
        if (!Files.isReadable(file)) {
            throw new CliError(file + ": the capture of " + port + " is not readable by this user");
        }
        try {
            if (Files.size(file) > MAX_CAPTURE_BYTES) {
                throw new CliError(file + ": the capture of " + port + " is larger than " + (MAX_CAPTURE_BYTES >> 20)
                        + " MiB (" + Files.size(file) + " bytes); split it (editcap -c)");
            }
        } catch (final java.io.IOException e) {
            throw new CliError(file + ": cannot read the capture of " + port + ": " + e.getMessage(), e);
        }
    }
}
