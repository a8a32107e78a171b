"""The C and C++ tools of this folder that no build target compiles (issue 10): each must still compile with every
warning an error, so a tool the notes point to cannot rot unseen between the sessions that run it."""
import subprocess
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


def fuse3_flags():
    """pkg-config's compile and link flags for libfuse3 (installed by bin/install-deps for the mount)."""
    return subprocess.run(["pkg-config", "--cflags", "--libs", "fuse3"], check=True, capture_output=True,
                          text=True).stdout.split()


class ToolsCompileTest(unittest.TestCase):
    def compile(self, compiler, source, extra=()):
        with tempfile.TemporaryDirectory() as folder:
            result = subprocess.run([compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(Path(folder) / "tool"),
                                     str(HERE / source), *extra], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, "%s does not compile:\n%s" % (source, result.stderr))

    def test_metadata_ops_compiles(self):
        self.compile("cc", "metadata_ops.c")

    def test_page_cache_pieces_compiles(self):
        self.compile("cc", "page_cache_pieces.c")

    def test_floor_fs_compiles(self):
        self.compile("g++", "floor_fs.cc", ["-std=c++17", *fuse3_flags()])


if __name__ == "__main__":
    unittest.main()
