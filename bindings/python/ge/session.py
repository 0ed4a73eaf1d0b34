"""Sessions: graphs by id, with session-wide and per-graph `ge.*` options."""
import ctypes

from ge import _tensors
from ge import _options
from ge._lib import check, handle, lib
from ge.model import Model


class Session:
    def __init__(self, options=None):
        keys, values, count = _options.option_arrays(options)
        self._handle = handle()
        check(lib.ge_session_create(keys, values, count, ctypes.byref(self._handle)))

    def __del__(self):
        if hasattr(self, "_handle"):
            lib.ge_session_release(self._handle)

    def add_graph(self, graph_id, graph, options=None):
        """Adds a copy of the graph; the graph is complete afterwards."""
        keys, values, count = _options.option_arrays(options)
        check(lib.ge_session_add_graph(self._handle, graph_id, graph._handle, keys, values, count))

    def compile_graph(self, graph_id):
        """Compiles the graph (once) and returns its Model."""
        out = handle()
        check(lib.ge_session_compile_graph(self._handle, graph_id, ctypes.byref(out)))
        return Model(out)

    def run_graph(self, graph_id, inputs, outputs=None):
        """Runs the graph (compiling on first use); arrays as for Model.run."""
        # The C call needs the number of outputs, which the compiled model knows.
        count = len(self.compile_graph(graph_id).outputs)
        borrowed, in_handles = _tensors.borrow_all(inputs)
        slots, keep = _tensors.run_outputs(count, outputs)
        check(lib.ge_session_run_graph(self._handle, graph_id, in_handles, len(borrowed), slots, count))
        return _tensors.collect_outputs(slots, keep)
