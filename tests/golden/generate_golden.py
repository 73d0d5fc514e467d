#!/usr/bin/env python3
"""Generates tests/golden/golden_cases.txt from PyTorch (a developer tool; CI never runs it).

Every case is computed with torch's own backward ops in float64, so `expect` is the exact answer
for the gradOut that the file stores, whose values are exact in the case's dtype (float32,
float16 or bfloat16: the library reads them in that dtype). Alongside it the file carries `mag`,
the contract's error scale m = |A_H|^T |gradOut| |A_W| (section 4), built from the dense 1-D
matrices read off torch's backward ops (see axis_matrix for why not the forward ones), so the C++
test can apply the contract's tolerance `1e-5 * m` element by element, and `torch32`, torch's own
float32 answer, for information (float32 cases only). Each case also names the layout the C++
test stores its tensors in (contiguous NCHW, NCHW with channels-last strides, or the NHWC
format); the blocks are always in logical (n, c, h, w) order. Where torch's matrices differ from the contract's formulas
(sections 1.1-1.3) or torch's forward from its backward, a note goes to stderr; TORCH_NOTES.md
records those cases.

Usage: python3 tests/golden/generate_golden.py [--out tests/golden/golden_cases.txt]
"""

import argparse
import math
import os
import sys

import torch

SEED = 20240611

bilinear_bwd = torch.ops.aten.upsample_bilinear2d_backward
bilinear_fwd = torch.ops.aten.upsample_bilinear2d
aa_bwd = torch.ops.aten._upsample_bicubic2d_aa_backward
aa_fwd = torch.ops.aten._upsample_bicubic2d_aa


def torch_scale(op, inp, out, scales):
    """The scale argument torch must get so that it computes what the contract (1.3) asks.

    aclnn passes 0 for "not given"; torch wants None. Bilinear trusts scales only when they are
    consistent with outputSize and not absurdly large; otherwise the device falls back to
    in/out, which torch does when it gets None. Bicubic AA uses any positive scale as given.
    """
    if scales <= 0:
        return None
    if op == "bilinear":
        if out != math.floor(inp * scales) or 1.0 / scales < 0.01:
            return None
    return scales


def axis_matrix(op, inp, out, align, scale, use_forward=False):
    """Dense out x inp matrix A of one axis, read off torch's own ops.

    By default it applies the backward op to unit gradients: a batch of `out` images of shape
    1 x out, the unit vector along W, gives rows A[o, :] directly, so A is exactly the operator
    that `expect` is computed with. H stays 1 -> 1, an identity for both ops. With use_forward
    the forward op is applied to unit inputs instead (columns of A); torch's AA forward skips an
    axis whose size does not change even when a scale != 1 is given, while its backward uses the
    scale, so the two can disagree and only the backward one matches `expect`.
    """
    fwd = bilinear_fwd if op == "bilinear" else aa_fwd
    if use_forward:
        eye = torch.eye(inp, dtype=torch.float64).reshape(inp, 1, 1, inp)
        y = fwd(eye, [1, out], bool(align), None, scale)
        return y[:, 0, 0, :].T.contiguous()  # out x inp
    eye = torch.eye(out, dtype=torch.float64).reshape(out, 1, 1, out)
    x = backward(op, eye, (1, out), (out, 1, 1, inp), align, None, scale)
    return x[:, 0, 0, :].contiguous()  # out x inp


def cubic(d, a=-0.5):
    d = abs(d)
    if d <= 1:
        return (a + 2) * d**3 - (a + 3) * d**2 + 1
    if d < 2:
        return a * d**3 - 5 * a * d**2 + 8 * a * d - 4 * a
    return 0.0


def contract_matrix(op, inp, out, align, scales):
    """The 1-D matrix as OPERATORS.md sections 1.1-1.3 write it, to flag where torch differs."""
    if align:
        s = (inp - 1) / (out - 1) if out > 1 else 0.0
    elif torch_scale(op, inp, out, scales) is not None:
        s = 1.0 / scales
    else:
        s = inp / out
    a = torch.zeros(out, inp, dtype=torch.float64)
    for o in range(out):
        if op == "bilinear":
            src = o * s if align else max(0.0, (o + 0.5) * s - 0.5)
            i0 = min(math.floor(src), inp - 1)
            i1 = i0 + 1 if i0 < inp - 1 else i0
            l1 = min(max(src - i0, 0.0), 1.0)
            a[o, i0] += 1 - l1
            a[o, i1] += l1
        else:
            support = 2 * s if s >= 1 else 2.0
            invscale = 1 / s if s >= 1 else 1.0
            center = s * (o + 0.5)
            imin = max(int(center - support + 0.5), 0)
            imax = min(int(center + support + 0.5), inp)
            w = [cubic((i - center + 0.5) * invscale) for i in range(imin, imax)]
            total = sum(w)
            for j, i in enumerate(range(imin, imax)):
                a[o, i] = w[j] / total
    return a


def backward(op, grad, out_hw, in_size, align, sh, sw):
    fn = bilinear_bwd if op == "bilinear" else aa_bwd
    return fn(grad, list(out_hw), list(in_size), bool(align), sh, sw)


DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
LAYOUTS = ("nchw", "channels_last", "nhwc")


class Case:
    def __init__(self, name, op, align, scales_h, scales_w, n, c, h_out, w_out, h_in, w_in,
                 grad=None, dtype="float32", layout="nchw"):
        assert dtype in DTYPES and layout in LAYOUTS, name
        assert layout != "nhwc" or op == "bilinear", name  # bicubic AA takes NCHW or ND only
        self.dtype, self.layout = dtype, layout
        self.name, self.op, self.align = name, op, align
        self.scales_h, self.scales_w = float(scales_h), float(scales_w)
        self.n, self.c = n, c
        self.h_out, self.w_out, self.h_in, self.w_in = h_out, w_out, h_in, w_in
        self.grad = grad  # None: random normal


def build_cases():
    cases = []

    def add(*args, **kwargs):
        cases.append(Case(*args, **kwargs))

    # --- Bilinear -------------------------------------------------------------------------
    # The official call example (contract 1.4): all-ones gradOut.
    add("bilinear_example", "bilinear", 1, 2.0, 2.0, 1, 1, 6, 6, 3, 3,
        grad=torch.ones(1, 1, 6, 6, dtype=torch.float64))
    for a in (0, 1):
        add(f"bilinear_up_a{a}", "bilinear", a, 0, 0, 2, 3, 13, 17, 5, 7)
        add(f"bilinear_down_a{a}", "bilinear", a, 0, 0, 1, 2, 7, 5, 31, 17)
        add(f"bilinear_identity_a{a}", "bilinear", a, 0, 0, 1, 2, 9, 9, 9, 9)
        add(f"bilinear_mixed_upH_downW_a{a}", "bilinear", a, 0, 0, 1, 2, 13, 7, 5, 31)
        add(f"bilinear_around8_16_a{a}", "bilinear", a, 0, 0, 1, 1, 16, 15, 7, 8)
        add(f"bilinear_around16_8_a{a}", "bilinear", a, 0, 0, 1, 1, 8, 9, 15, 16)
        add(f"bilinear_from1_a{a}", "bilinear", a, 0, 0, 1, 3, 5, 3, 1, 1)
        add(f"bilinear_to1_a{a}", "bilinear", a, 0, 0, 1, 3, 1, 1, 7, 5)
    add("bilinear_17_to_9x2", "bilinear", 0, 0, 0, 1, 2, 9, 2, 17, 17)
    add("bilinear_2_to_3x5", "bilinear", 0, 0, 0, 1, 1, 3, 5, 2, 2)
    add("bilinear_1x1", "bilinear", 0, 0, 0, 2, 2, 1, 1, 1, 1)
    # align_corners True, 3 -> 5: src = o/2 is an integer for even o, so lambda1 is exactly 0.
    add("bilinear_3_to_5_a1", "bilinear", 1, 0, 0, 1, 1, 5, 5, 3, 3)
    # Consistent scales (outputSize == floor(in * scales)), non-integer ratios included.
    add("bilinear_scales_2_3", "bilinear", 0, 2.0, 3.0, 1, 2, 14, 15, 7, 5)
    add("bilinear_scales_1p5_2p5", "bilinear", 0, 1.5, 2.5, 1, 1, 19, 22, 13, 9)
    add("bilinear_scales_down", "bilinear", 0, 0.5, 0.3, 1, 2, 8, 5, 16, 17)
    add("bilinear_scales_ignored_a1", "bilinear", 1, 2.0, 3.0, 1, 1, 14, 15, 7, 5)
    # Identity with scales: 1.0 (plain), 1.2 (inconsistent: floor(9*1.2) = 10 != 9 -> None),
    # 1.1 (consistent: floor(9*1.1) = 9, so the scale itself would be used).
    add("bilinear_identity_scales_1", "bilinear", 0, 1.0, 1.0, 1, 1, 9, 9, 9, 9)
    add("bilinear_identity_scales_1p2", "bilinear", 0, 1.2, 1.2, 1, 1, 9, 9, 9, 9)
    add("bilinear_identity_scales_1p1", "bilinear", 0, 1.1, 1.1, 1, 1, 9, 9, 9, 9)
    # Inconsistent scales: both axes, and H only (W consistent).
    add("bilinear_scales_inconsistent", "bilinear", 0, 1.2, 1.2, 1, 2, 7, 9, 5, 7)
    add("bilinear_scales_inconsistent_h", "bilinear", 0, 1.7, 2.0, 1, 1, 13, 14, 5, 7)
    # Negative scales mean "not given".
    add("bilinear_scales_negative", "bilinear", 0, -1.0, -2.5, 1, 1, 13, 17, 5, 7)
    # Consistent but 1/scales < 0.01: the device ignores the scale (2 -> 201 with 100.7).
    add("bilinear_scales_tiny_ratio", "bilinear", 0, 100.7, 0, 1, 1, 201, 3, 2, 3)

    # --- Bicubic anti-aliased ----------------------------------------------------------------
    add("aa_example", "bicubic_aa", 1, 2.0, 2.0, 1, 1, 4, 2, 8, 4,
        grad=torch.arange(8, dtype=torch.float64).reshape(1, 1, 4, 2))
    for a in (0, 1):
        add(f"aa_up_a{a}", "bicubic_aa", a, 0, 0, 2, 3, 13, 17, 5, 7)
        add(f"aa_down_a{a}", "bicubic_aa", a, 0, 0, 1, 2, 7, 5, 31, 17)
        add(f"aa_identity_a{a}", "bicubic_aa", a, 0, 0, 1, 2, 9, 9, 9, 9)
        add(f"aa_mixed_upH_downW_a{a}", "bicubic_aa", a, 0, 0, 1, 2, 13, 7, 5, 31)
        add(f"aa_around8_16_a{a}", "bicubic_aa", a, 0, 0, 1, 1, 16, 15, 7, 8)
        add(f"aa_around16_8_a{a}", "bicubic_aa", a, 0, 0, 1, 1, 8, 9, 15, 16)
        add(f"aa_from1_a{a}", "bicubic_aa", a, 0, 0, 1, 3, 5, 3, 1, 1)
        add(f"aa_to1_a{a}", "bicubic_aa", a, 0, 0, 1, 3, 1, 1, 7, 5)
        add(f"aa_down30_a{a}", "bicubic_aa", a, 0, 0, 1, 1, 2, 1, 60, 31)
    add("aa_down30_square", "bicubic_aa", 0, 0, 0, 1, 1, 2, 2, 60, 60)
    add("aa_down30_scales", "bicubic_aa", 0, 1.0 / 30, 1.0 / 17, 1, 1, 2, 1, 60, 17)
    add("aa_17_to_9x2", "bicubic_aa", 0, 0, 0, 1, 2, 9, 2, 17, 17)
    add("aa_2_to_3x5", "bicubic_aa", 0, 0, 0, 1, 1, 3, 5, 2, 2)
    add("aa_1x1", "bicubic_aa", 0, 0, 0, 2, 2, 1, 1, 1, 1)
    # Upscaling by exactly 50 (r = 0.02 is still allowed) and by 49 from two pixels.
    add("aa_up50", "bicubic_aa", 0, 0, 0, 1, 1, 50, 3, 1, 2)
    add("aa_up49", "bicubic_aa", 0, 49.0, 0, 1, 1, 98, 2, 2, 2)
    add("aa_scales_2_3", "bicubic_aa", 0, 2.0, 3.0, 1, 2, 14, 15, 7, 5)
    add("aa_scales_down", "bicubic_aa", 0, 0.5, 0.3125, 1, 2, 8, 5, 17, 16)
    add("aa_scales_ignored_a1", "bicubic_aa", 1, 2.0, 3.0, 1, 1, 14, 15, 7, 5)
    add("aa_identity_scales_1", "bicubic_aa", 0, 1.0, 1.0, 1, 1, 9, 9, 9, 9)
    # Inconsistent scales are used as given for AA.
    add("aa_identity_scales_1p2", "bicubic_aa", 0, 1.2, 1.2, 1, 1, 9, 9, 9, 9)
    add("aa_scales_inconsistent", "bicubic_aa", 0, 1.2, 1.2, 1, 2, 7, 9, 5, 7)
    add("aa_scales_inconsistent_down", "bicubic_aa", 0, 0.25, 0.7, 1, 1, 5, 3, 13, 7)

    # --- Layouts, dtypes and threading -------------------------------------------------------
    # The cases above are float32, contiguous NCHW and at most 3 channels, so they reach only
    # the planar plans. The plan (src/engine/plan.cc) goes channels-last when C >= 8 and both
    # tensors have stride 1 along C: NCHW views with channels-last strides, or the NHWC format
    # (bilinear only). C = 3 in those layouts stays planar with strided rows; C = 12 and 24 leave
    # a part block of channels. float16 / bfloat16 are held to one ulp of the result's dtype plus
    # 1e-5 * m. golden_test.cc runs every case with the default thread count and with
    # ACLNN_UPSAMPLE_NUM_THREADS=4, where phase 1 cuts a plane into up to 16 row bands (4 tasks
    # per thread); the "band" cases have 16 to 32 result rows per plane, so they run 12 to 16
    # bands of one to two rows on several threads, and widths of 40 to 64 that reach each vector
    # form of the planar W pass on 8- and 16-lane targets (uniform interior at 2x, periodic at
    # 1.5x and at a bilinear 2x downsample, blocked windows for bicubic; checked against the plan
    # code when these cases were added, which may choose differently later).
    cl, nhwc = "channels_last", "nhwc"
    for dt in ("float32", "float16", "bfloat16"):
        t = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}[dt]
        add(f"bilinear_{t}_cl_c8_up2", "bilinear", 0, 0, 0, 1, 8, 12, 10, 6, 5,
            dtype=dt, layout=cl)
        add(f"bilinear_{t}_cl_c16_1p5_a1", "bilinear", 1, 0, 0, 1, 16, 9, 12, 6, 8,
            dtype=dt, layout=cl)
        add(f"bilinear_{t}_nhwc_c8_down", "bilinear", 0, 0, 0, 1, 8, 5, 7, 11, 13,
            dtype=dt, layout=nhwc)
        add(f"bilinear_{t}_nhwc_c3_a1", "bilinear", 1, 0, 0, 1, 3, 12, 9, 5, 4,
            dtype=dt, layout=nhwc)
        add(f"aa_{t}_cl_c8_up", "bicubic_aa", 0, 0, 0, 1, 8, 14, 10, 7, 5, dtype=dt, layout=cl)
        add(f"aa_{t}_cl_c12_down", "bicubic_aa", 0, 0, 0, 1, 12, 4, 5, 9, 11,
            dtype=dt, layout=cl)
        if dt != "float32":
            # Planar plans of the 16-bit dtypes (the float32 ones are all the cases above).
            add(f"bilinear_{t}_up_a0", "bilinear", 0, 0, 0, 2, 3, 13, 17, 5, 7, dtype=dt)
            add(f"aa_{t}_down_a1", "bicubic_aa", 1, 0, 0, 1, 2, 7, 5, 31, 17, dtype=dt)
            add(f"aa_{t}_up_scales", "bicubic_aa", 0, 2.0, 3.0, 1, 2, 14, 15, 7, 5, dtype=dt)
    add("bilinear_f32_cl_c3_up2", "bilinear", 0, 0, 0, 1, 3, 10, 14, 5, 7, layout=cl)
    add("bilinear_f32_nhwc_c8_scales", "bilinear", 0, 2.0, 2.0, 1, 8, 14, 10, 7, 5, layout=nhwc)
    add("bilinear_f32_nhwc_c24_up2_a1", "bilinear", 1, 0, 0, 1, 24, 8, 6, 4, 3, layout=nhwc)
    add("aa_f32_cl_c3_down", "bicubic_aa", 0, 0, 0, 1, 3, 5, 4, 11, 9, layout=cl)
    add("bilinear_f32_band_up2", "bilinear", 0, 0, 0, 1, 1, 64, 80, 32, 40)
    add("bilinear_f32_band_1p5", "bilinear", 0, 0, 0, 1, 1, 48, 60, 32, 40)
    add("bilinear_f32_band_down2", "bilinear", 0, 0, 0, 1, 1, 16, 32, 32, 64)
    add("bilinear_f16_band_cl_c8", "bilinear", 0, 0, 0, 1, 8, 32, 16, 16, 8,
        dtype="float16", layout=cl)
    add("aa_f32_band_down2", "bicubic_aa", 0, 0, 0, 1, 1, 16, 32, 32, 64)
    add("aa_bf16_band_up2", "bicubic_aa", 1, 0, 0, 1, 1, 48, 80, 24, 40, dtype="bfloat16")
    return cases


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "golden_cases.txt"))
    args = parser.parse_args()

    gen = torch.Generator().manual_seed(SEED)
    cases = build_cases()
    names = set()
    chunks = [
        "# Generated by tests/golden/generate_golden.py with torch %s; do not edit.\n"
        "# case <name> <op> <dtype> <layout> <align> <scalesH> <scalesW> <N> <C> <H_out> <W_out>"
        " <H_in> <W_in>\n"
        "#   dtype: float32 | float16 | bfloat16; layout: nchw | channels_last (NCHW dims,\n"
        "#   channels-last strides) | nhwc (the NHWC format, bilinear only)\n"
        "# blocks, in logical (n, c, h, w) order whatever the layout: grad (values exact in the\n"
        "# dtype), expect (float64 torch result), mag (|A_H|^T|G||A_W|), torch32 (torch's float32\n"
        "# result, informational; float32 cases only)\n"
        "# end <number of cases>\n" % torch.__version__
    ]
    for cs in cases:
        assert cs.name not in names, cs.name
        names.add(cs.name)
        shape = (cs.n, cs.c, cs.h_out, cs.w_out)
        if cs.grad is None:
            grad = torch.randn(shape, generator=gen, dtype=torch.float64)
        else:
            grad = cs.grad.reshape(shape)
        # Store exactly what the library will read in the case's dtype.
        grad = grad.to(DTYPES[cs.dtype]).to(torch.float64)
        assert grad.numel() <= 8000 and cs.n * cs.c * cs.h_in * cs.w_in <= 4000, cs.name

        sh = torch_scale(cs.op, cs.h_in, cs.h_out, cs.scales_h)
        sw = torch_scale(cs.op, cs.w_in, cs.w_out, cs.scales_w)
        in_size = (cs.n, cs.c, cs.h_in, cs.w_in)
        expect = backward(cs.op, grad, (cs.h_out, cs.w_out), in_size, cs.align, sh, sw)
        t32 = backward(cs.op, grad.float(), (cs.h_out, cs.w_out), in_size, cs.align, sh, sw)

        a_h = axis_matrix(cs.op, cs.h_in, cs.h_out, cs.align, sh)
        a_w = axis_matrix(cs.op, cs.w_in, cs.w_out, cs.align, sw)
        for axis, a, inp, out, sc in (("H", a_h, cs.h_in, cs.h_out, sh),
                                      ("W", a_w, cs.w_in, cs.w_out, sw)):
            k = contract_matrix(cs.op, inp, out, cs.align, sc or 0.0)
            if not torch.allclose(k, a, rtol=0, atol=1e-12):
                print("note: %s axis %s: torch differs from the contract's formula (max %.3g)" %
                      (cs.name, axis, (k - a).abs().max().item()), file=sys.stderr)
            f = axis_matrix(cs.op, inp, out, cs.align, sc, use_forward=True)
            if not torch.allclose(f, a, rtol=0, atol=1e-12):
                print("note: %s axis %s: torch forward and backward disagree (max %.3g)" %
                      (cs.name, axis, (f - a).abs().max().item()), file=sys.stderr)
        # Sanity: torch's backward is separable, A_H^T G A_W with the matrices read off above.
        dense = torch.einsum("oi,ncop,pj->ncij", a_h, grad, a_w)
        err = (dense - expect).abs().max().item()
        assert err <= 1e-12 * max(1.0, expect.abs().max().item()), (cs.name, err)
        mag = torch.einsum("oi,ncop,pj->ncij", a_h.abs(), grad.abs(), a_w.abs())

        chunks.append("case %s %s %s %s %d %.17g %.17g %d %d %d %d %d %d\n" % (
            cs.name, cs.op, cs.dtype, cs.layout, cs.align, cs.scales_h, cs.scales_w, cs.n, cs.c,
            cs.h_out, cs.w_out, cs.h_in, cs.w_in))
        chunks.append("grad\n" + fmt(grad.flatten().tolist(), "%.9g") + "\n")
        chunks.append("expect\n" + fmt(expect.flatten().tolist(), "%.17g") + "\n")
        chunks.append("mag\n" + fmt(mag.flatten().tolist(), "%.17g") + "\n")
        if cs.dtype == "float32":
            chunks.append("torch32\n" + fmt(t32.double().flatten().tolist(), "%.9g") + "\n")

    chunks.append("end %d\n" % len(cases))
    text = "".join(chunks)
    with open(args.out, "w") as f:
        f.write(text)
    print("%d cases, %d bytes -> %s" % (len(cases), len(text), args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
