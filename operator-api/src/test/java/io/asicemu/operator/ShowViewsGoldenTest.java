package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each {@code show} view against (1) a golden file, (2) the column names of sonic-utilities (reference §2.4, §3.3),
 * and (3) Python's tabulate, the library sonic-utilities prints with: the cells of our output, laid out again by
 * {@code tabulate(rows, header, tablefmt='simple', stralign='right')}, give the same text.
 * <p>
 * Regenerate the golden files with {@code -Dasicemu.updateGolden=true} after a deliberate change (and read the diff).
 */
class ShowViewsGoldenTest {
    private static final Path GOLDEN = Path.of("src/test/resources/io/asicemu/operator/show");

    // one second apart, every counter doubled: rates are the counters' values per second
    private final SonicDatabases dbs =
            SonicDatabases.of(SampleSnapshots.sample(2, 2_000_000_000L), SampleSnapshots.sample(1, 1_000_000_000L));
    private final ShowViews views = new ShowViews(CountersReader.of(dbs), CountersBaseline.none());

    @Test
    void interfacesCounters() throws Exception {
        final String out = views.interfacesCounters();
        check("interfaces-counters.txt", out);
        assertThat(header(out))
                .containsExactly(
                        "IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR", "TX_OK", "TX_BPS",
                        "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR");
        sameAsTabulate(out);
    }

    @Test
    void pfcCounters() throws Exception {
        final String out = views.pfcCounters();
        check("pfc-counters.txt", out);
        final String[] tables = out.split("\n\n");
        assertThat(tables).hasSize(2);
        assertThat(header(tables[0]))
                .containsExactly("Port Rx", "PFC0", "PFC1", "PFC2", "PFC3", "PFC4", "PFC5", "PFC6", "PFC7");
        assertThat(header(tables[1])).first().isEqualTo("Port Tx");
        sameAsTabulate(tables[0] + "\n");
        sameAsTabulate(tables[1]);
    }

    @Test
    void queueCounters() throws Exception {
        final String out = views.queueCounters();
        check("queue-counters.txt", out);
        for (final String table : out.split("\n\n")) {
            assertThat(header(table))
                    .containsExactly("Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes");
            sameAsTabulate(table + "\n");
        }
    }

    @Test
    void queueWredCounters() throws Exception {
        final String out = views.queueWredCounters();
        check("queue-wredcounters.txt", out);
        for (final String table : out.split("\n\n")) {
            assertThat(header(table))
                    .containsExactly(
                            "Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes");
            sameAsTabulate(table + "\n");
        }
    }

    @Test
    void queueWatermarkUnicast() throws Exception {
        final String out = views.queueWatermarkUnicast();
        check("queue-watermark-unicast.txt", out);
        assertThat(out).startsWith("Egress shared pool occupancy per unicast queue:\n");
        final String table = out.substring(out.indexOf('\n') + 1);
        assertThat(header(table)).containsExactly("Port", "UC0", "UC1", "UC2", "UC3", "UC4", "UC5", "UC6", "UC7");
        sameAsTabulate(table);
    }

    @Test
    void priorityGroupWatermarks() throws Exception {
        final String headroom = views.priorityGroupWatermark(true);
        final String shared = views.priorityGroupWatermark(false);
        check("priority-group-watermark-headroom.txt", headroom);
        check("priority-group-watermark-shared.txt", shared);
        assertThat(headroom).startsWith("Ingress headroom per PG:\n");
        assertThat(shared).startsWith("Ingress shared pool occupancy per PG:\n");
        for (final String out : List.of(headroom, shared)) {
            final String table = out.substring(out.indexOf('\n') + 1);
            assertThat(header(table)).containsExactly("Port", "PG0", "PG1", "PG2", "PG3", "PG4", "PG5", "PG6", "PG7");
            sameAsTabulate(table);
        }
    }

    @Test
    void pfcwdStats() throws Exception {
        final String out = views.pfcwdStats(true);
        check("pfcwd-stats.txt", out);
        assertThat(header(out))
                .containsExactly(
                        "QUEUE",
                        "STATUS",
                        "STORM DETECTED/RESTORED",
                        "TX OK/DROP",
                        "RX OK/DROP",
                        "TX LAST OK/DROP",
                        "RX LAST OK/DROP");
        assertThat(out).contains("Ethernet4:3").contains("stormed");
        sameAsTabulate(out);
    }

    @Test
    void pfcwdStatsHidesAllZeroOperationalRows() throws Exception {
        final SonicDatabases zero = SonicDatabases.of(SampleSnapshots.sample(0, 0), null);
        final String out = new ShowViews(CountersReader.of(zero), CountersBaseline.none()).pfcwdStats(false);
        // scale 0: every counter is 0; only Ethernet4:3 (stormed) is left
        assertThat(out.lines().skip(2).toList()).hasSize(1).first().asString().contains("Ethernet4:3");
    }

    @Test
    void clearCountersSubtractsTheSavedBaselineButNotWatermarks(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("baseline.properties");
        CountersBaseline.save(CountersReader.of(SonicDatabases.of(SampleSnapshots.sample(1, 0), null)), file);
        final ShowViews cleared = new ShowViews(CountersReader.of(dbs), CountersBaseline.load(file));
        // scale 2 minus scale 1: every counter shows its scale-1 value, watermarks keep their scale-2 value
        final ShowViews scaleOne = new ShowViews(
                CountersReader.of(SonicDatabases.of(SampleSnapshots.sample(1, 0), null)), CountersBaseline.none());
        assertThat(cleared.queueCounters()).isEqualTo(scaleOne.queueCounters());
        assertThat(cleared.pfcCounters()).isEqualTo(scaleOne.pfcCounters());
        assertThat(cleared.queueWatermarkUnicast()).isEqualTo(views.queueWatermarkUnicast());
    }

    @Test
    void clearCountersAlsoBaselinesTheEcmpAndArsCountersButNotOccupancy(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("baseline.properties");
        CountersBaseline.save(CountersReader.of(SonicDatabases.of(SampleSnapshots.sample(1, 0), null)), file);
        final ShowViews cleared = new ShowViews(CountersReader.of(dbs), CountersBaseline.load(file));
        final ShowViews scaleOne = new ShowViews(
                CountersReader.of(SonicDatabases.of(SampleSnapshots.sample(1, 0), null)), CountersBaseline.none());
        // scale 2 minus scale 1 = scale 1 for packets, bytes, flowlets, reassignments; the occupancy is a level (2/0)
        assertThat(cleared.ecmp()).isEqualTo(scaleOne.ecmp()).isNotEqualTo(views.ecmp());
        assertThat(cleared.ars()).isEqualTo(scaleOne.ars()).isNotEqualTo(views.ars());
        assertThat(cleared.ars()).contains("2/0");
    }

    @Test
    void naturalOrderOfPortNames() {
        final List<String> names = new ArrayList<>(List.of("Ethernet12", "Ethernet4", "Ethernet0", "Ethernet100"));
        names.sort(ShowViews::natural);
        assertThat(names).containsExactly("Ethernet0", "Ethernet4", "Ethernet12", "Ethernet100");
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

    /** Lays our cells out again with Python's tabulate (sonic-utilities' formatter) and compares the text. */
    private static void sameAsTabulate(final String table) throws Exception {
        final List<String> lines = table.lines().toList();
        final StringBuilder rows = new StringBuilder("[");
        for (int i = 2; i < lines.size(); i++) {
            rows.append(pyList(lines.get(i))).append(',');
        }
        rows.append(']');
        final String script = "from tabulate import tabulate\n" + "print(tabulate(" + rows + ", " + pyList(lines.get(0))
                + ", tablefmt='simple', stralign='right'))\n";
        final String out = OperatorRedisServerTest.run(List.of("/usr/bin/python3", "-c", script));
        assertThat(out).isEqualTo(table);
    }

    private static String pyList(final String line) {
        final StringBuilder out = new StringBuilder("[");
        for (final String cell : line.strip().split(" {2,}")) {
            out.append('\'')
                    .append(cell.replace("\\", "\\\\").replace("'", "\\'"))
                    .append("',");
        }
        return out.append(']').toString();
    }
}
