package io.asicemu.pipeline.counter;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An immutable copy of the pipeline's counters, keyed the way COUNTERS_DB is: per port a map of SAI stat name →
 * value (with drop and punt reasons as extra names), per ACL rule {@code Packets}/{@code Bytes} (as SONiC's
 * {@code COUNTERS:<table>:<rule>} does), and switch-wide drop and punt totals by reason name.
 *
 * @param ports port name → (counter name → value), in port order.
 * @param aclRules {@code TABLE|RULE} → {"Packets": n, "Bytes": n}, ingress and egress ACL rules.
 * @param drops drop reason counter name → total over all ports.
 * @param punts punt reason (trap) name → total over all ports.
 * @param consumed consume reason name → total over all ports (frames ended inside the switch: PAUSE, PFC, ...).
 */
public record CountersSnapshot(
        Map<String, Map<String, Long>> ports,
        Map<String, Map<String, Long>> aclRules,
        Map<String, Long> drops,
        Map<String, Long> punts,
        Map<String, Long> consumed) {

    static CountersSnapshot of(
            final Counters counters,
            final String[] portNames,
            final String[] aclRuleNames,
            final String[] egressAclRuleNames) {
        final Map<String, Map<String, Long>> ports = new LinkedHashMap<>();
        final Map<String, Long> drops = new LinkedHashMap<>();
        final Map<String, Long> punts = new LinkedHashMap<>();
        final Map<String, Long> consumed = new LinkedHashMap<>();
        for (final ConsumeReason r : ConsumeReason.values()) {
            consumed.put(r.counterName(), 0L);
        }
        for (final DropReason r : DropReason.values()) {
            drops.put(r.counterName(), 0L);
        }
        for (final PuntReason r : PuntReason.values()) {
            punts.put(r.counterName(), 0L);
        }
        for (int p = 0; p < Math.min(portNames.length, counters.portCount()); p++) {
            if (portNames[p] == null) {
                continue;
            }
            final Map<String, Long> stats = new LinkedHashMap<>();
            for (final PortStat s : PortStat.values()) {
                stats.put(s.counterName(), counters.port(p, s));
            }
            for (final DropReason r : DropReason.values()) {
                final long n = counters.drops(p, r);
                stats.put(r.counterName(), n);
                drops.merge(r.counterName(), n, Long::sum);
            }
            for (final PuntReason r : PuntReason.values()) {
                final long n = counters.punts(p, r);
                stats.put(r.counterName(), n);
                punts.merge(r.counterName(), n, Long::sum);
            }
            for (final ConsumeReason r : ConsumeReason.values()) {
                final long n = counters.consumed(p, r);
                stats.put(r.counterName(), n);
                consumed.merge(r.counterName(), n, Long::sum);
            }
            ports.put(portNames[p], Collections.unmodifiableMap(stats));
        }
        final Map<String, Map<String, Long>> acl = new LinkedHashMap<>();
        for (int i = 0; i < Math.min(aclRuleNames.length, counters.aclRuleCapacity()); i++) {
            if (aclRuleNames[i] != null) {
                acl.put(aclRuleNames[i], Map.of("Packets", counters.aclPackets(i), "Bytes", counters.aclBytes(i)));
            }
        }
        for (int i = 0; i < Math.min(egressAclRuleNames.length, counters.aclRuleCapacity()); i++) {
            if (egressAclRuleNames[i] != null) {
                acl.put(
                        egressAclRuleNames[i],
                        Map.of("Packets", counters.egressAclPackets(i), "Bytes", counters.egressAclBytes(i)));
            }
        }
        return new CountersSnapshot(
                Collections.unmodifiableMap(ports),
                Collections.unmodifiableMap(acl),
                Collections.unmodifiableMap(drops),
                Collections.unmodifiableMap(punts),
                Collections.unmodifiableMap(consumed));
    }

    /**
     * @param port a port name.
     * @param counterName a SAI stat, drop or punt name.
     * @return the value, 0 if unknown.
     */
    public long port(final String port, final String counterName) {
        final Map<String, Long> stats = ports.get(port);
        return stats == null ? 0 : stats.getOrDefault(counterName, 0L);
    }

    /** @return a readable multi-line rendering (non-zero values only), as the replay command prints it. */
    public String render() {
        final StringBuilder out = new StringBuilder();
        ports.forEach((port, stats) -> stats.forEach((name, value) -> {
            if (value != 0) {
                out.append(port)
                        .append(' ')
                        .append(name)
                        .append(' ')
                        .append(value)
                        .append('\n');
            }
        }));
        aclRules.forEach((rule, stats) -> out.append(rule)
                .append(" Packets ")
                .append(stats.get("Packets"))
                .append(" Bytes ")
                .append(stats.get("Bytes"))
                .append('\n'));
        return out.toString();
    }
}
