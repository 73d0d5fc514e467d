"""PyTorch and every row of the operator table: each row's custom op (against its function, opcheck,
gradients that are the adjoint rows), every routed aten op, and what stays with
PyTorch because its numbers differ by design."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import aclnn_upsample as au  # noqa: E402
import aclnn_upsample.torch as aut  # noqa: E402
from reference import assert_within_contract, forward_reference, reference  # noqa: E402
from rows import FUNCTIONS, ROWS, adjoint, args_of, first_row, row_id  # noqa: E402
from torch_helpers import assert_close_to_pytorch, interpolate_and_gradient  # noqa: E402

pytestmark = pytest.mark.usefixtures("routing_off")

CUSTOM = {name: getattr(torch.ops.aclnn_upsample, function_name).default
          for name, (function_name, _) in FUNCTIONS.items()}
A = torch.ops.aten


def source_shape(row, input_size, output_size):
    return tuple(input_size) if row["forward"] else (*input_size[:2], *output_size)


# ---------------------------------------------------------------------------------------------
# Custom ops


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_custom_op_is_the_function_and_passes_opcheck(row):
    function = FUNCTIONS[row["name"]][1]
    size, input_size = [12, 10], [2, 3, 5, 7]
    source = torch.randn(source_shape(row, input_size, size))
    assert torch.equal(CUSTOM[row["name"]](*args_of(row, source, size, input_size)),
                       function(*args_of(row, source, size, input_size)))
    samples = [
        args_of(row, source, size, input_size),
        args_of(row, source.contiguous(memory_format=torch.channels_last), size, input_size,
                True, (2.0, 1.5)),
        args_of(row, torch.randn(source_shape(row, [1, 2, 4, 4], [8, 8]), dtype=torch.bfloat16),
                [8, 8], [1, 2, 4, 4], False, (2.0, 2.0)),
    ]
    for args in samples:
        torch.library.opcheck(CUSTOM[row["name"]], args)
    with pytest.raises(au.AclnnError):  # the library's checks, not the fake kernel's
        CUSTOM[row["name"]](*args_of(row, source, [12, 11] if not row["forward"] else [0, 10],
                                     input_size))


# Sizes and scales at which every forward row and its adjoint apply exactly transposed matrices:
# scales exact in float32 and consistent with the sizes (floor(4 * 2.5) = 10, floor(5 * 2) = 10).
GRADIENT_CASES = [([2, 3, 4, 5], [10, 10], False, (2.5, 2.0)),
                  ([2, 3, 6, 10], [15, 4], True, (0.0, 0.0)),
                  ([2, 3, 6, 10], [3, 7], False, (0.0, 0.0))]


@pytest.mark.parametrize("row", ROWS, ids=row_id)
@pytest.mark.parametrize("input_size,size,align,scales", GRADIENT_CASES)
def test_custom_op_gradient_is_the_adjoint_row(row, input_size, size, align, scales,
                                               library_calls):
    # The gradient of each op is the library's first row of its mode and the other direction,
    # and the gradient of that (double backward) the first row of the op's own direction.
    source = torch.randn(source_shape(row, input_size, size), requires_grad=True)
    y = CUSTOM[row["name"]](*args_of(row, source, size, input_size, align, scales))
    g = torch.randn(y.shape, requires_grad=True)
    (gradient,) = torch.autograd.grad(y, source, g, create_graph=True)
    back = adjoint(row)
    assert library_calls == [row["name"], back["name"]]
    align_used = align and row["takes_align_corners"]
    scales_used = scales if row["takes_scales"] else (0.0, 0.0)
    function = FUNCTIONS[back["name"]][1]
    assert torch.equal(gradient, function(*args_of(back, g.detach(), size, input_size,
                                                   align_used, scales_used)))
    v = torch.randn(gradient.shape)
    library_calls.clear()
    (second,) = torch.autograd.grad(gradient, g, v)
    again = adjoint(back)
    assert library_calls == [again["name"]]
    assert torch.equal(second, FUNCTIONS[again["name"]][1](
        *args_of(again, v, size, input_size, align_used, scales_used)))


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_custom_op_passes_gradcheck(row):
    # Finite differences against the registered gradient. Each op is linear, so a step of 1 is
    # exact up to float32 rounding, which the tolerances cover.
    source = torch.randn(source_shape(row, [1, 2, 5, 4], [3, 7]), requires_grad=True)
    with pytest.warns(UserWarning, match="double"):
        assert torch.autograd.gradcheck(
            lambda t: CUSTOM[row["name"]](*args_of(row, t, [3, 7], [1, 2, 5, 4])), (source,),
            eps=1.0, atol=1e-5, rtol=1e-4)


def test_bilinear_v1_gradient_with_a_scale_v2_would_not_use_is_pytorchs(library_calls):
    # V1 uses the inconsistent scale 2.4 (floor(10 * 2.4) = 24, not 25) as given; the bilinear
    # forward (V2 rule) would not, so the gradient is PyTorch's forward, which does.
    grad = torch.randn(1, 2, 25, 25, requires_grad=True)
    v1 = CUSTOM["aclnnUpsampleBilinear2dBackward"]
    v = torch.randn(1, 2, 10, 10)
    (gradient,) = torch.autograd.grad(v1(grad, [25, 25], [1, 2, 10, 10], False, 2.4, 2.4), grad,
                                      v)
    assert library_calls == ["aclnnUpsampleBilinear2dBackward"]
    expected = A.upsample_bilinear2d(v, [25, 25], False, 2.4, 2.4)
    assert torch.equal(gradient, expected)
    r, m = forward_reference("bilinear", v.numpy(), [25, 25], False, 2.4, 2.4,
                             consistent_scales=False)
    assert_within_contract(gradient.numpy(), r, m)


def test_nearest_gradients_with_a_scale_float32_would_move(library_calls):
    # 1.1 as float32 gives another float32 ratio than 1.1, which moves an index at 100 -> 110
    # (tests/test_modes.py): the V2 forward takes it rounded, so its gradient is the backward
    # with the rounded scale; the backward takes float64 scales, so its gradient is PyTorch's
    # forward, which does too.
    x = torch.randn(1, 1, 3, 100, requires_grad=True)
    y = CUSTOM["aclnnUpsampleNearest2dV2"](x, [3, 110], 0.0, 1.1)
    g = torch.randn(y.shape, requires_grad=True)
    (gradient,) = torch.autograd.grad(y, x, g, create_graph=True)
    assert torch.equal(gradient, au.upsample_nearest2d_backward(
        g.detach(), [3, 110], [1, 1, 3, 100], 0.0, float(np.float32(1.1))))
    library_calls.clear()
    backward = CUSTOM["aclnnUpsampleNearest2dBackward"]
    v = torch.randn(1, 1, 3, 100)
    (second,) = torch.autograd.grad(backward(g, [3, 110], [1, 1, 3, 100], 0.0, 1.1), g, v)
    assert library_calls == ["aclnnUpsampleNearest2dBackward"]
    assert torch.equal(second, A.upsample_nearest2d(v, [3, 110], None, 1.1))
    assert not torch.equal(second, au.upsample_nearest2d_v2(v, [3, 110], 0.0, 1.1))


def test_torch_compile_traces_every_custom_op():
    ops = [(CUSTOM[row["name"]], row) for row in ROWS]

    def step(x, grad):
        total = 0
        for op, row in ops:
            source = x if row["forward"] else grad
            result = op(*args_of(row, source, [16, 16], [1, 4, 8, 8]))
            total = total + (result.sum() if row["forward"] else result)
        return total

    x, grad = torch.randn(1, 4, 8, 8), torch.randn(1, 4, 16, 16)
    compiled = torch.compile(step, backend="aot_eager", fullgraph=True)
    torch.testing.assert_close(compiled(x, grad), step(x, grad), rtol=0, atol=0)


# ---------------------------------------------------------------------------------------------
# Routing (F.interpolate of every mode: test_torch.py)


def routes():
    """(mode, forward, aten op name, out= overload keyword) of every routed aten op."""
    return [(r.mode, r.forward, r.aten, r.out_name) for r in aut._ROUTES]


def aten_args(mode, forward, source, output_size, input_size):
    # PyTorch's schemas: the nearest family has no align_corners.
    row = first_row(mode, forward)
    return args_of(row, source, output_size, input_size, False, (None, None))


def test_enable_routes_every_mode_and_disable_restores_pytorch_bitwise(library_calls):
    x, grad = torch.randn(2, 4, 13, 19), torch.randn(2, 4, 32, 30)

    def call_all():
        results = {}
        for mode, forward, name, _ in routes():
            source = x if forward else grad
            results[name] = getattr(A, name)(*aten_args(mode, forward, source, [32, 30],
                                                        [2, 4, 13, 19]))
        return results

    before = call_all()
    aut.enable()
    routed = call_all()
    assert library_calls == [first_row(mode, forward)["name"] for mode, forward, _, _ in routes()]
    aut.disable()
    after = call_all()
    assert len(library_calls) == len(routes())
    for mode, forward, name, _ in routes():
        assert torch.equal(after[name], before[name])
        if forward:
            m = forward_reference(mode, x.numpy(), [32, 30])[1]
        else:
            m = reference(mode, grad.numpy(), [2, 4, 13, 19])[1]
        assert_close_to_pytorch(routed[name], before[name], m)


@pytest.mark.parametrize("route", routes(), ids=lambda r: r[2])
def test_out_variants(route, library_calls):
    mode, forward, name, out_name = route
    out_op = getattr(getattr(A, name), out_name)
    source = torch.randn(2, 3, 7, 9) if forward else torch.randn(2, 3, 16, 12)
    args = aten_args(mode, forward, source, [16, 12], [2, 3, 7, 9])
    expected = getattr(A, name)(*args)
    with aut.enabled():
        storage = torch.full((*expected.shape[:3], 2 * expected.shape[3]), 5.0)
        buffer = storage[..., ::2]  # a strided out= is written in place
        assert out_op(*args, **{out_name: buffer}) is buffer
        assert library_calls == [first_row(mode, forward)["name"]]
        small = torch.empty(0)  # PyTorch's to resize
        out_op(*args, **{out_name: small})
        assert len(library_calls) == 1
    assert torch.all(storage[..., 1::2] == 5.0)
    assert torch.equal(small, expected)
    if forward:
        m = forward_reference(mode, source.numpy(), [16, 12])[1]
    else:
        m = reference(mode, source.numpy(), [2, 3, 7, 9])[1]
    assert_close_to_pytorch(buffer, expected, m)


# ---------------------------------------------------------------------------------------------
# What stays with PyTorch


def test_bilinear_aa_forward_keeps_pytorchs_copy_of_an_unchanged_axis(library_calls):
    # As the bicubic AA forward (test_torch.py): PyTorch's bilinear AA forward copies an axis
    # whose size does not change whatever its scale; its backward and the library use the scale.
    x = torch.randn(1, 2, 9, 9)
    quirk = A._upsample_bilinear2d_aa(x, [9, 4], False, 1.5, 0.5)
    assert torch.equal(quirk, A._upsample_bilinear2d_aa(x, [9, 4], False, None, 0.5))
    with aut.enabled():
        assert torch.equal(A._upsample_bilinear2d_aa(x, [9, 4], False, 1.5, 0.5), quirk)
        assert not library_calls
        routed = A._upsample_bilinear2d_aa(x, [9, 4], False, 1.0, 0.5)  # scale 1: routed
    assert library_calls == ["aclnnUpsampleBilinear2dAA"]
    assert_close_to_pytorch(routed, quirk, forward_reference("bilinear_aa", x.numpy(), [9, 4],
                                                             False, 1.0, 0.5)[1])
    ours = au.upsample_bilinear2d_aa(x, [9, 4], False, 1.5, 0.5)
    assert not torch.allclose(ours, quirk, atol=1e-3)
    r, m = forward_reference("bilinear_aa", x.numpy(), [9, 4], False, 1.5, 0.5)
    assert_within_contract(ours.numpy(), r, m)


def test_bicubic_backward_keeps_pytorchs_copy_of_an_unchanged_size(library_calls):
    # PyTorch's bicubic backward copies grad_output when neither axis changes size, whatever the
    # scales (its forward, and the library, apply the bicubic matrix: a NaN reaches the
    # neighbours). Routed, that call stays PyTorch's; a changed size is the library's.
    grad = torch.randn(1, 2, 9, 9)
    grad[0, 0, 4, 4] = float("nan")
    calls = [([9, 9], [1, 2, 9, 9], 1.5), ([9, 9], [1, 2, 9, 9], None)]
    expected = [A.upsample_bicubic2d_backward(grad, o, i, False, s, s) for o, i, s in calls]
    assert all(torch.equal(e.nan_to_num(), grad.nan_to_num()) for e in expected)
    with aut.enabled():
        routed = [A.upsample_bicubic2d_backward(grad, o, i, False, s, s) for o, i, s in calls]
        assert not library_calls
        A.upsample_bicubic2d_backward(grad, [9, 9], [1, 2, 9, 8], False, None, None)
    assert library_calls == ["aclnnUpsampleBicubic2dBackward"]
    for result, theirs in zip(routed, expected):
        assert torch.equal(result.isnan(), theirs.isnan())
        assert torch.equal(result.nan_to_num(), theirs.nan_to_num())
    ours = au.upsample_bicubic2d_backward(grad, [9, 9], [1, 2, 9, 9])
    assert ours.isnan().sum() > 1


def test_nearest_forward_with_a_scale_float32_would_move_is_pytorchs(library_calls):
    x = torch.randn(1, 2, 3, 100, requires_grad=True)
    kwargs = dict(scale_factor=(1.0, 1.1), mode="nearest", recompute_scale_factor=False)
    weights = torch.randn(1, 2, 3, 110)
    expected_y, expected = interpolate_and_gradient(x, weights, kwargs)
    with aut.enabled():
        y, result = interpolate_and_gradient(x, weights, kwargs)
    assert library_calls == ["aclnnUpsampleNearest2dBackward"]  # the forward is PyTorch's
    assert torch.equal(y, expected_y)
    r, m = reference("nearest", weights.double().numpy(), [1, 2, 3, 100], False, 1.0, 1.1)
    assert_within_contract(result.numpy(), r, m)
    # The V2 operator itself takes 1.1 as float32 and moves an index.
    assert not torch.equal(au.upsample_nearest2d_v2(x.detach(), [3, 110], 1.0, 1.1), expected_y)


def test_what_the_library_refuses_goes_to_pytorch(library_calls):
    x = torch.randn(1, 2, 4, 4)
    empty = torch.randn(0, 3, 4, 4)
    with aut.enabled():
        # The library refuses empty bicubic problems and negative nearest-exact scales.
        assert A.upsample_bicubic2d(empty, [8, 8], False).shape == (0, 3, 8, 8)
        exact = A._upsample_nearest_exact2d(x, [8, 8], -1.0, None)
        assert library_calls == ["aclnnUpsampleBicubic2d", "aclnnUpsampleNearestExact2d"]
        # PyTorch has no 16-bit bilinear AA kernel; routed, the library answers it.
        half = A._upsample_bilinear2d_aa(x.half(), [3, 7], False)
    assert torch.equal(exact, A._upsample_nearest_exact2d(x, [8, 8], -1.0, None))
    with pytest.raises(NotImplementedError):
        A._upsample_bilinear2d_aa(x.half(), [3, 7], False)
    r, m = forward_reference("bilinear_aa", x.half().float().numpy(), [3, 7])
    assert_within_contract(half.float().numpy(), r, m, "float16")
