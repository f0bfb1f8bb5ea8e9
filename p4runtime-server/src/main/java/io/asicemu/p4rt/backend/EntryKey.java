package io.asicemu.p4rt.backend;

import java.util.List;

/**
 * The identity of a table entry: table, the present key fields sorted by field id (don't-care fields are omitted)
 * and the priority (0 for tables without ternary/range/optional fields). Immutable, value equality.
 */
public record EntryKey(int tableId, List<FieldMatchValue> matches, int priority) {
    public EntryKey {
        matches = List.copyOf(matches);
    }
}
