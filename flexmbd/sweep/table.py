"""The study table: one row per case, written as cases finish.

Two formats, chosen by the file's suffix:

* ``.h5``/``.hdf5``: dataset ``rows`` holds one JSON row per finished case, appended and
  flushed at once (an interrupted study keeps every row written); group ``table`` holds
  the same as one dataset per column, rewritten at most every couple of seconds and when
  the study ends; group ``series/case<N>`` each case's histories (``--series``).  The
  attributes hold the model file's text and the swept key paths.
* ``.parquet``: the table as one Parquet file, replaced atomically (write, then rename)
  as rows come in; the rows not yet in it are in ``<file>.partial.jsonl``, one line per
  case, flushed at once, so an interrupted study loses nothing; the journal is removed
  when the study ends.  Histories (``--series``) go to ``<stem>.series.h5``.

A row is identified by its ``key`` (:func:`flexmbd.sweep.spec.case_key`): a row whose
key is already in the table is never written again, so a case that Dask ran twice (its
worker died after the result was sent) appears once, and ``--resume`` runs only the
cases whose key is missing.
"""
from __future__ import annotations

import json
import os
import pathlib
import time

import numpy as np

from .case import STAT_COLUMNS

FORMAT = "flexmbd-study"
VERSION = 1
#: Least time [s] between two rewrites of the column view / the Parquet file.
REWRITE_EVERY = 2.0


class StudyFileError(ValueError):
    """A study file that cannot be created, read or resumed."""


def table_format(path) -> str:
    suffix = pathlib.Path(path).suffix.lower()
    if suffix in (".h5", ".hdf5"):
        return "h5"
    if suffix == ".parquet":
        return "parquet"
    raise StudyFileError(f"-o {path}: the study table is .h5 (HDF5) or .parquet (Parquet), by its suffix")


def _ordered_columns(rows, params) -> list:
    cols = ["case", "key", *params, *STAT_COLUMNS]
    seen = set(cols)
    for r in rows:
        for k in r:
            if k not in seen:
                seen.add(k)
                cols.append(k)
    return cols


def _column_array(values):
    """A column as an array: int64, float64 (None → NaN), bool, or text."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present) and len(present) == len(values):
        return np.array(values, dtype=bool)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present) and len(present) == len(values):
        return np.array(values, dtype=np.int64)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return np.array([float("nan") if v is None else float(v) for v in values], dtype=float)
    return np.array(["" if v is None else str(v) for v in values], dtype=object)


class Study:
    """A study table read back: ``rows`` (dicts, by case number), ``columns``,
    :meth:`column` (an array), ``params`` (the swept key paths), ``model_text``."""

    def __init__(self, rows, params, meta):
        self.rows = sorted(rows, key=lambda r: r.get("case", 0))
        self.params = list(params)
        self.meta = dict(meta)
        self.model_text = self.meta.get("model_text", "")
        self.columns = _ordered_columns(self.rows, self.params)

    def __len__(self):
        return len(self.rows)

    def column(self, name) -> np.ndarray:
        if name not in self.columns:
            raise KeyError(f"no column {name!r} in the study (columns: {', '.join(self.columns)})")
        return _column_array([r.get(name) for r in self.rows])

    def __getitem__(self, name):
        return self.column(name)

    def select(self, **where) -> list:
        """The rows whose columns equal the given values (key paths with dots: pass a dict
        through ``select(**{"forces.sda.k": 1e3})``)."""
        return [r for r in self.rows if all(r.get(k) == v for k, v in where.items())]

    def to_pandas(self):
        """The table as a pandas DataFrame (pandas must be installed)."""
        import pandas as pd

        return pd.DataFrame({c: self.column(c) for c in self.columns})

    def series(self, case: int) -> dict:
        """The histories of one case (studies run with ``series``)."""
        path = self.meta.get("path")
        spath = path if table_format(path) == "h5" else _series_path(path)
        import h5py

        try:
            with h5py.File(spath, "r") as f:
                g = f["series"][f"case{int(case)}"]
                return {k: g[k][()] for k in g}
        except (OSError, KeyError):
            raise KeyError(f"no histories of case {case} in {spath} (run the study with --series)") from None


def _series_path(path) -> str:
    p = pathlib.Path(path)
    return str(p.with_name(p.stem + ".series.h5"))


def _journal_path(path) -> str:
    return str(path) + ".partial.jsonl"


def _json_row(row) -> str:
    return json.dumps(row, allow_nan=True, default=lambda o: o.item() if hasattr(o, "item") else str(o))


# ------------------------------------------------------------------ reading


def _read_h5(path):
    import h5py

    try:
        with h5py.File(path, "r") as f:
            if f.attrs.get("format") != FORMAT:
                raise StudyFileError(f"{path}: not a flexmbd study table")
            rows = [json.loads(s) for s in f["rows"].asstr()[()]] if "rows" in f else []
            meta = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
    except OSError as exc:
        if "lock" in str(exc):
            raise StudyFileError(f"{path} is being written by a running study (HDF5 locks it until the study "
                                 "ends; a .parquet table can be read while it runs)") from None
        raise StudyFileError(f"{path}: cannot be read as HDF5 ({exc})") from None
    return rows, meta


def _read_parquet(path):
    rows, meta = [], {}
    if os.path.exists(path):
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except Exception as exc:  # noqa: BLE001 - a damaged file, named
            raise StudyFileError(f"{path}: cannot be read as Parquet ({exc})") from None
        md = table.schema.metadata or {}
        if md.get(b"format", b"").decode() != FORMAT:
            raise StudyFileError(f"{path}: not a flexmbd study table")
        meta = {k.decode(): v.decode() for k, v in md.items()}
        cols = table.to_pydict()
        names = list(cols)
        for i in range(table.num_rows):
            r = {}
            for c in names:
                v = cols[c][i]
                if v is not None:
                    r[c] = v
            rows.append(r)
    journal = _journal_path(path)
    if os.path.exists(journal):
        with open(journal, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line.startswith("{") and line.endswith("}"):  # a line cut by the interruption is skipped
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError:
                        pass
                elif line.startswith("#meta "):
                    meta = {**json.loads(line[6:]), **meta}
    return rows, meta


def read_study(path) -> Study:
    """Read a study table (.h5 or .parquet, finished or interrupted)."""
    fmt = table_format(path)
    if not os.path.exists(path) and not (fmt == "parquet" and os.path.exists(_journal_path(path))):
        raise StudyFileError(f"{path}: no such file")
    rows, meta = _read_h5(path) if fmt == "h5" else _read_parquet(path)
    seen, unique = set(), []
    for r in rows:
        if r.get("key") not in seen:
            seen.add(r.get("key"))
            unique.append(r)
    params = json.loads(meta.get("params", "[]"))
    meta["path"] = str(path)
    return Study(unique, params, meta)


# ------------------------------------------------------------------ writing


class StudyWriter:
    """Writes the rows of one study as they come (see the module docstring)."""

    def __init__(self, path, params: list, meta: dict, resume=False, force=False, series=False):
        self.path = str(path)
        self.fmt = table_format(path)
        self.params = list(params)
        self.meta = {"format": FORMAT, "version": str(VERSION), "params": json.dumps(self.params),
                     **{k: str(v) for k, v in meta.items()}}
        self.series = series
        self.rows = []
        self.keys = set()
        self._last_rewrite = 0.0
        self._dirty = False
        exists = os.path.exists(self.path) or (self.fmt == "parquet" and os.path.exists(_journal_path(self.path)))
        parent = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(parent):
            raise StudyFileError(f"-o {self.path}: the directory {parent} does not exist")
        if exists and resume:
            old = read_study(self.path)
            if old.params != self.params:
                raise StudyFileError(f"--resume {self.path}: that study sweeps {', '.join(old.params)}, not "
                                     f"{', '.join(self.params)}")
            if old.model_text and old.model_text != self.meta.get("model_text"):
                raise StudyFileError(f"--resume {self.path}: the model file has changed since that study began; "
                                     "give another -o file")
            self.rows = list(old.rows)
            self.keys = {r["key"] for r in self.rows}
        elif exists and not force:
            raise StudyFileError(f"{self.path} exists: --resume runs its missing cases, --force replaces it")
        elif exists:
            for p in (self.path, _journal_path(self.path), _series_path(self.path)):
                if os.path.exists(p):
                    os.remove(p)
        self._open(resumed=bool(self.rows))

    # -- formats
    def _open(self, resumed):
        if self.fmt == "h5":
            import h5py

            self.file = h5py.File(self.path, "a")
            for k, v in self.meta.items():
                self.file.attrs[k] = v
            if "rows" not in self.file:
                self.file.create_dataset("rows", shape=(0,), maxshape=(None,), dtype=h5py.string_dtype(), chunks=(64,))
            self.file.flush()
        else:
            import pyarrow  # noqa: F401 - fail now, not after the first case

            self.journal = open(_journal_path(self.path), "a", encoding="utf-8")
            self.journal.write("#meta " + json.dumps(self.meta) + "\n")
            self.journal.flush()
            if resumed:
                self._rewrite()
        self.series_file = None
        if self.series:
            import h5py

            self.series_file = self.file if self.fmt == "h5" else h5py.File(_series_path(self.path), "a")

    def add(self, row: dict, series: dict | None = None) -> bool:
        """Write one finished case; False (and nothing written) if its key is already there."""
        if row["key"] in self.keys:
            return False
        self.keys.add(row["key"])
        self.rows.append(row)
        line = _json_row(row)
        if self.fmt == "h5":
            ds = self.file["rows"]
            ds.resize((ds.shape[0] + 1,))
            ds[-1] = line
        else:
            self.journal.write(line + "\n")
            self.journal.flush()
            os.fsync(self.journal.fileno())
        if series and self.series_file is not None:
            g = self.series_file.require_group("series").require_group(f"case{row['case']}")
            for k, v in series.items():
                if k in g:
                    del g[k]
                g.create_dataset(k, data=np.asarray(v))
        if self.fmt == "h5":
            self.file.flush()
        if self.series_file is not None and self.series_file is not getattr(self, "file", None):
            self.series_file.flush()
        self._dirty = True
        if time.monotonic() - self._last_rewrite >= REWRITE_EVERY:
            self._rewrite()
        return True

    def _rewrite(self):
        self._last_rewrite = time.monotonic()
        self._dirty = False
        rows = sorted(self.rows, key=lambda r: r.get("case", 0))
        cols = _ordered_columns(rows, self.params)
        arrays = {c: _column_array([r.get(c) for r in rows]) for c in cols}
        if self.fmt == "h5":
            import h5py

            if "table" in self.file:
                del self.file["table"]
            g = self.file.create_group("table")
            g.attrs["columns"] = json.dumps(cols)
            for c, a in arrays.items():
                g.create_dataset(c, data=a.astype(h5py.string_dtype()) if a.dtype == object else a)
            self.file.flush()
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        fields = {}
        for c, a in arrays.items():
            fields[c] = pa.array(a.tolist(), type=pa.string()) if a.dtype == object else pa.array(a)
        numeric = [c for c, a in arrays.items() if a.dtype.kind == "f"]
        meta = {**self.meta, "numeric": json.dumps(numeric)}
        table = pa.table(fields).replace_schema_metadata({k: str(v) for k, v in meta.items()})
        tmp = self.path + ".tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, self.path)

    def close(self, complete: bool = True):
        """Rewrite the table; a Parquet study that is ``complete`` drops its journal."""
        if self.fmt == "h5":
            if self.file.id.valid:
                self._rewrite()
                self.file.close()
            return
        self._rewrite()
        self.journal.close()
        if self.series_file is not None:
            self.series_file.close()
        if complete:
            os.remove(_journal_path(self.path))


__all__ = ["Study", "StudyWriter", "StudyFileError", "read_study", "table_format"]
