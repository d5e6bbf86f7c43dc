package io.ioscale;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The main packages form layers: no package reaches, through the packages it uses, back to itself (so each can be
 * read, and tested, with only what is below it). A use is a class of another {@code io.ioscale} package named in
 * code: an import or a qualified name; comments do not count.
 */
class PackageCyclesTest {
    private static final Path MAIN = Path.of("src/main/java/io/ioscale");
    private static final Pattern USE = Pattern.compile("\\bio\\.ioscale\\.(\\w+)\\.[A-Z]");
    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

    @Test
    void noPackageUsesItselfThroughOthers() throws IOException {
        Map<String, Set<String>> uses = uses();
        assertThat(uses).isNotEmpty();
        List<String> cycles = new ArrayList<>();
        for (String start : uses.keySet()) {
            List<String> path = cycleFrom(start, start, uses, new ArrayList<>(List.of(start)), new TreeSet<>());
            if (path != null) {
                cycles.add(String.join(" -> ", path));
            }
        }
        assertThat(cycles).as("package cycles").isEmpty();
    }

    private static List<String> cycleFrom(String start, String at, Map<String, Set<String>> uses, List<String> path,
                                          Set<String> seen) {
        for (String next : uses.getOrDefault(at, Set.of())) {
            if (next.equals(start)) {
                List<String> cycle = new ArrayList<>(path);
                cycle.add(start);
                return cycle;
            }
            if (seen.add(next)) {
                path.add(next);
                List<String> found = cycleFrom(start, next, uses, path, seen);
                if (found != null) {
                    return found;
                }
                path.remove(path.size() - 1);
            }
        }
        return null;
    }

    private static Map<String, Set<String>> uses() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String pkg = MAIN.relativize(file.getParent()).toString().replace('/', '.');
                String code = COMMENT.matcher(Files.readString(file)).replaceAll("");
                Matcher m = USE.matcher(code);
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        uses.computeIfAbsent(pkg, k -> new TreeSet<>()).add(m.group(1));
                    }
                }
            }
        }
        return uses;
    }
}
