"""Comparisons with PyTorch shared by the torch test files."""

import numpy as np
import torch
import torch.nn.functional as F


def interpolate_and_gradient(x, weights, kwargs):
    """F.interpolate(x, **kwargs) and the gradient of its dot product with `weights`."""
    x.grad = None
    y = F.interpolate(x, **kwargs)
    (y * weights).sum().backward()
    return y.detach(), x.grad.clone()


def assert_close_to_pytorch(ours, theirs, m, dtype=torch.float32):
    """Close to PyTorch's result. PyTorch computes the weights in float32 (the library in float64,
    within the contract's 1e-5*m of the exact result): at ratios like 1/0.37 its own error
    reaches 1.7e-5*m, so the two may differ by more than the contract's bound."""
    ours = ours.double().numpy()
    theirs = theirs.double().numpy()
    if dtype == torch.float32:
        bound = 5e-5 * m + 1e-30
    else:  # both rounded to 16 bits: each within an ulp of the exact value
        eps = 2.0 ** (-10 if dtype == torch.float16 else -7)
        bound = 2 * eps * np.abs(theirs) + 5e-5 * m + 1e-6
    assert np.all(np.abs(ours - theirs) <= bound), np.max(np.abs(ours - theirs) - bound)
