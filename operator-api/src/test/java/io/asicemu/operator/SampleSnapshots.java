package io.asicemu.operator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A two-port switch's snapshot with distinct, known counter values (tests compare views against them). */
final class SampleSnapshots {
    private SampleSnapshots() {}

    static final String[] QUEUE_STATS = {
        "SAI_QUEUE_STAT_PACKETS",
        "SAI_QUEUE_STAT_BYTES",
        "SAI_QUEUE_STAT_DROPPED_PACKETS",
        "SAI_QUEUE_STAT_DROPPED_BYTES",
        "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS",
        "SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES",
        "SAI_QUEUE_STAT_WRED_DROPPED_PACKETS",
        "SAI_QUEUE_STAT_WRED_DROPPED_BYTES",
        "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES",
        "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED",
        "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED",
        "PFC_WD_QUEUE_STATS_TX_PACKETS",
        "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS",
        "PFC_WD_QUEUE_STATS_RX_PACKETS",
        "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS",
        "PFC_WD_QUEUE_STATS_TX_PACKETS_LAST",
        "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS_LAST",
        "PFC_WD_QUEUE_STATS_RX_PACKETS_LAST",
        "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS_LAST"
    };
    static final String[] PG_STATS = {
        "SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS",
        "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS",
        "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES",
        "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES"
    };
    static final String[] PORT_STATS = {
        "SAI_PORT_STAT_IF_IN_OCTETS",
        "SAI_PORT_STAT_IF_IN_UCAST_PKTS",
        "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS",
        "SAI_PORT_STAT_IF_IN_DISCARDS",
        "SAI_PORT_STAT_IF_IN_ERRORS",
        "SAI_PORT_STAT_ETHER_RX_OVERSIZE_PKTS",
        "SAI_PORT_STAT_IF_OUT_OCTETS",
        "SAI_PORT_STAT_IF_OUT_UCAST_PKTS",
        "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS",
        "SAI_PORT_STAT_IF_OUT_DISCARDS",
        "SAI_PORT_STAT_IF_OUT_ERRORS",
        "SAI_PORT_STAT_ETHER_TX_OVERSIZE_PKTS",
        "SAI_IN_DROP_REASON_TTL"
    };

    /**
     * @param scale multiplies every counter (a later snapshot of the same switch).
     * @param takenAtNs the snapshot's time.
     * @return the snapshot: port p's stat i is {@code scale * (1000 * (p + 1) + i)}, queue q's stat i
     *     {@code scale * (100 * (p + 1) + 10 * q + i)}, PG g's stat i {@code scale * (200 * (p + 1) + 10 * g + i)},
     *     PFC priority n RX {@code scale * (p + 1) * (n + 1)} and TX twice that; Ethernet4 queue 3 is stormed.
     */
    static SwitchSnapshot sample(final long scale, final long takenAtNs) {
        final List<SwitchSnapshot.Port> ports = new ArrayList<>();
        final String[] names = {"Ethernet0", "Ethernet4"};
        for (int p = 0; p < names.length; p++) {
            final Map<String, Long> stats = new LinkedHashMap<>();
            for (int i = 0; i < PORT_STATS.length; i++) {
                stats.put(PORT_STATS[i], scale * (1000L * (p + 1) + i));
            }
            final List<Map<String, String>> queues = new ArrayList<>();
            final List<Map<String, String>> pgs = new ArrayList<>();
            for (int q = 0; q < SwitchSnapshot.CLASSES; q++) {
                final Map<String, String> fields = new LinkedHashMap<>();
                for (int i = 0; i < QUEUE_STATS.length; i++) {
                    fields.put(QUEUE_STATS[i], Long.toString(scale * (100L * (p + 1) + 10L * q + i)));
                }
                fields.put("PFC_WD_STATUS", p == 1 && q == 3 ? "stormed" : "operational");
                queues.add(fields);
                final Map<String, String> pg = new LinkedHashMap<>();
                for (int i = 0; i < PG_STATS.length; i++) {
                    pg.put(PG_STATS[i], Long.toString(scale * (200L * (p + 1) + 10L * q + i)));
                }
                pgs.add(pg);
            }
            final Map<String, String> pfc = new LinkedHashMap<>();
            for (int n = 0; n < 8; n++) {
                pfc.put("SAI_PORT_STAT_PFC_" + n + "_RX_PKTS", Long.toString(scale * (p + 1) * (n + 1)));
                pfc.put("SAI_PORT_STAT_PFC_" + n + "_TX_PKTS", Long.toString(2 * scale * (p + 1) * (n + 1)));
            }
            ports.add(new SwitchSnapshot.Port(names[p], p == 0, stats, queues, pgs, pfc));
        }
        final Map<String, Map<String, String>> config = new LinkedHashMap<>();
        config.put("PORT|Ethernet0", Map.of("speed", "100000", "mtu", "9100", "admin_status", "up"));
        config.put("PORT|Ethernet4", Map.of("speed", "100000", "mtu", "9100", "admin_status", "up"));
        config.put("PORT_QOS_MAP|Ethernet0", Map.of("pfc_enable", "3,4"));
        config.put("PORT_QOS_MAP|Ethernet4", Map.of("pfc_enable", "3,4"));
        config.put("WRED_PROFILE|AZURE_LOSSLESS", Map.of("green_min_threshold", "250000", "ecn", "ecn_all"));
        config.put("SWITCH_HASH|GLOBAL", Map.of("ecmp_hash@", "SRC_IP,DST_IP,RDMA_BTH_DEST_QP"));
        config.put("PFC_WD|Ethernet0", Map.of("action", "drop", "detection_time", "200", "restoration_time", "200"));
        return new SwitchSnapshot(
                takenAtNs,
                ports,
                Map.of(
                        "ingress_lossless_pool",
                        Map.of("SAI_BUFFER_POOL_STAT_WATERMARK_BYTES", Long.toString(scale * 7))),
                config,
                Map.of("ECMP_HASH_CAPABLE", "true", "HASH|NATIVE_HASH_FIELD_LIST", "SRC_IP,DST_IP,RDMA_BTH_DEST_QP"),
                Map.of("DATAACL|RULE_1", Map.of("Packets", scale * 11, "Bytes", scale * 1100)),
                List.of(new SwitchSnapshot.ArsGroup(
                        0,
                        List.of(
                                new SwitchSnapshot.ArsMember("Ethernet0", scale * 5, scale * 500),
                                new SwitchSnapshot.ArsMember("Ethernet4", scale * 6, scale * 600)),
                        scale * 3,
                        scale * 9,
                        0,
                        0,
                        2)));
    }
}
