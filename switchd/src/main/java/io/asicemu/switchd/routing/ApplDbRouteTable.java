package io.asicemu.switchd.routing;

import io.asicemu.routing.ApplDbRoutes;
import io.asicemu.routing.ProtocolNames;
import io.asicemu.routing.Route;
import io.asicemu.routing.RoutePrefix;
import io.asicemu.routing.RouteSink;
import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * APPL_DB's ROUTE_TABLE as SONiC's fpmsyncd writes it from the routes zebra selected (keys {@code
 * ROUTE_TABLE:<prefix>}, fields {@code protocol}, {@code nexthop}, {@code ifname}, {@code weight} or {@code
 * blackhole}): a second sink of the FPM listener beside the control model's writer, served over the Redis port as DB 0.
 * Thread safe: written by the listener's thread, read by the Redis front's (a live, sorted, read-only view).
 */
public final class ApplDbRouteTable implements RouteSink {
    private final ApplDbRoutes forms;
    private final ConcurrentSkipListMap<String, Map<String, String>> table = new ConcurrentSkipListMap<>();

    /** @param protocolNames how the {@code protocol} field names protocol numbers. */
    public ApplDbRouteTable(final ProtocolNames protocolNames) {
        this.forms = new ApplDbRoutes(protocolNames);
    }

    @Override
    public void replace(final Route route) {
        apply(forms.forReplace(route));
    }

    @Override
    public void withdraw(final RoutePrefix prefix) {
        apply(forms.forWithdraw(prefix));
    }

    private void apply(final ApplDbRoutes.Write write) {
        if (write == null) {
            return; // unreachable and prohibit routes: fpmsyncd writes nothing
        }
        if (write.delete()) {
            table.remove(write.key());
        } else {
            table.put(write.key(), Collections.unmodifiableMap(write.fields()));
        }
    }

    /** @return the table's keys → fields, sorted, live and read-only. */
    public NavigableMap<String, Map<String, String>> view() {
        return Collections.unmodifiableNavigableMap(table);
    }
}
