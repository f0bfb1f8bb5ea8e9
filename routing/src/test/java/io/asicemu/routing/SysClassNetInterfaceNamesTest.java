package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Interface names from a /sys/class/net-shaped directory, re-read on a miss within a budget. */
class SysClassNetInterfaceNamesTest {
    private static void addInterface(final Path dir, final String name, final int ifindex) throws Exception {
        Files.createDirectories(dir.resolve(name));
        Files.writeString(dir.resolve(name).resolve("ifindex"), ifindex + "\n");
    }

    @Test
    void shouldReadNamesAndRereadOnAMissWithinABudget(@TempDir final Path dir) throws Exception {
        addInterface(dir, "lo", 1);
        addInterface(dir, "Ethernet0", 7);
        Files.writeString(dir.resolve("bonding_masters"), "");
        final AtomicLong nowNs = new AtomicLong(1_000);
        final SysClassNetInterfaceNames names = new SysClassNetInterfaceNames(dir, nowNs::get);
        assertThat(names.nameOf(7)).isEqualTo("Ethernet0");
        assertThat(names.nameOf(1)).isEqualTo("lo");

        addInterface(dir, "Ethernet4", 8);
        assertThat(names.nameOf(8)).isEqualTo("Ethernet4"); // created since: a miss re-reads at once
        for (int i = 2; i < SysClassNetInterfaceNames.REFRESH_BURST; i++) {
            assertThat(names.nameOf(99)).isNull(); // a bogus index spends the budget
        }
        addInterface(dir, "Ethernet8", 9);
        assertThat(names.nameOf(9)).as("budget spent").isNull();
        nowNs.addAndGet(SysClassNetInterfaceNames.REFRESH_INTERVAL_NS - 1);
        assertThat(names.nameOf(9)).isNull();
        nowNs.addAndGet(1);
        assertThat(names.nameOf(9)).isEqualTo("Ethernet8");
    }
}
