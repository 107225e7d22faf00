package dev.ratelimit.http;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A request built by hand, for the HTTP layer's unit tests. */
public final class FakeRequest implements RequestView {
    public String method = "GET";
    public String path = "/";
    String remoteAddress = "192.0.2.1";
    final Map<String, List<String>> headers = new HashMap<>();
    public final Map<String, String> query = new HashMap<>();
    public final Map<String, String> cookies = new HashMap<>();
    /** The fields of a form body. */
    public final Map<String, String> form = new HashMap<>();
    public String userName;
    public String sessionId;
    /** The markers {@link #firstVisit} has seen, as a servlet request's attributes keep them. */
    final Set<String> visits = new HashSet<>();

    public FakeRequest from(String address) {
        remoteAddress = address;
        return this;
    }

    public FakeRequest header(String name, String value) {
        headers.computeIfAbsent(name.toLowerCase(), n -> new ArrayList<>()).add(value);
        return this;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String remoteAddress() {
        return remoteAddress;
    }

    @Override
    public List<String> headers(String name) {
        return headers.getOrDefault(name.toLowerCase(), List.of());
    }

    @Override
    public String queryParameter(String name) {
        return query.get(name);
    }

    @Override
    public String formParameter(String name) {
        return form.get(name);
    }

    @Override
    public String cookie(String name) {
        return cookies.get(name);
    }

    @Override
    public String userName() {
        return userName;
    }

    @Override
    public String sessionId() {
        return sessionId;
    }

    @Override
    public boolean firstVisit(String marker) {
        return visits.add(marker);
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        return null;
    }
}
