package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.ForwardingTables;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the parts of one {@link TableBatch} share while they stage: the data-plane edits in update order (run in the
 * batch's one command) and the number of updates so far, which names the update a {@link TableException} refuses.
 * <p>
 * Not thread safe: one control thread builds a batch.
 */
final class Staging {
    private final List<Consumer<ForwardingTables>> edits;
    private int updates;

    /** @param expectedUpdates how many updates the batch will likely stage (sizes the edit list; 0 if unknown). */
    Staging(final int expectedUpdates) {
        edits = expectedUpdates > 10 ? new ArrayList<>(Math.min(expectedUpdates, 1 << 16)) : new ArrayList<>();
    }

    /** Adds a data-plane edit (in order) without counting an update. */
    void edit(final Consumer<ForwardingTables> edit) {
        edits.add(edit);
    }

    /** Counts one accepted update. */
    void counted() {
        updates++;
    }

    /** Adds a data-plane edit and counts it as one accepted update. */
    void update(final Consumer<ForwardingTables> edit) {
        edits.add(edit);
        updates++;
    }

    int updates() {
        return updates;
    }

    TableException fail(final TableException.Code code, final String message) {
        return new TableException(code, updates, message);
    }

    List<Consumer<ForwardingTables>> edits() {
        return List.copyOf(edits);
    }
}
