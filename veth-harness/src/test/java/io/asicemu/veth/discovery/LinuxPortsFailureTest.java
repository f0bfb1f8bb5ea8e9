package io.asicemu.veth.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.port.Port;
import io.asicemu.veth.afpacket.AfPacketConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A port that cannot be attached is remembered with the reason, so the switch reports it down and says why instead
 * of listing it as healthy; the entry goes when the interface goes. (The interface here does not exist, the same path
 * as a socket or setsockopt refused without CAP_NET_RAW/CAP_NET_ADMIN: an IllegalStateException naming errno.)
 */
class LinuxPortsFailureTest {

    @Test
    void shouldRememberWhyAPortCouldNotBeAttachedUntilItsInterfaceGoes() {
        final List<String> attached = new ArrayList<>();
        final LinuxPorts ports = new LinuxPorts(name -> true, AfPacketConfig.defaults(), new LinuxPorts.PortSink() {
            @Override
            public void attach(final Port port) {
                attached.add(port.name());
            }

            @Override
            public void detach(final Port port) {}
        });

        ports.onPortAdded("asicemu-nope0", 4242);

        assertThat(attached).isEmpty();
        assertThat(ports.ports()).doesNotContainKey("asicemu-nope0");
        assertThat(ports.failures()).containsOnlyKeys("asicemu-nope0");
        assertThat(ports.failures().get("asicemu-nope0")).contains("asicemu-nope0");

        ports.onPortRemoved("asicemu-nope0", 4242);
        assertThat(ports.failures()).isEmpty();
    }
}
