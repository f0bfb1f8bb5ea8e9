package io.asicemu.flowlet.config;

/**
 * Typed {@code ARS_INTERFACES|<ifname>} (SONiC Local ARS HLD shape): an ARS-enabled port and its load scaling
 * factor in 10G units (SAI: 10G 1, 100G 10, 400G 40). Immutable.
 *
 * @param ifName        interface name, such as {@code Ethernet0}.
 * @param scalingFactor load scaling factor, 1.. (default 1).
 * @param arsObjName    ARS object the interface belongs to, or null.
 */
public record ArsInterfaceConfig(String ifName, int scalingFactor, String arsObjName) {}
