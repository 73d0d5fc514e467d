#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/fuzz_api.cc into fuzz/corpus/.

Each seed is the byte sequence ReadCase() reads, field by field; the seeds cover every row of
the operator table (forward and backward), the three dtypes, every format and layout, the empty
problem, typical rejections and each phase-2 mode, so that fuzzing starts from calls that reach
the kernels.

    python3 fuzz/make_corpus.py
"""
import os
import re
import struct

# The rows of the operator table (src/ops/operator_table.cc) in its order: an input's first byte
# picks a row (byte % row count). New rows are appended, so a seed keeps its row;
# check_table_order() fails when the table changes under the seeds.
TABLE = ["kUpsampleBilinear2d", "kUpsampleBilinear2dBackwardV2", "kUpsampleBicubic2dAA",
         "kUpsampleBicubic2dAAGrad", "kUpsampleBilinear2dBackward", "kUpsampleBilinear2dAA",
         "kUpsampleBilinear2dAABackward", "kUpsampleBicubic2d", "kUpsampleBicubic2dBackward",
         "kUpsampleNearest2dV2", "kUpsampleNearest2d", "kUpsampleNearest2dBackward",
         "kUpsampleNearestExact2d", "kUpsampleNearestExact2dBackward"]
(BILINEAR_FORWARD, BILINEAR, BICUBIC_FORWARD, BICUBIC, BILINEAR_V1, BILINEAR_AA_FORWARD,
 BILINEAR_AA, CUBIC_FORWARD, CUBIC, NEAREST_FORWARD, NEAREST_V1_FORWARD, NEAREST,
 NEAREST_EXACT_FORWARD, NEAREST_EXACT) = range(len(TABLE))
F32, F16, BF16, INT32 = 0, 20, 38, 58  # PickDType selectors (58 % 17 == 7: ACL_INT64)
NCHW, ALT = 0, 1  # ALT: the row's other format: NHWC where the row takes it, else ND
NHWC = ALT
ND = 3  # PickFormat's selector of ACL_FORMAT_ND, for rows that take both NHWC and ND


def dim(d):
    """PickDim kind 3 gives 1 + v % 300, kind 4 gives 0, kind 5 gives 2^20."""
    if d == 0:
        return (4, 0)
    if d == 1 << 20:
        return (5, 0)
    assert 1 <= d <= 300
    return (3, d - 1)


def tensor(layout=0, offset=0, storage=0, mutation=0, seed=0):
    return struct.pack("<BBBBI", layout, offset, storage, mutation, seed)


def case(op=BILINEAR, align=False, threads=0, shared=False, stream=False, destroy_early=False,
         dtype=F32, out_dtype=0, fmt=NCHW, out_fmt=0, dims=(1, 1, 4, 4, 2, 2),
         source=None, out=None, output_kind=0, input_kind=0, array_seed=0,
         scale_h=(0, 0), scale_w=(0, 0), nulls=0, phase2=0, values=0, value_seed=1):
    flags = (2 if align else 0) | (4 if destroy_early else 0) | (8 if shared else 0)
    flags |= (16 if stream else 0) | (threads << 5)
    data = struct.pack("<BBBBBB", op, flags, dtype, out_dtype, fmt, out_fmt)
    for d in dims:  # N, C, H_out, W_out, H_in, W_in (forward sizes, whichever direction)
        kind, value = dim(d)
        data += struct.pack("<BI", kind, value)
    data += source or tensor()
    data += out or tensor()
    data += struct.pack("<BBI", output_kind, input_kind, array_seed)
    data += struct.pack("<BQ", *scale_h) + struct.pack("<BQ", *scale_w)
    data += struct.pack("<BBBQ", nulls, phase2, values, value_seed)
    return data


SEEDS = {
    # The official call examples (section 1.4).
    "bilinear_example": case(dims=(1, 1, 6, 6, 3, 3), align=True, values=6,
                             scale_h=(1, 0), scale_w=(1, 0)),
    "bicubic_example": case(op=BICUBIC, dims=(1, 1, 4, 2, 8, 4), align=True,
                            scale_h=(1, 0), scale_w=(1, 0)),
    # dtypes, formats and layouts, each with one phase-2 mode (1 short workspace, 2 null
    # workspace, 3 null executor, 4 unknown executors, 5 the other operator's phase 2,
    # 6 repeatable, 7 single use twice, 8 destroyed first, 9 oversized workspace, 10 another
    # thread count).
    "bilinear_fp16_nhwc_up": case(dtype=F16, fmt=NHWC, dims=(2, 3, 8, 6, 4, 3), values=1,
                                  phase2=1),
    "bilinear_bf16_down": case(dtype=BF16, dims=(1, 2, 5, 7, 13, 11), values=2, threads=3,
                               phase2=2),
    "bicubic_fp16_nd_down": case(op=BICUBIC, dtype=F16, fmt=ALT, dims=(1, 2, 3, 4, 17, 9),
                                 values=1, phase2=3, destroy_early=True),
    "bicubic_bf16_up": case(op=BICUBIC, dtype=BF16, dims=(2, 1, 20, 15, 4, 3), values=2,
                            phase2=4),
    "bilinear_channels_last_c16": case(dims=(1, 16, 9, 7, 5, 4), source=tensor(layout=2),
                                       out=tensor(layout=2), values=1, threads=2, phase2=10),
    "bicubic_padded_offset": case(op=BICUBIC, dims=(2, 2, 6, 5, 9, 8),
                                  source=tensor(layout=4, offset=1, seed=7),
                                  out=tensor(layout=3, offset=1, storage=1, seed=11), values=1,
                                  phase2=6, stream=True),
    "bilinear_broadcast_grad": case(dims=(1, 2, 30, 40, 7, 9), source=tensor(layout=5), values=0,
                                    phase2=5),
    "bilinear_scales_inconsistent": case(dims=(1, 1, 10, 10, 10, 10), scale_h=(2, 10),
                                         scale_w=(6, 333), values=1, phase2=7),
    "bicubic_tiny_scale": case(op=BICUBIC, dims=(1, 1, 3, 3, 5, 5), scale_h=(2, 18),
                               values=0, phase2=8),
    "shared_disjoint": case(shared=True, dims=(1, 1, 2, 2, 4, 4),
                            source=tensor(offset=1, storage=1, seed=40), phase2=9),
    # Boundaries and rejections.
    "bilinear_empty_batch": case(dims=(0, 3, 4, 4, 2, 2)),
    "bilinear_wide_2p20": case(dims=(1, 1, 1, 1 << 20, 1, 2), source=tensor(layout=5)),
    "reject_int64_dtype": case(dtype=INT32),
    "reject_rank3_out": case(out=tensor(mutation=1)),
    "reject_overlap_shared": case(shared=True, dims=(1, 1, 4, 4, 4, 4)),
    "reject_negative_stride": case(out=tensor(layout=6, seed=5)),
    "reject_null_executor_out_param": case(nulls=2),
    # Values: overflow, subnormals, NaN/Inf.
    "fp16_overflow": case(dtype=F16, dims=(1, 1, 8, 8, 4, 4), values=6 + 8 * 1),
    "fp32_subnormal": case(dims=(1, 1, 8, 8, 4, 4), values=4),
    # Any bit pattern (huge, tiny, subnormal) in one plane, with each result element made of one
    # gradOut value times 0.5: subnormal results beside values up to 3e38, where a tolerance that
    # scaled with the plane's largest value hid flushed subnormals (FTZ/DAZ).
    "fp32_mixed_magnitudes": case(dims=(1, 1, 64, 1, 64, 2), values=5, value_seed=1),
    "fp16_subnormal": case(op=BICUBIC, dtype=F16, dims=(1, 1, 6, 6, 3, 3), values=4),
    "nan_inf_propagation": case(op=BICUBIC, dims=(1, 2, 9, 9, 5, 5), values=7, value_seed=3),
    # Many small planes (2 x 80 or more, rows of at most 32): the plane-group layout, its last
    # group short of planes, padded rows, 16-bit, NaN and Inf.
    "plane_groups_bilinear": case(dims=(2, 81, 28, 28, 14, 14), values=1, threads=2),
    "plane_groups_bicubic_bf16_padded": case(op=BICUBIC, dtype=BF16, dims=(3, 50, 9, 7, 19, 13),
                                             source=tensor(layout=4, seed=3),
                                             out=tensor(layout=4, seed=5), values=2),
    "plane_groups_forward_nearest_nan": case(op=NEAREST_FORWARD, dims=(1, 140, 16, 12, 7, 9),
                                             values=7, value_seed=2),
    "plane_groups_forward_bilinear_aa_fp16": case(op=BILINEAR_AA_FORWARD, dtype=F16,
                                                  dims=(4, 40, 8, 8, 30, 30), values=1),
    # The forward operators: source (self, x) is H_in x W_in, out is outputSize.
    # CANN's documented bilinear example, 3 x 3 onto 5 x 5, in both align modes.
    "forward_bilinear_example": case(op=BILINEAR_FORWARD, dims=(1, 1, 5, 5, 3, 3)),
    "forward_bilinear_example_align": case(op=BILINEAR_FORWARD, align=True,
                                           dims=(1, 1, 5, 5, 3, 3), phase2=7),
    "forward_bilinear_fp16_nhwc_down": case(op=BILINEAR_FORWARD, dtype=F16, fmt=NHWC,
                                            dims=(2, 3, 4, 5, 9, 11), values=1, phase2=1),
    "forward_bilinear_bf16_scales": case(op=BILINEAR_FORWARD, dtype=BF16, dims=(1, 2, 9, 7, 3, 2),
                                         scale_h=(1, 0), scale_w=(6, 777), values=2, phase2=6),
    "forward_bilinear_channels_last_c16": case(op=BILINEAR_FORWARD, dims=(1, 16, 7, 9, 4, 5),
                                               source=tensor(layout=2), out=tensor(layout=2),
                                               values=1, phase2=10),
    "forward_bilinear_empty_batch": case(op=BILINEAR_FORWARD, dims=(0, 3, 4, 4, 2, 2)),
    # A forward signature has no inputSize: a null one passed through the table is ignored.
    "forward_bilinear_null_input_size": case(op=BILINEAR_FORWARD, input_kind=3, values=1,
                                             phase2=5),
    "reject_forward_bilinear_negative_scale": case(op=BILINEAR_FORWARD, dims=(1, 1, 6, 6, 3, 3),
                                                   scale_h=(4, 0)),
    "forward_bicubic_example": case(op=BICUBIC_FORWARD, align=True, dims=(1, 1, 4, 2, 8, 4),
                                    scale_h=(1, 0), scale_w=(1, 0)),
    "forward_bicubic_fp16_nd_up": case(op=BICUBIC_FORWARD, dtype=F16, fmt=ALT,
                                       dims=(1, 2, 12, 10, 4, 3), values=1, phase2=10),
    "forward_bicubic_bf16_down_padded": case(op=BICUBIC_FORWARD, dtype=BF16,
                                             dims=(2, 2, 5, 6, 17, 13),
                                             source=tensor(layout=4, offset=1, seed=7),
                                             out=tensor(layout=3, offset=1, storage=1, seed=11),
                                             values=2, phase2=4, destroy_early=True),
    "forward_bicubic_shared_disjoint": case(op=BICUBIC_FORWARD, shared=True,
                                            dims=(1, 1, 4, 4, 2, 2),
                                            source=tensor(offset=1, storage=1, seed=40), phase2=9),
    "reject_forward_bicubic_upscale_51": case(op=BICUBIC_FORWARD, dims=(1, 1, 102, 2, 2, 2)),
    "reject_forward_bicubic_empty": case(op=BICUBIC_FORWARD, dims=(1, 0, 4, 4, 2, 2)),
    "forward_nan_inf_propagation": case(op=BICUBIC_FORWARD, dims=(1, 2, 5, 5, 9, 9), values=7,
                                        value_seed=3, phase2=3),
    # The rows of issue 15 (scale kinds: 1 out/in, 2 the specials of PickScale, 4 -out/in,
    # 6 out/in times 0.5 .. 2.5).
    # Bilinear V1: scales used as given, consistent with outputSize or not (V2 would not use
    # these), NHWC, the empty batch rejected.
    "bilinear_v1_inconsistent_scales": case(op=BILINEAR_V1, dims=(1, 2, 9, 7, 4, 3),
                                            scale_h=(6, 333), scale_w=(2, 21), values=1,
                                            phase2=6),
    "bilinear_v1_fp16_nhwc_align": case(op=BILINEAR_V1, dtype=F16, fmt=NHWC, align=True,
                                        dims=(2, 3, 8, 6, 4, 3), values=1, phase2=10),
    "reject_bilinear_v1_empty": case(op=BILINEAR_V1, dims=(0, 3, 4, 4, 2, 2)),
    # Antialiased bilinear: the triangle filter widened when downsampling, ND, scales.
    "bilinear_aa_forward_down": case(op=BILINEAR_AA_FORWARD, dims=(1, 2, 4, 5, 17, 11),
                                     values=1, phase2=10),
    "bilinear_aa_forward_bf16_nd_up_align": case(op=BILINEAR_AA_FORWARD, dtype=BF16, fmt=ND,
                                                 align=True, dims=(2, 1, 12, 9, 4, 3), values=2,
                                                 phase2=6),
    "bilinear_aa_down_scales": case(op=BILINEAR_AA, dims=(1, 2, 3, 4, 13, 9), scale_h=(6, 777),
                                    scale_w=(1, 0), values=1, phase2=4),
    "bilinear_aa_fp16_up": case(op=BILINEAR_AA, dtype=F16, dims=(1, 3, 10, 7, 4, 3), values=1,
                                phase2=3, destroy_early=True),
    "reject_bilinear_aa_negative_scale": case(op=BILINEAR_AA, dims=(1, 1, 4, 4, 8, 8),
                                              scale_w=(4, 0)),
    # Bicubic, a = -0.75 with clamped taps: up, down, alignCorners, a scale that puts the
    # taps past the border, NaN/Inf, NHWC.
    "bicubic_forward_up": case(op=CUBIC_FORWARD, dims=(1, 2, 11, 9, 4, 3), values=1, phase2=10),
    "bicubic_forward_bf16_nhwc_down_align": case(op=CUBIC_FORWARD, dtype=BF16, fmt=NHWC,
                                                 align=True, dims=(2, 3, 4, 5, 9, 13),
                                                 values=2, phase2=6),
    "bicubic_forward_nan_inf": case(op=CUBIC_FORWARD, dims=(1, 2, 9, 9, 5, 5), values=7,
                                    value_seed=3),
    "bicubic_backward_down_scales": case(op=CUBIC, dims=(1, 2, 5, 4, 12, 9), scale_h=(6, 500),
                                         scale_w=(2, 21), values=1, phase2=4),
    "bicubic_backward_fp16_nd_up": case(op=CUBIC, dtype=F16, fmt=ND, dims=(1, 3, 13, 10, 4, 3),
                                        values=1, phase2=1),
    "bicubic_backward_1xN": case(op=CUBIC, dims=(2, 1, 1, 9, 1, 4), values=1, phase2=7),
    # Nearest V2 (float scales): the 2x shortcut, an odd ratio, given scales (rounded to
    # float), an alignCorners the operator ignores, NHWC.
    "nearest_forward_2x": case(op=NEAREST_FORWARD, dims=(1, 2, 8, 10, 4, 5), values=5,
                               phase2=10),
    "nearest_forward_odd_align_ignored": case(op=NEAREST_FORWARD, align=True,
                                              dims=(1, 2, 7, 11, 5, 3), values=1, phase2=6),
    "nearest_forward_scales_nhwc_fp16": case(op=NEAREST_FORWARD, dtype=F16, fmt=NHWC,
                                             dims=(2, 3, 9, 7, 4, 5), scale_h=(2, 21),
                                             scale_w=(6, 123), values=5),
    "nearest_forward_empty_batch": case(op=NEAREST_FORWARD, dims=(0, 3, 4, 4, 2, 2)),
    # Nearest V1: no scales (those passed, negative ones too, are ignored).
    "nearest_v1_forward_scales_ignored": case(op=NEAREST_V1_FORWARD, dims=(1, 2, 9, 6, 4, 4),
                                              scale_h=(4, 0), scale_w=(2, 2), values=5,
                                              phase2=3),
    "nearest_v1_forward_bf16_down": case(op=NEAREST_V1_FORWARD, dtype=BF16,
                                         dims=(1, 3, 3, 5, 10, 13), values=2, phase2=6),
    # Nearest backward: a gather-sum, down and up, scales, NaN/Inf.
    "nearest_backward_up": case(op=NEAREST, dims=(1, 2, 12, 9, 5, 4), values=1, phase2=10),
    "nearest_backward_down_scales_bf16": case(op=NEAREST, dtype=BF16, dims=(2, 1, 3, 4, 9, 11),
                                              scale_h=(6, 250), scale_w=(1, 0), values=2,
                                              phase2=4),
    "nearest_backward_nan_inf": case(op=NEAREST, dims=(1, 2, 9, 9, 4, 4), values=7,
                                     value_seed=3),
    # Nearest exact: its own rounding, ND, the 50x limit of the backward, negative scales.
    "nearest_exact_forward_odd_nd": case(op=NEAREST_EXACT_FORWARD, fmt=ND,
                                         dims=(1, 2, 7, 10, 3, 4), values=5, phase2=10),
    "nearest_exact_forward_scales": case(op=NEAREST_EXACT_FORWARD, dims=(1, 1, 9, 9, 4, 4),
                                         scale_h=(6, 600), scale_w=(2, 21), values=1,
                                         phase2=6),
    "reject_nearest_exact_forward_negative_scale": case(op=NEAREST_EXACT_FORWARD,
                                                        dims=(1, 1, 8, 8, 4, 4),
                                                        scale_h=(4, 0)),
    "nearest_exact_backward_fp16_up": case(op=NEAREST_EXACT, dtype=F16,
                                           dims=(1, 3, 11, 8, 4, 3), values=1, phase2=7),
    "reject_nearest_exact_backward_upscale_51": case(op=NEAREST_EXACT, dims=(1, 1, 102, 2, 2, 2)),
}


# Reproducers of library bugs the fuzzer found (fuzz/regressions/README.md describes them: bugs
# 1 and 2 fixed in b020815, bug 3 in 2e26ccb); build_and_run.sh replays them before fuzzing.
# Regenerated here so that they stay readable.
REGRESSIONS = {
    # scalesW = 5e-324: 1/scales = Inf passes the 50x check, the centre becomes Inf - Inf = NaN
    # and bicubic_aa_weights.cc converts it to int64 (UBSan: float-cast-overflow).
    "bug1_bicubic_denormal_scale_nan_to_int64": case(
        op=BICUBIC, dims=(1, 1, 4, 4, 6, 6), scale_w=(2, 7), values=1),
    # scalesH = 1e-300: a finite ratio of 1e300, the row bounds +-1.5e300 convert to int64 out
    # of range; on x86 both become INT64_MIN and the rows lose all their taps.
    "bug1_bicubic_tiny_scale_out_of_range_int64": case(
        op=BICUBIC, dims=(1, 1, 4, 4, 6, 6), scale_h=(2, 6), values=1),
    # An empty view (N = 0) with offset INT64_MAX: no storage check applies to an empty view,
    # and validation.cc then computes offset * sizeof(dtype) (UBSan: signed overflow).
    "bug2_empty_view_huge_offset_overflow": case(
        dims=(0, 3, 4, 4, 2, 2), out=tensor(offset=4)),
    # gradOut's H stride replaced by 2^62 (layout 6 with this seed): the many-tap test of the H
    # pass (combine-inl.h, UseManyTapForm) multiplied the row stride by the element size before
    # it looked at the tap count (UBSan: signed overflow).
    "bug3_huge_row_stride_many_tap_overflow": case(
        dims=(1, 2, 1, 1, 4, 1), source=tensor(layout=6, seed=2051)),
    # gradInput's W stride replaced by 2^62 (layout 6 with seed 60) on a 1 x 1 identity: the
    # copy path (execute.cc, RunCopyTask) multiplied every row's W stride by the element size,
    # also for a W of 1 (UBSan: signed overflow).
    "bug4_unit_axis_huge_stride_copy_overflow": case(
        op=BILINEAR_AA, dims=(1, 4, 1, 1, 1, 1), out=tensor(layout=6, seed=60)),
}


def write(directory, files):
    os.makedirs(directory, exist_ok=True)
    for stale in os.listdir(directory):  # inputs only; README.md stays
        if not stale.endswith(".md"):
            os.remove(os.path.join(directory, stale))
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(files)} files to {directory}")


def check_table_order(root):
    """The seeds name rows by index: fail when the table's order is not TABLE's."""
    with open(os.path.join(root, "src", "ops", "operator_table.cc")) as f:
        text = f.read()
    rows = re.search(r"kOperators\[\] = \{(.*?)\};", text, re.S)
    order = re.findall(r"&(\w+)", rows.group(1)) if rows else []
    if order != TABLE:
        raise SystemExit(f"operator table order {order} differs from make_corpus.py's {TABLE}: "
                         "update TABLE (and the seeds' op= values)")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    check_table_order(os.path.dirname(here))
    write(os.path.join(here, "corpus"), SEEDS)
    write(os.path.join(here, "regressions"), REGRESSIONS)


if __name__ == "__main__":
    main()
