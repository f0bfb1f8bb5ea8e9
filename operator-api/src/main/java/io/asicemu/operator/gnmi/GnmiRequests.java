package io.asicemu.operator.gnmi;

import io.asicemu.operator.gnmi.proto.ModelData;
import io.asicemu.operator.gnmi.proto.Path;
import io.asicemu.operator.gnmi.proto.PathElem;
import io.asicemu.operator.gnmi.proto.ext.Extension;
import io.grpc.Status;
import io.grpc.StatusException;
import java.util.ArrayList;
import java.util.List;

/** Checks of the parts every gNMI request shares: paths, models and extensions. Stateless; any thread. */
final class GnmiRequests {
    /** The one schema the server serves (SONiC's telemetry advertises its databases under this name). */
    static final ModelData SONIC_DB = ModelData.newBuilder()
            .setName("sonic-db")
            .setOrganization("SONiC")
            .setVersion("0.1.0")
            .build();

    private GnmiRequests() {}

    /**
     * @param prefix the request's prefix (may be the default instance).
     * @param path one path.
     * @return prefix then path element names.
     * @throws StatusException INVALID_ARGUMENT for an origin other than none or {@code sonic-db}, the deprecated
     *     string {@code element}s, keys on elements (SONiC's database paths have none) or a target on the path.
     */
    static List<String> elements(final Path prefix, final Path path) throws StatusException {
        final List<String> out = new ArrayList<>();
        for (final Path p : List.of(prefix, path)) {
            if (!p.getOrigin().isEmpty() && !p.getOrigin().equals(SONIC_DB.getName())) {
                throw invalid("origin " + p.getOrigin() + " is not served (only sonic-db or none)");
            }
            if (p.getElementCount() > 0) {
                throw invalid("the deprecated Path.element is not supported: use elem");
            }
            for (final PathElem elem : p.getElemList()) {
                if (elem.getKeyCount() > 0) {
                    throw invalid("path element " + elem.getName() + " has keys " + elem.getKeyMap()
                            + ": SONiC database paths name keys as elements, e.g. PORT/Ethernet0");
                }
                out.add(elem.getName());
            }
        }
        if (!path.getTarget().isEmpty()) {
            throw invalid("target belongs in the prefix, not in a path (spec 2.2.2.1)");
        }
        return out;
    }

    /**
     * @param models the request's use_models.
     * @throws StatusException INVALID_ARGUMENT if models are given and none is {@code sonic-db}.
     */
    static void checkModels(final List<ModelData> models) throws StatusException {
        if (models.isEmpty()) {
            return;
        }
        for (final ModelData m : models) {
            if (m.getName().equals(SONIC_DB.getName())) {
                return;
            }
        }
        throw invalid("use_models names no model served here; the only one is sonic-db");
    }

    /**
     * @param extensions the request's extensions.
     * @throws StatusException UNIMPLEMENTED for History (no history is kept); other extensions are ignored (reads
     *     need no master arbitration).
     */
    static void checkExtensions(final List<Extension> extensions) throws StatusException {
        for (final Extension e : extensions) {
            if (e.hasHistory()) {
                throw Status.UNIMPLEMENTED
                        .withDescription("the History extension is not supported: the switch keeps no history")
                        .asException();
            }
        }
    }

    static StatusException invalid(final String why) {
        return Status.INVALID_ARGUMENT.withDescription(why).asException();
    }
}
