"""A throw-away GlusterFS volume of one brick, mounted with GlusterFS's own FUSE client, as the benchmark's
second baseline: issue 10 asks every row to beat GlusterFS, and a column measured in the same run is the
only honest comparison on a machine whose speed varies 2-3x between runs.

The volume runs on the machine's glusterd (the packages glusterfs-server and glusterfs-client; `bin/install-deps
--bench` installs them). If no glusterd runs, one is started for the run and stopped afterwards. The volume
(`xtreemfs-bench-<pid>`, default options, like the issue's "GlusterFS 10.3 with one brick") has its brick in the
benchmark's state folder, so it shares the file system with the OSDs' objects and the raw-disk folder; it is
stopped and deleted at the end, also after a failure. Needs root (glusterd and mount).
"""
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import List, Optional

GLUSTER_TIMEOUT_S = 60
MOUNT_TIMEOUT_S = 30


class GlusterError(RuntimeError):
    pass


def unavailable_reason() -> Optional[str]:
    """Why this machine cannot run the GlusterFS baseline, or None if it can."""
    missing = [tool for tool in ("glusterd", "gluster", "mount.glusterfs") if shutil.which(tool) is None
               and not os.path.exists("/usr/sbin/" + tool) and not os.path.exists("/sbin/" + tool)]
    if missing:
        return "%s not installed (bin/install-deps --bench installs glusterfs-server and glusterfs-client)" % (
            ", ".join(missing))
    if os.geteuid() != 0:
        return "GlusterFS needs root to run glusterd and mount"
    return None


def version() -> str:
    try:
        first = subprocess.run(["glusterfs", "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=10).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return "glusterfs (version unknown)"
    return first[0].strip() if first else "glusterfs (version unknown)"


def _glusterd_running() -> bool:
    return subprocess.run(["pgrep", "-x", "glusterd"], stdout=subprocess.DEVNULL).returncode == 0


class GlusterVolume:
    """One brick under `state`, mounted at `state`/mnt; mount(), unmount() and remount() like cluster.Mount."""

    def __init__(self, state: Path):
        self.state = state
        self.name = "xtreemfs-bench-%d" % os.getpid()
        self.brick = state / "brick"
        self.mount_point = state / "mnt"
        self.host = socket.gethostname()
        self.started_glusterd = False
        self.created = False
        self.mounted = False

    def _gluster(self, *arguments: str) -> str:
        command = ["gluster", "--mode=script"] + list(arguments)
        try:
            result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    timeout=GLUSTER_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as error:
            raise GlusterError("'%s' took more than %d s" % (" ".join(command), GLUSTER_TIMEOUT_S)) from error
        if result.returncode != 0:
            raise GlusterError("'%s' failed (%d): %s" % (" ".join(command), result.returncode,
                                                          result.stdout.strip()))
        return result.stdout

    def start(self) -> None:
        """Starts glusterd if needed, then creates, starts and mounts the volume."""
        try:
            socket.gethostbyname(self.host)
        except OSError as error:
            raise GlusterError("this host's name '%s' does not resolve (%s); GlusterFS names bricks by host"
                               % (self.host, error)) from error
        self.state.mkdir(parents=True, exist_ok=True)
        if not _glusterd_running():
            log = self.state / "glusterd.log"
            subprocess.run(["glusterd", "--log-file=" + str(log), "-p", str(self.state / "glusterd.pid")],
                           check=True, timeout=GLUSTER_TIMEOUT_S)
            self.started_glusterd = True
            self._wait_for(lambda: self._answers(), "glusterd to answer", GLUSTER_TIMEOUT_S)
        self.brick.mkdir(parents=True, exist_ok=True)
        # force: the brick sits on the root file system (the same one the OSDs and the raw-disk folder use).
        self._gluster("volume", "create", self.name, "%s:%s" % (self.host, self.brick), "force")
        self.created = True
        self._gluster("volume", "start", self.name)
        self.mount()

    def _answers(self) -> bool:
        return subprocess.run(["gluster", "--mode=script", "volume", "list"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=GLUSTER_TIMEOUT_S).returncode == 0

    @staticmethod
    def _wait_for(condition, what: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.2)
        raise GlusterError("gave up waiting %d s for %s" % (timeout_s, what))

    def mount(self) -> None:
        self.mount_point.mkdir(parents=True, exist_ok=True)
        result = subprocess.run(["mount", "-t", "glusterfs", "%s:/%s" % (self.host, self.name),
                                 str(self.mount_point)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, timeout=MOUNT_TIMEOUT_S)
        if result.returncode != 0:
            raise GlusterError("mounting GlusterFS volume %s failed (%d): %s" % (
                self.name, result.returncode, result.stdout.strip()))
        self._wait_for(lambda: os.path.ismount(self.mount_point), "the GlusterFS mount", MOUNT_TIMEOUT_S)
        self.mounted = True

    def unmount(self) -> None:
        if not self.mounted:
            return
        for _ in range(10):  # a just-finished fio may keep the mount busy for a moment
            if subprocess.run(["umount", str(self.mount_point)], stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.5)
        else:
            subprocess.run(["umount", "-l", str(self.mount_point)], stderr=subprocess.DEVNULL)
        self.mounted = False

    def remount(self) -> None:
        """A fresh GlusterFS client process: nothing of the earlier I/O is left in its caches."""
        self.unmount()
        self.mount()

    def stop(self) -> List[str]:
        """Unmounts, stops and deletes the volume, stops a glusterd this run started; returns problems met
        (the benchmark reports them as notes rather than failing after its figures are in)."""
        problems: List[str] = []
        self.unmount()
        if self.created:
            for arguments in (("volume", "stop", self.name, "force"), ("volume", "delete", self.name)):
                try:
                    self._gluster(*arguments)
                except GlusterError as error:
                    problems.append(str(error))
            self.created = False
        if self.started_glusterd:
            pid_file = self.state / "glusterd.pid"
            try:
                os.kill(int(pid_file.read_text().strip()), 15)
            except (OSError, ValueError) as error:
                problems.append("could not stop the glusterd this run started: %s" % error)
            # glusterd leaves its brick processes behind when it stops; they serve only this volume's brick,
            # which was stopped above, so nothing of ours is left once they are gone too.
            subprocess.run(["pkill", "-f", "--", "--brick-name %s" % self.brick], stderr=subprocess.DEVNULL)
            self.started_glusterd = False
        shutil.rmtree(self.brick, ignore_errors=True)
        return problems
