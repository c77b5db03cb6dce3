"""Docs a pip user receives: what the installed package says points at what it ships, and agrees with the code."""
import math
import re
from pathlib import Path

import pytest

import simcore.reference as reference
from simcore.models import motors

REPO = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p for folder in ("simcore", "models", "controllers") for p in (REPO / folder).rglob("*.py"))
#: Pointers to documents an installed package does not carry.
UNSHIPPED = re.compile(r"REFERENCE\.md|\.\./shared|seeds/|\bthe seed\b|\bseed's\b|steering doc", re.IGNORECASE)
#: The repository's folders the installed package does not carry (the README describes the repository: allowed).
REPOSITORY_ONLY = re.compile(r"\b(tests|bench|notebooks|examples|\.ci)/")


def sections() -> list[str]:
    lines = reference.__doc__.splitlines()
    return [a.strip() for a, b in zip(lines, lines[1:]) if b.strip() and set(b.strip()) == {"="}
            and len(b.strip()) >= len(a.strip()) > 0]


@pytest.mark.parametrize("path", SHIPPED + [REPO / "README.md"], ids=lambda p: str(p.relative_to(REPO)))
def test_shipped_text_points_at_nothing_the_package_does_not_ship(path):
    hits = [f"line {i}: {line.strip()}" for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if UNSHIPPED.search(line) or (path.suffix == ".py" and REPOSITORY_ONLY.search(line))]
    assert not hits, "\n".join(hits)


def test_every_citation_of_the_reference_names_one_of_its_sections():
    names = sections()
    assert names == ["Motors", "FTC motor types in the SDK", "The FTC hub", "WPILib's simulation",
                     "Sampled-data simulation", "Other simulators"]
    cited = []
    for path in SHIPPED + [REPO / "README.md"]:
        text = re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))
        cited += re.findall(r"simcore\.reference`?,? \"([^\"]+)\"", text)
    assert cited and set(cited) <= set(names), set(cited) - set(names)


def test_the_reference_motor_table_is_the_catalogue():
    # Parse the FRC table of the "Motors" section and compare every row with the DCMotor constants.
    doc = reference.__doc__
    table = doc[doc.index("FRC motors"):doc.index("FTC bare motors")]
    rows = {}
    for line in table.splitlines():
        m = re.match(r"^(\S.*?)\s{2,}([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", line)
        if m:
            rows[m.group(1)] = tuple(float(v) for v in m.groups()[1:])
    assert len(rows) == 18
    for motor in motors.CATALOGUE.values():
        if motor.name not in rows:
            continue
        stall_torque, stall_current, free_current, free_rpm = rows.pop(motor.name)
        assert (motor.stall_torque, motor.stall_current, motor.free_current) == (stall_torque, stall_current,
                                                                                 free_current)
        assert motor.free_speed == pytest.approx(free_rpm * 2 * math.pi / 60, rel=1e-15)
    assert not rows, f"in the reference, not in the catalogue: {sorted(rows)}"


def test_the_frc_catalogue_has_wpilibs_dcmotor_numbers():
    # robotpy-wpimath (the test extra installs it) is the independent source the reference cites.
    from wpimath.system.plant import DCMotor

    factories = {"CIM": "CIM", "MINI_CIM": "miniCIM", "BAG": "bag", "VEX_775PRO": "vex775Pro",
                 "ANDYMARK_9015": "andymark9015", "BANEBOTS_RS550": "banebotsRS550",
                 "BANEBOTS_RS775": "banebotsRS775", "RS775_125": "RS775_125", "NEO": "NEO", "NEO_550": "NEO550",
                 "NEO_VORTEX": "neoVortex", "FALCON_500": "falcon500", "FALCON_500_FOC": "falcon500FOC",
                 "KRAKEN_X60": "krakenX60", "KRAKEN_X60_FOC": "krakenX60FOC", "KRAKEN_X44": "krakenX44",
                 "KRAKEN_X44_FOC": "krakenX44FOC", "MINION": "minion"}
    for ours, theirs in factories.items():
        mine, wpi = getattr(motors, ours), getattr(DCMotor, theirs)(1)
        assert (mine.nominal_voltage, mine.stall_torque, mine.stall_current, mine.free_current) == \
            pytest.approx((wpi.nominalVoltage, wpi.stallTorque, wpi.stallCurrent, wpi.freeCurrent), rel=1e-12), ours
        assert mine.free_speed == pytest.approx(wpi.freeSpeed, rel=1e-12), ours


def test_the_readme_first_simulation_and_batch_examples_run_as_written():
    """The README's "A first simulation" and "Many variants in one integration" blocks, run in order as a
    reader pastes them, and give the shapes their comments state."""
    import matplotlib

    matplotlib.use("Agg")
    blocks = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    first = next(b for b in blocks if "result = simulate(arm" in b)
    many = next(b for b in blocks if "simulate_batch(arm" in b)
    names: dict = {}
    exec(first, names)  # noqa: S102 - the README's own code
    exec(many, names)  # noqa: S102
    batch = names["batch"]
    n = len(names["masses"])
    assert batch.at_ticks("arm.angle", "pid").shape == (n, len(batch.tick_times("pid")))
    assert batch.final("arm.stator_current").shape == (n,)
    assert names["step_info"](batch, "arm.angle", 1.0).overshoot.shape == (n,)
