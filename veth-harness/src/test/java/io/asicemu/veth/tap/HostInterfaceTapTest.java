package io.asicemu.veth.tap;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.NetnsLabExtension;
import io.asicemu.veth.ffm.Kernel;
import io.asicemu.veth.ffm.Rtnetlink;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A host interface's TAP as the kernel sees it ({@code /sys/class/net}, {@code ip addr}): the MAC and MTU it was
 * given, its carrier following {@link HostInterfaceTap#carrier}, an address added through rtnetlink, and gone once
 * closed.
 */
@Tag("netns")
@ExtendWith(NetnsLabExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostInterfaceTapTest {
    private static String sys(final String ifName, final String file) throws Exception {
        return Files.readString(Path.of("/sys/class/net", ifName, file)).trim();
    }

    @Test
    void shouldTakeMacMtuCarrierAndAddressWhenCreated() throws Exception {
        try (NetnsLab lab = NetnsLab.create()) {
            final String name = lab.prefix() + "-hi0";
            final byte[] mac = {0x02, (byte) 0xaa, 0, 0, 0, 0x01};
            try (HostInterfaceTap tap = HostInterfaceTap.create(name, mac, 9100)) {
                tap.up();
                assertThat(sys(name, "address")).isEqualTo("02:aa:00:00:00:01");
                assertThat(sys(name, "mtu")).isEqualTo("9100");
                assertThat(sys(name, "carrier")).as("carrier off at creation").isEqualTo("0");
                tap.carrier(true);
                assertThat(sys(name, "carrier")).isEqualTo("1");
                assertThat(sys(name, "operstate")).isEqualTo("up");
                tap.carrier(false);
                assertThat(sys(name, "carrier")).isEqualTo("0");

                assertThat(Rtnetlink.addAddress(tap.ifIndex(), InetAddress.getByName("192.0.2.1"), 31))
                        .isZero();
                assertThat(Rtnetlink.addAddress(tap.ifIndex(), InetAddress.getByName("192.0.2.1"), 31))
                        .as("twice: EEXIST")
                        .isEqualTo(17);
                assertThat(Commands.runOrFail("ip", "-o", "-4", "addr", "show", "dev", name)
                                .stdout())
                        .contains("inet 192.0.2.1/31");
                assertThat(Rtnetlink.ipv4DevConf(
                                tap.ifIndex(), Rtnetlink.IPV4_DEVCONF_ARP_IGNORE, Rtnetlink.ARP_IGNORE_NEVER))
                        .isZero();
                assertThat(Files.readString(Path.of("/proc/sys/net/ipv4/conf", name, "arp_ignore"))
                                .trim())
                        .as("the IPV4_DEVCONF id is arp_ignore's")
                        .isEqualTo("8");
                assertThat(Rtnetlink.ipv6AddrGenModeNone(tap.ifIndex())).isZero();
                assertThat(Files.readString(Path.of("/proc/sys/net/ipv6/conf", name, "addr_gen_mode"))
                                .trim())
                        .isEqualTo("1");
                assertThat(Rtnetlink.deleteAddress(tap.ifIndex(), InetAddress.getByName("192.0.2.1"), 31))
                        .isZero();
                assertThat(tap.read(java.lang.foreign.Arena.ofAuto().allocate(HostInterfaceTap.MAX_FRAME_BYTES)))
                        .as("nothing sent on a carrier-less interface: a read does not block")
                        .isGreaterThanOrEqualTo(0);
            }
            assertThat(Path.of("/sys/class/net", name)).as("removed on close").doesNotExist();
        }
    }

    @Test
    void shouldReportWhetherTheKernelCanMakeDummyInterfaces() {
        try (NetnsLab lab = NetnsLab.create()) {
            final String name = lab.prefix() + "-lo0";
            final int errno = Rtnetlink.addDummy(name);
            System.out.println("dummy interfaces on this kernel: "
                    + (errno == 0
                            ? "yes"
                            : "no, errno " + errno + " (" + io.asicemu.veth.ffm.Libc.strerror(errno) + ")"));
            if (errno == 0) {
                assertThat(Path.of("/sys/class/net", name)).exists();
                assertThat(Rtnetlink.deleteLink(io.asicemu.veth.ffm.Libc.ifNameToIndex(name)))
                        .isZero();
                assertThat(Path.of("/sys/class/net", name)).doesNotExist();
            } else {
                assertThat(errno)
                        .as("a missing driver, not a malformed request")
                        .isIn(95, 2, Kernel.ENODEV);
            }
        }
    }
}
