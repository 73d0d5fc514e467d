"""PyTorch: tensors through the module functions, the custom ops, and enable()/disable()."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import aclnn_upsample as au  # noqa: E402
import aclnn_upsample.torch as aut  # noqa: E402
from reference import assert_within_contract, reference  # noqa: E402

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


@pytest.fixture(autouse=True)
def _routing_off():
    aut.disable()
    yield
    aut.disable()


@pytest.fixture
def library_calls(monkeypatch):
    """Counts the calls that reach the library."""
    calls = []
    for name in ("run", "run_raw"):
        def counting(*args, _original=getattr(au._core, name)):
            calls.append(args[0])
            return _original(*args)

        monkeypatch.setattr(au._core, name, counting)
    return calls


def sums_of_magnitudes(op, grad, input_size, align, scales):
    return reference(op, grad.double().numpy(), input_size, align,
                     *(s or 0.0 for s in scales))[1]


def assert_close_to_pytorch(ours, theirs, m, dtype=torch.float32):
    """Close to PyTorch's result. PyTorch computes the weights in float32 (the library in float64,
    within the contract's 1e-5*m of the exact result): at ratios like 1/0.37 its own error
    reaches 1.7e-5*m, so the two may differ by more than the contract's bound."""
    ours = ours.double().numpy()
    theirs = theirs.double().numpy()
    if dtype == torch.float32:
        bound = 5e-5 * m + 1e-30
    else:  # both rounded to 16 bits: each within an ulp of the exact value
        eps = 2.0 ** (-10 if dtype == torch.float16 else -7)
        bound = 2 * eps * np.abs(theirs) + 5e-5 * m + 1e-6
    assert np.all(np.abs(ours - theirs) <= bound), np.max(np.abs(ours - theirs) - bound)


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
    before = {op: ATEN[op](grad, [32, 32], [2, 4, 13, 19], False, None, None) for op in ATEN}
    assert not aut.is_enabled()
    aut.enable()
    aut.enable()  # idempotent
    assert aut.is_enabled()
    routed = {op: ATEN[op](grad, [32, 32], [2, 4, 13, 19], False, None, None) for op in ATEN}
    assert sorted(library_calls) == [0, 1]
    aut.disable()
    assert not aut.is_enabled()
    after = {op: ATEN[op](grad, [32, 32], [2, 4, 13, 19], False, None, None) for op in ATEN}
    assert len(library_calls) == 2
    for op in ATEN:
        assert torch.equal(after[op], before[op])
        assert_close_to_pytorch(routed[op], before[op],
                                sums_of_magnitudes(op, grad, [2, 4, 13, 19], False, (None,) * 2))
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
    ],
)
@pytest.mark.parametrize("channels_last", [False, True])
def test_autograd_through_interpolate(kwargs, channels_last, library_calls):
    x = torch.randn(2, 8, 24, 20)
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    x.requires_grad_(True)
    weights = torch.randn(F.interpolate(x.detach(), **kwargs).shape)

    def gradient():
        x.grad = None
        (F.interpolate(x, **kwargs) * weights).sum().backward()
        return x.grad.clone()

    expected = gradient()
    with aut.enabled():
        result = gradient()
    assert library_calls, "the backward did not reach the library"
    assert torch.equal(gradient(), expected)
    assert result.stride() == expected.stride()
    op = "bilinear" if kwargs["mode"] == "bilinear" else "bicubic_aa"
    # The scale F.interpolate passes on: scale_factor, unless recomputed from the sizes.
    scale = 0.0 if kwargs.get("recompute_scale_factor") else kwargs.get("scale_factor", 0.0)
    r, m = reference(op, weights.double().numpy(), list(x.shape),
                     kwargs.get("align_corners", False), scale, scale)
    assert_close_to_pytorch(result, expected, m)
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
    assert library_calls == [1]  # tried, refused, nothing written
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
        assert library_calls
        # A wrong-shaped buffer is PyTorch's to resize.
        calls = len(library_calls)
        small = torch.empty(0)
        out_op(grad, [16, 16], [2, 3, 7, 9], False, None, None, grad_input=small)
        assert len(library_calls) == calls
    m = sums_of_magnitudes(op, grad, [2, 3, 7, 9], False, (None, None))
    assert_close_to_pytorch(buffer, expected, m)
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
