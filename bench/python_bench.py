#!/usr/bin/env python3
"""Times the Python package: the standard suite through its functions and through PyTorch's
own ops routed by aclnn_upsample.torch.enable(), against PyTorch's kernels and the C API, and a
small decoder training step with and without enable().

Everything runs in one process, interleaved (C, Python, routed, PyTorch, then again) so that a
burst of other work on the machine hits all alike; medians are reported. The C API is called
through ctypes on libaclnn_upsample.so with a repeatable executor (phase 2 only), exactly as
bench/compare_torch.py does; the Python package links its own private copy of the library.

    python3 bench/python_bench.py --lib build/src/libaclnn_upsample.so --threads 2

Requires the package installed (pip install ./python) and torch. OMP_WAIT_POLICY is left as the
user has it: PyTorch's OpenMP workers spinning after each op is the situation to measure.
"""

import argparse
import math
import os
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


def suite(args, torch, au, aut):
    cases = compare_torch.parse_suite(compare_torch.SUITE_HEADER)
    if args.cases:
        wanted = {int(x) for x in args.cases.split(",")}
        cases = [c for c in cases if c["id"] in wanted]
    api = stream = None
    if args.lib:
        import ctypes

        api = compare_torch.Library(Path(args.lib))
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
    routed_speedups, c_speedups = [], []
    for case in cases:
        n, c = case["n"], case["c"]
        fmt = torch.channels_last if case["channels_last"] else torch.contiguous_format
        gen = torch.Generator().manual_seed(case["id"])
        grad = (torch.rand((n, c, *case["out_hw"]), generator=gen) * 2 - 1).to(
            dtypes[case["dtype"]]).contiguous(memory_format=fmt)
        out = torch.empty((n, c, *case["in_hw"]), dtype=grad.dtype, memory_format=fmt)
        c_out = torch.empty_like(out)
        input_size, output_size = [n, c, *case["in_hw"]], list(case["out_hw"])
        align = case["align_corners"]
        if case["op"] == "bilinear":
            aten = torch.ops.aten.upsample_bilinear2d_backward.default
            function = au.upsample_bilinear2d_backward_v2
        else:
            aten = torch.ops.aten._upsample_bicubic2d_aa_backward.default
            function = au.upsample_bicubic2d_aa_grad
        torch_grad = grad
        try:
            aten(grad, output_size, input_size, align, None, None)
        except (RuntimeError, NotImplementedError):  # PyTorch has no 16-bit AA backward
            torch_grad = grad.float().contiguous(memory_format=fmt)

        def python_fn():
            function(grad, output_size, input_size, align, out=out)

        def routed():
            aten(grad, output_size, input_size, align, None, None)

        def pytorch():
            aten(torch_grad, output_size, input_size, align, None, None)

        call = compare_torch.LibraryCall(api, case, grad, c_out, stream) if api else None
        times = {"c": [], "py": [], "routed": [], "torch": []}
        try:
            for rep in range(args.warmup + args.reps):
                sample = {}
                if call:
                    sample["c"] = timed(call.run)
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
        routed_speedups.append(routed_speedup)
        c_speedup = ms["torch"] / ms["c"] if call else float("nan")
        if call:
            c_speedups.append(c_speedup)
        print(f"| {compare_torch.case_name(case)} | {ms['c']:.3f} | {ms['py']:.3f} | "
              f"{ms['routed']:.3f} | {ms['torch']:.3f} | {routed_speedup:.2f}x | "
              f"{c_speedup:.2f}x | {routed_speedup / c_speedup:.2f} |", flush=True)
    line = ("\nGeometric-mean speedup over PyTorch through enable(): "
            f"{geomean(routed_speedups):.2f}x")
    if c_speedups:
        line += (f"; through the C API: {geomean(c_speedups):.2f}x; ratio "
                 f"{geomean(routed_speedups) / geomean(c_speedups):.2f}")
    print(line)


def overhead(args, torch, np, au, aut):
    """Per-call cost of each path on a problem so small that the work is negligible."""
    print("\n## Per-call overhead (1x1 4x4 -> 2x2 bilinear), median us over 2000 calls")
    grad_np = np.ones((1, 1, 4, 4), np.float32)
    out_np = np.empty((1, 1, 2, 2), np.float32)
    grad_t = torch.ones(1, 1, 4, 4)
    out_t = torch.empty(1, 1, 2, 2)
    aten = torch.ops.aten.upsample_bilinear2d_backward.default
    paths = {
        "numpy, out= given": lambda: au.upsample_bilinear2d_backward_v2(
            grad_np, [4, 4], [1, 1, 2, 2], out=out_np),
        "numpy, new result": lambda: au.upsample_bilinear2d_backward_v2(
            grad_np, [4, 4], [1, 1, 2, 2]),
        "torch, out= given": lambda: au.upsample_bilinear2d_backward_v2(
            grad_t, [4, 4], [1, 1, 2, 2], out=out_t),
        "torch, new result": lambda: au.upsample_bilinear2d_backward_v2(
            grad_t, [4, 4], [1, 1, 2, 2]),
        "custom op": lambda: torch.ops.aclnn_upsample.upsample_bilinear2d_backward_v2(
            grad_t, [4, 4], [1, 1, 2, 2]),
        "aten op, PyTorch's kernel": lambda: aten(grad_t, [4, 4], [1, 1, 2, 2], False, None,
                                                  None),
    }
    print("| path | us per call |")
    print("|---|---:|")
    for name, function in paths.items():
        for _ in range(200):
            function()
        print(f"| {name} | {median_ms([timed(function) for _ in range(2000)]) * 1e3:.1f} |")
    with aut.enabled(torch_threads=args.torch_threads == "on"):
        function = lambda: aten(grad_t, [4, 4], [1, 1, 2, 2], False, None, None)  # noqa: E731
        for _ in range(200):
            function()
        print(f"| aten op, routed by enable() | "
              f"{median_ms([timed(function) for _ in range(2000)]) * 1e3:.1f} |")


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
    antialiased bicubic resize of the output, forward and backward."""
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

    def step():
        optimizer.zero_grad(set_to_none=True)
        y = laterals[0](feats[0])
        for lateral, feat in zip(laterals[1:], feats[1:]):
            y = F.interpolate(y, scale_factor=2, mode="bilinear") + lateral(feat)
        y = F.interpolate(y, scale_factor=2, mode="bilinear")  # 128x128
        y = F.interpolate(head(y), size=(96, 96), mode="bicubic", antialias=True)
        loss = F.mse_loss(y, target)
        loss.backward()
        optimizer.step()

    times = {"PyTorch": [], "enable()": []}
    for rep in range(args.warmup + args.reps):
        for mode in times:
            if mode == "enable()":
                aut.enable(torch_threads=args.torch_threads == "on")
            try:
                seconds = timed(step)
            finally:
                aut.disable()
            if rep >= args.warmup:
                times[mode].append(seconds)
    print(f"\n## Decoder training step (batch {batch}, {args.threads} threads), median ms")
    print("| kernels | step ms |")
    print("|---|---:|")
    for mode, values in times.items():
        print(f"| {mode} | {median_ms(values):.2f} |")
    print(f"Speedup of the step: {median_ms(times['PyTorch']) / median_ms(times['enable()']):.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", help="libaclnn_upsample.so for the C API column (optional)")
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
