"""Systems shared by the engine and event tests."""
import numpy as np

from simcore import StateEvent, System


class FreeFall(System):
    def __init__(self, h0=1.0, e=None):
        super().__init__("ball", ["h", "v"], [], ["energy"], {"h": "m", "v": "m/s"})
        self.h0, self.e = h0, e

    def initial_state(self):
        return np.array([self.h0, 0.0])

    def derivatives(self, t, x, u):
        return np.array([x[1], -9.81])

    def outputs(self, t, x, u):
        return (9.81 * x[0] + 0.5 * x[1] ** 2,)

    def events(self):
        if self.e is None:
            return []
        return [StateEvent(lambda t, x, u: x[0], direction=-1,
                           reset=lambda t, x, u: np.array([0.0, -self.e * x[1]]), name="bounce")]
