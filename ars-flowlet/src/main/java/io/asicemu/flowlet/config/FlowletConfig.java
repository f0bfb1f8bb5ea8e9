package io.asicemu.flowlet.config;

import io.asicemu.flowlet.GroupSettings;
import io.asicemu.flowlet.ars.QualitySettings;
import io.asicemu.flowlet.ecmp.LoadBalanceMode;
import io.asicemu.flowlet.hash.SplitMix64;
import java.util.Map;

/**
 * Everything this module reads from CONFIG_DB, typed and cross-checked: SWITCH_HASH|GLOBAL, the device role that
 * set the default seeds, and the ARS tables. Build it with {@link FlowletConfigParser#parse}; derive the data-path
 * settings with {@link #groupSettings(String)} and {@link #qualitySettings()}. Immutable.
 *
 * @param deviceRole   role from DEVICE_METADATA|localhost.type.
 * @param switchHash   hashing.
 * @param arsProfile   the switch's ARS profile, or null when none is configured.
 * @param arsObjects   ARS objects by name.
 * @param arsInterfaces ARS interfaces by name.
 * @param arsGroups    next-hop group bindings by group name.
 */
public record FlowletConfig(
        DeviceRole deviceRole,
        SwitchHashConfig switchHash,
        ArsProfileConfig arsProfile,
        Map<String, ArsObjectConfig> arsObjects,
        Map<String, ArsInterfaceConfig> arsInterfaces,
        Map<String, ArsNextHopGroupConfig> arsGroups) {
    /**
     * Copy maps immutably.
     */
    public FlowletConfig {
        arsObjects = Map.copyOf(arsObjects);
        arsInterfaces = Map.copyOf(arsInterfaces);
        arsGroups = Map.copyOf(arsGroups);
    }

    /**
     * @return path-quality settings of the ARS profile, or the SAI defaults when there is none.
     */
    public QualitySettings qualitySettings() {
        return arsProfile == null ? QualitySettings.defaults() : arsProfile.qualitySettings();
    }

    /**
     * Settings of a next-hop group. Mode: the group's {@code lb_mode} override, else the assign mode of its ARS object
     * (its {@code ars_obj_name}, else the profile's {@code default_ars_object}), else the switch's
     * {@code ecmp_lb_mode}. Flowlet table size and idle time come from that ARS object (else SAI defaults).
     *
     * @param groupName group name (entries are optional).
     * @return concluded settings.
     */
    public GroupSettings groupSettings(final String groupName) {
        final ArsNextHopGroupConfig group = arsGroups.get(groupName);
        String objectName = group == null ? null : group.arsObjName();
        if (objectName == null && arsProfile != null) {
            objectName = arsProfile.defaultArsObject();
        }
        final ArsObjectConfig object = objectName == null ? null : arsObjects.get(objectName);
        LoadBalanceMode mode = switchHash.ecmpLbMode();
        if (group != null && group.lbMode() != null) {
            mode = group.lbMode();
        } else if (object != null) {
            mode = object.assignMode();
        }
        final long profileSeed = arsProfile == null ? switchHash.randomSeed() : arsProfile.randomSeed();
        GroupSettings settings =
                GroupSettings.of(mode).withRandomSeed(SplitMix64.mix(profileSeed ^ groupName.hashCode()));
        if (group != null) {
            settings = settings.withResilient(group.resilient(), group.resilientBuckets());
        }
        if (object != null) {
            settings = settings.withFlowlet(object.maxFlows(), object.flowletIdleTimeUs() * 1000);
        }
        return settings;
    }
}
