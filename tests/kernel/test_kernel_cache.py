"""Where the compiled kernel keeps its cache, and what it leaves alone."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest


def test_import_simcore_loads_no_numba():
    code = "import sys, simcore, simcore.models, simcore.controllers; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_teams_own_numba_functions_keep_numbas_cache_setting(tmp_path):
    # The kernel's cache folder is set for its own decorations only (numba's setting is process-wide).
    code = f"""
import numba
before = numba.config.CACHE_DIR
import simcore.kernel.advance
from simcore.kernel.jit import cache_dir
assert numba.config.CACHE_DIR == before, (numba.config.CACHE_DIR, before)
print(cache_dir())
"""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith(str(tmp_path / "simcore" / "kernel-"))


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_temporary_cache_folder_others_can_write_is_refused(tmp_path, monkeypatch):
    from simcore.kernel import jit

    monkeypatch.setattr(jit.tempfile, "gettempdir", lambda: str(tmp_path))
    shared = tmp_path / f"simcore-{os.getuid()}"
    shared.mkdir()
    os.chmod(shared, 0o777)
    assert jit._private_temp_root() is None
    os.chmod(shared, 0o700)
    assert jit._private_temp_root() == shared
