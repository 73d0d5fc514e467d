"""PyTorch integration: custom ops, and routing PyTorch's own CPU kernels to the library.

Custom ops (registered when this module is imported; it imports torch): one per row of the
library's operator table, named after the row's function in :mod:`aclnn_upsample` and taking its
arguments (without ``out``/``format``)::

    torch.ops.aclnn_upsample.upsample_bilinear2d(
        x, output_size, align_corners=False, scales_h=0.0, scales_w=0.0)
    torch.ops.aclnn_upsample.upsample_bicubic2d_aa_grad(
        grad_out, output_size, input_size, align_corners=False, scales_h=0.0, scales_w=0.0)
    torch.ops.aclnn_upsample.upsample_nearest2d_v2(x, output_size, scales_h=0.0, scales_w=0.0)
    torch.ops.aclnn_upsample.upsample_nearest2d(x, output_size)            # V1: no scales
    ... (upsample_bicubic2d_aa, upsample_bilinear2d_backward_v2, upsample_bilinear2d_backward,
         upsample_bilinear2d_aa[_backward], upsample_bicubic2d[_backward],
         upsample_nearest2d_backward, upsample_nearest_exact2d[_backward])

They are the aclnn operators exactly (each one's scale rule included), with fake kernels for
``torch.compile``. Their autograd formulas are each other: the gradient of a forward op is the
library's backward op of the same mode and the other way round (the two apply exactly transposed
matrices), so a model built on the forward ops trains on the library alone, double backward
included. Two backward ops read a scale in a way their mode's forward op cannot: V1 bilinear uses
any scale as given (the forward, like V2, only a consistent one), and the nearest backward takes
its scales as float64 where ``aclnnUpsampleNearest2dV2`` takes float32. Where that changes the
matrix, their gradient is PyTorch's own forward op, which reads scales as they do.

Routing (opt-in, never a side effect of import)::

    with aclnn_upsample.torch.enabled():
        loss = F.interpolate(x, scale_factor=2, mode="bilinear").sum()   # forward: the library
        loss.backward()                                                   # backward: too

``enable()`` replaces the CPU kernels (and their ``.out``/``.grad_input`` out= variants) of
``aten::upsample_bilinear2d``, ``aten::_upsample_bicubic2d_aa``, ``aten::_upsample_bilinear2d_aa``,
``aten::upsample_bicubic2d``, ``aten::upsample_nearest2d``, ``aten::_upsample_nearest_exact2d``
and their backward ops; these are what ``F.interpolate`` with ``mode="bilinear"``, ``"bicubic"``
(with or without ``antialias=True``), ``"bilinear"`` with ``antialias=True``, ``"nearest"`` and
``"nearest-exact"`` and their autograd call (the ``.vec`` overloads F.interpolate uses decompose
into them). Each runs the first table row of its mode and direction (bilinear backward: V2;
nearest forward: V2). ``disable()`` removes the replacement, which restores PyTorch's own
kernels. The replacement gives PyTorch's results; it hands a call back to PyTorch's kernel when
the library cannot give them:

- dtypes other than float32, float16 and bfloat16 (float64 above all), and non-CPU tensors
  (which never reach a CPU kernel anyway);
- bilinear with a scale PyTorch uses but the V2 rule would not: ``scales_h``/``scales_w`` given
  with ``output_size != floor(input_size * scale)`` or ``scale > 100`` (align_corners=False,
  ``in != out``). PyTorch always computes with a given scale; the library, like the device,
  falls back to ``in/out``, which is a different result. ``F.interpolate(scale_factor=s)``
  computes ``output_size = floor(in * s)`` itself, so it reaches this only for ``s > 100``;
  direct ``torch.ops.aten`` calls with inconsistent scales are the other source.
- the antialiased forwards (bicubic and bilinear) with a scale other than 1 on an axis whose size
  does not change: PyTorch's forward copies that axis, while its backward and the library use
  the scale.
- the bicubic backward where neither axis changes size: PyTorch's backward copies ``grad_output``
  whatever the scales (and keeps a NaN where it is), while its forward and the library apply the
  bicubic matrix (with a scale, not an identity; a NaN reaches the neighbours' taps).
- the nearest forward with a scale whose float32 rounding (``aclnnUpsampleNearest2dV2`` takes
  float scales, as CANN declares them) changes the float32 ratio PyTorch computes from the
  float64 scale, which may move an index.
- anything the library refuses (e.g. bicubic AA upscaling beyond 50x, an empty AA or bicubic
  problem, an out= tensor of the wrong shape, which PyTorch resizes, or one overlapping the
  source).

PyTorch has no float16/bfloat16 CPU kernel for the antialiased resizes, forward or backward;
routed, the library computes those instead of PyTorch raising. Matching is within the
contract's tolerance, not bitwise: the library computes the weights in float64 where PyTorch
uses the tensor's dtype, and rounds 16-bit results once from float32. The nearest forward is
bitwise PyTorch's (a copy of the element both pick); the nearest backward sums the same
elements, in its own order (PyTorch's float32 sums differ from it by an ulp or so).

Non-finite values are not routed around: where PyTorch's antialiased forward copies an unchanged
axis (scale not given or 1), a NaN stays in place there while the library spreads it over the
filter's window, as PyTorch's backward does; and an Inf meets the weight-0 taps (inf * 0 is NaN)
in another order in the library's separable passes than in PyTorch's kernels, so the places
that become NaN rather than Inf may differ (bilinear, bicubic, antialiased).
"""

from __future__ import annotations

import contextlib
import math
import threading
import warnings
from typing import Callable, Dict, NamedTuple, Optional, Sequence

import numpy as np
import torch

from . import AclnnError, _core, _row_functions, _torch_memory_format

__all__ = ["enable", "disable", "is_enabled", "enabled", "uses_torch_threads"]

_LIBRARY_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
_ROWS = _core.operators()
_FUNCTIONS = _row_functions()  # row name -> (name, function) of the function that runs it


def _first_row(mode: str, forward: bool) -> dict:
    """The first table row of a mode and direction: the one PyTorch's op of it is routed to, and
    every op's adjoint (as aclnn_upsample_adjoint_operator)."""
    return next(row for row in _ROWS if row["mode"] == mode and row["forward"] == forward)


def _adjoint(row: dict) -> dict:
    return _first_row(row["mode"], not row["forward"])


# ---------------------------------------------------------------------------------------------
# Scales as each side reads them

# Rows whose CANN prototype declares the scales float: a float64 scale reaches them rounded.
_FLOAT_SCALE_ROWS = frozenset(row["name"] for row in _ROWS if row["scales_are_float"])


def _as_float32(scale: float) -> float:
    return float(np.float32(scale))


def _float32_ratio_unchanged(scale: Optional[float]) -> bool:
    """Whether the float32 ratio 1/scale that PyTorch computes from a float64 scale is the one
    computed from the scale rounded to float32 (or the scale is "not given" either way)."""
    if scale is None or not scale > 0:
        return True
    return np.float32(1.0 / scale) == np.float32(1.0 / _as_float32(scale))


def _v2_rule_uses_scale(in_size: int, out_size: int, scale: float) -> bool:
    """Whether the V2 rule uses a given positive scale (align_corners=False)."""
    return out_size == math.floor(in_size * scale) and 1.0 / scale >= 0.01


def _axes(output_size, input_size, scales_h, scales_w):
    return ((input_size[2], output_size[0], scales_h), (input_size[3], output_size[1], scales_w))


def _given(scale: Optional[float]) -> bool:
    return scale is not None and scale > 0


def _bilinear_scales(output_size, input_size, align_corners, scales_h, scales_w):
    """The scales to pass to the V2 bilinear operators, or None where their rule would not use a
    scale that PyTorch uses (so only PyTorch's kernel gives PyTorch's numbers)."""
    passed = []
    for in_size, out_size, scale in _axes(output_size, input_size, scales_h, scales_w):
        if not _given(scale):
            passed.append(0.0)  # not given, for PyTorch as for the library
        elif align_corners or in_size == out_size or _v2_rule_uses_scale(
                in_size, out_size, scale):
            passed.append(scale)  # used as given, or by neither
        else:
            return None
    return passed


def _scales_as_given(output_size, input_size, align_corners, scales_h, scales_w):
    # A positive scale used as given, as PyTorch does; None is the library's "not given", 0.
    return [scales_h or 0.0, scales_w or 0.0]


def _antialias_forward_scales(output_size, input_size, align_corners, scales_h, scales_w):
    """As given, but None where PyTorch's antialiased forward (bicubic and bilinear alike) would
    copy an axis whose size does not change although its scale says otherwise
    (tests/golden/TORCH_NOTES.md): its backward and the library both use that scale, so only
    PyTorch's forward kernel gives its numbers."""
    for in_size, out_size, scale in _axes(output_size, input_size, scales_h, scales_w):
        if in_size == out_size and not align_corners and _given(scale) and scale != 1:
            return None
    return _scales_as_given(output_size, input_size, align_corners, scales_h, scales_w)


def _bicubic_backward_scales(output_size, input_size, align_corners, scales_h, scales_w):
    """As given, but None where neither axis changes size: PyTorch's bicubic backward then copies
    grad_output whatever the scales and align_corners, unlike its forward and the library."""
    if list(input_size[2:]) == list(output_size):
        return None
    return _scales_as_given(output_size, input_size, align_corners, scales_h, scales_w)


def _nearest_forward_scales(output_size, input_size, align_corners, scales_h, scales_w):
    """As given, but None where the V2 operator's float32 scale would give another float32 ratio
    than PyTorch's float64 one (an index may move)."""
    if not (_float32_ratio_unchanged(scales_h) and _float32_ratio_unchanged(scales_w)):
        return None
    return _scales_as_given(output_size, input_size, align_corners, scales_h, scales_w)


def _adjoint_scales(row, output_size, input_size, align_corners, scales_h, scales_w):
    """The scales for `row`'s adjoint op, so that it applies the exact transpose of the matrix
    `row` applied with these: a negative scale (which a backward that took it read as "not
    given") becomes 0, a scale reaches a float64 op as the float32 a float op used. None where
    the adjoint cannot read a scale as `row` did (V1 bilinear's inconsistent scale under the V2
    rule; a float64 scale that a float op would round into another ratio)."""
    adjoint = _adjoint(row)
    passed = []
    for in_size, out_size, scale in _axes(output_size, input_size, scales_h, scales_w):
        if not _given(scale):
            passed.append(0.0)
            continue
        if row["name"] in _FLOAT_SCALE_ROWS and adjoint["name"] not in _FLOAT_SCALE_ROWS:
            scale = _as_float32(scale)
        elif adjoint["name"] in _FLOAT_SCALE_ROWS and not _float32_ratio_unchanged(scale):
            return None
        if (adjoint["scales_need_consistent_size"] and not row["scales_need_consistent_size"]
                and not (align_corners or in_size == out_size
                         or _v2_rule_uses_scale(in_size, out_size, scale))):
            return None
        passed.append(scale)
    return passed


# ---------------------------------------------------------------------------------------------
# PyTorch's op of each mode and direction: the one routed to the library, and the gradient of a
# custom op whose adjoint row cannot read its scales


class _Route(NamedTuple):
    """PyTorch's aten op of one mode and direction, routed to the first table row of those."""
    mode: str
    forward: bool
    aten: str  # the functional overload's name
    out_name: str  # the out= overload and its keyword argument
    scales: Callable  # (output_size, input_size, align_corners, sh, sw) -> [sh, sw] or None


_ROUTES = (
    _Route("bilinear", True, "upsample_bilinear2d", "out", _bilinear_scales),
    _Route("bilinear", False, "upsample_bilinear2d_backward", "grad_input", _bilinear_scales),
    _Route("bicubic_aa", True, "_upsample_bicubic2d_aa", "out", _antialias_forward_scales),
    _Route("bicubic_aa", False, "_upsample_bicubic2d_aa_backward", "grad_input",
           _scales_as_given),
    _Route("bilinear_aa", True, "_upsample_bilinear2d_aa", "out", _antialias_forward_scales),
    _Route("bilinear_aa", False, "_upsample_bilinear2d_aa_backward", "grad_input",
           _scales_as_given),
    _Route("bicubic", True, "upsample_bicubic2d", "out", _scales_as_given),
    _Route("bicubic", False, "upsample_bicubic2d_backward", "grad_input",
           _bicubic_backward_scales),
    _Route("nearest", True, "upsample_nearest2d", "out", _nearest_forward_scales),
    _Route("nearest", False, "upsample_nearest2d_backward", "grad_input", _scales_as_given),
    _Route("nearest_exact", True, "_upsample_nearest_exact2d", "out", _scales_as_given),
    _Route("nearest_exact", False, "_upsample_nearest_exact2d_backward", "grad_input",
           _scales_as_given),
)


def _aten_op(mode: str, forward: bool):
    """PyTorch's op of a mode and direction; its schema's parameters are in the order of the
    first table row of those (the nearest forward's scales are V2's)."""
    route = next(r for r in _ROUTES if r.mode == mode and r.forward == forward)
    return getattr(torch.ops.aten, route.aten).default


# ---------------------------------------------------------------------------------------------
# Custom ops, one per table row


def _schema(row: dict) -> str:
    """The op's schema: the row's function's parameters, those the operator lacks left out."""
    params = ["Tensor x" if row["forward"] else "Tensor grad_out", "SymInt[] output_size"]
    if not row["forward"]:
        params.append("SymInt[] input_size")
    if row["takes_align_corners"]:
        params.append("bool align_corners=False")
    if row["takes_scales"]:
        params += ["float scales_h=0.0", "float scales_w=0.0"]
    return f"({', '.join(params)}) -> Tensor"


def _problem(row: dict, args: Sequence) -> Dict:
    """The arguments of a call of `row`'s op (or PyTorch's op of its mode and direction, whose
    schema has the same order) by name, those it lacks at their neutral value."""
    source, output_size, *rest = args
    input_size = list(source.shape) if row["forward"] else list(rest.pop(0))
    align_corners = bool(rest.pop(0)) if row["takes_align_corners"] else False
    # An aten schema's trailing scales may be left out at their default, None ("not given").
    scales_h, scales_w = (*rest, None, None)[:2] if row["takes_scales"] else (0.0, 0.0)
    return dict(output_size=list(output_size), input_size=input_size,
                align_corners=align_corners, scales_h=scales_h, scales_w=scales_w)


def _call_args(row: dict, source, problem: Dict, scales: Sequence[float]) -> tuple:
    """Positional arguments of `row`'s op (or function) for `problem` with `scales`."""
    args = [source, problem["output_size"]]
    if not row["forward"]:
        args.append(problem["input_size"])
    if row["takes_align_corners"]:
        args.append(problem["align_corners"])
    if row["takes_scales"]:
        args += list(scales)
    return tuple(args)


def _empty_nchw(like: torch.Tensor, shape: Sequence[int]) -> torch.Tensor:
    # The memory format the real kernel returns (that of its source, as PyTorch's kernels do).
    return torch.empty(list(shape), dtype=like.dtype, device=like.device,
                       memory_format=_torch_memory_format(like))


def _make_custom_op(row: dict, function_name: str, function: Callable):
    def kernel(*args):
        return function(*args)

    kernel.__doc__ = f"{row['name']} (NCHW tensors of any strides)."
    op = torch.library.custom_op(f"aclnn_upsample::{function_name}", kernel, mutates_args=(),
                                 device_types="cpu", schema=_schema(row))

    def fake(*args):
        # Only what the fake result's own construction needs; the real kernel checks the rest.
        source, sizes = args[0], args[1] if row["forward"] else args[2]
        length = 2 if row["forward"] else 4
        torch._check(len(sizes) == length,
                     lambda: f"{function_name}: expected {length} sizes, got {list(sizes)}")
        torch._check(source.dim() == 4,
                     lambda: f"{function_name}: expected a 4-D tensor, got {source.dim()}-D")
        torch._check(source.dtype in _LIBRARY_DTYPES,
                     lambda: f"{function_name}: expected float32, float16 or bfloat16, got "
                             f"{source.dtype}")
        shape = [source.shape[0], source.shape[1], *sizes] if row["forward"] else sizes
        return _empty_nchw(source, shape)

    op.register_fake(fake)
    return op


_CUSTOM_OPS: Dict[str, Callable] = {}  # row name -> its custom op
for _row in _ROWS:
    _name, _function = _FUNCTIONS[_row["name"]]
    _CUSTOM_OPS[_row["name"]] = globals()[_name] = _make_custom_op(_row, _name, _function)


# Autograd. Each op is linear in its tensor, and the forward and backward operators of one mode
# apply exactly transposed matrices for the same sizes and scales (the library's adjoint
# identity): the gradient of each is the other, so a model on these ops trains on the library
# alone, and double backward works too.
def _register_autograd(row: dict) -> None:
    adjoint = _adjoint(row)
    adjoint_op = _CUSTOM_OPS[adjoint["name"]]

    def setup_context(ctx, inputs, output):
        ctx.problem = _problem(row, inputs)
        ctx.arguments = len(inputs)

    def gradient(ctx, grad):
        problem = ctx.problem
        scales = _adjoint_scales(row, **problem)
        if scales is not None:
            result = adjoint_op(*_call_args(adjoint, grad, problem, scales))
        else:  # PyTorch's op of the adjoint reads every scale as given, as this row did
            not_given = [scale if _given(scale) else None
                         for scale in (problem["scales_h"], problem["scales_w"])]
            result = _aten_op(row["mode"], adjoint["forward"])(
                *_call_args(adjoint, grad, problem, not_given))
        return (result, *([None] * (ctx.arguments - 1)))

    _CUSTOM_OPS[row["name"]].register_autograd(gradient, setup_context=setup_context)


for _row in _ROWS:
    _register_autograd(_row)


# ---------------------------------------------------------------------------------------------
# Routing PyTorch's CPU kernels

_lock = threading.Lock()
_library: Optional[torch.library.Library] = None


def _library_takes(source: torch.Tensor) -> bool:
    return (source.dtype in _LIBRARY_DTYPES and source.device.type == "cpu"
            and source.layout == torch.strided and source.dim() == 4)


def _make_kernels(route: _Route):
    """The functional and out= kernels of one aten op, each falling back to PyTorch's own."""
    functional_original = torch.library.get_kernel(f"aten::{route.aten}", "CPU")
    out_original = torch.library.get_kernel(f"aten::{route.aten}.{route.out_name}", "CPU")
    row = _first_row(route.mode, route.forward)
    function = _FUNCTIONS[row["name"]][1]

    def library_call(args, out=None):
        # The schema's positional arguments are the row's function's (the dispatcher leaves out
        # trailing ones at their default: the scales, None).
        source = args[0]
        if not _library_takes(source):
            return None
        problem = _problem(row, args)
        if len(problem["output_size"]) != 2 or len(problem["input_size"]) != 4:
            return None
        shape = ([*problem["input_size"][:2], *problem["output_size"]] if route.forward
                 else problem["input_size"])
        if out is not None and (out.dtype != source.dtype or out.device.type != "cpu"
                                or list(out.shape) != shape):
            return None  # PyTorch's to resize or reject
        scales = route.scales(**problem)
        if scales is None:
            return None
        try:
            return function(*_call_args(row, source, problem, scales), out=out)
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
    """Routes PyTorch's CPU kernels of the resizes the library has (see the module's
    documentation) and their backward ops (and their out= variants) to the library, for the whole
    process, until :func:`disable`. Calling it again does nothing (and keeps the first
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
