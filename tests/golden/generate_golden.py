#!/usr/bin/env python3
"""Generates the backward fixtures from PyTorch (a developer tool; CI never runs it).

tests/golden/golden_cases.txt holds the first ones, of aclnnUpsampleBilinear2dBackwardV2 and
aclnnUpsampleBicubic2dAAGrad (the op field names the mode); tests/golden/golden_table_cases.txt
holds those of every backward row of the operator table (the op field names the row), from
golden_rows.table_cases. Every case is computed with the row's own torch backward op in float64
(golden_rows.write_fixtures), so `expect` is the exact answer for the gradOut that the file
stores, whose values are exact in the case's dtype (float32, float16 or bfloat16: the library
reads them in that dtype). Alongside it the file carries `mag`, the contract's error scale
m = |A_H|^T |gradOut| |A_W| (section 4), built from the dense 1-D matrices read off torch's
backward op (torch's AA forward skips an axis whose size does not change even when a scale != 1
is given, so only the backward matrices match `expect`), and `torch32`, torch's own float32
answer, for information (float32 cases only). Each case also names the layout the C++ test
stores its tensors in (contiguous NCHW, NCHW with channels-last strides, the NHWC format or the
ND format); the blocks are always in logical (n, c, h, w) order. Where torch's matrices differ
from the formulas or torch's forward from its backward, a note goes to stderr; TORCH_NOTES.md
records those cases.

Usage: python3 tests/golden/generate_golden.py [--out-dir tests/golden]
"""

import argparse
import os

import torch

from golden_rows import BACKWARD, Case, row_of, table_cases, write_fixtures

SEED = 20240611
TABLE_SEED = 20261201

def build_cases():
    """The first fixtures (golden_cases.txt), of the two backward rows that came first; the op
    field names the mode."""
    cases = []

    def add(name, op, align, scales_h, scales_w, n, c, h_out, w_out, h_in, w_in, grad=None,
            dtype="float32", layout="nchw"):
        cases.append(Case(name, row_of(op, BACKWARD), align, scales_h, scales_w, n, c, h_in,
                          w_in, h_out, w_out, values=grad, dtype=dtype, layout=layout, field=op))

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


HEADER = (
    "# Generated by tests/golden/generate_golden.py with torch %s; do not edit.\n"
    "# case <name> <op> <dtype> <layout> <align> <scalesH> <scalesW> <N> <C> <H_out> <W_out>"
    " <H_in> <W_in>\n"
    "#   dtype: float32 | float16 | bfloat16; layout: nchw | channels_last (NCHW dims,\n"
    "#   channels-last strides) | nhwc (the NHWC format, bilinear only)\n"
    "# blocks, in logical (n, c, h, w) order whatever the layout: grad (values exact in the\n"
    "# dtype), expect (float64 torch result), mag (|A_H|^T|G||A_W|), torch32 (torch's float32\n"
    "# result, informational; float32 cases only)\n"
    "# end <number of cases>\n" % torch.__version__)

TABLE_HEADER = (
    "# Generated by tests/golden/generate_golden.py with torch %s; do not edit.\n"
    "# case <name> <row> <dtype> <layout> <align> <scalesH> <scalesW> <N> <C> <H_out> <W_out>"
    " <H_in> <W_in>\n"
    "#   row: the operator table's backward row (its CANN name); align and scales as the row's\n"
    "#   GetWorkspaceSize gets them (0 where the operator lacks the parameter);\n"
    "#   dtype: float32 | float16 | bfloat16; layout: nchw | channels_last (NCHW dims,\n"
    "#   channels-last strides) | nhwc (the NHWC format) | nd (the ND format)\n"
    "# blocks, in logical (n, c, h, w) order whatever the layout: grad (values exact in the\n"
    "# dtype; nan, inf and -inf included), expect (float64 torch result), mag (|A_H|^T|G||A_W|\n"
    "# over the finite elements of G), torch32 (torch's float32 result, informational; float32\n"
    "# cases only)\n"
    "# end <number of cases>\n" % torch.__version__)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    write_fixtures(os.path.join(args.out_dir, "golden_cases.txt"), HEADER, build_cases(), SEED,
                   "grad")
    write_fixtures(os.path.join(args.out_dir, "golden_table_cases.txt"), TABLE_HEADER,
                   table_cases(BACKWARD), TABLE_SEED, "grad")


if __name__ == "__main__":
    main()
