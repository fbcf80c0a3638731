"""The fake model server in a process of its own, scripted over stdin, for benchmarks that measure
the app's memory: in the app's process, the server's parsing of each request (the whole history,
larger every turn) would be counted as the app's, and its transient objects would fragment the
app's heap.

Run by ``ServerProcess`` (below); not a command for people. Protocol: the first stdout line is the
base URL; each stdin line is a reply's JSON (``Reply.to_json``), queued, then acknowledged with one
``ok`` line, so a reply is queued before the request that takes it is sent. The recorded requests
are dropped as they come (they would grow with every turn); closing stdin stops the server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any


class ServerProcess:
    """Stands in for ``FakeLLMServer`` where the benchmark drivers use it: ``script``, the
    addresses, and ``_lock``/``_requests`` (emptied after each turn; here always empty)."""

    def __init__(self, tree: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1"}
        self._process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve())],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self.base_url = self._process.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            self.close()
            raise RuntimeError(f"the fake server process did not start (it said {self.base_url!r})")
        self.openai_base_url = f"{self.base_url}/v1"
        self._lock = threading.Lock()
        self._requests: list[Any] = []

    def script(self, *replies: Any) -> None:
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        for reply in replies:
            stdin.write(json.dumps(reply.to_json()) + "\n")
            stdin.flush()
            if stdout.readline().strip() != "ok":
                raise RuntimeError("the fake server process refused a reply")

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def serve() -> None:
    from tests.fakes.llm_server import FakeLLMServer, Reply

    with FakeLLMServer() as server:
        print(server.base_url, flush=True)
        for line in sys.stdin:
            server.script(Reply.from_json(json.loads(line)))
            with server._lock:
                server._requests.clear()
            print("ok", flush=True)


if __name__ == "__main__":
    serve()
