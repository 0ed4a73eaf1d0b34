"""`import ge` finds libge_c.so.0 without GE_C_LIBRARY in the lib folder of the
prefix it is installed in, whichever lib folder and python folder that is, and
says where it looked when it finds none."""
import os
import shutil
import sysconfig

import pytest

from conftest import PACKAGE_SOURCE

PRINT_LIBRARY = "import ge, ge._lib; print(ge._lib.lib._name)"


def install_package(site_packages):
    """A copy of the package in site_packages, as `cmake --install` or pip put it."""
    shutil.copytree(os.path.join(PACKAGE_SOURCE, "ge"), os.path.join(site_packages, "ge"),
                    ignore=shutil.ignore_patterns("__pycache__", "libge*.so*"))
    return site_packages


LIBRARY_DIRS = ["lib", "lib64"] + ([f"lib/{sysconfig.get_config_var('MULTIARCH')}"]
                                   if sysconfig.get_config_var("MULTIARCH") else [])


@pytest.mark.parametrize("library_dir", LIBRARY_DIRS)
def test_library_found_in_the_install_prefix(tmp_path, library_dir, python_subprocess, loaded_library_path):
    prefix = tmp_path / "prefix"
    site_packages = install_package(prefix / "lib" / "python3" / "dist-packages")
    (prefix / library_dir).mkdir(parents=True, exist_ok=True)
    # libge.so.0 comes through libge_c's RUNPATH, as it does from an install's $ORIGIN.
    (prefix / library_dir / "libge_c.so.0").symlink_to(loaded_library_path)
    result = python_subprocess(PRINT_LIBRARY, site_packages)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(prefix / library_dir / "libge_c.so.0")


def test_bundled_library_comes_first(tmp_path, python_subprocess, loaded_library_path):
    site_packages = install_package(tmp_path / "prefix" / "lib" / "python3" / "dist-packages")
    (tmp_path / "prefix" / "lib" / "libge_c.so.0").symlink_to(loaded_library_path)
    (site_packages / "ge" / "libge_c.so.0").symlink_to(loaded_library_path)
    result = python_subprocess(PRINT_LIBRARY, site_packages)
    assert result.stdout.strip() == str(site_packages / "ge" / "libge_c.so.0"), result.stderr


def test_import_error_lists_the_places_tried(tmp_path, python_subprocess):
    site_packages = install_package(tmp_path / "nowhere")
    result = python_subprocess(PRINT_LIBRARY, site_packages)
    if result.returncode == 0:
        pytest.skip(f"libge_c.so.0 is on this system's library path ({result.stdout.strip()})")
    assert "ImportError: ge: libge_c.so.0 not found" in result.stderr
    for tried in (site_packages / "ge" / "libge_c.so.0", tmp_path / "lib" / "libge_c.so.0",
                  "in the system's library path"):
        assert str(tried) in result.stderr
    assert "GE_C_LIBRARY" in result.stderr and "cmake --install" in result.stderr
