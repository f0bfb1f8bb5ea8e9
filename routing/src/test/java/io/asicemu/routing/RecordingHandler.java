package io.asicemu.routing;

import java.util.ArrayList;
import java.util.List;

/** Collects what the decoder made of a frame, as text-free values. */
final class RecordingHandler implements RouteMessageDecoder.Handler {
    final List<Object> events = new ArrayList<>();

    @Override
    public void onReplace(final Route route) {
        events.add(route);
    }

    @Override
    public void onWithdraw(final RoutePrefix prefix) {
        events.add(prefix);
    }

    @Override
    public void onSkipped(final SkipReason reason) {
        events.add(reason);
    }
}
