package io.asicemu.switchd;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The asic-emu appliance's command line: the composition root that wires the modules for each command.
 */
@Command(
        name = "asic-emu",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "A switch-ASIC data-plane emulator: RoCEv2-aware ECMP, WRED/ECN, PFC and its watchdog, flowlets.")
public final class Main implements Runnable {
    /**
     * The subcommands by their {@code @Command} name, in the order the usage lists them. Named here too so that
     * {@link #main} finds the one it runs without parsing the annotations of all of them (reflection proxies, picocli's
     * classes loaded before logging is up); {@code MainCommandLineTest} checks the names against the annotations.
     */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands(
            "demo", DemoCommand.class,
            "replay", ReplayCommand.class,
            "run", RunCommand.class,
            "scenario", ScenarioCommand.class,
            "host", HostCommand.class,
            "show", ShowCommand.class,
            "clear", ShowCommand.ClearCommand.class,
            "config", ShowCommand.ConfigCommand.class);

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private boolean debug;

    /**
     * {@code --debug}, accepted before or after the subcommand (inherited): failures print their stack trace.
     *
     * @param debug whether to.
     */
    @CommandLine.Option(
            names = "--debug",
            scope = CommandLine.ScopeType.INHERIT,
            description = "print the stack trace of a failure (user errors are otherwise one line, exit status 2) and "
                    + "stack traces in log lines (otherwise the exception's class and message only)")
    void debug(final boolean debug) {
        this.debug = debug;
        LoggingSetup.stackTraces(debug);
    }

    /** @return whether {@code --debug} was given. */
    boolean debug() {
        return debug;
    }

    /** Entry point. */
    public static void main(final String[] args) {
        setNettyMachineId();
        if (subcommandNamed(args) == RunCommand.class) {
            StartupTimeline.begin();
            org.slf4j.LoggerFactory.getILoggerFactory(); // logging configured now, so that the timeline shows its cost
            StartupTimeline.mark("logging");
        }
        warmUpInBackground(args);
        int status;
        try {
            status = commandLine(args).execute(args);
        } catch (final OutOfMemoryError e) {
            // one line instead of a stack trace: the usual cause is a config or capture larger than the heap cap
            System.err.println("asic-emu: out of memory with a Java heap of at most "
                    + Runtime.getRuntime().maxMemory() / (1024 * 1024)
                    + " MiB (switchd/jvm.options): a larger config or "
                    + "capture needs a larger heap, e.g. ASIC_EMU_JAVA_OPTS=-Xmx3g (1M routes: docs/CONFIG.md)");
            status = CliErrors.INTERNAL_ERROR;
        }
        System.exit(status);
    }

    /**
     * Netty labels its channels with a machine id it takes from a network interface's MAC address, and when there is
     * none (a network namespace with only {@code lo}) it logs a warning and uses random bytes: every {@code show} then
     * printed that warning before its table. The id only labels channels in Netty's own logs, so a random one is given
     * up front (unless the user set one) and the interfaces are not looked at.
     */
    static void setNettyMachineId() {
        final byte[] id = new byte[8];
        java.util.concurrent.ThreadLocalRandom.current().nextBytes(id);
        id[0] |= 0x02; // locally administered, as a made-up EUI-64 should be
        final String value = java.util.HexFormat.ofDelimiter(":").formatHex(id);
        for (final String property : new String[] {"io.netty.machineId", "io.grpc.netty.shaded.io.netty.machineId"}) {
            if (System.getProperty(property) == null) {
                System.setProperty(property, value);
            }
        }
    }

    /**
     * For the commands that open Linux ports ({@code run}, {@code host}): links the FFM downcalls the data plane needs
     * on a second thread while this one sets up logging, parses the command line and compiles the configuration:
     * start-up work the AOT cache cannot hold (generated method handles and stub classes); done in parallel, the
     * ports attach that much sooner on a machine with two cores. For {@code run}, the downcalls the first frame does
     * not need are linked once the data plane is up ({@link StartupTimeline#awaitDataPlane}), so that they do not take
     * a core from the way to it.
     */
    private static void warmUpInBackground(final String[] args) {
        final Class<?> command = subcommandNamed(args);
        if (command != RunCommand.class && command != HostCommand.class) {
            return;
        }
        Thread.ofPlatform().name("asicemu-warm-up").daemon().start(() -> {
            io.asicemu.veth.ffm.Libc.link();
            io.asicemu.pipeline.port.AnonymousMemory.link();
            StartupTimeline.markWarmUp("FFM linked");
            if (command == RunCommand.class && StartupTimeline.awaitDataPlane()) {
                io.asicemu.veth.ffm.Libc.linkDeferred();
                StartupTimeline.markWarmUp("rest linked");
            }
        });
    }

    /** The configured command line with every subcommand (tests run commands through it without exiting the JVM). */
    public static CommandLine commandLine() {
        return commandLine(List.copyOf(SUBCOMMANDS.values()));
    }

    /**
     * The command line for these arguments: with only the subcommand they name when they name one, else with all.
     * Picocli builds each subcommand's model by reflection when it is added, and its classes (Java 5 bytecode) cannot
     * be kept in the AOT cache: the six commands not run cost tens of milliseconds of CPU at every start.
     *
     * @param args the arguments {@link #main} got.
     * @return the command line to execute them with.
     */
    static CommandLine commandLine(final String[] args) {
        final Class<?> command = subcommandNamed(args);
        return commandLine(command == null ? List.copyOf(SUBCOMMANDS.values()) : List.of(command));
    }

    /** @return the subcommand the arguments name (after any top-level options such as --debug), or null. */
    private static Class<?> subcommandNamed(final String[] args) {
        for (final String arg : args) {
            if (!arg.startsWith("-")) {
                return SUBCOMMANDS.get(arg);
            }
        }
        return null;
    }

    private static Map<String, Class<?>> subcommands(final Object... nameThenClass) {
        final Map<String, Class<?>> map = new LinkedHashMap<>();
        for (int i = 0; i < nameThenClass.length; i += 2) {
            map.put((String) nameThenClass[i], (Class<?>) nameThenClass[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(map);
    }

    private static CommandLine commandLine(final List<Class<?>> subcommands) {
        final Main main = new Main();
        final CliErrors errors = new CliErrors(main);
        final CommandLine commandLine = new CommandLine(main);
        for (final Class<?> command : subcommands) {
            commandLine.addSubcommand(command);
        }
        return commandLine
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler(errors)
                .setParameterExceptionHandler(errors);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The version from the jar's manifest, or "dev" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            final String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"asic-emu " + (version == null ? "dev" : version)};
        }
    }
}
