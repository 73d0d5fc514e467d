"""PyTorch: tensors through the module functions, the custom ops, and enable()/disable()."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import aclnn_upsample as au  # noqa: E402
import aclnn_upsample.torch as aut  # noqa: E402
from reference import assert_within_contract, forward_reference, reference  # noqa: E402
from rows import INTERPOLATE_MODES, first_row  # noqa: E402
from torch_helpers import assert_close_to_pytorch, interpolate_and_gradient  # noqa: E402

ATEN = {
    "bilinear": torch.ops.aten.upsample_bilinear2d_backward.default,
    "bicubic_aa": torch.ops.aten._upsample_bicubic2d_aa_backward.default,
}
OURS = {
    "bilinear": au.upsample_bilinear2d_backward_v2,
    "bicubic_aa": au.upsample_bicubic2d_aa_grad,
}
CUSTOM = {
    "bilinear": torch.ops.aclnn_upsample.upsample_bilinear2d_backward_v2.default,
    "bicubic_aa": torch.ops.aclnn_upsample.upsample_bicubic2d_aa_grad.default,
}
FORWARD_ATEN = {
    "bilinear": torch.ops.aten.upsample_bilinear2d.default,
    "bicubic_aa": torch.ops.aten._upsample_bicubic2d_aa.default,
}
FORWARD_OURS = {"bilinear": au.upsample_bilinear2d, "bicubic_aa": au.upsample_bicubic2d_aa}
FORWARD_CUSTOM = {
    "bilinear": torch.ops.aclnn_upsample.upsample_bilinear2d.default,
    "bicubic_aa": torch.ops.aclnn_upsample.upsample_bicubic2d_aa.default,
}
# (input H, W), (output H, W), align_corners, scales (None: not given), all as F.interpolate
# produces them: a scale only with output == floor(input * scale).
CASES = [
    ((16, 16), (32, 32), False, (None, None)),
    ((16, 16), (32, 32), False, (2.0, 2.0)),
    ((16, 16), (32, 32), True, (None, None)),
    ((32, 24), (16, 12), False, (0.5, 0.5)),
    ((224, 224), (256, 256), False, (None, None)),
    ((20, 30), (30, 45), False, (1.5, 1.5)),
    ((17, 23), (5, 41), False, (None, None)),
    ((17, 23), (5, 41), True, (None, None)),
    ((10, 10), (33, 33), False, (3.3, 3.3)),
    ((1, 4), (6, 1), False, (None, None)),
]


pytestmark = pytest.mark.usefixtures("routing_off")


BACKWARD_ROW = {"bilinear": "aclnnUpsampleBilinear2dBackwardV2",
                "bicubic_aa": "aclnnUpsampleBicubic2dAAGrad"}
FORWARD_ROW = {"bilinear": "aclnnUpsampleBilinear2d", "bicubic_aa": "aclnnUpsampleBicubic2dAA"}


def sums_of_magnitudes(op, grad, input_size, align, scales):
    return reference(op, grad.double().numpy(), input_size, align,
                     *(s or 0.0 for s in scales))[1]


@pytest.mark.parametrize("op", ["bilinear", "bicubic_aa"])
@pytest.mark.parametrize("in_hw,out_hw,align,scales", CASES)
@pytest.mark.parametrize("layout", ["nchw", "channels_last", "strided"])
def test_tensors_match_pytorch(op, in_hw, out_hw, align, scales, layout):
    # 8 channels: the library's channels-last path starts there.
    input_size = [1, 8, *in_hw]
    grad = torch.randn(1, 8, *out_hw)
    if layout == "channels_last":
        grad = grad.contiguous(memory_format=torch.channels_last)
    elif layout == "strided":
        grad = torch.randn(1, 16, out_hw[0], 2 * out_hw[1])[:, ::2, :, ::2]
    expected = ATEN[op](grad, list(out_hw), input_size, align, *scales)
    result = OURS[op](grad, list(out_hw), input_size, align, *(s or 0.0 for s in scales))
    assert isinstance(result, torch.Tensor) and result.dtype == torch.float32
    assert result.shape == expected.shape
    if layout == "channels_last":
        assert result.is_contiguous(memory_format=torch.channels_last)
    r, m = reference(op, grad.numpy(), input_size, align, *(s or 0.0 for s in scales))
    assert_close_to_pytorch(result, expected, m)
    assert_within_contract(result.numpy(), r, m)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_16_bit_tensors(dtype):
    grad = torch.randn(2, 8, 24, 20).to(dtype)
    expected = ATEN["bilinear"](grad, [24, 20], [2, 8, 12, 10], False, None, None)
    result = au.upsample_bilinear2d_backward_v2(grad, [24, 20], [2, 8, 12, 10])
    assert result.dtype == dtype
    m = sums_of_magnitudes("bilinear", grad, [2, 8, 12, 10], False, (None, None))
    assert_close_to_pytorch(result, expected, m, dtype)
    # PyTorch has no 16-bit CPU AA backward; against the reference only.
    result = au.upsample_bicubic2d_aa_grad(grad, [24, 20], [2, 8, 12, 10])
    r, m = reference("bicubic_aa", grad.float().numpy(), [2, 8, 12, 10])
    assert_within_contract(result.float().numpy(), r, m,
                           "bfloat16" if dtype == torch.bfloat16 else "float16")


def test_out_tensor_and_requires_grad():
    grad = torch.randn(1, 3, 8, 8, requires_grad=True)
    out = torch.full((1, 3, 4, 4), 9.0, requires_grad=True)
    result = au.upsample_bilinear2d_backward_v2(grad, [8, 8], [1, 3, 4, 4], out=out)
    assert result is out
    expected = au.upsample_bilinear2d_backward_v2(grad.detach(), [8, 8], [1, 3, 4, 4])
    assert torch.equal(out.detach(), expected)


def test_enable_routes_and_disable_restores_pytorch_bitwise(library_calls):
    grad = torch.randn(2, 4, 32, 32)
    x = torch.randn(2, 4, 13, 19)

    def call_all():
        return ({op: ATEN[op](grad, [32, 32], [2, 4, 13, 19], False, None, None) for op in ATEN},
                {op: FORWARD_ATEN[op](x, [32, 32], False, None, None) for op in FORWARD_ATEN})

    before = call_all()
    assert not aut.is_enabled()
    aut.enable()
    aut.enable()  # idempotent
    assert aut.is_enabled()
    routed = call_all()
    assert sorted(library_calls) == sorted([*BACKWARD_ROW.values(), *FORWARD_ROW.values()])
    aut.disable()
    assert not aut.is_enabled()
    after = call_all()
    assert len(library_calls) == 4
    for op in ATEN:
        assert torch.equal(after[0][op], before[0][op])
        assert torch.equal(after[1][op], before[1][op])
        assert_close_to_pytorch(routed[0][op], before[0][op],
                                sums_of_magnitudes(op, grad, [2, 4, 13, 19], False, (None,) * 2))
        m = forward_reference(op, x.numpy(), [32, 32])[1]
        assert_close_to_pytorch(routed[1][op], before[1][op], m)
    with aut.enabled():
        assert aut.is_enabled()
    assert not aut.is_enabled()


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(scale_factor=2, mode="bilinear"),
        dict(scale_factor=2, mode="bilinear", align_corners=True),
        dict(size=(37, 29), mode="bilinear"),
        dict(scale_factor=0.5, mode="bilinear"),
        dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=False),
        dict(scale_factor=2, mode="bicubic", antialias=True),
        dict(size=(11, 9), mode="bicubic", antialias=True),
        dict(size=(11, 9), mode="bicubic", antialias=True, align_corners=True),
        dict(scale_factor=0.37, mode="bicubic", antialias=True),
        dict(scale_factor=2, mode="nearest"),
        dict(size=(37, 29), mode="nearest"),
        dict(scale_factor=0.37, mode="nearest", recompute_scale_factor=False),
        dict(scale_factor=2, mode="nearest-exact"),
        dict(size=(11, 9), mode="nearest-exact"),
        dict(scale_factor=1.7, mode="nearest-exact", recompute_scale_factor=False),
        dict(scale_factor=2, mode="bicubic"),
        dict(size=(37, 29), mode="bicubic", align_corners=True),
        dict(scale_factor=0.37, mode="bicubic", recompute_scale_factor=False),
        dict(scale_factor=2, mode="bilinear", antialias=True),
        dict(size=(11, 9), mode="bilinear", antialias=True, align_corners=True),
        dict(scale_factor=0.37, mode="bilinear", antialias=True),
    ],
)
@pytest.mark.parametrize("channels_last", [False, True])
def test_autograd_through_interpolate(kwargs, channels_last, library_calls):
    x = torch.randn(2, 8, 24, 20)
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    x.requires_grad_(True)
    weights = torch.randn(F.interpolate(x.detach(), **kwargs).shape)
    expected_y, expected = interpolate_and_gradient(x, weights, kwargs)
    with aut.enabled():
        y, result = interpolate_and_gradient(x, weights, kwargs)
    mode = INTERPOLATE_MODES[kwargs["mode"], kwargs.get("antialias", False)]
    assert library_calls == [first_row(mode, True)["name"], first_row(mode, False)["name"]]
    again = interpolate_and_gradient(x, weights, kwargs)
    assert torch.equal(again[0], expected_y) and torch.equal(again[1], expected)
    assert y.stride() == expected_y.stride() and result.stride() == expected.stride()
    if mode.startswith("nearest"):
        assert torch.equal(y, expected_y)  # both copy the element both pick
    # PyTorch's numbers are its float64 kernels' (not routed): its float32 weights alone can be
    # further from them than the contract allows (bicubic backward at 1/0.37: 9e-5 * m).
    exact_y, exact = interpolate_and_gradient(x.detach().double().requires_grad_(True),
                                              weights.double(), kwargs)
    # The scale F.interpolate passes on: scale_factor, unless recomputed from the sizes.
    scale = 0.0 if kwargs.get("recompute_scale_factor") else kwargs.get("scale_factor", 0.0)
    align = kwargs.get("align_corners", False)
    r, m = forward_reference(mode, x.detach().double().numpy(), y.shape[2:], align, scale, scale)
    assert_within_contract(y.numpy(), exact_y.numpy(), m)
    assert_within_contract(y.numpy(), r, m)
    r, m = reference(mode, weights.double().numpy(), list(x.shape), align, scale, scale)
    assert_within_contract(result.numpy(), exact.numpy(), m)
    assert_within_contract(result.numpy(), r, m)


def test_float64_falls_back_to_pytorch(library_calls):
    x = torch.randn(1, 2, 8, 8, dtype=torch.float64, requires_grad=True)
    F.interpolate(x, scale_factor=2, mode="bilinear").sum().backward()
    expected = x.grad.clone()
    x.grad = None
    with aut.enabled():
        F.interpolate(x, scale_factor=2, mode="bilinear").sum().backward()
    assert not library_calls
    assert torch.equal(x.grad, expected)


@pytest.mark.parametrize("call", [
    # Scales the V2 rule would not use (PyTorch always does): output != floor(input * scale) ...
    ("bilinear", [10, 10], [1, 2, 4, 4], False, 2.4, 2.6),
    # ... and 1/scale < 0.01.
    ("bilinear", [1, 300], [1, 2, 1, 3], False, None, 100.3),
])
def test_scales_the_v2_rule_rejects_use_pytorch(call, library_calls):
    op, output_size, input_size, align, sh, sw = call
    grad = torch.randn(*input_size[:2], *output_size)
    expected = ATEN[op](grad, output_size, input_size, align, sh, sw)
    with aut.enabled():
        result = ATEN[op](grad, output_size, input_size, align, sh, sw)
    assert not library_calls
    assert torch.equal(result, expected)
    # The V2 operator itself follows its rule and differs from PyTorch there.
    v2 = au.upsample_bilinear2d_backward_v2(grad, output_size, input_size, align, sh or 0.0,
                                            sw or 0.0)
    assert not torch.allclose(v2, expected, atol=1e-3)


def test_what_the_library_refuses_goes_to_pytorch(library_calls):
    grad = torch.randn(1, 1, 120, 8)
    # Bicubic AA upscaling by 60 (the library's limit is 50): PyTorch's kernel.
    expected = ATEN["bicubic_aa"](grad, [120, 8], [1, 1, 2, 8], False, None, None)
    with aut.enabled():
        result = ATEN["bicubic_aa"](grad, [120, 8], [1, 1, 2, 8], False, None, None)
        # And an error PyTorch raises stays PyTorch's error.
        with pytest.raises(RuntimeError):
            ATEN["bilinear"](grad, [120, 8], [1, 1, 2], False, None, None)
    assert library_calls == [BACKWARD_ROW["bicubic_aa"]]  # tried, refused, nothing written
    assert torch.equal(result, expected)


@pytest.mark.parametrize("op", ["bilinear", "bicubic_aa"])
def test_out_variants(op, library_calls):
    out_op = getattr(torch.ops.aten, ATEN[op].overloadpacket.__name__).grad_input
    grad = torch.randn(2, 3, 16, 16)
    expected = ATEN[op](grad, [16, 16], [2, 3, 7, 9], False, None, None)
    with aut.enabled():
        buffer = torch.full((2, 3, 7, 9), 5.0)
        assert out_op(grad, [16, 16], [2, 3, 7, 9], False, None, None,
                      grad_input=buffer) is buffer
        assert library_calls == [BACKWARD_ROW[op]]
        # A wrong-shaped buffer is PyTorch's to resize.
        small = torch.empty(0)
        out_op(grad, [16, 16], [2, 3, 7, 9], False, None, None, grad_input=small)
        assert len(library_calls) == 1
    m = sums_of_magnitudes(op, grad, [2, 3, 7, 9], False, (None, None))
    assert_close_to_pytorch(buffer, expected, m)
    assert torch.equal(small, expected)


@pytest.mark.parametrize("op", ["bilinear", "bicubic_aa"])
def test_forward_out_variants(op, library_calls):
    out_op = getattr(torch.ops.aten, FORWARD_ATEN[op].overloadpacket.__name__).out
    x = torch.randn(2, 3, 7, 9)
    expected = FORWARD_ATEN[op](x, [16, 12], False)
    with aut.enabled():
        storage = torch.full((2, 3, 16, 24), 5.0)
        buffer = storage[..., ::2]  # a strided out= is written in place
        assert out_op(x, [16, 12], False, out=buffer) is buffer
        assert library_calls == [FORWARD_ROW[op]]
        # A wrong-shaped out= is PyTorch's to resize, a wrong dtype PyTorch's to reject.
        small = torch.empty(0)
        out_op(x, [16, 12], False, out=small)
        with pytest.raises(RuntimeError, match="dtype"):
            out_op(x, [16, 12], False, out=torch.empty(2, 3, 16, 12, dtype=torch.float64))
        assert len(library_calls) == 1
    assert torch.all(storage[..., 1::2] == 5.0)
    assert_close_to_pytorch(buffer, expected, forward_reference(op, x.numpy(), [16, 12])[1])
    assert torch.equal(small, expected)


@pytest.mark.parametrize("op", ["bilinear", "bicubic_aa"])
def test_custom_ops(op):
    grad = torch.randn(2, 3, 12, 10)
    result = CUSTOM[op](grad, [12, 10], [2, 3, 5, 7], False, 0.0, 0.0)
    assert torch.equal(result, OURS[op](grad, [12, 10], [2, 3, 5, 7]))
    samples = [
        (grad, [12, 10], [2, 3, 5, 7], False, 0.0, 0.0),
        (grad.contiguous(memory_format=torch.channels_last), [12, 10], [2, 3, 24, 20], True,
         0.0, 0.0),
        (torch.randn(1, 2, 8, 8, dtype=torch.bfloat16), [8, 8], [1, 2, 4, 4], False, 2.0, 2.0),
    ]
    for args in samples:
        torch.library.opcheck(CUSTOM[op], args)
    with pytest.raises(au.AclnnError):
        CUSTOM[op](grad, [12, 11], [2, 3, 5, 7], False, 0.0, 0.0)


@pytest.mark.parametrize("op", ["bilinear", "bicubic_aa"])
def test_custom_op_double_backward_is_the_forward_resize(op):
    grad = torch.randn(1, 2, 12, 10, requires_grad=True)
    v = torch.randn(1, 2, 5, 7)
    (CUSTOM[op](grad, [12, 10], [1, 2, 5, 7], False, 0.0, 0.0) * v).sum().backward()
    if op == "bilinear":
        forward = F.interpolate(v, size=(12, 10), mode="bilinear")
    else:
        forward = F.interpolate(v, size=(12, 10), mode="bicubic", antialias=True)
    torch.testing.assert_close(grad.grad, forward, rtol=1e-5, atol=1e-5)


def test_torch_compile_traces_the_custom_ops():
    def step(grad):
        a = torch.ops.aclnn_upsample.upsample_bilinear2d_backward_v2(grad, [16, 16],
                                                                     [1, 4, 8, 8])
        b = torch.ops.aclnn_upsample.upsample_bicubic2d_aa_grad(grad, [16, 16], [1, 4, 8, 8])
        return a * 2 + b

    grad = torch.randn(1, 4, 16, 16)
    compiled = torch.compile(step, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(grad), step(grad), rtol=0, atol=0)


@pytest.mark.parametrize("torch_threads", [True, False])
def test_routed_results_do_not_depend_on_threads(torch_threads):
    x = torch.randn(2, 16, 96, 80, requires_grad=True)
    results = []
    saved = torch.get_num_threads()
    try:
        with aut.enabled(torch_threads=torch_threads):
            assert aut.uses_torch_threads() == (
                torch_threads and "OpenMP" in torch.__config__.parallel_info())
            for threads in (1, 2, 3):
                torch.set_num_threads(threads)
                if aut.uses_torch_threads():
                    # Sized by PyTorch's threads unless set explicitly.
                    assert au.get_num_threads() == threads
                else:
                    au.set_num_threads(threads)
                x.grad = None
                F.interpolate(x, scale_factor=2, mode="bilinear").square().sum().backward()
                results.append(x.grad.clone())
                x.grad = None
                F.interpolate(x, scale_factor=0.5, mode="bicubic", antialias=True).square().sum(
                ).backward()
                results.append(x.grad.clone())
    finally:
        torch.set_num_threads(saved)
        au.set_num_threads(0)
    assert not aut.uses_torch_threads()
    assert all(torch.equal(r, results[i % 2]) for i, r in enumerate(results))


def test_tensor_arguments_the_library_cannot_take():
    grad = torch.randn(1, 2, 8, 8)
    with pytest.raises(au.AclnnError) as raised:
        au.upsample_bilinear2d_backward_v2(grad.double(), [8, 8], [1, 2, 4, 4])
    assert raised.value.status == au.ACLNN_ERR_PARAM_INVALID and "dtype" in str(raised.value)
    with pytest.raises(au.AclnnError):
        au.upsample_bicubic2d_aa_grad(grad.int(), [8, 8], [1, 2, 4, 4])
    with pytest.raises(ValueError, match="CPU"):
        au.upsample_bilinear2d_backward_v2(grad.to("meta"), [8, 8], [1, 2, 4, 4])
    with pytest.raises(ValueError, match="strided"):
        au.upsample_bilinear2d_backward_v2(grad.to_sparse(), [8, 8], [1, 2, 4, 4])
    out = torch.full((1, 2, 4, 5), 3.0)
    with pytest.raises(au.AclnnError):
        au.upsample_bilinear2d_backward_v2(grad, [8, 8], [1, 2, 4, 4], out=out)
    assert torch.all(out == 3.0)
    # Mixed kinds: a torch gradient into a NumPy result, and the reverse.
    expected = au.upsample_bilinear2d_backward_v2(grad, [8, 8], [1, 2, 4, 4])
    out_np = np.empty((1, 2, 4, 4), np.float32)
    au.upsample_bilinear2d_backward_v2(grad, [8, 8], [1, 2, 4, 4], out=out_np)
    assert np.array_equal(out_np, expected.numpy())
    out_t = torch.empty(1, 2, 4, 4)
    au.upsample_bilinear2d_backward_v2(grad.numpy(), [8, 8], [1, 2, 4, 4], out=out_t)
    assert torch.equal(out_t, expected)


def test_tensor_views_with_offsets_and_nhwc():
    base = torch.randn(2, 5, 20, 21)
    grad = base[:, 1:4, 3:15, 2:20:2]  # a storage offset and strides, no copy
    expected = au.upsample_bicubic2d_aa_grad(grad.contiguous(), [12, 9], [2, 3, 7, 5])
    assert torch.equal(au.upsample_bicubic2d_aa_grad(grad, [12, 9], [2, 3, 7, 5]), expected)
    storage = torch.full((2, 4, 9, 7), 2.0)
    out = storage[:, 1:, 1:8, 1:6]
    au.upsample_bicubic2d_aa_grad(grad, [12, 9], [2, 3, 7, 5], out=out)
    assert torch.equal(out, expected)
    assert torch.all(storage[:, 0] == 2.0) and torch.all(storage[:, :, 0] == 2.0)
    # NHWC: the tensor's own axis order is (N, H, W, C).
    nhwc = grad.permute(0, 2, 3, 1)
    bilinear = au.upsample_bilinear2d_backward_v2(grad, [12, 9], [2, 3, 7, 5])
    result = au.upsample_bilinear2d_backward_v2(nhwc, [12, 9], [2, 7, 5, 3], format="nhwc")
    assert result.shape == (2, 7, 5, 3)
    assert torch.equal(result.permute(0, 3, 1, 2), bilinear)


# ---------------------------------------------------------------------------------------------
# The forward operators


_forward_references = {}


@pytest.mark.parametrize("op", ["bilinear", "bicubic_aa"])
@pytest.mark.parametrize("in_hw,out_hw,align,scales", CASES)
@pytest.mark.parametrize("layout", ["nchw", "channels_last", "strided"])
def test_forward_tensors_match_pytorch(op, in_hw, out_hw, align, scales, layout):
    # The same values in each layout, so that the float64 reference is computed once per case.
    values = torch.randn(1, 8, *in_hw, generator=torch.Generator().manual_seed(7))
    if layout == "nchw":
        x = values
    elif layout == "channels_last":
        x = values.contiguous(memory_format=torch.channels_last)
    else:
        x = torch.zeros(1, 16, in_hw[0], 2 * in_hw[1])[:, ::2, :, ::2]
        x.copy_(values)
    expected = FORWARD_ATEN[op](x, list(out_hw), align, *scales)
    result = FORWARD_OURS[op](x, list(out_hw), align, *(s or 0.0 for s in scales))
    assert isinstance(result, torch.Tensor) and result.dtype == torch.float32
    assert result.shape == expected.shape and result.stride() == expected.stride()
    key = (op, in_hw, out_hw, align, scales)
    if key not in _forward_references:
        _forward_references[key] = forward_reference(op, values.numpy(), out_hw, align,
                                                     *(s or 0.0 for s in scales))
    r, m = _forward_references[key]
    assert_close_to_pytorch(result, expected, m)
    assert_within_contract(result.numpy(), r, m)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_forward_16_bit_tensors(dtype):
    x = torch.randn(2, 8, 12, 10).to(dtype)
    expected = FORWARD_ATEN["bilinear"](x, [24, 20], False)
    result = au.upsample_bilinear2d(x, [24, 20])
    assert result.dtype == dtype
    assert_close_to_pytorch(result, expected,
                            forward_reference("bilinear", x.float().numpy(), [24, 20])[1], dtype)
    # PyTorch has no 16-bit CPU AA forward; against the reference only.
    with pytest.raises(NotImplementedError):
        FORWARD_ATEN["bicubic_aa"](x, [24, 20], False)
    result = au.upsample_bicubic2d_aa(x, [7, 31])
    r, m = forward_reference("bicubic_aa", x.float().numpy(), [7, 31])
    assert_within_contract(result.float().numpy(), r, m,
                           "bfloat16" if dtype == torch.bfloat16 else "float16")


def test_forward_tensor_out_and_errors():
    x = torch.randn(1, 3, 4, 4, requires_grad=True)
    out = torch.full((1, 3, 8, 8), 9.0, requires_grad=True)
    assert au.upsample_bicubic2d_aa(x, [8, 8], out=out) is out
    assert torch.equal(out.detach(), au.upsample_bicubic2d_aa(x.detach(), [8, 8]))
    bad = torch.full((1, 3, 8, 7), 3.0)
    with pytest.raises(au.AclnnError, match="out shape"):
        au.upsample_bilinear2d(x, [8, 8], out=bad)
    assert torch.all(bad == 3.0)
    with pytest.raises(au.AclnnError, match="dtype"):
        au.upsample_bilinear2d(x.double(), [8, 8])
    with pytest.raises(ValueError, match="CPU"):
        au.upsample_bicubic2d_aa(x.detach().to("meta"), [8, 8])
    # NHWC: the tensor's own axis order is (N, H, W, C).
    nhwc = au.upsample_bilinear2d(x.detach().permute(0, 2, 3, 1), [8, 6], format="nhwc")
    assert nhwc.shape == (1, 8, 6, 3)
    assert torch.equal(nhwc.permute(0, 3, 1, 2), au.upsample_bilinear2d(x.detach(), [8, 6]))


@pytest.mark.parametrize("op", ["bilinear", "bicubic_aa"])
def test_forward_custom_ops(op):
    x = torch.randn(2, 3, 5, 7)
    assert torch.equal(FORWARD_CUSTOM[op](x, [12, 10], False, 0.0, 0.0),
                       FORWARD_OURS[op](x, [12, 10]))
    samples = [
        (x, [12, 10], False, 0.0, 0.0),
        (x.contiguous(memory_format=torch.channels_last), [3, 20], True, 0.0, 0.0),
        (torch.randn(1, 2, 4, 4, dtype=torch.bfloat16), [8, 8], False, 2.0, 2.0),
        (torch.randn(1, 2, 4, 4, requires_grad=True), [9, 3], False, 0.0, 0.0),
    ]
    for args in samples:
        torch.library.opcheck(FORWARD_CUSTOM[op], args)
    with pytest.raises(au.AclnnError):
        FORWARD_CUSTOM[op](x, [12, 10], False, -1.0, 0.0)


@pytest.mark.parametrize("op", ["bilinear", "bicubic_aa"])
@pytest.mark.parametrize("align,scales", [(False, (0.0, 0.0)), (True, (0.0, 0.0)),
                                          (False, (2.0, 1.5)), (False, (2.5, 0.4))])
def test_custom_forward_gradient_is_the_library_backward(op, align, scales, library_calls):
    x = torch.randn(2, 3, 6, 10, requires_grad=True)
    size = [12, 15] if scales[1] == 1.5 else [15, 4]
    y = FORWARD_CUSTOM[op](x, size, align, *scales)
    g = torch.randn(y.shape, requires_grad=True)
    (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
    assert library_calls == [FORWARD_ROW[op], BACKWARD_ROW[op]]
    assert torch.equal(gx, OURS[op](g.detach(), size, [2, 3, 6, 10], align, *scales))
    # Double backward: the gradient of the backward is the forward again.
    v = torch.randn(gx.shape)
    library_calls.clear()
    (gg,) = torch.autograd.grad(gx, g, v)
    assert library_calls == [FORWARD_ROW[op]]
    assert torch.equal(gg, FORWARD_OURS[op](v, size, align, *scales))


@pytest.mark.parametrize("op", ["bilinear", "bicubic_aa"])
def test_custom_ops_pass_gradcheck(op):
    # Finite differences against the registered gradients. Both ops are linear, so a step of 1
    # is exact up to float32 rounding, which the tolerances cover.
    x = torch.randn(1, 2, 5, 4, requires_grad=True)
    g = torch.randn(1, 2, 3, 7, requires_grad=True)
    with pytest.warns(UserWarning, match="double"):
        assert torch.autograd.gradcheck(
            lambda t: FORWARD_CUSTOM[op](t, [3, 7], False, 0.0, 0.0), (x,), eps=1.0, atol=1e-5,
            rtol=1e-4)
    with pytest.warns(UserWarning, match="double"):
        assert torch.autograd.gradcheck(
            lambda t: CUSTOM[op](t, [3, 7], [1, 2, 5, 4], False, 0.0, 0.0), (g,), eps=1.0,
            atol=1e-5, rtol=1e-4)


def test_a_model_on_the_custom_ops_trains_on_the_library(library_calls):
    from torch.utils._python_dispatch import TorchDispatchMode

    class OpNames(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.names = set()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.add(str(func.overloadpacket))
            return func(*args, **(kwargs or {}))

    torch.manual_seed(0)
    conv = torch.nn.Conv2d(4, 4, 1)
    x, target = torch.randn(2, 4, 8, 8), torch.randn(2, 4, 11, 11)

    def loss(upsample, resize):
        y = upsample(conv(x), [16, 16], False, 2.0, 2.0)
        return F.mse_loss(resize(y, [11, 11], False, 0.0, 0.0), target)

    ours = loss(FORWARD_CUSTOM["bilinear"], FORWARD_CUSTOM["bicubic_aa"])
    with OpNames() as recorded:
        ours.backward()
    ours_grad = conv.weight.grad.clone()
    conv.weight.grad = None
    theirs = loss(FORWARD_ATEN["bilinear"], FORWARD_ATEN["bicubic_aa"])
    theirs.backward()
    assert abs(ours.item() - theirs.item()) <= 1e-5 * theirs.item()
    torch.testing.assert_close(ours_grad, conv.weight.grad, rtol=1e-4, atol=1e-6)
    assert sorted(library_calls) == sorted([*FORWARD_ROW.values(), *BACKWARD_ROW.values()])
    assert not [n for n in recorded.names if n.startswith("aten.") and "upsample" in n]


def test_aa_forward_keeps_pytorchs_copy_of_an_unchanged_axis(library_calls):
    # PyTorch's AA forward copies an axis whose size does not change even when its scale says
    # otherwise (tests/golden/TORCH_NOTES.md); the library uses the scale, as PyTorch's backward
    # does. Routed, the forward is PyTorch's, the backward the library's.
    x = torch.randn(1, 2, 9, 9)
    # (align_corners, scales_h): the quirk, then scale 1 and align_corners, where that axis is an
    # identity for both and the call is routed.
    calls = [(False, 1.5), (False, 1.0), (True, 1.5)]
    expected = {c: FORWARD_ATEN["bicubic_aa"](x, [9, 4], *c, 0.5) for c in calls}
    assert torch.equal(expected[calls[0]], FORWARD_ATEN["bicubic_aa"](x, [9, 4], False, None, 0.5))
    with aut.enabled():
        routed = {c: FORWARD_ATEN["bicubic_aa"](x, [9, 4], *c, 0.5) for c in calls}
    assert library_calls == [FORWARD_ROW["bicubic_aa"]] * 2  # not the first
    assert torch.equal(routed[calls[0]], expected[calls[0]])
    for c in calls[1:]:
        m = forward_reference("bicubic_aa", x.numpy(), [9, 4], *c, 0.5)[1]
        assert_close_to_pytorch(routed[c], expected[c], m)
    # The library's own function uses the scale.
    ours = au.upsample_bicubic2d_aa(x, [9, 4], False, 1.5, 0.5)
    assert not torch.allclose(ours, expected[calls[0]], atol=1e-3)
    r, m = forward_reference("bicubic_aa", x.numpy(), [9, 4], False, 1.5, 0.5)
    assert_within_contract(ours.numpy(), r, m)
    # Through F.interpolate: 9 * 1.05 floors to 9, so H keeps its size with scale 1.05.
    library_calls.clear()
    xg = x.clone().requires_grad_(True)
    kwargs = dict(scale_factor=(1.05, 0.5), mode="bicubic", antialias=True)
    weights = torch.randn(1, 2, 9, 4)
    expected_y, expected_grad = interpolate_and_gradient(xg, weights, kwargs)
    with aut.enabled():
        y, grad = interpolate_and_gradient(xg, weights, kwargs)
    assert library_calls == [BACKWARD_ROW["bicubic_aa"]]
    assert torch.equal(y, expected_y)
    assert_close_to_pytorch(grad, expected_grad,
                            reference("bicubic_aa", weights.numpy(), [1, 2, 9, 9], False, 1.05,
                                      0.5)[1])


@pytest.mark.parametrize("call", [
    # Scales the V2 rule would not use (PyTorch always does): output != floor(input * scale) ...
    ([1, 2, 4, 4], [10, 10], 2.4, 2.6),
    # ... and 1/scale < 0.01.
    ([1, 2, 1, 3], [1, 300], None, 100.3),
])
def test_forward_scales_the_v2_rule_rejects_use_pytorch(call, library_calls):
    shape, output_size, sh, sw = call
    x = torch.randn(shape)
    expected = FORWARD_ATEN["bilinear"](x, output_size, False, sh, sw)
    with aut.enabled():
        result = FORWARD_ATEN["bilinear"](x, output_size, False, sh, sw)
    assert not library_calls
    assert torch.equal(result, expected)
    ours = au.upsample_bilinear2d(x, output_size, False, sh, sw)
    assert not torch.allclose(ours, expected, atol=1e-3)


def test_forward_what_the_library_refuses_goes_to_pytorch(library_calls):
    x = torch.randn(1, 1, 2, 8)
    expected = FORWARD_ATEN["bicubic_aa"](x, [120, 8], False)  # 60x: beyond the library's 50x
    empty = torch.randn(0, 3, 4, 4)
    with aut.enabled():
        assert torch.equal(FORWARD_ATEN["bicubic_aa"](x, [120, 8], False), expected)
        assert library_calls == [FORWARD_ROW["bicubic_aa"]]  # tried, refused, nothing written
        # The library refuses empty AA problems; PyTorch's kernel answers them.
        assert FORWARD_ATEN["bicubic_aa"](empty, [8, 8], False).shape == (0, 3, 8, 8)
        # An error PyTorch raises stays PyTorch's error.
        with pytest.raises(RuntimeError):
            FORWARD_ATEN["bilinear"](x[0], [4, 4], False)
        with pytest.raises(RuntimeError):
            FORWARD_ATEN["bilinear"](x, [0, 4], False)


def test_forward_routed_without_autograd(library_calls):
    x = torch.randn(1, 4, 6, 6)
    expected = F.interpolate(x, scale_factor=2, mode="bilinear")
    with aut.enabled():
        with torch.no_grad():
            no_grad = F.interpolate(x, scale_factor=2, mode="bilinear")
        with torch.inference_mode():
            inference = F.interpolate(x, scale_factor=2, mode="bilinear")
            # PyTorch has no 16-bit AA forward; routed, the library answers it.
            half = F.interpolate(x.half(), size=(5, 3), mode="bicubic", antialias=True)
    assert library_calls == [FORWARD_ROW["bilinear"]] * 2 + [FORWARD_ROW["bicubic_aa"]]
    assert torch.equal(no_grad, inference)
    assert_close_to_pytorch(no_grad, expected,
                            forward_reference("bilinear", x.numpy(), [12, 12], False, 2.0,
                                              2.0)[1])
    r, m = forward_reference("bicubic_aa", x.half().float().numpy(), [5, 3])
    assert_within_contract(half.float().numpy(), r, m, "float16")


def test_torch_compile_traces_the_forward_ops():
    def step(x):
        a = torch.ops.aclnn_upsample.upsample_bilinear2d(x, [16, 16])
        b = torch.ops.aclnn_upsample.upsample_bicubic2d_aa(x, [16, 16])
        return a * 2 + b

    x = torch.randn(1, 4, 8, 8)
    compiled = torch.compile(step, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(x), step(x), rtol=0, atol=0)
