/** The network-namespace harness for tests, benchmarks and labs: {@link io.asicemu.veth.harness.NetnsLab#create()}
 * makes namespaces ({@link io.asicemu.veth.harness.Netns}), veth links and switch ports, and removes them on close. */
package io.asicemu.veth.harness;
