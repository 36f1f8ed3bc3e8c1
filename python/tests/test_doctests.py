"""The docstring examples of the installed package run as doctests."""
import doctest
import inspect

import pytest

import qrenyi
from qrenyi import _result, kernel, privacy, smooth, verify

OBJECTS = {
    "qrenyi": qrenyi,
    "qrenyi.divergence": qrenyi.divergence,
    "qrenyi.validate": qrenyi.validate,
    "qrenyi.Pair": qrenyi.Pair,
    "qrenyi.State": qrenyi.State,
    "qrenyi.privacy": privacy,
    "qrenyi.verify": verify,
    "qrenyi.kernel": kernel,
    "qrenyi.smooth": smooth,
    "qrenyi._result": _result,
}


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_doctests(name):
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    obj = OBJECTS[name]
    # a module's examples run in its namespace; a compiled function's with `qrenyi` imported
    globs = None if inspect.ismodule(obj) else {"qrenyi": qrenyi}
    tests = finder.find(obj, name, globs=globs)
    examples = 0
    for t in tests:
        examples += len(t.examples)
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert examples > 0, f"{name} has no examples"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
