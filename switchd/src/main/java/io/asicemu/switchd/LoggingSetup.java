package io.asicemu.switchd;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * asic-emu's logging, configured in code (logback's {@link Configurator} service, found before any XML): asic-emu's
 * own logs at INFO (start-up summary, port changes; never per packet), libraries at WARN, one line per event on
 * stderr, or on stdout with {@code -Dasicemu.log=stdout} (the container: {@code docker logs}). Reading and
 * interpreting a logback XML cost about 90 ms of the main thread's CPU at every start (docs/LAB.md session 9).
 * A {@code -Dlogback.configurationFile} given still wins: this configurator then leaves the work to logback's own.
 */
public final class LoggingSetup extends ContextAwareBase implements Configurator {
    /** The line layout of every log event. */
    static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n";

    /** Public, as {@link java.util.ServiceLoader} needs. */
    public LoggingSetup() {}

    @Override
    public ExecutionStatus configure(final LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        final PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        final ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("CONSOLE");
        console.setTarget("stdout".equals(System.getProperty("asicemu.log")) ? "System.out" : "System.err");
        console.setEncoder(encoder);
        console.start();
        context.getLogger("io.asicemu").setLevel(Level.INFO);
        final ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(console);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
