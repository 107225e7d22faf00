package dev.ratelimit.servlet.containers;

import java.util.List;

/** A user of the container's realm, for a descriptor's {@code <login-config>}. */
public record UserDecl(String name, String password, List<String> roles) {
    public UserDecl {
        roles = List.copyOf(roles);
    }
}
