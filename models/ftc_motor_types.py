"""FTC motor types: the SDK's configuration numbers and the physical motor behind them.

A :class:`MotorType` carries two things that a real robot keeps apart:

* **What the SDK is told** (exact, the FTC SDK's ``MotorConfigurationType`` built
  from a ``@MotorType`` annotation): ``ticks_per_rev`` (encoder counts per
  revolution of the *output* shaft), ``max_rpm`` (rated no-load rpm of the
  output), ``gearing``, ``orientation`` and ``achieveable_max_rpm_fraction``
  (0.85 for every built-in type). The hub's RUN_USING_ENCODER / RUN_TO_POSITION
  power scaling uses only :meth:`MotorType.getAchieveableMaxTicksPerSecondRounded`
  = Java ``Math.round(ticksPerRev * maxRPM * 0.85 / 60)`` (round half up), and the
  ``AngleUnit`` overloads of ``setVelocity``/``getVelocity`` use only
  ``ticksPerRev``. The method names are the SDK's (``getTicksPerRev()`` ...), so
  ported Java reads the same.
* **What is physically there**: ``motor`` (a bare :class:`simcore.models.motors.DCMotor`),
  ``gear_ratio`` (motor revolutions per output revolution, the *real* ratio) and
  ``encoder_counts_per_motor_rev`` (quadrature counts per revolution of that
  DCMotor's shaft). The hub counts ``encoder_counts_per_motor_rev`` per rotor
  revolution whatever the SDK was told, so a type whose SDK ``ticksPerRev``
  differs from ``encoder_counts_per_motor_rev * gear_ratio`` (the REV
  UltraPlanetary "20:1", really 18.93:1) reproduces the real mismatch.

Sources, per type
-----------------
goBILDA 5203 (Yellow Jacket), one type per ratio
    Motor: ``GOBILDA_BARE`` (gm0: 5900 rpm free). Encoder: 28 counts per motor
    revolution (simcore.reference, "Motors"). Ratios: goBILDA's planetary stages are
    ``1 + 46/17`` (3.706, "3.7:1") and ``1 + 46/11`` (5.182, "5.2:1"); every
    5203 ratio is a product of them, which reproduces the reference's ratio row to
    all four printed digits (e.g. 312 rpm: 3.706 x 5.182 = 19.20). SDK numbers:
    ``ticks_per_rev`` as published (the reference's counts/rev row, 28 x ratio to one
    decimal but for 84 rpm: see :data:`GOBILDA_PUBLISHED_TICKS_PER_REV`) and
    ``max_rpm`` = the nominal rpm in the name, orientation CCW (as the SDK's own
    goBILDA type). These are what a team gets by declaring a custom ``@MotorType``
    per ratio. The SDK itself ships a *single* goBILDA type ("GoBILDA 5202/3/4
    series": ticksPerRev 2786, maxRPM 60, i.e. the 60 rpm motor), provided here as
    :data:`GOBILDA_5202_SDK`. Because ``ticksPerRev * maxRPM`` is nearly the same
    for every ratio (28 x 6000 = 168000 vs 2786 x 60 = 167160), that single type
    gives almost the right speed cap on any ratio (within 0.5 %), but its
    ``ticksPerRev`` is wrong for every ratio but 60 rpm, which matters to the
    ``AngleUnit`` velocity overloads.
REV HD Hex 20:1 / 40:1 (REV-41-1301 / REV-41-1291, spur gearboxes)
    Motor ``REV_HD_HEX_BARE``; 28 counts per motor revolution; nominal ratios 20
    and 40 (the reference: 560 and 1120 counts per output revolution). SDK: 560/1120
    ticks, 300/150 rpm, CCW.
REV UltraPlanetary (SDK type "REV UltraPlanetary HD Hex", the 20:1 build)
    Motor ``REV_HD_HEX_BARE``; 28 counts per motor revolution. Physical ratio:
    the nominal 4:1 and 5:1 cartridges are really 76:21 and 68:13, so "20:1" is
    5168/273 = 18.93:1 (compilations quote 18.88:1 for the nominal 20:1; the
    cartridge fractions it also quotes give 18.93, used here). SDK: 560 ticks,
    300 rpm, CW.
REV Core Hex (REV-41-1300)
    Motor ``REV_CORE_HEX``, whose datasheet values are *at its 72:1 output*
    (it is sold only geared), so ``gear_ratio = 1`` relative to that object and
    the rotor signals of a mechanism built on it are the output shaft. Encoder:
    288 counts per output revolution (the reference). SDK: ticksPerRev 288, gearing
    36.25, maxRPM 137, CCW, and it is the one built-in type that declares hub
    gains: velocity P=10 I=3 D=0 and position P=10 I=0.05 D=0, both as the
    LegacyPID algorithm (``ExpansionHubMotorControllerVelocityParams`` /
    ``...PositionParams`` annotations, which the SDK maps to LegacyPID).
NeveRest 20 / 40 / 60 (AndyMark)
    Motor ``NEVEREST_BARE``; encoder 7 pulses per motor revolution per channel, x4
    quadrature = 28 counts; ratios 20/40/60 (560/1120/1680 ticks, as the SDK).
    SDK: 315/160/105 rpm, CW/CCW/CCW. (The later "Orbital 20" is 19.2:1; this is
    the SDK's NeveRest 20 type.)
TETRIX (Pitsco W39530 DC gear motor)
    SDK: ticksPerRev 1440, gearing 52, maxRPM 165, CW. Encoder: 1440 counts per
    *output* revolution (the SDK's ticksPerRev; the TETRIX encoder's 360 CPR x4).
    Physics: :data:`TETRIX_MOTOR`, a DCMotor *at the output* (``gear_ratio = 1``),
    an APPROXIMATION: free speed 165 rpm (the SDK's maxRPM); stall torque from the
    Pitsco specification quoted on the DPRG mailing list (Feb. 2013: maximum output
    10.7 W at 89 rpm, 2.46 A there), taking a linear motor's peak power
    ``T_stall * w_free / 4``: 4 x 10.7 W / 17.28 rad/s = 2.48 N·m; stall current
    2 x 2.46 A - free current = 4.6 A, free current 0.3 A assumed. Replace it with
    a measured motor when you have one.

Orientation
-----------
``orientation`` is the SDK's: the rotation, looking down the shaft towards the
motor, in which encoder counts increase. The SDK uses it in
``DcMotorImpl.getOperationalDirection()`` (a CCW type inverts the user's
Direction before every command and reading). The simulator makes the physical
side agree with it: a mechanism's positive ``rotor_position`` is the rotation
that a FORWARD motor driven with positive power produces (CW looking at the
shaft), so the hub's *raw* frame (raw counts, raw duty) is the mechanism frame
times :attr:`MotorType.raw_sign` (+1 for CW types, -1 for CCW types). Net effect:
for every type, FORWARD + positive power moves the mechanism positive and
``getCurrentPosition()`` counts up, while ``getPhysicalPositionTicks()`` and the
raw direction of the SDK's direction-less paths (leaving RUN_TO_POSITION) are
negated for CCW types, as on a robot.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import NamedTuple, Optional

from simcore.errors import ConfigError, ConfigTypeError

from .motors import DCMotor, GOBILDA_BARE, NEVEREST_BARE, REV_CORE_HEX as REV_CORE_HEX_MOTOR, REV_HD_HEX_BARE, \
    rpm_to_rad_per_s

__all__ = ["Rotation", "HubParams", "MotorType", "java_round",
           "GOBILDA_STAGE_3_7", "GOBILDA_STAGE_5_2", "GOBILDA_RATIOS", "GOBILDA_PUBLISHED_TICKS_PER_REV",
           "GOBILDA_5203_6000", "GOBILDA_5203_1620", "GOBILDA_5203_1150", "GOBILDA_5203_435",
           "GOBILDA_5203_312", "GOBILDA_5203_223", "GOBILDA_5203_117", "GOBILDA_5203_84",
           "GOBILDA_5203_60", "GOBILDA_5203_43", "GOBILDA_5203_30", "GOBILDA_5202_SDK",
           "REV_HD_HEX_20", "REV_HD_HEX_40", "REV_CORE_HEX", "REV_ULTRAPLANETARY",
           "NEVEREST_20", "NEVEREST_40", "NEVEREST_60", "TETRIX", "TETRIX_MOTOR", "FTC_MOTOR_TYPES"]


_LONG_MIN, _LONG_MAX = -2 ** 63, 2 ** 63 - 1


def java_round(x: float) -> int:
    """Java's ``Math.round(double)``: the closest integer, ties towards positive infinity.

    Not ``floor(x + 0.5)``, which rounds 0.49999999999999994 (the double just
    below one half) up to 1, because ``x + 0.5`` rounds to 1.0; Java (since 7)
    defines the result as the closest long and gives 0. The fractional part
    ``x - floor(x)`` of a double is exact, so comparing it with 0.5 decides.
    NaN gives 0 and values beyond the long range saturate, as in Java.
    """
    x = float(x)
    if math.isnan(x):
        return 0
    if x >= 2.0 ** 63:
        return _LONG_MAX
    if x <= -2.0 ** 63:
        return _LONG_MIN
    whole = math.floor(x)
    return int(whole) + (1 if x - whole >= 0.5 else 0)


class Rotation(enum.Enum):
    """The SDK's ``Rotation``: direction, looking at the shaft, in which counts increase."""

    CW = "CW"
    CCW = "CCW"


class HubParams(NamedTuple):
    """Hub PID gains a motor type declares (the SDK's ``ExpansionHub...Params``).

    ``algorithm`` is ``"LegacyPID"`` or ``"PIDF"`` (the names of
    ``MotorControlAlgorithm``; ``models`` does not import ``controllers``).
    """

    p: float
    i: float
    d: float
    f: float
    algorithm: str


@dataclass(frozen=True)
class MotorType:
    """An FTC motor type: SDK configuration plus the physical gearmotor.

    Parameters
    ----------
    name : str
        The SDK's display name (or ours, for the per-ratio goBILDA types).
    ticks_per_rev : float
        SDK ``ticksPerRev``: encoder counts per output revolution *as configured*.
    max_rpm : float
        SDK ``maxRPM``: rated no-load speed of the output shaft, rpm.
    gearing : float
        SDK ``gearing`` (motor revolutions per output revolution, nominal; the SDK
        does not use it in any computation).
    orientation : Rotation
        SDK ``orientation`` (see the module docstring).
    motor : DCMotor
        The physical motor whose shaft the encoder counts.
    gear_ratio : float
        Physical reduction, motor revolutions per output revolution (> 0).
    encoder_counts_per_motor_rev : float
        Quadrature counts per revolution of ``motor``'s shaft (> 0).
    achieveable_max_rpm_fraction : float
        SDK ``achieveableMaxRPMFraction`` (0.85 for every built-in type).
    hub_velocity_params, hub_position_params : HubParams or None
        Hub gains the SDK type declares; ``None`` where it declares none (the
        firmware's defaults then apply).
    """

    name: str
    ticks_per_rev: float
    max_rpm: float
    gearing: float
    orientation: Rotation
    motor: DCMotor
    gear_ratio: float
    encoder_counts_per_motor_rev: float
    achieveable_max_rpm_fraction: float = 0.85
    hub_velocity_params: Optional[HubParams] = None
    hub_position_params: Optional[HubParams] = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError("name", self.name, "a non-empty string")
        for field in ("ticks_per_rev", "max_rpm", "gearing", "gear_ratio", "encoder_counts_per_motor_rev",
                      "achieveable_max_rpm_fraction"):
            v = getattr(self, field)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                raise ConfigError(field, v, "a positive finite number")
        if not isinstance(self.orientation, Rotation):
            raise ConfigTypeError("orientation", self.orientation, "Rotation.CW or Rotation.CCW")
        if not isinstance(self.motor, DCMotor):
            raise ConfigTypeError("motor", self.motor, "a simcore.models.motors.DCMotor")
        for field in ("hub_velocity_params", "hub_position_params"):
            v = getattr(self, field)
            if v is not None and not isinstance(v, HubParams):
                raise ConfigTypeError(field, v, "a HubParams or None")

    # -- the SDK's MotorConfigurationType getters -----------------------------------------------
    def getName(self) -> str:
        """Display name."""
        return self.name

    def getTicksPerRev(self) -> float:
        """Encoder ticks per output revolution, as configured (SDK)."""
        return self.ticks_per_rev

    def getMaxRPM(self) -> float:
        """Rated no-load output rpm, as configured (SDK)."""
        return self.max_rpm

    def getGearing(self) -> float:
        """Nominal gearing, as configured (SDK)."""
        return self.gearing

    def getOrientation(self) -> Rotation:
        """Direction in which counts increase (SDK)."""
        return self.orientation

    def getAchieveableMaxRPMFraction(self) -> float:
        """Fraction of maxRPM reachable in closed loop (SDK, 0.85)."""
        return self.achieveable_max_rpm_fraction

    def getAchieveableMaxTicksPerSecond(self) -> float:
        """``ticksPerRev * maxRPM * fraction / 60``, ticks/s (SDK)."""
        return self.ticks_per_rev * (self.max_rpm * self.achieveable_max_rpm_fraction) / 60.0

    def getAchieveableMaxTicksPerSecondRounded(self) -> int:
        """:meth:`getAchieveableMaxTicksPerSecond` rounded as Java's ``Math.round``, ticks/s."""
        return java_round(self.getAchieveableMaxTicksPerSecond())

    # -- physics ------------------------------------------------------------------------------
    @property
    def raw_sign(self) -> int:
        """+1 (CW) or -1 (CCW): hub raw frame = mechanism frame x raw_sign."""
        return 1 if self.orientation is Rotation.CW else -1

    @property
    def encoder_counts_per_output_rev(self) -> float:
        """Counts the hub really sees per output revolution (physical, may differ from ticks_per_rev)."""
        return self.encoder_counts_per_motor_rev * self.gear_ratio

    @property
    def free_speed_at_output(self) -> float:
        """Physical no-load output speed at the motor's nominal voltage, rad/s."""
        return self.motor.free_speed / self.gear_ratio

    @property
    def stall_torque_at_output(self) -> float:
        """Physical stall torque at the output (lossless gearbox), N·m."""
        return self.motor.stall_torque * self.gear_ratio

    @property
    def free_ticks_per_second(self) -> float:
        """Datasheet free speed in hub counts per second (encoder on the motor shaft).

        The DCMotor model's own no-load speed is ``nominal_voltage * Kv``, a little
        higher (its free current loads nothing: +2.8 % for the goBILDA motor).
        """
        return self.motor.free_speed / (2 * math.pi) * self.encoder_counts_per_motor_rev

    def __repr__(self):
        return (f"MotorType({self.name!r}: ticksPerRev={self.ticks_per_rev:g}, maxRPM={self.max_rpm:g}, "
                f"{self.orientation.name}; {self.motor.name} x {self.gear_ratio:.6g}:1, "
                f"{self.encoder_counts_per_motor_rev:g} counts/motor rev)")


# -- goBILDA 5203 ---------------------------------------------------------------------------------
#: goBILDA planetary stage "3.7:1", exactly 1 + 46/17.
GOBILDA_STAGE_3_7 = 1 + 46 / 17
#: goBILDA planetary stage "5.2:1", exactly 1 + 46/11.
GOBILDA_STAGE_5_2 = 1 + 46 / 11
_A, _B = GOBILDA_STAGE_3_7, GOBILDA_STAGE_5_2
#: Physical ratio of each 5203 gearmotor by nominal rpm.
GOBILDA_RATIOS = {
    6000: 1.0, 1620: _A, 1150: _B, 435: _A * _A, 312: _A * _B, 223: _B * _B, 117: _A ** 3,
    84: _A * _A * _B, 60: _A * _B * _B, 43: _B ** 3, 30: _A ** 4,
}


#: Encoder counts per output revolution as goBILDA publishes them (simcore.reference's counts/rev
#: row), the number a team types into its ``@MotorType(ticksPerRev=...)``: ``28 x ratio`` to
#: one decimal, except 84 rpm, published as 1993.6 (= 28 x the rounded "71.2:1") where the
#: planetary product gives 1992.6. The hub counts the physical 28 per motor revolution
#: whatever the SDK is told, so that one type carries the real 0.05 % mismatch.
GOBILDA_PUBLISHED_TICKS_PER_REV = {
    6000: 28.0, 1620: 103.8, 1150: 145.1, 435: 384.5, 312: 537.7, 223: 751.8, 117: 1425.1,
    84: 1993.6, 60: 2786.2, 43: 3895.9, 30: 5281.1,
}


def _gobilda(rpm: int) -> MotorType:
    ratio = GOBILDA_RATIOS[rpm]
    return MotorType(name=f"goBILDA 5203 {rpm} rpm ({ratio:.4g}:1)",
                     ticks_per_rev=GOBILDA_PUBLISHED_TICKS_PER_REV[rpm], max_rpm=float(rpm),
                     gearing=ratio, orientation=Rotation.CCW, motor=GOBILDA_BARE, gear_ratio=ratio,
                     encoder_counts_per_motor_rev=28.0)


GOBILDA_5203_6000 = _gobilda(6000)
GOBILDA_5203_1620 = _gobilda(1620)
GOBILDA_5203_1150 = _gobilda(1150)
GOBILDA_5203_435 = _gobilda(435)
GOBILDA_5203_312 = _gobilda(312)
GOBILDA_5203_223 = _gobilda(223)
GOBILDA_5203_117 = _gobilda(117)
GOBILDA_5203_84 = _gobilda(84)
GOBILDA_5203_60 = _gobilda(60)
GOBILDA_5203_43 = _gobilda(43)
GOBILDA_5203_30 = _gobilda(30)

#: The SDK's single built-in goBILDA type ("GoBILDA 5202/3/4 series"), on the 60 rpm motor it describes.
GOBILDA_5202_SDK = MotorType(name="GoBILDA 5202/3/4 series", ticks_per_rev=2786, max_rpm=60, gearing=99.5,
                             orientation=Rotation.CCW, motor=GOBILDA_BARE, gear_ratio=GOBILDA_RATIOS[60],
                             encoder_counts_per_motor_rev=28.0)

# -- REV --------------------------------------------------------------------------------------------
REV_HD_HEX_20 = MotorType(name="REV Robotics 20:1 HD Hex Motor", ticks_per_rev=560, max_rpm=300, gearing=20,
                          orientation=Rotation.CCW, motor=REV_HD_HEX_BARE, gear_ratio=20.0,
                          encoder_counts_per_motor_rev=28.0)
REV_HD_HEX_40 = MotorType(name="REV Robotics 40:1 HD Hex Motor", ticks_per_rev=1120, max_rpm=150, gearing=40,
                          orientation=Rotation.CCW, motor=REV_HD_HEX_BARE, gear_ratio=40.0,
                          encoder_counts_per_motor_rev=28.0)
REV_ULTRAPLANETARY = MotorType(name="REV Robotics Ultraplanetary HD Hex Motor", ticks_per_rev=560, max_rpm=300,
                               gearing=20, orientation=Rotation.CW, motor=REV_HD_HEX_BARE,
                               gear_ratio=(76 / 21) * (68 / 13), encoder_counts_per_motor_rev=28.0)
REV_CORE_HEX = MotorType(name="REV Robotics Core Hex Motor", ticks_per_rev=288, max_rpm=137, gearing=36.25,
                         orientation=Rotation.CCW, motor=REV_CORE_HEX_MOTOR, gear_ratio=1.0,
                         encoder_counts_per_motor_rev=288.0,
                         hub_velocity_params=HubParams(10.0, 3.0, 0.0, 0.0, "LegacyPID"),
                         hub_position_params=HubParams(10.0, 0.05, 0.0, 0.0, "LegacyPID"))

# -- AndyMark NeveRest --------------------------------------------------------------------------------
NEVEREST_20 = MotorType(name="NeveRest 20 Gearmotor", ticks_per_rev=560, max_rpm=315, gearing=20,
                        orientation=Rotation.CW, motor=NEVEREST_BARE, gear_ratio=20.0,
                        encoder_counts_per_motor_rev=28.0)
NEVEREST_40 = MotorType(name="NeveRest 40 Gearmotor", ticks_per_rev=1120, max_rpm=160, gearing=40,
                        orientation=Rotation.CCW, motor=NEVEREST_BARE, gear_ratio=40.0,
                        encoder_counts_per_motor_rev=28.0)
NEVEREST_60 = MotorType(name="NeveRest 60 Gearmotor", ticks_per_rev=1680, max_rpm=105, gearing=60,
                        orientation=Rotation.CCW, motor=NEVEREST_BARE, gear_ratio=60.0,
                        encoder_counts_per_motor_rev=28.0)

# -- TETRIX -----------------------------------------------------------------------------------------
_TETRIX_FREE = rpm_to_rad_per_s(165.0)
#: APPROXIMATION: TETRIX DC gear motor at its output shaft (see the module docstring for the derivation).
TETRIX_MOTOR = DCMotor(12.0, 4 * 10.7 / _TETRIX_FREE, 4.6, 0.3, _TETRIX_FREE, "TETRIX DC gear motor (output)")
TETRIX = MotorType(name="Tetrix Motor", ticks_per_rev=1440, max_rpm=165, gearing=52, orientation=Rotation.CW,
                   motor=TETRIX_MOTOR, gear_ratio=1.0, encoder_counts_per_motor_rev=1440.0)

#: Every FTC motor type above by its module-constant name.
FTC_MOTOR_TYPES = {n: globals()[n] for n in __all__ if isinstance(globals().get(n), MotorType)}
