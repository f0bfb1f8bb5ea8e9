package io.asicemu.p4rt.service;

import com.google.protobuf.Any;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.math.BigInteger;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;

/**
 * One StreamChannel: the controller's arbitration state and its outbound stream. {@link #send} is thread safe
 * (gRPC stream observers are not), the arbitration fields are guarded by the device's arbitration lock.
 */
final class Controller {
    private final StreamObserver<StreamMessageResponse> out;
    Device device;
    String role = "";
    Any roleConfig;
    /** Null when the controller sent no election id: it can never be primary. */
    BigInteger electionId;

    boolean closed;

    Controller(final StreamObserver<StreamMessageResponse> out) {
        this.out = out;
    }

    void send(final StreamMessageResponse message) {
        synchronized (out) {
            if (!closed) {
                try {
                    out.onNext(message);
                } catch (final RuntimeException ex) {
                    closed = true;
                }
            }
        }
    }

    /** @return whether the stream can take a message without buffering beyond gRPC's flow-control window. */
    boolean ready() {
        synchronized (out) {
            return closed || !(out instanceof ServerCallStreamObserver<StreamMessageResponse> call) || call.isReady();
        }
    }

    void markClosed() {
        synchronized (out) {
            closed = true;
        }
    }

    void fail(final Throwable error) {
        synchronized (out) {
            if (!closed) {
                closed = true;
                out.onError(error);
            }
        }
    }

    void complete() {
        synchronized (out) {
            if (!closed) {
                closed = true;
                out.onCompleted();
            }
        }
    }
}
