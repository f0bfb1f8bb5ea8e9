package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * asic-emu's own views ({@code show registers}, {@code show ecmp}, {@code show ars}) against golden files and Python's
 * tabulate (the layout sonic-utilities' views use, as {@link ShowViewsGoldenTest} checks for SONiC's), and DB 15's
 * layout. Regenerate the golden files with {@code -Dasicemu.updateGolden=true} after a deliberate change.
 */
class AsicEmuViewsGoldenTest {
    private static final Path GOLDEN = Path.of("src/test/resources/io/asicemu/operator/show");

    private static SwitchSnapshot withGroups() {
        final SwitchSnapshot s = SampleSnapshots.sample(2, 2_000_000_000L);
        return new SwitchSnapshot(
                s.takenAtNs(),
                s.ports(),
                s.pools(),
                s.config(),
                s.switchCapabilities(),
                s.aclRules(),
                List.of(
                        new SwitchSnapshot.ArsGroup(
                                0,
                                List.of(
                                        new SwitchSnapshot.ArsMember("Ethernet0", 1_000, 1_500_000, 7),
                                        new SwitchSnapshot.ArsMember("Ethernet4", 3_000, 4_500_000, 2)),
                                12,
                                40,
                                1,
                                0,
                                9,
                                "flowlet_quality",
                                512),
                        new SwitchSnapshot.ArsGroup(
                                3,
                                List.of(
                                        new SwitchSnapshot.ArsMember("Ethernet0", 0, 0),
                                        new SwitchSnapshot.ArsMember("Ethernet4", 0, 0)),
                                0,
                                0,
                                0,
                                0,
                                0)));
    }

    private final SonicDatabases dbs = SonicDatabases.of(withGroups(), null);
    private final ShowViews views = new ShowViews(CountersReader.of(dbs), CountersBaseline.none());

    @Test
    void db15HoldsTheGroupsAndSonicDatabasesHoldNoneOfThem() {
        assertThat(dbs.db(SonicDatabases.ASICEMU_DB).get("ECMP_GROUP_NAME_MAP"))
                .containsEntry("0", "2")
                .containsEntry("3", "2");
        assertThat(dbs.db(SonicDatabases.ASICEMU_DB).get("ECMP_GROUP|0"))
                .containsEntry("mode", "flowlet_quality")
                .containsEntry("flowlet_reassignments", "12")
                .containsEntry("flowlet_table_occupancy", "9")
                .containsEntry("flowlet_table_capacity", "512");
        assertThat(dbs.db(SonicDatabases.ASICEMU_DB).get("ECMP_GROUP_MEMBER|0|1"))
                .containsEntry("port", "Ethernet4")
                .containsEntry("packets", "3000")
                .containsEntry("bytes", "4500000")
                .containsEntry("quality_band", "2");
        for (final int sonic : List.of(SonicDatabases.COUNTERS_DB, SonicDatabases.CONFIG_DB, SonicDatabases.STATE_DB)) {
            assertThat(dbs.db(sonic).keySet()).noneMatch(k -> k.startsWith("ECMP_GROUP"));
        }
    }

    @Test
    void ecmp() throws Exception {
        final String out = views.ecmp();
        check("ecmp.txt", out);
        assertThat(header(out)).containsExactly("Group", "Mode", "Member", "Port", "Packets", "Bytes", "Share");
        assertThat(out).contains("25.00%").contains("75.00%");
        ShowViewsGoldenTestAccess.sameAsTabulate(out);
    }

    @Test
    void ars() throws Exception {
        final String out = views.ars();
        check("ars.txt", out);
        final String[] tables = out.split("\n\n");
        assertThat(tables).hasSize(2);
        assertThat(header(tables[0]))
                .containsExactly("Group", "Mode", "Flowlets", "Reassigned", "Occupancy", "TableFull", "NoMemberDrops");
        assertThat(header(tables[1])).containsExactly("Group", "Member", "Port", "Band");
        assertThat(tables[0]).contains("9/512");
        ShowViewsGoldenTestAccess.sameAsTabulate(tables[0] + "\n");
        ShowViewsGoldenTestAccess.sameAsTabulate(tables[1]);
    }

    @Test
    void registers() throws Exception {
        final String out = ShowViews.registers(List.of(
                new RegisterAccess.Row("HASH_SEED", "", 0, 0, "", "RW", ""),
                new RegisterAccess.Row("HASH_ALGORITHM", "", 0x10, 0, "enum", "RO", "CRC"),
                new RegisterAccess.Row("PORT_SPEED", "Ethernet8", 0x10008, 10_000, "Mb/s", "RO", ""),
                new RegisterAccess.Row("ECN_KMIN", "Ethernet8|3", 0x10006C, 20_800, "bytes", "RW", "")));
        check("registers.txt", out);
        assertThat(header(out)).containsExactly("Register", "Instance", "Address", "Value", "Unit", "Access", "Fields");
        ShowViewsGoldenTestAccess.sameAsTabulate(out);
    }

    private static List<String> header(final String table) {
        return List.of(table.lines().findFirst().orElseThrow().strip().split(" {2,}"));
    }

    private static void check(final String name, final String actual) throws IOException {
        final Path file = GOLDEN.resolve(name);
        if (Boolean.getBoolean("asicemu.updateGolden")) {
            Files.writeString(file, actual);
        }
        assertThat(actual).isEqualTo(Files.readString(file));
    }
}
