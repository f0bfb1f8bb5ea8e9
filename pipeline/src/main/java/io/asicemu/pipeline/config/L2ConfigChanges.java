package io.asicemu.pipeline.config;

import static io.asicemu.pipeline.config.ConfigRefusal.refuseAs;

import io.asicemu.pipeline.control.L2Changes;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The L2 part of a running-config change ({@link SwitchConfig#reconfigure}): compares VLAN and VLAN_MEMBER of the
 * configuration in force with the next one's and stages the difference as the batch's {@link L2Changes} updates, the
 * VLAN and membership writes (and checks) a P4Runtime Write makes: new VLANs first, then memberships leave, then they
 * join or change their tagging, then VLANs go (with nothing of a controller's left in them).
 * <p>
 * Collision rule, as for L3: the configuration never takes a controller's VLAN or membership (refused naming
 * {@code TABLE|key}), and a VLAN it drops must hold nothing a controller wrote (members, static FDB entries).
 * <p>
 * Stateless; the control thread.
 */
final class L2ConfigChanges {
    private L2ConfigChanges() {}

    /**
     * @param current the CONFIG_DB in force.
     * @param target the next configuration, compiled (validated).
     * @param l2 the batch's L2 part.
     * @throws ConfigException naming {@code TABLE|key} of the first change the control model refuses.
     */
    static void stage(final ConfigDb current, final CompiledConfig target, final L2Changes l2) {
        final ConfigDb next = target.db();
        final Map<String, Map<String, String>> vlansBefore = current.table("VLAN");
        final Map<String, Map<String, String>> vlansAfter = next.table("VLAN");
        final Map<String, Map<String, String>> membersBefore = current.table("VLAN_MEMBER");
        final Map<String, Map<String, String>> membersAfter = next.table("VLAN_MEMBER");
        if (vlansBefore.keySet().equals(vlansAfter.keySet()) && membersBefore.equals(membersAfter)) {
            return;
        }
        for (final String vlan : new TreeSet<>(vlansAfter.keySet())) {
            if (!vlansBefore.containsKey(vlan)) {
                refuseAs("VLAN", vlan, "", () -> l2.configVlan(vlanId(vlan)));
            }
        }
        for (final String key : new TreeSet<>(membersBefore.keySet())) {
            if (!membersAfter.containsKey(key)) {
                final String[] parts = key.split("\\|");
                refuseAs("VLAN_MEMBER", key, "", () -> l2.removeConfigVlanMember(vlanId(parts[0]), parts[1]));
            }
        }
        for (final String key : new TreeSet<>(membersAfter.keySet())) {
            final Map<String, String> before = membersBefore.get(key);
            final Map<String, String> after = membersAfter.get(key);
            if (!Objects.equals(before, after)) {
                final String[] parts = key.split("\\|");
                final boolean tagged = "tagged".equals(after.get("tagging_mode"));
                refuseAs(
                        "VLAN_MEMBER",
                        key,
                        "tagging_mode",
                        () -> l2.configVlanMember(vlanId(parts[0]), parts[1], tagged));
            }
        }
        for (final String vlan : new TreeSet<>(vlansBefore.keySet())) {
            if (!vlansAfter.containsKey(vlan)) {
                refuseAs("VLAN", vlan, "", () -> l2.removeConfigVlan(vlanId(vlan)));
            }
        }
    }

    /** {@code Vlan<id>} → id (the compiler checked the form). */
    private static int vlanId(final String name) {
        return Integer.parseInt(name.substring(4));
    }
}
