package io.asicemu.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports on the loopback address, for a server a test starts (P4Runtime, Redis, metrics, gNMI). */
public final class LoopbackPorts {
    private LoopbackPorts() {}

    /**
     * @return a TCP port nothing listened on a moment ago (the kernel's choice; another process may still take it
     *     before the test binds it, which the test then reports as a bind failure).
     */
    public static int free() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (final IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
