package dev.ratelimit.jaxrs;

import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;
import java.security.Principal;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The resources the JAX-RS suite deploys on Jersey and on RESTEasy. */
final class Resources {
    private Resources() {
    }

    /** Class-level limit 3 per minute; create() overrides it with 1 per minute. */
    @Path("orders")
    @RateLimited(limit = 3, window = "1m")
    public static class Orders {
        @GET
        public String list() {
            return "orders";
        }

        @POST
        @RateLimited(limit = 1, window = "1m", policy = "create-order")
        public String create() {
            return "created";
        }
    }

    /** A class-level annotation, as docs/jaxrs.md shows it: each method counts on its own. */
    @Path("catalog")
    @RateLimited(limit = 2, window = "1m")
    public static class Catalog {
        @GET
        public String list() {
            return "catalog";
        }

        @GET
        @Path("{id}")
        public String item(@PathParam("id") String id) {
            return id;
        }
    }

    /** The same with one policy name on the class: its methods share one count. */
    @Path("basket")
    @RateLimited(limit = 2, window = "1m", policy = "basket")
    public static class Basket {
        @GET
        public String list() {
            return "basket";
        }

        @GET
        @Path("{id}")
        public String item(@PathParam("id") String id) {
            return id;
        }
    }

    /** 40 per hour for one client, to prove exactness across servers. */
    @Path("shared")
    public static class Shared {
        @GET
        @RateLimited(limit = 40, window = "1h", key = "header:X-Client", policy = "shared")
        public String get() {
            return "shared";
        }
    }

    /** Keyed by a cookie: hostile Cookie headers must still be decided, never answered 5xx. */
    @Path("by-cookie")
    public static class ByCookie {
        @GET
        @RateLimited(limit = 100, window = "1m", key = "cookie:session", policy = "by-cookie")
        public String get() {
            return "by-cookie";
        }
    }

    /** Never limited. */
    @Path("free")
    public static class Free {
        @GET
        public String get() {
            return "free";
        }
    }

    /** Per authenticated user, and with a cost of 3 out of 10. */
    @Path("account")
    public static class Account {
        @GET
        @RateLimited(limit = 2, window = "1m", key = "user")
        public String me(@jakarta.ws.rs.core.Context SecurityContext security) {
            return security.getUserPrincipal() == null ? "anonymous" : security.getUserPrincipal().getName();
        }

        @GET
        @Path("report")
        @RateLimited(limit = 10, window = "1m", cost = 3, algorithm = "token-bucket")
        public String report() {
            return "report";
        }
    }

    /** Tiers by role and an exempt role, for one method. */
    @Path("tiered")
    public static class Tiered {
        @GET
        @RateLimited(limit = 1, window = "1m", key = "user", tiers = "partner:3", tierFrom = "role",
                exemptRoles = "admin")
        public String get() {
            return "tiered";
        }
    }

    /** Login protection: only failed logins (401) count, 2 per minute per client. */
    @Path("login")
    public static class Login {
        @POST
        @RateLimited(limit = 2, window = "1m", key = "header:X-Client", countStatus = "401")
        public jakarta.ws.rs.core.Response login(@jakarta.ws.rs.HeaderParam("X-Password") String password) {
            return "good".equals(password) ? jakarta.ws.rs.core.Response.ok("welcome").build()
                    : jakarta.ws.rs.core.Response.status(401).entity("no").build();
        }
    }

    /** The penalty box: over 2 per second, a client is refused for an hour. */
    @Path("boxed")
    public static class Boxed {
        @GET
        @RateLimited(limit = 2, window = "1s", key = "header:X-Client", penalty = "1h")
        public String work() {
            return "done";
        }
    }

    /**
     * chargeAfter: the resource reports its usage ({@code ?usage=}) as the servlet request's attribute,
     * which JAX-RS makes the request property the response filter reads (RESTEasy injects no
     * ContainerRequestContext into resource methods); 100 per hour per {@code X-Client} (gcra, burst
     * 100); {@code ?status=} answers with that status, which with {@code countStatus=2xx} decides
     * whether anything is charged.
     */
    @Path("charged")
    public static class Charged {
        @GET
        @RateLimited(limit = 100, window = "1h", algorithm = "gcra", key = "header:X-Client", chargeAfter = true,
                countStatus = "2xx", policy = "charged")
        public jakarta.ws.rs.core.Response work(@jakarta.ws.rs.core.Context jakarta.servlet.http.HttpServletRequest request,
                @jakarta.ws.rs.QueryParam("usage") String usage, @jakarta.ws.rs.QueryParam("status") Integer status) {
            if (usage != null) {
                request.setAttribute(dev.ratelimit.http.Usage.ATTRIBUTE, usage);
            }
            return jakarta.ws.rs.core.Response.status(status == null ? 200 : status).entity("done").build();
        }
    }

    /** README's login rule on a resource: a browser's form, limited per address and user; the method reads the form too. */
    @Path("form-login")
    public static class FormLogin {
        @POST
        @jakarta.ws.rs.Consumes(jakarta.ws.rs.core.MediaType.APPLICATION_FORM_URLENCODED)
        @RateLimited(limit = 3, window = "1m", key = "ip+param:user", policy = "form-login")
        public String login(@jakarta.ws.rs.FormParam("user") String user,
                @jakarta.ws.rs.FormParam("password") String password) {
            return "user " + user + ", password " + password;
        }

        /** The same, unlimited: what the runtime itself makes of the form. */
        @POST
        @Path("unlimited")
        @jakarta.ws.rs.Consumes(jakarta.ws.rs.core.MediaType.APPLICATION_FORM_URLENCODED)
        public String unlimited(@jakarta.ws.rs.FormParam("user") String user,
                @jakarta.ws.rs.FormParam("password") String password) {
            return "user " + user + ", password " + password;
        }
    }

    /** One export at a time per client, across servers: an in-flight limit whose lease the response filter gives back. */
    @Path("export")
    public static class Export {
        /** Exports under way, for a test to wait on. */
        static final AtomicInteger running = new AtomicInteger();
        /** What each export waits for: a test holds exports in flight as long as it needs, never a set time. */
        static volatile CountDownLatch finish = new CountDownLatch(0);

        @GET
        @RateLimited(algorithm = "concurrency", limit = 1, window = "30s", key = "header:X-Client")
        public String export() throws InterruptedException {
            running.incrementAndGet();
            try {
                if (!finish.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never let the export finish");
                }
                return "exported";
            } finally {
                running.decrementAndGet();
            }
        }
    }

    /** Authenticates whoever names themselves in X-User, with the roles in X-Roles: enough for key = "user". */
    @Provider
    @Priority(Priorities.AUTHENTICATION)
    public static class HeaderAuthentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            String user = request.getHeaderString("X-User");
            if (user == null) {
                return;
            }
            String roles = request.getHeaderString("X-Roles");
            java.util.List<String> granted = roles == null ? java.util.List.of() : java.util.List.of(roles.split(","));
            Principal principal = () -> user;
            request.setSecurityContext(new SecurityContext() {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return granted.contains(role);
                }

                @Override
                public boolean isSecure() {
                    return false;
                }

                @Override
                public String getAuthenticationScheme() {
                    return "X-User";
                }
            });
        }
    }

    /** The application as a user would write it: resources plus the feature. */
    public static class LimitedApplication extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Orders.class, Shared.class, Free.class, Account.class, Tiered.class, Login.class, Export.class,
                    ByCookie.class, FormLogin.class, HeaderAuthentication.class, Boxed.class, Charged.class,
                    RateLimitFeature.class);
        }
    }

    /** The same application with tracing on as its JAX-RS property (docs/tracing.md). */
    public static class TracedApplication extends LimitedApplication {
        @Override
        public java.util.Map<String, Object> getProperties() {
            return java.util.Map.of("ratelimit.tracing", "opentelemetry");
        }
    }

    /** The class-level resources alone. */
    public static class ClassLevelApplication extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Catalog.class, Basket.class, RateLimitFeature.class);
        }
    }

    /** Everything from the application's properties. */
    @Path("configured")
    @RateLimited
    public static class Configured {
        @GET
        public String get() {
            return "configured";
        }
    }

    /** ratelimit.* JAX-RS properties as defaults for bare annotations. */
    public static class PropertiesApplication extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Configured.class, RateLimitFeature.class);
        }

        @Override
        public java.util.Map<String, Object> getProperties() {
            return java.util.Map.of("ratelimit.limit", "2", "ratelimit.window", "1m", "ratelimit.headers", "legacy");
        }
    }

    /** A property with a bad value. */
    public static class BadPropertiesApplication extends PropertiesApplication {
        @Override
        public java.util.Map<String, Object> getProperties() {
            return java.util.Map.of("ratelimit.limit", "2", "ratelimit.window", "later");
        }
    }

    /** A resource whose annotation holds a bad window. */
    @Path("bad")
    public static class Bad {
        @GET
        @RateLimited(limit = 5, window = "soon")
        public String get() {
            return "never";
        }
    }

    /** Two overloads whose default policy names are the same: they must not share a bucket unnoticed. */
    @Path("twins")
    @RateLimited(limit = 5, window = "1m")
    public static class Twins {
        @GET
        public String get() {
            return "one";
        }

        @GET
        @Path("{id}")
        public String get(@PathParam("id") String id) {
            return id;
        }
    }

    /** An application that must not deploy: its resources' default policy names collide. */
    public static class TwinsApplication extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Twins.class, RateLimitFeature.class);
        }
    }

    /** An application that must not deploy. */
    public static class BadApplication extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Bad.class, RateLimitFeature.class);
        }
    }
}
