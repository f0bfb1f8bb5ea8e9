package io.asicemu.operator;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the operator views read of a running switch at one instant, already named the way SONiC names it (SAI stat
 * names, CONFIG_DB hashes). Plain data: the switch's composition root fills it from the pipeline and traffic manager
 * snapshots, so this module depends on no engine.
 *
 * @param takenAtNs monotonic time of the snapshot (for rates).
 * @param ports every configured port, in port order.
 * @param pools buffer pool name → SAI buffer-pool stat name → decimal value.
 * @param config CONFIG_DB in Redis form: {@code TABLE|key} → field (list fields with the {@code @} suffix) → value.
 * @param switchCapabilities STATE_DB {@code SWITCH_CAPABILITY|switch} fields.
 * @param aclRules {@code TABLE|RULE} → {@code Packets}/{@code Bytes} (the ACL rules' counters, which P4Runtime
 *     reads as the ACL tables' direct counters).
 * @param arsGroups the ECMP/ARS groups in use, with their flowlet counters.
 */
public record SwitchSnapshot(
        long takenAtNs,
        List<Port> ports,
        Map<String, Map<String, String>> pools,
        Map<String, Map<String, String>> config,
        Map<String, String> switchCapabilities,
        Map<String, Map<String, Long>> aclRules,
        List<ArsGroup> arsGroups) {

    /** Queues and priority groups per port, as the traffic manager has them. */
    public static final int CLASSES = 8;

    /** Copies. */
    public SwitchSnapshot {
        ports = List.copyOf(ports);
        pools = ordered(pools);
        config = config instanceof RedisConfigDb held ? held : ordered(config); // immutable already: not copied
        switchCapabilities = ordered(switchCapabilities);
        aclRules = ordered(aclRules);
        arsGroups = List.copyOf(arsGroups);
    }

    /**
     * One ECMP/WCMP group of the flowlet engine.
     *
     * @param group the group's index in the switch's group table.
     * @param members per member: its egress port, selections and bytes.
     * @param flowletReassignments flowlets moved to another member after an idle gap.
     * @param newFlowlets flowlets started.
     * @param tableFullFallbacks packets hashed statically because the flowlet table was full.
     * @param noMemberDrops packets dropped because no member was up.
     * @param flowletTableOccupancy flowlet table entries in use.
     * @param mode the group's selection mode as CONFIG_DB names it ({@code hash} when unknown).
     * @param flowletTableCapacity flowlet table entries in all (0 when unknown).
     */
    public record ArsGroup(
            int group,
            List<ArsMember> members,
            long flowletReassignments,
            long newFlowlets,
            long tableFullFallbacks,
            long noMemberDrops,
            int flowletTableOccupancy,
            String mode,
            int flowletTableCapacity) {
        /** Copies. */
        public ArsGroup {
            members = List.copyOf(members);
        }

        /** A group whose mode and flowlet table capacity are not known ({@code hash}, 0). */
        public ArsGroup(
                final int group,
                final List<ArsMember> members,
                final long flowletReassignments,
                final long newFlowlets,
                final long tableFullFallbacks,
                final long noMemberDrops,
                final int flowletTableOccupancy) {
            this(
                    group,
                    members,
                    flowletReassignments,
                    newFlowlets,
                    tableFullFallbacks,
                    noMemberDrops,
                    flowletTableOccupancy,
                    "hash",
                    0);
        }
    }

    /**
     * @param port the member's egress port name.
     * @param selections packets sent through it.
     * @param bytes bytes sent through it.
     * @param qualityBand its port's path-quality band, 0 (worst) .. 7 (best), or -1 when no group measures quality.
     */
    public record ArsMember(String port, long selections, long bytes, int qualityBand) {
        /** A member without a quality band. */
        public ArsMember(final String port, final long selections, final long bytes) {
            this(port, selections, bytes, -1);
        }
    }

    /**
     * One port.
     *
     * @param name SONiC name, e.g. {@code Ethernet0}.
     * @param operUp whether the link is up (attached and carrier).
     * @param stats SAI port stat / drop-reason name → value (e.g. {@code SAI_PORT_STAT_IF_IN_UCAST_PKTS}).
     * @param queues per queue 0..7: {@code COUNTERS:<queue oid>} fields (SAI queue stats and PFC watchdog fields).
     * @param priorityGroups per PG 0..7: SAI ingress priority-group stat name → value.
     * @param pfc {@code SAI_PORT_STAT_PFC_n_*} → value.
     */
    public record Port(
            String name,
            boolean operUp,
            Map<String, Long> stats,
            List<Map<String, String>> queues,
            List<Map<String, String>> priorityGroups,
            Map<String, String> pfc) {
        /** Copies; checks there are {@link #CLASSES} queues and PGs. */
        public Port {
            stats = ordered(stats);
            queues = List.copyOf(queues);
            priorityGroups = List.copyOf(priorityGroups);
            pfc = ordered(pfc);
            if (queues.size() != CLASSES || priorityGroups.size() != CLASSES) {
                throw new IllegalArgumentException(name + ": " + CLASSES + " queues and PGs expected, not "
                        + queues.size() + "/" + priorityGroups.size());
            }
        }
    }

    private static <K, V> Map<K, V> ordered(final Map<K, V> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
