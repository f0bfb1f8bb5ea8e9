package io.asicemu.switchd;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The asic-emu appliance's command line: the composition root that wires the modules for each command.
 */
@Command(
        name = "asic-emu",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "A switch-ASIC data-plane emulator: RoCEv2-aware ECMP, WRED/ECN, PFC and its watchdog, flowlets.",
        subcommands = {
            DemoCommand.class,
            ReplayCommand.class,
            RunCommand.class,
            ScenarioCommand.class,
            HostCommand.class,
            ShowCommand.class,
            ShowCommand.ClearCommand.class,
            ShowCommand.ConfigCommand.class
        })
public final class Main implements Runnable {
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
            description = "print the stack trace of a failure (user errors are otherwise one line, exit status 2)")
    void debug(final boolean debug) {
        this.debug = debug;
    }

    /** @return whether {@code --debug} was given. */
    boolean debug() {
        return debug;
    }

    /** Entry point. */
    public static void main(final String[] args) {
        int status;
        try {
            status = commandLine().execute(args);
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

    /** The configured command line (tests run commands through it without exiting the JVM). */
    public static CommandLine commandLine() {
        final Main main = new Main();
        final CliErrors errors = new CliErrors(main);
        return new CommandLine(main)
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
