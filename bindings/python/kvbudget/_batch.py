"""Sweeps: many plans per C call (``kvb_batch_compute``).

:func:`plan_batch` is the column API: small tables (models, quants, GPUs,
servings) and one array per swept knob; :func:`sweep` builds the Cartesian
product of a few lists and calls it.  Columns may be plain lists,
``array.array``, typed memoryviews or, when numpy is installed, numpy
arrays; results come back as typed memoryviews over C arrays (index them,
iterate them, ``.tolist()``), or numpy arrays when numpy was used (or asked
for).  Each row equals what :func:`kvbudget.plan` gives for the same inputs.

A million rows is one C call (or one per thread with ``threads=N``: the
call releases the GIL), not a million.
"""

from __future__ import annotations

import array
import concurrent.futures
import ctypes
import itertools
import operator
from ctypes import byref, c_uint64, sizeof
from dataclasses import dataclass
from typing import (Any, Dict, Iterator, List, Optional, Sequence, Tuple,
                    Union)

from . import _capi
from ._api import (GpuLike, ModelLike, QuantLike, ServingLike, _gpu_c,
                   _model_c, _quant_c, _serving_c, plan as _plan)
from ._enums import Status, Verdict
from ._errors import KvbError, error_class
from ._types import Plan

try:  # optional: numpy columns in and out
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the machine
    _np = None

__all__ = ["plan_batch", "sweep", "BatchResult", "BatchRow", "HAVE_NUMPY"]

#: True when numpy could be imported.
HAVE_NUMPY = _np is not None

# C type of each column: array.array typecode, numpy dtype name, bytes.
_CTYPES = {
    "uint32_t": ("I", "uint32", 4),
    "int32_t": ("i", "int32", 4),
    "uint64_t": ("Q", "uint64", 8),
    "double": ("d", "float64", 8),
}
for _t, (_code, _, _size) in _CTYPES.items():
    if array.array(_code).itemsize != _size:  # pragma: no cover
        raise ImportError(f"array typecode {_code!r} is not {_size} bytes")

#: Per-row inputs: (kvb_batch field, C type).
INPUTS: Tuple[Tuple[str, str], ...] = (
    ("model_index", "uint32_t"), ("quant_index", "uint32_t"),
    ("gpu_index", "uint32_t"), ("serving_index", "uint32_t"),
    ("tensor_parallel_size", "uint32_t"),
    ("pipeline_parallel_size", "uint32_t"), ("max_model_len", "uint64_t"),
    ("gpu_memory_utilization", "double"), ("concurrency", "uint32_t"),
    ("max_num_seqs", "uint32_t"), ("gpu_count", "uint32_t"),
)
#: Per-row outputs: (kvb_batch field, C type).
OUTPUTS: Tuple[Tuple[str, str], ...] = (
    ("status", "int32_t"), ("fits", "uint32_t"), ("verdict", "int32_t"),
    ("weights_bytes_per_gpu", "uint64_t"),
    ("kv_budget_bytes_per_gpu", "uint64_t"), ("max_kv_tokens", "uint64_t"),
    ("max_concurrency", "double"), ("max_model_len_fit", "uint64_t"),
    ("num_blocks", "uint64_t"),
)
_INPUT_TYPES = dict(INPUTS)

Column = Any  # list, tuple, array.array, numpy array, or a scalar


def _is_numpy(x: Any) -> bool:
    return _np is not None and isinstance(x, _np.ndarray)


def _is_scalar(x: Any) -> bool:
    if _np is not None and isinstance(x, _np.generic):
        return True
    return isinstance(x, (int, float))


def _range_error(name: str, detail: str) -> KvbError:
    st = Status.ERANGE
    return error_class(int(st))(int(st), "KVB_ERANGE", f"batch.{name}",
                                f"batch.{name} {detail}")


def _c_array(ctype: str, n: int) -> memoryview:
    """A zeroed C array of n elements, as a typed memoryview (calloc speed;
    array.array is ten times slower to allocate at a million rows)."""
    code, _, size = _CTYPES[ctype]
    raw = (ctypes.c_char * (n * size))()
    return memoryview(raw).cast("B").cast(code)


def _replicate(addr: int, chunk: int, times: int) -> None:
    """Copy the `chunk` bytes at addr until they fill `times` chunks:
    doubling memmoves, O(log times) Python steps."""
    done = 1
    while done < times:
        n = min(done, times - done)
        ctypes.memmove(addr + done * chunk, addr, n * chunk)
        done += n


def _column(name: str, value: Column, n: int, use_numpy: bool) -> Any:
    """A contiguous C array of ``n`` elements for one input column."""
    ctype = _INPUT_TYPES[name]
    code, np_type, size = _CTYPES[ctype]
    floating = code == "d"
    if _is_scalar(value):
        if use_numpy:
            return _np.full(n, value, dtype=np_type)
        try:
            one = array.array(code, [value])
        except (OverflowError, TypeError) as exc:
            raise _range_error(name, f"({value!r}) does not fit "
                               f"{ctype}: {exc}") from None
        out = _c_array(ctype, n)
        if n:
            ctypes.memmove(_address(out), one.buffer_info()[0], size)
            _replicate(_address(out), size, n)
        return out
    if _is_numpy(value):
        if value.ndim != 1:
            raise ValueError(f"batch.{name} must be one-dimensional")
        if not floating and value.dtype.kind not in "uib":
            raise TypeError(f"batch.{name} must hold integers, not "
                            f"{value.dtype}")
        if value.size and not floating and value.dtype.kind in "iu":
            lo, hi = int(value.min()), int(value.max())
            info = _np.iinfo(np_type)
            if lo < info.min or hi > info.max:
                raise _range_error(name, f"({lo}..{hi}) does not fit "
                                   f"{ctype}")
        out = _np.ascontiguousarray(value, dtype=np_type)
    elif isinstance(value, array.array) and value.typecode == code:
        out = value
    elif isinstance(value, memoryview) and value.format == code and \
            value.c_contiguous and not value.readonly:
        out = value
    else:
        try:
            out = array.array(code, value)
        except OverflowError as exc:
            raise _range_error(name, f"holds a value that does not fit "
                               f"{ctype}: {exc}") from None
        except TypeError as exc:
            raise TypeError(f"batch.{name}: {exc}") from None
    if len(out) != n:
        raise ValueError(f"batch.{name} has {len(out)} rows; the batch has "
                         f"{n}")
    return out


def _address(column: Any) -> int:
    if len(column) == 0:
        return 0
    if _is_numpy(column):
        return int(column.ctypes.data)
    if isinstance(column, array.array):
        return column.buffer_info()[0]
    return ctypes.addressof(ctypes.c_char.from_buffer(column))


def _new_output(ctype: str, n: int, use_numpy: bool) -> Any:
    if use_numpy:
        return _np.zeros(n, dtype=_CTYPES[ctype][1])
    return _c_array(ctype, n)


def _table(values: Any, convert: Any, struct: Any) -> Tuple[Any, List[Any]]:
    """A C array of table entries, and the entries as given."""
    if values is None:
        return None, []
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        values = [values]
    values = list(values)
    if not values:
        raise ValueError("a table needs at least one entry")
    arr = (struct * len(values))()
    for i, v in enumerate(values):
        c = convert(v)
        ctypes.memmove(byref(arr[i]), byref(c), sizeof(struct))
    return arr, values


@dataclass(frozen=True)
class BatchRow:
    """One row of a batch: the inputs it was given (0: the table's value)
    and its outputs.  ``model``, ``quant``, ``gpu`` and ``serving`` are the
    table entries as passed in."""

    index: int
    model: Any
    quant: Any
    gpu: Any
    serving: Any
    tensor_parallel_size: int
    pipeline_parallel_size: int
    max_model_len: int
    gpu_memory_utilization: float
    concurrency: int
    max_num_seqs: int
    gpu_count: int
    status: int
    fits: int
    verdict: int
    weights_bytes_per_gpu: int
    kv_budget_bytes_per_gpu: int
    max_kv_tokens: int
    max_concurrency: float
    max_model_len_fit: int
    num_blocks: int


class BatchResult:
    """The columns of a batch: ``status``, ``fits``, ``verdict`` (-1 on a
    failed row), ``weights_bytes_per_gpu``, ``kv_budget_bytes_per_gpu``,
    ``max_kv_tokens``, ``max_concurrency``, ``max_model_len_fit``,
    ``num_blocks``: one element per row, typed memoryviews over C arrays
    or numpy arrays.
    ``inputs`` holds the input columns, ``failed`` the number of rows whose
    status is not KVB_OK, ``plans`` whole :class:`Plan` rows when asked for
    (message "").  Index it or iterate it for :class:`BatchRow` rows.
    """

    status: Any
    fits: Any
    verdict: Any
    weights_bytes_per_gpu: Any
    kv_budget_bytes_per_gpu: Any
    max_kv_tokens: Any
    max_concurrency: Any
    max_model_len_fit: Any
    num_blocks: Any

    def __init__(self, tables: Dict[str, List[Any]],
                 inputs: Dict[str, Any], outputs: Dict[str, Any],
                 failed: int, count: int,
                 plans: Optional[List[Plan]]) -> None:
        self.tables = tables
        self.inputs = inputs
        self.failed = failed
        self.count = count
        self.plans = plans
        for name, column in outputs.items():
            setattr(self, name, column)

    def __len__(self) -> int:
        return self.count

    def _rerun(self) -> None:
        """Plan the same rows again into the same (warm) buffers: what a
        benchmark of the C call alone needs."""
        counts = [c_uint64() for _ in self._jobs]
        for b, c in zip(self._jobs, counts):
            _run(b, c)

    def _input(self, name: str, i: int) -> Any:
        column = self.inputs.get(name)
        return 0 if column is None else column[i]

    def __getitem__(self, i: int) -> BatchRow:
        i = operator.index(i)
        if i < 0:
            i += self.count
        if not 0 <= i < self.count:
            raise IndexError(i)
        t = self.tables

        def pick(table: str, index: str) -> Any:
            entries = t[table]
            return entries[int(self._input(index, i))] if entries else None

        verdict = int(self.verdict[i])
        return BatchRow(
            i, pick("models", "model_index"), pick("quants", "quant_index"),
            pick("gpus", "gpu_index"), pick("servings", "serving_index"),
            int(self._input("tensor_parallel_size", i)),
            int(self._input("pipeline_parallel_size", i)),
            int(self._input("max_model_len", i)),
            float(self._input("gpu_memory_utilization", i)),
            int(self._input("concurrency", i)),
            int(self._input("max_num_seqs", i)),
            int(self._input("gpu_count", i)),
            int(self.status[i]), int(self.fits[i]),
            Verdict(verdict) if verdict in Verdict._value2member_map_
            else verdict,
            int(self.weights_bytes_per_gpu[i]),
            int(self.kv_budget_bytes_per_gpu[i]),
            int(self.max_kv_tokens[i]), float(self.max_concurrency[i]),
            int(self.max_model_len_fit[i]), int(self.num_blocks[i]))

    def __iter__(self) -> Iterator[BatchRow]:
        return (self[i] for i in range(self.count))

    def plan(self, i: int) -> Plan:
        """Row ``i`` through :func:`kvbudget.plan` (with its message), or
        its exception: the detail of a failed row."""
        row = self[i]
        settings = {k: getattr(row, k) for k in (
            "tensor_parallel_size", "pipeline_parallel_size",
            "max_model_len", "gpu_memory_utilization", "concurrency",
            "max_num_seqs") if getattr(row, k)}
        base = row.serving if row.serving is not None else None
        return _plan(row.model, row.quant, row.gpu,
                     gpu_count=row.gpu_count or None, serving=base,
                     **settings)

    def error(self, i: int) -> Optional[KvbError]:
        """The exception row ``i`` raises through :func:`kvbudget.plan`, or
        None when it planned."""
        if int(self.status[i]) == 0:
            return None
        try:
            self.plan(i)
        except KvbError as exc:
            return exc
        return None  # pragma: no cover - batch and plan disagree

    def raise_for_status(self) -> None:
        """Raise the first failed row's exception (source "batch row N")."""
        for i in range(self.count):
            if int(self.status[i]) != 0:
                exc = self.error(i)
                if exc is not None:
                    exc.source = f"batch row {i}"
                    raise exc


def _run(batch: Any, failed: c_uint64) -> None:
    _capi.library().kvb_batch_compute(byref(batch), byref(failed),
                                      _capi.Error())


def plan_batch(models: Union[ModelLike, Sequence[ModelLike]],
               gpus: Union[GpuLike, Sequence[GpuLike]], *,
               quants: Union[QuantLike, Sequence[QuantLike]] = None,
               servings: Union[ServingLike, Sequence[ServingLike]] = None,
               count: Optional[int] = None, plans: bool = False,
               numpy: Optional[bool] = None, threads: int = 1,
               **columns: Column) -> BatchResult:
    """Plan many rows in one C call (``kvb_batch_compute``).

    :param models: the model table: preset names, :class:`Model` objects
        (one, or a list).
    :param gpus: the GPU table: preset names or :class:`Gpu` objects.
    :param quants: the quantization table (method names, :class:`Quant`);
        None: one unquantized scheme.
    :param servings: the serving table (:class:`Serving` or dicts of
        settings); None: the defaults.
    :param columns: per-row columns, each a list, ``array.array``, numpy
        array or a scalar for every row: ``model_index``, ``quant_index``,
        ``gpu_index``, ``serving_index`` (into the tables; default 0) and
        the overrides ``tensor_parallel_size``, ``pipeline_parallel_size``,
        ``max_model_len``, ``gpu_memory_utilization``, ``concurrency``,
        ``max_num_seqs``, ``gpu_count`` (0 in a row: the table's value).
    :param count: rows; default the length of the columns (1 without any).
    :param plans: also return whole :class:`Plan` rows (slower: one Python
        object per row).
    :param numpy: return numpy columns (default: when an input is numpy).
    :param threads: split the rows over this many threads.
    :returns: :class:`BatchResult`; rows that fail have ``status`` set (the
        status :func:`kvbudget.plan` would raise), see
        :meth:`BatchResult.raise_for_status`.
    """
    for name in columns:
        if name not in _INPUT_TYPES:
            raise TypeError(f"unknown batch column {name!r}; allowed: "
                            + ", ".join(_INPUT_TYPES))
    given = {k: v for k, v in columns.items() if v is not None}
    use_numpy = bool(numpy) if numpy is not None else any(
        _is_numpy(v) for v in given.values())
    if use_numpy and _np is None:
        raise ImportError("numpy=True but numpy is not installed")
    if count is None:
        lengths = {len(v) for v in given.values() if not _is_scalar(v)}
        if len(lengths) > 1:
            raise ValueError(f"batch columns differ in length: "
                             f"{sorted(lengths)}")
        count = lengths.pop() if lengths else 1
    n = operator.index(count)
    if n < 0:
        raise ValueError("count must be >= 0")

    model_arr, model_list = _table(models, _model_c, _capi.Model)
    gpu_arr, gpu_list = _table(gpus, lambda g: _gpu_c(g, None, None),
                               _capi.Gpu)
    quant_arr, quant_list = (None, [None]) if quants is None else _table(
        quants, _quant_c, _capi.Quant)
    serving_arr, serving_list = (None, [None]) if servings is None else \
        _table(servings, _serving_c, _capi.Serving)
    if model_arr is None or gpu_arr is None:
        raise TypeError("models and gpus are required")

    inputs = {k: _column(k, v, n, use_numpy) for k, v in given.items()}
    outputs = {k: _new_output(t, n, use_numpy) for k, t in OUTPUTS}
    plan_arr = (_capi.Plan * n)() if plans else None

    threads = operator.index(threads)
    if threads < 1:
        raise _range_error("threads", f"({threads}) is out of range; "
                           f"allowed: 1 or more")
    threads = min(threads, n or 1)
    step = -(-n // threads) if n else 0
    chunks = [(s, min(n, s + step)) for s in range(0, n, step)] if n else \
        [(0, 0)]
    jobs = []
    for start, stop in chunks:
        b = _capi.Batch()
        b.models, b.num_models = ctypes.addressof(model_arr), len(model_list)
        b.gpus, b.num_gpus = ctypes.addressof(gpu_arr), len(gpu_list)
        if quant_arr is not None:
            b.quants = ctypes.addressof(quant_arr)
            b.num_quants = len(quant_list)
        if serving_arr is not None:
            b.servings = ctypes.addressof(serving_arr)
            b.num_servings = len(serving_list)
        b.count = stop - start
        for name, column in itertools.chain(inputs.items(), outputs.items()):
            size = _CTYPES[_INPUT_TYPES.get(name) or dict(OUTPUTS)[name]][2]
            setattr(b, name, _address(column) + start * size if n else None)
        if plan_arr is not None and n:
            b.plans = ctypes.addressof(plan_arr) + start * sizeof(_capi.Plan)
            b.plan_size = sizeof(_capi.Plan)
        jobs.append(b)

    counts = [c_uint64() for _ in jobs]
    if len(jobs) == 1:
        _run(jobs[0], counts[0])
    else:
        with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
            for f in [pool.submit(_run, b, c) for b, c in zip(jobs, counts)]:
                f.result()
    failed = sum(c.value for c in counts)
    plan_list = None
    if plan_arr is not None:
        plan_list = [Plan.from_c(p) for p in plan_arr]
    result = BatchResult({"models": model_list, "quants": quant_list,
                          "gpus": gpu_list, "servings": serving_list},
                         inputs, outputs, failed, n, plan_list)
    # the C structs and tables, kept alive for _rerun
    result._jobs = jobs
    result._keep = (model_arr, gpu_arr, quant_arr, serving_arr, plan_arr)
    return result


def _grid_column(values: Sequence[Any], inner: int, outer: int,
                 ctype: str, use_numpy: bool) -> Any:
    """values[k] repeated `inner` times each, the whole tiled `outer` times,
    with C-speed copies."""
    code, np_type, size = _CTYPES[ctype]
    if use_numpy:
        return _np.tile(_np.repeat(_np.asarray(values, dtype=np_type),
                                   inner), outer)
    checked = array.array(code, values)  # OverflowError for what would wrap
    out = _c_array(ctype, len(values) * inner * outer)
    base = _address(out)
    if not len(out):
        return out
    for k in range(len(values)):
        addr = base + k * inner * size
        ctypes.memmove(addr, checked.buffer_info()[0] + k * size, size)
        _replicate(addr, size, inner)
    _replicate(base, len(values) * inner * size, outer)
    return out


def sweep(model: Union[ModelLike, Sequence[ModelLike]],
          quant: Union[QuantLike, Sequence[QuantLike]] = None,
          gpu: Union[GpuLike, Sequence[GpuLike], None] = None, *,
          serving: ServingLike = None, plans: bool = False,
          numpy: Optional[bool] = None, threads: int = 1,
          **axes: Union[Any, Sequence[Any]]) -> BatchResult:
    """Plan the Cartesian product of a few lists in one C call.

    ``model``, ``quant`` and ``gpu`` take one value or a list; so does each
    swept knob in ``axes`` (``tensor_parallel_size``,
    ``pipeline_parallel_size``, ``max_model_len``,
    ``gpu_memory_utilization``, ``concurrency``, ``max_num_seqs``,
    ``gpu_count``).  Rows run fastest over the last axis given, in the
    order model, quant, gpu, then the knobs in the order above::

        r = kvbudget.sweep("llama-3.1-8b", ["auto", "awq-4"], ["a10g", "h100"],
                           max_model_len=[4096, 32768],
                           tensor_parallel_size=[1, 2])
        best = max(r, key=lambda row: row.max_concurrency)
    """
    def as_list(x: Any) -> List[Any]:
        if x is None:
            return [None]
        if isinstance(x, (str, bytes)) or not isinstance(x, Sequence) and \
                not _is_numpy(x):
            return [x]
        return list(x)

    models, quants, gpus = as_list(model), as_list(quant), as_list(gpu)
    if gpus == [None]:
        raise TypeError("sweep needs a gpu (or a list of them)")
    knobs = [(name, as_list(axes.pop(name))) for name, _ in INPUTS[4:]
             if name in axes]
    if axes:
        raise TypeError(f"unknown sweep axis {sorted(axes)[0]!r}")
    dims: List[Tuple[str, List[Any]]] = [
        ("model_index", list(range(len(models)))),
        ("quant_index", list(range(len(quants)))),
        ("gpu_index", list(range(len(gpus))))] + knobs
    sizes = [len(v) for _, v in dims]
    total = 1
    for s in sizes:
        total *= s
    use_numpy = bool(numpy) if numpy is not None else False
    if use_numpy and _np is None:
        raise ImportError("numpy=True but numpy is not installed")
    columns: Dict[str, Any] = {}
    outer = 1
    for k, (name, values) in enumerate(dims):
        inner = total // (outer * sizes[k])
        if len(values) > 1 or name in dict(knobs):
            try:
                columns[name] = _grid_column(values, inner, outer,
                                             _INPUT_TYPES[name], use_numpy)
            except (OverflowError, TypeError) as exc:
                raise _range_error(name, f"({values!r}): {exc}") from None
        outer *= sizes[k]
    return plan_batch(models, gpus,
                      quants=None if quants == [None] else quants,
                      servings=None if serving is None else [serving],
                      count=total, plans=plans, numpy=use_numpy,
                      threads=threads, **columns)
