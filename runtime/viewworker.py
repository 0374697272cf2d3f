"""Helper processes for a Spark store's applies in the driver process.

An apply that touches at most ``driver_keys`` keys runs in the driver process
(:mod:`looplift.sparkview`), one key after another: reading its records, replaying the
reference code, pickling states, writing a log file. That work is Python, so it uses one
core. A :class:`Helper` is a second Python process on the driver's machine that takes a
part of the keys (:func:`looplift.viewtasks.apply_keys` on its own log file) while the
driver process does the rest; the view commits both log files in one version.

A helper is started (``python -m looplift.viewworker``, not ``multiprocessing``, which
would re-run a user's script) on the first apply large enough to use it, and is used
once it has imported looplift and unpickled the view's step (until then the driver does
every key). Messages are length-prefixed pickles over its stdin and stdout (the user's
prints go to its stderr). A helper exits when its pipe closes (the driver process ended
or closed the view). If it dies or fails to answer, the apply runs its part in the
driver process instead: nothing it wrote was committed.

A helper also keeps the log short: once the log has more than ``MAX_LOG`` files per
applying process, the view has an idle helper flush it into the buckets (and compact
them) in the background, and commits the new bucket files with a later apply (the log
files written since stay in the log); with no helper, the driver process flushes the
log inside the apply.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import threading
from typing import Any, BinaryIO

from .viewfiles import file_index, upkeep
from .viewtasks import apply_keys

__all__ = ["Helper", "main"]

_LEN = struct.Struct("<Q")


def _send(fh: BinaryIO, msg: Any) -> None:
    blob = pickle.dumps(msg, protocol=5)
    fh.write(_LEN.pack(len(blob)))
    fh.write(blob)
    fh.flush()


def _send_quietly(fh: BinaryIO, msg: Any) -> None:
    try:
        _send(fh, msg)
    except OSError:  # (the helper ended: it is dropped when it is next looked at)
        pass


def _recv(fh: BinaryIO) -> Any:
    head = fh.read(_LEN.size)
    if len(head) < _LEN.size:
        raise EOFError("looplift: the view's helper process ended")
    (n,) = _LEN.unpack(head)
    blob = fh.read(n)
    if len(blob) < n:
        raise EOFError("looplift: the view's helper process ended")
    return pickle.loads(blob)


class Helper:
    """One helper process of a view (module docs)."""

    def __init__(self, step_blob: bytes, data: str = "", names: list[str] = ()) -> None:
        """Start a helper for a view's ``step`` (pickled); it indexes the record files
        ``names`` in ``data`` before it says it is ready."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "looplift.viewworker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True,
        )  # fmt: skip
        self.ready = False
        self.busy = False  # (flushing the log in the background: no keys for it now)
        self.warmed: set[str] = set(names)
        # (sent by a thread: the helper reads it once it has imported looplift, and a
        # step larger than the pipe's buffer would hold up the apply until then)
        msg = ("step", step_blob, data, list(names))
        threading.Thread(target=_send_quietly, args=(self.proc.stdin, msg),
                         name="looplift-helper-start", daemon=True).start()  # fmt: skip

    def is_ready(self) -> bool:
        """Whether the helper has started and taken the step (does not wait)."""
        if not self.ready and self.alive():
            readable, _, _ = select.select([self.proc.stdout], [], [], 0)
            if readable:
                try:
                    self.ready = _recv(self.proc.stdout) == ("ready",)
                except EOFError:  # (it ended while starting)
                    return False
        return self.ready and self.alive()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def warm(self, data: str, names: list[str]) -> None:
        """Have the helper read the key hashes of record files while it is idle (its
        first reads of a file would otherwise pay for them inside an apply)."""
        fresh = [n for n in names if n not in self.warmed]
        if fresh:
            _send(self.proc.stdin, ("warm", data, fresh))
            self.warmed.update(fresh)

    def submit(self, data: str, job: dict) -> None:
        """Start :func:`~looplift.viewtasks.apply_keys` of ``job`` in the helper."""
        _send(self.proc.stdin, ("apply", data, job))

    def start_upkeep(self, data: str, job: dict) -> None:
        """Start :func:`~looplift.viewfiles.upkeep` of ``job`` (``buckets``, ``log``,
        ``files``) in the helper; it takes no keys until :meth:`upkeep_result` has it."""
        _send(self.proc.stdin, ("upkeep", data, job))
        self.busy = True

    def upkeep_result(self, wait: bool) -> dict[int, list[str]] | None:
        """The started upkeep's bucket files; None while it runs (``wait``: wait for it).
        Raises EOFError if the helper ended or the upkeep failed."""
        if not wait:
            readable, _, _ = select.select([self.proc.stdout], [], [], 0)
            if not readable:
                return None
        out = _recv(self.proc.stdout)
        self.busy = False
        if out[0] != "flushed":
            raise EOFError(f"looplift: the view's helper could not flush the log: {out[1]}")
        return out[1]

    def result(self) -> list[tuple[int, str, bytes]]:
        """The submitted job's result rows (waits for them)."""
        out = _recv(self.proc.stdout)
        if out[0] != "done":
            raise EOFError(f"looplift: the view's helper process answered {out[0]!r}")
        return out[1]

    def close(self) -> None:
        """End the helper (it exits when its input closes)."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def main() -> None:
    """The helper's loop: the step, then jobs, until its input closes."""
    inp = sys.stdin.buffer
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # (the user's prints: stderr)
    step = None
    while True:
        try:
            msg = _recv(inp)
        except EOFError:
            return
        if msg[0] == "step":
            step = pickle.loads(msg[1])
            _warm(msg[2], msg[3])
            _send(out, ("ready",))
        elif msg[0] == "apply":
            _send(out, ("done", apply_keys(step, msg[1], msg[2])))
        elif msg[0] == "upkeep":
            try:
                _send(out, ("flushed", upkeep(msg[1], **msg[2])))
            except Exception as e:  # noqa: BLE001 - the driver process flushes instead
                _send(out, ("failed", f"{type(e).__name__}: {e}"))
        elif msg[0] == "warm":
            _warm(msg[1], msg[2])


def _warm(data: str, names: list[str]) -> None:
    for name in names:
        try:
            file_index(data, name)
        except OSError:  # (removed since: a later version does not name it)
            continue


if __name__ == "__main__":
    main()
