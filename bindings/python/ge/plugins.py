"""Plugins: shared libraries that add ops, CPU kernels and passes
(include/ge_c/ge_plugin.h, docs/c-abi.md#plugins)."""
import os

from ge._lib import check, lib


def load_plugin(path):
    """Loads a plugin and registers what it offers; loading the same file again
    does nothing. Raises NotFoundError for a missing file and
    InvalidArgumentError for a library that is not a ge plugin or needs a newer
    plugin ABI (the message says which)."""
    check(lib.ge_plugin_load(os.fsencode(path)))
