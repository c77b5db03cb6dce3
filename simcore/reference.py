"""Reference: the published facts simcore's models and controllers are built on, with their sources.

This module holds documentation only (read it with ``help(simcore.reference)`` or in
the source); it ships with the package, so docstrings cite it by section:
``simcore.reference, "Motors"``. Each fact names the public source it comes from;
where a source is a third-party compilation or is not published at all, that is said.

Contents: Motors - FTC motor types in the SDK - The FTC hub - WPILib's simulation -
Sampled-data simulation - Other simulators.


Motors
======

The constants of a DC motor come from four datasheet numbers at the nominal voltage
``V`` (12 V for every motor below), as WPILib's ``DCMotor`` derives them
(allwpilib, ``wpimath/src/main/java/edu/wpi/first/math/system/plant/DCMotor.java``;
robotpy-wpimath 2026.2.2 has the same numbers):

* resistance ``R = V / I_stall``;
* torque constant ``Kt = T_stall / I_stall``;
* velocity constant ``Kv = w_free / (V - R I_free)``;
* ``n`` motors on one gearbox: stall torque, stall current and free current each
  times ``n`` (``R`` divided by ``n``, ``Kt`` and ``Kv`` unchanged).

The stator current at rotor speed ``w`` and terminal voltage ``V`` is then
``(V - w / Kv) / R``, which is not zero at 0 V while the shaft turns: back-EMF drives
it through windings a controller shorts in brake mode. Constants derived this way
are not energy-consistent (``Kt * Kv = 1`` would be): across the FRC motors
``Kt * Kv`` runs from 0.666 (AndyMark 9015) to 1.248 (NEO), Krakens and Falcons are
within 0.985-1.024 (computed from the table below).

FRC motors (WPILib's ``DCMotor`` factory methods):

=================  ==========  =======  ======  ========
motor              stall N·m   stall A  free A  free rpm
=================  ==========  =======  ======  ========
CIM                2.42        133      2.7     5310
MiniCIM            1.41        89       3.0     5840
Bag                0.43        53       1.8     13180
775Pro             0.71        134      0.7     18730
AndyMark 9015      0.36        71       3.7     14270
BaneBots RS550     0.38        84       0.4     19000
BaneBots RS775     0.72        97       2.7     13050
RS775-125          0.28        18       1.6     5800
NEO                2.6         105      1.8     5676
NEO 550            0.97        100      1.4     11000
NEO Vortex         3.60        211      3.6     6784
Falcon 500         4.69        257      1.5     6380
Falcon 500 FOC     5.84        304      1.5     6080
Kraken X60         7.09        366      2.0     6000
Kraken X60 FOC     9.37        483      2.0     5800
Kraken X44         4.11        279      2.0     7758
Kraken X44 FOC     5.01        329      2.0     7368
Minion             3.17        211      2.0     7704
=================  ==========  =======  ======  ========

FTC bare motors (gm0, the Game Manual 0 motor guide,
``docs/power-and-electronics/motor-guide/motor-power.rst``):

======================================  ========  ======  =========  =======
motor                                   free rpm  free A  stall N·m  stall A
======================================  ========  ======  =========  =======
goBILDA Yellow Jacket / MATRIX, bare    5900      0.3     0.19       11
NeveRest, bare                          5500      0.4     0.17       9.8
REV HD Hex, bare                        6000      0.3     0.18       11
REV Core Hex (at its 72:1 output)       125       0.2     3.2        4.4
======================================  ========  ======  =========  =======

goBILDA 5203 gear motors: the encoder gives 28 counts per motor revolution, so the
counts per output revolution are 28 times the ratio. The ratios below are from
compilations of goBILDA's product sheets made by teams (not confirmed against
goBILDA's own pages). They are products of two planetary stages,
``1 + 46/17 = 3.706`` ("3.7:1") and ``1 + 46/11 = 5.182`` ("5.2:1"), which reproduce
every ratio to the four digits printed (312 rpm: 3.706 x 5.182 = 19.20); the counts
are 28 x ratio to one decimal, except 84 rpm's 1993.6, which is 28 x the rounded
71.2 (the product gives 1992.6).

==========  =====  ======  ======  =====  =====  =====  ======  ======  ======  ======  ======
rpm         6000   1620    1150    435    312    223    117     84      60      43      30
ratio       1      3.706   5.182   13.73  19.20  26.85  50.89   71.16   99.51   139.1   188.6
counts/rev  28     103.8   145.1   384.5  537.7  751.8  1425.1  1993.6  2786.2  3895.9  5281.1
==========  =====  ======  ======  =====  =====  =====  ======  ======  ======  ======  ======

REV (REV Robotics' product documentation): the HD Hex motor's encoder gives 28
counts per motor revolution, 560 at the output of a 20:1 and 1120 of a 40:1
gearbox; the UltraPlanetary's nominal 3:1, 4:1 and 5:1 cartridges are really
84:29, 76:21 and 68:13, so a "20:1" of a 4:1 and a 5:1 is 76/21 x 68/13 = 18.93:1
(compilations also quote 18.88:1); the Core Hex counts 288 per output revolution.


FTC motor types in the SDK
==========================

From the FTC SDK sources as extracted and published by OpenFTC
(``OpenFTC/Extracted-RC``, SDK 11; where SDK 12.0.0 differs, "The FTC hub" below
follows 12.0.0):

* Each ``@MotorType`` declares ``ticksPerRev``, ``gearing``, ``maxRPM`` and an
  orientation. ``achieveableMaxRPMFraction`` (the SDK's spelling) defaults to 0.85
  and no built-in type changes it; the speed cap RUN_TO_POSITION and
  RUN_USING_ENCODER scale power by is
  ``getAchieveableMaxTicksPerSecondRounded() = round(ticksPerRev * maxRPM * 0.85 / 60)``.

  ===========================================  ===========  =========  ======  ===========
  type                                         ticksPerRev  gearing    maxRPM  orientation
  ===========================================  ===========  =========  ======  ===========
  goBILDA 5202/3/4 (the SDK's one goBILDA)     2786         99.5       60      CCW
  REV HD Hex 20:1 / 40:1                       560 / 1120   20 / 40    300/150 CCW
  REV UltraPlanetary                           560          20         300     CW
  REV Core Hex                                 288          36.25      137     CCW
  NeveRest 20 / 40 / 60                        560/1120/    20/40/60   315/    CW/CCW/CCW
                                               1680                    160/105
  Tetrix                                       1440         52         165     CW
  ===========================================  ===========  =========  ======  ===========

* What power becomes on the wire: it is clipped to [-1, 1] first; in
  RUN_WITHOUT_ENCODER the hub is sent ``(int)(p * 32767)`` as a constant power, in the
  encoder modes a velocity target.
* PIDF coefficients travel as 16.16 fixed point. ``setPIDFCoefficients`` with a mode
  that is not a PID mode throws ``IllegalArgumentException`` ("motor %d: mode %s is
  invalid as PID Mode").
* The velocity the hub reports is a 16-bit count per second: it wraps above 32767
  (FtcRobotController issue #965).
* Gains teams read back from a fresh hub: velocity P 10, I 3, D 0, F 0; position P 10.
  Teams' tuning rule (gm0): ``F = 32767 / maxTicksPerSecond``, ``P = 0.1 F``,
  ``I = 0.1 P``, position ``P = 5``.
* The motor driver's PWM off-phase does not brake (gm0, control-system internals).


The FTC hub
===========

The behaviour :mod:`simcore.controllers.hub` implements for a REV Control Hub or
Expansion Hub motor channel in RUN_TO_POSITION and RUN_USING_ENCODER: the SDK side
exactly as the FTC SDK 12.0.0 sources do it (``DcMotorImpl``, ``DcMotorImplEx``,
``LynxDcMotorController`` and the Lynx command classes), the firmware side, which is
closed source, as labelled approximations. The specification came to the project
as the documentation of a hub-motor fake (``FakeMotor``, driven by robot code that
sets the load as a fraction of stall torque each tick); its approximations, figures
and check list are kept here.

Exact (the SDK 12.0.0 sources; a test pins each row):

Missing target
    Switching to RUN_TO_POSITION before any ``setTargetPosition`` throws
    ``TargetPositionNotSetException`` with the message "Failed to enable motor. You
    must set a target position before switching to RUN_TO_POSITION mode". The mode
    is recorded before the throw, so ``getMode()`` reports RUN_TO_POSITION while the
    hub has refused to enable the channel; each later ``setPower``, ``setVelocity``
    or ``setMotorEnable`` throws the same until a target has been sent.
Order
    ``setTargetPosition`` is accepted in every mode. ``setMode(RUN_TO_POSITION)``
    sends the last power again, so the motor moves at once, capped by that power.
Power
    In RUN_TO_POSITION ``setPower(p)`` sends ``abs(p)`` and ``getPower()`` returns
    ``abs(p)``; the hub caps the speed at ``abs(p) * maxTicksPerSecond``, with
    ``maxTicksPerSecond`` the configured type's
    ``getAchieveableMaxTicksPerSecondRounded()``. In RUN_USING_ENCODER ``setPower(p)``
    sends the velocity target ``(int)(direction * p * maxTicksPerSecond)``.
isBusy
    False in every mode except RUN_TO_POSITION, where it is "not at target" as the
    hub judges it for the target and tolerance it was sent. Not busy does not stop
    the motor: the hub goes on holding the target.
Tolerance
    5 ticks by default. ``setTargetPositionTolerance`` stores the value on the handle
    only; the next ``setTargetPosition`` carries it to the hub, so changing it alone
    changes nothing. A value outside [0, 65535] makes that ``setTargetPosition``
    throw ``IllegalArgumentException("illegal tolerance: N")``.
Direction
    REVERSE negates the target, the power and a velocity command when they are sent,
    and the position and the velocity when they are read. ``setDirection`` sends
    nothing: flipping it while the motor runs changes the readings, not the motion.
Encoder reset
    STOP_AND_RESET_ENCODER stops the shaft and zeroes the count. The last power is
    kept and sent again when the mode changes back.
Leaving RUN_TO_POSITION
    The mode change sends the cached power again, which is ``abs(p)`` with no
    direction: an arm switched straight to RUN_USING_ENCODER runs at that power in the
    positive raw direction.
setVelocity
    Switches to RUN_USING_ENCODER unless the mode is that or RUN_TO_POSITION, then
    sends ``round(direction * v)`` ticks/s clipped to +-32767. The ``AngleUnit``
    overload converts through the configured type's counts per revolution.
getVelocity
    Whole ticks per second (the hub reports an int); the ``AngleUnit`` overload
    converts that whole number, ``ticks / CPR * 360`` degrees.
PIDF
    ``setPIDFCoefficients`` on a mode that is not a PID mode throws
    ``IllegalArgumentException``. RUN_TO_POSITION with a non-zero I, D or F under the
    PIDF algorithm throws ``UnsupportedOperationException`` ("setting of pidf
    coefficents not supported: ...", the SDK's spelling) and changes nothing; the
    LegacyPID algorithm is exempt. The hub stores each gain as
    ``round(abs(c) * 65536) * sign(c)``, so the gains read back are quantized to
    1/65536. ``getPIDFCoefficients`` and ``getPIDCoefficients`` accept exactly
    RUN_USING_ENCODER and RUN_TO_POSITION. ``resetDeviceConfigurationForOpMode``
    restores the default gains.
Structure
    The position loop drives the velocity loop (a comment in
    ``LynxDcMotorController`` says the firmware runs a position loop that then runs
    a velocity loop).

Approximations (the firmware is not published; each is a named constant of
:class:`simcore.controllers.hub.FirmwareConstants`, overridable per hub):

Default velocity gains
    P 10, I 3, D 0, F 0 under PIDF: what teams read back from
    ``getPIDFCoefficients(RUN_USING_ENCODER)``; the SDK's goBILDA types declare none,
    so they come from the firmware.
Default position gain
    P 10 under PIDF: the SDK's Core Hex type declares it; not confirmed for other
    motors on current firmware.
Gain units
    An output of 32767 is full power; the velocity error is in ticks/s; position P
    gives ticks/s of velocity target per tick of error. The teams' rule
    ``F = 32767 / maxTicksPerSecond`` only works in these units.
Loop rate
    One pass every 10 ms (100 Hz); the I term adds ``I * error`` once a pass. Not
    published: chosen so that the default gains settle a velocity step in a few
    hundred ms with a little overshoot.
Integral wind-up
    The I term is clamped to full scale and cleared on every mode change, on a
    disabled channel and on an encoder reset. Not published.
Velocity measurement
    The loop sees the modelled shaft speed exactly; ``getVelocity()`` rounds it to
    the nearest whole tick/s (a real hub counts over a window, with lag and noise).
At-target test
    ``abs(target - count) <= tolerance``, on position only, with no speed condition:
    a motor passing through the target at speed reads not busy for that moment. The
    hub's test, and whether its boundary is inclusive, are not published.
Target memory
    A target once sent survives mode changes and encoder resets. Whether the
    firmware forgets it on a reset is not published.
Not modelled
    The SDK's 500 ms caches of power and enable: every command and every enable is
    sent, so where a robot repeating a power within 500 ms sends nothing, and would
    throw ``TargetPositionNotSetException`` one call later, the simulation throws at
    once. Bulk-cached ``isBusy()`` outside RUN_TO_POSITION (false here).

What follows from the approximations is approximate too: how long a move takes,
its overshoot, how far a loaded arm sags before the loop catches it, whether a
sluggish mechanism rings. The fake's figures: with the default gains a motor whose
unloaded acceleration is 12 free speeds per second reaches 98 % of a velocity step
in about 0.3 s with about 10 % overshoot; at 6 per second a RUN_TO_POSITION move
takes over a second to settle, and at 4 it still rings after 8 s.

The real-hub check (what to measure on one motor with an encoder, on a hub with
current firmware, logging at the bulk-read rate; compare with the same commands on
the simulator, ``python -m simcore.controllers.hub_check``):

1. Default gains: ``getPIDFCoefficients`` for RUN_USING_ENCODER and RUN_TO_POSITION
   on a freshly powered hub with a goBILDA type; expect 10/3/0/0 and 10/0/0/0.
2. Velocity step: unloaded, ``setVelocity(half the free speed)`` from rest; the time
   to 98 %, the peak overshoot and the steady error (checks gain units and loop rate
   together).
3. Feedforward units: P = I = D = 0, F = 32767 / free speed, ``setVelocity(half)``;
   settling at half speed confirms the output units.
4. Position step: unloaded, ``setTargetPosition(2000)``, RUN_TO_POSITION, power 1.0;
   position and ``isBusy()`` every loop: time to first not busy, peak overshoot in
   ticks, whether ``isBusy()`` flickers through the target; again at power 0.3, the
   peak speed against 0.3 of free speed.
5. Holding under load: an arm held level in RUN_TO_POSITION; the steady error, the
   current against holding it open loop, the time to return after a push.
6. Tolerance boundary: at power 0 in RUN_TO_POSITION (the hub holds still), a target
   exactly 5 ticks from the position with tolerance 5; ``isBusy()`` false means the
   boundary is inclusive, as assumed.
7. Target after reset: reach a target, STOP_AND_RESET_ENCODER, then RUN_TO_POSITION
   without a new ``setTargetPosition``; a ``TargetPositionNotSetException`` would
   mean the firmware forgets its target on a reset.

Record the date, firmware version and motor with each result, beside the constant
it confirms or replaces.


WPILib's simulation
===================

From allwpilib (2026 branch; ``wpimath`` and ``wpilibj/simulation``):

* ``LinearSystemSim.update(dt)`` discretizes exactly (the matrix exponential of
  ``[[A, B], [0, 0]] dt``), adds noise to the outputs only, and scales the input
  down to the battery voltage.
* Plants (``LinearSystemId``): a motor, flywheel or arm has ``A = -G² Kt / (Kv R J)``
  and ``B = G Kt / (R J)``; an elevator ``A = -G² Kt / (R r² m Kv)``,
  ``B = G Kt / (R r m)``; the drivetrain's velocity plant uses
  ``C1 = -G² Kt / (Kv R r²)``, ``C2 = G Kt / (R r)``, ``C3 = 1/m + rb²/J``,
  ``C4 = 1/m - rb²/J``.
* ``SingleJointedArmSim``: the state is the angle from horizontal and its rate;
  gravity is ``-(3/2) g cos(angle) / L``, a uniform rod pivoting at its end whatever
  moment of inertia is passed; ``estimateMOI`` is ``m L² / 3``.
* ``ElevatorSim``: gravity -9.8 m/s²; after each step a position at or past a limit
  becomes ``[limit, 0]`` (the impact's time is not located).
* ``DifferentialDrivetrainSim``: seven states ``[x, y, heading, vL, vR, pL, pR]``.
* The arm, elevator and drivetrain simulations integrate with an adaptive
  Dormand-Prince method (``rkdp``, error bound 1e-6, input held over ``dt``). In the
  2026 release its loop advanced the time by the step it proposed next instead of
  the step it took (fixed after the release, allwpilib PR #9171); a 10 ms 12 V step
  of a 775Pro arm is then about 0.2 % off the exact solution.
* The simulated current is ``|I| * sign(V)``, zero at 0 V even while back-EMF drives
  current (allwpilib issue #8706).
* ``BatterySim``: ``V = max(0, 12 - 0.02 ohm * sum(I))``, fed the stator currents
  (whether the supply current, duty times stator current, is meant is an open
  discussion).
* Asked for and not there: static friction kS (issues #4233, #5487), coast mode
  (#3056), current limits (a vendor feature), hard-stop detection (#4566, #5057),
  tilted gravity (#7559), a swerve simulation.
* Vendor devices: CTRE's Talon FX closes its loop at 1 kHz on the device; REV's SPARK
  smart current limit scales the duty by limit / current.


Sampled-data simulation
=======================

* A periodic callback should land the integrator exactly on each tick, at times
  computed as ``t0 + phase + k dt`` and never accumulated (DiffEqCallbacks.jl's
  ``PeriodicCallback``); floats drift otherwise (``0.05 * 3 != 0.01 * 15``), so
  simcore keeps tick times as integer nanoseconds and groups simultaneous ticks by
  integer equality.
* RigidBodySim.jl's ``PeriodicController`` is a zero-order hold called at ``t0`` and
  at each tick with the state at that tick; its documented example runs a 200 Hz
  controller for 5 s and counts 1001 calls (both ends included), which simcore's
  clock reproduces.
* Drake: a discrete update at a sample time sees the state just before it (``x-``);
  the integrator never steps past the next event time; witness functions trigger on
  the half-open interval ``(t0, t1]``, so restarting at a root does not trigger again.
* scipy's ``solve_ivp`` locates events by root finding on the dense output; a
  terminal event restarted from its root fires again at once unless it has a
  direction; its per-call overhead is large (scipy issue #8257), so simcore drives an
  ``OdeSolver`` directly and carries the step size across ticks.
* python-control's ``input_output_response`` interpolates inputs linearly (a
  first-order hold) and cannot mix continuous plants with discrete controllers;
  motulator and bdsim run one ``solve_ivp`` per interval between controller ticks.


Other simulators
================

* pyfrc (``robotpy/pyfrc``, the physics documentation): ``physics.py`` defines
  ``PhysicsEngine(physics_controller, robot)`` with ``update_sim(now, tm_diff)``; its
  ``TankModel`` is characterized by ``kv``, ``ka`` and ``vintercept`` per side, its
  rotation ``omega = (x_wheelbase / 2) m (vR - vL) / J`` with
  ``J = m (length² + width²) / 12``.
* YAMS (its ``SimSupplier`` interface): a mechanism's and its rotor's position,
  velocity and acceleration, stator and supply current, supply voltage; its supply
  current is a single-pole filter (time constant 0.1 s) of duty times stator current;
  battery 12 V, 20 mOhm.
* pypolo: a robot is a discrete ``step(state, action)``.
* virtual_robot (FTC): the motor is a normalised first-order lag; RUN_USING_ENCODER
  behaves as RUN_WITHOUT_ENCODER; PIDF and tolerance are stubs.
* Swerve in FRC: maple-sim (a dyn4j rigid body, five 4 ms sub-ticks, grip per module
  ``mu m g / n`` with ``mu`` about 1.2, drive force clipped to grip, skidding); CTRE's
  ``SimSwerveDrivetrain`` has no slip; AdvantageKit's templates use a ``DCMotorSim``
  per module.
"""

__all__: list = []
