package io.asicemu.pipeline.config;

import static io.asicemu.pipeline.config.ConfigRefusal.refuseAs;

import io.asicemu.pipeline.control.L3Changes;
import io.asicemu.pipeline.control.L3State;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The router-interface part of a running-config change ({@link SwitchConfig#reconfigure}): compares INTERFACE and
 * VLAN_INTERFACE of the configuration in force with the next one's, interface by interface (by name: EthernetN,
 * VlanN), and stages the difference as the batch's {@link L3Changes} router-interface updates. Their connected and
 * local routes are routes like the others ({@link L3ConfigChanges} stages them, so a subnet a controller routes is
 * refused there, naming the INTERFACE key).
 * <p>
 * Two steps around the routes: {@link #add} before them (new interfaces, changed addresses: routes, next hops and
 * neighbors may then use them), {@link #remove} after them (an interface goes once nothing of the configuration uses
 * it; a controller's next hop or neighbor on it refuses the change).
 * <p>
 * Ids: an interface the configuration adds takes an id the start-up configuration freed (controllers never allocate
 * below its count), else the highest free one (controllers allocate upward), as next hops and groups do.
 * <p>
 * Stateless; the control thread.
 */
final class RouterInterfaceConfigChanges {
    /** An interface as a CONFIG_DB gives it: its table, the key naming it, its first IPv4 and IPv6 addresses. */
    private record Interface(String table, String key, IpPrefix v4, IpPrefix v6) {}

    private RouterInterfaceConfigChanges() {}

    /**
     * Stages the interfaces {@code target} adds and the address changes of the ones it keeps.
     *
     * @param state the committed L3 model.
     * @param l3 the batch's L3 part.
     * @param current the CONFIG_DB in force.
     * @param target the next configuration, compiled (validated).
     * @throws ConfigException naming {@code TABLE|key} of the first interface the control model refuses.
     */
    static void add(final L3State state, final L3Changes l3, final ConfigDb current, final CompiledConfig target) {
        final Map<String, Interface> before = interfaces(current);
        final Map<String, Interface> after = interfaces(target.db());
        if (before.equals(after)) {
            return;
        }
        final int[] low = {0};
        final int[] high = {state.sizing().maxRouterInterfaces() - 1};
        for (final Map.Entry<String, Interface> e : after.entrySet()) {
            final String name = e.getKey();
            final Interface next = e.getValue();
            final Interface was = before.get(name);
            if (was != null && Objects.equals(was.v4(), next.v4()) && Objects.equals(was.v6(), next.v6())) {
                continue;
            }
            final L3State.ConfigRif existing = l3.configRif(name);
            final boolean vlan = next.table().equals("VLAN_INTERFACE");
            final int port =
                    vlan ? ForwardingTables.NONE : target.setup().portIndex().get(name);
            final int vlanId = vlan ? Integer.parseInt(name.substring(4)) : ForwardingTables.NONE;
            final int mtu = vlan ? 9100 : target.setup().tables().portMtu(port);
            final long mac = target.setup().tables().routerMac();
            refuseAs(next.table(), next.key(), "", () -> {
                final int id = existing != null ? existing.id() : freeId(state, l3, low, high, next);
                l3.configRouterInterface(name, id, port, vlanId, mac, mtu, next.v4(), next.v6());
            });
        }
    }

    /**
     * Stages the removal of the interfaces {@code target} drops (after the routes, next hops and neighbors on them).
     *
     * @param l3 the batch's L3 part.
     * @param current the CONFIG_DB in force.
     * @param target the next configuration, compiled (validated).
     * @throws ConfigException naming {@code TABLE|key} of the first interface the control model cannot remove.
     */
    static void remove(final L3Changes l3, final ConfigDb current, final CompiledConfig target) {
        final Map<String, Interface> before = interfaces(current);
        final Map<String, Interface> after = interfaces(target.db());
        for (final Map.Entry<String, Interface> e : before.entrySet()) {
            if (!after.containsKey(e.getKey())) {
                refuseAs(
                        e.getValue().table(), e.getValue().key(), "", () -> l3.removeConfigRouterInterface(e.getKey()));
            }
        }
    }

    /**
     * A free id: first one below the start-up configuration's interface count, then the highest free one. The
     * cursors only move on (ids taken here are staged, so the batch's view knows them).
     */
    private static int freeId(
            final L3State state, final L3Changes l3, final int[] low, final int[] high, final Interface wanted) {
        while (low[0] < state.configRouterInterfaceCount()) {
            final int id = low[0]++;
            if (l3.routerInterfaceFree(id)) {
                return id;
            }
        }
        while (high[0] >= state.configRouterInterfaceCount()) {
            final int id = high[0]--;
            if (l3.routerInterfaceFree(id)) {
                return id;
            }
        }
        throw new ConfigException(
                wanted.table(),
                wanted.key(),
                "",
                "the router interface table (" + state.sizing().maxRouterInterfaces() + ") is full");
    }

    /**
     * The interfaces of a CONFIG_DB by name, each with the first address of each family in key order (the one the
     * compiler gives the interface for the ARP/ND it sends) and the key that names it in errors (the bare interface
     * key if there is one, else its first address key).
     */
    private static Map<String, Interface> interfaces(final ConfigDb db) {
        final Map<String, Interface> out = new LinkedHashMap<>();
        for (final String table : List.of("INTERFACE", "VLAN_INTERFACE")) {
            final Map<String, List<String>> keysByName = new LinkedHashMap<>();
            for (final String key : db.table(table).keySet()) {
                keysByName
                        .computeIfAbsent(key.split("\\|")[0], n -> new ArrayList<>())
                        .add(key);
            }
            keysByName.forEach((name, keys) -> {
                IpPrefix v4 = null;
                IpPrefix v6 = null;
                for (final String key : keys) {
                    final String[] parts = key.split("\\|");
                    if (parts.length == 2) {
                        final IpPrefix host = IpPrefix.parse(parts[1]).hostOf(parts[1]);
                        if (host.v6() && v6 == null) {
                            v6 = host;
                        } else if (!host.v6() && v4 == null) {
                            v4 = host;
                        }
                    }
                }
                out.put(name, new Interface(table, keys.contains(name) ? name : keys.get(0), v4, v6));
            });
        }
        return out;
    }
}
