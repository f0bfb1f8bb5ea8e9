/** AF_PACKET ports over memory-mapped TPACKET_V2 rings: {@link io.asicemu.veth.afpacket.AfPacketPort} with
 * {@link io.asicemu.veth.afpacket.AfPacketConfig}. */
package io.asicemu.veth.afpacket;
