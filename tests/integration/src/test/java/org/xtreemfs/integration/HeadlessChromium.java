package org.xtreemfs.integration;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.xtreemfs.foundation.status.JsonWriter;

/**
 * A real browser for tests: Debian's {@code chromium} in headless mode with one page open, driven through the
 * Chrome DevTools protocol (JSON over a WebSocket, the JDK's client) so a test can evaluate JavaScript in the
 * live page as often as it likes while the page keeps running (polling, redrawing). Only
 * {@code Runtime.evaluate} of an expression that returns a plain string is needed, so the replies are read with
 * two patterns rather than a JSON library.
 *
 * <p>The browser is found on the PATH ({@code chromium}, {@code chromium-browser}) or at {@code $CHROMIUM};
 * without it the constructor throws naming what to install: a test using it fails, never skips
 * ({@code bin/install-deps} installs the package for {@code make test}).
 */
final class HeadlessChromium implements AutoCloseable {
    private static final List<String> NAMES = List.of("chromium", "chromium-browser");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern PAGE_SOCKET =
            Pattern.compile("\"webSocketDebuggerUrl\"\\s*:\\s*\"(ws://[^\"]+/devtools/page/[^\"]+)\"");
    private static final Pattern STRING_VALUE = Pattern.compile("\"value\"\\s*:\\s*\"([^\"\\\\]*)\"");
    private static final Pattern SCREENSHOT_DATA = Pattern.compile("\"data\"\\s*:\\s*\"([A-Za-z0-9+/=]*)\"");

    private final Path profile;
    private final Process process;
    private final WebSocket socket;
    /** Whole messages from the browser; only replies arrive, since the test enables no event domain. */
    private final LinkedBlockingQueue<String> messages = new LinkedBlockingQueue<>(1024);
    private final AtomicInteger nextId = new AtomicInteger(1);

    /** Starts the browser showing {@code url} and connects to that page. */
    HeadlessChromium(String url) throws Exception {
        Path executable = executable().orElseThrow(() -> new IllegalStateException(
                "no headless browser: neither $CHROMIUM nor " + NAMES + " on the PATH ("
                        + System.getenv("PATH") + "); install Debian's chromium package (bin/install-deps does)"));
        profile = Files.createTempDirectory("xtreemfs-chromium-");
        // --no-sandbox: tests and CI run as root, where Chromium's sandbox refuses to start. Port 0: the browser
        // picks a free port and writes it to DevToolsActivePort in its profile folder.
        process = new ProcessBuilder(executable.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--window-size=1280,1000", "--user-data-dir=" + profile, "--remote-debugging-port=0", url)
                .redirectErrorStream(true).redirectOutput(profile.resolve("browser.log").toFile()).start();
        try {
            int port = devToolsPort();
            socket = HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create(pageSocket(port, url)), new Collector())
                    .get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /** The value of a JavaScript expression evaluated in the page; it must evaluate to a string without quotes. */
    String evaluate(String expression) throws Exception {
        String reply = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true));
        Matcher value = STRING_VALUE.matcher(reply);
        if (reply.contains("\"exceptionDetails\"") || !value.find()) {
            throw new IllegalStateException("the page could not evaluate the expression: " + reply);
        }
        return value.group(1);
    }

    /** What the page shows now, as PNG (to look at when a test fails, or at what a person would see). */
    byte[] screenshot() throws Exception {
        Matcher data = SCREENSHOT_DATA.matcher(call("Page.captureScreenshot", Map.of("format", "png")));
        if (!data.find()) {
            throw new IllegalStateException("the browser sent no screenshot");
        }
        return Base64.getDecoder().decode(data.group(1));
    }

    /** Sends one DevTools command to the page and waits for its reply (the whole JSON text). */
    private String call(String method, Map<String, Object> params) throws Exception {
        int id = nextId.getAndIncrement();
        socket.sendText(JsonWriter.write(Map.of("id", id, "method", method, "params", params)), true)
                .get(REPLY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        String replyStart = "{\"id\":" + id + ",";
        long deadlineNanos = System.nanoTime() + REPLY_TIMEOUT.toNanos();
        while (true) {
            String message = messages.poll(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (message == null) {
                throw new IllegalStateException("no reply from the browser to " + method + " within "
                        + REPLY_TIMEOUT + "; log: " + log());
            }
            if (message.startsWith(replyStart)) {
                return message;
            }
        }
    }

    /** The browser's own output so far (for failure messages). */
    String log() {
        try {
            return Files.readString(profile.resolve("browser.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        // The browser runs several processes (renderer, GPU, zygote): end the children too.
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroy);
        for (ProcessHandle handle : all) {
            try {
                handle.onExit().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                handle.destroyForcibly();
            }
        }
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            // A temporary folder left behind is harmless.
        }
    }

    private static Optional<Path> executable() {
        String configured = System.getenv("CHROMIUM");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(Files::isExecutable);
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String name : NAMES) {
            for (String folder : path.split(File.pathSeparator)) {
                Path candidate = Path.of(folder, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    /** Waits for the browser to write its DevTools port (first line of DevToolsActivePort). */
    private int devToolsPort() throws Exception {
        Path portFile = profile.resolve("DevToolsActivePort");
        long deadlineNanos = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadlineNanos) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the browser exited with " + process.exitValue() + ": " + log());
            }
            if (Files.exists(portFile)) {
                List<String> lines = Files.readAllLines(portFile);
                if (lines.size() >= 2) {
                    return Integer.parseInt(lines.get(0).trim());
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the browser did not open its DevTools port within " + START_TIMEOUT
                + ": " + log());
    }

    /** The DevTools WebSocket of the page showing {@code url} (the tab the command line opened). */
    private String pageSocket(int port, String url) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadlineNanos = System.nanoTime() + START_TIMEOUT.toNanos();
        String targets = "";
        while (System.nanoTime() < deadlineNanos) {
            targets = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                    .timeout(REPLY_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString()).body();
            Matcher page = PAGE_SOCKET.matcher(targets);
            if (targets.contains(url) && page.find()) {
                return page.group(1);
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the browser shows no page of " + url + ": " + targets);
    }

    /** Joins a message's fragments and queues it whole. */
    private final class Collector implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                // Bounded: a full queue drops the message (the waiting caller then times out, naming it).
                messages.offer(partial.toString());
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }
    }
}
