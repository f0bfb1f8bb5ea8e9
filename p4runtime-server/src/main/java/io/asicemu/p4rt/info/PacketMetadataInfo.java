package io.asicemu.p4rt.info;

/** One field of the packet_in or packet_out controller header. Immutable. */
public record PacketMetadataInfo(int id, String name, int bitwidth) {}
