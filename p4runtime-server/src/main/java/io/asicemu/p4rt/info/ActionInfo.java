package io.asicemu.p4rt.info;

import java.util.List;

/** An action and its parameters in id order. Immutable. */
public record ActionInfo(int id, String name, String alias, List<ParamInfo> params) {
    public ActionInfo {
        params = List.copyOf(params);
    }

    /** @return the parameter with this id, or null. */
    public ParamInfo param(final int paramId) {
        for (final ParamInfo p : params) {
            if (p.id() == paramId) {
                return p;
            }
        }
        return null;
    }
}
