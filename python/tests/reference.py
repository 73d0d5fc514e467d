"""An independent float64 reference of the contract (shared/spec/OPERATORS.md, section 1, and
for the modes added by issue 15 PyTorch's ATen numerics as docs/ops states them), and the
contract's tolerance check (section 4)."""

import math

import numpy as np


def _ratio(in_size, out_size, align_corners, scale, consistent_scales):
    """in/out per output step (contract 1.3): with consistent_scales (the bilinear operators but
    V1), a scale counts only when output == floor(input * scale) and 1/scale >= 0.01."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if scale > 0 and (not consistent_scales or (out_size == math.floor(in_size * scale)
                                                and 1.0 / scale >= 0.01)):
        return 1.0 / scale
    return in_size / out_size


def bilinear_matrix(in_size, out_size, align_corners=False, scale=0.0, consistent_scales=True):
    """A (out x in): one row per output index, the forward's two taps (contract 1.1, 1.3);
    consistent_scales=False is V1's rule (PyTorch's: a positive scale is used as given)."""
    a = np.zeros((out_size, in_size))
    if in_size == out_size:
        return np.eye(in_size)
    s = _ratio(in_size, out_size, align_corners, scale, consistent_scales)
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


def _triangle(d):
    return max(0.0, 1.0 - abs(d))


def _antialias_matrix(in_size, out_size, align_corners, scale, kernel, half_width):
    """A (out x in) of PIL's / PyTorch's antialiased filters: `kernel` stretched by the ratio
    when downscaling, each row normalised to sum 1 (contract 1.2)."""
    s = _ratio(in_size, out_size, align_corners, scale, consistent_scales=False)
    support = half_width * s if s >= 1 else float(half_width)
    invscale = 1 / s if s >= 1 else 1.0
    a = np.zeros((out_size, in_size))
    for o in range(out_size):
        center = s * (o + 0.5)
        imin = max(int(center - support + 0.5), 0)
        imax = min(int(center + support + 0.5), in_size)
        w = np.array([kernel((i - center + 0.5) * invscale) for i in range(imin, imax)])
        total = w.sum()
        a[o, imin:imax] = w / total if total != 0 else 0.0
    return a


def bicubic_aa_matrix(in_size, out_size, align_corners=False, scale=0.0,
                      consistent_scales=False):
    """A (out x in) of the antialiased cubic filter (Keys a = -0.5, half-width 2)."""
    return _antialias_matrix(in_size, out_size, align_corners, scale, _cubic, 2)


def bilinear_aa_matrix(in_size, out_size, align_corners=False, scale=0.0,
                       consistent_scales=False):
    """A (out x in) of the antialiased linear filter (the triangle, half-width 1)."""
    return _antialias_matrix(in_size, out_size, align_corners, scale, _triangle, 1)


def bicubic_matrix(in_size, out_size, align_corners=False, scale=0.0, consistent_scales=False):
    """A (out x in) of PyTorch's upsample_bicubic2d: four Keys taps (a = -0.75) around the
    unclamped source position, indices clamped to the edge and taps on one index summed."""
    s = _ratio(in_size, out_size, align_corners, scale, consistent_scales=False)
    a = np.zeros((out_size, in_size))
    for o in range(out_size):
        real = s * o if align_corners else s * (o + 0.5) - 0.5
        i0 = min(math.floor(real), in_size - 1)
        t = min(max(real - i0, 0.0), 1.0)
        for k, distance in enumerate((t + 1, t, 1 - t, 2 - t)):
            a[o, min(max(i0 - 1 + k, 0), in_size - 1)] += _cubic(distance, -0.75)
    return a


def _nearest_scale(in_size, out_size, scale):
    # PyTorch's compute_scales_value<float>: the ratio as a float32.
    return np.float32(1.0 / scale) if scale > 0 else np.float32(in_size) / np.float32(out_size)


def _one_hot_rows(indices, in_size):
    a = np.zeros((len(indices), in_size))
    a[np.arange(len(indices)), indices] = 1.0
    return a


def nearest_matrix(in_size, out_size, align_corners=False, scale=0.0, consistent_scales=False):
    """A (out x in) of PyTorch's nearest_idx, in its float32 arithmetic, shortcuts included
    (out == in: the identity, out == 2 * in: o >> 1, whatever the scale). No align_corners."""
    if out_size == in_size:
        indices = list(range(out_size))
    elif out_size == 2 * in_size:
        indices = [o >> 1 for o in range(out_size)]
    else:
        ratio = _nearest_scale(in_size, out_size, scale)
        indices = [min(int(np.floor(np.float32(o) * ratio)), in_size - 1)
                   for o in range(out_size)]
    return _one_hot_rows(indices, in_size)


def nearest_exact_matrix(in_size, out_size, align_corners=False, scale=0.0,
                         consistent_scales=False):
    """A (out x in) of PyTorch's nearest_exact_idx: (o + 0.5) * ratio in float64, rounded to
    float32 (floorf's parameter), floored. No shortcuts, no align_corners."""
    ratio = float(_nearest_scale(in_size, out_size, scale))
    indices = [min(int(np.floor(np.float32((o + 0.5) * ratio))), in_size - 1)
               for o in range(out_size)]
    return _one_hot_rows(indices, in_size)


# By the table's `mode`.
MATRICES = {"bilinear": bilinear_matrix, "bicubic_aa": bicubic_aa_matrix,
            "bilinear_aa": bilinear_aa_matrix, "bicubic": bicubic_matrix,
            "nearest": nearest_matrix, "nearest_exact": nearest_exact_matrix}


def _axis_matrices(op, in_hw, out_hw, align_corners, scales_h, scales_w, consistent_scales):
    # None: the mode's own rule (only bilinear's default differs: the V2 rule).
    rule = {} if consistent_scales is None else {"consistent_scales": consistent_scales}
    return (MATRICES[op](in_hw[0], out_hw[0], align_corners, scales_h, **rule),
            MATRICES[op](in_hw[1], out_hw[1], align_corners, scales_w, **rule))


def reference(op, grad_nchw, input_size, align_corners=False, scales_h=0.0, scales_w=0.0,
              consistent_scales=None):
    """The backward: (r, m), the float64 result and the sum of the magnitudes of its terms,
    NCHW. `op` is a mode; consistent_scales is the row's scales_need_consistent_size."""
    g = np.asarray(grad_nchw, dtype=np.float64)
    a_h, a_w = _axis_matrices(op, input_size[2:], g.shape[2:], align_corners, scales_h, scales_w,
                              consistent_scales)
    r = a_h.T @ g @ a_w
    m = np.abs(a_h).T @ np.abs(g) @ np.abs(a_w)
    return r, m


def forward_reference(op, x_nchw, output_size, align_corners=False, scales_h=0.0, scales_w=0.0,
                      consistent_scales=None):
    """The forward, y = A_H x A_W^T with the backward's matrices: (r, m) as for reference()."""
    x = np.asarray(x_nchw, dtype=np.float64)
    a_h, a_w = _axis_matrices(op, x.shape[2:], output_size, align_corners, scales_h, scales_w,
                              consistent_scales)
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
