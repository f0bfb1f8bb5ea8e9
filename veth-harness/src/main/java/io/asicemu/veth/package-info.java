/** Linux ports for asic-emu: AF_PACKET ({@link io.asicemu.veth.afpacket}) and TAP ({@link io.asicemu.veth.tap}) ports
 * via FFM ({@link io.asicemu.veth.ffm}), hot-plug discovery ({@link io.asicemu.veth.discovery}), the idle poller
 * {@link io.asicemu.veth.PortPoller}, and {@link io.asicemu.veth.LinuxSwitch} (a pipeline on this module's ports: the data plane switchd runs). */
package io.asicemu.veth;
