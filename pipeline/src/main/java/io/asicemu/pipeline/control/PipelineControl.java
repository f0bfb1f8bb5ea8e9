package io.asicemu.pipeline.control;

import io.asicemu.pipeline.counter.CountersSnapshot;
import io.asicemu.pipeline.cpu.CpuPort;
import io.asicemu.pipeline.dataplane.DataPlaneAgent;
import io.asicemu.pipeline.dataplane.DataPlaneCommand;
import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.stage.PacketBuffer;
import io.asicemu.pipeline.table.AclRule;
import io.asicemu.pipeline.table.AclTable;
import io.asicemu.pipeline.table.FdbTable;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.PipelineSizing;
import io.asicemu.pipeline.table.RouteSlots;
import io.asicemu.pipeline.time.Clock;
import io.asicemu.tm.TmOptions;
import io.asicemu.tm.TrafficManager;
import io.asicemu.tm.counter.TmCountersSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * The one control API of the pipeline, shared by the config side, the CLI and P4Runtime: install a validated
 * configuration ({@link #install}: what {@code pipeline.config} compiled CONFIG_DB into, handed to the data plane as one
 * command), attach ports, edit tables in atomic batches ({@link #batch()}: P4Runtime writes and the config side's
 * running-config changes alike), read counters ({@link #counters()}), reach the CPU port. Every change becomes a command the
 * data-plane agent applies between packet batches; {@link #awaitApplied} waits for it when the agent runs on its own
 * thread (when a test or the replay steps the agent, the next {@code doWork()} applies it).
 * <p>
 * Threading: one control thread at a time (callers serialize, e.g. P4Runtime's write path); counters and the CPU
 * port may be read from any thread. Never blocks the data plane.
 */
public final class PipelineControl {
    private final DataPlaneAgent agent;
    private final Clock clock;
    private final PipelineSizing sizing;
    private final Map<String, String> linuxOverrides;
    private final Map<String, Port> attached = new LinkedHashMap<>();
    /** The parts of the control model, each the owner of its state (staged by a {@link TableBatch}'s parts). */
    private final L3State l3;

    private final L2State l2 = new L2State();
    private final AclState acl = new AclState();
    /** What the last {@link #install} installed (null before any). */
    private volatile SwitchSetup setup;

    private volatile RouteSlots routeSlots;
    private long submitted;
    private RuntimeKnobs knobs;
    /** The config side that installs configurations here: told of knob commits, asked to reinstall. */
    private ConfigSource configSource;

    /**
     * @param agent the data-plane agent.
     * @param clock the clock (the traffic manager starts at its time).
     * @param sizing table sizes.
     * @param linuxOverrides SONiC → Linux port names overriding the sonic-vs default.
     */
    public PipelineControl(
            final DataPlaneAgent agent,
            final Clock clock,
            final PipelineSizing sizing,
            final Map<String, String> linuxOverrides) {
        this.agent = agent;
        this.clock = clock;
        this.sizing = sizing;
        this.linuxOverrides = Map.copyOf(linuxOverrides);
        this.l3 = new L3State(sizing);
    }

    /**
     * The side that installs configurations here ({@code pipeline.config}'s {@code SwitchConfig}): the control model
     * names nothing of the config side, which compiles CONFIG_DB into {@link SwitchSetup}s and staged batch changes.
     */
    public interface ConfigSource {
        /** A batch committed knob changes (the running config the source renders changed). Control thread. */
        void knobsCommitted();

        /** Installs the configuration in force again, dropping every controller write (P4Runtime's reset). */
        void reinstall();
    }

    /**
     * Registers the config side (one per control; a second replaces the first).
     *
     * @param source the config side.
     */
    public void configSource(final ConfigSource source) {
        this.configSource = source;
    }

    /** @return the registered config side, or null. */
    public ConfigSource configSource() {
        return configSource;
    }

    /**
     * Installs the configuration in force again through its config side, dropping every controller write (a P4Runtime
     * pipeline reset); nothing happens before any configuration.
     */
    public void reinstallConfig() {
        if (setup != null && configSource != null) {
            configSource.reinstall();
        }
    }

    /**
     * Installs a whole validated configuration as one data-plane command: new tables, traffic manager and packet
     * buffer; the control model's parts start again from it (controller writes are gone). The traffic-manager
     * settings come with it (not a separate setter that must come first).
     *
     * @param next what the configuration installs.
     * @param tmOptions the traffic manager's model settings (cell size, WRED and PFC options).
     */
    public void install(final SwitchSetup next, final TmOptions tmOptions) {
        final TrafficManager tm =
                new TrafficManager(next.tmConfig(), tmOptions, agent::onPfcFrame, agent::onTmDrop, clock.nowNs());
        // The frames' memory follows the configured buffer: the TM's device buffer in its cells, plus one frame.
        final PacketBuffer store = new PacketBuffer(
                PacketBuffer.cellsFor(tm.bufferBytes(), tm.cellBytes(), sizing.maxFrameBytes()),
                tm.cellBytes(),
                sizing.maxFrameBytes());
        final ForwardingTables tables = next.tables();
        final Port[] ports = new Port[sizing.maxPorts()];
        attached.forEach((name, port) -> {
            final Integer index = next.portIndex().get(name);
            if (index != null) {
                ports[index] = port;
            }
        });
        // The L3 model reads the compiled tables (next hops, static neighbors) before the data plane owns them.
        l3.reset(next);
        submit(a -> {
            for (int i = 0; i < ports.length; i++) {
                a.onAttachPort(i, ports[i]);
            }
            a.onInstall(tables, tm, store);
        });
        l2.reset(tables, sizing.maxPorts());
        acl.reset(next.aclNames());
        routeSlots = l3.routeSlots();
        setup = next;
    }

    /**
     * A knob model over a configuration that is not (yet) installed: the values it would give, checked against the
     * committed L3 model (the config side compares it with {@link #runtimeKnobs()} to stage a change).
     *
     * @param next a configuration's setup.
     * @return its knob model.
     */
    public RuntimeKnobs knobsOf(final SwitchSetup next) {
        return new RuntimeKnobs(next, sizing.maxGroups(), sizing.maxPorts(), l3);
    }

    private void knobsCommitted() {
        if (configSource != null) {
            configSource.knobsCommitted();
        }
    }

    /**
     * Attaches a port under its SONiC name (before or after the configuration that defines it).
     *
     * @param sonicName {@code EthernetN}.
     * @param port the port.
     * @return the command's sequence number.
     */
    public long attachPort(final String sonicName, final Port port) {
        attached.put(sonicName, port);
        final SwitchSetup c = setup;
        final Integer index = c == null ? null : c.portIndex().get(sonicName);
        if (index == null) {
            return lastSubmitted();
        }
        return submit(a -> a.onAttachPort(index, port));
    }

    /**
     * The MTU of the port at an index as its link reports it now (any thread).
     *
     * @param index a port index.
     * @return the attached port's {@link Port#mtu()}, or -1 if no port is attached there.
     */
    public int portMtu(final int index) {
        final List<String> names = portNames();
        final Port port =
                index < 0 || index >= names.size() || names.get(index) == null ? null : attached.get(names.get(index));
        return port == null ? -1 : port.mtu();
    }

    /**
     * Detaches a port (link removed); the caller closes it after {@link #awaitApplied}.
     *
     * @param sonicName {@code EthernetN}.
     * @return the command's sequence number.
     */
    public long detachPort(final String sonicName) {
        attached.remove(sonicName);
        final SwitchSetup c = setup;
        final Integer index = c == null ? null : c.portIndex().get(sonicName);
        if (index == null) {
            return lastSubmitted();
        }
        return submit(a -> a.onAttachPort(index, null));
    }

    /**
     * @return a new atomic batch of table updates.
     * @throws TableException FAILED_PRECONDITION before any configuration.
     */
    public TableBatch batch() {
        return batch(0);
    }

    /**
     * @param expectedUpdates how many updates the caller will stage (a P4Runtime Write's size): the batch's
     *     structures are sized for them once instead of growing; 0 if unknown.
     * @return a new atomic batch of table updates.
     * @throws TableException FAILED_PRECONDITION before any configuration.
     */
    public TableBatch batch(final int expectedUpdates) {
        if (setup == null) {
            throw new TableException(TableException.Code.FAILED_PRECONDITION, 0, "no configuration applied");
        }
        return new TableBatch(l3, l2, acl, runtimeKnobs(), this::submit, this::knobsCommitted, expectedUpdates);
    }

    /** @return the sequence number of the last command submitted (0 before any). */
    public synchronized long lastSubmitted() {
        return submitted;
    }

    /**
     * Queues any pre-validated command (any thread).
     *
     * @param command the command.
     * @return its sequence number.
     */
    public synchronized long submit(final DataPlaneCommand command) {
        // Synchronized so that sequence numbers follow queue order when a second thread (the P4Runtime poller's
        // counter and idle-timer reads) submits read-only commands beside the control thread.
        agent.submit(command);
        return ++submitted;
    }

    /**
     * @return how many commands the data plane has applied: command {@code n} of {@link #submit} is applied when this
     *     is at least {@code n} (any thread; for callers that complete many waiting writes from one thread).
     */
    public long appliedCommands() {
        return agent.appliedCommands();
    }

    /**
     * Parks the caller once, until the data plane's next duty cycle that applies commands ends (if it is the one
     * registered waiter and command {@code sequence} is not applied yet), an unpark, or {@code maxNanos}; callers loop
     * on {@link #appliedCommands()}. For a thread that answers many writes (P4Runtime's completer): unlike
     * {@link #awaitApplied} it returns on another thread's unpark too.
     *
     * @param sequence the command awaited.
     * @param maxNanos the longest park.
     */
    public void parkUntilApplied(final long sequence, final long maxNanos) {
        agent.parkUntilApplied(sequence, maxNanos, 50_000);
    }

    /**
     * Waits until the data plane applied the command with this sequence number (agent on its own thread).
     *
     * @param sequence a sequence number from a submit.
     * @param timeout how long to wait.
     * @throws TimeoutException if not applied in time.
     */
    public void awaitApplied(final long sequence, final Duration timeout) throws TimeoutException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (agent.appliedCommands() < sequence) {
            final long leftNs = deadline - System.nanoTime();
            if (leftNs <= 0) {
                throw new TimeoutException("command " + sequence + " not applied within " + timeout);
            }
            // woken by the agent when its cycle applied commands (no polling period in a Write's latency)
            agent.parkUntilApplied(sequence, leftNs, 50_000);
        }
    }

    /** @return what the last {@link #install} installed, or null before any. */
    public SwitchSetup setup() {
        return setup;
    }

    /** @return SONiC port names by index (empty before any configuration). */
    public List<String> portNames() {
        final SwitchSetup c = setup;
        return c == null ? List.of() : c.portNames();
    }

    /**
     * @param sonicName a port name.
     * @return its index, or -1.
     */
    public int portIndex(final String sonicName) {
        final SwitchSetup c = setup;
        final Integer i = c == null ? null : c.portIndex().get(sonicName);
        return i == null ? -1 : i;
    }

    /** @return a copy of every counter (any thread). */
    public CountersSnapshot counters() {
        final SwitchSetup c = setup;
        final String[] names = c == null ? new String[0] : c.portNames().toArray(new String[0]);
        return agent.counters().snapshot(names, acl.ingressNames(), acl.egressNames());
    }

    /**
     * Snapshots the traffic manager's counters (queues, PGs, PFC, pools, watchdog) on the data-plane thread.
     *
     * @return completes at the next duty cycle with the copy (null before any configuration).
     */
    public CompletableFuture<TmCountersSnapshot> trafficManagerCounters() {
        final CompletableFuture<TmCountersSnapshot> result = new CompletableFuture<>();
        submit(a -> {
            final TrafficManager tm = a.trafficManager();
            if (tm == null) {
                result.complete(null);
                return;
            }
            final TmCountersSnapshot snapshot = tm.newSnapshot();
            tm.snapshot(clock.nowNs(), snapshot);
            result.complete(snapshot);
        });
        return result;
    }

    /**
     * Lists the FDB (learned and static) as the data plane has it.
     *
     * @return completes at the next duty cycle.
     */
    public CompletableFuture<List<FdbEntry>> fdbEntries() {
        final CompletableFuture<List<FdbEntry>> result = new CompletableFuture<>();
        final List<String> names = portNames();
        submit(a -> {
            final List<FdbEntry> entries = new ArrayList<>();
            if (a.tables() != null) {
                a.tables()
                        .fdb()
                        .forEach((vlan, mac, port, isStatic) -> entries.add(new FdbEntry(
                                vlan,
                                mac,
                                port == FdbTable.DROP_PORT
                                        ? "drop"
                                        : port >= 0 && port < names.size() ? names.get(port) : "?",
                                isStatic)));
            }
            result.complete(List.copyOf(entries));
        });
        return result;
    }

    /**
     * Reads when each static FDB entry was last matched by a packet (the idle timers of controller-written entries).
     *
     * @return {@code FdbTable.key(vlan, mac)} → last-hit time on the data plane's clock ({@code FdbTable.NEVER_HIT}
     *         if never); completes at the next duty cycle.
     */
    public CompletableFuture<Map<Long, Long>> staticFdbHits() {
        final CompletableFuture<Map<Long, Long>> result = new CompletableFuture<>();
        submit(a -> {
            final Map<Long, Long> hits = new HashMap<>();
            if (a.tables() != null) {
                a.tables().fdb().forEachStaticHit(hits::put);
            }
            result.complete(Map.copyOf(hits));
        });
        return result;
    }

    /**
     * Lists the neighbors (static and learned) as the data plane has them.
     *
     * @return completes at the next duty cycle.
     */
    public CompletableFuture<List<NeighborEntry>> neighborEntries() {
        final CompletableFuture<List<NeighborEntry>> result = new CompletableFuture<>();
        submit(a -> {
            final List<NeighborEntry> entries = new ArrayList<>();
            if (a.tables() != null) {
                a.tables()
                        .neighbors()
                        .forEach((high, low, v6, mac, rif, isStatic) -> entries.add(
                                new NeighborEntry(new IpPrefix(v6, high, low, v6 ? 128 : 32), mac, rif, isStatic)));
            }
            result.complete(List.copyOf(entries));
        });
        return result;
    }

    /**
     * Reads every route's, next hop's and neighbor's hit counters as the data plane has them (each counts the packets
     * forwarded through it; an entry deleted and re-added starts again at zero).
     *
     * @return completes at the next duty cycle.
     */
    public CompletableFuture<TableEntryCounters> tableEntryCounters() {
        final CompletableFuture<TableEntryCounters> result = new CompletableFuture<>();
        final RouteSlots slots = routeSlots;
        if (slots == null) {
            result.complete(new TableEntryCounters(Map.of(), Map.of(), Map.of()));
            return result;
        }
        final Map<Integer, IpPrefix> bySlot = slots.bySlot();
        final List<Integer> hops = new ArrayList<>(new TreeSet<>(l3.nextHops.keySet()));
        submit(a -> {
            final ForwardingTables t = a.tables();
            final Map<IpPrefix, TableEntryCounters.Hits> routeHits = new TreeMap<>(IpPrefix.ORDER);
            final Map<Integer, TableEntryCounters.Hits> hopHits = new TreeMap<>();
            final Map<IpPrefix, TableEntryCounters.Hits> neighborHits = new TreeMap<>(IpPrefix.ORDER);
            if (t != null) {
                bySlot.forEach((slot, prefix) ->
                        routeHits.put(prefix, new TableEntryCounters.Hits(t.routePackets(slot), t.routeBytes(slot))));
                for (final int id : hops) {
                    if (t.nextHopDefined(id)) {
                        hopHits.put(id, new TableEntryCounters.Hits(t.nextHopPackets(id), t.nextHopBytes(id)));
                    }
                }
                t.neighbors()
                        .forEachCounted((high, low, v6, packets, bytes) -> neighborHits.put(
                                new IpPrefix(v6, high, low, v6 ? 128 : 32),
                                new TableEntryCounters.Hits(packets, bytes)));
            }
            result.complete(new TableEntryCounters(
                    Collections.unmodifiableMap(routeHits),
                    Collections.unmodifiableMap(hopHits),
                    Collections.unmodifiableMap(neighborHits)));
        });
        return result;
    }

    /**
     * Replaces the whole ingress ACL (P4Runtime or CLI); rule order by priority, counters restart.
     *
     * @param rules the rules (port indexes in {@link AclRule#inPorts}).
     * @return the command's sequence number.
     * @throws TableException RESOURCE_EXHAUSTED if there are more rules than the ACL holds.
     */
    public long replaceAcl(final List<AclRule> rules) {
        if (rules.size() > sizing.aclRules()) {
            throw new TableException(
                    TableException.Code.RESOURCE_EXHAUSTED, 0, rules.size() + " rules exceed " + sizing.aclRules());
        }
        final AclTable table = new AclTable(rules);
        acl.ingressNames(table.names());
        acl.configIngress(false);
        return submit(a -> {
            if (a.tables() != null) {
                a.tables().acl(table);
            }
        });
    }

    /** @return the CPU port (PacketIn poll, PacketOut). */
    public CpuPort cpuPort() {
        return agent.cpuPort();
    }

    /**
     * The runtime settings (P4Runtime registers, QoS map entries) in force: CONFIG_DB's values until a batch changes
     * them with {@link TableBatch#setKnob} (or the config side's reconfigure stages changes to them); a new
     * {@link #install} starts again from its CONFIG_DB.
     *
     * @return the model (control thread).
     * @throws TableException FAILED_PRECONDITION before any configuration.
     */
    public RuntimeKnobs runtimeKnobs() {
        final SwitchSetup c = setup;
        if (c == null) {
            throw new TableException(TableException.Code.FAILED_PRECONDITION, 0, "no configuration applied");
        }
        if (knobs == null || knobs.setup() != c) {
            knobs = new RuntimeKnobs(c, sizing.maxGroups(), sizing.maxPorts(), l3);
        }
        return knobs;
    }

    /** @return the SONiC → Linux port names overriding the sonic-vs default (the config side compiles with them). */
    public Map<String, String> linuxOverrides() {
        return linuxOverrides;
    }

    /** @return the table sizes. */
    public PipelineSizing sizing() {
        return sizing;
    }

    /** @return the committed routes (L3 state; tests compare them with the slots). */
    Map<IpPrefix, Integer> routes() {
        return l3.routes;
    }

    /**
     * @return the committed L3 model (the config side stages its L3 objects against it; tests describe groups'
     *     weights and ownership with it).
     */
    public L3State l3() {
        return l3;
    }

    /** @return the committed route slots (tests compare them with the routes). */
    RouteSlots routeSlots() {
        return routeSlots;
    }

    /** @return the configuration's router interfaces now: name → pipeline id (tests). */
    Map<String, Integer> configRouterInterfaces() {
        final Map<String, Integer> out = new TreeMap<>();
        l3.configRifs.forEach((name, rif) -> out.put(name, rif.id()));
        return out;
    }

    /**
     * @return the ids of the router interfaces the start-up configuration defines are below this (controller
     *     interfaces get ids at or above it; interfaces a later reconfigure adds take ids freed below it, else the
     *     highest free ones).
     */
    public int configRouterInterfaceCount() {
        return setup == null ? 0 : l3.configRouterInterfaceCount();
    }
}
