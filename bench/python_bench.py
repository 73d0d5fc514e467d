#!/usr/bin/env python3
"""Times the Python package: the standard suite (backward and forward rows) through its
functions and through PyTorch's own ops routed by aclnn_upsample.torch.enable(), against
PyTorch's kernels and the C API, and a small decoder training step on PyTorch's kernels, with
enable(), and on the package's custom forward ops.

Everything runs in one process, interleaved (C, Python, routed, PyTorch, then again) so that a
burst of other work on the machine hits all alike; medians are reported. The C API is called
through ctypes on libaclnn_upsample.so with a repeatable executor (phase 2 only), exactly as
bench/compare_torch.py does; the Python package links its own private copy of the library. The
suite is what `upsample-grad bench --list-cases --json` lists (tools/upsample_grad/bench_suite.h).

    python3 bench/python_bench.py --lib build/src/libaclnn_upsample.so --threads 2

Requires the package installed (pip install ./python), torch, and the upsample-grad tool (beside
--lib's build or install, or --tool). OMP_WAIT_POLICY is left as the user has it: PyTorch's
OpenMP workers spinning after each op is the situation to measure.
"""

import argparse
import math
import os
import re
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare_torch  # noqa: E402  (the suite parser and the C API through ctypes)


def median_ms(times):
    return statistics.median(times) * 1e3


def timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def package_function_name(operator):
    """The package's name for a CANN operator: aclnnUpsampleBicubic2dAAGrad ->
    upsample_bicubic2d_aa_grad."""
    words = re.findall(r"[A-Z]+[0-9]*(?![a-z])|[A-Z][a-z0-9]*", operator[len("aclnn"):])
    return "_".join(word.lower() for word in words)


def package_function(au, case):
    """The package's function for a suite case, called as (source, out), or None where the
    package has none for the case's operator."""
    function = getattr(au, package_function_name(case["operator"]), None)
    if function is None:
        return None
    output_size = list(case["out_hw"])
    # The nearest family has no align_corners parameter.
    options = {"align_corners": case["align_corners"]} if case["takes_align_corners"] else {}
    if case["forward"]:
        return lambda source, out: function(source, output_size, out=out, **options)
    input_size = [case["n"], case["c"], *case["in_hw"]]
    return lambda source, out: function(source, output_size, input_size, out=out, **options)


def suite(args, torch, au, aut):
    lib_path = Path(args.lib) if args.lib else None
    cases = compare_torch.read_suite(compare_torch.find_tool(
        args.tool, lib_path or compare_torch.REPO / "build" / "src" / "lib", "/usr/local"))
    if args.cases:
        wanted = {int(x) for x in args.cases.split(",")}
        cases = [c for c in cases if c["id"] in wanted]
    api = stream = None
    if lib_path:
        import ctypes

        api = compare_torch.Library(lib_path)
        api.lib.aclInit(None)
        api.check(api.lib.aclrtSetDevice(0), "aclrtSetDevice")
        stream = ctypes.c_void_p()
        api.check(api.lib.aclrtCreateStream(ctypes.byref(stream)), "aclrtCreateStream")
    dtypes = {"ACL_FLOAT": torch.float32, "ACL_FLOAT16": torch.float16,
              "ACL_BF16": torch.bfloat16}
    print(f"\n## Suite, {args.threads} threads: medians in ms of {args.reps} interleaved "
          "repetitions")
    print("| case | C API | Python fn | routed | torch | routed speedup | C speedup | "
          "routed/C speedup |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    routed_speedups = {False: [], True: []}  # by direction: forward?
    c_speedups = {False: [], True: []}
    for case in cases:
        n, c = case["n"], case["c"]
        fmt = torch.channels_last if case["channels_last"] else torch.contiguous_format
        gen = torch.Generator().manual_seed(case["id"])
        # A forward row reads the input size and writes the output size; a backward row the
        # other way round.
        source_hw, result_hw = ((case["in_hw"], case["out_hw"]) if case["forward"]
                                else (case["out_hw"], case["in_hw"]))
        source = (torch.rand((n, c, *source_hw), generator=gen) * 2 - 1).to(
            dtypes[case["dtype"]]).contiguous(memory_format=fmt)
        out = torch.empty((n, c, *result_hw), dtype=source.dtype, memory_format=fmt)
        c_out = torch.empty_like(out)
        aten = compare_torch.torch_kernel(torch, case)
        function = package_function(au, case)
        torch_source = source
        try:
            aten(source)
        except (RuntimeError, NotImplementedError):  # PyTorch has no 16-bit AA kernels
            torch_source = source.float().contiguous(memory_format=fmt)

        def python_fn():
            function(source, out)

        def routed():
            aten(source)

        def pytorch():
            aten(torch_source)

        call = compare_torch.LibraryCall(api, case, source, c_out, stream) if api else None
        times = {"c": [], "py": [], "routed": [], "torch": []}
        try:
            for rep in range(args.warmup + args.reps):
                sample = {}
                if call:
                    sample["c"] = timed(call.run)
                if function:
                    sample["py"] = timed(python_fn)
                with aut.enabled(torch_threads=args.torch_threads == "on"):
                    sample["routed"] = timed(routed)
                sample["torch"] = timed(pytorch)
                if rep >= args.warmup:
                    for key, value in sample.items():
                        times[key].append(value)
        finally:
            if call:
                call.close()
        ms = {key: median_ms(v) if v else float("nan") for key, v in times.items()}
        routed_speedup = ms["torch"] / ms["routed"]
        routed_speedups[case["forward"]].append(routed_speedup)
        c_speedup = ms["torch"] / ms["c"] if call else float("nan")
        if call:
            c_speedups[case["forward"]].append(c_speedup)
        print(f"| {compare_torch.case_name(case)} | {ms['c']:.3f} | {ms['py']:.3f} | "
              f"{ms['routed']:.3f} | {ms['torch']:.3f} | {routed_speedup:.2f}x | "
              f"{c_speedup:.2f}x | {routed_speedup / c_speedup:.2f} |", flush=True)
    for forward, direction in ((False, "backward"), (True, "forward")):
        if not routed_speedups[forward]:
            continue
        routed = geomean(routed_speedups[forward])
        line = (f"\nGeometric-mean speedup over PyTorch, {direction} rows, through enable(): "
                f"{routed:.2f}x")
        if c_speedups[forward]:
            direct = geomean(c_speedups[forward])
            line += f"; through the C API: {direct:.2f}x; ratio {routed / direct:.2f}"
        print(line)


def overhead(args, torch, np, au, aut):
    """Per-call cost of each path on a problem so small that the work is negligible."""
    print("\n## Per-call overhead (1x1 bilinear, 4x4 -> 2x2 backward, 2x2 -> 4x4 forward), "
          "median us over 2000 calls")
    small, large = (1, 1, 2, 2), (1, 1, 4, 4)
    # (source shape, result shape, package function, custom op, aten op) and the call of each on
    # (source, out=None or result).
    directions = {
        "backward": (large, small, au.upsample_bilinear2d_backward_v2,
                     torch.ops.aclnn_upsample.upsample_bilinear2d_backward_v2,
                     torch.ops.aten.upsample_bilinear2d_backward.default,
                     lambda f, source, **out: f(source, [4, 4], [1, 1, 2, 2], **out),
                     lambda f, source: f(source, [4, 4], [1, 1, 2, 2], False, None, None)),
        "forward": (small, large, au.upsample_bilinear2d,
                    torch.ops.aclnn_upsample.upsample_bilinear2d,
                    torch.ops.aten.upsample_bilinear2d.default,
                    lambda f, source, **out: f(source, [4, 4], **out),
                    lambda f, source: f(source, [4, 4], False, None, None)),
    }
    print("| path | backward us | forward us |")
    print("|---|---:|---:|")
    rows = {}
    for direction, (source_shape, result_shape, function, custom, aten, call,
                    aten_call) in directions.items():
        source_np, out_np = np.ones(source_shape, np.float32), np.empty(result_shape, np.float32)
        source_t, out_t = torch.ones(source_shape), torch.empty(result_shape)
        paths = {
            "numpy, out= given": lambda: call(function, source_np, out=out_np),
            "numpy, new result": lambda: call(function, source_np),
            "torch, out= given": lambda: call(function, source_t, out=out_t),
            "torch, new result": lambda: call(function, source_t),
            "custom op": lambda: call(custom, source_t),
            "aten op, PyTorch's kernel": lambda: aten_call(aten, source_t),
            "aten op, routed by enable()": lambda: aten_call(aten, source_t),
        }
        for name, function_ in paths.items():
            routed = name.endswith("enable()")
            if routed:
                aut.enable(torch_threads=args.torch_threads == "on")
            try:
                for _ in range(200):
                    function_()
                rows.setdefault(name, {})[direction] = median_ms(
                    [timed(function_) for _ in range(2000)]) * 1e3
            finally:
                if routed:
                    aut.disable()
    for name, values in rows.items():
        print(f"| {name} | {values['backward']:.1f} | {values['forward']:.1f} |")


def interleaved(args, torch, au, aut):
    """The library's calls between PyTorch ops, on its own pool and on PyTorch's threads."""
    print(f"\n## Threads inside PyTorch ({args.threads} threads): bilinear backward of case 1 "
          "(8x64, 64x64 -> 128x128) right after a PyTorch op, median ms")
    grad = torch.rand(8, 64, 128, 128) * 2 - 1
    x = torch.randn(8, 64, 64, 64)
    aten = torch.ops.aten.upsample_bilinear2d_backward.default

    def backward():
        aten(grad, [128, 128], [8, 64, 64, 64], False, None, None)

    def torch_op():
        torch.relu(x).mul_(2)

    results = {}
    for rep in range(args.warmup + args.reps):
        for mode in ("own pool", "PyTorch's threads"):
            with aut.enabled(torch_threads=mode != "own pool"):
                alone = [timed(backward) for _ in range(3)][-1]
                after = []
                for _ in range(3):
                    torch_op()
                    after.append(timed(backward))
            if rep >= args.warmup:
                results.setdefault(mode, ([], []))
                results[mode][0].append(alone)
                results[mode][1].extend(after)
    print("| library threads | alone | after a PyTorch op | slowdown |")
    print("|---|---:|---:|---:|")
    for mode, (alone, after) in results.items():
        print(f"| {mode} | {median_ms(alone):.3f} | {median_ms(after):.3f} | "
              f"{median_ms(after) / median_ms(alone):.2f}x |")


def training_step(args, torch, aut):
    """An FPN/UNet-style decoder head: lateral 1x1 convolutions, 2x bilinear upsamplings, an
    antialiased bicubic resize of the output, forward and backward; on PyTorch's kernels, with
    enable() (both directions routed), and on the package's custom forward ops (whose gradients
    are the library's backward ops)."""
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    width, classes, batch = 64, 8, args.batch
    laterals = nn.ModuleList(nn.Conv2d(cin, width, 1) for cin in (256, 128, 64, 32))
    head = nn.Conv2d(width, classes, 1)
    params = list(laterals.parameters()) + list(head.parameters())
    optimizer = torch.optim.SGD(params, lr=1e-3)
    feats = [torch.randn(batch, cin, side, side)
             for cin, side in ((256, 8), (128, 16), (64, 32), (32, 64))]
    target = torch.randn(batch, classes, 96, 96)
    custom = torch.ops.aclnn_upsample

    def upsample_2x(y, custom_ops):
        if custom_ops:
            return custom.upsample_bilinear2d(y, [2 * v for v in y.shape[2:]], False, 2.0, 2.0)
        return F.interpolate(y, scale_factor=2, mode="bilinear")

    def resize_aa(y, custom_ops):
        if custom_ops:
            return custom.upsample_bicubic2d_aa(y, [96, 96])
        return F.interpolate(y, size=(96, 96), mode="bicubic", antialias=True)

    def step(custom_ops):
        optimizer.zero_grad(set_to_none=True)
        y = laterals[0](feats[0])
        for lateral, feat in zip(laterals[1:], feats[1:]):
            y = upsample_2x(y, custom_ops) + lateral(feat)
        y = upsample_2x(y, custom_ops)  # 128x128
        loss = F.mse_loss(resize_aa(head(y), custom_ops), target)
        loss.backward()
        optimizer.step()

    times = {"PyTorch": [], "enable()": [], "custom ops": []}
    for rep in range(args.warmup + args.reps):
        for mode in times:
            if mode == "enable()":
                aut.enable(torch_threads=args.torch_threads == "on")
            try:
                seconds = timed(lambda: step(mode == "custom ops"))
            finally:
                aut.disable()
            if rep >= args.warmup:
                times[mode].append(seconds)
    print(f"\n## Decoder training step (batch {batch}, {args.threads} threads), median ms")
    print("| kernels | step ms | speedup |")
    print("|---|---:|---:|")
    for mode, values in times.items():
        print(f"| {mode} | {median_ms(values):.2f} | "
              f"{median_ms(times['PyTorch']) / median_ms(values):.2f}x |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", help="libaclnn_upsample.so for the C API column (optional)")
    parser.add_argument("--tool", help="upsample-grad, which lists the suite (default: beside "
                        "--lib's library, then build/tools/, /usr/local and PATH)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cases", help="comma-separated suite case ids (default: all)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--batch", type=int, default=8, help="training step batch size")
    parser.add_argument("--torch-threads", choices=("on", "off"), default="off",
                        help="enable(torch_threads=...) for the routed calls and the training "
                        "step: on runs the library on PyTorch's OpenMP threads (default off, "
                        "as enable())")
    parser.add_argument("--only", choices=("suite", "overhead", "interleaved", "train"),
                        action="append", help="run only these parts (repeatable)")
    args = parser.parse_args()
    parts = args.only or ["overhead", "suite", "interleaved", "train"]

    # The C library reads this at phase 1; the package follows set_num_threads or PyTorch's.
    os.environ["ACLNN_UPSAMPLE_NUM_THREADS"] = str(args.threads)
    import numpy as np
    import torch

    import aclnn_upsample as au
    import aclnn_upsample.torch as aut

    torch.set_num_threads(args.threads)
    au.set_num_threads(args.threads)
    print(f"CPU: {compare_torch.cpu_model()} ({os.cpu_count()} logical CPUs); torch "
          f"{torch.__version__}; aclnn_upsample {au.__version__} ({au.simd_target()}); threads "
          f"{args.threads}; routed on PyTorch's threads: {args.torch_threads}; OMP_WAIT_POLICY="
          f"{os.environ.get('OMP_WAIT_POLICY', '(unset)')}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if "overhead" in parts:
        overhead(args, torch, np, au, aut)
    if "suite" in parts:
        suite(args, torch, au, aut)
    if "interleaved" in parts:
        # Sized by PyTorch's threads on its team, as a user of enable() gets.
        au.set_num_threads(0)
        interleaved(args, torch, au, aut)
        au.set_num_threads(args.threads)
    if "train" in parts:
        training_step(args, torch, aut)
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
