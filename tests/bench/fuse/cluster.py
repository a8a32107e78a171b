"""A throw-away local cluster (DIR, MRC, N OSDs) and FUSE mounts for the benchmark.

The cluster is bin/xtreemfs-cluster's (the project's one launcher): servers as processes from bin/ with
free loopback ports, data and logs under STATE/cluster, short heartbeats, each in its own session (so
Ctrl-C on the terminal reaches the benchmark and fio only), ready once the MRC and every OSD are
registered at the DIR. The benchmark unmounts first and then stops the cluster, so nothing is flushed to
a dead server.
"""
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional

STOP_TIMEOUT_S = 20       # a process gets this long after SIGTERM before SIGKILL
MOUNT_TIMEOUT_S = 30
UNMOUNT_TIMEOUT_S = 120   # unmounting flushes buffered writes to the OSDs


class ClusterError(RuntimeError):
    pass


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
    """A DIR, an MRC and `osd_count` default OSDs started by bin/xtreemfs-cluster in `state`/cluster."""

    def __init__(self, repository: Path, state: Path, osd_count: int):
        self.launcher = repository / "bin" / "xtreemfs-cluster"
        self.mkfs = repository / "bin" / "mkfs.xtreemfs"
        self.cluster_state = state / "cluster"
        self.osd_count = osd_count
        self.dir_port = 0
        self.osd_pids: List[int] = []  # the OSD JVMs, known once started
        self.started = False

    def _run(self, verb: str, *arguments: str) -> str:
        result = subprocess.run([str(self.launcher), verb, "--state", str(self.cluster_state)] + list(arguments),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                stdin=subprocess.DEVNULL)
        if result.returncode != 0:
            raise ClusterError("xtreemfs-cluster %s failed (%d): %s" % (verb, result.returncode, result.stdout.strip()))
        return result.stdout

    def start(self) -> None:
        self.started = True  # from here on stop() has something to stop, even if start fails half-way
        self._run("start", "--osds", str(self.osd_count))
        status = self._shell_status()
        self.dir_port = int(status["dir_port"])
        # Read once here: `status` runs a JVM, which must not run beside a measured job.
        self.osd_pids = [int(word) for word in status.get("osd_pids", "").split()]

    def _shell_status(self) -> Dict[str, str]:
        """`xtreemfs-cluster status --shell`'s assignments, an array's words without the parentheses."""
        assignments = {}
        for line in self._run("status", "--shell").splitlines():
            name, equals, value = line.partition("=")
            if equals:
                assignments[name] = value[1:-1] if value.startswith("(") and value.endswith(")") else value
        if "dir_port" not in assignments:
            raise ClusterError("xtreemfs-cluster status --shell printed no dir_port")
        return assignments

    def status_port(self, name: str) -> int:
        """The status port OSD `name` announced, kept by a cluster started with --status-ports."""
        status = self._shell_status()
        names = status.get("osd_names", "").split()
        ports = status.get("osd_status_ports", "").split()
        if name not in names or len(ports) != len(names) or int(ports[names.index(name)]) == 0:
            raise ClusterError("xtreemfs-cluster status --shell names no status port of %s (osd_names %s, "
                               "osd_status_ports %s; started without --status-ports?)" % (name, names, ports))
        return int(ports[names.index(name)])

    def volume_url(self, volume: str) -> str:
        return "pbrpc://127.0.0.1:%d/%s" % (self.dir_port, volume)

    def create_volume(self, volume: str, stripe_width: int, object_size_kib: Optional[int] = None) -> None:
        """mkfs.xtreemfs of `volume`; `object_size_kib` None takes the MRC's default object size (1 MiB)."""
        size = [] if object_size_kib is None else ["--object-size", "%dKiB" % object_size_kib]
        command = [str(self.mkfs), "--striping-width", str(stripe_width)] + size + [self.volume_url(volume)]
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            raise ClusterError("mkfs.xtreemfs failed (%d): %s" % (result.returncode, result.stdout.strip()))

    def stop(self) -> None:
        """Stops exactly the servers of this cluster (xtreemfs-cluster stop)."""
        if self.started and (self.cluster_state / "cluster.properties").exists():
            self._run("stop")
        self.started = False


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
