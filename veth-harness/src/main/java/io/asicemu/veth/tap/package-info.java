/** TAP ports: {@link io.asicemu.veth.tap.TapPort} creates its Linux interface through /dev/net/tun. */
package io.asicemu.veth.tap;
