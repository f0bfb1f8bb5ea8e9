package io.asicemu.pipeline.table;

import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.hash.HashEngine;
import io.asicemu.pipeline.port.AnonymousMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Every table the data path reads, in primitive arrays (the route slots in an anonymous mapping): ports, VLANs, router interfaces, IPv4/IPv6 LPM, neighbors,
 * next hops, ECMP/WCMP groups (member choice by the ars-flowlet module's {@link LoadBalanceGroup}), the L2 FDB, the
 * ACL and the QoS maps.
 * <p>
 * A configuration builds a complete new instance off the data thread and hands it over whole (one command); P4Runtime
 * and table edits arrive as commands that mutate the current instance between batches. Either way the data path sees
 * a change whole or not at all.
 * <p>
 * Not thread safe: after hand-over, owned by the data-plane thread. Fields are package-visible data for the stages in
 * the same pipeline; the public methods are the edits commands make.
 */
public final class ForwardingTables {
    /** No VLAN / no router interface / no port. */
    public static final int NONE = -1;
    /** Multicast group slots (slot 0 means "no group"), so {@code MULTICAST_SLOTS - 1} groups. */
    public static final int MULTICAST_SLOTS = 257;
    /** L3 admit entries (extra "my MAC" matches besides the router interfaces' own MACs). */
    public static final int L3_ADMIT_ENTRIES = 64;
    /** CPU queues, each policed by its CoPP meter. */
    public static final int CPU_QUEUES = 8;

    private final PipelineSizing sizing;
    private final int portWords;

    // Ports.
    final boolean[] portAdminUp;
    final int[] portMtu;
    final long[] portSpeedMbps;
    final int[] portPvid;
    final int[] portRif;

    // VLANs: membership bitmaps, tagged bitmaps, VLAN router interface.
    final boolean[] vlanExists = new boolean[4096];
    final boolean[] vlanDropped = new boolean[4096];
    final long[] vlanMembers;
    final long[] vlanTagged;
    final int[] vlanRif = new int[4096];
    // VLAN flood groups and the replication engine's multicast groups (slot 0 = none: flood to the VLAN's members).
    final int[] vlanFloodSlot = new int[4096];
    final int[][] multicastPorts = new int[MULTICAST_SLOTS][];

    // Router interfaces.
    int rifCount;
    final long[] rifMac;
    final int[] rifPort;
    final int[] rifVlan;
    final int[] rifMtu;
    final int[] rifIpv4;
    final boolean[] rifHasIpv4;
    final long[] rifIpv6High;
    final long[] rifIpv6Low;
    final boolean[] rifHasIpv6;

    // L3.
    final LpmTable lpm4 = new LpmTable(32);
    final LpmTable lpm6 = new LpmTable(128);
    // What the route in each LPM slot points at (a RouteTarget value) and its hit counters; slot 0 = no route. One
    // anonymous mapping (targets, then packet counters, then byte counters), sized for maxRoutes but resident only
    // where routes were written or hit: the default 148k slots were 2.9 MiB of heap arrays (5 MiB of 1 MiB G1
    // regions) zeroed at start whatever the routes; unmapped when the tables are no longer reachable.
    private final MemorySegment routeSlots;
    private final long routePacketsAt;
    private final long routeBytesAt;
    // What an LPM miss does (a controller's default entry of ipv4_table / ipv6_table): a RouteTarget, 0 = drop.
    int defaultRoute4;
    int defaultRoute6;
    // What a bridged unicast frame to an unknown MAC does (l2_fdb_table's default entry): flood (false) or drop.
    boolean dropUnknownUnicast;
    final NeighborTable neighbors;
    final long[] nextHopHigh;
    final long[] nextHopLow;
    final boolean[] nextHopV6;
    final int[] nextHopRif;
    final boolean[] nextHopUsed;
    final long[] nextHopPackets;
    final long[] nextHopBytes;
    /**
     * Per next hop, the neighbor slot last found for its address ({@link #nextHopNeighbor}) and the tag it is valid
     * for: the neighbor table's layout version × 2 + the family asked (1 = IPv6); 0 = nothing cached. Saves the
     * neighbor hash probe per routed packet.
     */
    final long[] nextHopNeighborTag;

    final int[] nextHopNeighborSlot;
    final LoadBalanceGroup[] groups;
    private io.asicemu.flowlet.ars.PortQuality portQuality;
    final int[][] groupNextHops;
    final int[][] groupWatchPorts;
    private int groupEpoch;
    HashEngine hashEngine;

    // L2, ACL, QoS.
    final FdbTable fdb;
    AclTable acl = AclTable.empty();
    AclEgressTable egressAcl = AclEgressTable.empty();
    AclMirrorSessions mirrorSessions = AclMirrorSessions.empty();
    AclMeters coppMeters = new AclMeters(new AclMeterConfig[CPU_QUEUES], true);
    QosMaps qos;

    // L3 admit: frames whose destination MAC matches (mac & mask), on the port (or any port: -1), are routed.
    final long[] admitMac = new long[L3_ADMIT_ENTRIES];
    final long[] admitMask = new long[L3_ADMIT_ENTRIES];
    final int[] admitPort = new int[L3_ADMIT_ENTRIES];
    int admitCount;

    long routerMac;
    boolean standalone = true;
    long fdbAgeTimeNs = 300_000_000_000L;

    /**
     * Empty tables of the given sizes.
     *
     * @param sizing capacities.
     * @param hashEngine the ECMP hash engine (from the ars-flowlet config).
     */
    public ForwardingTables(final PipelineSizing sizing, final HashEngine hashEngine) {
        this.sizing = sizing;
        this.hashEngine = hashEngine;
        final int ports = sizing.maxPorts();
        portWords = (ports + 63) / 64;
        portAdminUp = new boolean[ports];
        portMtu = new int[ports];
        Arrays.fill(portMtu, 9100);
        portSpeedMbps = new long[ports];
        Arrays.fill(portSpeedMbps, 100_000);
        portPvid = new int[ports];
        Arrays.fill(portPvid, NONE);
        portRif = new int[ports];
        Arrays.fill(portRif, NONE);
        vlanMembers = new long[4096 * portWords];
        vlanTagged = new long[4096 * portWords];
        Arrays.fill(vlanRif, NONE);
        final int rifs = sizing.maxRouterInterfaces();
        rifMac = new long[rifs];
        rifPort = new int[rifs];
        rifVlan = new int[rifs];
        rifMtu = new int[rifs];
        rifIpv4 = new int[rifs];
        rifHasIpv4 = new boolean[rifs];
        rifIpv6High = new long[rifs];
        rifIpv6Low = new long[rifs];
        rifHasIpv6 = new boolean[rifs];
        neighbors = new NeighborTable(sizing.neighbors());
        nextHopHigh = new long[sizing.maxNextHops()];
        nextHopLow = new long[sizing.maxNextHops()];
        nextHopV6 = new boolean[sizing.maxNextHops()];
        nextHopRif = new int[sizing.maxNextHops()];
        nextHopUsed = new boolean[sizing.maxNextHops()];
        nextHopPackets = new long[sizing.maxNextHops()];
        nextHopBytes = new long[sizing.maxNextHops()];
        nextHopNeighborTag = new long[sizing.maxNextHops()];
        nextHopNeighborSlot = new int[sizing.maxNextHops()];
        final long slots = sizing.maxRoutes() + 1L;
        routePacketsAt = (4 * slots + 7) & ~7L;
        routeBytesAt = routePacketsAt + 8 * slots;
        routeSlots = AnonymousMemory.map(routeBytesAt + 8 * slots, Arena.ofAuto(), "route slots");
        groups = new LoadBalanceGroup[sizing.maxGroups()];
        groupNextHops = new int[sizing.maxGroups()][];
        groupWatchPorts = new int[sizing.maxGroups()][];
        fdb = new FdbTable(sizing.fdbEntries());
        qos = new QosMaps(ports);
    }

    /** @return the capacities. */
    public PipelineSizing sizing() {
        return sizing;
    }

    /**
     * The bytes the tables' arrays take: those sized from {@link PipelineSizing} (ports, VLANs, router interfaces,
     * route slots and counters (mapped, resident only as used), next hops, groups, neighbors, FDB, QoS maps) and the
     * LPMs' root and chunk arrays (the chunks grow with the prefixes written); not group members or ACLs. Read from
     * the arrays themselves, so it is what the configured sizes really cost; deterministic, for tests and start-up
     * logs.
     *
     * @return reserved bytes.
     */
    public long reservedBytes() {
        long bytes = bytes(portAdminUp) + bytes(portMtu) + bytes(portSpeedMbps) + bytes(portPvid) + bytes(portRif);
        bytes += bytes(vlanExists)
                + bytes(vlanDropped)
                + bytes(vlanMembers)
                + bytes(vlanTagged)
                + bytes(vlanRif)
                + bytes(vlanFloodSlot);
        bytes += bytes(rifMac)
                + bytes(rifPort)
                + bytes(rifVlan)
                + bytes(rifMtu)
                + bytes(rifIpv4)
                + bytes(rifHasIpv4)
                + bytes(rifIpv6High)
                + bytes(rifIpv6Low)
                + bytes(rifHasIpv6);
        bytes += lpm4.reservedBytes() + lpm6.reservedBytes() + 20L * (sizing.maxRoutes() + 1);
        bytes += bytes(nextHopHigh)
                + bytes(nextHopLow)
                + bytes(nextHopV6)
                + bytes(nextHopRif)
                + bytes(nextHopUsed)
                + bytes(nextHopPackets)
                + bytes(nextHopBytes)
                + bytes(nextHopNeighborTag)
                + bytes(nextHopNeighborSlot);
        bytes += 4L * (groups.length + groupNextHops.length + groupWatchPorts.length);
        return bytes + neighbors.reservedBytes() + fdb.reservedBytes() + qos.reservedBytes();
    }

    static long bytes(final long[] a) {
        return 8L * a.length;
    }

    static long bytes(final int[] a) {
        return 4L * a.length;
    }

    static long bytes(final boolean[] a) {
        return a.length;
    }

    static long bytes(final byte[] a) {
        return a.length;
    }

    /** @return 64-bit words per port bitmap. */
    public int portWords() {
        return portWords;
    }

    // ---- switch-wide ----

    /**
     * @param mac the router MAC (DEVICE_METADATA|localhost mac).
     */
    public void routerMac(final long mac) {
        routerMac = mac;
    }

    /**
     * Replaces the L3 admit entries (P4Runtime {@code l3_admit_table}).
     *
     * @param macs destination MACs.
     * @param masks their masks (ternary).
     * @param ports the port each applies to, or -1 for any.
     */
    public void l3Admit(final long[] macs, final long[] masks, final int[] ports) {
        if (macs.length > L3_ADMIT_ENTRIES) {
            throw new IllegalArgumentException("more than " + L3_ADMIT_ENTRIES + " L3 admit entries");
        }
        admitCount = macs.length;
        for (int i = 0; i < macs.length; i++) {
            admitMac[i] = macs[i] & masks[i];
            admitMask[i] = masks[i];
            admitPort[i] = ports[i];
        }
    }

    /**
     * Data path: whether an L3 admit entry routes a frame the router interface's own MAC did not claim.
     *
     * @param dstMac the destination MAC.
     * @param port the ingress port.
     * @return true if an entry matches.
     */
    public boolean l3Admitted(final long dstMac, final int port) {
        for (int i = 0; i < admitCount; i++) {
            if ((dstMac & admitMask[i]) == admitMac[i] && (admitPort[i] < 0 || admitPort[i] == port)) {
                return true;
            }
        }
        return false;
    }

    /** @return the router MAC. */
    public long routerMac() {
        return routerMac;
    }

    /**
     * @param enabled whether the switch answers ARP/ND and resolves next hops itself (no controller).
     */
    public void standalone(final boolean enabled) {
        standalone = enabled;
    }

    /** @return whether standalone mode is on. */
    public boolean standalone() {
        return standalone;
    }

    /**
     * @param ageTimeNs dynamic FDB entries older than this age out.
     */
    public void fdbAgeTimeNs(final long ageTimeNs) {
        fdbAgeTimeNs = ageTimeNs;
    }

    /** @return the FDB aging time. */
    public long fdbAgeTimeNs() {
        return fdbAgeTimeNs;
    }

    /**
     * @param engine the ECMP hash engine.
     */
    public void hashEngine(final HashEngine engine) {
        hashEngine = engine;
    }

    /** @return the ECMP hash engine. */
    public HashEngine hashEngine() {
        return hashEngine;
    }

    // ---- ports ----

    /**
     * @param port a port index.
     * @param adminUp admin status.
     * @param mtu interface MTU.
     * @param speedMbps speed in Mb/s.
     */
    public void port(final int port, final boolean adminUp, final int mtu, final long speedMbps) {
        portAdminUp[port] = adminUp;
        portMtu[port] = mtu;
        portSpeedMbps[port] = speedMbps;
    }

    /**
     * @param port a port.
     * @return whether it is admin up.
     */
    public boolean portAdminUp(final int port) {
        return portAdminUp[port];
    }

    /**
     * @param port a port.
     * @return its MTU.
     */
    public int portMtu(final int port) {
        return portMtu[port];
    }

    /**
     * @param port a port.
     * @return its speed in Mb/s.
     */
    public long portSpeedMbps(final int port) {
        return portSpeedMbps[port];
    }

    // ---- VLANs ----

    /**
     * @param vlanId 1..4094.
     */
    public void addVlan(final int vlanId) {
        vlanExists[vlanId] = true;
    }

    /**
     * @param vlanId a VLAN.
     * @param port a port.
     * @param tagged whether the port sends and expects tagged frames in this VLAN (else it is the port's untagged
     *               VLAN).
     */
    public void addVlanMember(final int vlanId, final int port, final boolean tagged) {
        final int word = vlanId * portWords + (port >>> 6);
        final long bit = 1L << (port & 63);
        vlanMembers[word] |= bit;
        if (tagged) {
            vlanTagged[word] |= bit;
        } else {
            vlanTagged[word] &= ~bit;
            portPvid[port] = vlanId;
        }
    }

    /**
     * Removes a VLAN: its members leave it (ports whose untagged VLAN it was have none), its flood group is cleared
     * and its learned FDB entries go.
     *
     * @param vlanId a VLAN.
     */
    public void removeVlan(final int vlanId) {
        for (int port = 0; port < portPvid.length; port++) {
            if (vlanMember(vlanId, port)) {
                removeVlanMember(vlanId, port);
            }
        }
        vlanExists[vlanId] = false;
        vlanDropped[vlanId] = false;
        vlanFloodSlot[vlanId] = 0;
        fdb.flushVlan(vlanId, NONE);
    }

    /**
     * @param vlanId a VLAN.
     * @param drop true: frames in it are dropped at ingress (P4Runtime vlan_table entry with the drop action).
     */
    public void vlanDrop(final int vlanId, final boolean drop) {
        vlanDropped[vlanId] = drop;
    }

    /**
     * @param vlanId a VLAN.
     * @return whether frames in it are dropped at ingress.
     */
    public boolean vlanDropped(final int vlanId) {
        return vlanDropped[vlanId];
    }

    /**
     * Takes a port out of a VLAN (if it was the port's untagged VLAN, the port has none) and forgets the MACs learned
     * on it in that VLAN.
     *
     * @param vlanId a VLAN.
     * @param port a port.
     */
    public void removeVlanMember(final int vlanId, final int port) {
        final int word = vlanId * portWords + (port >>> 6);
        final long bit = 1L << (port & 63);
        vlanMembers[word] &= ~bit;
        vlanTagged[word] &= ~bit;
        if (portPvid[port] == vlanId) {
            portPvid[port] = NONE;
        }
        fdb.flushVlan(vlanId, port);
    }

    /**
     * @param vlanId a VLAN.
     * @param slot the multicast group slot its unknown unicast, broadcast and multicast frames replicate to, or 0 to
     *             flood to the VLAN's members.
     */
    public void vlanFloodSlot(final int vlanId, final int slot) {
        vlanFloodSlot[vlanId] = slot;
    }

    /**
     * @param vlanId a VLAN.
     * @return its flood group slot, or 0 when it floods to its members.
     */
    public int vlanFloodSlot(final int vlanId) {
        return vlanFloodSlot[vlanId];
    }

    /**
     * Sets (or with null removes) a multicast group: the egress ports of its replicas, one copy each (a port listed
     * twice gets two copies).
     *
     * @param slot 1 .. {@link #MULTICAST_SLOTS} - 1.
     * @param ports the replica ports (not copied: the caller hands it over), or null.
     */
    public void multicastGroup(final int slot, final int[] ports) {
        multicastPorts[slot] = ports;
    }

    /**
     * @param slot a multicast group slot.
     * @return its replica ports (do not modify), or null when the slot is free.
     */
    public int[] multicastGroup(final int slot) {
        return multicastPorts[slot];
    }

    /**
     * @param vlanId a VLAN.
     * @param port a port.
     * @return whether the port is a member.
     */
    public boolean vlanMember(final int vlanId, final int port) {
        return (vlanMembers[vlanId * portWords + (port >>> 6)] & (1L << (port & 63))) != 0;
    }

    /**
     * @param vlanId a VLAN.
     * @param port a port.
     * @return whether the port is a tagged member.
     */
    public boolean vlanTagged(final int vlanId, final int port) {
        return (vlanTagged[vlanId * portWords + (port >>> 6)] & (1L << (port & 63))) != 0;
    }

    /**
     * @param port a port.
     * @return its untagged VLAN, or {@link #NONE}.
     */
    public int portPvid(final int port) {
        return portPvid[port];
    }

    // ---- router interfaces ----

    /**
     * Adds a router interface on a port or a VLAN.
     *
     * @param port the port for a port interface, or {@link #NONE}.
     * @param vlanId the VLAN for a VLAN interface, or {@link #NONE}.
     * @param mac its MAC (the router MAC).
     * @param mtu its MTU.
     * @return the interface id.
     */
    public int addRouterInterface(final int port, final int vlanId, final long mac, final int mtu) {
        if (rifCount == rifMac.length) {
            throw new IllegalStateException("router interface table full");
        }
        final int rif = rifCount++;
        rifMac[rif] = mac;
        rifPort[rif] = port;
        rifVlan[rif] = vlanId;
        rifMtu[rif] = mtu;
        if (port != NONE) {
            portRif[port] = rif;
        }
        if (vlanId != NONE) {
            vlanRif[vlanId] = rif;
        }
        return rif;
    }

    /**
     * Sets (adds or replaces) a port router interface at a chosen id, as a controller creates it; ids at or above
     * {@link #routerInterfaceCount()} extend the table. The port's previous interface, if another, stays defined but
     * no longer receives the port's frames.
     *
     * @param rif the interface id, below {@link PipelineSizing#maxRouterInterfaces()}.
     * @param port the port.
     * @param mac its MAC (the router MAC on that port).
     * @param mtu its MTU.
     */
    public void routerInterface(final int rif, final int port, final long mac, final int mtu) {
        routerInterface(rif, port, NONE, mac, mtu);
    }

    /**
     * Sets (adds or replaces) a port or VLAN router interface at a chosen id, without addresses (a running-config
     * change adds INTERFACE / VLAN_INTERFACE this way); ids at or above {@link #routerInterfaceCount()} extend the
     * table. The port's or VLAN's previous interface, if another, stays defined but no longer receives its frames.
     *
     * @param rif the interface id, below {@link PipelineSizing#maxRouterInterfaces()}.
     * @param port the port for a port interface, or {@link #NONE}.
     * @param vlanId the VLAN for a VLAN interface, or {@link #NONE}.
     * @param mac its MAC (the router MAC).
     * @param mtu its MTU.
     */
    public void routerInterface(final int rif, final int port, final int vlanId, final long mac, final int mtu) {
        if (rif < rifCount) {
            unlinkRouterInterface(rif);
        }
        rifMac[rif] = mac;
        rifPort[rif] = port;
        rifVlan[rif] = vlanId;
        rifMtu[rif] = mtu;
        rifHasIpv4[rif] = false;
        rifHasIpv6[rif] = false;
        if (port != NONE) {
            portRif[port] = rif;
        }
        if (vlanId != NONE) {
            vlanRif[vlanId] = rif;
        }
        rifCount = Math.max(rifCount, rif + 1);
    }

    /** Stops the port or VLAN of an interface pointing at it (if it still does). */
    private void unlinkRouterInterface(final int rif) {
        final int port = rifPort[rif];
        if (port != NONE && portRif[port] == rif) {
            portRif[port] = NONE;
        }
        final int vlan = rifVlan[rif];
        if (vlan != NONE && vlanRif[vlan] == rif) {
            vlanRif[vlan] = NONE;
        }
    }

    /**
     * Removes a router interface set by {@link #routerInterface}: its port or VLAN stops routing, its addresses go.
     *
     * @param rif the interface id.
     */
    public void removeRouterInterface(final int rif) {
        unlinkRouterInterface(rif);
        rifPort[rif] = NONE;
        rifVlan[rif] = NONE;
        rifMac[rif] = 0;
        rifHasIpv4[rif] = false;
        rifHasIpv6[rif] = false;
    }

    /**
     * Forgets an interface's addresses (the ARP/ND source addresses), before {@link #routerInterfaceAddress} gives
     * it its next ones.
     *
     * @param rif the interface.
     */
    public void clearRouterInterfaceAddresses(final int rif) {
        rifHasIpv4[rif] = false;
        rifHasIpv6[rif] = false;
    }

    /**
     * Gives an interface the source address for ARP/ND it sends (its first address of the family).
     *
     * @param rif the interface.
     * @param high address high bits.
     * @param low address low bits.
     * @param v6 whether IPv6.
     */
    public void routerInterfaceAddress(final int rif, final long high, final long low, final boolean v6) {
        if (v6) {
            if (!rifHasIpv6[rif]) {
                rifHasIpv6[rif] = true;
                rifIpv6High[rif] = high;
                rifIpv6Low[rif] = low;
            }
        } else if (!rifHasIpv4[rif]) {
            rifHasIpv4[rif] = true;
            rifIpv4[rif] = (int) low;
        }
    }

    /** @return router interfaces in use. */
    public int routerInterfaceCount() {
        return rifCount;
    }

    /**
     * @param rif an interface.
     * @return its port, or {@link #NONE} for a VLAN interface.
     */
    public int routerInterfacePort(final int rif) {
        return rifPort[rif];
    }

    /**
     * @param rif an interface.
     * @return its VLAN, or {@link #NONE}.
     */
    public int routerInterfaceVlan(final int rif) {
        return rifVlan[rif];
    }

    /**
     * @param port a port.
     * @return its port router interface, or {@link #NONE}.
     */
    public int portRouterInterface(final int port) {
        return portRif[port];
    }

    /**
     * @param vlanId a VLAN.
     * @return its VLAN router interface, or {@link #NONE}.
     */
    public int vlanRouterInterface(final int vlanId) {
        return vlanRif[vlanId];
    }

    // ---- routes ----

    /**
     * @param v6 which family.
     * @return its LPM table.
     */
    public LpmTable lpm(final boolean v6) {
        return v6 ? lpm6 : lpm4;
    }

    /**
     * Adds a route, or points an existing one elsewhere (its slot and counters stay).
     *
     * @param v6 the family.
     * @param high the prefix's high 64 bits (as the control model's {@code IpPrefix.high()}).
     * @param low the prefix's low 64 bits ({@code IpPrefix.low()}).
     * @param length the prefix length.
     * @param slot its slot from the control model's {@code RouteSlots}.
     * @param target what it points at (a {@link RouteTarget} value).
     */
    public void route(
            final boolean v6, final long high, final long low, final int length, final int slot, final int target) {
        routeSlots.set(ValueLayout.JAVA_INT, 4L * slot, target);
        lpm(v6).add(high, low, length, slot);
    }

    /**
     * Deletes a route and clears its slot's counters (so the slot's next route starts at zero); addresses under it
     * fall back to the covering route.
     *
     * @param v6 the family.
     * @param high the prefix's high 64 bits.
     * @param low the prefix's low 64 bits ({@code IpPrefix.low()}).
     * @param length the prefix length.
     * @param slot its slot.
     * @param coverLength the covering route's length, or -1 if none.
     * @param coverSlot the covering route's slot (ignored when {@code coverLength} is -1).
     */
    public void deleteRoute(
            final boolean v6,
            final long high,
            final long low,
            final int length,
            final int slot,
            final int coverLength,
            final int coverSlot) {
        lpm(v6).delete(high, low, length, coverLength, coverSlot);
        routeSlots.set(ValueLayout.JAVA_INT, 4L * slot, 0);
        routeSlots.set(ValueLayout.JAVA_LONG, routePacketsAt + 8L * slot, 0L);
        routeSlots.set(ValueLayout.JAVA_LONG, routeBytesAt + 8L * slot, 0L);
    }

    /**
     * @param drop true: bridged unicast frames to a MAC the FDB does not know are dropped instead of flooded.
     */
    public void dropUnknownUnicast(final boolean drop) {
        dropUnknownUnicast = drop;
    }

    /** @return whether unknown unicast is dropped (else flooded). */
    public boolean dropUnknownUnicast() {
        return dropUnknownUnicast;
    }

    /**
     * Sets what a packet that matches no route does (the LPM table's default action).
     *
     * @param v6 the family.
     * @param target a {@link RouteTarget} value (next hop or group), or 0 to drop as an LPM miss.
     */
    public void defaultRoute(final boolean v6, final int target) {
        if (v6) {
            defaultRoute6 = target;
        } else {
            defaultRoute4 = target;
        }
    }

    /**
     * @param v6 the family.
     * @return what an LPM miss does ({@link RouteTarget}; 0 = drop).
     */
    public int defaultRoute(final boolean v6) {
        return v6 ? defaultRoute6 : defaultRoute4;
    }

    /**
     * @param v6 the family.
     * @param high address high bits (0 for IPv4).
     * @param low address low bits (IPv4 in the low 32).
     * @return the slot of the longest matching route, 0 if none.
     */
    public int routeSlot(final boolean v6, final long high, final long low) {
        return v6 ? lpm6.lookup(high, low) : lpm4.lookupV4((int) low);
    }

    /**
     * @param v6 the family.
     * @param high address high bits (0 for IPv4).
     * @param low address low bits (IPv4 in the low 32).
     * @return what the longest matching route points at ({@link RouteTarget}; 0 if none); counts nothing.
     */
    public int routeTargetFor(final boolean v6, final long high, final long low) {
        return routeTarget(routeSlot(v6, high, low));
    }

    /**
     * Counts packets against a route (data path).
     *
     * @param slot the route's slot.
     * @param packets how many packets.
     * @param bytes their frames' length together.
     */
    public void countRoute(final int slot, final long packets, final long bytes) {
        final long packetsAt = routePacketsAt + 8L * slot;
        final long bytesAt = routeBytesAt + 8L * slot;
        routeSlots.set(ValueLayout.JAVA_LONG, packetsAt, routeSlots.get(ValueLayout.JAVA_LONG, packetsAt) + packets);
        routeSlots.set(ValueLayout.JAVA_LONG, bytesAt, routeSlots.get(ValueLayout.JAVA_LONG, bytesAt) + bytes);
    }

    /**
     * Counts a packet against a next hop (data path).
     *
     * @param id the next hop.
     * @param bytes the frame's length.
     */
    public void countNextHop(final int id, final int bytes) {
        nextHopPackets[id]++;
        nextHopBytes[id] += bytes;
    }

    /**
     * @param slot a route slot from an LPM lookup (0 = no route).
     * @return what the route points at ({@link RouteTarget}; 0 = no route).
     */
    public int routeTarget(final int slot) {
        return routeSlots.get(ValueLayout.JAVA_INT, 4L * slot);
    }

    /**
     * @param slot a route slot.
     * @return packets that matched it.
     */
    public long routePackets(final int slot) {
        return routeSlots.get(ValueLayout.JAVA_LONG, routePacketsAt + 8L * slot);
    }

    /**
     * @param slot a route slot.
     * @return bytes that matched it.
     */
    public long routeBytes(final int slot) {
        return routeSlots.get(ValueLayout.JAVA_LONG, routeBytesAt + 8L * slot);
    }

    /**
     * @param id a next-hop id.
     * @return packets forwarded to it.
     */
    public long nextHopPackets(final int id) {
        return nextHopPackets[id];
    }

    /**
     * @param id a next-hop id.
     * @return bytes forwarded to it.
     */
    public long nextHopBytes(final int id) {
        return nextHopBytes[id];
    }

    /** @return the neighbor table. */
    public NeighborTable neighbors() {
        return neighbors;
    }

    /** @return the FDB. */
    public FdbTable fdb() {
        return fdb;
    }

    /**
     * Defines (or redefines) a next hop: an IP address reached through a router interface; its MAC comes from the
     * neighbor table at forwarding time.
     *
     * @param id the next-hop id.
     * @param high address high bits.
     * @param low address low bits.
     * @param v6 whether IPv6.
     * @param rif the router interface.
     */
    public void nextHop(final int id, final long high, final long low, final boolean v6, final int rif) {
        nextHopHigh[id] = high;
        nextHopLow[id] = low;
        nextHopV6[id] = v6;
        nextHopRif[id] = rif;
        nextHopUsed[id] = true;
        nextHopNeighborTag[id] = 0; // the address may have changed
    }

    /**
     * The neighbor a next hop's address resolves to (data path): the same as {@code neighbors().find(nextHopHigh(id),
     * nextHopLow(id), v6)}, from the slot cached at the neighbor table's current layout version when there is one.
     *
     * @param id a defined next hop.
     * @param v6 the family to look the address up in (the packet's).
     * @return the neighbor slot, or {@link NeighborTable#MISSING}.
     */
    public int nextHopNeighbor(final int id, final boolean v6) {
        final long tag = (neighbors.layoutVersion() << 1) | (v6 ? 1 : 0);
        if (nextHopNeighborTag[id] == tag) {
            return nextHopNeighborSlot[id];
        }
        final int slot = neighbors.find(nextHopHigh[id], nextHopLow[id], v6);
        nextHopNeighborSlot[id] = slot;
        nextHopNeighborTag[id] = tag;
        return slot;
    }

    /**
     * @param id a next-hop id.
     */
    public void removeNextHop(final int id) {
        nextHopUsed[id] = false;
        nextHopPackets[id] = 0;
        nextHopBytes[id] = 0;
        nextHopNeighborTag[id] = 0;
    }

    /**
     * @param id a next-hop id.
     * @return whether it is defined.
     */
    public boolean nextHopDefined(final int id) {
        return id >= 0 && id < nextHopUsed.length && nextHopUsed[id];
    }

    /**
     * Defines a group.
     *
     * @param id the group id.
     * @param nextHops member next-hop ids.
     * @param group the ars-flowlet selector for it (members in the same order).
     */
    public void group(final int id, final int[] nextHops, final LoadBalanceGroup group) {
        group(id, nextHops, group, null);
    }

    /**
     * Defines a group whose members also watch a port each (P4Runtime {@code watch_port}): a member is live only
     * while its own egress port and its watch port are up (the data-plane agent applies it on link changes).
     *
     * @param id the group id.
     * @param nextHops member next-hop ids.
     * @param group the ars-flowlet selector for it (members in the same order).
     * @param watchPorts per member the watched port index or -1; null when no member watches a port.
     */
    public void group(final int id, final int[] nextHops, final LoadBalanceGroup group, final int[] watchPorts) {
        groupNextHops[id] = nextHops.clone();
        groups[id] = group;
        groupWatchPorts[id] = watchPorts == null ? null : watchPorts.clone();
        groupEpoch++;
    }

    /**
     * @param id a group id.
     */
    public void removeGroup(final int id) {
        groupNextHops[id] = null;
        groups[id] = null;
        groupWatchPorts[id] = null;
        groupEpoch++;
    }

    /**
     * @param id a group id.
     * @return per member the watched port index or -1, or null when no member of the group watches a port.
     */
    public int[] groupWatchPorts(final int id) {
        return groupWatchPorts[id];
    }

    /** @return a number that changes whenever a group is defined or removed (the agent re-applies watch ports). */
    public int groupEpoch() {
        return groupEpoch;
    }

    /**
     * @param id a group id.
     * @return its selector, or null.
     */
    public LoadBalanceGroup group(final int id) {
        return groups[id];
    }

    /**
     * @return the switch's one path-quality estimator shared by its flowlet_quality groups (the data-plane agent
     *         feeds it transmitted bytes and queue depths), or null if no group uses one.
     */
    public io.asicemu.flowlet.ars.PortQuality portQuality() {
        return portQuality;
    }

    /**
     * @param quality the shared path-quality estimator (compiler, before install).
     */
    public void portQuality(final io.asicemu.flowlet.ars.PortQuality quality) {
        this.portQuality = quality;
    }

    /**
     * @param id a group id.
     * @return whether it is defined.
     */
    public boolean groupDefined(final int id) {
        return id >= 0 && id < groups.length && groups[id] != null;
    }

    // ---- ACL, QoS ----

    /**
     * @param table the new ACL.
     */
    public void acl(final AclTable table) {
        acl = table;
    }

    /** @return the ACL. */
    public AclTable acl() {
        return acl;
    }

    /**
     * @param table the new egress ACL.
     */
    public void egressAcl(final AclEgressTable table) {
        egressAcl = table;
    }

    /** @return the egress ACL. */
    public AclEgressTable egressAcl() {
        return egressAcl;
    }

    /**
     * @param sessions the new clone (mirror) sessions.
     */
    public void mirrorSessions(final AclMirrorSessions sessions) {
        mirrorSessions = sessions;
    }

    /** @return the clone (mirror) sessions. */
    public AclMirrorSessions mirrorSessions() {
        return mirrorSessions;
    }

    /**
     * @param meters the CoPP meters, one per CPU queue ({@link #CPU_QUEUES} cells, packets).
     */
    public void coppMeters(final AclMeters meters) {
        coppMeters = meters;
    }

    /** @return the CoPP meters, one per CPU queue. */
    public AclMeters coppMeters() {
        return coppMeters;
    }

    /** @return the QoS maps. */
    public QosMaps qos() {
        return qos;
    }

    /**
     * Swaps in other QoS maps (runtime QoS map entries, data-plane thread between packet batches).
     *
     * @param maps the maps now in force.
     */
    public void qos(final QosMaps maps) {
        this.qos = maps;
    }

    /**
     * @param rif an id.
     * @return its MAC.
     */
    public long rifMac(final int rif) {
        return rifMac[rif];
    }

    /**
     * @param rif an id.
     * @return its MTU.
     */
    public int rifMtu(final int rif) {
        return rifMtu[rif];
    }

    /**
     * @param rif an id.
     * @return whether it has an IPv4 address.
     */
    public boolean rifHasIpv4(final int rif) {
        return rifHasIpv4[rif];
    }

    /**
     * @param rif an id.
     * @return its first IPv4 address.
     */
    public int rifIpv4(final int rif) {
        return rifIpv4[rif];
    }

    /**
     * @param rif an id.
     * @return whether it has an IPv6 address.
     */
    public boolean rifHasIpv6(final int rif) {
        return rifHasIpv6[rif];
    }

    /**
     * @param rif an id.
     * @return its first IPv6 address, high bits.
     */
    public long rifIpv6High(final int rif) {
        return rifIpv6High[rif];
    }

    /**
     * @param rif an id.
     * @return its first IPv6 address, low bits.
     */
    public long rifIpv6Low(final int rif) {
        return rifIpv6Low[rif];
    }

    /**
     * @param id an id.
     * @return the next hop address, high bits.
     */
    public long nextHopHigh(final int id) {
        return nextHopHigh[id];
    }

    /**
     * @param id an id.
     * @return the next hop address, low bits.
     */
    public long nextHopLow(final int id) {
        return nextHopLow[id];
    }

    /**
     * @param id an id.
     * @return whether the next hop is IPv6.
     */
    public boolean nextHopV6(final int id) {
        return nextHopV6[id];
    }

    /**
     * @param id an id.
     * @return the next hop router interface.
     */
    public int nextHopRif(final int id) {
        return nextHopRif[id];
    }

    /**
     * @param id an id.
     * @return the group members (next-hop ids); do not modify.
     */
    public int[] groupNextHops(final int id) {
        return groupNextHops[id];
    }

    /**
     * @param vlanId an id.
     * @return whether the VLAN exists.
     */
    public boolean vlanExists(final int vlanId) {
        return vlanExists[vlanId];
    }

    /**
     * The membership bitmap word of a VLAN.
     *
     * @param vlanId a VLAN.
     * @param word a word index below {@link #portWords()}.
     * @return 64 member bits (port = word * 64 + bit).
     */
    public long vlanMemberWord(final int vlanId, final int word) {
        return vlanMembers[vlanId * portWords + word];
    }
}
