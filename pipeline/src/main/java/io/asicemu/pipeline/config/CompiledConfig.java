package io.asicemu.pipeline.config;

import io.asicemu.flowlet.config.FlowletConfig;
import io.asicemu.pipeline.control.ConfigGroup;
import io.asicemu.pipeline.control.SwitchSetup;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.RouteSlots;
import io.asicemu.tm.config.SonicDefaults;
import io.asicemu.tm.config.TmConfig;
import java.util.List;
import java.util.Map;

/**
 * A validated configuration compiled into data-path form, plus the control-side model the control API edits
 * further (routes with their LPM values, interfaces, next hops and groups by id).
 *
 * @param db the raw CONFIG_DB it came from.
 * @param portNames SONiC port names by port index.
 * @param portIndex SONiC port name → index.
 * @param naming SONiC ↔ Linux names.
 * @param tables the compiled tables (to be handed to the data-plane agent).
 * @param tmConfig the traffic manager's typed config.
 * @param flowletConfig the hash / ARS config.
 * @param aclNames {@code TABLE|RULE} by ACL counter index.
 * @param routes every LPM entry (connected, local and static) → its encoded value.
 * @param routerInterfaces interface name (EthernetN or VlanN) → router interface id.
 * @param nextHopCount next-hop ids used (0..n-1).
 * @param groupCount group ids used (0..n-1).
 * @param groups the groups by id (0..groupCount-1): what each was made of, so that a running switch can tell a
 *     configuration's groups apart from another's by their members rather than their ids.
 * @param routeSlots every route's LPM slot (the control model copies it and allocates further slots).
 */
public record CompiledConfig(
        ConfigDb db,
        List<String> portNames,
        Map<String, Integer> portIndex,
        PortNaming naming,
        ForwardingTables tables,
        TmConfig tmConfig,
        FlowletConfig flowletConfig,
        String[] aclNames,
        Map<IpPrefix, Integer> routes,
        Map<String, Integer> routerInterfaces,
        int nextHopCount,
        int groupCount,
        List<ConfigGroup> groups,
        RouteSlots routeSlots) {

    /**
     * @return what this configuration installs, in the control model's terms (a new record each call: the control
     *     model tells configurations apart by the setup it installed).
     */
    public SwitchSetup setup() {
        return new SwitchSetup(
                portNames,
                portIndex,
                tables,
                tmConfig,
                flowletConfig,
                aclNames,
                routes,
                routerInterfaces,
                nextHopCount,
                groupCount,
                groups,
                routeSlots,
                SonicDefaults.BUFFER_TABLES.stream().anyMatch(t -> !db.table(t).isEmpty()));
    }
}
