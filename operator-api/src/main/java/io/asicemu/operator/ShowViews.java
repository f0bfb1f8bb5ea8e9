package io.asicemu.operator;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * SONiC's {@code show} views over COUNTERS_DB / STATE_DB / CONFIG_DB, with sonic-utilities' columns and formatting
 * (../shared/reference/sonic-asic-behaviour.md §3.3): counts with thousands separators, rates as portstat prints
 * them, tables in tabulate's {@code simple} format, right-aligned. Ports in natural order (Ethernet4 before
 * Ethernet12), as natsort orders them.
 */
public final class ShowViews {
    private static final String NA = "N/A";
    private final CountersReader db;
    private final CountersBaseline baseline;

    /**
     * @param db the switch's databases.
     * @param baseline what {@code clear counters} saved (subtracted from counters).
     */
    public ShowViews(final CountersReader db, final CountersBaseline baseline) {
        this.db = db;
        this.baseline = baseline;
    }

    /**
     * {@code show interfaces counters} (portstat): IFACE STATE RX_OK RX_BPS RX_UTIL RX_ERR RX_DRP RX_OVR TX_OK TX_BPS
     * TX_UTIL TX_ERR TX_DRP TX_OVR. RX_OK = IN_UCAST + IN_NON_UCAST; STATE U/D from STATE_DB oper_status, X when
     * configured admin down.
     *
     * @return the table.
     * @throws IOException if the switch cannot be read.
     */
    public String interfacesCounters() throws IOException {
        final List<List<String>> rows = new ArrayList<>();
        for (final Map.Entry<String, String> port : ports()) {
            final String oid = port.getValue();
            final Map<String, String> c = counters(oid);
            final Map<String, String> rates = db.hgetall(SonicDatabases.COUNTERS_DB, "RATES:" + oid);
            final Map<String, String> state = db.hgetall(SonicDatabases.STATE_DB, "PORT_TABLE|" + port.getKey());
            final Map<String, String> config = db.hgetall(SonicDatabases.CONFIG_DB, "PORT|" + port.getKey());
            final String stateLetter =
                    "down".equals(config.get("admin_status")) ? "X" : "up".equals(state.get("oper_status")) ? "U" : "D";
            final double speedMbps = parseDouble(config.get("speed"));
            rows.add(List.of(
                    port.getKey(),
                    stateLetter,
                    sum(oid, c, "SAI_PORT_STAT_IF_IN_UCAST_PKTS", "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS"),
                    brate(rates.get("RX_BPS")),
                    util(rates.get("RX_BPS"), speedMbps),
                    count(oid, c, "SAI_PORT_STAT_IF_IN_ERRORS"),
                    count(oid, c, "SAI_PORT_STAT_IF_IN_DISCARDS"),
                    count(oid, c, "SAI_PORT_STAT_ETHER_RX_OVERSIZE_PKTS"),
                    sum(oid, c, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS", "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS"),
                    brate(rates.get("TX_BPS")),
                    util(rates.get("TX_BPS"), speedMbps),
                    count(oid, c, "SAI_PORT_STAT_IF_OUT_ERRORS"),
                    count(oid, c, "SAI_PORT_STAT_IF_OUT_DISCARDS"),
                    count(oid, c, "SAI_PORT_STAT_ETHER_TX_OVERSIZE_PKTS")));
        }
        return SimpleTable.render(
                List.of(
                        "IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR", "TX_OK", "TX_BPS",
                        "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR"),
                rows);
    }

    /**
     * {@code show pfc counters} (pfcstat): a {@code Port Rx PFC0..PFC7} table, a blank line, a {@code Port Tx} table.
     *
     * @return the two tables.
     * @throws IOException if the switch cannot be read.
     */
    public String pfcCounters() throws IOException {
        final StringBuilder out = new StringBuilder();
        for (final String direction : List.of("Rx", "Tx")) {
            final List<String> header = new ArrayList<>(List.of("Port " + direction));
            for (int n = 0; n < 8; n++) {
                header.add("PFC" + n);
            }
            final List<List<String>> rows = new ArrayList<>();
            for (final Map.Entry<String, String> port : ports()) {
                final Map<String, String> c = counters(port.getValue());
                final List<String> row = new ArrayList<>(List.of(port.getKey()));
                for (int n = 0; n < 8; n++) {
                    row.add(count(
                            port.getValue(),
                            c,
                            "SAI_PORT_STAT_PFC_" + n + "_" + direction.toUpperCase(Locale.ROOT) + "_PKTS"));
                }
                rows.add(row);
            }
            if (direction.equals("Tx")) {
                out.append('\n');
            }
            out.append(SimpleTable.render(header, rows));
        }
        return out.toString();
    }

    /**
     * {@code show queue counters} (queuestat): per port a table {@code Port TxQ Counter/pkts Counter/bytes Drop/pkts
     * Drop/bytes}, TxQ UC<i> from COUNTERS_QUEUE_TYPE_MAP, each followed by a blank line.
     *
     * @return the tables.
     * @throws IOException if the switch cannot be read.
     */
    public String queueCounters() throws IOException {
        return perPortQueues(
                List.of("Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"),
                List.of(
                        "SAI_QUEUE_STAT_PACKETS",
                        "SAI_QUEUE_STAT_BYTES",
                        "SAI_QUEUE_STAT_DROPPED_PACKETS",
                        "SAI_QUEUE_STAT_DROPPED_BYTES"));
    }

    /**
     * {@code show queue wredcounters}: per port {@code Port TxQ WredDrp/pkts WredDrp/bytes EcnMarked/pkts
     * EcnMarked/bytes}.
     *
     * @return the tables.
     * @throws IOException if the switch cannot be read.
     */
    public String queueWredCounters() throws IOException {
        return perPortQueues(
                List.of("Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"),
                List.of(
                        "SAI_QUEUE_STAT_WRED_DROPPED_PACKETS",
                        "SAI_QUEUE_STAT_WRED_DROPPED_BYTES",
                        "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS",
                        "SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES"));
    }

    private String perPortQueues(final List<String> header, final List<String> stats) throws IOException {
        final Map<String, String> names = db.hgetall(SonicDatabases.COUNTERS_DB, "COUNTERS_QUEUE_NAME_MAP");
        final Map<String, String> types = db.hgetall(SonicDatabases.COUNTERS_DB, "COUNTERS_QUEUE_TYPE_MAP");
        final StringBuilder out = new StringBuilder();
        for (final Map.Entry<String, String> port : ports()) {
            final List<List<String>> rows = new ArrayList<>();
            for (int q = 0; q < SwitchSnapshot.CLASSES; q++) {
                final String oid = names.get(port.getKey() + ":" + q);
                if (oid == null) {
                    continue;
                }
                final Map<String, String> c = counters(oid);
                final List<String> row = new ArrayList<>(List.of(port.getKey(), queueType(types.get(oid)) + q));
                for (final String stat : stats) {
                    row.add(count(oid, c, stat));
                }
                rows.add(row);
            }
            out.append(SimpleTable.render(header, rows)).append('\n');
        }
        return out.toString();
    }

    /**
     * {@code show queue watermark unicast} (watermarkstat): "Egress shared pool occupancy per unicast queue:", then
     * {@code Port UC0..UC7} from USER_WATERMARKS' SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES.
     *
     * @return the title and table.
     * @throws IOException if the switch cannot be read.
     */
    public String queueWatermarkUnicast() throws IOException {
        return watermarks(
                "Egress shared pool occupancy per unicast queue:",
                "UC",
                "COUNTERS_QUEUE_NAME_MAP",
                "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES");
    }

    /**
     * {@code show priority-group watermark headroom|shared}: "Ingress headroom per PG:" (XOFF room watermark) or
     * "Ingress shared pool occupancy per PG:" (shared watermark), then {@code Port PG0..PG7}.
     *
     * @param headroom headroom (true) or shared (false).
     * @return the title and table.
     * @throws IOException if the switch cannot be read.
     */
    public String priorityGroupWatermark(final boolean headroom) throws IOException {
        return headroom
                ? watermarks(
                        "Ingress headroom per PG:",
                        "PG",
                        "COUNTERS_PG_NAME_MAP",
                        "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES")
                : watermarks(
                        "Ingress shared pool occupancy per PG:",
                        "PG",
                        "COUNTERS_PG_NAME_MAP",
                        "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES");
    }

    private String watermarks(final String title, final String prefix, final String nameMap, final String stat)
            throws IOException {
        final Map<String, String> names = db.hgetall(SonicDatabases.COUNTERS_DB, nameMap);
        final List<String> header = new ArrayList<>(List.of("Port"));
        for (int i = 0; i < SwitchSnapshot.CLASSES; i++) {
            header.add(prefix + i);
        }
        final List<List<String>> rows = new ArrayList<>();
        for (final Map.Entry<String, String> port : ports()) {
            final List<String> row = new ArrayList<>(List.of(port.getKey()));
            for (int i = 0; i < SwitchSnapshot.CLASSES; i++) {
                final String oid = names.get(port.getKey() + ":" + i);
                final String value = oid == null
                        ? null
                        : db.hgetall(SonicDatabases.COUNTERS_DB, "USER_WATERMARKS:" + oid)
                                .get(stat);
                row.add(value == null ? NA : value);
            }
            rows.add(row);
        }
        return title + "\n" + SimpleTable.render(header, rows);
    }

    /**
     * {@code show pfcwd stats [--empty]}: QUEUE STATUS "STORM DETECTED/RESTORED" "TX OK/DROP" "RX OK/DROP" "TX LAST
     * OK/DROP" "RX LAST OK/DROP", one row per watched queue (those with PFC_WD fields), all-zero operational rows
     * hidden unless {@code empty}.
     *
     * @param empty show all-zero rows too.
     * @return the table.
     * @throws IOException if the switch cannot be read.
     */
    public String pfcwdStats(final boolean empty) throws IOException {
        final Map<String, String> names = db.hgetall(SonicDatabases.COUNTERS_DB, "COUNTERS_QUEUE_NAME_MAP");
        final List<List<String>> rows = new ArrayList<>();
        for (final Map.Entry<String, String> port : ports()) {
            final Map<String, String> qos = db.hgetall(SonicDatabases.CONFIG_DB, "PORT_QOS_MAP|" + port.getKey());
            final List<Integer> watched =
                    SonicDatabases.pfcEnabled(Map.of("PORT_QOS_MAP|" + port.getKey(), qos), port.getKey());
            for (final int q : watched) {
                final String queue = port.getKey() + ":" + q;
                final String oid = names.get(queue);
                if (oid == null) {
                    continue;
                }
                final Map<String, String> c = counters(oid);
                final String status = c.get("PFC_WD_STATUS");
                if (status == null) {
                    continue;
                }
                final List<String> pairs = List.of(
                        pair(oid, c, "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"),
                        pair(oid, c, "PFC_WD_QUEUE_STATS_TX_PACKETS", "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"),
                        pair(oid, c, "PFC_WD_QUEUE_STATS_RX_PACKETS", "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS"),
                        pair(
                                oid,
                                c,
                                "PFC_WD_QUEUE_STATS_TX_PACKETS_LAST",
                                "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS_LAST"),
                        pair(
                                oid,
                                c,
                                "PFC_WD_QUEUE_STATS_RX_PACKETS_LAST",
                                "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS_LAST"));
                if (!empty && status.equals("operational") && pairs.stream().allMatch(p -> p.equals("0/0"))) {
                    continue;
                }
                final List<String> row = new ArrayList<>(List.of(queue, status));
                row.addAll(pairs);
                rows.add(row);
            }
        }
        return SimpleTable.render(
                List.of(
                        "QUEUE",
                        "STATUS",
                        "STORM DETECTED/RESTORED",
                        "TX OK/DROP",
                        "RX OK/DROP",
                        "TX LAST OK/DROP",
                        "RX LAST OK/DROP"),
                rows);
    }

    private List<Map.Entry<String, String>> ports() throws IOException {
        final List<Map.Entry<String, String>> out = new ArrayList<>(
                db.hgetall(SonicDatabases.COUNTERS_DB, "COUNTERS_PORT_NAME_MAP").entrySet());
        out.sort(Comparator.comparing(Map.Entry::getKey, ShowViews::natural));
        return out;
    }

    /** natsort's order: digit runs compare as numbers. */
    static int natural(final String a, final String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            final char x = a.charAt(i);
            final char y = b.charAt(j);
            if (Character.isDigit(x) && Character.isDigit(y)) {
                final int i0 = i;
                final int j0 = j;
                while (i < a.length() && Character.isDigit(a.charAt(i))) {
                    i++;
                }
                while (j < b.length() && Character.isDigit(b.charAt(j))) {
                    j++;
                }
                final int byNumber = new java.math.BigInteger(a.substring(i0, i))
                        .compareTo(new java.math.BigInteger(b.substring(j0, j)));
                if (byNumber != 0) {
                    return byNumber;
                }
            } else {
                if (x != y) {
                    return Character.compare(x, y);
                }
                i++;
                j++;
            }
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    /**
     * asic-emu's {@code show registers}: {@code Register Instance Address Value Unit Access Fields} in address order
     * (from {@code ASICEMU.REGISTER GET}); {@code -} for a switch-wide register's instance and for empty cells.
     *
     * @param rows the registers read.
     * @return the table.
     */
    public static String registers(final List<RegisterAccess.Row> rows) {
        final List<List<String>> out = new ArrayList<>();
        for (final RegisterAccess.Row r : rows) {
            out.add(List.of(
                    r.name(),
                    dash(r.instance()),
                    String.format(Locale.ROOT, "0x%08X", r.address()),
                    Long.toString(r.value()),
                    dash(r.unit()),
                    r.access(),
                    dash(r.decoded())));
        }
        return SimpleTable.render(List.of("Register", "Instance", "Address", "Value", "Unit", "Access", "Fields"), out);
    }

    /**
     * asic-emu's {@code show ecmp}: per next-hop group and member {@code Group Mode Member Port Packets Bytes Share},
     * Share = the member's packets over the group's (the spread the data path counted; N/A before any packet). From
     * DB 15 ({@link SonicDatabases#ASICEMU_DB}).
     *
     * @return the table.
     * @throws IOException if the switch cannot be read.
     */
    public String ecmp() throws IOException {
        final List<List<String>> rows = new ArrayList<>();
        for (final String group : groups()) {
            final Map<String, String> g = db.hgetall(SonicDatabases.ASICEMU_DB, "ECMP_GROUP|" + group);
            final List<Map<String, String>> members = members(group, g);
            long total = 0;
            for (int i = 0; i < members.size(); i++) {
                total += sinceClear(member(group, i), "packets", members.get(i));
            }
            for (int i = 0; i < members.size(); i++) {
                final Map<String, String> m = members.get(i);
                final long packets = sinceClear(member(group, i), "packets", m);
                rows.add(List.of(
                        group,
                        g.getOrDefault("mode", NA),
                        Integer.toString(i),
                        m.getOrDefault("port", NA),
                        String.format(Locale.US, "%,d", packets),
                        String.format(Locale.US, "%,d", sinceClear(member(group, i), "bytes", m)),
                        total == 0 ? NA : String.format(Locale.ROOT, "%.2f%%", 100.0 * packets / total)));
            }
        }
        return SimpleTable.render(List.of("Group", "Mode", "Member", "Port", "Packets", "Bytes", "Share"), rows);
    }

    /**
     * asic-emu's {@code show ars}: the flowlet engine per group ({@code Group Mode Flowlets Reassigned Occupancy
     * TableFull NoMemberDrops}, occupancy as used/capacity), a blank line, then each member's path-quality band
     * ({@code Group Member Port Band}, 7 best .. 0 worst, N/A for groups that measure no quality).
     *
     * @return the two tables.
     * @throws IOException if the switch cannot be read.
     */
    public String ars() throws IOException {
        final List<List<String>> groups = new ArrayList<>();
        final List<List<String>> bands = new ArrayList<>();
        for (final String group : groups()) {
            final Map<String, String> g = db.hgetall(SonicDatabases.ASICEMU_DB, "ECMP_GROUP|" + group);
            final String key = "ECMP_GROUP|" + group;
            groups.add(List.of(
                    group,
                    g.getOrDefault("mode", NA),
                    String.format(Locale.US, "%,d", sinceClear(key, "new_flowlets", g)),
                    String.format(Locale.US, "%,d", sinceClear(key, "flowlet_reassignments", g)),
                    g.getOrDefault("flowlet_table_occupancy", "0") + "/"
                            + g.getOrDefault("flowlet_table_capacity", "0"),
                    String.format(Locale.US, "%,d", sinceClear(key, "table_full_fallbacks", g)),
                    String.format(Locale.US, "%,d", sinceClear(key, "no_member_drops", g))));
            final List<Map<String, String>> members = members(group, g);
            for (int i = 0; i < members.size(); i++) {
                final String band = members.get(i).getOrDefault("quality_band", "");
                bands.add(List.of(
                        group,
                        Integer.toString(i),
                        members.get(i).getOrDefault("port", NA),
                        band.isEmpty() ? NA : band));
            }
        }
        return SimpleTable.render(
                        List.of("Group", "Mode", "Flowlets", "Reassigned", "Occupancy", "TableFull", "NoMemberDrops"),
                        groups)
                + "\n"
                + SimpleTable.render(List.of("Group", "Member", "Port", "Band"), bands);
    }

    private static String member(final String group, final int m) {
        return "ECMP_GROUP_MEMBER|" + group + "|" + m;
    }

    /** A DB 15 counter since {@code clear counters} (0 when absent or not a number). */
    private long sinceClear(final String key, final String field, final Map<String, String> hash) {
        final Long v = baseline.since(key, field, hash);
        return v == null ? 0 : v;
    }

    private List<String> groups() throws IOException {
        final List<String> ids = new ArrayList<>(
                db.hgetall(SonicDatabases.ASICEMU_DB, "ECMP_GROUP_NAME_MAP").keySet());
        ids.sort(Comparator.comparingLong(ShowViews::parseLong));
        return ids;
    }

    private List<Map<String, String>> members(final String group, final Map<String, String> g) throws IOException {
        final List<Map<String, String>> out = new ArrayList<>();
        final long n = parseLong(g.get("members"));
        for (int m = 0; m < n && m < 65_536; m++) {
            out.add(db.hgetall(SonicDatabases.ASICEMU_DB, "ECMP_GROUP_MEMBER|" + group + "|" + m));
        }
        return out;
    }

    private static long parseLong(final String s) {
        if (s == null) {
            return 0;
        }
        try {
            return Long.parseLong(s);
        } catch (final NumberFormatException e) {
            return 0;
        }
    }

    private static String dash(final String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    private Map<String, String> counters(final String oid) throws IOException {
        return db.hgetall(SonicDatabases.COUNTERS_DB, "COUNTERS:" + oid);
    }

    private String count(final String oid, final Map<String, String> c, final String stat) {
        final Long v = baseline.since(oid, stat, c);
        return v == null ? NA : String.format(Locale.US, "%,d", v);
    }

    private String sum(final String oid, final Map<String, String> c, final String... stats) {
        long total = 0;
        for (final String stat : stats) {
            final Long v = baseline.since(oid, stat, c);
            if (v == null) {
                return NA;
            }
            total += v;
        }
        return String.format(Locale.US, "%,d", total);
    }

    private String pair(final String oid, final Map<String, String> c, final String first, final String second) {
        final Long a = baseline.since(oid, first, c);
        final Long b = baseline.since(oid, second, c);
        return (a == null ? NA : Long.toString(a)) + "/" + (b == null ? NA : Long.toString(b));
    }

    private static String queueType(final String saiType) {
        if (saiType == null) {
            return "UC";
        }
        return switch (saiType) {
            case "SAI_QUEUE_TYPE_MULTICAST" -> "MC";
            case "SAI_QUEUE_TYPE_ALL" -> "ALL";
            default -> "UC";
        };
    }

    /** portstat's format_brate: B/s, KB/s above 10 KB/s, MB/s above 10 MB/s (decimal units). */
    static String brate(final String bytesPerSecond) {
        if (bytesPerSecond == null) {
            return NA;
        }
        final double rate = parseDouble(bytesPerSecond);
        if (rate > 10_000_000) {
            return String.format(Locale.ROOT, "%.2f MB/s", rate / 1_000_000);
        }
        if (rate > 10_000) {
            return String.format(Locale.ROOT, "%.2f KB/s", rate / 1_000);
        }
        return String.format(Locale.ROOT, "%.2f B/s", rate);
    }

    /** portstat's format_util: bytes/s over the port speed (Mb/s) in percent. */
    static String util(final String bytesPerSecond, final double speedMbps) {
        if (bytesPerSecond == null || speedMbps <= 0) {
            return NA;
        }
        return String.format(Locale.ROOT, "%.2f%%", parseDouble(bytesPerSecond) / (speedMbps * 1_000_000 / 8.0) * 100);
    }

    private static double parseDouble(final String s) {
        if (s == null) {
            return 0;
        }
        try {
            return Double.parseDouble(s);
        } catch (final NumberFormatException e) {
            return 0;
        }
    }
}
