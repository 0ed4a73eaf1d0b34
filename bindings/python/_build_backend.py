"""The PEP 517 build backend of the ge package, with the standard library only.

pip needs nothing from an index to build ge (pyproject.toml requires no build
packages), so `pip install ./bindings/python` works offline, and the backend
writes only into the folders pip gives it: the source tree stays clean. It
lives next to the package, not in it, so it is not installed.

The wheel holds ge/*.py and, when libge_c.so.0 and libge.so.0 were copied into
ge/ (a wheel that carries its library), those too; the wheel is then tagged
for this platform instead of py3-none-any.
"""
import ast
import base64
import hashlib
import io
import os
import sysconfig
import tarfile
import zipfile

SOURCE_DIR = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "ge"
BUNDLED_LIBRARY_PREFIXES = ("libge_c.so", "libge.so")
SDIST_FILES = ("pyproject.toml", "_build_backend.py", "README.md")


def _project():
    """The [project] table of pyproject.toml. Its values are one-line TOML
    strings and arrays of strings, which read as Python literals; tomllib is
    not used because it is missing before Python 3.11."""
    project, in_project = {}, False
    with open(os.path.join(SOURCE_DIR, "pyproject.toml"), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if line.startswith("["):
                in_project = line == "[project]"
            elif in_project and line and not line.startswith("#"):
                key, separator, value = line.partition("=")
                if not separator:
                    raise ValueError(f"pyproject.toml:{number}: expected key = value in [project]")
                project[key.strip()] = ast.literal_eval(value.strip())
    return project


def _metadata(project):
    """The core metadata (METADATA, PKG-INFO) of the project."""
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project['description']}", f"Requires-Python: {project['requires-python']}"]
    lines += [f"Requires-Dist: {dependency}" for dependency in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _package_files():
    """(path in the wheel, path on disk) of the package: its modules and a bundled library."""
    package_dir = os.path.join(SOURCE_DIR, PACKAGE)
    names = sorted(name for name in os.listdir(package_dir)
                   if name.endswith(".py") or name.startswith(BUNDLED_LIBRARY_PREFIXES))
    return [(f"{PACKAGE}/{name}", os.path.join(package_dir, name)) for name in names]


def _platform_tag():
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


class _Wheel:
    """A wheel being written: files go in with their RECORD line."""

    def __init__(self, path, dist_info):
        self._zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self._dist_info = dist_info
        self._records = []

    def add(self, name, data):
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self._records.append(f"{name},sha256={digest},{len(data)}")
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # reproducible
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self._zip.writestr(info, data)

    def close(self):
        record = f"{self._dist_info}/RECORD"
        self._records.append(f"{record},,")
        self._zip.writestr(zipfile.ZipInfo(record, date_time=(1980, 1, 1, 0, 0, 0)), "\n".join(self._records) + "\n")
        self._zip.close()


def _write_wheel(wheel_directory, contents):
    """Writes the wheel of `contents` ((name, bytes) pairs) with its metadata; returns its file name."""
    project = _project()
    bundles_library = any(os.path.basename(name).startswith(BUNDLED_LIBRARY_PREFIXES) for name, _ in contents)
    tag = f"py3-none-{_platform_tag()}" if bundles_library else "py3-none-any"
    distribution = f"{project['name']}-{project['version']}"
    dist_info = f"{distribution}.dist-info"
    file_name = f"{distribution}-{tag}.whl"
    wheel = _Wheel(os.path.join(wheel_directory, file_name), dist_info)
    for name, data in contents:
        wheel.add(name, data)
    wheel.add(f"{dist_info}/METADATA", _metadata(project).encode())
    wheel.add(f"{dist_info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: ge _build_backend\n"
                                     f"Root-Is-Purelib: {str(not bundles_library).lower()}\nTag: {tag}\n").encode())
    wheel.add(f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode())
    wheel.close()
    return file_name


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(name, _read(path)) for name, path in _package_files()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """`pip install -e`: a .pth file puts this folder on sys.path, so the package is used in place."""
    return _write_wheel(wheel_directory, [(f"{PACKAGE}.pth", (SOURCE_DIR + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    distribution = f"{project['name']}-{project['version']}"
    members = [(f"{distribution}/PKG-INFO", _metadata(project).encode())]
    members += [(f"{distribution}/{name}", _read(os.path.join(SOURCE_DIR, name))) for name in SDIST_FILES]
    members += [(f"{distribution}/{name}", _read(path)) for name, path in _package_files()
                if name.endswith(".py")]
    file_name = f"{distribution}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, file_name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return file_name
