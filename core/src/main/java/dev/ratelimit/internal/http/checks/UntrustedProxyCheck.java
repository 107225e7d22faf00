package dev.ratelimit.internal.http.checks;

import dev.ratelimit.http.RequestView;
import dev.ratelimit.internal.http.client.ProxyHeader;
import dev.ratelimit.internal.http.client.TrustedProxies;
import dev.ratelimit.internal.support.Loggers;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * {@code UNTRUSTED_PROXY}: most of a policy's requests come from one address whose forwarding
 * header is not believed, so every client behind it is that one address and they all share one
 * limit. Three shapes, each naming the setting to change:
 * <ul>
 * <li>the peer sends {@code X-Forwarded-For} or {@code Forwarded} but is not in
 * {@code trustedProxies} (nginx or a load balancer in front, {@code trustedProxies} unset);
 * <li>the peer is trusted but sends only the other header than {@code forwardedHeader} names;
 * <li>the walk through trusted hops stops at an untrusted address that has hops to its left: a
 * second proxy layer that is not trusted (found only when the header's first line has a comma).
 * </ul>
 *
 * <p>The decision: the policy's requests are taken in rounds of {@value #ROUND}, by arrival
 * (every request is looked at; no sampling, so that a misconfigured deployment is named within a
 * few dozen requests). A round is positive when one address of one shape has at least
 * {@value #MAJORITY} of its {@value #ROUND} requests (three quarters, so that an even split never
 * flaps) and its header was not the same text every time (a proxy forwards for several clients;
 * one client that adds a constant header of its own is one client anyway). {@value #ROUNDS}
 * positive rounds in a row are a finding: one WARN line, once for the policy's life, and a
 * {@link ConfigWarning} while the address's requests keep coming within
 * {@link TrafficChecks#RECENT_NANOS}. A negative round ends the run. For a share p of traffic and
 * independent arrivals, {@value #ROUNDS} positive rounds happen with probability 5.7e-5 at p = 1/2,
 * 1.2e-7 at 0.4 and 2e-11 at 0.3; at 0.9 with 0.95. Which address to count in a round is the
 * previous round's Boyer-Moore majority vote among the suspect requests (a majority element always
 * wins it), or the round's first suspect: two addresses and a counter, whatever the number of
 * clients. Requests that race a round's close are left out, which can only lower a count.
 *
 * <p>Cost per request: one atomic increment, the peer's address and one or two header lookups; a
 * lock only for a request that sends a forwarding header and is not plainly a trusted proxy's, and
 * for the last request of each round. Header text is never kept or logged: what tells two lines
 * apart is a hash of their first {@value #HASHED_CHARS} characters. A trusted peer's address is
 * parsed once and remembered (one slot); the walk for the third shape reads the header once.
 */
final class UntrustedProxyCheck {
    static final String CODE = "UNTRUSTED_PROXY";
    /** Requests in a round. */
    static final int ROUND = 16;
    /** Requests of one address a positive round needs: three quarters. */
    static final int MAJORITY = 12;
    /** Positive rounds in a row that make a finding. */
    static final int ROUNDS = 3;
    private static final int HASHED_CHARS = 64;
    private static final Logger log = Loggers.of(TrafficChecks.class);

    /** What a request shows: nothing, or one of the three shapes of a {@link ProxySuspect}. */
    private static final int NONE = 0;

    private final String policyName;
    private final TrustedProxies proxies;
    private final ProxyHeader configured;
    private final ProxyHeader other;
    private final LongSupplier clock;
    private final AtomicLong tickets = new AtomicLong();
    /** The last peers found trusted and untrusted: one proxy's requests parse its address once. */
    private volatile String trustedPeer;
    private volatile String untrustedPeer;

    // The round, guarded by this. An address is the peer's text (first two shapes) or a hop's bytes.
    private long round;
    private ProxySuspect candidate;
    private int hits;
    private int firstHash;
    private boolean varies;
    private ProxySuspect vote;
    private int votes;
    private int streak;
    private long streakHits;

    // The finding, guarded by this: what the log and the page say of the address last found.
    private boolean found;
    private boolean logged;
    private String finding;
    private long requests;
    private long lastNanos;

    UntrustedProxyCheck(String policyName, TrustedProxies proxies, LongSupplier clock) {
        this.policyName = policyName;
        this.proxies = proxies;
        this.configured = proxies.header();
        this.other = configured == ProxyHeader.FORWARDED ? ProxyHeader.X_FORWARDED_FOR : ProxyHeader.FORWARDED;
        this.clock = clock;
    }

    void observe(RequestView request) {
        long ticket = tickets.getAndIncrement();
        boolean closes = ticket % ROUND == ROUND - 1;
        int kind = NONE;
        Object address = null;
        ProxyHeader header = configured;
        String line = null;
        String peer = request.remoteAddress();
        if (peer != null) {
            line = request.header(configured.headerName());
            if (line == null || line.isEmpty()) {
                header = other;
                line = request.header(other.headerName());
            }
            if (line != null && !line.isEmpty()) {
                if (!trusted(peer)) {
                    kind = ProxySuspect.UNTRUSTED_PEER;
                    address = peer;
                } else if (header == other) {
                    kind = ProxySuspect.OTHER_HEADER;
                    address = peer;
                } else if (line.indexOf(',') >= 0) {
                    byte[] hop = proxies.untrustedForwarder(request);
                    if (hop != null) {
                        kind = ProxySuspect.UNTRUSTED_HOP;
                        address = hop;
                    }
                }
            }
        }
        if (kind == NONE && !closes) {
            return;
        }
        String finding;
        synchronized (this) {
            finding = record(ticket, kind, address, header, kind == NONE ? 0 : prefixHash(line));
        }
        if (finding != null) {
            log.warn("Rate limit policy '{}' [{}]: {} Logged once; the status page shows it while it lasts.",
                    policyName, CODE, finding);
        }
    }

    /** Whether the peer is a trusted proxy; an address parsed once per change of peer. */
    private boolean trusted(String peer) {
        if (proxies.isEmpty()) {
            return false;
        }
        if (peer.equals(trustedPeer)) {
            return true;
        }
        if (peer.equals(untrustedPeer)) {
            return false;
        }
        boolean trusted = proxies.contains(peer);
        if (trusted) {
            trustedPeer = peer;
        } else {
            untrustedPeer = peer;
        }
        return trusted;
    }

    /** Counts a request in its round; the text to log when this made the first finding, else null. */
    private String record(long ticket, int kind, Object address, ProxyHeader header, int hash) {
        long at = ticket / ROUND;
        if (at < round) {
            return null;
        }
        String finding = null;
        if (at > round) {
            // The round's last request is late: the round closes without it, and without any late one.
            finding = close();
            if (at > round) {
                // Rounds nobody closed at all: nothing counted, negative.
                endRun();
                candidate = null;
                round = at;
            }
        }
        if (kind != NONE) {
            tally(kind, address, header, hash);
        }
        if (ticket % ROUND == ROUND - 1) {
            String closing = close();
            finding = closing != null ? closing : finding;
        }
        return finding;
    }

    private void tally(int kind, Object address, ProxyHeader header, int hash) {
        if (candidate == null) {
            candidate = new ProxySuspect(kind, address, header);
        }
        if (candidate.is(kind, address)) {
            if (hits++ == 0) {
                firstHash = hash;
            } else if (hash != firstHash) {
                varies = true;
            }
            if (found) {
                lastNanos = clock.getAsLong();
            }
        }
        // Boyer-Moore: a majority among the suspect requests is left holding the vote.
        if (votes == 0) {
            vote = new ProxySuspect(kind, address, header);
            votes = 1;
        } else if (vote.is(kind, address)) {
            votes++;
        } else {
            votes--;
        }
    }

    /** Ends the round: decides it and sets up the next; the text to log for the first finding, else null. */
    private String close() {
        round++;
        String logNow = null;
        if (hits >= MAJORITY && varies) {
            streak++;
            streakHits += hits;
            // The text is written once, when the run becomes a finding; it is the same address after that.
            String text = streak < ROUNDS ? null : found ? finding : candidate.finding(configured, proxies);
            if (text != null) {
                if (!found) {
                    found = true;
                    finding = text;
                    if (!logged) {
                        logged = true;
                        logNow = text;
                    }
                }
                requests += streakHits;
                streakHits = 0;
                lastNanos = clock.getAsLong();
            }
        } else {
            endRun();
        }
        // A positive round's address is the vote's winner too: the next round counts it again.
        candidate = votes > 0 ? vote : null;
        hits = 0;
        varies = false;
        vote = null;
        votes = 0;
        return logNow;
    }

    private void endRun() {
        streak = 0;
        streakHits = 0;
        found = false;
    }

    /** What the status page shows while requests keep showing it, or null. */
    synchronized ConfigWarning warning() {
        if (requests == 0 || clock.getAsLong() - lastNanos > TrafficChecks.RECENT_NANOS) {
            return null;
        }
        return new ConfigWarning(CODE, finding + " (" + requests + " requests from it since start)", requests);
    }

    /** A hash of the line's start: a client's address comes first, and a huge header costs no more. */
    private static int prefixHash(String line) {
        int hash = 0;
        int end = Math.min(line.length(), HASHED_CHARS);
        for (int i = 0; i < end; i++) {
            hash = 31 * hash + line.charAt(i);
        }
        return hash;
    }
}
