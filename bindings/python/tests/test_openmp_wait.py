"""`import ge` bounds libgomp's spinning (GOMP_SPINCOUNT=1000) before the
library loads, unless the user chose a wait policy or a spin count."""
import os
import subprocess
import sys

import pytest

from conftest import PACKAGE_SOURCE

SHOW_SPIN_COUNT = "import os, ge; print(os.environ.get('GOMP_SPINCOUNT'))"


def spin_count_after_import(**settings):
    env = {key: value for key, value in os.environ.items() if key not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env.update(PYTHONPATH=PACKAGE_SOURCE, PYTHONDONTWRITEBYTECODE="1", **settings)
    result = subprocess.run([sys.executable, "-c", SHOW_SPIN_COUNT], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_spinning_is_bounded_by_default():
    assert spin_count_after_import() == "1000"


@pytest.mark.parametrize("settings, expected", [({"GOMP_SPINCOUNT": "5"}, "5"),
                                                ({"OMP_WAIT_POLICY": "active"}, "None")])
def test_the_users_choice_is_kept(settings, expected):
    assert spin_count_after_import(**settings) == expected
