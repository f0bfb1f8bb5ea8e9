package io.asicemu.p4rt.backend;

import java.math.BigInteger;
import java.util.List;

/** An action with its parameter values in P4Info parameter order. Immutable. */
public record ActionCall(int actionId, List<BigInteger> params) {
    public ActionCall {
        params = List.copyOf(params);
    }
}
