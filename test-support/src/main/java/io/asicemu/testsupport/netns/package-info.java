/**
 * The network-namespace harness for tests and benchmarks (never production code): {@link
 * io.asicemu.testsupport.netns.NetnsLab#create()} makes namespaces ({@link io.asicemu.testsupport.netns.Netns}), veth
 * links and switch ports, and removes them on close; {@link io.asicemu.testsupport.netns.Capture} runs a bounded
 * tcpdump in a namespace; {@link io.asicemu.testsupport.netns.NamespacedThread} runs code (opening a listener) inside a
 * namespace, {@link io.asicemu.testsupport.netns.IpLinkNames} names its interfaces.
 */
package io.asicemu.testsupport.netns;
