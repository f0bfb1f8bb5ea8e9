package io.asicemu.pipeline.control;

import io.asicemu.flowlet.config.FlowletConfig;
import io.asicemu.pipeline.table.ForwardingTables;
import io.asicemu.pipeline.table.IpPrefix;
import io.asicemu.pipeline.table.RouteSlots;
import io.asicemu.tm.config.TmConfig;
import java.util.List;
import java.util.Map;

/**
 * What a validated configuration installs on a switch, in the control model's terms: the data-path tables and the
 * traffic manager's and hash engine's settings, plus the objects the control model tracks as the configuration's
 * (routes, interfaces, next hops, groups). The config side ({@code pipeline.config}) compiles CONFIG_DB into it;
 * {@link PipelineControl#install} installs it and the control model's parts start from it.
 *
 * @param portNames SONiC port names by port index.
 * @param portIndex SONiC port name → index.
 * @param tables the compiled tables (to be handed to the data-plane agent).
 * @param tmConfig the traffic manager's typed config.
 * @param flowletConfig the hash / ARS config.
 * @param aclNames {@code TABLE|RULE} by ACL counter index.
 * @param routes every LPM entry (connected, local and static) → its encoded value.
 * @param routerInterfaces interface name (EthernetN or VlanN) → router interface id.
 * @param nextHopCount next-hop ids used (0..n-1).
 * @param groupCount group ids used (0..n-1).
 * @param groups the groups by id (0..groupCount-1).
 * @param routeSlots every route's LPM slot (the control model copies it and allocates further slots).
 * @param configuredBuffers whether the configuration has BUFFER_* tables of its own (then its BUFFER_PG profiles'
 *     xoff/xon are runtime knobs; the default buffer the emulator adds has none to tune).
 */
public record SwitchSetup(
        List<String> portNames,
        Map<String, Integer> portIndex,
        ForwardingTables tables,
        TmConfig tmConfig,
        FlowletConfig flowletConfig,
        String[] aclNames,
        Map<IpPrefix, Integer> routes,
        Map<String, Integer> routerInterfaces,
        int nextHopCount,
        int groupCount,
        List<ConfigGroup> groups,
        RouteSlots routeSlots,
        boolean configuredBuffers) {}
