package dev.ratelimit.internal.http.checks;

import dev.ratelimit.http.RequestView;
import dev.ratelimit.internal.http.client.TrustedProxies;
import dev.ratelimit.internal.support.Immutable;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The checks one policy runs on its own traffic (see the package comment). The pipeline tells it
 * what it sees; the status page asks it what is wrong now. Each check logs its finding once, and
 * reports it while requests showed it in the last {@link #RECENT_NANOS}. Thread-safe; every check
 * keeps a fixed number of fields, whatever the number of clients.
 */
public final class TrafficChecks {
    /** How long a finding stays on the status page after the last request that showed it. */
    static final long RECENT_NANOS = 5L * 60 * 1_000_000_000L;

    private final SharedBucketCheck sharedBucket;
    /** Null when the policy's keys do not read the client's address: then no proxy can merge clients. */
    private final UntrustedProxyCheck untrustedProxy;
    private final WaitingCheck waiting;

    /** @param readsAddress whether keys or exemptions read the client's address: only then is a proxy looked for */
    public TrafficChecks(String policyName, TrustedProxies proxies, boolean readsAddress, LongSupplier clock) {
        this.sharedBucket = new SharedBucketCheck(policyName, clock);
        this.untrustedProxy = readsAddress ? new UntrustedProxyCheck(policyName, proxies, clock) : null;
        this.waiting = new WaitingCheck(policyName, clock);
    }

    /** A request whose {@code key} (as configured, or the resolver's class) had no value for any part. */
    public void countedInSharedBucket(String key) {
        sharedBucket.counted(key);
    }

    public WaitingCheck waiting() {
        return waiting;
    }

    /** What the checks found in the last five minutes; empty when nothing is wrong. */
    public List<ConfigWarning> warnings() {
        return Immutable.copyOf(Stream.of(sharedBucket.warning(), untrustedProxy == null ? null
                : untrustedProxy.warning(), waiting.notAsyncWarning(), waiting.noAsyncDispatchWarning())
                .filter(Objects::nonNull).collect(Collectors.toList()));
    }

    /** Sees one request the policy limits (not exempt, not excluded), before its decision. */
    public void observe(RequestView request) {
        if (untrustedProxy != null) {
            untrustedProxy.observe(request);
        }
    }
}
