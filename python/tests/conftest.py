"""Fixtures shared by the test files."""

import pytest

import aclnn_upsample as au


@pytest.fixture
def library_calls(monkeypatch):
    """The calls that reach the library: the names of the table rows they run (or judge), in
    order."""
    names = [row["name"] for row in au._core.operators()]
    calls = []
    for binding in ("run", "run_raw"):
        def recording(op, *args, _original=getattr(au._core, binding)):
            calls.append(names[op])
            return _original(op, *args)

        monkeypatch.setattr(au._core, binding, recording)
    return calls


@pytest.fixture
def routing_off():
    """PyTorch's own kernels before and after the test, whatever it enabled."""
    import aclnn_upsample.torch as aut

    aut.disable()
    yield
    aut.disable()
