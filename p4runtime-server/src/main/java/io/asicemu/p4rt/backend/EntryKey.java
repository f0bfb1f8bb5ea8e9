package io.asicemu.p4rt.backend;

import java.util.List;

/**
 * The identity of a table entry: table, the present key fields sorted by field id (don't-care fields are omitted)
 * and the priority (0 for tables without ternary/range/optional fields). Immutable, value equality.
 * <p>
 * A class rather than a record only to keep its hash code: a Write looks one key up in several maps (the entries as
 * written, direct counters and meters, idle timers, the ACL views), and a record would hash every field's
 * BigIntegers again for each lookup. Accessors, equality and {@link #toString()} are those of the record it was.
 */
public final class EntryKey {
    private final int tableId;
    private final List<FieldMatchValue> matches;
    private final int priority;
    private final int hash;

    /**
     * @param tableId  the table's P4 id.
     * @param matches  the present key fields, sorted by field id (copied).
     * @param priority the priority, 0 for tables without ternary/range/optional fields.
     */
    public EntryKey(final int tableId, final List<FieldMatchValue> matches, final int priority) {
        this.tableId = tableId;
        this.matches = List.copyOf(matches);
        this.priority = priority;
        this.hash = (31 * tableId + this.matches.hashCode()) * 31 + priority;
    }

    public int tableId() {
        return tableId;
    }

    public List<FieldMatchValue> matches() {
        return matches;
    }

    public int priority() {
        return priority;
    }

    @Override
    public boolean equals(final Object o) {
        return this == o
                || o instanceof EntryKey k
                        && k.hash == hash
                        && k.tableId == tableId
                        && k.priority == priority
                        && sameMatches(k.matches, matches);
    }

    /** {@code a.equals(b)} for two of these immutable lists, by index: the lists' own equals takes an iterator. */
    private static boolean sameMatches(final List<FieldMatchValue> a, final List<FieldMatchValue> b) {
        final int n = a.size();
        if (n != b.size()) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (!a.get(i).equals(b.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "EntryKey[tableId=" + tableId + ", matches=" + matches + ", priority=" + priority + "]";
    }
}
