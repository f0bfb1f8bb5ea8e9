package io.asicemu.switchd.routing;

import io.asicemu.routing.Route;
import io.asicemu.routing.RoutePrefix;
import io.asicemu.routing.RouteSink;

/** The FPM listener's routes to two sinks in turn (the control model's writer, then APPL_DB's table). */
record BothSinks(RouteSink first, RouteSink second) implements RouteSink {
    @Override
    public void replace(final Route route) {
        first.replace(route);
        second.replace(route);
    }

    @Override
    public void withdraw(final RoutePrefix prefix) {
        first.withdraw(prefix);
        second.withdraw(prefix);
    }

    @Override
    public void connected() {
        first.connected();
        second.connected();
    }

    @Override
    public void disconnected() {
        first.disconnected();
        second.disconnected();
    }

    @Override
    public void reconciled() {
        first.reconciled();
        second.reconciled();
    }
}
