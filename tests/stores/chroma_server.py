"""Start and stop a real Chroma server (``chroma run``) on 127.0.0.1 for tests and benches."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ChromaServer:
    """``with ChromaServer(path) as server:`` runs ``chroma run`` until the block ends."""

    def __init__(self, path: Path, startup_seconds: float = 60.0) -> None:
        self.path = path
        self.port = free_port()
        self.startup_seconds = startup_seconds
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @staticmethod
    def available() -> bool:
        return chroma_command() is not None

    def __enter__(self) -> ChromaServer:
        self._process = subprocess.Popen(
            [str(chroma_command()), "run", "--path", str(self.path), "--host", "127.0.0.1",
             "--port", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + self.startup_seconds
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"chroma run exited with code {self._process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=1):
                    return self
            except OSError:
                time.sleep(0.2)
        self.__exit__()
        raise RuntimeError(f"chroma server did not start within {self.startup_seconds}s")

    def __exit__(self, *exc: object) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()


def chroma_command() -> str | None:
    """The ``chroma`` script of the running interpreter's environment, else one on PATH."""
    beside = Path(sys.executable).parent / "chroma"
    return str(beside) if beside.is_file() else shutil.which("chroma")
