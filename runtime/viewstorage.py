"""Where the Spark store's files live: a local directory or an object-store prefix.

A :class:`Location` names a directory by URI: a plain path (``/data/views/clicks``) or
``s3://bucket/prefix`` (S3 and S3-compatible servers). Both give the same operations, so
the view (:mod:`looplift.sparkview`) and its tasks (:mod:`looplift.viewfiles`) never ask
which one they have:

- :meth:`Location.write`: a file whole or absent (a local file is written aside and
  renamed into place; an object store's PUT is atomic by itself);
- :meth:`Location.create`: a file created at most once, by one writer: the commit of a
  version. Locally the new file is hard-linked into place (``link`` fails when the name
  exists); on S3 the PUT carries ``If-None-Match: *`` (a conditional write, which S3 has
  honoured since 2024), so two writers, or a retry after a crash, can never both publish
  version N;
- reads, listings, sizes, removals, and :meth:`Location.open` for Parquet.

An S3 location connects with the standard AWS settings (``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_REGION`` /
``AWS_DEFAULT_REGION``, and ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL`` for an
S3-compatible server), read where the location is first used, or with explicit
``options`` (the same names in lower case: ``endpoint_url``, ``region``,
``access_key_id``, ``secret_access_key``, ``session_token``), which travel with the
location to Spark's tasks and the view's helper processes. It needs ``boto3`` (the
conditional write) besides pyarrow: ``pip install 'looplift[s3]'``.

>>> Location.of("/tmp/views/clicks").child("data").uri
'/tmp/views/clicks/data'
"""

from __future__ import annotations

import os
import posixpath
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Location", "StorageError", "is_remote"]

#: the option names an S3 location takes (each also read from its environment variable)
S3_OPTIONS = {
    "endpoint_url": ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"),
    "region": ("AWS_REGION", "AWS_DEFAULT_REGION"),
    "access_key_id": ("AWS_ACCESS_KEY_ID",),
    "secret_access_key": ("AWS_SECRET_ACCESS_KEY",),
    "session_token": ("AWS_SESSION_TOKEN",),
}
SCHEMES = ("s3", "s3a")


class StorageError(OSError):
    """A view's storage refused an operation (the message names the bucket and key)."""


def is_remote(uri: Any) -> bool:
    """Whether ``uri`` names an object store (``s3://...``) rather than a local path."""
    return (
        isinstance(uri, Location)
        and uri.remote
        or (isinstance(uri, str) and "://" in uri and not uri.startswith("file://"))
    )


@dataclass(frozen=True)
class Location:
    """A directory of a view's files, local or on an object store (module docs).

    Pickles as its URI and options; each process connects on first use."""

    uri: str
    options: tuple[tuple[str, str], ...] = ()
    _conn: list = field(default_factory=list, compare=False, repr=False)

    @staticmethod
    def of(where: Any, options: dict | None = None) -> Location:
        """The location of a path, URI or :class:`Location` (``options``: an S3
        location's connection settings, module docs)."""
        if isinstance(where, Location):
            return where
        uri = os.fspath(where)
        if uri.startswith("file://"):
            uri = uri[len("file://") :]
        if "://" in uri:
            scheme = uri.split("://", 1)[0].lower()
            if scheme not in SCHEMES:
                raise StorageError(
                    f"looplift: views cannot live on {scheme}:// yet ({uri}); use an s3:// "
                    "location (S3 or an S3-compatible server) or a path shared by the driver "
                    "and every executor"
                )
            bad = sorted(set(options or {}) - set(S3_OPTIONS))
            if bad:
                raise StorageError(f"looplift: unknown storage options {bad} for {uri}; "
                                   f"known: {sorted(S3_OPTIONS)}")  # fmt: skip
            uri = uri.rstrip("/")
            if not uri.split("://", 1)[1]:
                raise StorageError(f"looplift: {where!r} names no bucket (s3://bucket/prefix)")
        return Location(uri, tuple(sorted((options or {}).items())))

    def __reduce__(self) -> Any:
        return (Location, (self.uri, self.options))

    def __fspath__(self) -> str:
        if self.remote:
            raise StorageError(f"looplift: {self.uri} is on an object store, not a local path")
        return self.uri

    def __str__(self) -> str:
        return self.uri

    @property
    def remote(self) -> bool:
        return "://" in self.uri

    def child(self, *names: str) -> Location:
        """The location of a directory under this one."""
        join = posixpath.join if self.remote else os.path.join
        return Location(join(self.uri, *names), self.options)

    def uri_of(self, name: str) -> str:
        """A file's URI (a local path for a local location)."""
        return posixpath.join(self.uri, name) if self.remote else os.path.join(self.uri, name)

    # -- the S3 connection ---------------------------------------------------------------------
    @property
    def bucket(self) -> str:
        return self.uri.split("://", 1)[1].split("/", 1)[0]

    def key(self, name: str = "") -> str:
        """The object key of ``name`` in this location (its prefix for ``""``)."""
        rest = self.uri.split("://", 1)[1]
        prefix = rest.split("/", 1)[1] if "/" in rest else ""
        return posixpath.join(prefix, name) if prefix else name

    def _settings(self) -> dict[str, str]:
        given = dict(self.options)
        out = {}
        for name, envs in S3_OPTIONS.items():
            value = given.get(name) or next((os.environ[e] for e in envs if os.environ.get(e)), "")
            if value:
                out[name] = value
        return out

    def _connect(self) -> tuple[Any, Any]:
        """(pyarrow S3 filesystem, boto3 client), made once per process and location."""
        if self._conn:
            return self._conn[0]
        got = _CONNECTIONS.get((self.bucket, self.options))
        if got is None:
            got = _CONNECTIONS[(self.bucket, self.options)] = _connect_s3(
                self.bucket, self._settings()
            )
        self._conn.append(got)
        return got

    @property
    def filesystem(self) -> Any:
        """The pyarrow filesystem of a remote location (None for a local one)."""
        return self._connect()[0] if self.remote else None

    # -- files ---------------------------------------------------------------------------------
    def makedirs(self) -> None:
        """Create the directory (an object store has none: nothing to do)."""
        if not self.remote:
            os.makedirs(self.uri, exist_ok=True)

    def open(self, name: str) -> Any:
        """A file to read (a path for a local location, a pyarrow file for a remote one)."""
        if not self.remote:
            return os.path.join(self.uri, name)
        try:
            return self.filesystem.open_input_file(f"{self.bucket}/{self.key(name)}")
        except FileNotFoundError:
            raise
        except OSError as e:
            raise self._error("read", name, e) from e

    def read(self, name: str) -> bytes:
        """A file's bytes; FileNotFoundError when it is absent."""
        if not self.remote:
            with open(os.path.join(self.uri, name), "rb") as fh:
                return fh.read()
        client = self._connect()[1]
        try:
            return client.get_object(Bucket=self.bucket, Key=self.key(name))["Body"].read()
        except client.exceptions.NoSuchKey:
            raise FileNotFoundError(self.uri_of(name)) from None
        except Exception as e:  # noqa: BLE001 - botocore's errors: named with the key
            raise self._error("read", name, e) from e

    def write(self, name: str, data: bytes) -> None:
        """Write a file whole or not at all (replacing one of that name)."""
        if not self.remote:
            path = os.path.join(self.uri, name)
            tmp = os.path.join(self.uri, f".{name}.{uuid.uuid4().hex[:8]}.tmp")
            _write_synced(tmp, data)
            os.replace(tmp, path)
            return
        client = self._connect()[1]
        try:
            client.put_object(Bucket=self.bucket, Key=self.key(name), Body=data)
        except Exception as e:  # noqa: BLE001
            raise self._error("write", name, e) from e

    def create(self, name: str, data: bytes) -> bool:
        """Create a file that does not exist yet, whole: True when this call created it,
        False when it exists (another writer, or an earlier try, created it first)."""
        if not self.remote:
            path = os.path.join(self.uri, name)
            tmp = os.path.join(self.uri, f".{name}.{uuid.uuid4().hex[:8]}.tmp")
            _write_synced(tmp, data)
            try:
                os.link(tmp, path)  # (fails when the name exists: one creator wins)
            except FileExistsError:
                return False
            except OSError:  # (a file system without hard links: one writer assumed)
                if os.path.exists(path):
                    return False
                os.replace(tmp, path)
                return True
            finally:
                if os.path.exists(tmp):
                    os.remove(tmp)
            return True
        client = self._connect()[1]
        try:
            client.put_object(Bucket=self.bucket, Key=self.key(name), Body=data, IfNoneMatch="*")
        except Exception as e:  # noqa: BLE001
            code = getattr(e, "response", {}).get("Error", {}).get("Code", "")
            # PreconditionFailed: it exists; ConditionalRequestConflict: another writer's
            # conditional write of that key is under way (one of the two wins)
            if code in ("PreconditionFailed", "ConditionalRequestConflict", "412", "409"):
                return False
            raise self._error("write", name, e) from e
        return True

    def exists(self, name: str) -> bool:
        if not self.remote:
            return os.path.exists(os.path.join(self.uri, name))
        import pyarrow.fs as pafs

        info = self.filesystem.get_file_info(f"{self.bucket}/{self.key(name)}")
        return info.type != pafs.FileType.NotFound

    def listdir(self) -> dict[str, tuple[int, float]]:
        """``{name: (size, modified, seconds since the epoch)}`` of the files directly in
        this directory (an absent directory has none)."""
        if not self.remote:
            out = {}
            try:
                entries = list(os.scandir(self.uri))
            except FileNotFoundError:
                return {}
            for e in entries:
                try:
                    st = e.stat()
                except FileNotFoundError:
                    continue
                if e.is_file():
                    out[e.name] = (st.st_size, st.st_mtime)
            return out
        client = self._connect()[1]
        prefix = self.key("").rstrip("/")
        prefix = prefix + "/" if prefix else ""
        out = {}
        try:
            pages = client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix, Delimiter="/")  # fmt: skip
            for page in pages:
                for obj in page.get("Contents", []):
                    name = obj["Key"][len(prefix) :]
                    out[name] = (obj["Size"], obj["LastModified"].timestamp())
        except Exception as e:  # noqa: BLE001
            raise self._error("list", "", e) from e
        return out

    def size(self, name: str) -> int:
        if not self.remote:
            return os.path.getsize(os.path.join(self.uri, name))
        return self.filesystem.get_file_info(f"{self.bucket}/{self.key(name)}").size

    def remove(self, name: str) -> None:
        """Delete a file (an absent one is no error)."""
        if not self.remote:
            try:
                os.remove(os.path.join(self.uri, name))
            except FileNotFoundError:
                pass
            return
        client = self._connect()[1]
        try:
            client.delete_object(Bucket=self.bucket, Key=self.key(name))
        except Exception as e:  # noqa: BLE001
            raise self._error("delete", name, e) from e

    def write_parquet(self, name: str, table: Any, **kwargs: Any) -> None:
        """Write a Parquet file whole or not at all."""
        import pyarrow.parquet as pq

        if not self.remote:
            tmp = os.path.join(self.uri, f".{name}.tmp")
            pq.write_table(table, tmp, **kwargs)
            os.replace(tmp, os.path.join(self.uri, name))
            return
        try:  # (one PUT, or a multipart upload completed at the end: whole or absent)
            pq.write_table(table, f"{self.bucket}/{self.key(name)}", filesystem=self.filesystem,
                           **kwargs)  # fmt: skip
        except OSError as e:
            raise self._error("write", name, e) from e

    def _error(self, what: str, name: str, e: BaseException) -> StorageError:
        where = f"s3://{self.bucket}/{self.key(name)}"
        code = getattr(e, "response", {}).get("Error", {}).get("Code", "")
        hint = {
            "NoSuchBucket": f"create the bucket {self.bucket!r} or point the view elsewhere",
            "AccessDenied": "check the credentials (AWS_ACCESS_KEY_ID, ...) and the bucket's "
            "permissions",
            "InvalidAccessKeyId": "check AWS_ACCESS_KEY_ID / the access_key_id option",
            "SignatureDoesNotMatch": "check AWS_SECRET_ACCESS_KEY / the secret_access_key option",
        }.get(code, "check the endpoint (AWS_ENDPOINT_URL_S3), credentials and bucket")
        return StorageError(f"looplift: could not {what} {where}: {e}; {hint}")


_CONNECTIONS: dict[tuple, tuple[Any, Any]] = {}


def _connect_s3(bucket: str, settings: dict[str, str]) -> tuple[Any, Any]:
    try:
        import boto3
        from botocore.config import Config
    except ImportError:
        raise StorageError(
            "looplift: a view on S3 needs boto3 (its commits are conditional writes): "
            "pip install 'looplift[s3]'"
        ) from None
    import pyarrow.fs as pafs

    endpoint = settings.get("endpoint_url")
    region = settings.get("region")
    if not region and not endpoint:  # (AWS: the bucket's own region)
        try:
            region = pafs.resolve_s3_region(bucket)
        except OSError:
            region = None
    region = region or "us-east-1"
    kw: dict[str, Any] = {"region": region}
    if endpoint:
        scheme, _, host = endpoint.rpartition("://")
        kw["endpoint_override"] = host.rstrip("/")
        kw["scheme"] = scheme or "https"
    if settings.get("access_key_id"):
        kw["access_key"] = settings["access_key_id"]
        kw["secret_key"] = settings.get("secret_access_key", "")
        if settings.get("session_token"):
            kw["session_token"] = settings["session_token"]
    fs = pafs.S3FileSystem(**kw)
    client = boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint or None,
        region_name=region,
        aws_access_key_id=settings.get("access_key_id"),
        aws_secret_access_key=settings.get("secret_access_key"),
        aws_session_token=settings.get("session_token"),
        config=Config(retries={"max_attempts": 5, "mode": "standard"}),
    )
    return fs, client


def _write_synced(path: str, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def age(modified: float) -> float:
    """Seconds since ``modified`` (a :meth:`Location.listdir` time)."""
    return time.time() - modified
