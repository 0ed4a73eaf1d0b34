"""The package builds with its in-tree PEP 517 backend (standard library only,
so offline) and pip installs it from the source folder, which gains no file."""
import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

from conftest import PACKAGE_SOURCE

DIST_INFO = "ge-0.1.0.dist-info"


def files_under(root):
    """Every file under root, but Python's bytecode caches (which git ignores)."""
    return {os.path.relpath(os.path.join(folder, name), root)
            for folder, subfolders, names in os.walk(root) if "__pycache__" not in folder.split(os.sep)
            for name in names}


@pytest.fixture
def unchanged_source_tree():
    """Fails the test when the package's source folder gained or lost a file."""
    before = files_under(PACKAGE_SOURCE)
    yield
    assert files_under(PACKAGE_SOURCE) == before


def run_hook(source, hook, out_dir):
    """Calls a backend hook in a fresh interpreter, as pip does (in the source folder)."""
    code = f"import _build_backend; print(_build_backend.{hook}({str(out_dir)!r}))"
    result = subprocess.run([sys.executable, "-c", code], cwd=source, env={**os.environ, "PYTHONPATH": str(source)},
                            capture_output=True, text=True, check=True)
    return out_dir / result.stdout.strip()


def check_record(wheel):
    """Every file of the wheel is in its RECORD with the right hash and size."""
    with zipfile.ZipFile(wheel) as archive:
        rows = list(csv.reader(io.StringIO(archive.read(f"{DIST_INFO}/RECORD").decode())))
        assert {row[0] for row in rows} == set(archive.namelist())
        for name, digest, size in rows:
            if name != f"{DIST_INFO}/RECORD":
                data = archive.read(name)
                expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert (digest, int(size)) == (f"sha256={expected}", len(data))


def test_pure_wheel_and_sdist(tmp_path, unchanged_source_tree):
    wheel = run_hook(PACKAGE_SOURCE, "build_wheel", tmp_path)
    assert wheel.name == "ge-0.1.0-py3-none-any.whl"
    check_record(wheel)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert {"ge/__init__.py", "ge/inference_session.py", "ge/_find_library.py"} <= names
        assert not any(name.startswith(("tests/", "_build_backend")) or ".so" in name for name in names)
        metadata = archive.read(f"{DIST_INFO}/METADATA").decode()
        assert "Name: ge\n" in metadata and "Requires-Dist: numpy\n" in metadata
        assert "Tag: py3-none-any\n" in archive.read(f"{DIST_INFO}/WHEEL").decode()
    sdist = run_hook(PACKAGE_SOURCE, "build_sdist", tmp_path)
    with tarfile.open(sdist) as archive:
        assert {"ge-0.1.0/PKG-INFO", "ge-0.1.0/pyproject.toml", "ge-0.1.0/_build_backend.py",
                "ge-0.1.0/ge/model.py"} <= set(archive.getnames())


def test_wheel_with_a_bundled_library_is_platform_tagged(tmp_path, loaded_library_path):
    source = tmp_path / "source"  # a copy: bundling writes the library into ge/
    shutil.copytree(PACKAGE_SOURCE, source, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    shutil.copy(loaded_library_path, source / "ge" / "libge_c.so.0")
    wheel = run_hook(source, "build_wheel", tmp_path)
    assert wheel.name.startswith("ge-0.1.0-py3-none-") and not wheel.name.endswith("-any.whl")
    check_record(wheel)
    with zipfile.ZipFile(wheel) as archive:
        assert "ge/libge_c.so.0" in archive.namelist()
        assert "Root-Is-Purelib: false\n" in archive.read(f"{DIST_INFO}/WHEEL").decode()


def test_pip_installs_offline(tmp_path, unchanged_source_tree, python_subprocess, loaded_library_path):
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip("pip is not installed for this interpreter")
    target = tmp_path / "target"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--no-cache-dir",
                    "--disable-pip-version-check", "--quiet", "--target", str(target), PACKAGE_SOURCE],
                   cwd=tmp_path, check=True, capture_output=True, timeout=300)
    (target / "ge" / "libge_c.so.0").symlink_to(loaded_library_path)  # found as a bundled copy
    result = python_subprocess("import ge; print(ge.__file__, ge.version())", target)
    assert result.stdout.startswith(str(target / "ge" / "__init__.py")), result.stderr
