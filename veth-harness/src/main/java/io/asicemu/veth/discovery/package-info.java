/** Hot-plug port discovery: {@link io.asicemu.veth.discovery.PortDiscovery} (rtnetlink link events + /sys/class/net)
 * and {@link io.asicemu.veth.discovery.LinuxPorts}, which attaches AF_PACKET ports as interfaces come and go. */
package io.asicemu.veth.discovery;
