"""Build ``runtime/jars/looplift-kernels.jar`` from ``jvm/looplift/kernels/*.java``.

    python jvm/build_jar.py [--check]

Compiles with the JDK's ``javac`` (``--release 17``) against the installed pyspark's jars
and writes the classes into a jar whose bytes depend on the classes only (sorted entries,
fixed times), so the committed jar can be checked against the sources: ``--check`` builds
into memory and exits 1 if the committed jar differs (tests/spark/test_kernels.py).
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SOURCES = sorted((ROOT / "looplift" / "kernels").glob("*.java"))
JAR = ROOT.parent / "runtime" / "jars" / "looplift-kernels.jar"
_TIME = (1980, 1, 1, 0, 0, 0)


def classes() -> dict[str, bytes]:
    """The compiled classes, by their path in the jar."""
    import pyspark

    javac = shutil.which("javac")
    if javac is None:
        raise SystemExit("javac not found: the kernels need a JDK 17 to build")
    jars = Path(pyspark.__file__).parent / "jars"
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([javac, "--release", "17", "-nowarn", "-cp", f"{jars}/*", "-d", out,
                        *map(str, SOURCES)], check=True)  # fmt: skip
        return {p.relative_to(out).as_posix(): p.read_bytes()
                for p in sorted(Path(out).rglob("*.class"))}  # fmt: skip


def jar_bytes(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        manifest = "Manifest-Version: 1.0\r\nCreated-By: looplift jvm/build_jar.py\r\n\r\n"
        for name, data in [("META-INF/MANIFEST.MF", manifest.encode())] + sorted(entries.items()):
            info = zipfile.ZipInfo(name, _TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare with the committed jar only")
    args = p.parse_args(argv)
    data = jar_bytes(classes())
    if args.check:
        same = JAR.exists() and JAR.read_bytes() == data
        print(f"{JAR}: {'up to date' if same else 'DIFFERS from jvm/ (run python jvm/build_jar.py)'}")
        return 0 if same else 1
    JAR.parent.mkdir(parents=True, exist_ok=True)
    tmp = JAR.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(JAR)  # a new file: a JVM reading the old one keeps reading it
    print(f"wrote {JAR} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
