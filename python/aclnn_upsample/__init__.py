"""CANN's aclnn upsample operators on the CPU, for NumPy, PyTorch and any DLPack array.

One function per operator, named after it (``aclnnUpsampleBicubic2dAAGrad`` is
``upsample_bicubic2d_aa_grad``, ``aclnnUpsampleNearest2dV2`` is ``upsample_nearest2d_v2``):

- forward (``x`` of shape ``(N, C, H_in, W_in)``, or ``(N, H_in, W_in, C)`` with
  ``format="nhwc"``; the result ``(N, C, *output_size)`` in the same axis order):
  ``upsample_bilinear2d``, ``upsample_bicubic2d_aa``, ``upsample_bilinear2d_aa``,
  ``upsample_bicubic2d``, ``upsample_nearest2d_v2``, ``upsample_nearest2d`` (V1: no scales),
  ``upsample_nearest_exact2d``;
- backward (``grad_out`` of shape ``(N, C, *output_size)``, the result of shape
  ``input_size``): ``upsample_bilinear2d_backward_v2``, ``upsample_bilinear2d_backward`` (V1),
  ``upsample_bicubic2d_aa_grad``, ``upsample_bilinear2d_aa_backward``,
  ``upsample_bicubic2d_backward``, ``upsample_nearest2d_backward``,
  ``upsample_nearest_exact2d_backward``.

The nearest operators have no ``align_corners`` parameter, as in CANN. Each function is one row of
the library's operator table, run through one binding. Arrays are used in
place with whatever strides they have; the GIL is released while the library runs. PyTorch
integration (custom ops, routing ``F.interpolate`` forward and backward) is in
:mod:`aclnn_upsample.torch`.
"""

from __future__ import annotations

import numbers
import operator
import sys
from typing import Any, Optional, Sequence

import numpy as np

try:
    from . import _core
except ImportError as error:  # most often: importing the source tree, which has no extension
    raise ImportError(
        f"aclnn_upsample: expected the compiled extension aclnn_upsample._core next to "
        f"{__file__}, got: {error}. Install the package (pip install ./python from the "
        f"repository) and import it from outside the python/ directory.") from error

__all__ = [
    "AclnnError",
    "upsample_bilinear2d",
    "upsample_bicubic2d_aa",
    "upsample_bilinear2d_backward_v2",
    "upsample_bicubic2d_aa_grad",
    "upsample_bilinear2d_backward",
    "upsample_bilinear2d_aa",
    "upsample_bilinear2d_aa_backward",
    "upsample_bicubic2d",
    "upsample_bicubic2d_backward",
    "upsample_nearest2d_v2",
    "upsample_nearest2d",
    "upsample_nearest2d_backward",
    "upsample_nearest_exact2d",
    "upsample_nearest_exact2d_backward",
    "set_num_threads",
    "get_num_threads",
    "simd_target",
    "__version__",
    "ACLNN_ERR_PARAM_NULLPTR",
    "ACLNN_ERR_PARAM_INVALID",
    "ACLNN_ERR_RUNTIME_ERROR",
    "ACLNN_ERR_INNER",
]

__version__: str = _core.__version__

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000


class AclnnError(ValueError):
    """A call the library refused: ``status`` is its aclnn status, the text its own message
    (``aclGetRecentErrMsg``), which names the operator, the parameter, what was expected and
    what arrived. Nothing was written to ``out``."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status

    def __reduce__(self):  # picklable across processes, like the built-in exceptions
        return (type(self), (self.status, str(self)))


_FORMATS = {"nchw": _core.FORMAT_NCHW, "nhwc": _core.FORMAT_NHWC, "nd": _core.FORMAT_ND}
# The library's operator table, by CANN name: each function below runs its row.
_OPERATORS = {row["name"]: row for row in _core.operators()}
# The library's per-dimension and size limits (README, "Limits"): a result beyond them is one it
# will refuse, so it is judged before anything is allocated for it.
_MAX_DIM = 1 << 20
_MAX_BYTES = 60 << 30


def _int_list(values: Sequence[int], name: str) -> list:
    try:
        return [operator.index(v) for v in values]
    except TypeError:
        raise TypeError(
            f"{name}: expected a sequence of integers, got {values!r}") from None


def _format_code(format: str) -> int:
    code = _FORMATS.get(format.lower()) if isinstance(format, str) else None
    if code is None:
        raise ValueError(f"format: expected 'nchw', 'nhwc' or 'nd', got {format!r}")
    return code


def _scale(value: Optional[float], name: str) -> float:
    # None is PyTorch's "not given", which is the C API's 0.
    if value is None:
        return 0.0
    if not isinstance(value, numbers.Real):  # float("2") would take a string
        raise TypeError(f"{name}: expected a float or None, got {value!r}")
    return float(value)


def _torch_tensor_type():
    torch = sys.modules.get("torch")  # a torch tensor can only exist if torch is imported
    return torch.Tensor if torch is not None else None


def _torch_memory_format(tensor):
    """The memory format of a new result for `tensor`: channels-last for a channels-last tensor,
    as PyTorch's own backward kernels return (Tensor.suggest_memory_format, which Python lacks)."""
    import torch

    if (tensor.dim() == 4 and not tensor.is_contiguous()
            and tensor.is_contiguous(memory_format=torch.channels_last)):
        return torch.channels_last
    return torch.contiguous_format


def _allocatable(shape: list, itemsize: int) -> bool:
    if len(shape) != 4 or any(v < 0 or v > _MAX_DIM for v in shape):
        return False
    count = 1
    for v in shape:
        count *= v
    return count * itemsize < _MAX_BYTES


def _torch_dtype_codes(torch):
    # aclDataType of each torch dtype that has one; the library judges which it takes.
    return {torch.float32: 0, torch.float16: 1, torch.int8: 2, torch.int32: 3, torch.uint8: 4,
            torch.int16: 6, torch.uint16: 7, torch.uint32: 8, torch.int64: 9, torch.uint64: 10,
            torch.float64: 11, torch.bool: 12, torch.complex64: 16, torch.complex128: 17,
            torch.bfloat16: 27}


_torch_codes = None


def _torch_raw(tensor, name):
    """(address of element 0, dims, strides, aclDataType, itemsize) of a CPU tensor: PyTorch's
    DLPack export costs about 10 us, more than a small call's work."""
    global _torch_codes
    torch = sys.modules["torch"]  # a tensor exists, so torch is imported
    if tensor.device.type != "cpu":
        raise ValueError(f"{name}: expected a tensor in CPU memory, got device {tensor.device}")
    if tensor.layout != torch.strided:
        raise ValueError(f"{name}: expected a strided tensor, got layout {tensor.layout}")
    if _torch_codes is None:
        _torch_codes = _torch_dtype_codes(torch)
    return (tensor.data_ptr(), tensor.shape, tensor.stride(), _torch_codes.get(tensor.dtype, -1),
            tensor.element_size())


def _check(status_and_message):
    status, message = status_and_message
    if status:
        raise AclnnError(status, message)


def _forward_result_shape(source_shape, output_size: list, format_code: int) -> list:
    """(N, C, *output_size) in the format's axis order; where the source or output_size cannot
    make one, a 4-D stand-in for the library to judge (it refuses those before it reads out)."""
    if len(source_shape) != 4 or len(output_size) != 2:
        return [1, 1, 1, 1]
    if format_code == _core.FORMAT_NHWC:
        return [source_shape[0], *output_size, source_shape[3]]
    return [source_shape[0], source_shape[1], *output_size]


def _run(name: str, source: Any, output_size, input_size, align_corners, scales_h, scales_w,
         out, format):
    """Runs the table's row `name` from `source`; `input_size` is None for a forward row."""
    row = _OPERATORS[name]
    op = row["index"]
    output_size = _int_list(output_size, "output_size")
    if input_size is not None:
        input_size = _int_list(input_size, "input_size")
    format_code = _format_code(format)
    args = _core.Arguments(output_size, input_size, bool(align_corners),
                           _scale(scales_h, "scales_h"), _scale(scales_w, "scales_w"), format_code)

    tensor_type = _torch_tensor_type()
    is_torch = tensor_type is not None and isinstance(source, tensor_type)
    if is_torch:
        source_raw = _torch_raw(source, row["source_name"])
    elif not isinstance(source, np.ndarray):
        # Anything else (buffer protocol, other DLPack arrays) is viewed as NumPy, without a
        # copy, so that the result can be a NumPy array of the same dtype.
        source = np.from_dlpack(source) if hasattr(source, "__dlpack__") else (
            np.asarray(memoryview(source)))

    if out is not None:
        out_is_torch = tensor_type is not None and isinstance(out, tensor_type)
        if is_torch and out_is_torch:
            _check(_core.run_raw(op, source_raw, _torch_raw(out, "out"), args))
            return out
        if isinstance(out, np.ndarray) and not out.flags.writeable:
            raise ValueError("out: expected a writable array, got a read-only one")
        # DLPack refuses tensors that require grad; their data is what is wanted here.
        _check(_core.run(op, source.detach() if is_torch else source,
                         out.detach() if out_is_torch else out, [], args))
        return out

    if row["forward"]:
        shape = _forward_result_shape(source.shape, output_size, format_code)
    else:  # None: the library reports the missing inputSize, judging any stand-in
        shape = input_size if input_size is not None else []
    itemsize = source_raw[4] if is_torch else source.itemsize
    if not _allocatable(shape, itemsize):
        # Let the library judge the size (phase 1 only) so that the caller gets its status and
        # message rather than NumPy's or PyTorch's allocation error.
        _check(_core.run(op, source.detach() if is_torch else source, None, shape, args))
    if is_torch:
        import torch

        memory_format = (_torch_memory_format(source) if format_code == _core.FORMAT_NCHW
                         else torch.contiguous_format)
        result = torch.empty(shape, dtype=source.dtype, memory_format=memory_format)
        _check(_core.run_raw(op, source_raw, _torch_raw(result, "out"), args))
    else:
        result = np.empty(shape, dtype=source.dtype)
        _check(_core.run(op, source, result, [], args))
    return result


def upsample_bilinear2d(x, output_size, align_corners=False, scales_h=0.0, scales_w=0.0, *,
                        out=None, format="nchw"):
    """``aclnnUpsampleBilinear2d``: a bilinear resize (PyTorch's ``upsample_bilinear2d``,
    ``F.interpolate(..., mode="bilinear")``).

    ``x`` is ``[N, C, H_in, W_in]`` (``[N, H_in, W_in, C]`` with ``format="nhwc"``);
    ``output_size`` is ``[H_out, W_out]``. ``scales_h``/``scales_w`` are the scale factors
    (0 or None: not given; negative: refused); a scale is used only when ``output_size ==
    floor(in * scale)`` and ``1/scale >= 0.01``, else ``in/out`` (the device's rule, where
    PyTorch always uses a given scale). N or C of 0 gives an empty result. float32, float16 and
    bfloat16; NCHW or NHWC. Writes into ``out`` and returns it when given, else returns a new
    array of x's kind and dtype. Raises :class:`AclnnError` for anything the library refuses,
    leaving ``out`` untouched.
    """
    return _run("aclnnUpsampleBilinear2d", x, output_size, None, align_corners, scales_h,
                scales_w, out, format)


def upsample_bicubic2d_aa(x, output_size, align_corners=False, scales_h=0.0, scales_w=0.0, *,
                          out=None, format="nchw"):
    """``aclnnUpsampleBicubic2dAA``: an antialiased bicubic resize (PyTorch's
    ``_upsample_bicubic2d_aa``, ``F.interpolate(..., mode="bicubic", antialias=True)``).

    Arguments as for :func:`upsample_bilinear2d`; any positive scale is used as given, also on
    an axis whose size does not change (where PyTorch's forward copies the axis instead);
    formats NCHW or ND; empty tensors are refused; upscaling at most 50x per axis.
    """
    return _run("aclnnUpsampleBicubic2dAA", x, output_size, None, align_corners, scales_h,
                scales_w, out, format)


def upsample_bilinear2d_backward_v2(grad_out, output_size, input_size, align_corners=False,
                                    scales_h=0.0, scales_w=0.0, *, out=None, format="nchw"):
    """``aclnnUpsampleBilinear2dBackwardV2``: the gradient of a bilinear resize.

    ``output_size`` is ``[H_out, W_out]``; ``input_size`` is ``[N, C, H_in, W_in]``
    (``[N, H_in, W_in, C]`` with ``format="nhwc"``). ``scales_h``/``scales_w`` are the forward's
    scale factors (0 or None: not given); a scale is used only when ``output_size ==
    floor(input_size * scale)`` and ``1/scale >= 0.01``, else ``in/out`` (the device's rule,
    where PyTorch always uses a given scale). float32, float16 and bfloat16; NCHW or NHWC.
    Writes into ``out`` and returns it when given, else returns a new array of grad_out's kind
    and dtype. Raises :class:`AclnnError` for anything the library refuses.
    """
    return _run("aclnnUpsampleBilinear2dBackwardV2", grad_out, output_size, input_size,
                align_corners, scales_h, scales_w, out, format)


def upsample_bicubic2d_aa_grad(grad_out, output_size, input_size, align_corners=False,
                               scales_h=0.0, scales_w=0.0, *, out=None, format="nchw"):
    """``aclnnUpsampleBicubic2dAAGrad``: the gradient of an antialiased bicubic resize
    (PyTorch's ``F.interpolate(..., mode="bicubic", antialias=True)``).

    Arguments as for :func:`upsample_bilinear2d_backward_v2`; any positive scale is used as
    given; formats NCHW or ND; forward upscaling at most 50x per axis.
    """
    return _run("aclnnUpsampleBicubic2dAAGrad", grad_out, output_size, input_size,
                align_corners, scales_h, scales_w, out, format)


def upsample_bilinear2d_backward(grad_out, output_size, input_size, align_corners=False,
                                 scales_h=0.0, scales_w=0.0, *, out=None, format="nchw"):
    """``aclnnUpsampleBilinear2dBackward`` (V1): the gradient of a bilinear resize, with
    PyTorch's scale rule (``upsample_bilinear2d_backward``): any positive scale is used as given,
    where :func:`upsample_bilinear2d_backward_v2` falls back to ``in/out`` for an inconsistent
    one. Arguments as for :func:`upsample_bilinear2d_backward_v2`; N or C of 0 is refused.
    """
    return _run("aclnnUpsampleBilinear2dBackward", grad_out, output_size, input_size,
                align_corners, scales_h, scales_w, out, format)


def upsample_bilinear2d_aa(x, output_size, align_corners=False, scales_h=0.0, scales_w=0.0, *,
                           out=None, format="nchw"):
    """``aclnnUpsampleBilinear2dAA``: an antialiased bilinear resize (PyTorch's
    ``_upsample_bilinear2d_aa``, ``F.interpolate(..., mode="bilinear", antialias=True)``).

    Arguments as for :func:`upsample_bicubic2d_aa` (any positive scale used as given, also on an
    axis whose size does not change; NCHW or ND; empty tensors refused), without an upscaling
    limit.
    """
    return _run("aclnnUpsampleBilinear2dAA", x, output_size, None, align_corners, scales_h,
                scales_w, out, format)


def upsample_bilinear2d_aa_backward(grad_out, output_size, input_size, align_corners=False,
                                    scales_h=0.0, scales_w=0.0, *, out=None, format="nchw"):
    """``aclnnUpsampleBilinear2dAABackward``: the gradient of an antialiased bilinear resize.

    Arguments as for :func:`upsample_bicubic2d_aa_grad`, without an upscaling limit.
    """
    return _run("aclnnUpsampleBilinear2dAABackward", grad_out, output_size, input_size,
                align_corners, scales_h, scales_w, out, format)


def upsample_bicubic2d(x, output_size, align_corners=False, scales_h=0.0, scales_w=0.0, *,
                       out=None, format="nchw"):
    """``aclnnUpsampleBicubic2d``: a bicubic resize (PyTorch's ``upsample_bicubic2d``,
    ``F.interpolate(..., mode="bicubic")``), Keys' cubic with a = -0.75.

    Arguments as for :func:`upsample_bilinear2d`, but any positive scale is used as given and a
    negative one means "not given"; NCHW, NHWC or ND; empty tensors are refused.
    """
    return _run("aclnnUpsampleBicubic2d", x, output_size, None, align_corners, scales_h,
                scales_w, out, format)


def upsample_bicubic2d_backward(grad_out, output_size, input_size, align_corners=False,
                                scales_h=0.0, scales_w=0.0, *, out=None, format="nchw"):
    """``aclnnUpsampleBicubic2dBackward``: the gradient of a bicubic resize.

    Arguments as for :func:`upsample_bilinear2d_backward_v2`, with :func:`upsample_bicubic2d`'s
    scale rule, formats and refusal of empty tensors.
    """
    return _run("aclnnUpsampleBicubic2dBackward", grad_out, output_size, input_size,
                align_corners, scales_h, scales_w, out, format)


def upsample_nearest2d_v2(x, output_size, scales_h=0.0, scales_w=0.0, *, out=None,
                          format="nchw"):
    """``aclnnUpsampleNearest2dV2``: a nearest-neighbour resize (PyTorch's
    ``upsample_nearest2d``, ``F.interpolate(..., mode="nearest")``); each result element is a
    copy of one element of ``x``.

    No ``align_corners``. ``scales_h``/``scales_w`` (0 or None: not given; negative: not given)
    are the scale factors, passed to the operator as float32 as CANN declares them; a given scale
    is used as given, except where the size stays or doubles (PyTorch's rule). N or C of 0 gives
    an empty result. NCHW or NHWC.
    """
    return _run("aclnnUpsampleNearest2dV2", x, output_size, None, False, scales_h, scales_w, out,
                format)


def upsample_nearest2d(x, output_size, *, out=None, format="nchw"):
    """``aclnnUpsampleNearest2d`` (V1): :func:`upsample_nearest2d_v2` without scales (the
    operator has none: the ratio is always ``in/out``). Empty tensors are refused.
    """
    return _run("aclnnUpsampleNearest2d", x, output_size, None, False, 0.0, 0.0, out, format)


def upsample_nearest2d_backward(grad_out, output_size, input_size, scales_h=0.0, scales_w=0.0,
                                *, out=None, format="nchw"):
    """``aclnnUpsampleNearest2dBackward``: the gradient of a nearest-neighbour resize, each
    element of the result the sum of the ``grad_out`` elements copied from it.

    No ``align_corners``; otherwise arguments as for :func:`upsample_bilinear2d_backward_v2`,
    with :func:`upsample_nearest2d_v2`'s scale rule (scales taken as float64). NCHW or NHWC.
    """
    return _run("aclnnUpsampleNearest2dBackward", grad_out, output_size, input_size, False,
                scales_h, scales_w, out, format)


def upsample_nearest_exact2d(x, output_size, scales_h=0.0, scales_w=0.0, *, out=None,
                             format="nchw"):
    """``aclnnUpsampleNearestExact2d``: a nearest-neighbour resize that picks the element nearest
    each output pixel's centre (PyTorch's ``_upsample_nearest_exact2d``,
    ``F.interpolate(..., mode="nearest-exact")``).

    No ``align_corners``; a given positive scale is used as given, a negative one refused.
    N or C of 0 gives an empty result. NCHW, NHWC or ND.
    """
    return _run("aclnnUpsampleNearestExact2d", x, output_size, None, False, scales_h, scales_w,
                out, format)


def upsample_nearest_exact2d_backward(grad_out, output_size, input_size, scales_h=0.0,
                                      scales_w=0.0, *, out=None, format="nchw"):
    """``aclnnUpsampleNearestExact2dBackward``: the gradient of
    :func:`upsample_nearest_exact2d`.

    Arguments as for :func:`upsample_nearest2d_backward`; a negative scale is refused; NCHW or
    ND; forward upscaling at most 50x per axis.
    """
    return _run("aclnnUpsampleNearestExact2dBackward", grad_out, output_size, input_size, False,
                scales_h, scales_w, out, format)


def set_num_threads(threads: int) -> None:
    """Sets the threads every later call runs with (the library's own pool), above the
    ``ACLNN_UPSAMPLE_NUM_THREADS`` environment variable; 0 returns to the default. Results are
    bitwise the same for every count."""
    _core.set_num_threads(operator.index(threads))


def get_num_threads() -> int:
    """The threads a large call runs with now (smaller calls may use fewer: a worker is not
    woken for less than 128 KiB of traffic unless the count was set explicitly)."""
    return _core.get_num_threads()


def simd_target() -> str:
    """The SIMD target the kernels run on, chosen at run time (e.g. ``"AVX2"``)."""
    return _core.simd_target()


def _row_functions() -> dict:
    """Each table row's name -> (name, function) of the function above that runs it: the one
    whose documentation opens with the row's name."""
    functions = {}
    for name in __all__:
        function = globals()[name]
        if name.startswith("upsample_"):
            functions[function.__doc__.split("``")[1]] = (name, function)
    return functions
