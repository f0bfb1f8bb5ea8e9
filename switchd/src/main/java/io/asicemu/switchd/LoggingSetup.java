package io.asicemu.switchd;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.pattern.TargetLengthBasedClassNameAbbreviator;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.time.Instant;
import java.time.ZoneId;

/**
 * asic-emu's logging, configured in code (logback's {@link Configurator} service, found before any XML): asic-emu's
 * own logs at INFO (start-up summary, port changes; never per packet), libraries at WARN, one line per event on
 * stderr, or on stdout with {@code -Dasicemu.log=stdout} (the container: {@code docker logs}). Reading and
 * interpreting a logback XML cost about 90 ms of the main thread's CPU at every start (docs/LAB.md session 9).
 * A {@code -Dlogback.configurationFile} given still wins: this configurator then leaves the work to logback's own.
 * <p>
 * Lines are laid out by {@link LineLayout}, not a {@code PatternLayout}: the pattern layout's set-up (its table of
 * about sixty converters, then parsing the pattern) cost the switch's main thread tens of milliseconds of CPU at
 * every start, on the way to the data plane (docs/LAB.md session 11).
 */
public final class LoggingSetup extends ContextAwareBase implements Configurator {
    /** The longest a logger's name is shown: its packages are cut to initials first ({@code i.a.s.LiveSwitch}). */
    static final int LOGGER_NAME_LENGTH = 20;

    /** Whether log lines carry their stack traces ({@code --debug}); otherwise the exception's class and message. */
    private static volatile boolean stackTraces;

    /** Public, as {@link java.util.ServiceLoader} needs. */
    public LoggingSetup() {}

    /** @param on whether log lines carry stack traces ({@code --debug}). */
    static void stackTraces(final boolean on) {
        stackTraces = on;
    }

    @Override
    public ExecutionStatus configure(final LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        final LineLayout layout = new LineLayout(() -> stackTraces);
        layout.setContext(context);
        layout.start();
        final LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
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
        julToSlf4j();
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /**
     * Sends java.util.logging (grpc-java logs there) through SLF4J, so that its records obey the same levels (libraries
     * at WARN: grpc's per-connection "Transport failed" at INFO is not printed) and the same one-line rule: without the
     * bridge, JUL's console handler printed every bad client's stack trace on stderr.
     */
    static void julToSlf4j() {
        org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
        org.slf4j.bridge.SLF4JBridgeHandler.install();
        java.util.logging.LogManager.getLogManager().getLogger("").setLevel(java.util.logging.Level.INFO);
    }

    /**
     * One event as {@code HH:mm:ss.SSS LEVEL [thread] logger - message}, then the stack trace if any: what the pattern
     * {@code %d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n} gives.
     */
    static final class LineLayout extends LayoutBase<ILoggingEvent> {
        private final TargetLengthBasedClassNameAbbreviator abbreviator =
                new TargetLengthBasedClassNameAbbreviator(LOGGER_NAME_LENGTH);
        private final ZoneId zone = ZoneId.systemDefault();
        private final java.util.function.BooleanSupplier withStackTraces;

        /** As the pattern: stack traces included. */
        LineLayout() {
            this(() -> true);
        }

        /**
         * @param withStackTraces whether an event's stack trace follows it (the switch: only with {@code --debug});
         *     otherwise the exception's class and message end the one line.
         */
        LineLayout(final java.util.function.BooleanSupplier withStackTraces) {
            this.withStackTraces = withStackTraces;
        }

        @Override
        public String doLayout(final ILoggingEvent event) {
            final StringBuilder line = new StringBuilder(128);
            final long millis = event.getTimeStamp();
            final long local = millis
                    + zone.getRules().getOffset(Instant.ofEpochMilli(millis)).getTotalSeconds() * 1000L;
            final long ofDay = Math.floorMod(local, 86_400_000L);
            twoDigits(line, ofDay / 3_600_000).append(':');
            twoDigits(line, ofDay / 60_000 % 60).append(':');
            twoDigits(line, ofDay / 1000 % 60).append('.');
            final long ms = ofDay % 1000;
            line.append(ms < 100 ? (ms < 10 ? "00" : "0") : "").append(ms).append(' ');
            final String level = event.getLevel().toString();
            line.append(level).repeat(' ', Math.max(0, 5 - level.length()));
            line.append(" [").append(event.getThreadName()).append("] ");
            line.append(abbreviator.abbreviate(event.getLoggerName())).append(" - ");
            line.append(event.getFormattedMessage()).append(CoreConstants.LINE_SEPARATOR);
            final IThrowableProxy thrown = event.getThrowableProxy();
            if (thrown != null && withStackTraces.getAsBoolean()) {
                line.append(ThrowableProxyUtil.asString(thrown)); // ends with a line separator
            } else if (thrown != null) {
                // one line: the exception named at the end, its stack trace only with --debug (SECURITY.md)
                line.setLength(line.length() - CoreConstants.LINE_SEPARATOR.length());
                line.append(" (")
                        .append(thrown.getClassName())
                        .append(
                                thrown.getMessage() == null
                                        ? ""
                                        : ": " + thrown.getMessage().replaceAll("[\\r\\n]+", " "))
                        .append(")")
                        .append(CoreConstants.LINE_SEPARATOR);
            }
            return line.toString();
        }

        private static StringBuilder twoDigits(final StringBuilder line, final long value) {
            return line.append(value < 10 ? "0" : "").append(value);
        }
    }
}
