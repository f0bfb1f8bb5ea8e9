package io.asicemu.switchd;

import io.asicemu.operator.CountersBaseline;
import io.asicemu.operator.RedisCountersClient;
import io.asicemu.operator.RegisterAccess;
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
                + "priority-group watermark headroom | priority-group watermark shared | pfcwd stats [--empty]; "
                + "asic-emu's own: ecmp | ars | registers [NAME [EthernetN [N]]] [-i EthernetN] [--queue N | --pg N] "
                + "[--group N] [--pool NAME] [--index N] (docs/REGISTERS.md)")
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
            "pfcwd stats",
            "ecmp",
            "ars");

    @Parameters(arity = "1..*", paramLabel = "WORD", description = "what to show, e.g. `queue counters`")
    private List<String> words;

    @CommandLine.Mixin
    private SwitchAddress address = new SwitchAddress();

    @Option(names = "--empty", description = "pfcwd stats: also the queues whose counters are all zero")
    private boolean empty;

    @CommandLine.Mixin
    private RegisterInstance instance = new RegisterInstance();

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        final String view = String.join(" ", words);
        final PrintWriter out = spec.commandLine().getOut();
        if (words.get(0).equals("registers")) {
            return registers(out);
        }
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
                        case "ecmp" -> views.ecmp();
                        case "ars" -> views.ars();
                        default -> throw new IllegalStateException(view);
                    });
            out.flush();
            return 0;
        } catch (final IOException e) {
            spec.commandLine().getErr().println("show: " + e.getMessage());
            return 1;
        }
    }

    /**
     * {@code show registers [NAME [EthernetN [N]]]}: every register (or one), every instance or those of one port,
     * queue/PG, group or pool, read live over {@code ASICEMU.REGISTER GET}.
     */
    private int registers(final PrintWriter out) {
        if (words.size() > 4) {
            spec.commandLine().getErr().println("show registers: at most NAME, port and queue/PG, not " + words);
            return 2;
        }
        final String name = words.size() > 1 ? words.get(1) : null;
        final RegisterInstance where =
                instance.withPositional(words.size() > 2 ? words.get(2) : null, words.size() > 3 ? words.get(3) : null);
        try (RedisCountersClient client = address.connect()) {
            final List<RegisterAccess.Row> rows =
                    client.registers(name, null).stream().filter(where::matches).toList();
            out.print(ShowViews.registers(rows));
            out.flush();
            return 0;
        } catch (final IllegalArgumentException | RegisterAccess.RegisterException e) {
            spec.commandLine().getErr().println("show registers: " + e.getMessage());
            return 2;
        } catch (final IOException e) {
            spec.commandLine().getErr().println("show registers: " + e.getMessage());
            return 1;
        }
    }

    /** Which register instances a command means: a port, a queue or PG of it, a group or a pool. */
    static final class RegisterInstance {
        @Option(
                names = {"-i", "--interface"},
                paramLabel = "EthernetN",
                description = "registers: the port (-p/--port is the switch's Redis port)")
        String port;

        @Option(names = "--queue", paramLabel = "N", description = "registers: the queue (with -i)")
        Integer queue;

        @Option(names = "--pg", paramLabel = "N", description = "registers: the ingress priority group (with -i)")
        Integer pg;

        @Option(names = "--group", paramLabel = "N", description = "registers: the next-hop group id")
        Integer group;

        @Option(names = "--pool", paramLabel = "NAME", description = "registers: the BUFFER_POOL")
        String pool;

        @Option(names = "--index", paramLabel = "N", description = "registers: the DSCP, TC or PCP of a QOS_* map")
        Integer index;

        RegisterInstance withPositional(final String positionalPort, final String positionalClass) {
            final RegisterInstance r = new RegisterInstance();
            r.port = positionalPort != null ? positionalPort : port;
            if (positionalClass != null) {
                try {
                    r.queue = Integer.valueOf(positionalClass);
                } catch (final NumberFormatException e) {
                    throw new IllegalArgumentException(
                            "the queue/PG after the port must be 0..7, not " + positionalClass);
                }
            } else {
                r.queue = queue;
            }
            r.pg = pg;
            r.group = group;
            r.pool = pool;
            r.index = index;
            return r;
        }

        /** @return the instance label the switch uses ({@code ""}: switch-wide). */
        String label() {
            final Integer k = queue != null ? queue : pg;
            if (port != null) {
                return k == null ? port : port + "|" + k;
            }
            if (k != null) {
                throw new IllegalArgumentException("--queue/--pg need the port (-i EthernetN)");
            }
            if (group != null) {
                return Integer.toString(group);
            }
            if (index != null) {
                return Integer.toString(index);
            }
            return pool != null ? pool : "";
        }

        /** @return whether a row is one of the instances meant (all when none is given). */
        boolean matches(final RegisterAccess.Row row) {
            final String label = label();
            if (label.isEmpty()) {
                return true;
            }
            return row.instance().equals(label)
                    || (queue == null
                            && pg == null
                            && port != null
                            && row.instance().startsWith(port + "|"));
        }
    }

    /**
     * {@code asic-emu config register NAME VALUE [-i EthernetN] [--queue N | --pg N] [--group N] [--pool P]}, {@code
     * config load FILE}, {@code config save [FILE]}.
     */
    @Command(
            name = "config",
            mixinStandardHelpOptions = true,
            description = "Change a running switch (over its Redis port): `config register NAME VALUE` with the "
                    + "instance options writes one chip register (docs/REGISTERS.md), validated and applied "
                    + "atomically as a P4Runtime register write is; `config load FILE` merges a config_db.json into "
                    + "the running CONFIG_DB as SONiC's config load does, as one change (one MULTI/EXEC): all of it or, "
                    + "refused, none; `config save [FILE]` writes the running CONFIG_DB as config_db.json (stdout "
                    + "without FILE), which `run --config` and `config load` take. A refused change changes nothing")
    static final class ConfigCommand implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "register|load|save", description = "what to do")
        private String what;

        @Parameters(
                index = "1..*",
                arity = "0..*",
                paramLabel = "ARG",
                description = "register: NAME (e.g. ECN_KMIN) and VALUE (decimal or 0x hex); load: FILE; save: [FILE]")
        private List<String> args;

        @CommandLine.Mixin
        private SwitchAddress address = new SwitchAddress();

        @CommandLine.Mixin
        private RegisterInstance instance = new RegisterInstance();

        @CommandLine.Spec
        private CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            if (args == null) {
                args = List.of();
            }
            return switch (what) {
                case "register" -> args.size() == 2 ? register(args.get(0), args.get(1)) : usage("register NAME VALUE");
                case "load" -> args.size() == 1 ? load(Path.of(args.get(0))) : usage("load FILE");
                case "save" ->
                    args.size() <= 1 ? save(args.isEmpty() ? null : Path.of(args.get(0))) : usage("save [FILE]");
                default -> {
                    spec.commandLine()
                            .getErr()
                            .println("config: `config register`, `config load` or `config save`, not `" + what + "`");
                    yield 2;
                }
            };
        }

        private int usage(final String form) {
            spec.commandLine().getErr().println("config: usage: asic-emu config " + form);
            return 2;
        }

        private int register(final String name, final String value) {
            try (RedisCountersClient client = address.connect()) {
                final RegisterAccess.Row row = client.writeRegister(name, instance.label(), value);
                spec.commandLine().getOut().print(ShowViews.registers(List.of(row)));
                spec.commandLine().getOut().flush();
                return 0;
            } catch (final IllegalArgumentException | RegisterAccess.RegisterException e) {
                spec.commandLine().getErr().println("config register: " + e.getMessage());
                return 2;
            } catch (final IOException e) {
                spec.commandLine().getErr().println("config register: " + e.getMessage());
                return 1;
            }
        }

        /** Reads the file as {@code run --config} does, then one MULTI of HSETs and one EXEC. */
        private int load(final Path file) {
            final java.util.Map<String, java.util.Map<String, String>> config;
            try {
                config = SwitchSnapshots.redisForm(ConfigFiles.load(file));
            } catch (final CliError e) {
                spec.commandLine().getErr().println("config load: " + e.getMessage());
                return 2;
            }
            try (RedisCountersClient client = address.connect()) {
                client.loadConfig(config);
                spec.commandLine()
                        .getOut()
                        .println("Loaded " + file + ": " + config.size()
                                + " keys merged into the running CONFIG_DB as one change");
                spec.commandLine().getOut().flush();
                return 0;
            } catch (final IOException e) {
                final boolean refused = e.getMessage() != null && e.getMessage().contains(": ERR ");
                spec.commandLine()
                        .getErr()
                        .println("config load: " + file + (refused ? ": refused, nothing changed: " : ": ")
                                + e.getMessage());
                return refused ? 2 : 1;
            }
        }

        private int save(final Path file) {
            final String json;
            try (RedisCountersClient client = address.connect()) {
                json = RunningConfigAccess.toJson(client.config());
            } catch (final IOException e) {
                spec.commandLine().getErr().println("config save: " + e.getMessage());
                return 1;
            }
            if (file == null) {
                spec.commandLine().getOut().print(json);
                spec.commandLine().getOut().flush();
                return 0;
            }
            try {
                final Path dir = file.toAbsolutePath().getParent();
                final Path tmp = Files.createTempFile(dir, ".config_db", ".json.tmp");
                try {
                    Files.writeString(tmp, json);
                    Files.move(
                            tmp,
                            file,
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    Files.deleteIfExists(tmp);
                }
                spec.commandLine().getOut().println("Saved the running CONFIG_DB to " + file);
                spec.commandLine().getOut().flush();
                return 0;
            } catch (final IOException e) {
                spec.commandLine().getErr().println("config save: cannot write " + file + ": " + e.getMessage());
                return 2;
            }
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
