"""The kernel's Dormand-Prince and root finder against scipy's, and the first-order motor against its analytic step."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

import simcore
import simcore.models as models
from simcore.models.motors import NEO


def _flywheel_table():
    from simcore.kernel.parts import KIND_GEARED

    fw = models.Flywheel(NEO, 2.0, 0.01, viscous_friction=0.0)
    kind, p, _ = fw.kernel_form()
    table = np.array([[kind, 0, 2, 0, 0]], dtype=np.int64)
    return fw, table, p


def test_first_order_motor_step_equals_the_analytic_solution_and_scipy():
    fw = models.Flywheel(NEO, 2.0, 0.01, viscous_friction=0.0)
    sim = simcore.Simulator(fw, inputs={"flywheel.voltage": 12.0}, method="RK45", rtol=1e-10, atol=1e-12)
    assert sim._compiled is not None
    r = sim.run_until(0.5).result()
    d = fw.drive
    # J dw/dt = G Kt (V - G w / Kv) / R: w(t) = w_inf (1 - exp(-t / tau)).
    G, J = 2.0, 0.01
    w_inf = 12.0 * d.Kv / G
    tau = J * d.R * d.Kv / (G * G * d.Kt)
    exact = w_inf * (1 - np.exp(-r.t / tau))
    assert np.allclose(r["flywheel.velocity"], exact, rtol=1e-8, atol=1e-9)
    ref = solve_ivp(lambda t, x: fw.derivatives(t, x, np.array([12.0, 1.0, 12.0])), (0.0, 0.5), [0.0, 0.0],
                    method="RK45", rtol=1e-10, atol=1e-12)
    # The same algorithm and step control: the same number of steps, the same end to the tolerance.
    assert len(ref.t) == len(r.t)
    assert r.final("flywheel.velocity") == pytest.approx(ref.y[1, -1], rel=1e-12)


@pytest.mark.parametrize("v0", [3.0, -7.5, 123.0])
def test_brent_root_on_the_dense_output_is_scipys_brentq(v0):
    from simcore.kernel import dopri5, events, geared

    fw, table, p = _flywheel_table()
    U = np.array([-12.0, 1.0, 12.0]) if v0 > 0 else np.array([12.0, 1.0, 12.0])
    modes = np.zeros(1, dtype=np.int64)
    y = np.array([0.0, v0])
    K = np.empty((7, 2))
    y_new = np.empty(2)
    dopri5.derivatives(table, p, U, modes, 0.0, y, K[0])
    h = 0.2
    dopri5.attempt(table, p, U, modes, 0.0, h, y, K, y_new, 1e-3, 1e-6, np.empty(2), np.empty(2))
    Q = np.empty((4, 2))
    dopri5.dense_coefficients(K, Q)

    def g(s):  # the velocity guard on scipy's quartic interpolant, written out here
        x = s / h
        return y[1] + h * (((Q[0, 1] * x + Q[1, 1] * x ** 2) + Q[2, 1] * x ** 3) + Q[3, 1] * x ** 4)

    g_a, g_b = g(0.0), g(h)
    assert g_a * g_b < 0, "the step should carry the velocity through zero"
    expected = brentq(g, 0.0, h, xtol=1e-13, rtol=4 * np.finfo(float).eps)
    got = events.brent_root(table, p, U, modes, 0, geared.GUARD_VELOCITY, 0.0, h, y, Q, 0.0, g_a, h, g_b, 1e-13,
                            np.empty(2))
    assert got == expected


def _electrical_reference(w, command, brake, vb, R, Kv, ls, lp, duty):
    """The drive's law as written in Python before the kernel (simcore 31b1011's MotorDrive.electrical),
    kept here as an independent reference: brake and coast at neutral, the bus clamp, the projection of
    the request onto what the stator and supply limits allow, the duty of a dead bus as a limit."""
    def limited(v_req, emf, vb):
        lo, hi = -vb, vb
        if ls != math.inf:
            wlo, whi = emf - ls * R, emf + ls * R
            if wlo <= hi and whi >= lo:
                lo, hi = max(lo, wlo), min(hi, whi)
            else:
                lo = hi = (hi if wlo > hi else lo)
        intervals = ((lo, hi),)
        if lp != math.inf and vb > 0.0:
            c = lp * R * vb
            root = math.sqrt(emf * emf + 4.0 * c)
            r1, r2 = (emf - root) / 2.0, (emf + root) / 2.0
            if emf * emf > 4.0 * c:
                gap = math.sqrt(emf * emf - 4.0 * c)
                supply = ((r1, (emf - gap) / 2.0), ((emf + gap) / 2.0, r2))
            else:
                supply = ((r1, r2),)
            both = tuple((max(a, lo), min(b, hi)) for a, b in supply if max(a, lo) <= min(b, hi))
            if both:
                intervals = both
        best = None
        for a, b in intervals:
            p = min(max(v_req, a), b)
            if best is None or abs(p - v_req) < abs(best - v_req):
                best = p
        return best

    emf = w / Kv
    vb = vb if vb > 0.0 else 0.0
    if command == 0.0:
        if brake >= 0.5:
            return (0.0, -emf / R, 0.0, 0.0, 0.0)
        if emf > vb:
            i = (vb - emf) / R
            return (vb, i, i, 0.0, 0.0)
        if emf < -vb:
            i = (-vb - emf) / R
            return (-vb, i, -i, 0.0, 0.0)
        return (emf, 0.0, 0.0, 0.0, 0.0)
    v_req = command * vb if duty else command
    saturated = 1.0 if (v_req > vb or v_req < -vb) else 0.0
    clamped = min(max(v_req, -vb), vb)
    if ls != math.inf or lp != math.inf:
        v = limited(v_req, emf, vb)
        lim = 1.0 if v != clamped else 0.0
    else:
        v, lim = clamped, 0.0
    i = (v - emf) / R
    if vb > 0.0:
        d = v / vb
    else:
        d = limited(command * 1e-9 if duty else v_req, emf, 1e-9) / 1e-9
    return (v, i, d * i, saturated, lim)


@pytest.mark.parametrize("duty", [False, True])
@pytest.mark.parametrize("limits", [(None, None), (40.0, None), (None, 30.0), (40.0, 30.0)])
def test_the_kernel_motor_drive_law_is_the_python_law_it_replaced(duty, limits):
    from simcore.models.drive import MotorDrive

    d = MotorDrive(NEO, 10.0, stator_current_limit=limits[0], supply_current_limit=limits[1],
                   command="duty" if duty else "voltage", neutral_mode="coast")
    rng = np.random.default_rng(7)
    cases = [(w, c, b, vb) for w in (0.0, 300.0, -450.0, 700.0) for c in (0.0, 0.3, -1.0, 1.2, 6.0, -14.0)
             for b in (0.0, 1.0) for vb in (12.0, 0.0, 3.0)]
    cases += [tuple(x) for x in rng.uniform(-600, 600, (50, 4)) * [1, 0.02, 0.002, 0.02]]
    for w, c, b, vb in cases:
        ref = _electrical_reference(w, c, b, vb, d.R, d.Kv, d.stator_current_limit, d.supply_current_limit, duty)
        assert tuple(d.electrical(w, c, b, vb)) == ref, (w, c, b, vb)


def test_limited_and_coasting_currents_are_the_physical_ones():
    from simcore.models.drive import MotorDrive

    d = MotorDrive(NEO, 10.0, stator_current_limit=40, supply_current_limit=30, command="duty")
    # The stator limit caps |v - E| at I_s R.
    e = d.electrical(0.0, 1.0, 1.0, 12.0)
    assert e.stator_current == pytest.approx(40.0, rel=1e-12)
    assert e.current_limited == 1.0
    # Coast with back-EMF above the bus: the diodes clamp to the bus, current flows back into it.
    emf = 14.0
    c = MotorDrive(NEO, 10.0, neutral_mode="coast").electrical(emf * NEO.Kv, 0.0, 0.0, 12.0)
    assert c.applied_voltage == 12.0 and c.stator_current == pytest.approx((12.0 - emf) / NEO.R, rel=1e-12)
