package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.ForwardingTables;

/**
 * The L2 part of the control model, as committed: the {@link L2Model} (VLANs, members, static FDB, multicast groups)
 * a batch's {@link L2Changes} copies on its first L2 update and hands back when the batch commits, so a refused batch
 * leaves it untouched. A new configuration resets it.
 * <p>
 * Not thread safe: the control thread only.
 */
final class L2State {
    private L2Model model = new L2Model();

    /** Starts again from the VLANs and members a freshly compiled configuration defines. */
    void reset(final ForwardingTables tables, final int maxPorts) {
        model = L2Model.of(tables, maxPorts);
    }

    L2Model model() {
        return model;
    }

    void commit(final L2Model next) {
        model = next;
    }
}
