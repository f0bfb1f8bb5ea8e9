package io.asicemu.pipeline.control;

import io.asicemu.pipeline.table.IpPrefix;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import org.agrona.collections.Hashing;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.Object2IntHashMap;
import org.agrona.collections.ObjectHashSet;

/**
 * The routes of one batch (VRF 0): what each prefix forwards to, the slot it holds, and which writer's route is in
 * force where several wrote one. Writers and their precedence, per prefix:
 * <ol>
 *   <li>a controller (P4Runtime): its entry is never replaced by another writer;
 *   <li>the routing protocol (the routing stack's choice, as SONiC's route table receives it over FPM): in force
 *       unless a controller wrote the prefix, where it waits, hidden ({@link #protocolShadowed}), until the controller
 *       deletes its entry;
 *   <li>the configuration (connected, local and STATIC_ROUTE): in force where neither wrote the prefix; a protocol
 *       route hides it and its withdrawal restores it (the configuration's later edits of the prefix are kept for
 *       then). A controller may take a configuration's route over (rewrite or delete it); config_db never replaces a
 *       controller's.
 * </ol>
 * Each update is checked against the committed {@link L3State} plus this batch's earlier updates; {@link #commit()}
 * records them there.
 * <p>
 * Not thread safe: one control thread builds a batch.
 */
final class RouteChanges {
    private static final int NO_ROUTE = L3State.NO_ROUTE;
    /** Larger batches are presized for this many routes and grow from there (no huge arrays up front). */
    private static final int MAX_PRESIZE = 1 << 16;

    private final Staging s;
    private final L3State state;
    // The per-route structures are Agrona's open-addressing maps and sets: a batch of routes stages each one in
    // several of them, and boxed values or a node per entry were most of a large batch's control-side cost.
    // They start small and are replaced, while still empty, by ones sized for the batch's updates (the writer's
    // hint) when the first route is staged there: a batch of 1000 routes then never rehashes, and a batch that
    // inserts does not pay for the delete side's structures (nor the reverse).
    private Object2IntHashMap<IpPrefix> stagedRoutes =
            new Object2IntHashMap<>(8, Hashing.DEFAULT_LOAD_FACTOR, NO_ROUTE);
    private ObjectHashSet<IpPrefix> removedRoutes = new ObjectHashSet<>(8);
    /** Slots are 1..capacity: 0 is "none" here as in {@link io.asicemu.pipeline.table.RouteSlots#slot}. */
    private Object2IntHashMap<IpPrefix> stagedSlots = new Object2IntHashMap<>(8, Hashing.DEFAULT_LOAD_FACTOR, 0);

    private ObjectHashSet<IpPrefix> releasedSlots = new ObjectHashSet<>(8);
    /** Slots freed earlier in this batch, a stack (last freed on top). */
    private final IntArrayList batchFreeSlots = new IntArrayList();
    /** The batch's expected updates (0: no hint, the small defaults). */
    private final int expected;
    /** The capacity that holds them without a rehash. */
    private final int presize;

    private int reservedSlots;
    /** What an IPv4 ([0]) and IPv6 ([1]) LPM miss does (RouteTarget values; 0 = drop). */
    final int[] defaultRoutes;

    private final BitSet stagedLengths4 = new BitSet(33);
    private final BitSet stagedLengths6 = new BitSet(129);
    /** The configuration's routes this batch writes (their targets) and gives up. */
    private final Object2IntHashMap<IpPrefix> stagedConfigRoutes =
            new Object2IntHashMap<>(8, Hashing.DEFAULT_LOAD_FACTOR, NO_ROUTE);

    private ObjectHashSet<IpPrefix> removedConfigRoutes = new ObjectHashSet<>(8);
    /** The protocol's routes this batch writes (their targets) and withdraws. */
    private final Object2IntHashMap<IpPrefix> stagedProtocolRoutes =
            new Object2IntHashMap<>(8, Hashing.DEFAULT_LOAD_FACTOR, NO_ROUTE);

    private final ObjectHashSet<IpPrefix> withdrawnProtocolRoutes = new ObjectHashSet<>(8);
    /** Protocol routes this batch hides behind a controller's ({@code true}) or shows again ({@code false}). */
    private final Map<IpPrefix, Boolean> shadowChanges = new HashMap<>();

    RouteChanges(final Staging staging, final L3State state, final int expectedUpdates) {
        this.s = staging;
        this.state = state;
        this.expected = expectedUpdates > 8 ? Math.min(expectedUpdates, MAX_PRESIZE) : 0;
        this.presize = expected == 0 ? 0 : (int) (expected / Hashing.DEFAULT_LOAD_FACTOR) + 1;
        this.defaultRoutes = state.defaultRoutes.clone();
    }

    // ---- who wrote the route of a prefix (after this batch's updates so far) ----

    /** @return the route in force for this prefix, {@link L3State#NO_ROUTE} if there is none. */
    int route(final IpPrefix p) {
        if (removedRoutes.contains(p)) {
            return NO_ROUTE;
        }
        final int staged = stagedRoutes.getValue(p);
        return staged != NO_ROUTE ? staged : state.routes.getValue(p);
    }

    /** @return the configuration's route for this prefix, in force or hidden by a protocol route, or NO_ROUTE. */
    int configTarget(final IpPrefix p) {
        if (removedConfigRoutes.contains(p)) {
            return NO_ROUTE;
        }
        final int staged = stagedConfigRoutes.getValue(p);
        if (staged != NO_ROUTE) {
            return staged;
        }
        final Integer committed = state.configRouteView.get(p);
        return committed == null || state.takenOverRoutes.contains(p) ? NO_ROUTE : committed;
    }

    /** @return whether the route in force for this prefix is the configuration's. */
    boolean isConfigRoute(final IpPrefix p) {
        return configTarget(p) != NO_ROUTE && protocolTarget(p) == NO_ROUTE;
    }

    /** @return the protocol's route for this prefix, in force or hidden by a controller's, or NO_ROUTE. */
    int protocolTarget(final IpPrefix p) {
        if (withdrawnProtocolRoutes.contains(p)) {
            return NO_ROUTE;
        }
        final int staged = stagedProtocolRoutes.getValue(p);
        return staged != NO_ROUTE ? staged : state.protocolRoutes.getValue(p);
    }

    /** @return whether a controller's route hides the protocol's route for this prefix. */
    boolean protocolShadowed(final IpPrefix p) {
        final Boolean staged = shadowChanges.get(p);
        return staged != null ? staged : state.shadowedProtocolRoutes.contains(p);
    }

    /** @return whether the route in force for this prefix is the protocol's. */
    boolean isProtocolRoute(final IpPrefix p) {
        return protocolTarget(p) != NO_ROUTE && !protocolShadowed(p);
    }

    /** @return whether the route in force for this prefix is a controller's. */
    boolean isControllerRoute(final IpPrefix p) {
        return route(p) != NO_ROUTE && !isConfigRoute(p) && !isProtocolRoute(p);
    }

    /** Every route in force after this batch's updates so far (a copy: for the rare checks that need them all). */
    Map<IpPrefix, Integer> currentRoutes() {
        final Map<IpPrefix, Integer> all = new HashMap<>(state.routes);
        all.keySet().removeAll(removedRoutes);
        all.putAll(stagedRoutes);
        return all;
    }

    // ---- the writers ----

    /** A controller's route (checked by the caller): it hides a protocol route in force at the prefix. */
    void controllerRoute(final IpPrefix prefix, final int value) {
        if (isProtocolRoute(prefix)) {
            shadowChanges.put(prefix, true);
        }
        stageRoute(prefix, value);
    }

    /**
     * Deletes a controller's route (checked by the caller): the protocol's route it hid is in force again; a
     * configuration's route it took over is gone (as before a protocol spoke).
     */
    void deleteControllerRoute(final IpPrefix prefix) {
        final int protocol = protocolTarget(prefix);
        if (protocol != NO_ROUTE) {
            shadowChanges.put(prefix, false);
            stageRoute(prefix, protocol);
        } else {
            removeRoute(prefix);
        }
    }

    /** The configuration's route (checked by the caller); recorded only while a protocol route hides it. */
    void configRoute(final IpPrefix prefix, final int value) {
        removedConfigRoutes.remove(prefix);
        stagedConfigRoutes.put(prefix, value);
        if (protocolTarget(prefix) == NO_ROUTE) {
            stageRoute(prefix, value);
        }
    }

    /** Deletes the configuration's route in force (checked by the caller). */
    void deleteConfigRoute(final IpPrefix prefix) {
        removeRoute(prefix);
    }

    /** The protocol's route for a prefix: in force unless a controller's entry is. */
    void protocolRoute(final IpPrefix prefix, final int value) {
        final boolean controller = isControllerRoute(prefix);
        withdrawnProtocolRoutes.remove(prefix);
        stagedProtocolRoutes.put(prefix, value);
        if (controller) {
            shadowChanges.put(prefix, true);
        } else {
            shadowChanges.put(prefix, false);
            stageRoute(prefix, value);
        }
    }

    /**
     * Withdraws the protocol's route (the caller checked there is one): the configuration's route for the prefix is in
     * force again, if it has one, else the prefix has no route. Hidden behind a controller's entry, the route just
     * goes (the controller's stays, and a configuration's route under it is the controller's to take over).
     */
    void withdrawProtocolRoute(final IpPrefix prefix) {
        final boolean shadowed = protocolShadowed(prefix);
        stagedProtocolRoutes.removeKey(prefix);
        withdrawnProtocolRoutes.add(prefix);
        shadowChanges.put(prefix, false);
        final int config = configTarget(prefix);
        if (shadowed) {
            if (config != NO_ROUTE) {
                stagedConfigRoutes.removeKey(prefix);
                removedConfigRoutes.add(prefix);
            }
        } else if (config != NO_ROUTE) {
            stageRoute(prefix, config);
        } else {
            removeRoute(prefix);
        }
    }

    // ---- slots and data-plane edits ----

    /** @return the route's slot after this batch's updates so far, 0 if it has none. */
    private int slotOf(final IpPrefix p) {
        final int staged = stagedSlots.getValue(p);
        if (staged != 0) {
            return staged;
        }
        return releasedSlots.contains(p) ? 0 : state.routeSlots().slot(p);
    }

    /**
     * Whether a per-route structure should be replaced by one of the batch's size: only while it is empty (nothing
     * to carry over) and smaller than that, so each is replaced at most once per batch.
     */
    private boolean small(final boolean empty, final int capacity) {
        return empty && capacity < presize;
    }

    /** Gives a route a slot (its own if it has one, else the next free one) and stages the data-plane edit. */
    private void stageRoute(final IpPrefix prefix, final int value) {
        int slot = slotOf(prefix);
        if (slot == 0) {
            // Slots freed earlier in this batch first (so delete-then-insert fits a full table), then new ones.
            if (!batchFreeSlots.isEmpty()) {
                slot = batchFreeSlots.popInt();
            } else {
                slot = state.routeSlots().peekFree(reservedSlots);
                if (slot == 0) {
                    throw s.fail(
                            TableException.Code.RESOURCE_EXHAUSTED,
                            "route table full (" + state.routeSlots().capacity() + " routes)");
                }
                reservedSlots++;
            }
            if (small(stagedSlots.isEmpty(), stagedSlots.capacity())) {
                stagedSlots = new Object2IntHashMap<>(presize, Hashing.DEFAULT_LOAD_FACTOR, 0);
            }
            stagedSlots.put(prefix, slot);
        }
        removedRoutes.remove(prefix);
        if (small(stagedRoutes.isEmpty(), stagedRoutes.capacity())) {
            stagedRoutes = new Object2IntHashMap<>(presize, Hashing.DEFAULT_LOAD_FACTOR, NO_ROUTE);
        }
        stagedRoutes.put(prefix, value);
        (prefix.v6() ? stagedLengths6 : stagedLengths4).set(prefix.length());
        final int routeSlot = slot;
        s.edit(t -> t.route(prefix.v6(), prefix.high(), prefix.low(), prefix.length(), routeSlot, value));
    }

    /** @return whether a route of this length may exist (in the model or staged by this batch). */
    private boolean lengthInUse(final boolean v6, final int length) {
        return state.routeLengthCount(v6, length) > 0 || (v6 ? stagedLengths6 : stagedLengths4).get(length);
    }

    /**
     * Removes the route in force (the caller checked there is one) and frees its slot; a configuration's route there
     * is given up (taken over).
     */
    private void removeRoute(final IpPrefix prefix) {
        final int slot = slotOf(prefix);
        if (stagedSlots.removeKey(prefix) == 0) {
            if (small(releasedSlots.isEmpty(), releasedSlots.capacity())) {
                releasedSlots = new ObjectHashSet<>(presize);
            }
            releasedSlots.add(prefix);
        }
        if (expected != 0) {
            batchFreeSlots.ensureCapacity(expected); // no-op once it is that large
        }
        batchFreeSlots.pushInt(slot);
        stagedRoutes.removeKey(prefix);
        if (small(removedRoutes.isEmpty(), removedRoutes.capacity())) {
            removedRoutes = new ObjectHashSet<>(presize);
        }
        removedRoutes.add(prefix);
        stagedConfigRoutes.removeKey(prefix);
        if (small(removedConfigRoutes.isEmpty(), removedConfigRoutes.capacity())) {
            removedConfigRoutes = new ObjectHashSet<>(presize);
        }
        removedConfigRoutes.add(prefix);
        int coverLength = -1;
        int coverSlot = 0;
        for (int l = prefix.length() - 1; l >= 0; l--) {
            if (!lengthInUse(prefix.v6(), l)) {
                continue;
            }
            final IpPrefix cover = prefix.truncate(l);
            if (route(cover) != NO_ROUTE) {
                coverLength = l;
                coverSlot = slotOf(cover);
                break;
            }
        }
        final int length = coverLength;
        final int cover = coverSlot;
        s.update(t -> t.deleteRoute(prefix.v6(), prefix.high(), prefix.low(), prefix.length(), slot, length, cover));
    }

    /** Records the staged routes in the committed state. */
    void commit() {
        for (final IpPrefix p : removedRoutes) {
            if (state.routes.removeKey(p) != NO_ROUTE) {
                state.countRoute(p, -1);
            }
        }
        stagedRoutes.forEachInt((p, target) -> {
            if (state.routes.put(p, target) == NO_ROUTE) {
                state.countRoute(p, 1);
            }
        });
        state.routeSlots().commit(reservedSlots, stagedSlots, releasedSlots, batchFreeSlots);
        System.arraycopy(defaultRoutes, 0, state.defaultRoutes, 0, 2);
        for (final IpPrefix p : removedConfigRoutes) {
            if (state.configRouteView.containsKey(p)) {
                state.takenOverRoutes.add(p);
            }
        }
        stagedConfigRoutes.forEachInt((p, target) -> state.takenOverRoutes.remove(p));
        for (final IpPrefix p : withdrawnProtocolRoutes) {
            state.protocolRoutes.removeKey(p);
        }
        stagedProtocolRoutes.forEachInt(state.protocolRoutes::put);
        shadowChanges.forEach((p, shadowed) -> {
            if (shadowed) {
                state.shadowedProtocolRoutes.add(p);
            } else {
                state.shadowedProtocolRoutes.remove(p);
            }
        });
        if (!removedRoutes.isEmpty()) {
            state.routes.compactIfSparse(); // a withdrawn full table gives its memory back
        }
        if (!withdrawnProtocolRoutes.isEmpty()) {
            state.protocolRoutes.compactIfSparse();
        }
    }
}
