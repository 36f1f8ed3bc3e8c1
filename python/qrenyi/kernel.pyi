from typing import Literal, Optional, Tuple, Union

import numpy.typing as npt

from ._qrenyi import BaseName
from ._result import Result

def divergence(x: npt.ArrayLike, y: npt.ArrayLike, alpha: float, lam: float, *, bandwidth: Union[str, float] = "median", kernel: Literal["rbf", "laplace", "imq"] = "rbf", base: BaseName = "e") -> Result: ...
def audit(x: npt.ArrayLike, y: npt.ArrayLike, alpha: float, lam: Union[float, Literal["auto"]], *, epsilon: Optional[float] = None, delta: Optional[float] = None, rdp_tau: Optional[float] = None, tau: Optional[float] = None, bandwidth: Union[str, float] = "median", pilot: Optional[Tuple[npt.ArrayLike, npt.ArrayLike]] = None, kernel: Literal["rbf", "laplace", "imq"] = "rbf", level: float = 0.05, method: Literal["finite-sample", "subsample", "bootstrap"] = "finite-sample", replicates: int = 200, fraction: float = 0.5, seed: int = 0) -> Result: ...
def dp_lambda(epsilon: float, delta: float) -> float: ...
