/**
 * The FPM listener: zebra's {@code dplane_fpm_nl} route stream ({@link io.asicemu.routing.FpmServer#start}) decoded
 * into {@link io.asicemu.routing.Route}s for a {@link io.asicemu.routing.RouteSink}, reconciled across zebra restarts,
 * and their SONiC APPL_DB form ({@link io.asicemu.routing.ApplDbRoutes}).
 */
package io.asicemu.routing;
