package io.asicemu.switchd;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/** The switch's own log line layout against logback's {@link PatternLayout} with the pattern it stands for. */
class LoggingSetupTest {
    private static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n";

    @Test
    void shouldLayOutEveryEventAsThePatternLayoutDoes() {
        final TimeZone saved = TimeZone.getDefault();
        // a zone with a half-hour offset and summer time, so that the local time is not the UTC one
        TimeZone.setDefault(TimeZone.getTimeZone("Australia/Adelaide"));
        try {
            final LoggerContext context = new LoggerContext();
            final PatternLayout pattern = new PatternLayout();
            pattern.setContext(context);
            pattern.setPattern(PATTERN);
            pattern.start();
            final LoggingSetup.LineLayout line = new LoggingSetup.LineLayout();
            line.setContext(context);
            line.start();
            final String[] loggers = {
                "io.asicemu.switchd.LiveSwitch",
                "io.asicemu.p4rt.service.P4RuntimeServer",
                "Short",
                "a.b",
                "io.grpc.netty.shaded.io.netty.util.internal.PlatformDependent",
                "exactly.twenty.chars"
            };
            final long[] times = {0L, 1_764_000_000_007L, 1_764_686_399_999L, 1_751_328_000_123L, -1L};
            final Level[] levels = {Level.INFO, Level.WARN, Level.ERROR, Level.DEBUG, Level.TRACE};
            int shown = 0;
            for (int i = 0; i < loggers.length; i++) {
                for (int j = 0; j < times.length; j++) {
                    final Logger logger = context.getLogger(loggers[i]);
                    final Throwable thrown =
                            (i + j) % 3 == 0 ? new IllegalStateException("port eth" + j, new RuntimeException()) : null;
                    final LoggingEvent event = new LoggingEvent(
                            "fqcn",
                            logger,
                            levels[(i + j) % levels.length],
                            "port {} up, mtu {}",
                            thrown,
                            new Object[] {"eth" + i, 9500 + j});
                    event.setTimeStamp(times[j]);
                    event.setThreadName(j % 2 == 0 ? "main" : "asicemu-dataplane");
                    assertThat(line.doLayout(event)).isEqualTo(pattern.doLayout(event));
                    shown++;
                }
            }
            assertThat(shown).isEqualTo(30);
        } finally {
            TimeZone.setDefault(saved);
        }
    }
}
