package io.asicemu.pipeline.control;

/**
 * One L2 FDB entry as {@code show mac} lists it.
 *
 * @param vlanId the VLAN.
 * @param mac the MAC.
 * @param port the SONiC port name.
 * @param isStatic whether static.
 */
public record FdbEntry(int vlanId, long mac, String port, boolean isStatic) {}
