package io.asicemu.pipeline.table;

import io.asicemu.flowlet.LoadBalanceGroup;
import io.asicemu.flowlet.hash.HashEngine;
import java.util.Arrays;

/**
 * Every table the data path reads, in primitive arrays: ports, VLANs, router interfaces, IPv4/IPv6 LPM, neighbors,
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
    final long[] vlanMembers;
    final long[] vlanTagged;
    final int[] vlanRif = new int[4096];

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
    final NeighborTable neighbors;
    final long[] nextHopHigh;
    final long[] nextHopLow;
    final boolean[] nextHopV6;
    final int[] nextHopRif;
    final boolean[] nextHopUsed;
    final LoadBalanceGroup[] groups;
    private io.asicemu.flowlet.ars.PortQuality portQuality;
    final int[][] groupNextHops;
    final int[][] groupWatchPorts;
    private int groupEpoch;
    HashEngine hashEngine;

    // L2, ACL, QoS.
    final FdbTable fdb;
    AclTable acl = AclTable.empty();
    final QosMaps qos;

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
        if (rif < rifCount && rifPort[rif] != NONE && rifPort[rif] != port && portRif[rifPort[rif]] == rif) {
            portRif[rifPort[rif]] = NONE;
        }
        rifMac[rif] = mac;
        rifPort[rif] = port;
        rifVlan[rif] = NONE;
        rifMtu[rif] = mtu;
        rifHasIpv4[rif] = false;
        rifHasIpv6[rif] = false;
        portRif[port] = rif;
        rifCount = Math.max(rifCount, rif + 1);
    }

    /**
     * Removes a port router interface set by {@link #routerInterface}: its port stops routing.
     *
     * @param rif the interface id.
     */
    public void removeRouterInterface(final int rif) {
        final int port = rifPort[rif];
        if (port != NONE && portRif[port] == rif) {
            portRif[port] = NONE;
        }
        rifPort[rif] = NONE;
        rifMac[rif] = 0;
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
    }

    /**
     * @param id a next-hop id.
     */
    public void removeNextHop(final int id) {
        nextHopUsed[id] = false;
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

    /** @return the QoS maps. */
    public QosMaps qos() {
        return qos;
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
