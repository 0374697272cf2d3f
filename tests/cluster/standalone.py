"""A real Spark standalone cluster on 127.0.0.1: one master, N workers, started and stopped here.

    with standalone.cluster(tmpdir, workers=2) as c:
        subprocess.run(spark_submit_command(c, "job.py", ...))

Every daemon is pyspark's own ``bin/spark-class`` (which execs the JVM) in its own
session and process group, with its own free ports, work dir and log file under
``tmpdir``. ``start`` waits until the master's ``/json/`` reports every worker
ALIVE; ``stop`` signals exactly the process groups it started (SIGTERM, then
SIGKILL), which also reaches the executors and Python workers the workers
spawned into their group, and waits until no process of those groups is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from looplift.processes import (
    free_port,
    group_alive,
    kill_group,
    proc_pgid_state,
    signal_group,
    spark_home,
    wait_gone,
)

__all__ = [
    "ClusterError",
    "Daemon",
    "Cluster",
    "spark_home",
    "free_port",
    "start",
    "stop",
    "kill_group",
    "cluster",
    "spark_submit_command",
    "group_alive",
    "processes_mentioning",
]

HOST = "127.0.0.1"


class ClusterError(RuntimeError):
    """The cluster did not come up (the message carries the daemons' log tails)."""


@dataclass
class Daemon:
    """One started process: a master or a worker (its pid is also its process group)."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    web_port: int

    @property
    def pid(self) -> int:
        return self.popen.pid

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            return f"(no log: {e})"
        return "\n".join(text.splitlines()[-lines:])


@dataclass
class Cluster:
    root: Path  # the tmp dir holding logs, work dirs and conf
    master_url: str  # spark://127.0.0.1:PORT
    master_web: str  # http://127.0.0.1:PORT
    daemons: list[Daemon] = field(default_factory=list)
    stopped: bool = False

    @property
    def pids(self) -> list[int]:
        return [d.pid for d in self.daemons]

    @property
    def workers(self) -> list[Daemon]:
        return [d for d in self.daemons if d.name.startswith("worker")]

    def status(self, timeout: float = 5.0) -> dict[str, Any]:
        """The master's ``/json/`` (workers, apps, cores)."""
        with urllib.request.urlopen(f"{self.master_web}/json/", timeout=timeout) as r:
            return json.load(r)

    def log_tails(self, lines: int = 30) -> str:
        return "\n".join(
            f"--- {d.name} (pid {d.pid}, {d.log}) ---\n{d.log_tail(lines)}" for d in self.daemons
        )

    def env(self) -> dict[str, str]:
        """The environment for ``spark-submit`` against this cluster."""
        return _env(self.root)


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    conf = root / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    env.update(
        SPARK_HOME=str(spark_home()),
        SPARK_CONF_DIR=str(conf),  # an empty conf dir: no stray spark-defaults/spark-env
        SPARK_LOCAL_IP=HOST,
        SPARK_LOCAL_DIRS=str(root / "local"),
        SPARK_LOG_DIR=str(root / "logs"),
        SPARK_PID_DIR=str(root),
        # executors start Python workers with PYSPARK_PYTHON: this venv has looplift etc.
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        # no REST submission server (it binds the fixed port 6066)
        SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
        # master and workers only schedule: a client-compiler-only JVM starts ~35% faster
        SPARK_DAEMON_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
    )
    # nothing of a SparkSession this process may run elsewhere
    for k in ("SPARK_MASTER_HOST", "PYSPARK_SUBMIT_ARGS", "PYSPARK_GATEWAY_PORT",
              "PYSPARK_GATEWAY_SECRET"):  # fmt: skip
        env.pop(k, None)
    return env


def _launch(root: Path, name: str, args: list[str], web_port: int) -> Daemon:
    log = root / "logs" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(spark_home() / "bin" / "spark-class"), *args]
    with open(log, "wb") as out:
        popen = subprocess.Popen(  # noqa: S603 - fixed command
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=_env(root),
            cwd=root,
            start_new_session=True,  # own session and process group: stop() kills the group
        )
    return Daemon(name, popen, log, web_port)


def _alive(status: dict[str, Any]) -> int:
    return sum(1 for w in status.get("workers", []) if w.get("state") == "ALIVE")


def _wait(c: Cluster, deadline: float, ok: Any, what: str) -> None:
    """Poll the master's ``/json/`` until ``ok(status)``; fail early if a daemon exits."""
    status: dict[str, Any] | None = None
    while True:
        dead = [d for d in c.daemons if d.popen.poll() is not None]
        if dead:
            raise ClusterError(
                "standalone cluster: "
                + ", ".join(f"{d.name} exited with {d.popen.returncode}" for d in dead)
                + f" during start-up\n{c.log_tails()}"
            )
        try:
            status = c.status(timeout=2.0)
        except (OSError, ValueError):
            status = None
        if status is not None and ok(status):
            return
        if time.monotonic() > deadline:
            seen = (
                "the master web UI did not answer"
                if status is None
                else f"master {status.get('status')}, {_alive(status)} workers ALIVE"
            )
            raise ClusterError(
                f"standalone cluster: timed out waiting for {what} at {c.master_web}/json/ "
                f"({seen})\n{c.log_tails()}"
            )
        time.sleep(0.25)


def start(
    root: str | os.PathLike[str],
    workers: int = 2,
    cores: int = 1,
    memory: str = "1g",
    timeout: float = 90.0,
) -> Cluster:
    """Start a master and ``workers`` workers under ``root``; return once all are ALIVE.

    On failure (a daemon exits, or the timeout passes) everything started is
    stopped and :class:`ClusterError` is raised with the log tails.
    """
    root = Path(root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    port, web = free_port(), free_port()
    c = Cluster(root, f"spark://{HOST}:{port}", f"http://{HOST}:{web}")
    try:
        master = _launch(
            root,
            "master",
            [
                "org.apache.spark.deploy.master.Master",
                "--host",
                HOST,
                "--port",
                str(port),
                "--webui-port",
                str(web),
            ],  # fmt: skip
            web,
        )
        c.daemons.append(master)
        deadline = time.monotonic() + timeout
        # Workers that register before the master is elected leader are dropped and retry
        # only after 5-15 s: start them once the master reports ALIVE.
        _wait(c, deadline, lambda s: s.get("status") == "ALIVE", "the master to be ALIVE")
        # Spark moves to the next port if ours was taken meanwhile: use the one it reports
        c.master_url = c.status().get("url") or c.master_url
        for i in range(1, workers + 1):
            wweb = free_port()
            work = root / f"worker{i}"
            work.mkdir(exist_ok=True)
            c.daemons.append(
                _launch(
                    root,
                    f"worker{i}",
                    [
                        "org.apache.spark.deploy.worker.Worker",
                        "--host",
                        HOST,
                        "--cores",
                        str(cores),
                        "--memory",
                        memory,
                        "--work-dir",
                        str(work),
                        "--webui-port",
                        str(wweb),
                        c.master_url,
                    ],  # fmt: skip
                    wweb,
                )
            )
        _wait(c, deadline, lambda s: _alive(s) >= workers, f"{workers} workers ALIVE")
        return c
    except BaseException:
        stop(c)
        raise


def processes_mentioning(text: str) -> list[tuple[int, str]]:
    """Live processes whose command line contains ``text`` (e.g. the cluster's tmp dir)."""
    found = []
    if sys.platform != "linux":
        return found
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ps = proc_pgid_state(int(entry))
        if text in cmd and ps is not None and ps[1] != "Z":
            found.append((int(entry), cmd[:200]))
    return found


def stop(c: Cluster, grace: float = 10.0) -> None:
    """Stop exactly the daemons ``c`` started, with their process groups; idempotent.

    SIGTERM to every group (a worker's shutdown also kills its executors), then
    SIGKILL to whatever is still alive after ``grace`` seconds.
    """
    procs = [d.popen for d in c.daemons]
    for p in procs:
        signal_group(p.pid, signal.SIGTERM)
    wait_gone(procs, grace)
    left = [p for p in procs if p.poll() is None or group_alive(p.pid)]
    for p in left:
        signal_group(p.pid, signal.SIGKILL)
    wait_gone(left, 10.0)
    c.stopped = True


@contextlib.contextmanager
def cluster(root: str | os.PathLike[str], **kw: Any) -> Iterator[Cluster]:
    """``start`` ... ``stop``, the stop in a ``finally``."""
    c = start(root, **kw)
    try:
        yield c
    finally:
        stop(c)


def spark_submit_command(
    c: Cluster, script: str | os.PathLike[str], *args: str, py_files: list[str] | None = None,
    conf: dict[str, str] | None = None,
) -> list[str]:  # fmt: skip
    """``spark-submit --master <c> [--py-files ...] [--conf k=v ...] script args...``."""
    cmd = [str(spark_home() / "bin" / "spark-submit"), "--master", c.master_url]
    if py_files:
        cmd += ["--py-files", ",".join(py_files)]
    for k, v in (conf or {}).items():
        cmd += ["--conf", f"{k}={v}"]
    return [*cmd, str(script), *args]


def remove(root: str | os.PathLike[str]) -> None:
    """Remove the cluster's tmp dir (after ``stop``)."""
    shutil.rmtree(root, ignore_errors=True)
