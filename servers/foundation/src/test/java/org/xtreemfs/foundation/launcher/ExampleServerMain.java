package org.xtreemfs.foundation.launcher;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.xtreemfs.foundation.config.Setting;
import org.xtreemfs.foundation.config.SettingsSchema;

/** A minimal server main for {@link ServerLauncherProcessTest}: listens (RPC and status) and closes on shutdown. */
public final class ExampleServerMain {

    static final Setting<Integer> PORT = Setting.port("example.port", 0, "Listening port.");
    static final Setting<Integer> STATUS_PORT = Setting.port("example.status.port", 0,
            "Port of the stand-in status page (it accepts and says nothing).");
    static final Setting<Path> CLOSED_MARKER = Setting.path("example.closedMarkerFile",
            Path.of("closed.marker"), "File written when the server has closed.");

    private ExampleServerMain() {
    }

    public static void main(String[] args) {
        SettingsSchema schema = SettingsSchema.of("example", PORT, STATUS_PORT, CLOSED_MARKER);
        new ServerLauncher("example", "0.0.1", schema).launchAndExit(args, settings -> {
            ServerSocket socket = new ServerSocket(settings.get(PORT), 50,
                    InetAddress.getLoopbackAddress());
            ServerSocket statusSocket = new ServerSocket(settings.get(STATUS_PORT), 50,
                    InetAddress.getLoopbackAddress());
            return new RunningServer() {
                @Override
                public InetSocketAddress address() {
                    return (InetSocketAddress) socket.getLocalSocketAddress();
                }

                @Override
                public InetSocketAddress statusAddress() {
                    return (InetSocketAddress) statusSocket.getLocalSocketAddress();
                }

                @Override
                public void close() throws Exception {
                    socket.close();
                    statusSocket.close();
                    Files.writeString(settings.get(CLOSED_MARKER), "closed\n");
                }
            };
        });
    }
}
