package io.asicemu.pipeline.dataplane;

/**
 * A change to data-path state, validated and compiled on the control side so that applying it cannot fail. The
 * data-plane agent applies commands between packet batches, each whole, in submission order.
 */
@FunctionalInterface
public interface DataPlaneCommand {
    /**
     * Applies the change; called on the data-plane thread.
     *
     * @param agent the agent whose state changes.
     */
    void apply(DataPlaneAgent agent);
}
