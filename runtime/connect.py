"""A local Spark Connect server on 127.0.0.1, started from the installed pyspark.

    from looplift.connect import connect_server
    with connect_server(tmpdir) as s:
        spark = looplift.spark.remote_session(s.url)

or from a shell, until Ctrl-C: ``python -m looplift.connect`` (prints the URL).

The server is pyspark's own ``bin/spark-submit`` running
``org.apache.spark.sql.connect.service.SparkConnectServer`` (the ``spark-connect``
jar ships in pyspark's ``jars/``), master ``local[2]``, with the confs of
:func:`looplift.spark.local_session` (ANSI on, UTC, few shuffle partitions, no UI) and
``PYSPARK_PYTHON`` the running interpreter, and looplift's JVM kernels in every session
(``looplift.kernels``: the jar and its ``spark.sql.extensions``). It runs in its own session and process
group (stopping it also ends its Python workers), logs to ``root/connect.log``, and
``start`` returns once the gRPC port accepts connections; a failed start stops what it
started and raises :class:`ConnectServerError` with the log's tail.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .kernels import with_jar
from .processes import HOST, free_port, kill_group, spark_home

__all__ = ["ConnectServer", "ConnectServerError", "start", "stop", "connect_server", "CONFS"]

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"

# the confs of looplift.spark.local_session (2 shuffle partitions: 2 cores, small test data)
CONFS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.sql.ansi.enabled": "true",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "2g",
}


class ConnectServerError(RuntimeError):
    """The server did not come up (the message carries its log's tail)."""


@dataclass
class ConnectServer:
    root: Path
    port: int
    popen: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        """The client's address: ``SparkSession.builder.remote(url)``."""
        return f"sc://{HOST}:{self.port}"

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            return f"(no log: {e})"
        return "\n".join(text.splitlines()[-lines:])


def connect_jar() -> Path:
    jars = sorted((spark_home() / "jars").glob("spark-connect_*.jar"))
    if not jars:
        raise ConnectServerError(f"no spark-connect jar in {spark_home() / 'jars'}")
    return jars[0]


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    conf = root / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    env.update(
        SPARK_HOME=str(spark_home()),
        SPARK_CONF_DIR=str(conf),  # an empty conf dir: no stray spark-defaults/spark-env
        SPARK_LOCAL_IP=HOST,
        SPARK_LOCAL_DIRS=str(root / "local"),
        PYSPARK_PYTHON=os.environ.get("PYSPARK_PYTHON", sys.executable),
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    # nothing of a session this process runs (classic gateway, remote mode) leaks in
    for k in ("PYSPARK_SUBMIT_ARGS", "PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET",
              "SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "SPARK_LOCAL_REMOTE"):  # fmt: skip
        env.pop(k, None)
    return env


def command(port: int, confs: dict[str, str] | None = None) -> list[str]:
    cmd = [str(spark_home() / "bin" / "spark-submit"), "--class", SERVER_CLASS,
           "--master", "local[2]", "--name", "looplift-connect"]  # fmt: skip
    merged = {
        **CONFS,
        "spark.connect.grpc.binding.address": HOST,
        "spark.connect.grpc.binding.port": str(port),
        **(confs or {}),
    }
    for k, v in with_jar(merged, extensions=True).items():  # the kernels in every session
        cmd += ["--conf", f"{k}={v}"]
    return [*cmd, str(connect_jar())]


def _answers(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=1.0):
        return True
    return False


def start(root: str | os.PathLike[str], timeout: float = 120.0,
          confs: dict[str, str] | None = None) -> ConnectServer:  # fmt: skip
    """Start a server under ``root``; return once its gRPC port accepts connections."""
    root = Path(root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = root / "connect.log"
    with open(log, "wb") as out:
        popen = subprocess.Popen(  # noqa: S603 - fixed command
            command(port, confs),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=_env(root),
            cwd=root,
            start_new_session=True,  # own process group: stop() ends the JVM and its workers
        )
    server = ConnectServer(root, port, popen, log)
    deadline = time.monotonic() + timeout
    try:
        while not _answers(port):
            if popen.poll() is not None:
                raise ConnectServerError(
                    f"Spark Connect server exited with {popen.returncode} during start-up "
                    f"(log {log}):\n{server.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise ConnectServerError(
                    f"Spark Connect server: port {port} did not answer within {timeout:.0f} s "
                    f"(log {log}):\n{server.log_tail()}"
                )
            time.sleep(0.25)
    except BaseException:
        stop(server)
        raise
    return server


def stop(server: ConnectServer) -> None:
    """End the server's process group (SIGTERM, then SIGKILL) and reap it."""
    kill_group(server.popen)


@contextlib.contextmanager
def connect_server(root: str | os.PathLike[str], **kw: Any) -> Iterator[ConnectServer]:
    server = start(root, **kw)
    try:
        yield server
    finally:
        stop(server)


def main() -> None:
    """Start a server, print its URL, serve until interrupted, then stop it."""
    import signal
    import tempfile

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)  # (a background job ignores SIGINT)
    signal.signal(signal.SIGINT, interrupt)
    with tempfile.TemporaryDirectory(prefix="looplift-connect-") as root:
        with connect_server(root) as s:
            print(f"Spark Connect server at {s.url} (log {s.log}); Ctrl-C stops it", flush=True)
            try:
                while s.popen.poll() is None:
                    time.sleep(1)
            except KeyboardInterrupt:
                pass


if __name__ == "__main__":
    main()
