"""Linear-quadratic regulator gains, continuous or discrete, and Bryson's rule.

For the plant ``dx/dt = A x + B u`` the regulator ``u = K (r - x)`` minimises
``integral(x'Qx + u'Ru) dt`` (continuous) or, with a sample time ``dt``, the sum
``sum(x_k'Q x_k + u_k'R u_k)`` for the plant discretized exactly with a zero-order
hold (the input held constant over each period). The discrete form is what
WPILib's ``LinearQuadraticRegulator`` computes (``edu/wpi/first/math/controller``,
v2025.3.2: ``Discretization.discretizeAB`` then the DARE, ``K = (Bd'S Bd + R)^-1
Bd'S Ad``; ``calculate(x)`` returns ``K (r - x)``) and is the right one for a
controller running at a fixed period; the continuous form is the textbook limit.

:func:`bryson` builds WPILib's ``StateSpaceUtil.makeCostMatrix``: ``diag(1 /
max_i^2)``, an infinite tolerance costing nothing.

Riccati equations are solved by :func:`scipy.linalg.solve_continuous_are` and
:func:`scipy.linalg.solve_discrete_are`; a pair that cannot be stabilized, or a
solution whose closed loop is not asymptotically stable (a mode on the stability
boundary that ``Q`` does not see), raises ``ConfigError`` as WPILib does.
"""
from __future__ import annotations

__all__ = ["lqr", "discretize", "bryson", "LinearQuadraticRegulator"]

import numpy as np
import scipy.linalg

from simcore import checks
from simcore.errors import ConfigError


def _matrix(name: str, value, shape=None) -> np.ndarray:
    m = np.atleast_2d(checks.finite(name, value, allow_array=True))  # strings and bools refused
    if m.ndim != 2:
        raise ConfigError(name, value, "a 2-D matrix")
    if shape is not None and m.shape != shape:
        raise ConfigError(name, value, f"a matrix of shape {shape}")
    return m


def _check_plant(A, B):
    A = _matrix("A", A)
    n = A.shape[0]
    if A.shape != (n, n):
        raise ConfigError("A", A, "a square matrix")
    B = np.asarray(checks.finite("B", B, allow_array=True))
    if B.ndim == 1 and B.shape == (n,):
        B = B.reshape(n, 1)  # a single-input plant given as a vector
    B = _matrix("B", B)
    if B.shape[0] != n:
        raise ConfigError("B", B, f"a matrix with {n} rows (one per state)")
    return A, B


def _check_costs(Q, R, n, m):
    Q = _matrix("Q", Q, (n, n))
    R = _matrix("R", R, (m, m))
    if not np.allclose(Q, Q.T, rtol=1e-10, atol=1e-12):
        raise ConfigError("Q", Q, "a symmetric matrix")
    if not np.allclose(R, R.T, rtol=1e-10, atol=1e-12):
        raise ConfigError("R", R, "a symmetric matrix")
    if np.min(np.linalg.eigvalsh(Q)) < -1e-12 * max(1.0, np.max(np.abs(Q))):
        raise ConfigError("Q", Q, "a positive semi-definite matrix")
    if np.min(np.linalg.eigvalsh(R)) <= 0.0:
        raise ConfigError("R", R, "a positive definite matrix")
    return Q, R


def discretize(A, B, dt: float):
    """Exact zero-order-hold discretization of ``dx/dt = A x + B u``.

    ``Ad = expm(A dt)`` and ``Bd = integral_0^dt expm(A s) ds B``, both read off
    one matrix exponential of ``[[A, B], [0, 0]] * dt`` (Van Loan's method).

    Parameters
    ----------
    A : array_like, shape (n, n)
        System matrix, 1/s.
    B : array_like, shape (n, m)
        Input matrix, state units per (input unit * s).
    dt : float
        Sample period, s. Positive.

    Returns
    -------
    Ad : ndarray, shape (n, n)
    Bd : ndarray, shape (n, m)
    """
    A, B = _check_plant(A, B)
    dt = checks.positive("dt", dt, "s", what="period")
    n, m = B.shape
    block = np.zeros((n + m, n + m))
    block[:n, :n] = A
    block[:n, n:] = B
    phi = scipy.linalg.expm(block * dt)
    return phi[:n, :n], phi[:n, n:]


def lqr(A, B, Q, R, *, dt: float | None = None) -> np.ndarray:
    """Optimal state-feedback gain ``K`` for ``u = -K x`` (or ``K (r - x)``).

    Parameters
    ----------
    A : array_like, shape (n, n)
        Continuous-time system matrix, 1/s.
    B : array_like, shape (n, m) or (n,)
        Continuous-time input matrix.
    Q : array_like, shape (n, n)
        State cost, symmetric positive semi-definite (1 / state units^2).
    R : array_like, shape (m, m)
        Input cost, symmetric positive definite (1 / input units^2).
    dt : float, optional
        Controller period, s. If given, the plant is discretized exactly with a
        zero-order hold and the discrete Riccati equation is solved; otherwise the
        continuous one.

    Returns
    -------
    ndarray, shape (m, n)
        The gain ``K``: continuous ``R^-1 B' P`` with ``A'P + PA - PBR^-1B'P + Q =
        0``; discrete ``(Bd'P Bd + R)^-1 Bd'P Ad`` with the DARE's ``P``.

    Raises
    ------
    ConfigError
        Bad shapes or costs, a non-stabilizable plant, or no stabilizing solution.
    """
    A, B = _check_plant(A, B)
    n, m = B.shape
    Q, R = _check_costs(Q, R, n, m)
    try:
        if dt is None:
            P = scipy.linalg.solve_continuous_are(A, B, Q, R)
            K = np.linalg.solve(R, B.T @ P)
            poles = np.linalg.eigvals(A - B @ K)
            stable = bool(np.all(poles.real < 0.0))
        else:
            Ad, Bd = discretize(A, B, dt)
            P = scipy.linalg.solve_discrete_are(Ad, Bd, Q, R)
            K = np.linalg.solve(Bd.T @ P @ Bd + R, Bd.T @ P @ Ad)
            poles = np.linalg.eigvals(Ad - Bd @ K)
            stable = bool(np.all(np.abs(poles) < 1.0))
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise ConfigError("(A, B, Q)", (A.tolist(), B.tolist(), Q.tolist()),
                          f"a stabilizable plant with (A, Q) detectable ({exc})") from None
    if not stable or not np.all(np.isfinite(K)):
        raise ConfigError("(A, B, Q)", (A.tolist(), B.tolist(), Q.tolist()),
                          "a stabilizable plant with (A, Q) detectable (the Riccati "
                          f"solution leaves closed-loop poles {poles.tolist()})")
    return K


def bryson(max_values) -> np.ndarray:
    """Bryson's rule: the diagonal cost matrix ``diag(1 / max_i^2)``.

    Parameters
    ----------
    max_values : sequence of float
        Largest acceptable excursion of each state (for ``Q``) or input (for
        ``R``), in that state's or input's units. Positive; ``math.inf`` gives a
        zero cost (the quantity is not penalised).

    Returns
    -------
    ndarray, shape (k, k)
    """
    values = np.atleast_1d(checks.number("max_values", max_values, allow_inf=True, allow_array=True))
    if values.ndim != 1 or np.any(values <= 0.0):
        raise ConfigError("max_values", max_values, "positive tolerances (math.inf allowed)")
    with np.errstate(divide="ignore"):
        return np.diag(np.where(np.isinf(values), 0.0, 1.0 / values**2))


def _vector(name: str, value, shape) -> np.ndarray:
    v = np.asarray(checks.finite(name, value, allow_array=True), dtype=float)
    if v.size != int(np.prod(shape)):
        raise ConfigError(name, value, f"{shape[0]} values (one per state)")
    return v.reshape(shape)


class LinearQuadraticRegulator:
    """State feedback ``u = K (r - x)`` with an LQR gain (see :func:`lqr`).

    Parameters
    ----------
    A, B, Q, R : array_like
        Continuous-time plant and costs, as for :func:`lqr`.
    dt : float, optional
        Controller period, s; gives the discrete (WPILib) gain when set.

    Attributes
    ----------
    K : ndarray, shape (m, n)
        The gain.
    r : ndarray, shape (n,)
        The current reference (zero initially).
    u : ndarray, shape (m,)
        The last output.
    """

    def __init__(self, A, B, Q, R, *, dt: float | None = None):
        self.K = lqr(A, B, Q, R, dt=dt)
        self.dt = None if dt is None else float(dt)
        m, n = self.K.shape
        self.r = np.zeros(n)
        self.u = np.zeros(m)

    def reset(self) -> None:
        """Zero the reference and the output."""
        self.r = np.zeros_like(self.r)
        self.u = np.zeros_like(self.u)

    def calculate(self, x, r=None) -> np.ndarray:
        """Return ``K (r - x)``.

        Parameters
        ----------
        x : array_like, shape (n,)
            Current state.
        r : array_like, shape (n,), optional
            New reference; if omitted the current one is kept.

        Returns
        -------
        ndarray, shape (m,)
        """
        if r is not None:
            self.r = _vector("r", r, self.r.shape)
        x = _vector("x", x, self.r.shape)
        self.u = self.K @ (self.r - x)
        return self.u
