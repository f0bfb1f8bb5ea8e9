package io.asicemu.p4rt.info;

import java.util.List;

/** A digest whose data is a struct of bit fields (the members, in order). Immutable. */
public record DigestInfo(int id, String name, List<ParamInfo> members) {
    public DigestInfo {
        members = List.copyOf(members);
    }
}
