package io.asicemu.switchd;

import io.asicemu.pipeline.config.ConfigException;
import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.replay.LinkPartnerMode;
import io.asicemu.pipeline.replay.Replay;
import io.asicemu.pipeline.replay.ReplayOptions;
import io.asicemu.pipeline.table.PipelineSizing;
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
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = "Replay per-port pcap/pcapng captures through the switch in virtual time; write <port>.pcap, "
        + "cpu.pcap and counters.txt to the output directory.")
final class ReplayCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    private SizingOptions sizing = new SizingOptions();

    @Option(names = "--config", required = true, paramLabel = "config_db.json", description = "SONiC CONFIG_DB JSON")
    private Path config;

    @CommandLine.Mixin
    private ConfigOptions configOptions = new ConfigOptions();

    @Option(names = "--in", required = true, paramLabel = "PORT=FILE",
        description = "input capture of a port, e.g. Ethernet0=a.pcap (repeatable)")
    private Map<String, Path> inputs = new LinkedHashMap<>();

    @Option(names = "--out-dir", required = true, paramLabel = "DIR", description = "where outputs are written")
    private Path outDir;

    @Option(names = "--link-partner", paramLabel = "none|pfc", defaultValue = "none",
        description = "pfc: each input capture is a NIC that honours the PFC frames the switch sends it (default: "
            + "${DEFAULT-VALUE}, inputs arrive at their recorded times)")
    private String linkPartner;

    @Option(names = "--cable-delay-ns", paramLabel = "NS", defaultValue = "0",
        description = "one-way cable delay of every port in ns (default: ${DEFAULT-VALUE})")
    private long cableDelayNs;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        for (final Map.Entry<String, Path> input : inputs.entrySet()) {
            if (!Files.isReadable(input.getValue())) {
                err.println("replay: cannot read the capture for " + input.getKey() + ": " + input.getValue());
                return 2;
            }
        }
        try {
            final ReplayOptions options = new ReplayOptions(LinkPartnerMode.parse(linkPartner), cableDelayNs);
            final Replay.Result result = Replay.run(configOptions.load(config, err, "replay"), inputs, outDir, sizing.sizing(),
                options);
            out.print(Replay.render(result));
            result.linkPartners().forEach((port, partner) -> out.println(port + " link partner: "
                + partner.pfcFramesReceived() + " PFC frames received, " + partner.delayedFrames()
                + " frames delayed by " + partner.totalDelayNs() + " ns in total"));
            out.println("replay: " + result.cycles() + " cycles, virtual time " + result.endNs() + " ns; outputs in "
                + outDir);
            out.flush();
            return 0;
        } catch (final ConfigException e) {
            err.println("replay: configuration refused: " + e.getMessage());
            return 2;
        } catch (final IllegalArgumentException e) {
            err.println("replay: " + e.getMessage());
            return 2;
        }
    }
}
