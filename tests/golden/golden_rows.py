"""What the two fixture generators share: the operator table's rows as PyTorch computes them.

Each row of include/aclnn_upsample/operators.h (mirrored in ROWS, in table order) is one ATen op
of its mode and direction, called with the scale the row's rule hands it (torch_scale). A fixture
file is written by write_fixtures: every case is computed by the row's own torch op in float64,
and carries `mag`, the contract's error scale m (section 4), from the dense 1-D matrices read off
that same op, so the C++ tests apply the tolerance `1e-5 * m` element by element, and `torch32`,
torch's float32 answer, for information (float32 cases only). Where torch's matrices differ from
the 1-D formulas (OPERATORS.md 1.1-1.3 and docs/ops/, written out in formula_axis) or a forward
op from its backward op, a note goes to stderr, and write_fixtures leaves out the cases that would
hold one torch op's quirk; TORCH_NOTES.md records those cases.
"""

import math
import sys

import numpy as np
import torch

FORWARD, BACKWARD = "forward", "backward"


class Row:
    """One row of the operator table, as far as the fixtures need it.

    scale_rule: "consistent" (used only when outputSize == floor(size * scale) and 1/scale >=
    0.01, OPERATORS.md 1.3), "given" (any positive scale used as given), "float32" (as given,
    after the float32 rounding of CANN's float parameter: Nearest2dV2) or None (the operator has
    no scales). rejects_negative: a negative scale is PARAM_INVALID, so no case passes one.
    """

    def __init__(self, name, mode, direction, takes_align, scale_rule, nhwc, nd,
                 rejects_negative):
        self.name, self.mode, self.direction = name, mode, direction
        self.takes_align, self.scale_rule = takes_align, scale_rule
        self.nhwc, self.nd, self.rejects_negative = nhwc, nd, rejects_negative


F, B = FORWARD, BACKWARD
ROWS = [
    Row("aclnnUpsampleBilinear2d", "bilinear", F, True, "consistent", True, False, True),
    Row("aclnnUpsampleBilinear2dBackwardV2", "bilinear", B, True, "consistent", True, False, False),
    Row("aclnnUpsampleBicubic2dAA", "bicubic_aa", F, True, "given", False, True, True),
    Row("aclnnUpsampleBicubic2dAAGrad", "bicubic_aa", B, True, "given", False, True, True),
    Row("aclnnUpsampleBilinear2dBackward", "bilinear", B, True, "given", True, False, False),
    Row("aclnnUpsampleBilinear2dAA", "bilinear_aa", F, True, "given", False, True, True),
    Row("aclnnUpsampleBilinear2dAABackward", "bilinear_aa", B, True, "given", False, True, True),
    Row("aclnnUpsampleBicubic2d", "bicubic", F, True, "given", True, True, False),
    Row("aclnnUpsampleBicubic2dBackward", "bicubic", B, True, "given", True, True, False),
    Row("aclnnUpsampleNearest2dV2", "nearest", F, False, "float32", True, False, False),
    Row("aclnnUpsampleNearest2d", "nearest", F, False, None, True, False, False),
    Row("aclnnUpsampleNearest2dBackward", "nearest", B, False, "given", True, False, False),
    Row("aclnnUpsampleNearestExact2d", "nearest_exact", F, False, "given", True, True, True),
    Row("aclnnUpsampleNearestExact2dBackward", "nearest_exact", B, False, "given", False, True,
        True),
]
ROW_BY_NAME = {row.name: row for row in ROWS}

aten = torch.ops.aten
TORCH_OPS = {  # mode -> (forward op, backward op)
    "bilinear": (aten.upsample_bilinear2d, aten.upsample_bilinear2d_backward),
    "bicubic_aa": (aten._upsample_bicubic2d_aa, aten._upsample_bicubic2d_aa_backward),
    "bilinear_aa": (aten._upsample_bilinear2d_aa, aten._upsample_bilinear2d_aa_backward),
    "bicubic": (aten.upsample_bicubic2d, aten.upsample_bicubic2d_backward),
    "nearest": (aten.upsample_nearest2d, aten.upsample_nearest2d_backward),
    "nearest_exact": (aten._upsample_nearest_exact2d, aten._upsample_nearest_exact2d_backward),
}
TAKES_ALIGN = {"nearest": False, "nearest_exact": False}


def row_of(mode_or_name, direction):
    """The row a fixture's op field names: a row's name, or a mode (the first row of that mode
    and direction in table order, which is what the C++ reader resolves too)."""
    if mode_or_name in ROW_BY_NAME:
        return ROW_BY_NAME[mode_or_name]
    return next(r for r in ROWS if r.mode == mode_or_name and r.direction == direction)


def torch_scale(row, inp, out, scale):
    """The scale argument torch must get so that it computes what the row does with `scale`.

    aclnn passes 0 for "not given"; torch wants None. A "consistent" row trusts a scale only
    when it matches outputSize and is not absurdly large (otherwise the device falls back to
    in/out, which torch does when it gets None); the others use any positive scale as given,
    Nearest2dV2 after rounding it to float32 as its float parameter does.
    """
    if row.scale_rule is None or scale <= 0:
        return None
    if row.scale_rule == "consistent":
        if out != math.floor(inp * scale) or 1.0 / scale < 0.01:
            return None
    if row.scale_rule == "float32":
        return float(np.float32(scale))
    return scale


def call(mode, direction, x, out_hw, in_size, align, sh, sw):
    """Torch's op of the mode and direction; in_size (N, C, H, W) only for backward ops."""
    op = TORCH_OPS[mode][direction == BACKWARD]
    args = [x, list(out_hw)] + ([list(in_size)] if direction == BACKWARD else [])
    if TAKES_ALIGN.get(mode, True):
        args.append(bool(align))
    return op(*args, sh, sw)


def axis_reading(mode, direction, inp, out, align, scale):
    """(weights, taps) of one axis, dense out x inp, read off torch's op of that direction.

    Forward: unit inputs along W (a batch of `inp` images) give the columns; backward: unit
    gradients (a batch of `out` images) give the rows. The other axis goes 1 -> 2 and row 0 is
    the one read: one input row spread over two is a weight of 1 for every mode, and that axis
    changes size, so no op takes a shortcut for an image whose size does not change (torch's
    bicubic backward copies gradOut then; write_fixtures checks the whole op for that). The
    taps are the entries torch multiplies, weight 0 or not: where a NaN probe goes.
    """
    readings = []
    for probe in (1.0, float("nan")):
        if direction == FORWARD:
            x = torch.zeros(inp, 1, 1, inp, dtype=torch.float64)
            x[range(inp), 0, 0, range(inp)] = probe
            y = call(mode, FORWARD, x, (2, out), None, align, None, scale)
            readings.append(y[:, 0, 0, :].T.contiguous())
        else:
            g = torch.zeros(out, 1, 2, out, dtype=torch.float64)
            g[range(out), 0, 0, range(out)] = probe
            x = call(mode, BACKWARD, g, (2, out), (out, 1, 1, inp), align, None, scale)
            readings.append(x[:, 0, 0, :].contiguous())
    return readings[0], readings[1].isnan()


def keys(d, a):
    """Keys' cubic convolution kernel at distance d."""
    d = abs(d)
    if d <= 1:
        return (a + 2) * d**3 - (a + 3) * d**2 + 1
    if d < 2:
        return a * d**3 - 5 * a * d**2 + 8 * a * d - 4 * a
    return 0.0


def formula_axis(mode, inp, out, align, scale):
    """(weights, taps) of one axis as the contract (OPERATORS.md 1.1-1.3) and docs/ops/ write
    them, to flag where torch differs. `scale` is the one torch gets (None: not given). A tap
    is an entry the formula multiplies, weight 0 or not (it carries a NaN)."""
    a = torch.zeros(out, inp, dtype=torch.float64)
    taps = torch.zeros(out, inp, dtype=torch.bool)

    def tap(o, i, w):
        a[o, i] += w
        taps[o, i] = True

    if mode in ("nearest", "nearest_exact"):
        # float32 arithmetic, as ATen's nearest_idx and nearest_exact_idx do it.
        f32 = np.float32
        scale_f = f32(1.0 / scale) if scale else f32(inp) / f32(out)
        for o in range(out):
            if mode == "nearest_exact":
                i = int(np.floor(f32((o + 0.5) * float(scale_f))))
            elif out == inp:
                i = o
            elif out == 2 * inp:
                i = o >> 1
            else:
                i = int(np.floor(f32(o) * scale_f))
            tap(o, min(i, inp - 1), 1.0)
        return a, taps
    if align:
        s = (inp - 1) / (out - 1) if out > 1 else 0.0
    elif scale:
        s = 1.0 / scale
    else:
        s = inp / out
    for o in range(out):
        if mode == "bilinear":
            src = o * s if align else max(0.0, (o + 0.5) * s - 0.5)
            i0 = min(math.floor(src), inp - 1)
            l1 = min(max(src - i0, 0.0), 1.0)
            tap(o, i0, 1 - l1)
            tap(o, i0 + 1 if i0 < inp - 1 else i0, l1)
        elif mode == "bicubic":
            real = s * o if align else s * (o + 0.5) - 0.5
            i0 = min(math.floor(real), inp - 1)
            t = min(max(real - i0, 0.0), 1.0)
            for k, d in enumerate((t + 1, t, 1 - t, 2 - t)):
                tap(o, min(max(i0 - 1 + k, 0), inp - 1), keys(d, -0.75))
        else:  # the anti-aliased modes: a filter widened by the ratio when downsampling
            half_width, filt = ((2.0, lambda d: keys(d, -0.5)) if mode == "bicubic_aa" else
                                (1.0, lambda d: max(0.0, 1.0 - abs(d))))
            support = half_width * s if s >= 1 else half_width
            invscale = 1 / s if s >= 1 else 1.0
            center = s * (o + 0.5)
            imin = max(int(center - support + 0.5), 0)
            imax = min(int(center + support + 0.5), inp)
            w = [filt((i - center + 0.5) * invscale) for i in range(imin, imax)]
            for j, i in enumerate(range(imin, imax)):
                tap(o, i, w[j] / sum(w))
    return a, taps


DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
LAYOUTS = ("nchw", "channels_last", "nhwc", "nd")


class Case:
    """One fixture, sizes in forward terms (in -> out) whichever direction the row has.

    values: the source tensor (forward input or gradOut) in float64, or None for random normal
    values; nonfinite: (n, c, h, w, value) entries written into the source after drawing it.
    field: what the header's op field says (the row's name, or for the first fixture files its
    mode).
    """

    def __init__(self, name, row, align, scales_h, scales_w, n, c, in_h, in_w, out_h, out_w,
                 values=None, dtype="float32", layout="nchw", nonfinite=(), field=None):
        assert dtype in DTYPES and layout in LAYOUTS, name
        assert layout != "nhwc" or row.nhwc, name
        assert layout != "nd" or row.nd, name
        assert align == 0 or row.takes_align, name
        assert row.scale_rule is not None or scales_h == scales_w == 0, name
        assert not row.rejects_negative or (scales_h >= 0 and scales_w >= 0), name
        self.name, self.row, self.align = name, row, align
        self.scales_h, self.scales_w = float(scales_h), float(scales_w)
        self.n, self.c, self.in_h, self.in_w, self.out_h, self.out_w = (
            n, c, in_h, in_w, out_h, out_w)
        self.values, self.dtype, self.layout = values, dtype, layout
        self.nonfinite = nonfinite
        self.field = field or row.name

    def source_shape(self):
        hw = (self.in_h, self.in_w) if self.row.direction == FORWARD else (self.out_h, self.out_w)
        return (self.n, self.c) + hw

    def result_hw(self):
        return (self.out_h, self.out_w) if self.row.direction == FORWARD else (self.in_h,
                                                                               self.in_w)


def fmt(values, spec):
    out, line = [], []
    for v in values:
        line.append(spec % v)
        if len(line) == 8:
            out.append(" ".join(line))
            line = []
    if line:
        out.append(" ".join(line))
    return "\n".join(out)


def finite_or_zero(t):
    return torch.where(torch.isfinite(t), t, torch.zeros_like(t))


def departures(reading, formula, taps_matter):
    """How torch's (weights, taps) of an axis depart from the formula's: "" where they do not.
    The taps matter only to a source with nonfinite values (finite values see the weights)."""
    why = []
    if not torch.allclose(reading[0], formula[0], rtol=0, atol=1e-12):
        why.append("weights (by up to %.3g)" % (reading[0] - formula[0]).abs().max().item())
    if taps_matter and not torch.equal(reading[1], formula[1]):
        why.append("taps (where a NaN goes)")
    return " and ".join(why)


def merged_tap_values(x, axes, direction, result_shape):
    """The nonfinite part of the result when the taps of one index are summed before
    multiplying (weight w0 + w1 + ...; weight 0 where they cancel or are 0): what a source
    element's Inf gives there. torch multiplies tap by tap instead (inf * w0 + inf * w1), which
    differs wherever two taps of one element land on one index (bilinear's last input and
    identity axes, bicubic's clamped border taps). Finite elements come out 0."""
    (a_h, taps_h), (a_w, taps_w) = axes
    y = torch.zeros(result_shape, dtype=torch.float64)
    for n, c, h, w in (~torch.isfinite(x)).nonzero().tolist():
        v = x[n, c, h, w]
        if direction == FORWARD:  # input (h, w) reaches outputs (o, p) whose taps hold it
            y[n, c] += torch.outer(a_h[:, h] * v, a_w[:, w]).where(
                torch.outer(taps_h[:, h], taps_w[:, w]), torch.zeros(()))
        else:  # gradOut (h, w) reaches the inputs (i, j) among its taps
            y[n, c] += torch.outer(a_h[h, :] * v, a_w[w, :]).where(
                torch.outer(taps_h[h, :], taps_w[w, :]), torch.zeros(()))
    return y


def write_fixtures(path, header, cases, seed, source_block):
    """Computes every case with torch and writes the file; returns the number of cases kept.

    The random source of each case is drawn in case order from one generator seeded with
    `seed`, also for a case that is left out, so that leaving one out changes no other.

    A case is left out, with a line on stderr, where a fixture would hold one torch op's quirk
    rather than the operator the library implements (separable, the same 1-D matrices in both
    directions): where torch's op of the row's direction departs from the formulas (weights or
    taps) on an axis where its op of the other direction follows them (torch's AA forward ops
    skip an axis whose size does not change), or where the whole op is not the separable one
    its own axes give (torch's bicubic backward copies gradOut when neither size changes). A
    departure that both directions share is torch's numerics, which the library follows: only
    noted.
    """
    gen = torch.Generator().manual_seed(seed)
    names = set()
    chunks = [header]
    kept = 0
    for cs in cases:
        assert cs.name not in names, cs.name
        names.add(cs.name)
        row, mode, direction = cs.row, cs.row.mode, cs.row.direction
        other = BACKWARD if direction == FORWARD else FORWARD
        shape = cs.source_shape()
        if cs.values is None:
            x = torch.randn(shape, generator=gen, dtype=torch.float64)
        else:
            x = cs.values.reshape(shape).clone()
        for n, c, h, w, v in cs.nonfinite:
            x[n, c, h, w] = v
        # Store exactly what the library will read in the case's dtype.
        x = x.to(DTYPES[cs.dtype]).to(torch.float64)
        result_shape = (cs.n, cs.c) + cs.result_hw()
        assert x.numel() <= 8000 and math.prod(result_shape) <= 8000, cs.name

        sh = torch_scale(row, cs.in_h, cs.out_h, cs.scales_h)
        sw = torch_scale(row, cs.in_w, cs.out_w, cs.scales_w)
        out_hw, in_size = (cs.out_h, cs.out_w), (cs.n, cs.c, cs.in_h, cs.in_w)
        expect = call(mode, direction, x, out_hw, in_size, cs.align, sh, sw)
        t32 = call(mode, direction, x.float(), out_hw, in_size, cs.align, sh, sw)

        quirks, axes, finite_source = [], [], bool(torch.isfinite(x).all())
        for axis, inp, out, sc in (("H", cs.in_h, cs.out_h, sh), ("W", cs.in_w, cs.out_w, sw)):
            own = axis_reading(mode, direction, inp, out, cs.align, sc)
            axes.append(own)
            formula = formula_axis(mode, inp, out, cs.align, sc)
            departs = departures(own, formula, not finite_source)
            if not departs:
                continue
            theirs = departures(axis_reading(mode, other, inp, out, cs.align, sc), formula,
                                not finite_source)
            line = "axis %s: torch's %s op departs from the formula in %s; its %s op %s" % (
                axis, direction, departs, other, "too, in " + theirs if theirs else "does not")
            if theirs:
                print("note: %s: %s" % (cs.name, line), file=sys.stderr)
            else:
                quirks.append(line)
        # The whole op against the separable one of its axes: the finite elements' values, and
        # which elements a nonfinite source element reaches (every tap of its row).
        (a_h, taps_h), (a_w, taps_w) = axes
        spec = "oi,ncij,pj->ncop" if direction == FORWARD else "oi,ncop,pj->ncij"
        dense = torch.einsum(spec, a_h, finite_or_zero(x), a_w)
        reached = torch.einsum(spec, taps_h.double(), (~torch.isfinite(x)).double(),
                               taps_w.double()) > 0
        finite = torch.isfinite(expect)
        err = (dense - expect)[finite].abs().max().item() if finite.any() else 0.0
        if err > 1e-12 * max(1.0, expect[finite].abs().max().item() if finite.any() else 0.0):
            quirks.append("the whole op differs from its separable axes by %.3g" % err)
        if not torch.equal(reached, ~finite):
            quirks.append("the whole op puts nonfinite values elsewhere than its axes' taps")
        if not finite_source:
            merged = merged_tap_values(x, axes, direction, expect.shape)
            differs = ~torch.isfinite(expect) & (merged.isnan() != expect.isnan())
            differs |= expect.isinf() & (merged != expect)
            if differs.any():
                line = ("%d nonfinite elements differ from the one-weight-per-index reading, "
                        "first at %s (torch %s, that reading %s)" % (
                            differs.sum().item(), differs.nonzero()[0].tolist(),
                            expect[differs].tolist()[0], merged[differs].tolist()[0]))
                if mode in MERGED_TAPS_DOCUMENTED:
                    quirks.append(line + "; a documented difference of the library")
                else:  # kept: it shows where the library differs from torch undocumented
                    print("note: %s: %s" % (cs.name, line), file=sys.stderr)
        if quirks:
            for line in quirks:
                print("left out: %s: %s" % (cs.name, line), file=sys.stderr)
            continue
        mag = torch.einsum(spec, a_h.abs(), finite_or_zero(x).abs(), a_w.abs())

        header_sizes = ((cs.out_h, cs.out_w, cs.in_h, cs.in_w) if direction == BACKWARD else
                        (cs.in_h, cs.in_w, cs.out_h, cs.out_w))
        chunks.append("case %s %s %s %s %d %.17g %.17g %d %d %d %d %d %d\n" % (
            (cs.name, cs.field, cs.dtype, cs.layout, cs.align, cs.scales_h, cs.scales_w, cs.n,
             cs.c) + header_sizes))
        chunks.append(source_block + "\n" + fmt(x.flatten().tolist(), "%.9g") + "\n")
        chunks.append("expect\n" + fmt(expect.flatten().tolist(), "%.17g") + "\n")
        chunks.append("mag\n" + fmt(mag.flatten().tolist(), "%.17g") + "\n")
        if cs.dtype == "float32":
            chunks.append("torch32\n" + fmt(t32.double().flatten().tolist(), "%.9g") + "\n")
        kept += 1

    chunks.append("end %d\n" % kept)
    text = "".join(chunks)
    with open(path, "w") as f:
        f.write(text)
    print("%d cases, %d bytes -> %s" % (kept, len(text), path), file=sys.stderr)
    return kept


# The rows whose fixtures came first (golden_cases.txt, golden_forward_cases.txt): the table
# files add only what those lack (nonfinite sources, 1xN and Nx1, the 16-bit nonfinite path and
# the ND format) for them.
FIRST_ROWS = tuple(row.name for row in ROWS[:4])
NAN, INF = float("nan"), float("inf")
# Positions valid in a 6x7 forward input and in an 11x5 gradOut alike (both alignments): NaN
# anywhere, the corner included; the Infs where no two taps of one element land on one index
# (see merged_tap_values), so that they test what torch and the library agree on.
NONFINITE = ((0, 0, 2, 3, NAN), (0, 1, 0, 0, NAN), (0, 1, 3, 2, INF), (0, 0, 4, 2, -INF))
# Infs in the corners, where bilinear's last tap and bicubic's clamped taps land on one index.
INF_AT_BORDER = ((0, 0, 0, 0, INF), (0, 1, 5, 4, -INF), (0, 1, 0, 4, INF))
# On an unchanged 5x5 axis pair: which neighbours a NaN reaches, from the middle and the edge.
NONFINITE_IDENTITY = ((0, 0, 2, 2, NAN), (0, 0, 4, 0, NAN))
# Where the library documents that it sums the taps of one index before multiplying, unlike
# torch (docs/ops/aclnnUpsampleBilinear2dBackwardV2.md and aclnnUpsampleBicubic2d.md,
# "Differences from PyTorch"): an Inf there stays Inf in the library and is NaN in torch
# (inf * w0 + inf * w1 with weights of opposite signs, or inf * 0).
MERGED_TAPS_DOCUMENTED = ("bilinear", "bicubic")
# Sizes where PyTorch's float32 index arithmetic picks another input than exact arithmetic
# would (found by a search over sizes up to 40): nearest 26 -> 22 at o = 11 (12, not 13);
# nearest_exact 6 -> 37 at o = 18 (2, not 3) and 14 -> 23 at o = 11 (6, not 7).
FLOAT32_INDEX_SIZES = {"nearest": (26, 26, 22, 22), "nearest_exact": (6, 14, 37, 23)}


def table_cases(direction):
    """The fixtures of every row of one direction, named <row without aclnnUpsample>_<what>.

    Sizes are in forward terms (in -> out): one list serves both directions, so each forward
    row and its backward row see the same resizes. Every row gets, where it takes them: both
    alignments, scales given and not (consistent, inconsistent, negative, not exact in float32,
    on an unchanged axis), up, down and mixed with odd ratios, 1xN and Nx1, from and to one
    pixel, NaN and +-Inf sources, every dtype and layout, and a case with many row bands.
    """
    cases = []
    for row in ROWS:
        if row.direction != direction:
            continue
        tag = row.name[len("aclnnUpsample"):]
        first = row.name in FIRST_ROWS
        scaled = row.scale_rule is not None
        aligns = (0, 1) if row.takes_align else (0,)
        a1 = aligns[-1]

        def add(what, *args, **kwargs):
            cases.append(Case(tag + "_" + what, row, *args, **kwargs))

        for a in aligns:
            add(f"1xN_a{a}", a, 0, 0, 1, 2, 1, 23, 1, 9)
            add(f"Nx1_a{a}", a, 0, 0, 1, 2, 23, 1, 9, 1)
            # From one column to three: torch's AA forward ops get Nx1 -> Nx1 wrong
            # (TORCH_NOTES.md), so that case is left out of their forward fixtures.
            add(f"Nx1_to_3_columns_a{a}", a, 0, 0, 1, 1, 23, 1, 9, 3)
            add(f"nonfinite_a{a}", a, 0, 0, 1, 2, 6, 7, 11, 5, nonfinite=NONFINITE)
            if not first:
                add(f"up_a{a}", a, 0, 0, 1, 2, 5, 7, 11, 13)
                add(f"down_a{a}", a, 0, 0, 1, 1, 19, 13, 7, 5)
                add(f"mixed_upH_downW_a{a}", a, 0, 0, 1, 1, 5, 23, 13, 7)
        add(f"inf_at_border_a{a1}", a1, 0, 0, 1, 2, 6, 7, 11, 5, nonfinite=INF_AT_BORDER)
        add("nonfinite_identity", 0, 0, 0, 1, 1, 5, 5, 5, 5, nonfinite=NONFINITE_IDENTITY)
        add("f16_nonfinite", a1, 0, 0, 1, 2, 6, 7, 11, 5, dtype="float16", nonfinite=NONFINITE)
        if row.nd:
            add("f32_nd_up", 0, 0, 0, 1, 2, 5, 7, 13, 11, layout="nd")
            add("bf16_nd_down", a1, 0, 0, 1, 2, 13, 11, 5, 7, dtype="bfloat16", layout="nd")
        if first:
            continue
        add("identity", 0, 0, 0, 1, 1, 9, 9, 9, 9)
        add("odd_3_to_10_10_to_3", 0, 0, 0, 1, 1, 3, 10, 10, 3)
        add("from1", 0, 0, 0, 1, 2, 1, 1, 5, 3)
        add("to1", a1, 0, 0, 1, 2, 7, 5, 1, 1)
        if scaled:
            add("scales_2_3", 0, 2.0, 3.0, 1, 1, 7, 5, 14, 15)
            if row.takes_align:
                add("scales_ignored_a1", 1, 2.0, 3.0, 1, 1, 7, 5, 14, 15)
            # Inconsistent with outputSize (floor(5 * 1.2) = 6 != 7): used as given.
            add("scales_inconsistent", 0, 1.2, 1.2, 1, 1, 5, 7, 7, 9)
            add("scales_down", 0, 0.5, 0.3125, 1, 1, 16, 16, 8, 5)
            # Not exact in float32: Nearest2dV2's float parameter rounds them.
            add("scales_1p1_1p3", 0, 1.1, 1.3, 1, 1, 10, 3, 11, 4)
            add("identity_scales_1p2", 0, 1.2, 1.2, 1, 1, 9, 9, 9, 9)
            if not row.rejects_negative:
                add("scales_negative", 0, -1.0, -2.5, 1, 1, 5, 7, 13, 17)
        if row.mode in FLOAT32_INDEX_SIZES:
            add("float32_index", 0, 0, 0, 1, 1, *FLOAT32_INDEX_SIZES[row.mode])
            if scaled:
                # Twice the size with a scale that says otherwise: legacy nearest's shortcut
                # (out == 2 * in: i = o >> 1) ignores the scale, nearest_exact has none.
                add("double_with_scales_3_1p7", 0, 3.0, 1.7, 1, 1, 5, 6, 10, 12)
        if row.mode == "nearest_exact":
            add("up50", 0, 0, 0, 1, 1, 1, 2, 50, 3)  # the backward row's upscaling limit
        if row.mode in ("bilinear_aa", "bicubic"):
            add("down30", 0, 0, 0, 1, 1, 60, 31, 2, 1)
        for dt, t in (("float16", "f16"), ("bfloat16", "bf16")):
            add(f"{t}_up_a0", 0, 0, 0, 1, 2, 5, 7, 13, 11, dtype=dt)
            add(f"{t}_down_a{a1}", a1, 0, 0, 1, 2, 19, 13, 7, 5, dtype=dt)
            sh, sw = (2.0, 3.0) if scaled else (0, 0)
            add(f"{t}_cl_c8", 0, sh, sw, 1, 8, 3, 4, 6, 12, dtype=dt, layout="channels_last")
        add("f32_cl_c3_up", 0, 0, 0, 1, 3, 5, 7, 10, 14, layout="channels_last")
        add(f"f32_cl_c16_down_a{a1}", a1, 0, 0, 1, 16, 7, 6, 4, 5, layout="channels_last")
        if row.nhwc:
            add("f32_nhwc_c8_up", 0, 0, 0, 1, 8, 5, 7, 9, 11, layout="nhwc")
            add(f"bf16_nhwc_c12_down_a{a1}", a1, 0, 0, 1, 12, 9, 5, 4, 3, dtype="bfloat16",
                layout="nhwc")
        # Enough result rows that phase 1 cuts the plane into many row bands at 4 threads.
        add("f32_band", 0, 0, 0, 1, 1, 17, 20, 34, 40)
    return cases
