package io.asicemu.switchd;

import io.asicemu.operator.CountersBaseline;
import io.asicemu.operator.RedisCountersClient;
import io.asicemu.operator.ShowViews;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code asic-emu show …}: SONiC's show views of a running switch, read over its Redis port ({@code run
 * --redis-port}), with sonic-utilities' columns. Counters are shown since the last {@code asic-emu clear counters}
 * (a baseline saved on this side, as sonic-utilities does; the switch's counters never change).
 */
@Command(
        name = "show",
        mixinStandardHelpOptions = true,
        description = "Show a running switch's counters as SONiC does (over its Redis port, `run --redis-port`): "
                + "interfaces counters | pfc counters | queue counters | queue wredcounters | queue watermark unicast | "
                + "priority-group watermark headroom | priority-group watermark shared | pfcwd stats [--empty]")
final class ShowCommand implements Callable<Integer> {
    /** The views by their SONiC command words. */
    private static final List<String> VIEWS = List.of(
            "interfaces counters",
            "pfc counters",
            "queue counters",
            "queue wredcounters",
            "queue watermark unicast",
            "priority-group watermark headroom",
            "priority-group watermark shared",
            "pfcwd stats");

    @Parameters(arity = "1..*", paramLabel = "WORD", description = "what to show, e.g. `queue counters`")
    private List<String> words;

    @CommandLine.Mixin
    private SwitchAddress address = new SwitchAddress();

    @Option(names = "--empty", description = "pfcwd stats: also the queues whose counters are all zero")
    private boolean empty;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        final String view = String.join(" ", words);
        final PrintWriter out = spec.commandLine().getOut();
        if (!VIEWS.contains(view)) {
            spec.commandLine().getErr().println("show: no view `" + view + "`; one of: " + String.join(", ", VIEWS));
            return 2;
        }
        try (RedisCountersClient client = address.connect()) {
            final ShowViews views = new ShowViews(client, CountersBaseline.load(address.baselineFile()));
            out.print(
                    switch (view) {
                        case "interfaces counters" -> views.interfacesCounters();
                        case "pfc counters" -> views.pfcCounters();
                        case "queue counters" -> views.queueCounters();
                        case "queue wredcounters" -> views.queueWredCounters();
                        case "queue watermark unicast" -> views.queueWatermarkUnicast();
                        case "priority-group watermark headroom" -> views.priorityGroupWatermark(true);
                        case "priority-group watermark shared" -> views.priorityGroupWatermark(false);
                        case "pfcwd stats" -> views.pfcwdStats(empty);
                        default -> throw new IllegalStateException(view);
                    });
            out.flush();
            return 0;
        } catch (final IOException e) {
            spec.commandLine().getErr().println("show: " + e.getMessage());
            return 1;
        }
    }

    /** {@code asic-emu clear counters}: saves the baseline {@code show} subtracts (sonic-clear counters). */
    @Command(
            name = "clear",
            mixinStandardHelpOptions = true,
            description =
                    "Clear the counters `asic-emu show` prints, as sonic-clear does: the current values are saved "
                            + "on this side and subtracted from then on (the switch's counters are unchanged)")
    static final class ClearCommand implements Callable<Integer> {
        @Parameters(arity = "1", paramLabel = "counters", description = "`counters`")
        private String what;

        @CommandLine.Mixin
        private SwitchAddress address = new SwitchAddress();

        @CommandLine.Spec
        private CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            if (!what.equals("counters")) {
                spec.commandLine().getErr().println("clear: only `clear counters` exists, not `" + what + "`");
                return 2;
            }
            try (RedisCountersClient client = address.connect()) {
                CountersBaseline.save(client, address.baselineFile());
                spec.commandLine().getOut().println("Cleared counters");
                return 0;
            } catch (final IOException e) {
                spec.commandLine().getErr().println("clear: " + e.getMessage());
                return 1;
            }
        }
    }

    /** Where the switch's Redis port is, and where this side keeps its baseline for it. */
    static final class SwitchAddress {
        @Option(
                names = {"-H", "--host"},
                paramLabel = "HOST",
                defaultValue = "127.0.0.1",
                description = "the switch's management address (default ${DEFAULT-VALUE})")
        String host;

        @Option(
                names = {"-p", "--port"},
                paramLabel = "PORT",
                defaultValue = "6379",
                description = "its Redis port, `run --redis-port` (default ${DEFAULT-VALUE})")
        int port;

        @Option(names = "--password-file", paramLabel = "FILE", description = "AUTH password on the first line")
        Path passwordFile;

        @Option(
                names = "--baseline-dir",
                paramLabel = "DIR",
                description = "where `clear counters` keeps its baseline (default $XDG_CACHE_HOME/asic-emu or "
                        + "~/.cache/asic-emu)")
        Path baselineDir;

        RedisCountersClient connect() throws IOException {
            String password = null;
            if (passwordFile != null) {
                final List<String> lines = Files.readAllLines(passwordFile);
                password = lines.isEmpty() ? "" : lines.get(0);
            }
            return RedisCountersClient.connect(new InetSocketAddress(host, port), password, Duration.ofSeconds(10));
        }

        Path baselineFile() {
            Path dir = baselineDir;
            if (dir == null) {
                final String xdg = System.getenv("XDG_CACHE_HOME");
                dir = xdg != null && !xdg.isEmpty()
                        ? Path.of(xdg, "asic-emu")
                        : Path.of(System.getProperty("user.home"), ".cache", "asic-emu");
            }
            return dir.resolve("counters-" + host.replaceAll("[^A-Za-z0-9.-]", "_") + "-" + port + ".properties");
        }
    }
}
