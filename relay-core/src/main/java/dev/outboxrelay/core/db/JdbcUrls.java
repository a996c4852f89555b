package dev.outboxrelay.core.db;

import dev.outboxrelay.core.config.Password;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Secret-bearing parameters of a PostgreSQL JDBC URL ({@code password}, {@code sslpassword}): found so that a
 * URL given on the command line can be refused, and masked wherever a URL is shown.
 */
public final class JdbcUrls {

    /** A query parameter {@code name=value}, after {@code ?} or {@code &}. */
    private static final Pattern PARAMETER = Pattern.compile("([?&])([^=&]*)=([^&]*)");

    private JdbcUrls() {
    }

    /** The URL with the value of every password parameter replaced by {@code [hidden]}. */
    public static String masked(String url) {
        Matcher m = PARAMETER.matcher(url);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String replacement = isSecret(m.group(2)) ? m.group(1) + m.group(2) + "=" + Password.HIDDEN : m.group();
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Names of the password parameters in the URL, in order, e.g. {@code [password, sslpassword]}. */
    public static List<String> secretParameters(String url) {
        List<String> names = new ArrayList<>();
        Matcher m = PARAMETER.matcher(url);
        while (m.find()) {
            if (isSecret(m.group(2))) {
                names.add(m.group(2));
            }
        }
        return names;
    }

    private static boolean isSecret(String parameter) {
        return parameter.toLowerCase(Locale.ROOT).contains("password");
    }
}
