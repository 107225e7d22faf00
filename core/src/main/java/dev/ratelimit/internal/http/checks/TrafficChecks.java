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

    /**
     * @param policyName the policy, for the log line
     * @param proxies the policy's trusted proxies and the header they write
     * @param readsAddress whether the policy's keys or exemptions read the client's address
     *     ({@code ip} in {@code key} or a {@code limits} entry, {@code exemptAddresses}); only then
     *     is an untrusted proxy looked for
     * @param clock nanoseconds, {@code System::nanoTime} but in tests
     */
    public TrafficChecks(String policyName, TrustedProxies proxies, boolean readsAddress, LongSupplier clock) {
        this.sharedBucket = new SharedBucketCheck(policyName, clock);
        this.untrustedProxy = readsAddress ? new UntrustedProxyCheck(policyName, proxies, clock) : null;
        this.waiting = new WaitingCheck(policyName, clock);
    }

    /**
     * A request was counted in the policy's shared bucket: its key (or that of a {@code limits}
     * entry) had no value for any of its parts.
     *
     * @param key the key as configured, e.g. {@code header:X-Api-Key}, or the resolver's class
     */
    public void countedInSharedBucket(String key) {
        sharedBucket.counted(key);
    }

    /** With {@code maxDelay}: what the adapter tells of requests the container would not suspend. */
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
