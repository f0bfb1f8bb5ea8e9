/** Linux ports for asic-emu: AF_PACKET ({@link io.asicemu.veth.afpacket}) and TAP ({@link io.asicemu.veth.tap}) ports
 * via FFM ({@link io.asicemu.veth.ffm}), hot-plug discovery ({@link io.asicemu.veth.discovery}), the idle poller
 * {@link io.asicemu.veth.PortPoller}, and the network-namespace harness ({@link io.asicemu.veth.harness}). */
package io.asicemu.veth;
