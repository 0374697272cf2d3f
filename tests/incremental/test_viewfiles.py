"""The Spark store's record files without Spark: the live-row encoding, record packing,
and reads across a view's log and bucket files (``looplift.viewfiles``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.viewfiles import (
    decode_live,
    encode_live,
    flush_log,
    key_hash,
    live_count,
    pack,
    read_records,
    unpack,
    update_live,
    write_records,
)

HASHES = st.integers(-(2**63), 2**63 - 1)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(HASHES, st.integers(1, 5), max_size=30))
def test_live_rows_round_trip(live: dict[int, int]) -> None:
    hashes = sorted(live)
    counts = [live[h] for h in hashes]
    hs, cs = decode_live(encode_live(hashes, counts))
    assert hs.tolist() == hashes and cs.tolist() == counts
    for h in hashes[:3]:
        assert live_count(encode_live(hashes, counts), h) == live[h]


def test_live_rows_are_about_eight_bytes_a_row_and_the_earlier_form_reads() -> None:
    hashes = np.arange(-500, 500, dtype="<i8") * 7919
    counts = np.ones(1000, "<i8")
    counts[[3, 700]] = [2, 9]
    assert len(encode_live(hashes, counts)) == 8 * (3 + 1000 + 2 * 2)
    earlier = np.concatenate([hashes, counts]).tobytes()  # hashes, then every count
    hs, cs = decode_live(earlier)
    assert hs.tolist() == hashes.tolist() and cs.tolist() == counts.tolist()
    got = update_live(earlier, np.array([hashes[3]]), np.array([-2]))
    assert not isinstance(got, int)
    hs, cs = decode_live(got[0])
    assert got[1] == 999 and hashes[3] not in hs and cs.sum() == counts.sum() - 2


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.integers(-6, 6), st.integers(1, 3), max_size=8),
    st.dictionaries(st.integers(-7, 7), st.integers(-3, 3), min_size=1, max_size=6),
)
def test_update_live_is_the_multiset_sum(live: dict[int, int], delta: dict[int, int]) -> None:
    blob = encode_live(sorted(live), [live[h] for h in sorted(live)]) if live else b""
    dh = np.array(sorted(delta), "<i8")
    dn = np.array([delta[h] for h in sorted(delta)], "<i8")
    got = update_live(blob, dh, dn)
    bad = [i for i, h in enumerate(dh.tolist()) if live.get(h, 0) + delta[h] < 0]
    if bad:
        assert got == bad[0]
        return
    want = Counter(live)
    want.update(delta)
    want = +want
    assert not isinstance(got, int)
    hs, cs = decode_live(got[0])
    assert dict(zip(hs.tolist(), cs.tolist(), strict=True)) == dict(want) and got[1] == len(want)


@given(
    st.binary(max_size=20), st.binary(max_size=40), st.none() | st.binary(max_size=40),
    st.binary(max_size=40), st.booleans(),
)  # fmt: skip
def test_records_pack_and_unpack(k: bytes, live: bytes, states: Any, out: bytes, gone: bool) -> None:
    rec = {"h": 5, "k": k, "live": live, "states": states, "out": out, "gone": gone}
    assert unpack(5, pack(rec)) == rec


def _rec(key: int, version: int, gone: bool = False) -> dict:
    kb = key.to_bytes(2, "little")
    return {"h": key_hash(kb), "k": kb, "live": b"x", "states": None,
            "out": bytes([version]), "gone": gone}  # fmt: skip


def test_reads_take_the_newest_record_across_log_and_buckets(tmp_path: Any) -> None:
    """A key's record is the newest in its bucket's files, then the log's (newer); a log
    file holds every bucket's keys and a bucket's read keeps its own keys only."""
    data, buckets = str(tmp_path), 3
    keys = list(range(40))
    by_bucket: dict[int, list[dict]] = {}
    for key in keys:
        r = _rec(key, 1)
        by_bucket.setdefault(r["h"] % buckets, []).append(r)
    files = {b: [write_records(data, b, recs)] for b, recs in by_bucket.items()}
    log = [write_records(data, "log", [_rec(k, 2) for k in keys[:20]]),
           write_records(data, "log", [_rec(k, 3, gone=k % 2 == 0) for k in keys[10:15]])]  # fmt: skip
    want = {k: 3 if 10 <= k < 15 else 2 if k < 20 else 1 for k in keys}
    wanted = {r["k"]: r["h"] for r in (_rec(k, 0) for k in keys)}
    found = read_records(data, log, wanted)
    for b in range(buckets):
        rest = {kb: h for kb, h in wanted.items() if kb not in found and h % buckets == b}
        found.update(read_records(data, files.get(b, []), rest))
    assert {int.from_bytes(kb, "little"): r["out"][0] for kb, r in found.items()} == want
    assert sorted(int.from_bytes(kb, "little") for kb, r in found.items() if r["gone"]) == [10, 12, 14]
    whole: dict[bytes, dict] = {}
    for b in range(buckets):
        part = read_records(data, [*files.get(b, []), *log], None, (b, buckets))
        assert all(r["h"] % buckets == b for r in part.values())
        whole.update(part)
    assert {int.from_bytes(kb, "little"): r["out"][0] for kb, r in whole.items()} == want
    flushed = flush_log(data, buckets, log)  # the log's newest records, one file per bucket
    after: dict[bytes, dict] = {}
    for b in range(buckets):
        chain = [*files.get(b, []), *([flushed[b]] if b in flushed else [])]
        after.update(read_records(data, chain, None))
    assert {kb: (r["out"], r["gone"]) for kb, r in after.items()} == {
        kb: (r["out"], r["gone"]) for kb, r in whole.items()
    }


@settings(max_examples=300, deadline=None)
@given(
    st.sets(st.integers(-(2**63), 2**63 - 1), max_size=12),
    st.dictionaries(st.integers(-(2**63), 2**63 - 1), st.sampled_from([-1, 1]), min_size=1,
                    max_size=6),
    st.integers(0, 11),
)  # fmt: skip
def test_update_live_of_unique_rows(live: set[int], delta: dict[int, int], pick: int) -> None:
    """The usual case (every row once, each delta row one insert or one delete) on the
    blob's bytes: the same as the multiset sum, or the index of the first bad delete."""
    live_l = sorted(live)
    if live_l:  # (a delete of a live row, and an insert of one: a repeat)
        delta[live_l[pick % len(live_l)]] = -1 if pick % 2 else 1
    blob = encode_live(live_l, [1] * len(live_l)) if live else b""
    dh = sorted(delta)
    got = update_live(blob, dh, [delta[h] for h in dh])
    want = Counter(dict.fromkeys(live, 1))
    want.update(delta)
    bad = [i for i, h in enumerate(dh) if want[h] < 0]
    if bad:
        assert got == bad[0]
        return
    want = +want
    assert not isinstance(got, int)
    hs, cs = decode_live(got[0])
    assert dict(zip(hs.tolist(), cs.tolist(), strict=True)) == dict(want) and got[1] == len(want)
    assert got[0] == encode_live(sorted(want), [want[h] for h in sorted(want)])
