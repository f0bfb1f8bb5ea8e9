package io.asicemu.pipeline.control;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.ars.PortQuality;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.pipeline.dataplane.DataPlaneAgent;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.QosMaps;
import io.asicemu.tm.config.BufferProfileConfig;
import io.asicemu.tm.config.PortConfig;
import io.asicemu.tm.config.TmConfig;
import io.asicemu.tm.config.WredProfileConfig;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * The control-side model of the {@link RuntimeKnob}s of one configuration: every value in force, starting from what
 * the CONFIG_DB gives (WRED_PROFILE thresholds and Pmax of every colour of each queue's profile, BUFFER_PG profile
 * xoff/xon, PFC_WD times, the default ARS object's idle time, SWITCH_HASH's ECMP seed; no QoS map entries), then what
 * {@link TableBatch#setKnob} batches committed. It validates a change and turns a committed set of changes into
 * data-plane edits (traffic-manager and ars-flowlet setters, a new {@link QosMaps} swapped in), applied in the
 * batch's one command. A new configuration ({@link PipelineControl#install}) starts a new model.
 * <p>
 * Not thread safe: the control thread only (as {@link PipelineControl}).
 */
public final class RuntimeKnobs {
    private static final RuntimeKnob[] KNOBS = RuntimeKnob.values();
    private static final long U32 = 0xFFFF_FFFFL;
    private static final String[] COLOUR_NAMES = {" (green)", " (yellow)", " (red)"};

    private final SwitchSetup setup;
    private final int ports;
    private final long[][] values = new long[KNOBS.length][];
    private final BitSet pgProfile = new BitSet();
    private final BitSet watched = new BitSet();
    private final int pollMs;
    /** The configuration's QoS maps, under the entries a controller wrote (a reconfigure may replace them). */
    private QosMaps baseQos;

    private final int maxGroups;
    private final int maxPorts;
    private final L3State l3;
    private final BitSet modeWritten = new BitSet();

    RuntimeKnobs(final SwitchSetup setup, final int maxGroups, final int maxPorts, final L3State l3) {
        this.maxGroups = maxGroups;
        this.maxPorts = maxPorts;
        this.l3 = l3;
        this.setup = setup;
        this.ports = setup.portNames().size();
        for (final RuntimeKnob k : KNOBS) {
            values[k.ordinal()] = new long[k.size(ports, maxGroups)];
            if (k.isQosMap()) {
                java.util.Arrays.fill(values[k.ordinal()], -1);
            }
        }
        final TmConfig tm = setup.tmConfig();
        pollMs = tm.pollIntervalMs();
        // The PFC xoff/xon knobs tune CONFIG_DB's BUFFER_PG profiles; the default buffer a config without BUFFER_*
        // tables gets (SonicDefaults.withDefaultBuffers) is the emulator's, not the operator's, and has none to tune.
        final boolean configuredBuffers = setup.configuredBuffers();
        for (final PortConfig p : tm.ports()) {
            final int port = p.index();
            if (port >= ports) {
                continue;
            }
            for (int i = 0; i < 8; i++) {
                final int qi = port * 8 + i;
                final String w = p.queueWredProfile()[i];
                final WredProfileConfig wp =
                        w == null ? null : tm.wredProfiles().get(w);
                if (wp != null) {
                    // Every colour's values, so that writing one colour's knob leaves the others as configured.
                    for (int colour = 0; colour < 3; colour++) {
                        set(RuntimeKnob.wred(colour, 0), qi, wp.minThresholdBytes()[colour]);
                        set(RuntimeKnob.wred(colour, 1), qi, wp.maxThresholdBytes()[colour]);
                        set(RuntimeKnob.wred(colour, 2), qi, wp.dropProbabilityPercent()[colour]);
                    }
                }
                final String pg = p.pgProfile()[i];
                final BufferProfileConfig bp = pg == null ? null : tm.profiles().get(pg);
                if (bp != null && configuredBuffers) {
                    pgProfile.set(qi);
                    set(RuntimeKnob.PFC_XOFF_BYTES, qi, bp.xoffBytes());
                    set(RuntimeKnob.PFC_XON_BYTES, qi, bp.xonBytes());
                }
            }
            if (p.pfcWd() != null) {
                watched.set(port);
                set(RuntimeKnob.PFC_WATCHDOG_DETECTION_MS, port, p.pfcWd().detectionTimeMs());
                set(
                        RuntimeKnob.PFC_WATCHDOG_RESTORATION_MS,
                        port,
                        Math.max(0, p.pfcWd().restorationTimeMs()));
            }
        }
        set(
                RuntimeKnob.FLOWLET_IDLE_TIME_NS,
                0,
                setup.flowletConfig().groupSettings("").idleTimeNs());
        set(RuntimeKnob.HASH_SEED, 0, setup.flowletConfig().switchHash().ecmpHashSeed() & U32);
        baseQos = setup.tables().qos();
    }

    SwitchSetup setup() {
        return setup;
    }

    /**
     * An immutable copy of the values the running config shows (WRED, PFC, watchdog, hash seed; cheap: a few arrays
     * of ports × 8), taken on the control thread and read from any thread.
     *
     * @param values per knob ordinal, per index.
     * @param pgProfile PGs with a BUFFER_PG profile.
     * @param watched ports with a PFC_WD entry.
     */
    public record Values(long[][] values, BitSet pgProfile, BitSet watched) {
        public long value(final RuntimeKnob k, final int index) {
            return values[k.ordinal()][index];
        }

        public int size(final RuntimeKnob k) {
            return values[k.ordinal()].length;
        }

        public boolean applicable(final RuntimeKnob k, final int index) {
            return switch (k) {
                case PFC_XOFF_BYTES, PFC_XON_BYTES -> pgProfile.get(index);
                case PFC_WATCHDOG_DETECTION_MS, PFC_WATCHDOG_RESTORATION_MS -> watched.get(index);
                default -> true;
            };
        }
    }

    /** @return a copy of the values in force (control thread). */
    public Values snapshot() {
        final long[][] copy = new long[values.length][];
        for (int i = 0; i < values.length; i++) {
            copy[i] = values[i].clone();
        }
        return new Values(copy, (BitSet) pgProfile.clone(), (BitSet) watched.clone());
    }

    private void set(final RuntimeKnob k, final int index, final long value) {
        values[k.ordinal()][index] = value;
    }

    static long key(final RuntimeKnob k, final int index) {
        return (long) k.ordinal() << 32 | index;
    }

    /**
     * @param k a knob.
     * @return how many indexes it has in this configuration.
     */
    public int size(final RuntimeKnob k) {
        return k.size(ports, maxGroups);
    }

    /**
     * @param k a knob.
     * @param index its index, 0 .. {@link #size} - 1.
     * @return the value in force (the committed model; the data plane has it once the batch's command ran).
     */
    public long value(final RuntimeKnob k, final int index) {
        if (k == RuntimeKnob.GROUP_SELECTION_MODE && !modeWritten.get(index)) {
            final GroupSettings s = configuredGroupSettings(index);
            return s == null ? 0 : modeCode(s.mode());
        }
        return values[k.ordinal()][index];
    }

    /**
     * @param group a pipeline group id.
     * @return whether the group exists (configured or written by a controller), so its selection mode is a value.
     */
    public boolean groupDefined(final int group) {
        return group >= 0 && group < maxGroups && configuredGroupSettings(group) != null;
    }

    /** Settings the configuration gives a defined group (before runtime changes), or null. */
    private GroupSettings configuredGroupSettings(final int group) {
        final L3State.GroupSpec spec = l3.groupSpecs.get(group);
        if (spec != null) {
            return setup.flowletConfig().groupSettings(spec.name());
        }
        L3State.GroupSpec configured = l3.configGroups.get(group);
        if (configured == null) {
            configured = l3.protocolGroups.get(group);
        }
        return configured == null ? null : setup.flowletConfig().groupSettings(configured.name());
    }

    static int modeCode(final LoadBalanceMode mode) {
        return switch (mode) {
            case STATIC_HASH, ENHANCED_ECMP -> 0;
            case FLOWLET_QUALITY -> 1;
            case FLOWLET_RANDOM -> 2;
            case PER_PACKET_SPRAY -> 3;
        };
    }

    static LoadBalanceMode mode(final long code) {
        return switch ((int) code) {
            case 1 -> LoadBalanceMode.FLOWLET_QUALITY;
            case 2 -> LoadBalanceMode.FLOWLET_RANDOM;
            case 3 -> LoadBalanceMode.PER_PACKET_SPRAY;
            default -> LoadBalanceMode.ENHANCED_ECMP;
        };
    }

    /**
     * @param k a knob.
     * @param index an index within {@link #size}.
     * @return false when the index has nothing to tune (a PG without BUFFER_PG profile, a port without PFC_WD).
     */
    public boolean applicable(final RuntimeKnob k, final int index) {
        return switch (k) {
            case PFC_XOFF_BYTES, PFC_XON_BYTES -> pgProfile.get(index);
            case PFC_WATCHDOG_DETECTION_MS, PFC_WATCHDOG_RESTORATION_MS -> watched.get(index);
            default -> true;
        };
    }

    /** Value as seen inside a batch: its staged changes first. */
    private static long current(
            final RuntimeKnobs m, final Map<Long, Long> staged, final RuntimeKnob k, final int index) {
        final Long v = staged.get(key(k, index));
        return v != null ? v : m.value(k, index);
    }

    /**
     * Validates one change against the model plus the batch's earlier changes.
     *
     * @throws TableException INVALID_ARGUMENT (index or value out of range, Kmin above Kmax), FAILED_PRECONDITION
     *     (a PG without BUFFER_PG profile, a port without PFC_WD entry).
     */
    void check(
            final RuntimeKnob k,
            final int index,
            final long value,
            final Map<Long, Long> staged,
            final IntPredicate groupDefined,
            final int update) {
        if (index < 0 || index >= size(k)) {
            throw new TableException(
                    TableException.Code.INVALID_ARGUMENT,
                    update,
                    k + " index " + index + " is outside 0.." + (size(k) - 1));
        }
        switch (k) {
            case ECN_MIN_THRESHOLD_BYTES,
                    ECN_MAX_THRESHOLD_BYTES,
                    ECN_YELLOW_MIN_THRESHOLD_BYTES,
                    ECN_YELLOW_MAX_THRESHOLD_BYTES,
                    ECN_RED_MIN_THRESHOLD_BYTES,
                    ECN_RED_MAX_THRESHOLD_BYTES -> {
                range(k, value, 0, U32, update);
                final RuntimeKnob minKnob = RuntimeKnob.wred(k.wredColour(), 0);
                final RuntimeKnob maxKnob = RuntimeKnob.wred(k.wredColour(), 1);
                final long min = k == minKnob ? value : current(this, staged, minKnob, index);
                final long max = k == maxKnob ? value : current(this, staged, maxKnob, index);
                if (max != 0 && min > max) {
                    throw new TableException(
                            TableException.Code.INVALID_ARGUMENT,
                            update,
                            "queue " + index + ": ECN min threshold " + min + " above max threshold " + max
                                    + COLOUR_NAMES[k.wredColour()]);
                }
            }
            case ECN_MAX_PROBABILITY_PERCENT, ECN_YELLOW_MAX_PROBABILITY_PERCENT, ECN_RED_MAX_PROBABILITY_PERCENT ->
                range(k, value, 0, 100, update);
            case PFC_XOFF_BYTES, PFC_XON_BYTES -> {
                range(k, value, 0, U32, update);
                if (!pgProfile.get(index)) {
                    throw new TableException(
                            TableException.Code.FAILED_PRECONDITION,
                            update,
                            "PG " + index + " has no BUFFER_PG profile");
                }
            }
            case PFC_WATCHDOG_DETECTION_MS, PFC_WATCHDOG_RESTORATION_MS -> {
                final boolean restoration = k == RuntimeKnob.PFC_WATCHDOG_RESTORATION_MS;
                if (!(restoration && value == 0)) {
                    range(k, value, Math.max(100, pollMs), restoration ? 60_000 : 5_000, update);
                }
                if (!watched.get(index)) {
                    throw new TableException(
                            TableException.Code.FAILED_PRECONDITION, update, "port " + index + " has no PFC_WD entry");
                }
            }
            case FLOWLET_IDLE_TIME_NS ->
                range(k, value, GroupSettings.MIN_IDLE_TIME_NS, GroupSettings.MAX_IDLE_TIME_NS, update);
            case HASH_SEED -> range(k, value, 0, U32, update);
            case DSCP_TO_TC, DOT1P_TO_TC, TC_TO_QUEUE, TC_TO_PG -> range(k, value, -1, 7, update);
            case GROUP_SELECTION_MODE -> {
                range(k, value, 0, 3, update);
                if (!groupDefined.test(index)) {
                    throw new TableException(TableException.Code.NOT_FOUND, update, "group " + index);
                }
            }
        }
    }

    private static void range(final RuntimeKnob k, final long value, final long min, final long max, final int update) {
        if (value < min || value > max) {
            throw new TableException(
                    TableException.Code.INVALID_ARGUMENT,
                    update,
                    k + " value " + value + " is outside " + min + ".." + max);
        }
    }

    /**
     * Records validated changes in the model and returns the data-plane edits that make them real.
     *
     * @param staged knob key → value (validated by {@link #check}).
     * @return edits to run, in the batch's command, on the data-plane thread.
     */
    List<Consumer<DataPlaneAgent>> commit(final Map<Long, Long> staged) {
        return commit(staged, null);
    }

    /**
     * Records validated changes and, from a reconfigure, the configuration's new QoS maps (the entries controllers
     * wrote stay on top of them), and returns the data-plane edits that make them real.
     *
     * @param staged knob key → value (validated by {@link #check}).
     * @param configQos the next configuration's compiled QoS maps, or null when they do not change.
     * @return edits to run, in the batch's command, on the data-plane thread.
     */
    List<Consumer<DataPlaneAgent>> commit(final Map<Long, Long> staged, final QosMaps configQos) {
        final List<Consumer<DataPlaneAgent>> edits = new ArrayList<>();
        if (staged.isEmpty() && configQos == null) {
            return edits;
        }
        if (configQos != null) {
            baseQos = configQos;
        }
        final BitSet wred = new BitSet();
        final BitSet pfc = new BitSet();
        final BitSet wd = new BitSet();
        boolean qos = configQos != null;
        for (final Map.Entry<Long, Long> e : staged.entrySet()) {
            final RuntimeKnob k = KNOBS[(int) (e.getKey() >>> 32)];
            final int index = (int) (long) e.getKey();
            set(k, index, e.getValue());
            switch (k) {
                case ECN_MIN_THRESHOLD_BYTES,
                        ECN_MAX_THRESHOLD_BYTES,
                        ECN_MAX_PROBABILITY_PERCENT,
                        ECN_YELLOW_MIN_THRESHOLD_BYTES,
                        ECN_YELLOW_MAX_THRESHOLD_BYTES,
                        ECN_YELLOW_MAX_PROBABILITY_PERCENT,
                        ECN_RED_MIN_THRESHOLD_BYTES,
                        ECN_RED_MAX_THRESHOLD_BYTES,
                        ECN_RED_MAX_PROBABILITY_PERCENT -> wred.set(index * 3 + k.wredColour());
                case PFC_XOFF_BYTES, PFC_XON_BYTES -> pfc.set(index);
                case PFC_WATCHDOG_DETECTION_MS, PFC_WATCHDOG_RESTORATION_MS -> wd.set(index);
                case FLOWLET_IDLE_TIME_NS -> {
                    final long idle = e.getValue();
                    edits.add(a -> forEachGroup(a.tables(), maxGroups, g -> g.idleTimeNs(idle)));
                }
                case HASH_SEED -> {
                    final int seed = (int) (long) e.getValue();
                    edits.add(a -> a.tables().hashEngine().seed(seed));
                }
                case DSCP_TO_TC, DOT1P_TO_TC, TC_TO_QUEUE, TC_TO_PG -> qos = true;
                case GROUP_SELECTION_MODE -> {
                    modeWritten.set(index);
                    final LoadBalanceMode mode = mode(e.getValue());
                    final PortQuality spare = mode == LoadBalanceMode.FLOWLET_QUALITY
                            ? new PortQuality(maxPorts, setup.flowletConfig().qualitySettings())
                            : null;
                    edits.add(a -> {
                        final LoadBalanceGroup g = a.tables().group(index);
                        if (g == null) {
                            return;
                        }
                        PortQuality quality = a.tables().portQuality();
                        if (quality == null && spare != null) {
                            quality = spare;
                            a.tables().portQuality(spare);
                        }
                        g.mode(mode, quality);
                    });
                }
            }
        }
        wred.stream().forEach(qc -> {
            final int qi = qc / 3;
            final int colour = qc % 3;
            final long min = value(RuntimeKnob.wred(colour, 0), qi);
            final long max = value(RuntimeKnob.wred(colour, 1), qi);
            final int prob = (int) value(RuntimeKnob.wred(colour, 2), qi);
            edits.add(a -> a.trafficManager().setWredColour(qi >> 3, qi & 7, colour, min, max, prob));
        });
        pfc.stream().forEach(pgi -> {
            final long xoff = value(RuntimeKnob.PFC_XOFF_BYTES, pgi);
            final long xon = value(RuntimeKnob.PFC_XON_BYTES, pgi);
            edits.add(a -> a.trafficManager().setPfcThresholds(pgi >> 3, pgi & 7, xoff, xon));
        });
        wd.stream().forEach(port -> {
            final int detection = (int) value(RuntimeKnob.PFC_WATCHDOG_DETECTION_MS, port);
            final int restoration = (int) value(RuntimeKnob.PFC_WATCHDOG_RESTORATION_MS, port);
            edits.add(a -> a.trafficManager().setWatchdogTimes(port, detection, restoration == 0 ? -1 : restoration));
        });
        if (qos) {
            final QosMaps maps = baseQos.withEntries(
                    ints(RuntimeKnob.DSCP_TO_TC),
                    ints(RuntimeKnob.DOT1P_TO_TC),
                    ints(RuntimeKnob.TC_TO_QUEUE),
                    ints(RuntimeKnob.TC_TO_PG));
            edits.add(a -> a.tables().qos(maps));
        }
        return edits;
    }

    /**
     * Group settings for a group built after idle-time changes (the register applies to every group).
     *
     * @param settings the settings the configuration gives the group.
     * @return them with the idle time in force.
     */
    GroupSettings groupSettings(final GroupSettings settings, final int group) {
        final long idle = value(RuntimeKnob.FLOWLET_IDLE_TIME_NS, 0);
        GroupSettings s =
                idle == settings.idleTimeNs() ? settings : settings.withFlowlet(settings.flowletTableSize(), idle);
        if (modeWritten.get(group)) {
            s = s.withMode(mode(values[RuntimeKnob.GROUP_SELECTION_MODE.ordinal()][group]));
        }
        return s;
    }

    /**
     * Groups removed by a committed batch forget their written selection mode.
     *
     * @param groups the removed group ids.
     */
    void groupsRemoved(final java.util.Set<Integer> groups) {
        groups.forEach(modeWritten::clear);
    }

    private int[] ints(final RuntimeKnob k) {
        final long[] v = values[k.ordinal()];
        final int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (int) v[i];
        }
        return out;
    }

    private static void forEachGroup(
            final ForwardingTables t, final int maxGroups, final Consumer<LoadBalanceGroup> action) {
        for (int id = 0; id < maxGroups; id++) {
            final LoadBalanceGroup g = t.group(id);
            if (g != null) {
                action.accept(g);
            }
        }
    }
}
