"""One namespace: a real (non-editable) install puts only `simcore` at top level, so a team's own
`models.py` and `controllers/` import beside simcore.models and simcore.controllers.

The package is built and installed once for this module (``pip install --no-deps --target``, from a
copy of the sources, so the checkout gets no build artefacts); the imports run in subprocesses whose
working folder is the team's folder.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The folder a non-editable install of this checkout went into."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    for package in ("simcore", "models", "controllers"):
        shutil.copytree(REPO / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
                          "--target", str(target), str(src)], capture_output=True, text=True)
    assert run.returncode == 0, f"pip install failed:\n{run.stdout}\n{run.stderr}"
    return target


def run_python(code: str, cwd: Path, target: Path) -> subprocess.CompletedProcess:
    # The install folder first on the path; the team's folder is the working folder (sys.path[0]).
    env = {**os.environ, "PYTHONPATH": str(target), "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)


def test_only_simcore_is_installed_at_top_level(installed):
    top = sorted(p.name for p in installed.iterdir() if not p.name.endswith(".dist-info"))
    assert top == ["simcore"]
    assert (installed / "simcore" / "models" / "arm.py").is_file()
    assert (installed / "simcore" / "controllers" / "hub" / "motor.py").is_file()


def test_every_package_of_the_checkout_is_installed(installed):
    # A package missing from pyproject's list installs nothing, and an editable install hides that.
    roots = {"simcore": "simcore", "models": "simcore/models", "controllers": "simcore/controllers"}
    for folder, target in roots.items():
        for init in (REPO / folder).rglob("__init__.py"):
            package = init.parent.relative_to(REPO / folder)
            for module in init.parent.glob("*.py"):
                assert (installed / target / package / module.name).is_file(), f"{folder}/{package}/{module.name}"


def test_a_teams_own_models_and_controllers_import_beside_simcore(installed, tmp_path):
    team = tmp_path / "team"
    (team / "controllers").mkdir(parents=True)
    (team / "models.py").write_text("WHO = 'the team models'\n")
    (team / "controllers" / "__init__.py").write_text("WHO = 'the team controllers'\n")
    code = """
import json
import models, controllers
import simcore, simcore.models, simcore.controllers
from simcore.models.motors import NEO
from simcore.controllers import PIDController
print(json.dumps({"models": models.WHO, "controllers": controllers.WHO, "simcore": simcore.__file__,
                  "simcore.models": simcore.models.__file__, "simcore.controllers": simcore.controllers.__file__,
                  "arm": type(simcore.models.Arm(NEO, 100, mass=1.0, com_distance=0.2, min_angle=-1,
                                                 max_angle=1)).__module__,
                  "pid": PIDController(1.0, 0.0, 0.0).calculate(0.0, 2.0),
                  "kernel": __import__("simcore.kernel.segment").kernel.segment.__file__}))
"""
    run = run_python(code, team, installed)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["models"] == "the team models" and got["controllers"] == "the team controllers"
    for name in ("simcore", "simcore.models", "simcore.controllers", "kernel"):
        assert Path(got[name]).resolve().is_relative_to(installed.resolve()), (name, got[name])
    assert got["arm"] == "simcore.models.arm" and got["pid"] == 2.0


def test_import_models_without_the_teams_file_fails(installed, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for name in ("models", "controllers"):
        run = run_python(f"import {name}", empty, installed)
        assert run.returncode != 0 and f"No module named '{name}'" in run.stderr, run.stderr
    run = run_python("import simcore.models, simcore.controllers.hub", empty, installed)
    assert run.returncode == 0, run.stderr
