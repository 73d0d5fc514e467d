#!/usr/bin/env python3
"""Times the standard suite in this library and in PyTorch's CPU kernels, side by side.

Both run in one process on the same source tensors (gradOut, or a forward operator's input) and
the same thread count, interleaved (lib, torch, lib, torch, ...) so that a burst of other work on
the machine hits both alike. The library is called only through its C API (ctypes on
libaclnn_upsample.so), each operator through the phase-1 and phase-2 pointers of its row in the
library's operator table (aclnn_upsample/operators.h), with a repeatable executor planned once,
as bench/upsample_bench.cc does; PyTorch is called through the ATen ops that the operator
contract names as the reference: the backward kernels for the backward operators, the forward
kernels for the forward ones. The suite is what `upsample-grad bench --list-cases --json`
prints (its one definition is tools/upsample_grad/bench_suite.h).

    python3 bench/compare_torch.py --lib build-bench/src/libaclnn_upsample.so --threads 2
"""

import argparse
import ctypes
import math
import os
import json
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# aclDataType and aclFormat values from CANN's acl/acl_base.h.
ACL_DTYPES = {"ACL_FLOAT": 0, "ACL_FLOAT16": 1, "ACL_BF16": 27}
DTYPE_TAGS = {"ACL_FLOAT": "fp32", "ACL_FLOAT16": "fp16", "ACL_BF16": "bf16"}
ACL_FORMAT_NCHW = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_MEM_MALLOC_HUGE_FIRST = 0

TAG_DTYPES = {tag: acl for acl, tag in DTYPE_TAGS.items()}


def find_tool(explicit, lib_path, prefix):
    """upsample-grad: --tool, else the one built or installed beside the library, else PATH."""
    if explicit:
        return Path(explicit)
    candidates = [lib_path.parent.parent / "tools" / "upsample-grad",  # a build tree's src/
                  lib_path.parent.parent / "bin" / "upsample-grad",  # an install's lib/
                  REPO / "build" / "tools" / "upsample-grad",
                  Path(prefix) / "bin" / "upsample-grad"]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    on_path = shutil.which("upsample-grad")
    if on_path:
        return Path(on_path)
    sys.exit("compare_torch.py: upsample-grad not found in " +
             ", ".join(str(c.parent) for c in candidates) + " or on PATH; pass --tool")


def read_suite(tool):
    """The suite as `upsample-grad bench --list-cases --json` prints it, as case dicts."""
    try:
        listing = subprocess.run([str(tool), "bench", "--list-cases", "--json"], check=True,
                                 capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        sys.exit(f"compare_torch.py: {tool} bench --list-cases --json failed: {error}")
    return [{
        "id": row["id"], "command": row["command"], "operator": row["operator"],
        "op": row["mode"], "takes_align_corners": row["takes_align_corners"],
        "forward": row["direction"] == "forward",
        "n": row["n"], "c": row["c"], "in_hw": (row["in_h"], row["in_w"]),
        "out_hw": (row["out_h"], row["out_w"]), "dtype": TAG_DTYPES[row["dtype"]],
        "align_corners": row["align_corners"], "channels_last": row["channels_last"],
    } for row in json.loads(listing)]


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
    # RGB images channels-last against the same problem in NCHW (the "every layout"):
    # forward 2x and 256 -> 224, whose W pass gathers the pixel rows as they are.
    "bilinear,8,3,256x256,512x512,fp32,channels_last,forward",
    "bilinear,8,3,256x256,512x512,fp32,forward",
    "bilinear,8,3,256x256,224x224,fp32,channels_last,forward",
    "bilinear,8,3,256x256,224x224,fp32,channels_last",
    # Many small planes beyond cases 38-46 (plane groups): 8x8 to 32x32 feature maps.
    "bilinear,16,256,8x8,16x16,fp32",
    "bilinear,16,256,16x16,32x32,bf16,forward",
    "bicubic_aa,16,256,32x32,16x16,fp32",
    "bicubic_aa,16,256,32x32,16x16,bf16,forward",
    # Planes whose result rows are 33 to 63 wide (plane groups since session 14): a ViT's
    # position embedding resized for another image size (bicubic, one image of 768 channels),
    # FPN-style feature maps upsampled 1.5x and 2x in bfloat16.
    "bicubic,1,768,37x37,46x46,fp32,forward",
    "bilinear,8,256,28x28,42x42,bf16,forward",
    "bilinear,8,256,28x28,56x56,bf16,forward",
    # Nearest on channels-last pixels, copied as bytes (since session 14; the float passes had
    # run at 0.6-0.8x PyTorch in bfloat16).
    "nearest,16,64,28x28,56x56,bf16,channels_last,forward",
    "nearest,8,64,64x64,128x128,fp32,channels_last,forward",
    # Nearest on pixels of a few channels (session 15): RGBA float32 had been copied at 5 GB/s,
    # a memcpy call per pixel; 16-bit images of 5-7 channels ran as planes at 0.9x PyTorch.
    "nearest,8,4,256x256,512x512,fp32,channels_last,forward",
    "nearest,8,6,256x256,512x512,bf16,channels_last,forward",
    "nearest,8,4,512x512,256x256,bf16,channels_last",
    # Channels-last C-vectors that are not whole vectors (segmentation logits of 21 classes,
    # keypoint heatmaps of 17): their last partial vector had gone through a buffer per pixel.
    "bilinear,16,21,64x64,128x128,fp32,channels_last,forward",
    "bilinear,16,17,64x64,128x128,bf16,channels_last,forward",
    # Channels-last images of 5 to 7 channels (interleaved since session 15; they had run as
    # planes read with a stride of C) and 8 float32 channels in a streamed call (one AVX2 vector
    # per pixel, which had lost its fast gather form when streaming).
    "bilinear,8,6,128x128,256x256,fp32,channels_last,forward",
    "bilinear,8,7,256x256,128x128,bf16,channels_last",
    "bilinear,8,8,128x128,256x256,fp32,channels_last,forward",
    # Result rows of an odd width (session 17): one row in 16 had started on a vector and
    # streamed, the rest were cached, and 16-bit rows ended through a buffer.
    "bilinear,8,64,64x64,127x127,fp32,forward",
    "bilinear,8,64,64x64,127x127,bf16,forward",
    # RGB images resized to an odd size (Inception's 299), whose W runs never repeat: the
    # blocked W form until session 22, the periodic kernels from a table of one pattern per
    # vector since.
    "bilinear,8,3,256x256,299x299,fp32,channels_last,forward",
    "bicubic,8,3,224x224,299x299,fp32,forward",
    # Images resized to 224 from 500 (session 32): bilinear by 2.23 has two taps further apart
    # than two vectors span (the gathered W form; each element had been a scalar loop), bicubic
    # the blocked form in half vectors on AMD.
    "bilinear,8,3,500x500,224x224,fp32,forward",
    "bilinear,8,3,500x500,224x224,fp32,channels_last,forward",
    "bicubic,8,3,500x500,224x224,fp32,forward",
    # torchvision's default resize of a tensor (antialiased bilinear) from 500 to 224 (session
    # 34): runs of 5 and 6 taps, which the periodic W form takes from three loads on Intel.
    "bilinear_aa,8,3,500x500,224x224,fp32,forward",
    "bilinear_aa,8,3,500x500,224x224,fp32,channels_last,forward",
    # Channels-last rows whose W runs do not repeat gather the pixel rows from a row table
    # (session 37; they had gone through planar rows and back): bicubic RGB and bilinear RGBA
    # images to 224, and HD frames (1080x1920 -> 600x1000) against the same in NCHW.
    "bicubic,8,3,500x500,224x224,fp32,channels_last,forward",
    "bilinear,8,4,500x500,224x224,fp32,channels_last,forward",
    "bilinear_aa,2,3,1080x1920,600x1000,fp32,forward",
    "bilinear_aa,2,3,1080x1920,600x1000,fp32,channels_last,forward",
    # Channels-last RGB 2x and 4x downscales and the 2x bilinear gradient (the W pass split by
    # pixel phase, or pixel rows for the 4x bilinear), against the same in NCHW.
    "bilinear_aa,8,3,512x512,256x256,fp32,forward",
    "bilinear_aa,8,3,512x512,256x256,fp32,channels_last,forward",
    "bilinear,8,3,256x256,512x512,fp32",
    "bilinear,8,3,256x256,512x512,fp32,channels_last",
    "bilinear,8,3,1024x1024,256x256,fp32,channels_last,forward",
    # Channels-last RGB bicubic 2x upscales (pixel rows on AVX-512 since session 39; they had
    # gone through deinterleaved planar rows) and bfloat16 4x bicubic AA downscales (the H pass
    # sums even and odd columns of each load apart), against the same in NCHW.
    "bicubic,8,3,256x256,512x512,fp32,forward",
    "bicubic,8,3,256x256,512x512,fp32,channels_last,forward",
    "bicubic_aa,8,3,512x512,128x128,bf16,forward",
    "bicubic_aa,8,3,512x512,128x128,bf16,channels_last,forward",
    # Gradients of downscales that leave result rows and columns with no tap (session 51): every
    # other one in a nearest 2x downscale, about one in five at 256 -> 200, half in a bilinear 4x
    # downscale (whose two taps skip two of every four columns). Their empty rows had been
    # stored element by element, cached, and their W pass had found no interior: no period where
    # the middle run was empty, no row table across empty runs (256 -> 200).
    "nearest,8,64,256x256,128x128,fp32",
    "nearest,8,64,256x256,200x200,fp32",
    "bilinear,8,3,512x512,128x128,fp32",
    "bilinear,8,64,192x192,64x64,bf16",
    # Case 1's shape with 64 images (335 MB, session 51): the suite's cases move 20-60 MB, which
    # an L3 of hundreds of MiB (the Intel VM's 260 MiB) holds in part; this one reads from memory.
    "bilinear,64,64,64x64,128x128,fp32",
    # bfloat16 resizes to an odd width, planar and channels-last (session 53): W first, their H
    # pass had read tile rows off cache lines, so AVX-512 combined and rounded in half vectors.
    "bilinear,8,3,256x256,299x299,bf16,forward",
    "bicubic,8,3,224x224,299x299,bf16,channels_last,forward",
]


def parse_shape(spec, ident):
    """A case from 'OP,N,C,INHxINW,OUTHxOUTW[,fp32|fp16|bf16][,channels_last][,align_corners]
    [,forward]' (OP a mode of ATEN_OPS, run by the table's first row of that mode and
    direction; INH x INW is the forward input, i.e. gradIn's size; forward times the forward
    operator instead of the backward one)."""
    fields = [f.strip() for f in spec.split(",")]
    if len(fields) < 5 or fields[0] not in ATEN_OPS:
        raise ValueError(f"{spec!r}: expected OP,N,C,INHxINW,OUTHxOUTW[,dtype][,channels_last]"
                         f"[,align_corners][,forward] with OP one of {', '.join(ATEN_OPS)}")
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
            "channels_last": False, "forward": False}
    for option in fields[5:]:
        if option in TAG_DTYPES:
            case["dtype"] = TAG_DTYPES[option]
        elif option in ("channels_last", "align_corners", "forward"):
            case[option] = True
        else:
            raise ValueError(f"{spec!r}: unknown option {option!r} (fp32, fp16, bf16, "
                             "channels_last, align_corners, forward)")
    return case


def case_name(case):
    """As bench/upsample_bench.cc names the case: by its command with '_' for '-' (two rows may
    share a mode and direction), or by mode and direction for a --shape case."""
    if "command" in case:
        op = case["command"].replace("-", "_")
    else:
        op = case["op"] + ("_forward" if case["forward"] else "")
    name = (f"{case['id']}_{op}_{case['n']}x{case['c']}_"
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


# The table's uniform phase-1 signature (aclnn_upsample_get_workspace_size_fn) and CANN's phase 2.
_VP = ctypes.c_void_p
PHASE1 = ctypes.CFUNCTYPE(ctypes.c_int32, _VP, _VP, _VP, ctypes.c_bool, ctypes.c_double,
                          ctypes.c_double, _VP, ctypes.POINTER(ctypes.c_uint64),
                          ctypes.POINTER(_VP))
PHASE2 = ctypes.CFUNCTYPE(ctypes.c_int32, _VP, ctypes.c_uint64, _VP, _VP)
ACLNN_UPSAMPLE_FORWARD = 0


class OperatorRow(ctypes.Structure):
    """One row of the library's operator table, aclnn_upsample_operator."""
    _fields_ = [("name", ctypes.c_char_p), ("mode", ctypes.c_char_p), ("direction", ctypes.c_int),
                ("command", ctypes.c_char_p), ("source_name", ctypes.c_char_p),
                ("accepts_nhwc", ctypes.c_bool), ("accepts_nd", ctypes.c_bool),
                ("accepts_empty", ctypes.c_bool), ("rejects_negative_scales", ctypes.c_bool),
                ("scales_need_consistent_size", ctypes.c_bool), ("max_upscale", ctypes.c_double),
                ("get_workspace_size", PHASE1), ("run", PHASE2),
                ("takes_align_corners", ctypes.c_bool), ("takes_scales", ctypes.c_bool)]


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
        sig["aclnn_upsample_operator_count"] = (ctypes.c_size_t, [])
        sig["aclnn_upsample_operator_at"] = (ctypes.POINTER(OperatorRow), [ctypes.c_size_t])
        for name, (restype, argtypes) in sig.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
        self.lib = lib
        rows = [lib.aclnn_upsample_operator_at(i).contents
                for i in range(lib.aclnn_upsample_operator_count())]
        # The table's rows by command (a suite case names its row so), and the first row of each
        # (mode, forward) for --shape cases, as aclnn_upsample_adjoint_operator picks rows.
        self.by_command = {row.command.decode(): row for row in rows}
        self.by_mode = {}
        for row in rows:
            self.by_mode.setdefault((row.mode.decode(), row.direction == ACLNN_UPSAMPLE_FORWARD),
                                    row)

    def operator(self, case):
        if "command" in case:
            if case["command"] not in self.by_command:
                raise RuntimeError(f"the library has no operator {case['command']!r}")
            return self.by_command[case["command"]]
        key = (case["op"], case["forward"])
        if key not in self.by_mode:
            raise RuntimeError(f"the library has no {'forward' if key[1] else 'backward'} "
                               f"operator of mode {key[0]!r}")
        return self.by_mode[key]

    def check(self, status, what):
        if status != 0:
            message = self.lib.aclGetRecentErrMsg() or b""
            raise RuntimeError(f"{what} failed with status {status}: {message.decode()}")


def int64_array(values):
    return (ctypes.c_int64 * len(values))(*values)


class LibraryCall:
    """One planned case: phase 1 once with a repeatable executor, then phase 2 per run()."""

    def __init__(self, api, case, source, result, stream):
        lib = api.lib
        self.api, self.lib, self.stream = api, lib, stream
        row = api.operator(case)
        self.op = row.name.decode()
        acl_dtype = ACL_DTYPES[case["dtype"]]
        tensors = []
        for t in (source, result):
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
        # A forward operator takes no inputSize: its input's shape gives it.
        input_size = None if case["forward"] else lib.aclCreateIntArray(
            int64_array([case["n"], case["c"], *case["in_hw"]]), 4)
        self.workspace_size = ctypes.c_uint64(0)
        self.executor = ctypes.c_void_p()
        # An operator without alignCorners ignores it; the suite never sets it for those.
        api.check(row.get_workspace_size(
            tensors[0], output_size, input_size, case["align_corners"], 0.0, 0.0, tensors[1],
            ctypes.byref(self.workspace_size), ctypes.byref(self.executor)),
            self.op + "GetWorkspaceSize")
        api.check(lib.aclSetAclOpExecutorRepeatable(self.executor),
                  "aclSetAclOpExecutorRepeatable")
        for handle in tensors:
            lib.aclDestroyTensor(handle)
        lib.aclDestroyIntArray(output_size)
        if input_size:
            lib.aclDestroyIntArray(input_size)
        self.workspace = ctypes.c_void_p()
        if self.workspace_size.value > 0:
            api.check(lib.aclrtMalloc(ctypes.byref(self.workspace), self.workspace_size.value,
                                      ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
        self.phase2 = row.run

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


# PyTorch's ATen ops for each mode, (forward, backward), as the operator contract names them
# the reference, and whether they take align_corners (the nearest family has none).
ATEN_OPS = {
    "bilinear": ("upsample_bilinear2d", "upsample_bilinear2d_backward", True),
    "bicubic_aa": ("_upsample_bicubic2d_aa", "_upsample_bicubic2d_aa_backward", True),
    "bilinear_aa": ("_upsample_bilinear2d_aa", "_upsample_bilinear2d_aa_backward", True),
    "bicubic": ("upsample_bicubic2d", "upsample_bicubic2d_backward", True),
    "nearest": ("upsample_nearest2d", "upsample_nearest2d_backward", False),
    "nearest_exact": ("_upsample_nearest_exact2d", "_upsample_nearest_exact2d_backward", False),
}


def torch_kernel(torch, case):
    """PyTorch's kernel for a case, called on its source: the backward ATen op for a gradient,
    the forward one (what F.interpolate calls) for a resize; scales not given, as in the suite."""
    forward_name, backward_name, takes_align_corners = ATEN_OPS[case["op"]]
    op = getattr(torch.ops.aten, forward_name if case["forward"] else backward_name)
    args = [list(case["out_hw"])]
    if not case["forward"]:
        args.append([case["n"], case["c"], *case["in_hw"]])
    if takes_align_corners:
        args.append(case["align_corners"])
    args += [None, None]
    return lambda source: op(source, *args)


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", help="path to libaclnn_upsample.so (default: build/src/, then "
                        "--prefix)")
    parser.add_argument("--prefix", default="/usr/local", help="install prefix to look in")
    parser.add_argument("--tool", help="path to upsample-grad, which lists the suite (default: "
                        "beside the library, then build/tools/, --prefix and PATH)")
    parser.add_argument("--threads", type=int, default=2, help="threads for both (default 2)")
    parser.add_argument("--cases", help="comma-separated case ids, e.g. 1,2,7 (default: all)")
    parser.add_argument("--shape", action="append", default=[], metavar="SPEC",
                        help="time this shape instead of the suite (repeatable): "
                        "OP,N,C,INHxINW,OUTHxOUTW[,fp32|fp16|bf16][,channels_last]"
                        "[,align_corners][,forward], e.g. "
                        "bilinear,8,64,64x64,96x96,fp32,channels_last (INH x INW is the forward "
                        "input's size; forward times the forward operator, else the backward)")
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
    parser.add_argument("--settle-mib", type=int, default=0,
                        help="before each timed call (of either), read this many MiB of a clean "
                        "buffer (default 0: off; more than the last-level cache, e.g. 96): the "
                        "lines the previous call left dirty are written back then rather than "
                        "during the timed call, and both calls start from memory. A diagnostic: "
                        "PyTorch stores its results through the cache, and writing them back cost "
                        "the library's next call 7-9 %% in our measurements (bench/RESULTS.md)")
    parser.add_argument("--portable", action="store_true",
                        help="set ACLNN_UPSAMPLE_SIMD=portable, asking the library for its portable "
                        "(scalar) kernels")
    args = parser.parse_args()
    if (args.threads < 1 or args.reps < 1 or args.warmup < 0 or args.pause_ms < 0 or
            args.settle_mib < 0):
        parser.error("--threads and --reps must be >= 1, --warmup, --pause-ms and --settle-mib "
                     ">= 0")

    # The library reads these at phase 1, so they are set before anything is planned.
    os.environ["ACLNN_UPSAMPLE_NUM_THREADS"] = str(args.threads)
    if args.portable:
        os.environ["ACLNN_UPSAMPLE_SIMD"] = "portable"
    # Read by libgomp when torch loads it, so it must be set before the import.
    if args.omp_wait_policy == "passive":
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

    import torch  # after the environment is set, so that nothing reads it early

    torch.set_num_threads(args.threads)
    # --settle-mib's buffer, written once: clean lines from then on (its sum only reads them).
    settle = torch.ones(args.settle_mib << 18) if args.settle_mib else None
    pause = args.pause_ms / 1e3

    def before_timed_call():
        if settle is not None:
            settle.sum()  # a read: evicts the dirty lines, leaves clean ones
        if pause:
            time.sleep(pause)

    lib_path = find_library(args.lib, args.prefix)
    shapes = list(args.shape) + (EXTRA_SHAPES if args.extra else [])
    if shapes:
        if args.cases:
            parser.error("--cases picks suite cases; --shape and --extra replace the suite")
        try:
            suite = [parse_shape(spec, f"s{i + 1}") for i, spec in enumerate(shapes)]
        except ValueError as error:
            parser.error(f"--shape {error}")
    else:
        suite = read_suite(find_tool(args.tool, lib_path, args.prefix))
    if args.cases:
        try:
            wanted = [int(x) for x in args.cases.split(",")]
        except ValueError:
            parser.error("--cases takes case ids like 1,2,7")
        unknown = sorted(set(wanted) - {c["id"] for c in suite})
        if unknown:
            parser.error(f"--cases: {unknown} not in the suite (1..{len(suite)})")
        suite = [c for c in suite if c["id"] in wanted]

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
          f"{args.pause_ms:g} ms idle and {args.settle_mib} MiB read before each; OMP_WAIT_POLICY="
          f"{os.environ.get('OMP_WAIT_POLICY', '(unset)')}; medians in ms; "
          "rel diff = max|lib-torch| / max|torch|")
    header = (f"{'case':<64} {'lib ms':>9} {'torch ms':>9} {'speedup':>8} {'rel diff':>9}  note")
    print(header)
    print("-" * len(header))

    speedups = {}  # "forward"/"backward" -> the cases' speedups
    for case in suite:
        n, c = case["n"], case["c"]
        dtype = torch_dtypes[case["dtype"]]
        memory_format = torch.channels_last if case["channels_last"] else torch.contiguous_format
        generator = torch.Generator().manual_seed(case.get("seed", case["id"]))
        # A forward operator reads the input size and writes the output size; a backward one
        # reads gradOut (the output size) and writes gradIn (the input size).
        source_hw, result_hw = ((case["in_hw"], case["out_hw"]) if case["forward"]
                                else (case["out_hw"], case["in_hw"]))
        source = (torch.rand((n, c, *source_hw), generator=generator) * 2 - 1).to(dtype)
        source = source.contiguous(memory_format=memory_format)
        result = torch.empty((n, c, *result_hw), dtype=dtype, memory_format=memory_format)
        torch_op = torch_kernel(torch, case)

        # Where PyTorch has no kernel for the dtype, it is timed in fp32 on the same values.
        note = ""
        torch_source = source
        try:
            torch_op(source)
        except (RuntimeError, NotImplementedError):
            torch_source = source.float().contiguous(memory_format=memory_format)
            note = (f"torch has no {DTYPE_TAGS[case['dtype']]} kernel: its time and result "
                    "are fp32's")

        call = LibraryCall(api, case, source, result, stream)
        try:
            # PyTorch's first calls pay for fresh allocations, the library's first for page
            # faults on the result: neither belongs in a steady-state time.
            for _ in range(args.warmup):
                call.run()
                torch_op(torch_source)
            lib_times, torch_times = [], []
            reference = None
            for _ in range(args.reps):
                before_timed_call()
                lib_times.append(timed(call.run)[0])
                before_timed_call()
                seconds, reference = timed(lambda: torch_op(torch_source))
                torch_times.append(seconds)
            alone_times = [timed(call.run)[0] for _ in range(args.reps if args.alone else 0)]
        finally:
            call.close()

        lib_ms = statistics.median(lib_times) * 1e3
        torch_ms = statistics.median(torch_times) * 1e3
        speedup = torch_ms / lib_ms
        speedups.setdefault("forward" if case["forward"] else "backward", []).append(speedup)
        ours, theirs = result.double(), reference.double()
        scale = theirs.abs().max().item()
        rel = (ours - theirs).abs().max().item() / scale if scale > 0 else 0.0
        if alone_times:
            alone = f"lib alone {statistics.median(alone_times) * 1e3:.3f} ms"
            note = f"{alone}; {note}" if note else alone
        print(f"{case_name(case):<64} {lib_ms:9.3f} {torch_ms:9.3f} {speedup:7.2f}x {rel:9.2e}  "
              f"{note}", flush=True)

    for direction, values in sorted(speedups.items()):
        geomean = math.exp(sum(math.log(s) for s in values) / len(values))
        print(f"geometric-mean speedup (torch/lib) over {len(values)} {direction} cases: "
              f"{geomean:.2f}x")
    print(f"CPU: {cpu_model()}; torch {torch.__version__}; threads {args.threads}; "
          f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
