"""Compiled models: compile, run (sync and async), .gem save and load."""
import concurrent.futures
import ctypes
import os
import threading

from ge import _tensors
from ge import _lib
from ge._lib import RUN_CALLBACK, MemorySummary, TensorInfo, as_handle, check, handle, lib
from ge.errors import error_for


class Model:
    """A compiled, immutable model; run() may be called from many threads at once."""

    def __init__(self, pointer):
        self._handle = as_handle(pointer)

    def __del__(self):
        if hasattr(self, "_handle"):
            lib.ge_model_release(self._handle)  # waits for queued asynchronous runs

    def _infos(self, count_function, info_function):
        result = []
        for i in range(count_function(self._handle)):
            info = TensorInfo(struct_size=ctypes.sizeof(TensorInfo))
            check(info_function(self._handle, i, ctypes.byref(info)))
            result.append((info.name.decode(), _tensors.np_dtype(info.dtype),
                           tuple(info.dims[d] for d in range(info.rank))))
        return result

    @property
    def inputs(self):
        """[(name, numpy dtype, shape)], -1 for dims known only at run time."""
        return self._infos(lib.ge_model_input_count, lib.ge_model_input_info)

    @property
    def outputs(self):
        return self._infos(lib.ge_model_output_count, lib.ge_model_output_info)

    @property
    def memory(self):
        """The memory plan in bytes (const, arena, no_reuse, lower_bound), dynamic, placement_strategy."""
        summary = MemorySummary(struct_size=ctypes.sizeof(MemorySummary))
        check(lib.ge_model_memory_summary(self._handle, ctypes.byref(summary)))
        return {"const_bytes": summary.const_bytes, "arena_bytes": summary.arena_bytes,
                "no_reuse_bytes": summary.no_reuse_bytes, "lower_bound_bytes": summary.lower_bound_bytes,
                "dynamic": bool(summary.dynamic), "placement_strategy": summary.placement_strategy.decode()}

    def run(self, inputs, outputs=None):
        """Runs on numpy arrays (in the order of `inputs`); returns the output
        arrays. C-contiguous inputs are not copied. Without `outputs` the
        results are new arrays over ge's buffers; with it (C-contiguous arrays
        of the outputs' dtypes and shapes) they are written into those."""
        count = lib.ge_model_output_count(self._handle)
        borrowed, in_handles = _tensors.borrow_all(inputs)
        slots, keep = _tensors.run_outputs(count, outputs)
        check(lib.ge_model_run(self._handle, in_handles, len(borrowed), slots, count))
        return _tensors.collect_outputs(slots, keep)

    def run_async(self, inputs):
        """Queues a run; returns a concurrent.futures.Future of the output
        arrays. The input arrays must stay unchanged until it is done."""
        future = concurrent.futures.Future()
        borrowed, in_handles = _tensors.borrow_all(inputs)
        key = _pending.add(future, borrowed)
        status = lib.ge_model_run_async(self._handle, in_handles, len(borrowed), _on_done, key)
        if status != 0:
            _pending.take(key)
            check(status)
        return future

    def save(self, path):
        """Writes a .gem file (whole or not at all)."""
        check(lib.ge_model_save(self._handle, os.fsencode(path)))


class _Pending:
    """The futures (and borrowed inputs) of queued asynchronous runs, by key."""

    def __init__(self):
        self._lock = threading.Lock()
        self._next = 1
        self._runs = {}

    def add(self, future, borrowed):
        with self._lock:
            key = self._next
            self._next += 1
            self._runs[key] = (future, borrowed)
            return key

    def take(self, key):
        with self._lock:
            return self._runs.pop(key)


_pending = _Pending()


@RUN_CALLBACK
def _on_done(key, status, message, outputs, count):
    future, _ = _pending.take(key)
    if status != 0:
        future.set_exception(error_for(status, message.decode("utf-8", "replace")))
        return
    # The callback owns the outputs; an exception must not be lost in ctypes.
    arrays = []
    try:
        for i in range(count):
            arrays.append(_tensors.adopt(outputs[i]))
    except BaseException as e:  # adopt released the tensor it failed on
        for j in range(len(arrays) + 1, count):
            lib.ge_tensor_release(outputs[j])
        future.set_exception(e)
        return
    future.set_result(arrays)


def compile(graph, options=None):
    """Compiles a graph with `ge.*` options (a dict; docs/options.md)."""
    keys, values, count = _lib.options(options)
    out = handle()
    check(lib.ge_compile(graph._handle, keys, values, count, ctypes.byref(out)))
    return Model(out)


def load(model, options=None):
    """Loads a .gem file from a path or from bytes; options may override its run-time options."""
    keys, values, count = _lib.options(options)
    out = handle()
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
        check(lib.ge_model_load_memory(data, len(data), keys, values, count, ctypes.byref(out)))
    else:
        check(lib.ge_model_load(os.fsencode(model), keys, values, count, ctypes.byref(out)))
    return Model(out)
