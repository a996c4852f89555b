package dev.outboxrelay.testkit;

import java.util.function.Supplier;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JUnit 5 extension that gives a test class a fresh database on {@link TestPostgres#shared()}.
 *
 * <pre>{@code
 * @RegisterExtension
 * static PostgresDatabaseExtension db = new PostgresDatabaseExtension();
 *
 * @Test void works() { db.database().execute("CREATE TABLE t (id int)"); }
 * }</pre>
 *
 * <p>Registered on a {@code static} field, one database serves the whole class and is dropped after it.
 * {@code @Nested} classes share it. Registered on an instance field, each test method gets its own database,
 * dropped after the method. The database name starts with the test class's simple name, which helps when
 * reading server logs.
 */
public final class PostgresDatabaseExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback,
        AfterAllCallback {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresDatabaseExtension.class);

    private final Supplier<TestPostgres> server;
    private TestDatabase database;
    private String ownerId;
    private boolean perMethod;

    /** Uses {@link TestPostgres#shared()}. */
    public PostgresDatabaseExtension() {
        this(TestPostgres::shared);
    }

    /** Uses the given server, e.g. a dedicated {@link TestPostgres#start(PostgresOptions)}. */
    public PostgresDatabaseExtension(Supplier<TestPostgres> server) {
        this.server = server;
    }

    /** The database of the current test class (or method); fails outside a test. */
    public TestDatabase database() {
        if (database == null) {
            throw new IllegalStateException("No database yet: register this extension with @RegisterExtension");
        }
        return database;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // @Nested classes run beforeAll again; they share the outer class's database.
        if (database == null) {
            database = server.get().createDatabase(context.getRequiredTestClass().getSimpleName());
            ownerId = context.getUniqueId();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // beforeAll is only called for static registration; a null here means instance (per-method) mode.
        if (database == null) {
            perMethod = true;
            database = server.get().createDatabase(context.getRequiredTestClass().getSimpleName());
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (perMethod) {
            dropQuietly();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getUniqueId().equals(ownerId)) {
            dropQuietly();
        }
    }

    private void dropQuietly() {
        if (database == null) {
            return;
        }
        try {
            database.drop();
        } catch (RuntimeException e) {
            // A leftover database in a throwaway cluster is harmless; failing the test class for it is not.
            LOG.warn("Could not drop {}", database.name(), e);
        }
        database = null;
        ownerId = null;
    }
}
