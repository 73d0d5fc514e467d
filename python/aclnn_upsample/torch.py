"""PyTorch integration: custom ops, and routing PyTorch's own CPU kernels to the library.

Custom ops (registered when this module is imported; it imports torch)::

    torch.ops.aclnn_upsample.upsample_bilinear2d_backward_v2(
        grad_out, output_size, input_size, align_corners=False, scales_h=0.0, scales_w=0.0)
    torch.ops.aclnn_upsample.upsample_bicubic2d_aa_grad(...same arguments...)

They are the two aclnn operators exactly (the V2 scale rule included), with fake kernels for
``torch.compile`` and a double-backward formula (the forward resize).

Routing (opt-in, never a side effect of import)::

    with aclnn_upsample.torch.enabled():
        loss = F.interpolate(x, scale_factor=2, mode="bilinear").sum()
        loss.backward()            # the backward ran on aclnn_upsample

``enable()`` replaces the CPU kernels of ``aten::upsample_bilinear2d_backward`` and
``aten::_upsample_bicubic2d_aa_backward`` (and their ``.grad_input`` out= variants); these are
what autograd calls for ``F.interpolate(mode="bilinear")`` and ``F.interpolate(mode="bicubic",
antialias=True)``. ``disable()`` removes the replacement, which restores PyTorch's own kernels.
The replacement gives PyTorch's results; it hands a call back to PyTorch's kernel when the
library cannot give them:

- dtypes other than float32, float16 and bfloat16 (float64 above all), and non-CPU tensors
  (which never reach a CPU kernel anyway);
- bilinear with a scale PyTorch uses but the V2 rule would not: ``scales_h``/``scales_w`` given
  with ``output_size != floor(input_size * scale)`` or ``scale > 100`` (align_corners=False,
  ``in != out``). PyTorch always computes with a given scale; the V2 operator, like the device,
  falls back to ``in/out``, which is a different gradient. ``F.interpolate(scale_factor=s)``
  computes ``output_size = floor(in * s)`` itself, so it reaches this only for ``s > 100``;
  direct ``torch.ops.aten`` calls with inconsistent scales are the other source.
- anything the library refuses (e.g. bicubic AA upscaling beyond 50x, negative scales, an out=
  tensor of the wrong shape, which PyTorch resizes, or one overlapping grad_output).

Matching is within the contract's tolerance, not bitwise: the library computes the weights in
float64 where PyTorch uses the tensor's dtype, and rounds 16-bit results once from float32.
"""

from __future__ import annotations

import contextlib
import math
import threading
import warnings
from typing import List, Optional, Sequence

import torch

from . import AclnnError, _core, _torch_memory_format
from . import upsample_bicubic2d_aa_grad as _bicubic_aa_grad
from . import upsample_bilinear2d_backward_v2 as _bilinear_backward_v2

__all__ = ["enable", "disable", "is_enabled", "enabled", "uses_torch_threads"]

_LIBRARY_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


# ---------------------------------------------------------------------------------------------
# Custom ops


def _result_like(grad_out: torch.Tensor, input_size: Sequence[int]) -> torch.Tensor:
    # The memory format the real kernel returns (that of grad_out, as PyTorch's kernels do).
    return torch.empty(list(input_size), dtype=grad_out.dtype, device=grad_out.device,
                       memory_format=_torch_memory_format(grad_out))


@torch.library.custom_op("aclnn_upsample::upsample_bilinear2d_backward_v2", mutates_args=(),
                         device_types="cpu")
def upsample_bilinear2d_backward_v2(grad_out: torch.Tensor, output_size: List[int],
                                    input_size: List[int], align_corners: bool = False,
                                    scales_h: float = 0.0, scales_w: float = 0.0) -> torch.Tensor:
    """aclnnUpsampleBilinear2dBackwardV2 (NCHW tensors of any strides)."""
    return _bilinear_backward_v2(grad_out, output_size, input_size, align_corners, scales_h,
                                 scales_w)


@torch.library.custom_op("aclnn_upsample::upsample_bicubic2d_aa_grad", mutates_args=(),
                         device_types="cpu")
def upsample_bicubic2d_aa_grad(grad_out: torch.Tensor, output_size: List[int],
                               input_size: List[int], align_corners: bool = False,
                               scales_h: float = 0.0, scales_w: float = 0.0) -> torch.Tensor:
    """aclnnUpsampleBicubic2dAAGrad (NCHW tensors of any strides)."""
    return _bicubic_aa_grad(grad_out, output_size, input_size, align_corners, scales_h, scales_w)


@upsample_bilinear2d_backward_v2.register_fake
def _(grad_out, output_size, input_size, align_corners=False, scales_h=0.0, scales_w=0.0):
    _check_fake_args("upsample_bilinear2d_backward_v2", grad_out, output_size, input_size)
    return _result_like(grad_out, input_size)


@upsample_bicubic2d_aa_grad.register_fake
def _(grad_out, output_size, input_size, align_corners=False, scales_h=0.0, scales_w=0.0):
    _check_fake_args("upsample_bicubic2d_aa_grad", grad_out, output_size, input_size)
    return _result_like(grad_out, input_size)


def _check_fake_args(name, grad_out, output_size, input_size):
    # Only what the fake result's own construction needs; the real kernel checks the rest.
    torch._check(len(input_size) == 4,
                 lambda: f"{name}: input_size: expected 4 values, got {list(input_size)}")
    torch._check(grad_out.dtype in _LIBRARY_DTYPES,
                 lambda: f"{name}: grad_out: expected float32, float16 or bfloat16, got "
                         f"{grad_out.dtype}")


def _bilinear_effective_scale(in_size: int, out_size: int, scale: float,
                              align_corners: bool) -> Optional[float]:
    """The scale the V2 rule uses on one axis, as PyTorch's forward takes it (None: in/out)."""
    if align_corners or scale is None or scale <= 0:
        return None
    if out_size == math.floor(in_size * scale) and 1.0 / scale >= 0.01:
        return scale
    return None


# Double backward: each op is linear in grad_out, with the forward resize as its adjoint.
def _setup_context(ctx, inputs, output):
    _, output_size, input_size, align_corners, scales_h, scales_w = inputs
    ctx.args = (list(output_size), list(input_size), bool(align_corners), scales_h, scales_w)


def _bilinear_double_backward(ctx, grad):
    output_size, input_size, align_corners, scales_h, scales_w = ctx.args
    sh = _bilinear_effective_scale(input_size[2], output_size[0], scales_h, align_corners)
    sw = _bilinear_effective_scale(input_size[3], output_size[1], scales_w, align_corners)
    return (torch.ops.aten.upsample_bilinear2d(grad, output_size, align_corners, sh, sw), None,
            None, None, None, None)


def _bicubic_aa_double_backward(ctx, grad):
    output_size, input_size, align_corners, scales_h, scales_w = ctx.args
    sh = scales_h if scales_h > 0 else None
    sw = scales_w if scales_w > 0 else None
    return (torch.ops.aten._upsample_bicubic2d_aa(grad, output_size, align_corners, sh, sw), None,
            None, None, None, None)


upsample_bilinear2d_backward_v2.register_autograd(_bilinear_double_backward,
                                                  setup_context=_setup_context)
upsample_bicubic2d_aa_grad.register_autograd(_bicubic_aa_double_backward,
                                             setup_context=_setup_context)


# ---------------------------------------------------------------------------------------------
# Routing PyTorch's CPU kernels

_lock = threading.Lock()
_library: Optional[torch.library.Library] = None


def _library_takes(grad_output: torch.Tensor) -> bool:
    return (grad_output.dtype in _LIBRARY_DTYPES and grad_output.device.type == "cpu"
            and grad_output.layout == torch.strided and grad_output.dim() == 4)


def _bilinear_scales(output_size, input_size, align_corners, scales_h, scales_w):
    """The scales to pass to the V2 operator, or None where its rule would not use a scale that
    PyTorch uses (so only PyTorch's kernel gives PyTorch's gradient)."""
    passed = []
    for in_size, out_size, scale in ((input_size[2], output_size[0], scales_h),
                                     (input_size[3], output_size[1], scales_w)):
        if scale is None or scale <= 0:
            passed.append(0.0)
        elif (align_corners or in_size == out_size
              or _bilinear_effective_scale(in_size, out_size, scale, False) is not None):
            passed.append(scale)  # used as given, or by neither
        else:
            return None
    return passed


def _make_kernels(op_name: str, library_function, scales_for):
    """The functional and out= kernels of one aten op, each falling back to PyTorch's own."""
    functional_original = torch.library.get_kernel(f"aten::{op_name}", "CPU")
    out_original = torch.library.get_kernel(f"aten::{op_name}.grad_input", "CPU")

    def library_call(grad_output, output_size, input_size, align_corners, scales_h, scales_w,
                     out=None):
        if not _library_takes(grad_output) or len(output_size) != 2 or len(input_size) != 4:
            return None
        scales = scales_for(output_size, input_size, align_corners, scales_h, scales_w)
        if scales is None:
            return None
        try:
            return library_function(grad_output, output_size, input_size, align_corners,
                                    scales[0], scales[1], out=out)
        except AclnnError:
            return None  # nothing was written; PyTorch's kernel decides (and may raise)

    def functional(keyset, grad_output, output_size, input_size, align_corners, scales_h=None,
                   scales_w=None):
        result = library_call(grad_output, output_size, input_size, align_corners, scales_h,
                              scales_w)
        if result is not None:
            return result
        return functional_original.call_boxed(keyset, grad_output, output_size, input_size,
                                              align_corners, scales_h, scales_w)

    def out_variant(keyset, grad_output, output_size, input_size, align_corners, scales_h=None,
                    scales_w=None, *, grad_input):
        # A grad_input of another shape or dtype is PyTorch's to resize or reject.
        if (grad_input.dtype == grad_output.dtype and grad_input.device.type == "cpu"
                and list(grad_input.shape) == list(input_size)
                and library_call(grad_output, output_size, input_size, align_corners, scales_h,
                                 scales_w, out=grad_input) is not None):
            return grad_input
        return out_original.call_boxed(keyset, grad_output, output_size, input_size,
                                       align_corners, scales_h, scales_w, grad_input=grad_input)

    return functional, out_variant


def _bicubic_aa_scales(output_size, input_size, align_corners, scales_h, scales_w):
    # The AA operator uses any positive scale as given, as PyTorch does.
    return [scales_h or 0.0, scales_w or 0.0]


def _torch_openmp_runtime() -> Optional[str]:
    """The path of the OpenMP runtime PyTorch's CPU ops run on, if that is their backend."""
    if "OpenMP" not in torch.__config__.parallel_info():
        return None
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "/" in line}
    except OSError:
        return None
    for prefix in ("libgomp", "libiomp5", "libomp"):
        for path in sorted(paths):
            if path.rsplit("/", 1)[-1].startswith(prefix):
                return path
    return None


def _use_torch_threads(on: bool) -> bool:
    path = _torch_openmp_runtime() if on else None
    _core.use_openmp_team(path)
    return path is not None


def enable(torch_threads: bool = False) -> None:
    """Routes PyTorch's CPU kernels of aten::upsample_bilinear2d_backward and
    aten::_upsample_bicubic2d_aa_backward (and their out= variants) to the library, for the
    whole process, until :func:`disable`. Calling it again does nothing (and keeps the first
    call's ``torch_threads``).

    With ``torch_threads`` (experimental, off by default), every library call in the process
    runs on PyTorch's own OpenMP threads (``torch.get_num_threads()`` of them, unless
    :func:`aclnn_upsample.set_num_threads` says otherwise) instead of the library's pool, whose
    threads compete for the cores with PyTorch's OpenMP workers while those spin after each op.
    Measured with bench/python_bench.py on a 2-vCPU VM: on the idle VM both placements stayed
    within 7 % of a call alone (the team 5-14 % faster right after a PyTorch op); on the loaded
    VM the team was far slower, each call waiting in OpenMP's spinning barrier. Results are
    bitwise the same either way."""
    global _library
    with _lock:
        if _library is not None:
            return
        if not hasattr(torch.library, "get_kernel"):
            raise RuntimeError("aclnn_upsample.torch.enable: expected torch.library.get_kernel "
                               f"(PyTorch 2.9 or later) to keep PyTorch's kernels for the "
                               f"cases the library does not take, got torch {torch.__version__}")
        kernels = {
            "upsample_bilinear2d_backward":
                _make_kernels("upsample_bilinear2d_backward", _bilinear_backward_v2,
                              _bilinear_scales),
            "_upsample_bicubic2d_aa_backward":
                _make_kernels("_upsample_bicubic2d_aa_backward", _bicubic_aa_grad,
                              _bicubic_aa_scales),
        }
        library = torch.library.Library("aten", "IMPL")
        try:
            with warnings.catch_warnings():
                # Replacing a kernel is the point; PyTorch warns about every override.
                warnings.simplefilter("ignore")
                for name, (functional, out_variant) in kernels.items():
                    library.impl(name, functional, "CPU", with_keyset=True)
                    library.impl(f"{name}.grad_input", out_variant, "CPU", with_keyset=True)
        except BaseException:
            library._destroy()
            raise
        _library = library
        if torch_threads:
            _use_torch_threads(True)


def disable() -> None:
    """Restores PyTorch's own kernels. Calling it when not enabled does nothing."""
    global _library
    with _lock:
        if _library is None:
            return
        # Removing the registrations uncovers the kernels they were stacked on: PyTorch's.
        _library._destroy()
        _library = None
        _use_torch_threads(False)


def uses_torch_threads() -> bool:
    """Whether library calls run on PyTorch's OpenMP threads now (see :func:`enable`)."""
    return _core.uses_openmp_team()


def is_enabled() -> bool:
    """Whether :func:`enable` is in effect."""
    return _library is not None


@contextlib.contextmanager
def enabled(torch_threads: bool = False):
    """Enables the routing inside the ``with`` block and restores the previous state after."""
    was_enabled = is_enabled()
    enable(torch_threads)
    try:
        yield
    finally:
        if not was_enabled:
            disable()
