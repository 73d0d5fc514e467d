#!/usr/bin/env python3
"""Times the standard suite in this library and in PyTorch's CPU kernels, side by side.

Both run in one process on the same gradOut tensors and the same thread count, interleaved
(lib, torch, lib, torch, ...) so that a burst of other work on the machine hits both alike.
The library is called only through its C API (ctypes on libaclnn_upsample.so), with a repeatable
executor planned once, as bench/upsample_bench.cc does; PyTorch is called through the ATen ops
that the operator contract names as the reference. The suite is read from
tools/upsample_grad/bench_suite.h, so that there is one source of truth.

    python3 bench/compare_torch.py --lib build-bench/src/libaclnn_upsample.so --threads 2
"""

import argparse
import ctypes
import math
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUITE_HEADER = REPO / "tools" / "upsample_grad" / "bench_suite.h"

# aclDataType and aclFormat values from CANN's acl/acl_base.h.
ACL_DTYPES = {"ACL_FLOAT": 0, "ACL_FLOAT16": 1, "ACL_BF16": 27}
DTYPE_TAGS = {"ACL_FLOAT": "fp32", "ACL_FLOAT16": "fp16", "ACL_BF16": "bf16"}
ACL_FORMAT_NCHW = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_MEM_MALLOC_HUGE_FIRST = 0

# One entry of kBenchSuite: {id, SuiteOperator::kX, n, c, in_h, in_w, out_h, out_w, ACL_T,
# align_corners, SuiteLayout::kY}; the entries may wrap over lines.
_NUM = r"\s*(\d+)\s*"
_CASE_RE = re.compile(
    r"\{\s*(\d+)\s*,\s*SuiteOperator::(\w+)\s*," + ",".join([_NUM] * 6) +
    r",\s*(ACL_\w+)\s*,\s*(true|false)\s*,\s*SuiteLayout::(\w+)\s*\}")


def parse_suite(path):
    """Returns the suite as a list of dicts, failing loudly where the header's shape changed."""
    text = path.read_text()
    table = re.search(r"std::array<SuiteCase,\s*(\d+)>\s*kBenchSuite\s*=\s*\{\{(.*?)\}\};", text,
                      re.S)
    if table is None:
        sys.exit(f"compare_torch.py: cannot find kBenchSuite in {path}")
    size, body = int(table.group(1)), table.group(2)
    cases = []
    for m in _CASE_RE.finditer(body):
        ident, op, n, c, in_h, in_w, out_h, out_w, dtype, align, layout = m.groups()
        if op not in ("kBilinear", "kBicubicAA") or dtype not in ACL_DTYPES or layout not in (
                "kNchw", "kNchwChannelsLastStrides"):
            sys.exit(f"compare_torch.py: unknown value in suite entry {m.group(0)!r}")
        cases.append({
            "id": int(ident), "op": "bilinear" if op == "kBilinear" else "bicubic_aa",
            "n": int(n), "c": int(c), "in_hw": (int(in_h), int(in_w)),
            "out_hw": (int(out_h), int(out_w)), "dtype": dtype, "align_corners": align == "true",
            "channels_last": layout == "kNchwChannelsLastStrides",
        })
    # Every entry must have been understood: a count or numbering that disagrees means the
    # regex no longer fits the header, and a silently shorter suite would be worse than none.
    if len(cases) != size or [c["id"] for c in cases] != list(range(1, size + 1)):
        sys.exit(f"compare_torch.py: parsed {len(cases)} suite entries from {path}, "
                 f"the array holds {size}; update _CASE_RE")
    return cases


TAG_DTYPES = {tag: acl for acl, tag in DTYPE_TAGS.items()}

# Shapes beyond the suite that users hit (--extra): channels-last 16-bit and odd factors, where
# PyTorch's vectorised channels-last kernel is closest; small planes of many channels, as in
# feature pyramids; downsampling; bicubic AA channels-last.
EXTRA_SHAPES = [
    "bilinear,8,64,64x64,128x128,bf16,channels_last",
    "bilinear,8,64,64x64,128x128,fp16,channels_last",
    "bilinear,8,64,64x64,96x96,fp32,channels_last",
    "bilinear,8,64,64x64,96x96,fp32",
    "bilinear,8,64,64x64,128x128,fp32,channels_last,align_corners",
    "bilinear,8,16,64x64,128x128,fp32,channels_last",
    "bilinear,8,3,64x64,128x128,fp32,channels_last",
    "bilinear,32,128,14x14,28x28,fp32",
    "bilinear,32,128,14x14,28x28,fp32,channels_last",
    "bilinear,8,64,128x128,64x64,fp32",
    "bilinear,8,32,100x100,133x133,fp32",
    "bicubic_aa,8,3,512x512,128x128,fp32,channels_last",
    "bicubic_aa,8,3,224x224,299x299,fp32",
    "bicubic_aa,8,64,64x64,32x32,fp32,channels_last",
]


def parse_shape(spec, ident):
    """A case from 'OP,N,C,INHxINW,OUTHxOUTW[,fp32|fp16|bf16][,channels_last][,align_corners]'
    (OP bilinear or bicubic_aa; INH x INW is the forward input, i.e. gradIn's size)."""
    fields = [f.strip() for f in spec.split(",")]
    if len(fields) < 5 or fields[0] not in ("bilinear", "bicubic_aa"):
        raise ValueError(f"{spec!r}: expected OP,N,C,INHxINW,OUTHxOUTW[,dtype][,channels_last]"
                         "[,align_corners] with OP bilinear or bicubic_aa")
    try:
        n, c = int(fields[1]), int(fields[2])
        in_hw = tuple(int(x) for x in fields[3].split("x"))
        out_hw = tuple(int(x) for x in fields[4].split("x"))
    except ValueError:
        raise ValueError(f"{spec!r}: N and C are integers, sizes are HxW") from None
    if len(in_hw) != 2 or len(out_hw) != 2 or min(n, c, *in_hw, *out_hw) < 1:
        raise ValueError(f"{spec!r}: N, C and both sizes must be positive, sizes HxW")
    case = {"id": ident, "seed": sum(map(ord, spec)), "op": fields[0], "n": n, "c": c,
            "in_hw": in_hw, "out_hw": out_hw, "dtype": "ACL_FLOAT", "align_corners": False,
            "channels_last": False}
    for option in fields[5:]:
        if option in TAG_DTYPES:
            case["dtype"] = TAG_DTYPES[option]
        elif option in ("channels_last", "align_corners"):
            case[option] = True
        else:
            raise ValueError(f"{spec!r}: unknown option {option!r} (fp32, fp16, bf16, "
                             "channels_last, align_corners)")
    return case


def case_name(case):
    name = (f"{case['id']}_{case['op']}_{case['n']}x{case['c']}_"
            f"{case['in_hw'][0]}x{case['in_hw'][1]}->{case['out_hw'][0]}x{case['out_hw'][1]}_"
            f"{DTYPE_TAGS[case['dtype']]}")
    if case["align_corners"]:
        name += "_align_corners"
    if case["channels_last"]:
        name += "_channels_last"
    return name


def find_library(explicit, prefix):
    if explicit:
        return Path(explicit)
    candidates = [REPO / "build" / "src" / "libaclnn_upsample.so"]
    for libdir in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
        candidates.append(Path(prefix) / libdir / "libaclnn_upsample.so")
    for candidate in candidates:
        if candidate.exists():
            return candidate
    sys.exit("compare_torch.py: libaclnn_upsample.so not found in " +
             ", ".join(str(c.parent) for c in candidates) + "; pass --lib")


class Library:
    """The library's C API through ctypes, with exactly CANN's signatures."""

    def __init__(self, path):
        lib = ctypes.CDLL(str(path))
        i64p, vp = ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p
        sig = {
            "aclInit": (ctypes.c_int, [ctypes.c_char_p]),
            "aclrtSetDevice": (ctypes.c_int, [ctypes.c_int32]),
            "aclrtCreateStream": (ctypes.c_int, [ctypes.POINTER(vp)]),
            "aclrtSynchronizeStream": (ctypes.c_int, [vp]),
            "aclrtMalloc": (ctypes.c_int, [ctypes.POINTER(vp), ctypes.c_size_t, ctypes.c_int]),
            "aclrtFree": (ctypes.c_int, [vp]),
            "aclGetRecentErrMsg": (ctypes.c_char_p, []),
            "aclCreateTensor": (vp, [i64p, ctypes.c_uint64, ctypes.c_int, i64p, ctypes.c_int64,
                                     ctypes.c_int, i64p, ctypes.c_uint64, vp]),
            "aclCreateIntArray": (vp, [i64p, ctypes.c_uint64]),
            "aclDestroyTensor": (ctypes.c_int32, [vp]),
            "aclDestroyIntArray": (ctypes.c_int32, [vp]),
            "aclSetAclOpExecutorRepeatable": (ctypes.c_int32, [vp]),
            "aclDestroyAclOpExecutor": (ctypes.c_int32, [vp]),
        }
        phase1_args = [vp, vp, vp, ctypes.c_bool, ctypes.c_double, ctypes.c_double, vp,
                       ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(vp)]
        phase2_args = [vp, ctypes.c_uint64, vp, vp]
        for op in ("aclnnUpsampleBilinear2dBackwardV2", "aclnnUpsampleBicubic2dAAGrad"):
            sig[op + "GetWorkspaceSize"] = (ctypes.c_int32, phase1_args)
            sig[op] = (ctypes.c_int32, phase2_args)
        for name, (restype, argtypes) in sig.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
        self.lib = lib

    def check(self, status, what):
        if status != 0:
            message = self.lib.aclGetRecentErrMsg() or b""
            raise RuntimeError(f"{what} failed with status {status}: {message.decode()}")


def int64_array(values):
    return (ctypes.c_int64 * len(values))(*values)


class LibraryCall:
    """One planned case: phase 1 once with a repeatable executor, then phase 2 per run()."""

    def __init__(self, api, case, grad_out, grad_in, stream):
        lib = api.lib
        self.api, self.lib, self.stream = api, lib, stream
        self.op = ("aclnnUpsampleBilinear2dBackwardV2" if case["op"] == "bilinear"
                   else "aclnnUpsampleBicubic2dAAGrad")
        acl_dtype = ACL_DTYPES[case["dtype"]]
        tensors = []
        for t in (grad_out, grad_in):
            dims, strides = list(t.shape), list(t.stride())
            # Storage in memory order: (N, H, W, C) for channels-last strides, else the dims.
            storage = [dims[0], dims[2], dims[3], dims[1]] if case["channels_last"] else dims
            handle = lib.aclCreateTensor(int64_array(dims), 4, acl_dtype, int64_array(strides), 0,
                                         ACL_FORMAT_NCHW, int64_array(storage), 4,
                                         ctypes.c_void_p(t.data_ptr()))
            if not handle:
                api.check(-1, "aclCreateTensor")
            tensors.append(handle)
        output_size = lib.aclCreateIntArray(int64_array(case["out_hw"]), 2)
        input_size = lib.aclCreateIntArray(
            int64_array([case["n"], case["c"], *case["in_hw"]]), 4)
        self.workspace_size = ctypes.c_uint64(0)
        self.executor = ctypes.c_void_p()
        api.check(getattr(lib, self.op + "GetWorkspaceSize")(
            tensors[0], output_size, input_size, case["align_corners"], 0.0, 0.0, tensors[1],
            ctypes.byref(self.workspace_size), ctypes.byref(self.executor)),
            self.op + "GetWorkspaceSize")
        api.check(lib.aclSetAclOpExecutorRepeatable(self.executor),
                  "aclSetAclOpExecutorRepeatable")
        for handle in tensors:
            lib.aclDestroyTensor(handle)
        lib.aclDestroyIntArray(output_size)
        lib.aclDestroyIntArray(input_size)
        self.workspace = ctypes.c_void_p()
        if self.workspace_size.value > 0:
            api.check(lib.aclrtMalloc(ctypes.byref(self.workspace), self.workspace_size.value,
                                      ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
        self.phase2 = getattr(lib, self.op)

    def run(self):
        self.api.check(self.phase2(self.workspace, self.workspace_size, self.executor,
                                   self.stream), self.op)
        self.api.check(self.lib.aclrtSynchronizeStream(self.stream), "aclrtSynchronizeStream")

    def close(self):
        self.lib.aclDestroyAclOpExecutor(self.executor)
        if self.workspace:
            self.lib.aclrtFree(self.workspace)


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", help="path to libaclnn_upsample.so (default: build/src/, then "
                        "--prefix)")
    parser.add_argument("--prefix", default="/usr/local", help="install prefix to look in")
    parser.add_argument("--threads", type=int, default=2, help="threads for both (default 2)")
    parser.add_argument("--cases", help="comma-separated case ids, e.g. 1,2,7 (default: all)")
    parser.add_argument("--shape", action="append", default=[], metavar="SPEC",
                        help="time this shape instead of the suite (repeatable): "
                        "OP,N,C,INHxINW,OUTHxOUTW[,fp32|fp16|bf16][,channels_last]"
                        "[,align_corners], e.g. bilinear,8,64,64x64,96x96,fp32,channels_last "
                        "(INH x INW is the forward input's size)")
    parser.add_argument("--extra", action="store_true",
                        help="time the shapes beyond the suite that bench/RESULTS.md reports "
                        "(channels-last 16-bit and 1.5x, small planes, downsampling, ...)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls of each first")
    parser.add_argument("--reps", type=int, default=20, help="timed interleaved repetitions")
    parser.add_argument("--pause-ms", type=float, default=0,
                        help="idle time before each timed call (default 0); on a VM an idle "
                        "pause lets the vCPUs halt, and waking them slowed the library's next "
                        "call by up to 2x in our measurements")
    parser.add_argument("--omp-wait-policy", choices=("passive", "inherit"), default="passive",
                        help="passive (default): set OMP_WAIT_POLICY=PASSIVE for PyTorch's "
                        "OpenMP, whose workers otherwise spin after each op and take the cores "
                        "from the library call that follows; inherit: leave the environment")
    parser.add_argument("--alone", action="store_true",
                        help="also time the library alone (back to back, no PyTorch call in "
                        "between) and print that median as a note: the gap shows what the "
                        "interleaving itself costs the shorter call on this machine")
    parser.add_argument("--portable", action="store_true",
                        help="set ACLNN_UPSAMPLE_SIMD=portable, asking the library for its portable "
                        "(scalar) kernels")
    args = parser.parse_args()
    if args.threads < 1 or args.reps < 1 or args.warmup < 0 or args.pause_ms < 0:
        parser.error("--threads and --reps must be >= 1, --warmup and --pause-ms >= 0")

    # The library reads these at phase 1, so they are set before anything is planned.
    os.environ["ACLNN_UPSAMPLE_NUM_THREADS"] = str(args.threads)
    if args.portable:
        os.environ["ACLNN_UPSAMPLE_SIMD"] = "portable"
    # Read by libgomp when torch loads it, so it must be set before the import.
    if args.omp_wait_policy == "passive":
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

    import torch  # after the environment is set, so that nothing reads it early

    torch.set_num_threads(args.threads)
    suite = parse_suite(SUITE_HEADER)
    shapes = list(args.shape) + (EXTRA_SHAPES if args.extra else [])
    if shapes:
        if args.cases:
            parser.error("--cases picks suite cases; --shape and --extra replace the suite")
        try:
            suite = [parse_shape(spec, f"s{i + 1}") for i, spec in enumerate(shapes)]
        except ValueError as error:
            parser.error(f"--shape {error}")
    if args.cases:
        try:
            wanted = [int(x) for x in args.cases.split(",")]
        except ValueError:
            parser.error("--cases takes case ids like 1,2,7")
        unknown = sorted(set(wanted) - {c["id"] for c in suite})
        if unknown:
            parser.error(f"--cases: {unknown} not in the suite (1..{len(suite)})")
        suite = [c for c in suite if c["id"] in wanted]

    lib_path = find_library(args.lib, args.prefix)
    api = Library(lib_path)
    status = api.lib.aclInit(None)
    if status != ACL_ERROR_REPEAT_INITIALIZE:
        api.check(status, "aclInit")
    api.check(api.lib.aclrtSetDevice(0), "aclrtSetDevice")
    stream = ctypes.c_void_p()
    api.check(api.lib.aclrtCreateStream(ctypes.byref(stream)), "aclrtCreateStream")

    torch_dtypes = {"ACL_FLOAT": torch.float32, "ACL_FLOAT16": torch.float16,
                    "ACL_BF16": torch.bfloat16}
    print(f"library: {lib_path}")
    print(f"CPU: {cpu_model()} ({os.cpu_count()} logical CPUs); torch {torch.__version__}; "
          f"threads {args.threads}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.warmup} warm-up calls each, then {args.reps} interleaved repetitions, "
          f"{args.pause_ms:g} ms idle before each; OMP_WAIT_POLICY="
          f"{os.environ.get('OMP_WAIT_POLICY', '(unset)')}; medians in ms; "
          "rel diff = max|lib-torch| / max|torch|")
    header = (f"{'case':<58} {'lib ms':>9} {'torch ms':>9} {'speedup':>8} {'rel diff':>9}  note")
    print(header)
    print("-" * len(header))

    speedups = []
    for case in suite:
        n, c = case["n"], case["c"]
        dtype = torch_dtypes[case["dtype"]]
        memory_format = torch.channels_last if case["channels_last"] else torch.contiguous_format
        generator = torch.Generator().manual_seed(case.get("seed", case["id"]))
        grad_out = (torch.rand((n, c, *case["out_hw"]), generator=generator) * 2 - 1).to(dtype)
        grad_out = grad_out.contiguous(memory_format=memory_format)
        grad_in = torch.empty((n, c, *case["in_hw"]), dtype=dtype, memory_format=memory_format)
        input_size = [n, c, *case["in_hw"]]
        output_size = list(case["out_hw"])
        if case["op"] == "bilinear":
            def torch_op(g):
                return torch.ops.aten.upsample_bilinear2d_backward(
                    g, output_size, input_size, case["align_corners"], None, None)
        else:
            def torch_op(g):
                return torch.ops.aten._upsample_bicubic2d_aa_backward(
                    g, output_size, input_size, case["align_corners"], None, None)

        # Where PyTorch has no kernel for the dtype, it is timed in fp32 on the same values.
        note = ""
        torch_grad = grad_out
        try:
            torch_op(grad_out)
        except (RuntimeError, NotImplementedError):
            torch_grad = grad_out.float().contiguous(memory_format=memory_format)
            note = (f"torch has no {DTYPE_TAGS[case['dtype']]} kernel: its time and result "
                    "are fp32's")

        call = LibraryCall(api, case, grad_out, grad_in, stream)
        try:
            # PyTorch's first calls pay for fresh allocations, the library's first for page
            # faults on gradIn: neither belongs in a steady-state time.
            for _ in range(args.warmup):
                call.run()
                torch_op(torch_grad)
            lib_times, torch_times = [], []
            reference = None
            pause = args.pause_ms / 1e3
            for _ in range(args.reps):
                if pause:
                    time.sleep(pause)
                lib_times.append(timed(call.run)[0])
                if pause:
                    time.sleep(pause)
                seconds, reference = timed(lambda: torch_op(torch_grad))
                torch_times.append(seconds)
            alone_times = [timed(call.run)[0] for _ in range(args.reps if args.alone else 0)]
        finally:
            call.close()

        lib_ms = statistics.median(lib_times) * 1e3
        torch_ms = statistics.median(torch_times) * 1e3
        speedup = torch_ms / lib_ms
        speedups.append(speedup)
        ours, theirs = grad_in.double(), reference.double()
        scale = theirs.abs().max().item()
        rel = (ours - theirs).abs().max().item() / scale if scale > 0 else 0.0
        if alone_times:
            alone = f"lib alone {statistics.median(alone_times) * 1e3:.3f} ms"
            note = f"{alone}; {note}" if note else alone
        print(f"{case_name(case):<58} {lib_ms:9.3f} {torch_ms:9.3f} {speedup:7.2f}x {rel:9.2e}  "
              f"{note}", flush=True)

    if speedups:
        geomean = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        print(f"geometric-mean speedup (torch/lib) over {len(speedups)} cases: {geomean:.2f}x")
    print(f"CPU: {cpu_model()}; torch {torch.__version__}; threads {args.threads}; "
          f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
