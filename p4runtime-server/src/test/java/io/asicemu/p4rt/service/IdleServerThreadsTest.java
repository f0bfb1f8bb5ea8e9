package io.asicemu.p4rt.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;

/**
 * An idle P4Runtime server's threads sleep: its acceptor, and its I/O loop after a client's call, have no context
 * switch in 2.5 s (Netty 4.2's own loops woke once a second, QuietIoEventLoopGroup). Context switches are read from
 * /proc (Linux).
 */
@EnabledOnOs(OS.LINUX)
class IdleServerThreadsTest {
    private static final long IDLE_WINDOW_MS = 2_500;

    @Test
    void shouldNotWakeTheAcceptorOrAnIoLoopWhileIdle() throws Exception {
        try (P4rtFixture f = new P4rtFixture()) {
            final List<Path> acceptor = threads("p4rt-accept");
            assertThat(acceptor).as("the acceptor thread").hasSize(1);
            assertIdle(acceptor, "the acceptor");

            assertThat(f.blocking
                            .capabilities(CapabilitiesRequest.getDefaultInstance())
                            .getP4RuntimeApiVersion())
                    .isNotEmpty();
            final List<Path> io = threads("p4rt-io");
            assertThat(io).as("an I/O loop serves the client's connection").isNotEmpty();
            assertIdle(io, "the I/O loops, a client connected and silent");
        }
    }

    private static void assertIdle(final List<Path> tasks, final String what) throws Exception {
        Thread.sleep(300); // let the last event's work end
        final long before = contextSwitches(tasks);
        Thread.sleep(IDLE_WINDOW_MS);
        assertThat(contextSwitches(tasks))
                .as("context switches of %s in %d ms idle", what, IDLE_WINDOW_MS)
                .isEqualTo(before);
    }

    /** @return /proc/self/task/TID of this JVM's threads whose name starts with {@code prefix}. */
    private static List<Path> threads(final String prefix) throws IOException {
        final List<Path> found = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (final Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(t.resolve("comm")).strip().startsWith(prefix)) {
                        found.add(t);
                    }
                } catch (final IOException gone) {
                    // a thread that ended meanwhile
                }
            }
        }
        return found;
    }

    private static long contextSwitches(final List<Path> tasks) throws IOException {
        long sum = 0;
        for (final Path task : tasks) {
            for (final String line : Files.readAllLines(task.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                    sum += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                }
            }
        }
        return sum;
    }
}
