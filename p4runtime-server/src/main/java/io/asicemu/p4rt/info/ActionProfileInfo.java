package io.asicemu.p4rt.info;

import java.util.List;

/**
 * An action profile or selector. With {@code sumOfWeights}, {@code size} bounds the weights of all groups and
 * {@code maxGroupSize} the weights of one group; otherwise they count members and {@code maxMemberWeight} bounds
 * each weight. Immutable.
 */
public record ActionProfileInfo(
        int id,
        String name,
        List<Integer> tableIds,
        boolean withSelector,
        long size,
        int maxGroupSize,
        boolean sumOfWeights,
        int maxMemberWeight) {
    public ActionProfileInfo {
        tableIds = List.copyOf(tableIds);
    }
}
