"""A throw-away local cluster (DIR, MRC, N OSDs) and FUSE mounts for the benchmark.

The servers run from the repository's bin/ launchers with the shipped etc/*.properties, overridden
only where a private cluster needs it: free loopback ports, data under the state folder, a random
capability secret and short heartbeats (so the MRC sees the OSDs within a second; heartbeats are not
on the data path). Every process runs in its own session, so Ctrl-C on the terminal reaches the
benchmark (and fio) only; the benchmark then unmounts first and stops exactly the processes it
started, in that order, so nothing is flushed to a dead server.
"""
import os
import secrets
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import List, Optional

READY_TIMEOUT_S = 90      # three JVMs starting at once on a busy 2-core machine
STOP_TIMEOUT_S = 20       # a server gets this long after SIGTERM before SIGKILL
MOUNT_TIMEOUT_S = 30
UNMOUNT_TIMEOUT_S = 120   # unmounting flushes buffered writes to the OSDs


class ClusterError(RuntimeError):
    pass


def free_ports(count: int) -> List[int]:
    """Ports the kernel reports free right now (bound to port 0 together, then released)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for bound in sockets:
            bound.bind(("127.0.0.1", 0))
        return [bound.getsockname()[1] for bound in sockets]
    finally:
        for bound in sockets:
            bound.close()


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "".join(path.read_text(errors="replace").splitlines(keepends=True)[-lines:])
    except OSError:
        return "(no log)"


def _stop_process(process: subprocess.Popen, timeout_s: float) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGCONT)  # a stopped process cannot handle SIGTERM
    process.terminate()
    try:
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Cluster:
    """DIR, MRC and OSDs started from `repository`, logs and data under `state`."""

    def __init__(self, repository: Path, state: Path, osd_count: int):
        self.repository = repository
        self.state = state
        self.osd_count = osd_count
        self.secret = "bench-" + secrets.token_hex(16)
        self.processes: List[subprocess.Popen] = []
        ports = free_ports(osd_count + 2)
        self.dir_port, self.mrc_port, self.osd_ports = ports[0], ports[1], ports[2:]

    def start(self) -> None:
        etc = self.repository / "etc"
        loopback = "127.0.0.1"
        self._start("dir", "xtreemfs-dir", etc / "dirconfig.properties", {
            "dir.port": self.dir_port, "dir.status.port": 0, "dir.bindAddress": loopback,
            "dir.database.path": self.state / "dir"})
        dir_address = "%s:%d" % (loopback, self.dir_port)
        self._start("mrc", "xtreemfs-mrc", etc / "mrcconfig.properties", {
            "mrc.port": self.mrc_port, "mrc.status.port": 0, "mrc.bindAddress": loopback,
            "mrc.advertisedAddress": loopback, "mrc.database.path": self.state / "mrc",
            "mrc.dir.address": dir_address, "mrc.heartbeat.periodMs": 500,
            "mrc.placement.osdCacheTtlMs": 100, "capability.secret": self.secret})
        for index, port in enumerate(self.osd_ports):
            self._start("osd%d" % index, "xtreemfs-osd", etc / "osdconfig.properties", {
                "osd.port": port, "osd.status.port": 0, "osd.bindAddress": loopback,
                "osd.advertised.address": loopback, "osd.object.path": self.state / ("osd%d" % index),
                "osd.dir.address": dir_address, "osd.heartbeat.periodMs": 500,
                "capability.secret": self.secret})
        time.sleep(1.5)  # a few heartbeats, so the MRC's placement sees every OSD

    def _start(self, name: str, launcher: str, config: Path, settings: dict) -> None:
        log = self.state / (name + ".log")
        command = [str(self.repository / "bin" / launcher), "--config", str(config)]
        for key, value in settings.items():
            command += ["-D", "%s=%s" % (key, value)]
        with open(log, "wb") as output:
            process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        self.processes.append(process)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if any(line.startswith("READY") for line in log.read_text(errors="replace").splitlines()):
                return
            if process.poll() is not None:
                raise ClusterError("%s exited with %d during start-up:\n%s" % (name, process.returncode, _tail(log)))
            time.sleep(0.2)
        raise ClusterError("%s not READY within %d s:\n%s" % (name, READY_TIMEOUT_S, _tail(log)))

    def volume_url(self, volume: str) -> str:
        return "pbrpc://127.0.0.1:%d/%s" % (self.dir_port, volume)

    def create_volume(self, volume: str, stripe_width: int) -> None:
        command = [str(self.repository / "bin" / "mkfs.xtreemfs"), "--striping-width", str(stripe_width),
                   self.volume_url(volume)]
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            raise ClusterError("mkfs.xtreemfs failed (%d): %s" % (result.returncode, result.stdout.strip()))

    def stop(self) -> None:
        """Stops exactly the processes this object started, the OSDs first."""
        for process in reversed(self.processes):
            _stop_process(process, STOP_TIMEOUT_S)
        self.processes.clear()


class Mount:
    """mount.xtreemfs in the foreground (-f) as a child, so its exact process is known and stopped."""

    def __init__(self, mount_binary: Path, url: str, mount_point: Path, log: Path, options: List[str]):
        self.mount_binary = mount_binary
        self.url = url
        self.mount_point = mount_point
        self.log = log
        self.options = options
        self.process: Optional[subprocess.Popen] = None
        self.mount_count = 0

    def mount(self) -> None:
        self.mount_point.mkdir(parents=True, exist_ok=True)
        self.mount_count += 1
        command = [str(self.mount_binary), "-f", "--log-file", str(self.log)] + self.options + [
            self.url, str(self.mount_point)]
        with open(self.log.with_suffix(".stderr"), "ab") as output:
            self.process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + MOUNT_TIMEOUT_S
        while time.monotonic() < deadline:
            if os.path.ismount(self.mount_point):
                return
            if self.process.poll() is not None:
                raise ClusterError("mount.xtreemfs exited with %d:\n%s%s" % (
                    self.process.returncode, _tail(self.log.with_suffix(".stderr")), _tail(self.log)))
            time.sleep(0.1)
        raise ClusterError("%s not mounted within %d s" % (self.mount_point, MOUNT_TIMEOUT_S))

    def unmount(self) -> None:
        """fusermount3 -u (the client flushes and exits); lazy unmount and SIGTERM only as fallbacks."""
        if self.process is None:
            return
        if os.path.ismount(self.mount_point):
            for _ in range(10):  # a just-finished fio may keep the mount busy for a moment
                if subprocess.run(["fusermount3", "-u", str(self.mount_point)],
                                  stderr=subprocess.DEVNULL).returncode == 0:
                    break
                time.sleep(0.5)
            else:
                subprocess.run(["fusermount3", "-uz", str(self.mount_point)], stderr=subprocess.DEVNULL)
        try:
            self.process.wait(UNMOUNT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _stop_process(self.process, STOP_TIMEOUT_S)
        self.process = None

    def remount(self) -> None:
        """A fresh client process: nothing of the earlier writes is left in its memory."""
        self.unmount()
        self.mount()
