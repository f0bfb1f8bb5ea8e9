package io.asicemu.routing;

import io.asicemu.testsupport.netns.Background;
import io.asicemu.testsupport.netns.Commands;
import io.asicemu.testsupport.netns.FrrTestDaemons;
import io.asicemu.testsupport.netns.IpLinkNames;
import io.asicemu.testsupport.netns.NamespacedThread;
import io.asicemu.testsupport.netns.Netns;
import io.asicemu.testsupport.netns.NetnsLab;
import io.asicemu.testsupport.netns.Offloads;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A router namespace for Debian's zebra and staticd: namespace {@code rt} with ports {@code Ethernet0} (10.0.1.1/24,
 * 2001:db8:1::1/64) and {@code Ethernet4} (10.0.2.1/24), veth pairs to a namespace {@code nb} holding the neighbours
 * (10.0.1.2, 10.0.2.2, 2001:db8:1::2); the daemons' config, pid files and sockets in a directory frr owns; an FPM
 * listener on 127.0.0.1 of {@code rt}. Closing kills the daemons, stops the listener, deletes both namespaces and the
 * directory. Needs root. Not thread safe.
 */
final class ZebraNamespace implements AutoCloseable {
    private final NetnsLab lab;
    private final Netns router;
    private final Path frrDir;
    private final List<Background> daemons = new ArrayList<>();
    private FpmServer server;

    ZebraNamespace() throws Exception {
        FrrTestDaemons.requireInstalled(FrrTestDaemons.ZEBRA);
        lab = NetnsLab.create();
        try {
            router = lab.namespace("rt");
            final Netns neighbors = lab.namespace("nb");
            // no link-local addresses on the ports: zebra would announce fe80::/64 through whichever port it saw
            // last, a different one after each restart (a real change from zebra, but one tests would chase)
            router.execOk("sysctl", "-q", "-w", "net.ipv6.conf.default.addr_gen_mode=1");
            lab.link(router, "Ethernet0", neighbors, "n0", Offloads.KERNEL_DEFAULT, 1500);
            lab.link(router, "Ethernet4", neighbors, "n4", Offloads.KERNEL_DEFAULT, 1500);
            router.addAddress("Ethernet0", "10.0.1.1/24");
            router.addAddress("Ethernet4", "10.0.2.1/24");
            router.execOk("ip", "addr", "add", "2001:db8:1::1/64", "dev", "Ethernet0", "nodad");
            neighbors.addAddress("n0", "10.0.1.2/24");
            neighbors.addAddress("n4", "10.0.2.2/24");
            neighbors.execOk("ip", "addr", "add", "2001:db8:1::2/64", "dev", "n0", "nodad");
            frrDir = FrrTestDaemons.directory(null, "asicemu-fpm-frr-");
        } catch (final Exception | Error e) {
            lab.close();
            throw e;
        }
    }

    /** @return the router namespace. */
    Netns router() {
        return router;
    }

    /** Starts the FPM listener on 127.0.0.1 (any port) of the router namespace, names from that namespace. */
    FpmServer startListener(final Duration gracePeriod, final RouteSink sink) throws Exception {
        final String namespace = router.name();
        server = NamespacedThread.callIn(
                namespace,
                () -> FpmServer.start(
                        FpmServer.Settings.defaults()
                                .withAddress(new InetSocketAddress("127.0.0.1", 0))
                                .withGracePeriod(gracePeriod)
                                .withInterfaceNames(new IpLinkNames(namespace)::nameOf),
                        sink));
        return server;
    }

    /**
     * Starts zebra ({@code -M dplane_fpm_nl}, SONiC's FPM settings, pointed at the listener) and then staticd with
     * {@code staticdConfig}; both run at most {@code lifetime} and are killed by {@link #killDaemons()} or close.
     */
    void startDaemons(final String staticdConfig, final Duration lifetime) throws Exception {
        final Path zebraConf = Files.writeString(
                frrDir.resolve("zebra.conf"),
                "hostname fpm-test\nno fpm use-next-hop-groups\nfpm address 127.0.0.1 port " + server.port() + "\n");
        final Path staticdConf = Files.writeString(frrDir.resolve("staticd.conf"), staticdConfig);
        final Path zserv = frrDir.resolve("zserv.api");
        Files.deleteIfExists(zserv); // a killed zebra's socket file
        daemons.add(router.start(
                lifetime, FrrTestDaemons.command(FrrTestDaemons.ZEBRA, frrDir, zebraConf, "-M", "dplane_fpm_nl")));
        // staticd started before zebra listens retries only after its reconnect delay
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(zserv) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        if (!Files.exists(zserv)) {
            throw new IllegalStateException("zebra did not open its API socket within 10 s");
        }
        daemons.add(router.start(lifetime, FrrTestDaemons.command(FrrTestDaemons.STATICD, frrDir, staticdConf)));
    }

    /** Kills zebra and staticd with SIGKILL: zebra crashes, it does not say goodbye. */
    void killDaemons() {
        for (final Background daemon : daemons) {
            daemon.close();
        }
        daemons.clear();
    }

    /** Runs vtysh commands against the daemons (their vty sockets), failing unless it exits 0. */
    void vtysh(final String... commands) {
        FrrTestDaemons.vtysh(frrDir, commands);
    }

    @Override
    public void close() {
        killDaemons();
        if (server != null) {
            server.close();
        }
        lab.close();
        Commands.runQuietly("rm", "-rf", frrDir.toString());
    }
}
