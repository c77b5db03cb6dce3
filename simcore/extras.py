"""Optional integrations: import a package that an extra of ``pyproject.toml`` installs, or say which extra.

simcore's runtime dependencies are numpy, scipy, pint and matplotlib. The FRC tool
chain (WPILOG files, the robotpy adapter, the vendors' simulations) lives in
optional extras; a feature that needs one imports it through :func:`require`, so a
missing package raises :class:`MissingExtraError` naming the feature, the package
and the ``pip install`` line that brings it.
"""
from __future__ import annotations

import importlib

from .errors import SimError

__all__ = ["MissingExtraError", "require", "EXTRAS"]

#: The extras of ``pyproject.toml`` and what each installs (for the messages).
EXTRAS = {
    "fast": "pandas and tqdm (SweepTable.to_pandas, progress bars)",
    "wpilog": "robotpy-wpiutil (WPILib's DataLog writer and reader)",
    "robotpy": "wpilib, pyfrc and robotpy-wpiutil (robotpy 2026: physics.py, `python -m robotpy test`)",
    "vendors": "phoenix6, robotpy-rev and robotpy-navx (the vendors' simulated devices)",
    "halsim": "websockets, robotpy-halsim-ws and pyntcore (simcore.halsim: WPILib's HALSim WebSocket protocol)",
}


class MissingExtraError(SimError, ImportError):
    """A feature needs a package of an optional extra that is not installed (also an ``ImportError``)."""


def require(module: str, extra: str, feature: str):
    """Import ``module`` for ``feature``, or raise :class:`MissingExtraError` naming ``extra``.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"wpiutil.log"``.
    extra : str
        The ``pyproject.toml`` extra that installs it (a key of :data:`EXTRAS`).
    feature : str
        What the user called, for the message (``"Result.to_wpilog"``).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"{feature} needs the {module!r} module, from simcore's {extra!r} extra "
            f"({EXTRAS.get(extra, extra)}): pip install \"simcore[{extra}]\" (in a source checkout: "
            f"pip install -e \".[{extra}]\")") from exc
