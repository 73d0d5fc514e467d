"""PyTorch integration: custom ops, and routing PyTorch's own CPU kernels to the library.

Custom ops (registered when this module is imported; it imports torch)::

    torch.ops.aclnn_upsample.upsample_bilinear2d(
        x, output_size, align_corners=False, scales_h=0.0, scales_w=0.0)
    torch.ops.aclnn_upsample.upsample_bicubic2d_aa(...same arguments...)
    torch.ops.aclnn_upsample.upsample_bilinear2d_backward_v2(
        grad_out, output_size, input_size, align_corners=False, scales_h=0.0, scales_w=0.0)
    torch.ops.aclnn_upsample.upsample_bicubic2d_aa_grad(...same arguments...)

They are the four aclnn operators exactly (the V2 scale rule included), with fake kernels for
``torch.compile``. Their autograd formulas are each other: the gradient of a forward op is the
library's backward op and the other way round (the two apply exactly transposed matrices), so a
model built on the forward ops trains on the library alone, double backward included.

Routing (opt-in, never a side effect of import)::

    with aclnn_upsample.torch.enabled():
        loss = F.interpolate(x, scale_factor=2, mode="bilinear").sum()   # forward: the library
        loss.backward()                                                   # backward: too

``enable()`` replaces the CPU kernels of ``aten::upsample_bilinear2d``,
``aten::_upsample_bicubic2d_aa``, ``aten::upsample_bilinear2d_backward`` and
``aten::_upsample_bicubic2d_aa_backward`` (and their ``.out``/``.grad_input`` out= variants);
these are what ``F.interpolate(mode="bilinear")`` and ``F.interpolate(mode="bicubic",
antialias=True)`` and their autograd call (the ``.vec`` overloads F.interpolate uses decompose
into them). ``disable()`` removes the replacement, which restores PyTorch's own kernels. The
replacement gives PyTorch's results; it hands a call back to PyTorch's kernel when the library
cannot give them:

- dtypes other than float32, float16 and bfloat16 (float64 above all), and non-CPU tensors
  (which never reach a CPU kernel anyway);
- bilinear with a scale PyTorch uses but the V2 rule would not: ``scales_h``/``scales_w`` given
  with ``output_size != floor(input_size * scale)`` or ``scale > 100`` (align_corners=False,
  ``in != out``). PyTorch always computes with a given scale; the library, like the device,
  falls back to ``in/out``, which is a different result. ``F.interpolate(scale_factor=s)``
  computes ``output_size = floor(in * s)`` itself, so it reaches this only for ``s > 100``;
  direct ``torch.ops.aten`` calls with inconsistent scales are the other source.
- the antialiased forward with a scale other than 1 on an axis whose size does not change:
  PyTorch's forward copies that axis, while its backward and the library use the scale.
- anything the library refuses (e.g. bicubic AA upscaling beyond 50x, an empty AA problem, an
  out= tensor of the wrong shape, which PyTorch resizes, or one overlapping the source).

PyTorch has no float16/bfloat16 CPU kernel for the antialiased resize, forward or backward;
routed, the library computes those instead of PyTorch raising. Matching is within the
contract's tolerance, not bitwise: the library computes the weights in float64 where PyTorch
uses the tensor's dtype, and rounds 16-bit results once from float32.
"""

from __future__ import annotations

import contextlib
import math
import threading
import warnings
from typing import Callable, List, NamedTuple, Optional, Sequence

import torch

from . import AclnnError, _core, _torch_memory_format
from . import upsample_bicubic2d_aa as _bicubic_aa
from . import upsample_bicubic2d_aa_grad as _bicubic_aa_grad
from . import upsample_bilinear2d as _bilinear
from . import upsample_bilinear2d_backward_v2 as _bilinear_backward_v2

__all__ = ["enable", "disable", "is_enabled", "enabled", "uses_torch_threads"]

_LIBRARY_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


# ---------------------------------------------------------------------------------------------
# Custom ops


def _empty_nchw(like: torch.Tensor, shape: Sequence[int]) -> torch.Tensor:
    # The memory format the real kernel returns (that of its source, as PyTorch's kernels do).
    return torch.empty(list(shape), dtype=like.dtype, device=like.device,
                       memory_format=_torch_memory_format(like))


@torch.library.custom_op("aclnn_upsample::upsample_bilinear2d", mutates_args=(),
                         device_types="cpu")
def upsample_bilinear2d(x: torch.Tensor, output_size: List[int], align_corners: bool = False,
                        scales_h: float = 0.0, scales_w: float = 0.0) -> torch.Tensor:
    """aclnnUpsampleBilinear2d (NCHW tensors of any strides)."""
    return _bilinear(x, output_size, align_corners, scales_h, scales_w)


@torch.library.custom_op("aclnn_upsample::upsample_bicubic2d_aa", mutates_args=(),
                         device_types="cpu")
def upsample_bicubic2d_aa(x: torch.Tensor, output_size: List[int], align_corners: bool = False,
                          scales_h: float = 0.0, scales_w: float = 0.0) -> torch.Tensor:
    """aclnnUpsampleBicubic2dAA (NCHW tensors of any strides)."""
    return _bicubic_aa(x, output_size, align_corners, scales_h, scales_w)


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


def _check_fake_source(name, source, sizes, length):
    # Only what the fake result's own construction needs; the real kernel checks the rest.
    torch._check(len(sizes) == length,
                 lambda: f"{name}: expected {length} sizes, got {list(sizes)}")
    torch._check(source.dim() == 4,
                 lambda: f"{name}: expected a 4-D tensor, got {source.dim()}-D")
    torch._check(source.dtype in _LIBRARY_DTYPES,
                 lambda: f"{name}: expected float32, float16 or bfloat16, got {source.dtype}")


def _fake_forward(x, output_size, align_corners=False, scales_h=0.0, scales_w=0.0):
    _check_fake_source("aclnn_upsample forward", x, output_size, 2)
    return _empty_nchw(x, [x.shape[0], x.shape[1], *output_size])


def _fake_backward(grad_out, output_size, input_size, align_corners=False, scales_h=0.0,
                   scales_w=0.0):
    _check_fake_source("aclnn_upsample backward", grad_out, input_size, 4)
    return _empty_nchw(grad_out, input_size)


for _op in (upsample_bilinear2d, upsample_bicubic2d_aa):
    _op.register_fake(_fake_forward)
for _op in (upsample_bilinear2d_backward_v2, upsample_bicubic2d_aa_grad):
    _op.register_fake(_fake_backward)


# Autograd. Each op is linear in its tensor, and the forward and backward operators of one mode
# apply exactly transposed matrices for the same sizes and scales (the library's adjoint
# identity): the gradient of each is the other, so a model on these ops trains on the library
# alone, and double backward works too.
def _forward_context(ctx, inputs, output):
    x, output_size, align_corners, scales_h, scales_w = inputs
    ctx.args = (list(output_size), list(x.shape), bool(align_corners), scales_h, scales_w)


def _backward_context(ctx, inputs, output):
    _, output_size, input_size, align_corners, scales_h, scales_w = inputs
    ctx.args = (list(output_size), list(input_size), bool(align_corners), scales_h, scales_w)


def _positive(scale: float) -> float:
    # The V2 gradient reads a negative scale as "not given"; the forward refuses one.
    return scale if scale > 0 else 0.0


def _autograd(forward_op, backward_op):
    def forward_gradient(ctx, grad):
        output_size, input_size, align_corners, scales_h, scales_w = ctx.args
        return (backward_op(grad, output_size, input_size, align_corners, scales_h, scales_w),
                None, None, None, None)

    def backward_gradient(ctx, grad):
        output_size, _, align_corners, scales_h, scales_w = ctx.args
        return (forward_op(grad, output_size, align_corners, _positive(scales_h),
                           _positive(scales_w)), None, None, None, None, None)

    forward_op.register_autograd(forward_gradient, setup_context=_forward_context)
    backward_op.register_autograd(backward_gradient, setup_context=_backward_context)


_autograd(upsample_bilinear2d, upsample_bilinear2d_backward_v2)
_autograd(upsample_bicubic2d_aa, upsample_bicubic2d_aa_grad)


# ---------------------------------------------------------------------------------------------
# Routing PyTorch's CPU kernels

_lock = threading.Lock()
_library: Optional[torch.library.Library] = None


def _library_takes(source: torch.Tensor) -> bool:
    return (source.dtype in _LIBRARY_DTYPES and source.device.type == "cpu"
            and source.layout == torch.strided and source.dim() == 4)


def _v2_rule_uses_scale(in_size: int, out_size: int, scale: float) -> bool:
    """Whether the V2 rule uses a given positive scale (align_corners=False)."""
    return out_size == math.floor(in_size * scale) and 1.0 / scale >= 0.01


def _bilinear_scales(output_size, input_size, align_corners, scales_h, scales_w):
    """The scales to pass to the bilinear operators, or None where their rule would not use a
    scale that PyTorch uses (so only PyTorch's kernel gives PyTorch's numbers)."""
    passed = []
    for in_size, out_size, scale in ((input_size[2], output_size[0], scales_h),
                                     (input_size[3], output_size[1], scales_w)):
        if scale is None or scale <= 0:
            passed.append(0.0)  # not given, for PyTorch as for the library
        elif align_corners or in_size == out_size or _v2_rule_uses_scale(
                in_size, out_size, scale):
            passed.append(scale)  # used as given, or by neither
        else:
            return None
    return passed


def _bicubic_aa_scales(output_size, input_size, align_corners, scales_h, scales_w):
    # The AA operators use any positive scale as given, as PyTorch does.
    return [scales_h or 0.0, scales_w or 0.0]


def _bicubic_aa_forward_scales(output_size, input_size, align_corners, scales_h, scales_w):
    """As _bicubic_aa_scales, but None where PyTorch's forward would copy an axis whose size does
    not change although its scale says otherwise (tests/golden/TORCH_NOTES.md): its backward and
    the library both use that scale, so only PyTorch's forward kernel gives its numbers."""
    for in_size, out_size, scale in ((input_size[2], output_size[0], scales_h),
                                     (input_size[3], output_size[1], scales_w)):
        if in_size == out_size and not align_corners and scale and scale > 0 and scale != 1:
            return None
    return _bicubic_aa_scales(output_size, input_size, align_corners, scales_h, scales_w)


class _Route(NamedTuple):
    """One aten op routed to the library: its functional and out= overloads' CPU kernels."""
    aten: str  # the functional overload's name
    out_name: str  # the out= overload and its keyword argument
    forward: bool  # whether the schema is the forward's (no input_size)
    run: Callable  # (source, output_size, input_size, align_corners, sh, sw, out) -> result
    scales: Callable  # (output_size, input_size, align_corners, sh, sw) -> [sh, sw] or None


_ROUTES = (
    _Route("upsample_bilinear2d", "out", True,
           lambda s, o, i, a, sh, sw, out: _bilinear(s, o, a, sh, sw, out=out),
           _bilinear_scales),
    _Route("_upsample_bicubic2d_aa", "out", True,
           lambda s, o, i, a, sh, sw, out: _bicubic_aa(s, o, a, sh, sw, out=out),
           _bicubic_aa_forward_scales),
    _Route("upsample_bilinear2d_backward", "grad_input", False,
           lambda s, o, i, a, sh, sw, out: _bilinear_backward_v2(s, o, i, a, sh, sw, out=out),
           _bilinear_scales),
    _Route("_upsample_bicubic2d_aa_backward", "grad_input", False,
           lambda s, o, i, a, sh, sw, out: _bicubic_aa_grad(s, o, i, a, sh, sw, out=out),
           _bicubic_aa_scales),
)


def _make_kernels(route: _Route):
    """The functional and out= kernels of one aten op, each falling back to PyTorch's own."""
    functional_original = torch.library.get_kernel(f"aten::{route.aten}", "CPU")
    out_original = torch.library.get_kernel(f"aten::{route.aten}.{route.out_name}", "CPU")

    def problem(args):
        """(source, output_size, input_size, align_corners, scales_h, scales_w, result shape)
        from the schema's positional arguments, of which the dispatcher leaves out trailing ones
        at their default (the scales, None)."""
        if route.forward:
            source, output_size, align_corners, *scales = args
            input_size = list(source.shape)
            shape = [*input_size[:2], *output_size]
        else:
            source, output_size, input_size, align_corners, *scales = args
            shape = list(input_size)
        scales_h, scales_w = (*scales, None, None)[:2]
        return source, output_size, input_size, align_corners, scales_h, scales_w, shape

    def library_call(args, out=None):
        source, output_size, input_size, align_corners, scales_h, scales_w, shape = problem(args)
        if not _library_takes(source) or len(output_size) != 2 or len(input_size) != 4:
            return None
        if out is not None and (out.dtype != source.dtype or out.device.type != "cpu"
                                or list(out.shape) != shape):
            return None  # PyTorch's to resize or reject
        scales = route.scales(output_size, input_size, align_corners, scales_h, scales_w)
        if scales is None:
            return None
        try:
            return route.run(source, output_size, input_size, align_corners, scales[0],
                             scales[1], out)
        except AclnnError:
            return None  # nothing was written; PyTorch's kernel decides (and may raise)

    def functional(keyset, *args):
        result = library_call(args)
        return result if result is not None else functional_original.call_boxed(keyset, *args)

    def out_variant(keyset, *args, **kwargs):
        out = kwargs[route.out_name]
        if library_call(args, out) is not None:
            return out
        return out_original.call_boxed(keyset, *args, **kwargs)

    return functional, out_variant


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
    """Routes PyTorch's CPU kernels of aten::upsample_bilinear2d,
    aten::_upsample_bicubic2d_aa and their backward ops (and their out= variants) to the library,
    for the whole process, until :func:`disable`. Calling it again does nothing (and keeps the first
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
        kernels = {route: _make_kernels(route) for route in _ROUTES}
        library = torch.library.Library("aten", "IMPL")
        try:
            with warnings.catch_warnings():
                # Replacing a kernel is the point; PyTorch warns about every override.
                warnings.simplefilter("ignore")
                for route, (functional, out_variant) in kernels.items():
                    library.impl(route.aten, functional, "CPU", with_keyset=True)
                    library.impl(f"{route.aten}.{route.out_name}", out_variant, "CPU",
                                 with_keyset=True)
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
