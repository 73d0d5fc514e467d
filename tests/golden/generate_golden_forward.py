#!/usr/bin/env python3
"""Generates the forward fixtures from PyTorch (a developer tool; CI never runs it).

tests/golden/golden_forward_cases.txt holds the first ones, of aclnnUpsampleBilinear2d and
aclnnUpsampleBicubic2dAA (the op field names the mode); tests/golden/golden_table_forward_cases.txt
holds those of every forward row of the operator table (the op field names the row), from
golden_rows.table_cases. Every case is computed with the row's own torch forward op in float64
(golden_rows.write_fixtures), so `expect` is the exact answer for the input that the file stores,
whose values are exact in the case's dtype (the library reads them in that dtype). Alongside it
the file carries `mag`, the contract's error scale m = |A_H| |x| |A_W|^T (section 4), from the
dense 1-D matrices read off torch's forward op (unit inputs), so the C++ test can apply the
tolerance `1e-5 * m` element by element, and `torch32`, torch's own float32 answer, for
information (float32 cases only).

Torch's AA forward ops skip an axis whose size does not change even when a scale != 1 is given,
while their backward ops (and the contract, and this library in both directions) use the scale
(TORCH_NOTES.md). Where torch's forward and backward matrices disagree the case is left out of
the file with a note on stderr: such a fixture would hold torch's quirk, not the contract. Where
torch's forward differs from the formulas (golden_rows.formula_matrix), a note goes to stderr
too (TORCH_NOTES.md records those cases).

Usage: python3 tests/golden/generate_golden_forward.py [--out-dir tests/golden]
"""

import argparse
import os

import torch

from golden_rows import FORWARD, Case, row_of, table_cases, write_fixtures

SEED = 20261130
TABLE_SEED = 20261202


def build_cases():
    """The first fixtures (golden_forward_cases.txt), of the two forward rows that came first;
    the op field names the mode."""
    cases = []

    def add(name, op, align, scales_h, scales_w, n, c, h_in, w_in, h_out, w_out,
            dtype="float32", layout="nchw"):
        cases.append(Case(name, row_of(op, FORWARD), align, scales_h, scales_w, n, c, h_in, w_in,
                          h_out, w_out, dtype=dtype, layout=layout, field=op))

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


HEADER = (
    "# Generated by tests/golden/generate_golden_forward.py with torch %s; do not edit.\n"
    "# case <name> <op> <dtype> <layout> <align> <scalesH> <scalesW> <N> <C> <H_in> <W_in>"
    " <H_out> <W_out>\n"
    "#   dtype: float32 | float16 | bfloat16; layout: nchw | channels_last (NCHW dims,\n"
    "#   channels-last strides) | nhwc (the NHWC format, bilinear only) | nd (the ND format,\n"
    "#   bicubic AA only)\n"
    "# blocks, in logical (n, c, h, w) order whatever the layout: input (values exact in the\n"
    "# dtype), expect (float64 torch forward), mag (|A_H||x||A_W|^T), torch32 (torch's\n"
    "# float32 result, informational; float32 cases only)\n"
    "# end <number of cases>\n" % torch.__version__)

TABLE_HEADER = (
    "# Generated by tests/golden/generate_golden_forward.py with torch %s; do not edit.\n"
    "# case <name> <row> <dtype> <layout> <align> <scalesH> <scalesW> <N> <C> <H_in> <W_in>"
    " <H_out> <W_out>\n"
    "#   row: the operator table's forward row (its CANN name); align and scales as the row's\n"
    "#   GetWorkspaceSize gets them (0 where the operator lacks the parameter);\n"
    "#   dtype: float32 | float16 | bfloat16; layout: nchw | channels_last (NCHW dims,\n"
    "#   channels-last strides) | nhwc (the NHWC format) | nd (the ND format)\n"
    "# blocks, in logical (n, c, h, w) order whatever the layout: input (values exact in the\n"
    "# dtype; nan, inf and -inf included), expect (float64 torch forward), mag (|A_H||x||A_W|^T\n"
    "# over the finite elements of x), torch32 (torch's float32 result, informational; float32\n"
    "# cases only)\n"
    "# end <number of cases>\n" % torch.__version__)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    write_fixtures(os.path.join(args.out_dir, "golden_forward_cases.txt"), HEADER, build_cases(),
                   SEED, "input")
    write_fixtures(os.path.join(args.out_dir, "golden_table_forward_cases.txt"), TABLE_HEADER,
                   table_cases(FORWARD), TABLE_SEED, "input")


if __name__ == "__main__":
    main()
