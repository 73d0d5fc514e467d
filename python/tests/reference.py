"""An independent float64 reference of the contract (shared/spec/OPERATORS.md, section 1), and
the contract's tolerance check (section 4)."""

import math

import numpy as np


def _ratio(in_size, out_size, align_corners, scale, bilinear):
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if scale > 0 and (not bilinear or (out_size == math.floor(in_size * scale)
                                       and 1.0 / scale >= 0.01)):
        return 1.0 / scale
    return in_size / out_size


def bilinear_matrix(in_size, out_size, align_corners=False, scale=0.0):
    """A (out x in): one row per output index, the forward's two taps (contract 1.1, 1.3)."""
    a = np.zeros((out_size, in_size))
    if in_size == out_size:
        return np.eye(in_size)
    s = _ratio(in_size, out_size, align_corners, scale, bilinear=True)
    for o in range(out_size):
        src = o * s if align_corners else max(0.0, (o + 0.5) * s - 0.5)
        i0 = min(int(math.floor(src)), in_size - 1)
        i1 = i0 + 1 if i0 < in_size - 1 else i0
        l1 = min(max(src - i0, 0.0), 1.0)
        a[o, i0] += 1.0 - l1
        a[o, i1] += l1
    return a


def _cubic(d, a=-0.5):
    d = abs(d)
    if d <= 1:
        return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
    if d < 2:
        return a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a
    return 0.0


def bicubic_aa_matrix(in_size, out_size, align_corners=False, scale=0.0):
    """A (out x in) of PIL's / PyTorch's antialiased cubic filter (contract 1.2)."""
    s = _ratio(in_size, out_size, align_corners, scale, bilinear=False)
    support = 2 * s if s >= 1 else 2.0
    invscale = 1 / s if s >= 1 else 1.0
    a = np.zeros((out_size, in_size))
    for o in range(out_size):
        center = s * (o + 0.5)
        imin = max(int(center - support + 0.5), 0)
        imax = min(int(center + support + 0.5), in_size)
        w = np.array([_cubic((i - center + 0.5) * invscale) for i in range(imin, imax)])
        total = w.sum()
        a[o, imin:imax] = w / total if total != 0 else 0.0
    return a


MATRICES = {"bilinear": bilinear_matrix, "bicubic_aa": bicubic_aa_matrix}


def _axis_matrices(op, in_hw, out_hw, align_corners, scales_h, scales_w):
    return (MATRICES[op](in_hw[0], out_hw[0], align_corners, scales_h),
            MATRICES[op](in_hw[1], out_hw[1], align_corners, scales_w))


def reference(op, grad_nchw, input_size, align_corners=False, scales_h=0.0, scales_w=0.0):
    """The backward: (r, m), the float64 result and the sum of the magnitudes of its terms,
    NCHW."""
    g = np.asarray(grad_nchw, dtype=np.float64)
    a_h, a_w = _axis_matrices(op, input_size[2:], g.shape[2:], align_corners, scales_h, scales_w)
    r = a_h.T @ g @ a_w
    m = np.abs(a_h).T @ np.abs(g) @ np.abs(a_w)
    return r, m


def forward_reference(op, x_nchw, output_size, align_corners=False, scales_h=0.0, scales_w=0.0):
    """The forward, y = A_H x A_W^T with the backward's matrices: (r, m) as for reference()."""
    x = np.asarray(x_nchw, dtype=np.float64)
    a_h, a_w = _axis_matrices(op, x.shape[2:], output_size, align_corners, scales_h, scales_w)
    r = a_h @ x @ a_w.T
    m = np.abs(a_h) @ np.abs(x) @ np.abs(a_w).T
    return r, m


def ulp(values, dtype):
    """One unit in the last place of `values` in `dtype` (float32, float16 or 'bfloat16')."""
    values = np.abs(np.asarray(values, dtype=np.float64))
    if dtype == "bfloat16":
        # 8 significant bits; bfloat16 has float32's exponent range.
        exponent = np.floor(np.log2(np.maximum(values, np.finfo(np.float32).tiny)))
        return np.exp2(exponent - 7)
    return np.spacing(values.astype(dtype)).astype(np.float64)


def assert_within_contract(result, r, m, dtype="float32"):
    """float32 within 1e-5*m of r; 16-bit within one ulp of r plus that (contract 4)."""
    result = np.asarray(result, dtype=np.float64)
    bound = 1e-5 * m + (0.0 if dtype == "float32" else ulp(r, dtype)) + 1e-30
    excess = np.abs(result - r) - bound
    worst = np.unravel_index(np.argmax(excess), excess.shape)
    assert excess[worst] <= 0, (
        f"element {worst}: expected {r[worst]!r} within {bound[worst]!r}, got {result[worst]!r}")
