package dev.ratelimit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that keeps what it hears, for exact counts in unit tests. */
final class RecordingListener implements RateLimitListener {
    final List<Decision> allowed = new CopyOnWriteArrayList<>();
    final List<Decision> denied = new CopyOnWriteArrayList<>();
    final List<RedisFailureException> failures = new CopyOnWriteArrayList<>();

    @Override
    public void onAllowed(String policyName, String key, Decision decision) {
        allowed.add(decision);
    }

    @Override
    public void onDenied(String policyName, String key, Decision decision) {
        denied.add(decision);
    }

    @Override
    public void onFailure(String policyName, String key, RedisFailureException cause) {
        failures.add(cause);
    }
}
