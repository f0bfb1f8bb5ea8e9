/** Java FFM bindings to the libc calls and kernel structs the Linux ports use: {@link io.asicemu.veth.ffm.Libc},
 * {@link io.asicemu.veth.ffm.Kernel}, {@link io.asicemu.veth.ffm.NetDevice}, {@link io.asicemu.veth.ffm.PollSet}. */
package io.asicemu.veth.ffm;
