"""An adaptive solver: the annotation names the package's re-export of ``torch.Tensor``, the error estimate is read
back in another module, and the solver's own ``step`` is no optimizer step."""
import torch

from ..types import Tensor
from ..utils.checks import error_ratio


class Solver:
    def step(self, t0, t1, y):
        raise NotImplementedError

    def integrate(self, y0: Tensor, ts: Tensor, dt: float):
        curr_t, curr_y = ts[0], y0
        ys = [y0]
        for out_t in ts[1:]:
            while curr_t < out_t:
                next_t = torch.minimum(curr_t + dt, out_t)
                y_full = self.step(curr_t, next_t, curr_y)
                y_half = self.step(curr_t, next_t, curr_y * 0.5)
                if error_ratio(y_full, y_half, 1e-3) <= 1:
                    curr_t, curr_y = next_t, y_half
                dt = dt * 0.9
            ys.append(curr_y)
        return ys
