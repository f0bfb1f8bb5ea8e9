package io.asicemu.p4rt.backend;

import java.util.List;

/** What a table entry does: a direct action, a one-shot selector set, or a member/group of an action profile. */
public sealed interface EntryAction {
    /** A direct action. */
    record Direct(ActionCall call) implements EntryAction {}

    /** A one-shot action set of a selector table; read back exactly as written. */
    record OneShot(List<WeightedAction> actions) implements EntryAction {
        public OneShot {
            actions = List.copyOf(actions);
        }
    }

    /** A reference to an action profile member. */
    record Member(int memberId) implements EntryAction {}

    /** A reference to an action profile group. */
    record Group(int groupId) implements EntryAction {}

    /** One member of a one-shot set; {@code watchPort} is -1 when no port is watched. */
    record WeightedAction(ActionCall call, int weight, int watchPort) {}
}
