"""Local processes looplift starts (a Spark Connect server; the tests' standalone cluster):
where pyspark's Spark lives, free ports, and stopping a process group for good."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = [
    "HOST",
    "free_port",
    "group_alive",
    "kill_group",
    "proc_pgid_state",
    "signal_group",
    "spark_home",
    "wait_gone",
]

HOST = "127.0.0.1"


def spark_home() -> Path:
    """pyspark's package dir: it holds ``bin/spark-class``, ``bin/spark-submit`` and the jars."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def proc_pgid_state(pid: int) -> tuple[int, str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    rest = stat.rpartition(")")[2].split()  # after "pid (comm)": state ppid pgrp ...
    return int(rest[2]), rest[0]


def group_alive(pgid: int) -> list[int]:
    """Live (non-zombie) processes of process group ``pgid``."""
    if sys.platform != "linux":
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        except PermissionError:
            pass
        return [pgid]
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            ps = proc_pgid_state(int(entry))
            if ps is not None and ps[0] == pgid and ps[1] != "Z":
                found.append(int(entry))
    return found


def signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def kill_group(p: subprocess.Popen[Any], grace: float = 10.0) -> None:
    """End process group ``p.pid`` (``p`` started with ``start_new_session``): SIGTERM, and
    SIGKILL for what is left after ``grace`` seconds; reaps ``p``."""
    if p.poll() is None or group_alive(p.pid):
        signal_group(p.pid, signal.SIGTERM)
        wait_gone([p], grace)
    if p.poll() is None or group_alive(p.pid):
        signal_group(p.pid, signal.SIGKILL)
        wait_gone([p], 10.0)


def wait_gone(procs: list[subprocess.Popen[Any]], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
    while time.monotonic() < deadline and any(group_alive(p.pid) for p in procs):
        time.sleep(0.2)
