package io.asicemu.switchd.routing;

import io.asicemu.pipeline.control.ControlAgent;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.control.ProtocolNextHop;
import io.asicemu.pipeline.control.TableBatch;
import io.asicemu.pipeline.control.TableException;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.routing.AddressFamily;
import io.asicemu.routing.ApplDbRoutes;
import io.asicemu.routing.NextHop;
import io.asicemu.routing.Route;
import io.asicemu.routing.RoutePrefix;
import io.asicemu.routing.RouteSink;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routing stack's routes into the control model: the FPM listener's sink, writing each route zebra selected as the
 * protocol writer's ({@link TableBatch#protocolRoute}), as SONiC's fpmsyncd writes APPL_DB's ROUTE_TABLE for
 * orchagent. Routes arrive one at a time on the listener's I/O thread and are queued; the control agent takes every
 * queued change in one batch (so 100k routes from a peer cost a few hundred batches, not 100k), and the listener's
 * thread only waits when {@value #MAX_PENDING} changes are queued (TCP then pushes back on zebra).
 * <p>
 * Nothing is lost silently: a batch the model refuses is retried change by change, and each change it still refuses
 * (the route table or the next-hop table full, a next hop on an interface that is not a router interface) is counted
 * by reason and logged once per reason; the switch keeps forwarding what it holds. A withdrawal of a route the model
 * refused earlier is counted as such, not an error. Routes through the switch's loopback or management interface (its
 * own addresses, which zebra sends as connected routes) are not forwarded, as orchagent skips them. Thread safe.
 */
public final class ProtocolRouteWriter implements RouteSink {
    /** Changes queued at most before the listener's thread waits for the control agent. */
    static final int MAX_PENDING = 65_536;

    private static final Logger LOG = LoggerFactory.getLogger(ProtocolRouteWriter.class);

    private final ControlAgent control;
    private final ArrayDeque<Change> pending = new ArrayDeque<>();
    private boolean drainQueued;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong withdrawn = new AtomicLong();
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong withdrawnUnrouted = new AtomicLong();
    private final AtomicLong skippedOwn = new AtomicLong();
    private final Map<TableException.Code, AtomicLong> refused = new EnumMap<>(TableException.Code.class);
    private final Map<TableException.Code, Boolean> logged = new EnumMap<>(TableException.Code.class);

    /** @param control the switch's control agent. */
    public ProtocolRouteWriter(final ControlAgent control) {
        this.control = control;
        for (final TableException.Code code : TableException.Code.values()) {
            refused.put(code, new AtomicLong());
        }
    }

    /** A queued change: the route for a prefix, or its withdrawal ({@code nextHops} null). */
    private record Change(IpPrefix prefix, List<ProtocolNextHop> nextHops) {
        void stage(final TableBatch batch) {
            if (nextHops == null) {
                batch.withdrawProtocolRoute(prefix);
            } else {
                batch.protocolRoute(prefix, nextHops);
            }
        }
    }

    /**
     * Writes the route; one through a management interface (eth0) is kept out of the data path as fpmsyncd keeps it
     * out of the ASIC (the prefix's earlier route, if any, is withdrawn).
     */
    @Override
    public void replace(final Route route) {
        if (ApplDbRoutes.isManagementRoute(route) || toSwitchItself(route)) {
            // As SONiC's orchagent (routeorch: "skip route to management, docker, loopback"): the switch's own
            // addresses are the configuration's local routes; a prefix that moved onto them leaves the route table.
            skippedOwn.incrementAndGet();
            enqueue(new Change(prefix(route.prefix()), null));
            return;
        }
        enqueue(new Change(prefix(route.prefix()), nextHops(route)));
    }

    /** A route through the switch's loopback ({@code lo}, {@code Loopback<n>}) or management interface. */
    static boolean toSwitchItself(final Route route) {
        for (final NextHop h : route.nextHops()) {
            final String name = h.interfaceName();
            if (name.equals("lo") || name.startsWith("Loopback") || name.equals("eth0") || name.equals("docker0")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void withdraw(final RoutePrefix routePrefix) {
        enqueue(new Change(prefix(routePrefix), null));
    }

    /** Waits until every queued change has been handed to the control model (tests, measurements). */
    public void awaitWritten() {
        synchronized (this) {
            while (!pending.isEmpty() || drainQueued) {
                waitQuietly();
            }
        }
        control.run(c -> {}); // runs after the drain that took the last changes
    }

    /** @return routes written so far (replacements included). */
    public long written() {
        return written.get();
    }

    /** @return routes withdrawn so far. */
    public long withdrawn() {
        return withdrawn.get();
    }

    /** @return batches committed so far. */
    public long batches() {
        return batches.get();
    }

    /** @return withdrawals of routes the model held none for (it had refused them): not errors. */
    public long withdrawnUnrouted() {
        return withdrawnUnrouted.get();
    }

    /** @return routes through the switch's loopback or management interface, not forwarded (its own addresses). */
    public long skippedOwn() {
        return skippedOwn.get();
    }

    /** @return changes the control model refused, by its reason. */
    public Map<TableException.Code, Long> refused() {
        final Map<TableException.Code, Long> out = new EnumMap<>(TableException.Code.class);
        refused.forEach((code, count) -> {
            if (count.get() > 0) {
                out.put(code, count.get());
            }
        });
        return out;
    }

    private synchronized void enqueue(final Change change) {
        while (pending.size() >= MAX_PENDING) {
            waitQuietly();
        }
        pending.add(change);
        if (!drainQueued) {
            drainQueued = true;
            control.submit(this::drain);
        }
    }

    /** On the control thread: every queued change in one batch; a refused batch change by change. */
    private Void drain(final PipelineControl model) {
        final List<Change> changes;
        synchronized (this) {
            changes = new ArrayList<>(pending);
            pending.clear();
            drainQueued = false;
            notifyAll();
        }
        if (changes.isEmpty()) {
            return null;
        }
        try {
            final TableBatch batch = model.batch(changes.size());
            for (final Change change : changes) {
                change.stage(batch);
            }
            batch.commit();
            batches.incrementAndGet();
            for (final Change change : changes) {
                (change.nextHops() == null ? withdrawn : written).incrementAndGet();
            }
        } catch (final TableException whole) {
            // Nothing of the batch was committed: take the changes one at a time, so one refusal costs one route.
            for (final Change change : changes) {
                try {
                    final TableBatch single = model.batch();
                    change.stage(single);
                    single.commit();
                    batches.incrementAndGet();
                    (change.nextHops() == null ? withdrawn : written).incrementAndGet();
                } catch (final TableException e) {
                    if (change.nextHops() == null && e.code() == TableException.Code.NOT_FOUND) {
                        withdrawnUnrouted.incrementAndGet(); // a route it refused before: nothing to take back
                    } else {
                        refuse(e);
                    }
                }
            }
        }
        return null;
    }

    private void refuse(final TableException e) {
        refused.get(e.code()).incrementAndGet();
        if (logged.putIfAbsent(e.code(), true) == null) {
            LOG.warn(
                    "routing: a route the routing stack selected is not forwarded ({}); further ones counted, not"
                            + " logged",
                    e.getMessage());
        }
    }

    private void waitQuietly() {
        try {
            wait();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the control agent was busy", e);
        }
    }

    /** The pipeline's prefix for an FPM prefix. */
    static IpPrefix prefix(final RoutePrefix p) {
        final byte[] a = p.address();
        if (p.family() == AddressFamily.IPV4) {
            return new IpPrefix(false, 0, ByteBuffer.wrap(a).getInt() & 0xffff_ffffL, p.length());
        }
        final ByteBuffer b = ByteBuffer.wrap(a);
        return new IpPrefix(true, b.getLong(), b.getLong(), p.length());
    }

    /** A route's next hops as the protocol writer takes them: none for a blackhole, unreachable or prohibit route. */
    static List<ProtocolNextHop> nextHops(final Route route) {
        if (route.type() != Route.Type.UNICAST) {
            return List.of();
        }
        final List<ProtocolNextHop> hops = new ArrayList<>(route.nextHops().size());
        for (final NextHop h : route.nextHops()) {
            final IpPrefix gateway =
                    h.gateway() == null ? null : IpPrefix.address(h.gateway().getHostAddress());
            hops.add(new ProtocolNextHop(gateway, h.interfaceName(), Math.max(1, h.weight())));
        }
        return hops;
    }
}
