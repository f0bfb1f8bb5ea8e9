package io.asicemu.pipeline.control;

import java.util.HashMap;
import java.util.Map;

/**
 * The routing protocol's next hops and groups as the control model keeps them: the protocol names a route's next hops
 * by address and interface, never by id, so each distinct next hop (and each distinct weighted member set) is one
 * pipeline object, shared by every route that uses it and removed with the last one. Identities: a next hop is
 * {@code address@rif}, a group its members' ids with their weights in order.
 * <p>
 * A batch changes a copy ({@link #copy()}) and the committed state takes it whole, so a refused batch leaves the
 * committed objects as they were. Not thread safe: the control thread only.
 */
final class ProtocolObjects {
    /** No protocol objects; never changed (batches change copies). */
    static final ProtocolObjects EMPTY = new ProtocolObjects();

    final Map<String, Integer> nextHopIds = new HashMap<>();
    final Map<Integer, String> nextHopKeys = new HashMap<>();
    /** Next hop id → routes and groups using it. */
    final Map<Integer, Integer> nextHopRefs = new HashMap<>();

    final Map<String, Integer> groupIds = new HashMap<>();
    final Map<Integer, String> groupKeys = new HashMap<>();
    /** Group id → its members (the group holds one reference on each). */
    final Map<Integer, int[]> groupMembers = new HashMap<>();
    /** Group id → routes using it. */
    final Map<Integer, Integer> groupRefs = new HashMap<>();

    ProtocolObjects copy() {
        final ProtocolObjects c = new ProtocolObjects();
        c.nextHopIds.putAll(nextHopIds);
        c.nextHopKeys.putAll(nextHopKeys);
        c.nextHopRefs.putAll(nextHopRefs);
        c.groupIds.putAll(groupIds);
        c.groupKeys.putAll(groupKeys);
        c.groupMembers.putAll(groupMembers);
        c.groupRefs.putAll(groupRefs);
        return c;
    }

    /** @return how many next hops the protocol's routes use. */
    int nextHopCount() {
        return nextHopIds.size();
    }

    /** @return how many groups the protocol's routes use. */
    int groupCount() {
        return groupIds.size();
    }
}
