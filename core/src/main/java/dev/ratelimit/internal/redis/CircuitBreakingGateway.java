package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

/**
 * A {@link RedisGateway} that stops calling Redis while its {@link CircuitBreaker} is open: such
 * calls fail at once, so the failure policy decides without anyone waiting for a timeout.
 */
public final class CircuitBreakingGateway implements RedisGateway {
    private final RedisGateway delegate;
    private final CircuitBreaker breaker;

    public CircuitBreakingGateway(RedisGateway delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public List<Long> eval(LuaScript script, List<String> keys, List<String> args) {
        return call(() -> delegate.eval(script, keys, args));
    }

    @Override
    public long[] incrementInWindow(String key, long permits, long windowMillis) {
        return call(() -> delegate.incrementInWindow(key, permits, windowMillis));
    }

    @Override
    public long[] readWindow(String key) {
        return call(() -> delegate.readWindow(key));
    }

    @Override
    public long[] slidingLogInTransaction(String key, long permits, long limit, long windowMicros, boolean consume) {
        return call(() -> delegate.slidingLogInTransaction(key, permits, limit, windowMicros, consume));
    }

    @Override
    public List<byte[]> hashInTransaction(String key, boolean delete, List<String> pairs, List<String> fields) {
        return call(() -> delegate.hashInTransaction(key, delete, pairs, fields));
    }

    @Override
    public void delete(List<String> keys) {
        call(() -> {
            delegate.delete(keys);
            return null;
        });
    }

    private <T> T call(Supplier<T> redisCall) {
        CircuitBreaker.Pass pass = breaker.pass(false);
        if (!pass.allowed()) {
            throw new RedisFailureException("Redis at " + delegate + " " + breaker.refusal(pass), null);
        }
        Boolean answered = null;
        try {
            T result = redisCall.get();
            answered = true;
            return result;
        } catch (RedisFailureException e) {
            answered = e.redisAnswered();
            throw e;
        } finally {
            if (answered == null) {
                // Anything else (a bug, an Error) says nothing about Redis, but a probe that ends without a
                // report would leave the breaker half-open with no probe out: the limiter off for good.
                breaker.onInconclusive();
            } else if (answered) {
                breaker.onSuccess();
            } else {
                breaker.onFailure();
            }
        }
    }

    /**
     * The wrapped client's readings while the breaker is closed; they tell the breaker nothing (as
     * {@link NodeCalls#readMemory} does per node), so a missed one neither opens nor closes it.
     */
    @Override
    public List<MemoryReading> readMemory() {
        CircuitBreaker.State state = breaker.state();
        if (state != CircuitBreaker.State.CLOSED) {
            String where = delegate.toString();
            return Collections.singletonList(MemoryReading.unreached(where, where,
                    "not asked while its circuit breaker is " + state));
        }
        return delegate.readMemory();
    }

    @Override
    public WarmUp warmUp(List<LuaScript> scripts) {
        return delegate.warmUp(scripts);
    }

    @Override
    public String circuitState() {
        return breaker.state().name();
    }

    @Override
    public boolean supportsTransactions() {
        return delegate.supportsTransactions();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
