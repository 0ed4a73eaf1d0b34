"""The Python examples of bindings/python/README.md run as written: each
```python block on its own (a fresh namespace, so it defines every name it
uses), from the root of the repository, as the README says, leaving no file
behind there."""
import os
import re

import pytest

from conftest import PACKAGE_SOURCE, REPO_ROOT

README = os.path.join(PACKAGE_SOURCE, "README.md")


def python_blocks():
    with open(README, encoding="utf-8") as f:
        return re.findall(r"^```python\n(.*?)^```$", f.read(), flags=re.M | re.S)


def files_in_repository_root():
    return {folder: sorted(os.listdir(os.path.join(REPO_ROOT, folder))) for folder in ("", "models")}


def test_the_readme_has_examples():
    assert len(python_blocks()) >= 4


@pytest.mark.parametrize("number", range(len(python_blocks())))
def test_readme_example_runs(number, monkeypatch, capsys):
    monkeypatch.chdir(REPO_ROOT)
    before = files_in_repository_root()
    code = compile(python_blocks()[number], f"{README} (python block {number + 1})", "exec")
    exec(code, {"__name__": f"readme_block_{number + 1}"})
    assert files_in_repository_root() == before
