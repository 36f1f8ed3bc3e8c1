from typing import Any, Dict, List, Literal, Optional, Sequence, Union, overload

import numpy.typing as npt

from ._qrenyi import BaseName, MatrixLike
from ._result import Result

class SmoothResult(Result):
    value: float
    lower: float
    upper: float
    kind: str
    epsilon: float
    ball: Optional[str]
    alpha: Optional[float]
    base: str
    @property
    def width(self) -> float: ...

def hypothesis_testing(rho: MatrixLike, sigma: MatrixLike, epsilon: float, *, base: BaseName = "e") -> SmoothResult: ...
def dmax(rho: MatrixLike, sigma: MatrixLike, epsilon: float, *, ball: Literal["purified", "trace", "trace-unbounded"] = "purified", base: BaseName = "e") -> SmoothResult: ...
@overload
def smooth_renyi(p: npt.ArrayLike, q: npt.ArrayLike, delta: float, alpha: float, *, base: BaseName = "e") -> SmoothResult: ...
@overload
def smooth_renyi(p: npt.ArrayLike, q: npt.ArrayLike, delta: float, alpha: Sequence[float], *, base: BaseName = "e") -> List[SmoothResult]: ...
