package io.asicemu.p4rt.info;

import java.util.List;
import java.util.Map;

/**
 * A match-action table of the fixed pipeline. {@code size} is the real capacity of the emulated chip.
 * Immutable.
 *
 * @param constDefaultActionId 0 unless the default action cannot be changed.
 * @param implementationId     the action profile/selector id, or 0 for a direct table.
 * @param directCounterId      0 when the table has no direct counter.
 * @param directMeterId        0 when the table has no direct meter.
 */
public record TableInfo(
        int id,
        String name,
        String alias,
        List<MatchFieldInfo> fields,
        Map<Integer, ActionScope> actionRefs,
        int constDefaultActionId,
        int implementationId,
        int directCounterId,
        int directMeterId,
        long size,
        boolean idleTimeout,
        boolean isConst,
        boolean oneShotOnly) {
    public TableInfo {
        fields = List.copyOf(fields);
        actionRefs = Map.copyOf(actionRefs);
    }

    /** @return the field with this id, or null. */
    public MatchFieldInfo field(final int fieldId) {
        for (final MatchFieldInfo f : fields) {
            if (f.id() == fieldId) {
                return f;
            }
        }
        return null;
    }

    /** @return true when entries of this table carry a priority. */
    public boolean needsPriority() {
        for (final MatchFieldInfo f : fields) {
            if (f.kind().needsPriority()) {
                return true;
            }
        }
        return false;
    }
}
