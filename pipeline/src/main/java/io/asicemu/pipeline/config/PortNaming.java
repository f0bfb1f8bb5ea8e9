package io.asicemu.pipeline.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SONiC port names ↔ Linux interface names. The default follows sonic-vs: the i-th port in index order is
 * {@code eth(i+1)} (Ethernet0 → eth1, Ethernet4 → eth2, …); explicit overrides replace single entries. Immutable.
 */
public final class PortNaming {
    private final Map<String, String> sonicToLinux;
    private final Map<String, String> linuxToSonic;

    private PortNaming(final Map<String, String> sonicToLinux) {
        this.sonicToLinux = Map.copyOf(sonicToLinux);
        final Map<String, String> reverse = new LinkedHashMap<>();
        sonicToLinux.forEach((s, l) -> reverse.put(l, s));
        this.linuxToSonic = Map.copyOf(reverse);
    }

    /**
     * @param portsInIndexOrder SONiC port names in index order.
     * @param overrides SONiC name → Linux name replacing the default (may be empty).
     * @return the naming.
     */
    public static PortNaming of(final List<String> portsInIndexOrder, final Map<String, String> overrides) {
        final Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < portsInIndexOrder.size(); i++) {
            map.put(portsInIndexOrder.get(i), "eth" + (i + 1));
        }
        map.putAll(overrides);
        return new PortNaming(map);
    }

    /**
     * @param sonicName a SONiC port name.
     * @return its Linux name, or null.
     */
    public String linuxName(final String sonicName) {
        return sonicToLinux.get(sonicName);
    }

    /**
     * @param linuxName a Linux interface name.
     * @return its SONiC name, or null.
     */
    public String sonicName(final String linuxName) {
        return linuxToSonic.get(linuxName);
    }
}
