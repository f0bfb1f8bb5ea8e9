package io.asicemu.p4rt.info;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Decides whether a P4Info offered by a controller can run on the fixed pipeline: every object it declares must
 * exist here with the same id, name, kind, width and limits (a subset of our objects is fine). Returns what differs,
 * one line per difference, so SetForwardingPipelineConfig can say why it refuses. Stateless.
 */
public final class P4InfoCompatibility {
    private static final int MAX_REPORTED = 20;

    private P4InfoCompatibility() {}

    /** @return the differences that make {@code offered} unusable on {@code ours}; empty when compatible. */
    public static List<String> differences(final P4InfoModel ours, final P4InfoModel offered) {
        final List<String> out = new ArrayList<>();
        for (final TableInfo t : offered.tables()) {
            final TableInfo o = ours.table(t.id());
            if (o == null) {
                out.add(String.format("table 0x%08x '%s' does not exist in the fixed pipeline", t.id(), t.name()));
                continue;
            }
            if (!o.name().equals(t.name())) {
                out.add(String.format("table 0x%08x is named '%s' here, not '%s'", t.id(), o.name(), t.name()));
            }
            if (!o.fields().equals(t.fields())) {
                out.add(String.format(
                        "table '%s' match fields %s differ from ours %s", t.name(), t.fields(), o.fields()));
            }
            if (o.size() != t.size()) {
                out.add(String.format("table '%s' size %d differs from ours %d", t.name(), t.size(), o.size()));
            }
            if (o.implementationId() != t.implementationId()
                    || o.directCounterId() != t.directCounterId()
                    || o.directMeterId() != t.directMeterId()
                    || o.idleTimeout() != t.idleTimeout()) {
                out.add(String.format("table '%s' implementation/direct resources/idle timeout differ", t.name()));
            }
            t.actionRefs().forEach((id, scope) -> {
                if (!o.actionRefs().containsKey(id)) {
                    out.add(String.format("table '%s' action 0x%08x is not an action of this table", t.name(), id));
                }
            });
        }
        for (final ActionInfo a : offered.actions()) {
            final ActionInfo o = ours.action(a.id());
            if (o == null || !o.name().equals(a.name()) || !o.params().equals(a.params())) {
                out.add(String.format(
                        "action 0x%08x '%s' %s",
                        a.id(),
                        a.name(),
                        o == null ? "does not exist" : "differs: ours is '" + o.name() + "' " + o.params()));
            }
        }
        for (final ActionProfileInfo p : offered.actionProfiles()) {
            if (!Objects.equals(ours.actionProfile(p.id()), p)) {
                out.add(String.format(
                        "action profile 0x%08x '%s' differs from ours %s",
                        p.id(), p.name(), ours.actionProfile(p.id())));
            }
        }
        compareIndexed(out, "counter", offered.counters(), ours::counter);
        compareIndexed(out, "meter", offered.meters(), ours::meter);
        compareIndexed(out, "register", offered.registers(), ours::register);
        for (final DigestInfo d : offered.digests()) {
            if (!Objects.equals(ours.digest(d.id()), d)) {
                out.add(String.format("digest 0x%08x '%s' differs", d.id(), d.name()));
            }
        }
        if (!offered.packetIn().isEmpty() && !offered.packetIn().equals(ours.packetIn())) {
            out.add("packet_in metadata " + offered.packetIn() + " differs from ours " + ours.packetIn());
        }
        if (!offered.packetOut().isEmpty() && !offered.packetOut().equals(ours.packetOut())) {
            out.add("packet_out metadata " + offered.packetOut() + " differs from ours " + ours.packetOut());
        }
        return out.size() > MAX_REPORTED ? out.subList(0, MAX_REPORTED) : out;
    }

    private static void compareIndexed(
            final List<String> out,
            final String kind,
            final Iterable<IndexedResourceInfo> offered,
            final java.util.function.IntFunction<IndexedResourceInfo> ours) {
        for (final IndexedResourceInfo r : offered) {
            final IndexedResourceInfo o = ours.apply(r.id());
            if (o == null || !o.name().equals(r.name()) || o.size() != r.size() || o.bitwidth() != r.bitwidth()) {
                out.add(String.format(
                        "%s 0x%08x '%s' %s",
                        kind, r.id(), r.name(), o == null ? "does not exist" : "differs from ours " + o));
            }
        }
    }
}
