#!/usr/bin/env python3
"""Generates tests/golden/golden_forward_cases.txt from PyTorch (a developer tool; CI never runs it).

The fixtures of the forward operators, aclnnUpsampleBilinear2d and aclnnUpsampleBicubic2dAA:
every case is computed with torch's own forward ops (upsample_bilinear2d and
_upsample_bicubic2d_aa) in float64, so `expect` is the exact answer for the input that the file
stores, whose values are exact in the case's dtype (the library reads them in that dtype).
Alongside it the file carries `mag`, the contract's error scale m = |A_H| |x| |A_W|^T (section 4),
from the dense 1-D matrices read off torch's forward ops (unit inputs), so the C++ test can apply
the tolerance `1e-5 * m` element by element, and `torch32`, torch's own float32 answer, for
information (float32 cases only).

Torch's AA forward skips an axis whose size does not change even when a scale != 1 is given,
while its backward (and the contract, and this library in both directions) uses the scale
(TORCH_NOTES.md). Where torch's forward and backward matrices disagree the case is left out of
the file with a note on stderr: such a fixture would hold torch's quirk, not the contract. Where
torch's forward differs from the contract's formulas as generate_golden.py writes them, a note
goes to stderr too (TORCH_NOTES.md records those cases).

Shares the scale rule, the contract's matrices and the number format with generate_golden.py.

Usage: python3 tests/golden/generate_golden_forward.py [--out tests/golden/golden_forward_cases.txt]
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_golden import DTYPES, axis_matrix, contract_matrix, fmt, torch_scale  # noqa: E402

SEED = 20261130
LAYOUTS = ("nchw", "channels_last", "nhwc", "nd")

forward_ops = {
    "bilinear": torch.ops.aten.upsample_bilinear2d,
    "bicubic_aa": torch.ops.aten._upsample_bicubic2d_aa,
}


class Case:
    def __init__(self, name, op, align, scales_h, scales_w, n, c, h_in, w_in, h_out, w_out,
                 dtype="float32", layout="nchw"):
        assert dtype in DTYPES and layout in LAYOUTS, name
        assert layout != "nhwc" or op == "bilinear", name  # bicubic AA takes NCHW or ND only
        assert layout != "nd" or op == "bicubic_aa", name  # bilinear takes NCHW or NHWC only
        self.name, self.op, self.align = name, op, align
        self.scales_h, self.scales_w = float(scales_h), float(scales_w)
        self.n, self.c = n, c
        self.h_in, self.w_in, self.h_out, self.w_out = h_in, w_in, h_out, w_out
        self.dtype, self.layout = dtype, layout


def build_cases():
    cases = []

    def add(*args, **kwargs):
        cases.append(Case(*args, **kwargs))

    for op, tag in (("bilinear", "bilinear"), ("bicubic_aa", "aa")):
        for a in (0, 1):
            add(f"{tag}_up_a{a}", op, a, 0, 0, 2, 3, 5, 7, 13, 17)
            add(f"{tag}_down_a{a}", op, a, 0, 0, 1, 2, 31, 17, 7, 5)
            add(f"{tag}_identity_a{a}", op, a, 0, 0, 1, 2, 9, 9, 9, 9)
            add(f"{tag}_mixed_upH_downW_a{a}", op, a, 0, 0, 1, 2, 5, 31, 13, 7)
            add(f"{tag}_odd_7_to_17_13_to_5_a{a}", op, a, 0, 0, 1, 1, 7, 13, 17, 5)
            add(f"{tag}_1xN_a{a}", op, a, 0, 0, 1, 2, 1, 40, 1, 17)
            add(f"{tag}_Nx1_a{a}", op, a, 0, 0, 1, 2, 40, 1, 17, 3)
            add(f"{tag}_scales_2_3_a{a}", op, a, 2.0, 3.0, 1, 2, 7, 5, 14, 15)
        add(f"{tag}_from1", op, 0, 0, 0, 1, 3, 1, 1, 5, 3)
        add(f"{tag}_to1", op, 0, 0, 0, 1, 3, 7, 5, 1, 1)
        add(f"{tag}_scales_1p5_2p5", op, 0, 1.5, 2.5, 1, 1, 13, 9, 19, 22)
        add(f"{tag}_scales_down", op, 0, 0.5, 0.3125, 1, 2, 16, 16, 8, 5)
        # Inconsistent with outputSize (floor(5 * 1.2) = 6 != 7): bilinear ignores the scales,
        # bicubic AA uses them as given.
        add(f"{tag}_scales_inconsistent", op, 0, 1.2, 1.2, 1, 2, 5, 7, 7, 9)
        # An unchanged axis with a scale: torch's AA forward skips it (left out, see the
        # docstring); bilinear copies an axis whose size does not change, whatever the scale.
        add(f"{tag}_identity_scales_1p2", op, 0, 1.2, 1.2, 1, 1, 9, 9, 9, 9)
        add(f"{tag}_identityH_scale_1p5_W_up", op, 0, 1.5, 0, 1, 1, 8, 5, 8, 11)
        for dt, t in (("float16", "f16"), ("bfloat16", "bf16")):
            add(f"{tag}_{t}_up_a0", op, 0, 0, 0, 2, 3, 5, 7, 13, 17, dtype=dt)
            add(f"{tag}_{t}_down_a1", op, 1, 0, 0, 1, 2, 31, 17, 7, 5, dtype=dt)
            add(f"{tag}_{t}_cl_c8_scales", op, 0, 2.0, 3.0, 1, 8, 5, 4, 10, 12, dtype=dt,
                layout="channels_last")
    # Bilinear: 1/scales below 0.01 (consistent, 2 -> 201 with 100.7) is ignored.
    add("bilinear_scales_tiny_ratio", "bilinear", 0, 100.7, 0, 1, 1, 2, 3, 201, 3)
    add("bilinear_scales_ignored_a1", "bilinear", 1, 2.0, 3.0, 1, 1, 7, 5, 14, 15)
    # Layouts: NCHW views with channels-last strides (C >= 8 runs the channels-last plan, C = 3
    # the planar one on strided rows) and the NHWC format, bilinear only.
    cl, nhwc = "channels_last", "nhwc"
    add("bilinear_f32_cl_c16_down_a1", "bilinear", 1, 0, 0, 1, 16, 9, 12, 6, 8, layout=cl)
    add("bilinear_f32_cl_c3_up2", "bilinear", 0, 0, 0, 1, 3, 5, 7, 10, 14, layout=cl)
    add("bilinear_f32_nhwc_c8_up", "bilinear", 0, 0, 0, 1, 8, 5, 7, 11, 13, layout=nhwc)
    add("bilinear_f32_nhwc_c3_a1", "bilinear", 1, 0, 0, 1, 3, 12, 9, 5, 4, layout=nhwc)
    add("bilinear_f32_nhwc_c24_scales", "bilinear", 0, 2.0, 2.0, 1, 24, 4, 3, 8, 6, layout=nhwc)
    add("bilinear_f16_nhwc_c8_down", "bilinear", 0, 0, 0, 1, 8, 11, 13, 5, 7, dtype="float16",
        layout=nhwc)
    add("bilinear_bf16_nhwc_c12_up_a1", "bilinear", 1, 0, 0, 1, 12, 4, 5, 9, 11,
        dtype="bfloat16", layout=nhwc)
    # Bicubic AA: upscaling by exactly 50 (the limit) and 30x downscaling; channels-last and ND.
    add("aa_up50", "bicubic_aa", 0, 0, 0, 1, 1, 1, 2, 50, 3)
    add("aa_up49_scale", "bicubic_aa", 0, 49.0, 0, 1, 1, 2, 2, 98, 2)
    add("aa_down30", "bicubic_aa", 0, 0, 0, 1, 1, 60, 60, 2, 2)
    add("aa_f32_cl_c12_down", "bicubic_aa", 0, 0, 0, 1, 12, 9, 11, 4, 5, layout=cl)
    add("aa_f32_cl_c3_up", "bicubic_aa", 1, 0, 0, 1, 3, 5, 4, 11, 9, layout=cl)
    add("aa_f32_nd_up", "bicubic_aa", 0, 0, 0, 1, 2, 5, 7, 13, 17, layout="nd")
    # Band cases: enough output rows that phase 1 cuts planes into many row bands at 4 threads.
    add("bilinear_f32_band_up2", "bilinear", 0, 0, 0, 1, 1, 16, 20, 32, 40)
    add("aa_f32_band_down2", "bicubic_aa", 0, 0, 0, 1, 1, 48, 40, 24, 20)
    return cases


def forward_matrix(op, inp, out, align, scale):
    """Dense out x inp matrix of one axis read off torch's forward op: unit inputs along W (a
    batch of `inp` images of shape 1 x inp) give the columns; H stays 1 -> 1, an identity."""
    eye = torch.eye(inp, dtype=torch.float64).reshape(inp, 1, 1, inp)
    y = forward_ops[op](eye, [1, out], bool(align), None, scale)
    return y[:, 0, 0, :].T.contiguous()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "golden_forward_cases.txt"))
    args = parser.parse_args()

    gen = torch.Generator().manual_seed(SEED)
    names = set()
    kept = 0
    chunks = [
        "# Generated by tests/golden/generate_golden_forward.py with torch %s; do not edit.\n"
        "# case <name> <op> <dtype> <layout> <align> <scalesH> <scalesW> <N> <C> <H_in> <W_in>"
        " <H_out> <W_out>\n"
        "#   dtype: float32 | float16 | bfloat16; layout: nchw | channels_last (NCHW dims,\n"
        "#   channels-last strides) | nhwc (the NHWC format, bilinear only) | nd (the ND format,\n"
        "#   bicubic AA only)\n"
        "# blocks, in logical (n, c, h, w) order whatever the layout: input (values exact in the\n"
        "# dtype), expect (float64 torch forward), mag (|A_H||x||A_W|^T), torch32 (torch's\n"
        "# float32 result, informational; float32 cases only)\n"
        "# end <number of cases>\n" % torch.__version__
    ]
    for cs in build_cases():
        assert cs.name not in names, cs.name
        names.add(cs.name)
        shape = (cs.n, cs.c, cs.h_in, cs.w_in)
        # Drawn for every case, kept or not, so that leaving one out does not change the others.
        x = torch.randn(shape, generator=gen, dtype=torch.float64)
        x = x.to(DTYPES[cs.dtype]).to(torch.float64)
        assert x.numel() <= 4000 and cs.n * cs.c * cs.h_out * cs.w_out <= 4000, cs.name

        sh = torch_scale(cs.op, cs.h_in, cs.h_out, cs.scales_h)
        sw = torch_scale(cs.op, cs.w_in, cs.w_out, cs.scales_w)
        out_hw = [cs.h_out, cs.w_out]
        expect = forward_ops[cs.op](x, out_hw, bool(cs.align), sh, sw)
        t32 = forward_ops[cs.op](x.float(), out_hw, bool(cs.align), sh, sw)

        a_h = forward_matrix(cs.op, cs.h_in, cs.h_out, cs.align, sh)
        a_w = forward_matrix(cs.op, cs.w_in, cs.w_out, cs.align, sw)
        quirk = False
        for axis, a, inp, out, sc in (("H", a_h, cs.h_in, cs.h_out, sh),
                                      ("W", a_w, cs.w_in, cs.w_out, sw)):
            backward = axis_matrix(cs.op, inp, out, cs.align, sc)
            if not torch.allclose(a, backward, rtol=0, atol=1e-12):
                print("left out: %s axis %s: torch's forward and backward disagree (max %.3g)" %
                      (cs.name, axis, (a - backward).abs().max().item()), file=sys.stderr)
                quirk = True
            k = contract_matrix(cs.op, inp, out, cs.align, sc or 0.0)
            if not torch.allclose(k, a, rtol=0, atol=1e-12):
                print("note: %s axis %s: torch differs from the contract's formula (max %.3g)" %
                      (cs.name, axis, (k - a).abs().max().item()), file=sys.stderr)
        if quirk:
            continue
        # Sanity: torch's forward is separable, A_H x A_W^T with the matrices read off above.
        dense = torch.einsum("oi,ncij,pj->ncop", a_h, x, a_w)
        err = (dense - expect).abs().max().item()
        assert err <= 1e-12 * max(1.0, expect.abs().max().item()), (cs.name, err)
        mag = torch.einsum("oi,ncij,pj->ncop", a_h.abs(), x.abs(), a_w.abs())

        chunks.append("case %s %s %s %s %d %.17g %.17g %d %d %d %d %d %d\n" % (
            cs.name, cs.op, cs.dtype, cs.layout, cs.align, cs.scales_h, cs.scales_w, cs.n, cs.c,
            cs.h_in, cs.w_in, cs.h_out, cs.w_out))
        chunks.append("input\n" + fmt(x.flatten().tolist(), "%.9g") + "\n")
        chunks.append("expect\n" + fmt(expect.flatten().tolist(), "%.17g") + "\n")
        chunks.append("mag\n" + fmt(mag.flatten().tolist(), "%.17g") + "\n")
        if cs.dtype == "float32":
            chunks.append("torch32\n" + fmt(t32.double().flatten().tolist(), "%.9g") + "\n")
        kept += 1

    chunks.append("end %d\n" % kept)
    text = "".join(chunks)
    with open(args.out, "w") as f:
        f.write(text)
    print("%d cases, %d bytes -> %s" % (kept, len(text), args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
