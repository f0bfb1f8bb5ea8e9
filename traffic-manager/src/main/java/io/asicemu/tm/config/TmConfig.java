package io.asicemu.tm.config;

import java.util.List;
import java.util.Map;

/**
 * The typed, validated traffic-manager configuration compiled from CONFIG_DB tables by {@link TmConfigParser}.
 * Immutable by convention: nothing here is mutated after parsing.
 *
 * @param ports            per port, position == port index.
 * @param pools            BUFFER_POOL by name.
 * @param profiles         BUFFER_PROFILE by name.
 * @param wredProfiles     WRED_PROFILE by name.
 * @param schedulers       SCHEDULER by name.
 * @param pollIntervalMs   PFC_WD|GLOBAL POLL_INTERVAL (default 100 ms, orchagent's PFC_WD_POLL_MSECS).
 * @param bigRedSwitch     PFC_WD|GLOBAL BIG_RED_SWITCH == enable.
 * @param warnings         findings that are legal but suspicious (the "ECN before PFC" rule).
 */
public record TmConfig(
        List<PortConfig> ports,
        Map<String, BufferPoolConfig> pools,
        Map<String, BufferProfileConfig> profiles,
        Map<String, WredProfileConfig> wredProfiles,
        Map<String, SchedulerConfig> schedulers,
        int pollIntervalMs,
        boolean bigRedSwitch,
        List<String> warnings) {}
