package io.asicemu.p4rt.adapter;

import io.asicemu.p4rt.backend.ActionCall;
import io.asicemu.p4rt.backend.EntryAction;
import io.asicemu.p4rt.backend.EntryKey;
import io.asicemu.p4rt.backend.FieldMatchValue;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.UpdateKind;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.p4rt.info.MatchKind;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;

/** P4Runtime table writes as the tests build them: a direct action with integer parameters, exact and LPM keys. */
final class TableWrites {
    private TableWrites() {}

    /** A table entry write (DELETE carries no action). */
    static WriteOp entry(
            final UpdateKind kind,
            final int table,
            final List<FieldMatchValue> key,
            final int actionId,
            final long... params) {
        final List<BigInteger> values =
                Arrays.stream(params).mapToObj(BigInteger::valueOf).toList();
        return new WriteOp(
                kind,
                new P4Entity.TableEntry(
                        new EntryKey(table, key, 0),
                        kind == UpdateKind.DELETE ? null : new EntryAction.Direct(new ActionCall(actionId, values)),
                        false,
                        0,
                        new byte[0],
                        null,
                        null));
    }

    static FieldMatchValue exact(final int id, final long v) {
        return FieldMatchValue.exact(id, BigInteger.valueOf(v));
    }

    static FieldMatchValue lpm(final int id, final long value, final int length) {
        return new FieldMatchValue(
                id, MatchKind.LPM, BigInteger.valueOf(value), BigInteger.ZERO, length, BigInteger.ZERO);
    }
}
