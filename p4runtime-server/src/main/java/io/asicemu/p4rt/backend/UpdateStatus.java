package io.asicemu.p4rt.backend;

/**
 * The closed set of outcomes of one update (as BMv2's MatchErrorCode / ONOS's EntityUpdateStatus). The service
 * maps them to gRPC canonical codes in one place.
 */
public enum UpdateStatus {
    OK,
    ALREADY_EXISTS,
    NOT_FOUND,
    RESOURCE_EXHAUSTED,
    INVALID_ARGUMENT,
    PERMISSION_DENIED,
    UNIMPLEMENTED,
    FAILED_PRECONDITION,
    /** Not applied because an earlier update of an all-or-nothing batch failed. */
    ABORTED
}
