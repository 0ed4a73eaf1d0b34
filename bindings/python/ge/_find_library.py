"""Finds and loads libge_c.so, so that `import ge` works without an
environment variable wherever the package and the library were installed
together.

The places, in order:
1. GE_C_LIBRARY, the path of libge_c.so (the tests and build trees use it);
2. a copy bundled in the package folder (libge_c.so.0 copied into ge/ before
   building the wheel);
3. PREFIX/lib, PREFIX/lib/<multiarch> and PREFIX/lib64 of every folder PREFIX
   above the package: `cmake --install --prefix PREFIX` puts the package in
   PREFIX/lib/pythonX.Y/dist-packages/ge and the library in PREFIX/lib (or
   PREFIX/lib/x86_64-linux-gnu for /usr on Debian), whatever the exact folders;
4. the system's library path (ld.so.conf, LD_LIBRARY_PATH).
"""
import ctypes
import os
import sysconfig

ENVIRONMENT_VARIABLE = "GE_C_LIBRARY"


def _library_dirs_under(prefix):
    """The folders a prefix may hold its libraries in (GNUInstallDirs' choices)."""
    multiarch = sysconfig.get_config_var("MULTIARCH")
    dirs = [os.path.join(prefix, "lib")]
    if multiarch:
        dirs.append(os.path.join(prefix, "lib", multiarch))
    dirs.append(os.path.join(prefix, "lib64"))
    return dirs


def _ancestors(path):
    """The folders above path, nearest first, up to the root."""
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return
        yield parent
        path = parent


def candidates(package_dir, file_name):
    """The files the library is looked for in, in order (the environment variable aside)."""
    yield os.path.join(package_dir, file_name)
    for prefix in _ancestors(package_dir):
        for library_dir in _library_dirs_under(prefix):
            yield os.path.join(library_dir, file_name)


def _load_found(path):
    """A library that exists must load: a broken one is reported, not skipped for another."""
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"ge: {path} cannot be loaded: {e}") from e


def load(file_name):
    """The loaded library (a ctypes.CDLL) named file_name ("libge_c.so.0").
    Raises ImportError listing every place tried and how to fix it."""
    path = os.environ.get(ENVIRONMENT_VARIABLE)
    if path:
        return _load_found(path)
    package_dir = os.path.dirname(os.path.abspath(__file__))
    tried = []
    for candidate in candidates(package_dir, file_name):
        if os.path.exists(candidate):
            return _load_found(candidate)
        tried.append(candidate)
    try:
        return ctypes.CDLL(file_name)
    except OSError as e:
        tried.append(f"{file_name} in the system's library path ({e})")
    raise ImportError(
        f"ge: {file_name} not found. Tried:\n  " + "\n  ".join(tried) +
        f"\nFix: set {ENVIRONMENT_VARIABLE} to the path of libge_c.so (e.g. build/default/lib/c_api/libge_c.so), "
        f"or install ge with `cmake --install BUILD --prefix PREFIX` (the package then finds PREFIX/lib), "
        f"or add the folder of {file_name} to the library path (ldconfig or LD_LIBRARY_PATH)")
