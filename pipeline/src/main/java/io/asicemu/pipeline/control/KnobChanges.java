package io.asicemu.pipeline.control;

import io.asicemu.pipeline.dataplane.DataPlaneAgent;
import io.asicemu.pipeline.table.QosMaps;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The TM/ARS knob and QoS map changes of one batch ({@link RuntimeKnob}s): each validated against the committed
 * {@link RuntimeKnobs} plus this batch's earlier changes (so a batch raising both ECN thresholds sets the max first)
 * and kept here; {@link #commit()} records them in the model and returns the data-plane edits that make them real.
 * <p>
 * Not thread safe: one control thread builds a batch.
 */
public final class KnobChanges {
    private final Staging s;
    private final RuntimeKnobs knobs;
    private final L3Changes l3;
    private final Map<Long, Long> staged = new LinkedHashMap<>();
    /** The configuration's QoS maps a reconfigure installs, or null. */
    private QosMaps configQos;

    KnobChanges(final Staging staging, final RuntimeKnobs knobs, final L3Changes l3) {
        this.s = staging;
        this.knobs = knobs;
        this.l3 = l3;
    }

    void setKnob(final RuntimeKnob knob, final int index, final long value) {
        knobs.check(knob, index, value, staged, l3::groupDefined, s.updates());
        staged.put(RuntimeKnobs.key(knob, index), value);
        s.counted();
    }

    /**
     * Installs a configuration's QoS maps (DSCP/dot1p → TC, TC → queue of every port, compiled by a reconfigure);
     * the switch-wide entries controllers wrote stay on top of them.
     */
    public void configQos(final QosMaps maps) {
        configQos = maps;
        s.counted();
    }

    /** The value a knob has after this batch's changes so far. */
    long value(final RuntimeKnob knob, final int index) {
        final Long v = staged.get(RuntimeKnobs.key(knob, index));
        return v != null ? v : knobs.value(knob, index);
    }

    /** Records the changes in the model; the removed groups forget their written selection mode first. */
    List<Consumer<DataPlaneAgent>> commit() {
        knobs.groupsRemoved(l3.removedGroups());
        return knobs.commit(staged, configQos);
    }
}
