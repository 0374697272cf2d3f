"""What the cluster test and demo share: clicks data, the build, the submit, the reference.

* :func:`gen_clicks` — seeded ``(user_id, pagetype, ts)`` tuples; :func:`write_clicks`
  writes them as a parquet dir of several files (several input tasks);
* :func:`build` — ``uda-compile samples/clickstream.py -o OUT`` (the console script);
* :func:`submit` — ``spark-submit`` of ``job.py`` against a running cluster;
* :func:`read_results` / :func:`reference` / :func:`compare` — the job's output
  next to the plain-Python ``@dataflow`` functions of ``samples/clickstream.py``.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.cluster import standalone

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "clickstream.py"
JOB = Path(__file__).resolve().parent / "job.py"
COLUMNS = ("user_id", "pagetype", "ts")
#: Driver and executor JVMs with the client compiler only: they start and warm up about
#: twice as fast, which is what counts for small inputs (the test: 3k rows, a ~30 s job
#: instead of ~60 s on a busy 2-core machine)
QUICK_JVM = {
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1",
    "spark.executor.extraJavaOptions": "-XX:TieredStopAtLevel=1",
}


# -- data ----------------------------------------------------------------------------------


def gen_clicks(rows: int, users: int, seed: int = 7) -> list[tuple[int, int, int]]:
    """``rows`` clicks of ``users`` users: page type 0 (start) and 1 (end) 15% each, else
    2..5; timestamps drawn from ``10 * rows`` values (so a few ties occur)."""
    rnd = random.Random(seed)
    out = []
    for _ in range(rows):
        u = rnd.randrange(users)
        r = rnd.random()
        page = 0 if r < 0.15 else 1 if r < 0.30 else rnd.randint(2, 5)
        out.append((u, page, rnd.randrange(10 * rows)))
    return out


def write_clicks(clicks: list[tuple[int, int, int]], path: str | os.PathLike[str], files: int = 4):
    """A parquet dir of ``files`` files, columns ``user_id, pagetype, ts`` (bigint)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    schema = pa.schema([(c, pa.int64()) for c in COLUMNS])
    step = -(-len(clicks) // files)
    for i in range(files):
        part = clicks[i * step : (i + 1) * step]
        cols = [pa.array([r[j] for r in part], pa.int64()) for j in range(3)]
        pq.write_table(pa.Table.from_arrays(cols, schema=schema), path / f"part-{i:05d}.parquet")
    return path


# -- build and submit ----------------------------------------------------------------------


def uda_compile() -> str:
    """The ``uda-compile`` console script next to this interpreter (else on PATH)."""
    exe = Path(sys.executable).parent / "uda-compile"
    return str(exe) if exe.exists() else (shutil.which("uda-compile") or "uda-compile")


def build(out: str | os.PathLike[str], timeout: float = 300) -> Path:
    """``uda-compile samples/clickstream.py -o OUT``; returns ``OUT/clickstream.zip``."""
    out = Path(out)
    cmd = [uda_compile(), str(SAMPLE), "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    zip_path = out / "clickstream.zip"
    if r.returncode != 0 or not zip_path.exists():
        raise RuntimeError(
            f"{' '.join(cmd)} exited {r.returncode} (zip exists: {zip_path.exists()})\n"
            f"stdout:\n{tail(r.stdout)}\nstderr:\n{tail(r.stderr)}"
        )
    return zip_path


@dataclass
class Submitted:
    seconds: float
    stdout: str
    stderr: str
    run: dict[str, Any]  # the job's run.json
    pgid: int  # spark-submit's process group (gone when submit returns)


def submit(
    c: standalone.Cluster,
    zip_path: str | os.PathLike[str],
    input_dir: str | os.PathLike[str],
    output_dir: str | os.PathLike[str],
    *,
    executors: int = 2,
    shuffle_partitions: int = 4,
    app_name: str = "looplift-cluster-job",
    timeout: float = 300,
    conf: dict[str, str] | None = None,
    view: str | os.PathLike[str] | None = None,
) -> Submitted:
    """``spark-submit --master <c> --py-files ZIP job.py INPUT OUTPUT``; raises with the
    output tails (and the cluster's log tails) unless it exits 0 and wrote run.json."""
    cmd = standalone.spark_submit_command(
        c,
        JOB,
        str(input_dir),
        str(output_dir),
        "--executors", str(executors),
        "--shuffle-partitions", str(shuffle_partitions),
        "--app-name", app_name,
        *(["--view", str(view)] if view else []),
        py_files=[str(zip_path)],
        conf={"spark.ui.showConsoleProgress": "false", "spark.driver.memory": "1g", **(conf or {})},
    )  # fmt: skip
    start = time.perf_counter()
    # its own process group: on a timeout the driver's Python goes with the JVM
    p = subprocess.Popen(  # noqa: S603 - fixed command
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=c.env(),
        cwd=c.root,
        start_new_session=True,
    )
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        standalone.kill_group(p)
        out, err = p.communicate()
        raise RuntimeError(
            f"spark-submit did not finish in {timeout:.0f} s\n"
            f"stderr:\n{tail(err, 60)}\n{c.log_tails(10)}"
        ) from None
    finally:
        standalone.kill_group(p)  # nothing of the driver outlives it
    seconds = time.perf_counter() - start
    run_file = Path(output_dir) / "run.json"
    if p.returncode != 0 or not run_file.exists():
        raise RuntimeError(
            f"spark-submit exited {p.returncode} after {seconds:.1f} s\n"
            f"command: {' '.join(cmd)}\nstdout:\n{tail(out, 20)}\n"
            f"stderr:\n{tail(err, 60)}\n{c.log_tails(10)}"
        )
    run = json.loads(run_file.read_text(encoding="utf-8"))
    return Submitted(seconds, out, err, run, p.pid)


def tail(text: str, lines: int = 40) -> str:
    return "\n".join((text or "").splitlines()[-lines:])


# -- results and reference -----------------------------------------------------------------


def read_results(output_dir: str | os.PathLike[str], name: str) -> list[tuple[Any, ...]]:
    """The rows of ``OUTPUT/name`` (parquet dir written by the job), sorted."""
    import pyarrow.parquet as pq

    table = pq.read_table(Path(output_dir) / name)
    cols = [table.column(i).to_pylist() for i in range(table.num_columns)]
    return sorted(zip(*cols, strict=True), key=_key)


def _key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((v is None, 0 if v is None else v) for v in row)


def reference(clicks: list[tuple[int, int, int]]) -> tuple[list[tuple], list[tuple]]:
    """CPython answers: ``clickstream(clicks)`` and ``(user, avg_path(user's clicks))``."""
    import importlib

    sample = importlib.import_module("samples.clickstream")
    table = sorted((tuple(r) for r in sample.clickstream(clicks)), key=_key)
    per_user: dict[int, list[tuple[int, int]]] = {}
    for u, page, ts in clicks:
        per_user.setdefault(u, []).append((page, ts))
    agg = sorted(((u, sample.avg_path(rows)) for u, rows in per_user.items()), key=_key)
    return table, agg


def compare(got: list[tuple], want: list[tuple]) -> list[str]:
    """Differences between two sorted row lists (floats to 1e-9 relative), at most 10."""
    problems = []
    if len(got) != len(want):
        problems.append(f"{len(got)} rows, expected {len(want)}")
    for g, w in zip(got, want, strict=False):
        if len(g) != len(w) or not all(_same(a, b) for a, b in zip(g, w, strict=False)):
            problems.append(f"got {g}, expected {w}")
        if len(problems) >= 10:
            break
    return problems


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, float) or isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b
