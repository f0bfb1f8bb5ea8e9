package io.asicemu.p4rt.service;

import com.google.rpc.Code;
import io.asicemu.p4rt.backend.UpdateStatus;

/** The one place where update outcomes become gRPC canonical codes. Stateless. */
final class StatusCodes {
    private StatusCodes() {}

    static Code of(final UpdateStatus status) {
        return switch (status) {
            case OK -> Code.OK;
            case ALREADY_EXISTS -> Code.ALREADY_EXISTS;
            case NOT_FOUND -> Code.NOT_FOUND;
            case RESOURCE_EXHAUSTED -> Code.RESOURCE_EXHAUSTED;
            case INVALID_ARGUMENT -> Code.INVALID_ARGUMENT;
            case PERMISSION_DENIED -> Code.PERMISSION_DENIED;
            case UNIMPLEMENTED -> Code.UNIMPLEMENTED;
            case FAILED_PRECONDITION -> Code.FAILED_PRECONDITION;
            case ABORTED -> Code.ABORTED;
        };
    }
}
