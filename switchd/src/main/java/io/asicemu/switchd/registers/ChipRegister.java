package io.asicemu.switchd.registers;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.ars.QualitySettings;
import io.asicemu.flowlet.config.SwitchHashConfig;
import io.asicemu.flowlet.hash.HashAlgorithm;
import io.asicemu.flowlet.hash.HashField;
import io.asicemu.pipeline.control.RuntimeKnob;
import io.asicemu.tm.TmOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * asic-emu's chip register map: every named register with its address, bit fields, unit, reset value and instances
 * (switch, port, queue, priority group, buffer pool, next-hop group). This enum is the map's one source: reads, writes,
 * {@code show registers} and docs/REGISTERS.md ({@link RegistersDoc}) come from it.
 * <p>
 * A writable register is a {@link RuntimeKnob}: a write is one {@code TableBatch.setKnob} in one command, as a
 * P4Runtime register write (its P4 register named in {@link #p4Register()}). The others read the configuration in
 * force (CONFIG_DB compiled, the traffic manager's options) and are read-only: the model cannot change them without
 * a new configuration. Addresses: {@code base + index * 4}; the index is the port index, {@code port * 8 + queue},
 * {@code port * 8 + pg}, the pool's position in BUFFER_POOL or the group id. Reset value: what the register holds
 * before any configuration (SONiC's or SAI's default, 0 where the default is "off").
 */
public enum ChipRegister {
    // Switch-wide registers: 0x0000_0000.
    HASH_SEED(
            0x0000_0000,
            Scope.SWITCH,
            "",
            0,
            RuntimeKnob.HASH_SEED,
            "ars.hash_seed",
            "ECMP hash seed (SWITCH_HASH|GLOBAL ecmp_hash_seed; default by DEVICE_METADATA type)",
            null,
            32),
    HASH_OFFSET(
            0x0000_0004,
            Scope.SWITCH,
            "",
            0,
            null,
            null,
            "ECMP hash offset: the bit the member choice starts at (SWITCH_HASH|GLOBAL ecmp_hash_offset)",
            (l, i) -> l.compiled().setup().flowletConfig().switchHash().ecmpHashOffset(),
            8),
    HASH_FIELD_MASK(
            0x0000_0008,
            Scope.SWITCH,
            "mask",
            HashField.maskOf(SwitchHashConfig.FIVE_TUPLE),
            null,
            null,
            "fields of the ECMP hash object (SWITCH_HASH|GLOBAL ecmp_hash), one bit each",
            (l, i) -> HashField.maskOf(
                    l.compiled().setup().flowletConfig().switchHash().ecmpHash()),
            -1),
    HASH_RDMA_FIELD_MASK(
            0x0000_000C,
            Scope.SWITCH,
            "mask",
            0,
            null,
            null,
            "fields of the RoCEv2 hash object (SWITCH_HASH|GLOBAL ecmp_hash_rdma), one bit each",
            (l, i) -> HashField.maskOf(
                    l.compiled().setup().flowletConfig().switchHash().ecmpHashRdma()),
            -1),
    HASH_ALGORITHM(
            0x0000_0010,
            Scope.SWITCH,
            "enum",
            0,
            null,
            null,
            "ECMP hash algorithm, SAI_HASH_ALGORITHM_* value (SWITCH_HASH|GLOBAL ecmp_hash_algorithm)",
            (l, i) -> l.compiled()
                    .setup()
                    .flowletConfig()
                    .switchHash()
                    .ecmpHashAlgorithm()
                    .saiValue(),
            -2),
    FLOWLET_AGE_TIME(
            0x0000_0014,
            Scope.SWITCH,
            "ns",
            GroupSettings.DEFAULT_IDLE_TIME_NS,
            RuntimeKnob.FLOWLET_IDLE_TIME_NS,
            "ars.flowlet_idle_time_ns",
            "flowlet idle (age) time of every group, 16 us..32 ms (ARS idle_time)",
            null,
            32),
    ARS_SAMPLING_INTERVAL(
            0x0000_0018,
            Scope.SWITCH,
            "ns",
            QualitySettings.DEFAULT_SAMPLING_INTERVAL_NS,
            null,
            null,
            "path-quality sampling interval (ARS_PROFILE sampling_interval)",
            (l, i) -> l.compiled().setup().flowletConfig().qualitySettings().samplingIntervalNs(),
            32),
    ARS_PAST_LOAD_WEIGHT(
            0x0000_001C,
            Scope.SWITCH,
            "",
            QualitySettings.DEFAULT_WEIGHT,
            null,
            null,
            "EWMA weight of the transmitted-bytes sample (ARS_PROFILE past_load_weight)",
            (l, i) -> l.compiled().setup().flowletConfig().qualitySettings().pastLoadWeight(),
            16),
    ARS_FUTURE_LOAD_WEIGHT(
            0x0000_0020,
            Scope.SWITCH,
            "",
            QualitySettings.DEFAULT_WEIGHT,
            null,
            null,
            "EWMA weight of the queued-bytes sample (ARS_PROFILE future_load_weight)",
            (l, i) -> l.compiled().setup().flowletConfig().qualitySettings().futureLoadWeight(),
            16),
    ARS_PAST_LOAD_BAND_MIN(
            0x0000_0024,
            Scope.SWITCH,
            "Mb/s",
            QualitySettings.DEFAULT_PAST_LOAD_MIN_MBPS,
            null,
            null,
            "quality band 7 (best) at or below this rate per 10G unit (ARS_PROFILE min_past_load)",
            (l, i) -> l.compiled().setup().flowletConfig().qualitySettings().pastLoadMinMbps(),
            32),
    ARS_PAST_LOAD_BAND_MAX(
            0x0000_0028,
            Scope.SWITCH,
            "Mb/s",
            QualitySettings.DEFAULT_PAST_LOAD_MAX_MBPS,
            null,
            null,
            "quality band 0 (worst) at or above this rate per 10G unit (ARS_PROFILE max_past_load)",
            (l, i) -> l.compiled().setup().flowletConfig().qualitySettings().pastLoadMaxMbps(),
            32),
    ARS_FUTURE_LOAD_BAND_MIN(
            0x0000_002C,
            Scope.SWITCH,
            "bytes",
            QualitySettings.DEFAULT_FUTURE_LOAD_MIN_BYTES,
            null,
            null,
            "quality band 7 at or below this queue depth (ARS_PROFILE min_future_load)",
            (l, i) -> l.compiled().setup().flowletConfig().qualitySettings().futureLoadMinBytes(),
            32),
    ARS_FUTURE_LOAD_BAND_MAX(
            0x0000_0030,
            Scope.SWITCH,
            "bytes",
            QualitySettings.DEFAULT_FUTURE_LOAD_MAX_BYTES,
            null,
            null,
            "quality band 0 at or above this queue depth (ARS_PROFILE max_future_load)",
            (l, i) -> l.compiled().setup().flowletConfig().qualitySettings().futureLoadMaxBytes(),
            32),
    PFC_QUANTA(
            0x0000_0034,
            Scope.SWITCH,
            "quanta",
            TmOptions.defaults().pfcQuanta(),
            null,
            null,
            "pause time of generated XOFF frames, 512 bit times each (the traffic manager's option)",
            (l, i) -> l.tmOptions().pfcQuanta(),
            16),
    PFC_REFRESH(
            0x0000_0038,
            Scope.SWITCH,
            "ns",
            TmOptions.defaults().pfcRefreshNs(),
            null,
            null,
            "XOFF refresh period while a PG stays over xoff; 0 = half the pause time at the port's speed",
            (l, i) -> l.tmOptions().pfcRefreshNs(),
            32),
    PFCWD_POLL(
            0x0000_003C,
            Scope.SWITCH,
            "ms",
            100,
            null,
            null,
            "PFC watchdog poll interval (PFC_WD|GLOBAL POLL_INTERVAL)",
            (l, i) -> l.compiled().setup().tmConfig().pollIntervalMs(),
            32),

    // Per port: 0x0001_0000, 0x400 bytes each (256 ports).
    PORT_SPEED(
            0x0001_0000,
            Scope.PORT,
            "Mb/s",
            0,
            null,
            null,
            "port speed (PORT speed)",
            (l, i) -> l.port(i).speedMbps(),
            32),
    PFC_ENABLE(
            0x0001_0400,
            Scope.PORT,
            "mask",
            0,
            null,
            null,
            "priorities with PFC, one bit each (PORT_QOS_MAP pfc_enable)",
            (l, i) -> l.port(i).pfcEnableMask(),
            8),
    PFCWD_DETECT(
            0x0001_0800,
            Scope.PORT,
            "ms",
            0,
            RuntimeKnob.PFC_WATCHDOG_DETECTION_MS,
            "tm.pfc_watchdog_detection_time_ms",
            "PFC watchdog detection time, 100..5000 and >= PFCWD_POLL (PFC_WD detection_time); ports with PFC_WD",
            null,
            32),
    PFCWD_RESTORE(
            0x0001_0C00,
            Scope.PORT,
            "ms",
            0,
            RuntimeKnob.PFC_WATCHDOG_RESTORATION_MS,
            "tm.pfc_watchdog_restoration_time_ms",
            "PFC watchdog restoration time, 100..60000 and >= PFCWD_POLL, 0 = never (PFC_WD restoration_time)",
            null,
            32),
    PFCWD_ACTION(
            0x0001_1000,
            Scope.PORT,
            "enum",
            0,
            null,
            null,
            "PFC watchdog action (PFC_WD action): 0 none (no PFC_WD entry), 1 drop, 2 forward, 3 alert",
            (l, i) -> l.port(i).pfcWd() == null ? 0 : l.port(i).pfcWd().action().ordinal() + 1,
            2),

    // Per queue (index port * 8 + queue): 0x0010_0000, 0x2000 bytes each (2048 queues).
    ECN_KMIN(
            0x0010_0000,
            Scope.QUEUE,
            "bytes",
            0,
            RuntimeKnob.ECN_MIN_THRESHOLD_BYTES,
            "tm.ecn_min_threshold_bytes",
            "WRED/ECN Kmin, green (WRED_PROFILE green_min_threshold)",
            null,
            32),
    ECN_KMAX(
            0x0010_2000,
            Scope.QUEUE,
            "bytes",
            0,
            RuntimeKnob.ECN_MAX_THRESHOLD_BYTES,
            "tm.ecn_max_threshold_bytes",
            "WRED/ECN Kmax, green, 0 = the whole buffer (WRED_PROFILE green_max_threshold)",
            null,
            32),
    ECN_PMAX(
            0x0010_4000,
            Scope.QUEUE,
            "%",
            0,
            RuntimeKnob.ECN_MAX_PROBABILITY_PERCENT,
            "tm.ecn_max_probability_percent",
            "WRED/ECN Pmax, green, 0..100 (WRED_PROFILE green_drop_probability)",
            null,
            7),
    ECN_KMIN_YELLOW(
            0x0010_6000,
            Scope.QUEUE,
            "bytes",
            0,
            RuntimeKnob.ECN_YELLOW_MIN_THRESHOLD_BYTES,
            "tm.ecn_yellow_min_threshold_bytes",
            "WRED/ECN Kmin, yellow (WRED_PROFILE yellow_min_threshold)",
            null,
            32),
    ECN_KMAX_YELLOW(
            0x0010_8000,
            Scope.QUEUE,
            "bytes",
            0,
            RuntimeKnob.ECN_YELLOW_MAX_THRESHOLD_BYTES,
            "tm.ecn_yellow_max_threshold_bytes",
            "WRED/ECN Kmax, yellow (WRED_PROFILE yellow_max_threshold)",
            null,
            32),
    ECN_PMAX_YELLOW(
            0x0010_A000,
            Scope.QUEUE,
            "%",
            0,
            RuntimeKnob.ECN_YELLOW_MAX_PROBABILITY_PERCENT,
            "tm.ecn_yellow_max_probability_percent",
            "WRED/ECN Pmax, yellow (WRED_PROFILE yellow_drop_probability)",
            null,
            7),
    ECN_KMIN_RED(
            0x0010_C000,
            Scope.QUEUE,
            "bytes",
            0,
            RuntimeKnob.ECN_RED_MIN_THRESHOLD_BYTES,
            "tm.ecn_red_min_threshold_bytes",
            "WRED/ECN Kmin, red (WRED_PROFILE red_min_threshold)",
            null,
            32),
    ECN_KMAX_RED(
            0x0010_E000,
            Scope.QUEUE,
            "bytes",
            0,
            RuntimeKnob.ECN_RED_MAX_THRESHOLD_BYTES,
            "tm.ecn_red_max_threshold_bytes",
            "WRED/ECN Kmax, red (WRED_PROFILE red_max_threshold)",
            null,
            32),
    ECN_PMAX_RED(
            0x0011_0000,
            Scope.QUEUE,
            "%",
            0,
            RuntimeKnob.ECN_RED_MAX_PROBABILITY_PERCENT,
            "tm.ecn_red_max_probability_percent",
            "WRED/ECN Pmax, red (WRED_PROFILE red_drop_probability)",
            null,
            7),

    // Per ingress priority group (index port * 8 + pg): 0x0020_0000, 0x2000 bytes each.
    PFC_XOFF(
            0x0020_0000,
            Scope.PG,
            "bytes",
            0,
            RuntimeKnob.PFC_XOFF_BYTES,
            "tm.pfc_xoff_bytes",
            "headroom above reserved + shared whose crossing sends XOFF (BUFFER_PROFILE xoff); PGs with BUFFER_PG",
            null,
            32),
    PFC_XON(
            0x0020_2000,
            Scope.PG,
            "bytes",
            0,
            RuntimeKnob.PFC_XON_BYTES,
            "tm.pfc_xon_bytes",
            "XON threshold (BUFFER_PROFILE xon); PGs with BUFFER_PG",
            null,
            32),

    // Per buffer pool (index: position in BUFFER_POOL): 0x0030_0000, 0x100 bytes each.
    BUFFER_POOL_SIZE(
            0x0030_0000,
            Scope.POOL,
            "bytes",
            0,
            null,
            null,
            "shared buffer pool size (BUFFER_POOL size)",
            (l, i) -> l.pool(i).sizeBytes(),
            32),
    BUFFER_POOL_XOFF(
            0x0030_0100,
            Scope.POOL,
            "bytes",
            0,
            null,
            null,
            "shared headroom of the pool (BUFFER_POOL xoff), 0 = none",
            (l, i) -> l.pool(i).xoffBytes(),
            32),

    // Per next-hop group (index: group id): 0x0040_0000, 0x1000 bytes each.
    ARS_GROUP_MODE(
            0x0040_0000,
            Scope.GROUP,
            "enum",
            0,
            RuntimeKnob.GROUP_SELECTION_MODE,
            "ars.group_selection_mode",
            "member selection: 0 hash, 1 flowlet_quality, 2 flowlet_random, 3 per_packet_spray",
            null,
            2),

    // QoS map entries on every port (over the configured maps): 0x0050_0000, 0x400 bytes each. 15 = no entry.
    QOS_DSCP_TO_TC(
            0x0050_0000,
            Scope.DSCP,
            "tc",
            ChipRegister.QOS_NONE,
            RuntimeKnob.DSCP_TO_TC,
            "ingress.qos.dscp_to_tc_table",
            "traffic class of a DSCP on every port, 0..7; 15 = no entry (PORT_QOS_MAP's DSCP_TO_TC_MAP applies)",
            null,
            4),
    QOS_DOT1P_TO_TC(
            0x0050_0400,
            Scope.CLASS,
            "tc",
            ChipRegister.QOS_NONE,
            RuntimeKnob.DOT1P_TO_TC,
            "ingress.qos.dot1p_to_tc_table",
            "traffic class of a PCP on every port, 0..7; 15 = no entry (DOT1P_TO_TC_MAP applies)",
            null,
            4),
    QOS_TC_TO_QUEUE(
            0x0050_0800,
            Scope.CLASS,
            "queue",
            ChipRegister.QOS_NONE,
            RuntimeKnob.TC_TO_QUEUE,
            "ingress.qos.tc_to_queue_table",
            "egress queue of a traffic class on every port, 0..7; 15 = no entry (TC_TO_QUEUE_MAP applies)",
            null,
            4),
    QOS_TC_TO_PG(
            0x0050_0C00,
            Scope.CLASS,
            "pg",
            ChipRegister.QOS_NONE,
            RuntimeKnob.TC_TO_PG,
            "ingress.qos.tc_to_pg_table",
            "ingress priority group of a traffic class on every port, 0..7; 15 = no entry (TC_TO_PRIORITY_GROUP_MAP "
                    + "applies)",
            null,
            4);

    /** A QoS map register's value for "no entry" (the runtime knob's -1). */
    public static final long QOS_NONE = 15;

    /** What one instance is. */
    public enum Scope {
        /** One instance, {@code ""}. */
        SWITCH,
        /** One per configured port, {@code EthernetN}. */
        PORT,
        /** Eight per port, {@code EthernetN|q}. */
        QUEUE,
        /** Eight ingress PGs per port, {@code EthernetN|pg}. */
        PG,
        /** One per BUFFER_POOL, its name. */
        POOL,
        /** One per next-hop group in use, its id. */
        GROUP,
        /** One per DSCP, 0..63. */
        DSCP,
        /** One per traffic class or PCP, 0..7. */
        CLASS
    }

    /**
     * One bit field.
     *
     * @param name field name.
     * @param msb highest bit.
     * @param lsb lowest bit.
     * @param meaning what it holds.
     */
    public record BitField(String name, int msb, int lsb, String meaning) {
        /** @return {@code [msb:lsb]} or {@code [bit]}. */
        public String bits() {
            return msb == lsb ? "[" + msb + "]" : "[" + msb + ":" + lsb + "]";
        }
    }

    /** Reads a read-only register from the configuration in force. */
    @FunctionalInterface
    interface Reader {
        long read(LiveConfig live, int index);
    }

    private final long base;
    private final Scope scope;
    private final String unit;
    private final long resetValue;
    private final RuntimeKnob knob;
    private final String p4Register;
    private final String description;
    private final Reader reader;
    private final List<BitField> fields;

    /**
     * @param width value bits ({@code -1}: one bit per hash field, {@code -2}: the algorithm enumeration).
     */
    ChipRegister(
            final long base,
            final Scope scope,
            final String unit,
            final long resetValue,
            final RuntimeKnob knob,
            final String p4Register,
            final String description,
            final Reader reader,
            final int width) {
        this.base = base;
        this.scope = scope;
        this.unit = unit;
        this.resetValue = resetValue;
        this.knob = knob;
        this.p4Register = p4Register;
        this.description = description;
        this.reader = reader;
        this.fields = fields(width);
    }

    private static List<BitField> fields(final int width) {
        final List<BitField> out = new ArrayList<>();
        if (width == -1) {
            for (final HashField f : HashField.values()) {
                final int bit = Long.numberOfTrailingZeros(f.mask());
                out.add(new BitField(f.name(), bit, bit, f.rdma() ? "RoCEv2 BTH field" : "packet field"));
            }
        } else if (width == -2) {
            final StringBuilder values = new StringBuilder();
            for (final HashAlgorithm a : HashAlgorithm.values()) {
                values.append(values.isEmpty() ? "" : ", ")
                        .append(a.saiValue())
                        .append(' ')
                        .append(a.name());
            }
            out.add(new BitField("ALGORITHM", 2, 0, values.toString()));
        } else {
            out.add(new BitField("VALUE", width - 1, 0, ""));
        }
        return List.copyOf(out);
    }

    /** @return the address of instance 0. */
    public long base() {
        return base;
    }

    /**
     * @param index the instance's index.
     * @return its byte address.
     */
    public long address(final int index) {
        return base + 4L * index;
    }

    /** @return what one instance is. */
    public Scope scope() {
        return scope;
    }

    /** @return the value's unit ({@code ""} for a plain number). */
    public String unit() {
        return unit;
    }

    /** @return the value before any configuration. */
    public long resetValue() {
        return resetValue;
    }

    /** @return the runtime knob a write sets, or null for a read-only register. */
    public RuntimeKnob knob() {
        return knob;
    }

    /** @return whether the running model can change it (a write is a knob change). */
    public boolean writable() {
        return knob != null;
    }

    /** @return the P4Runtime register holding the same value, or null. */
    public String p4Register() {
        return p4Register;
    }

    /** @return what it holds and where the configuration sets it. */
    public String description() {
        return description;
    }

    /** @return its bit fields, lowest first. */
    public List<BitField> fields() {
        return fields;
    }

    /** @return the largest value its fields hold. */
    public long maxValue() {
        int msb = 0;
        for (final BitField f : fields) {
            msb = Math.max(msb, f.msb());
        }
        return msb >= 63 ? Long.MAX_VALUE : (1L << (msb + 1)) - 1;
    }

    /** @return whether this is a QoS map entry (register 15 = the knob's -1, no entry). */
    public boolean qosMap() {
        return knob != null && knob.isQosMap();
    }

    /**
     * @param knobValue the runtime knob's value.
     * @return the register's.
     */
    long fromKnob(final long knobValue) {
        return qosMap() && knobValue < 0 ? QOS_NONE : knobValue;
    }

    /**
     * @param registerValue a value written to the register (within its width).
     * @return the runtime knob's.
     */
    long toKnob(final long registerValue) {
        return qosMap() && registerValue == QOS_NONE ? -1 : registerValue;
    }

    long readConfigured(final LiveConfig live, final int index) {
        return reader.read(live, index);
    }
}
