package io.asicemu.switchd.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.config.ConfigDb;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * frr.conf as rendered from CONFIG_DB: what a leaf announces (its loopback and its hosts' subnet, not the links to its
 * spines), one neighbor block per BGP_NEIGHBOR with SONiC's defaults, and a file FRR's own parser accepts
 * ({@code vtysh --dryrun}, Debian's FRR, the one the appliance runs; CI installs it).
 */
class FrrConfigTest {
    private static final String LEAF = """
        {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "bgp_asn": "65101", "mac": "02:00:00:00:01:01"}},
         "PORT": {"Ethernet0": {"speed": "100000", "admin_status": "up"}, "Ethernet4": {"speed": "100000", "admin_status": "up"},
                  "Ethernet8": {"speed": "100000", "admin_status": "up"}},
         "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.1/31": {}, "Ethernet4": {}, "Ethernet4|10.0.0.3/31": {},
                       "Ethernet8": {}, "Ethernet8|192.168.1.1/24": {}, "Ethernet8|fc00:1:1::1/64": {}},
         "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}},
         "BGP_NEIGHBOR": {"10.0.0.0": {"asn": "65000", "name": "spine1"},
                          "10.0.0.2": {"asn": "65000", "name": "spine2", "holdtime": "9", "keepalive": "3",
                                       "bfd": "true", "admin_status": "down"}}}""";

    @Test
    void shouldAnnounceTheLoopbackAndTheHostSubnetsButNotTheLinksToItsPeers() {
        final String conf = FrrConfig.render(ConfigDb.parse(LEAF));
        assertThat(conf)
                .contains("router bgp 65101\n")
                .contains(" bgp router-id 10.1.0.1\n")
                .contains("  network 10.1.0.1/32\n")
                .contains("  network 192.168.1.0/24\n")
                .contains("  network fc00:1:1:0:0:0:0:0/64\n")
                .doesNotContain("network 10.0.0.0/31")
                .doesNotContain("network 10.0.0.2/31")
                .contains("no fpm use-next-hop-groups\n")
                .contains("  maximum-paths 64\n");
        assertThat(conf)
                .contains(" neighbor 10.0.0.0 remote-as 65000\n neighbor 10.0.0.0 peer-group PEER_V4\n"
                        + " neighbor 10.0.0.0 description spine1\n neighbor 10.0.0.0 timers connect 10\n")
                .as("SONiC renders timers only when they differ from 60/180 s")
                .doesNotContain("neighbor 10.0.0.0 timers 60")
                .contains(" neighbor 10.0.0.2 timers 3 9\n")
                .contains(" neighbor 10.0.0.2 shutdown\n")
                .contains(" neighbor 10.0.0.2 bfd\n")
                .contains("  neighbor 10.0.0.2 activate\n");
    }

    @Test
    void shouldRenderWhatFrrsOwnParserAccepts(@TempDir final Path dir) throws Exception {
        final Path conf = Files.writeString(dir.resolve("frr.conf"), FrrConfig.render(ConfigDb.parse(LEAF)));
        assertThat(vtyshDryRun(conf))
                .as("vtysh --dryrun on\n" + Files.readString(conf))
                .isEqualTo("0: ");
        final Path broken = Files.writeString(dir.resolve("broken.conf"), "router bgp 65101\n maximum-paths 9999\n");
        assertThat(vtyshDryRun(broken))
                .as("the oracle refuses what FRR refuses")
                .doesNotStartWith("0:");
        final Path none = Files.writeString(
                dir.resolve("none.conf"),
                FrrConfig.render(ConfigDb.parse("{\"PORT\": {\"Ethernet0\": {\"speed\": \"10000\"}}}")));
        assertThat(vtyshDryRun(none)).as("no ASN: zebra's part only").isEqualTo("0: ");
    }

    /** @return "exit code: output" of FRR's config check. */
    private static String vtyshDryRun(final Path conf) throws IOException, InterruptedException {
        final Process p = new ProcessBuilder("vtysh", "--dryrun", "--inputfile", conf.toString())
                .redirectErrorStream(true)
                .start();
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("vtysh --dryrun did not finish");
        }
        return p.exitValue() + ": " + output;
    }
}
