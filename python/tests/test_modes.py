"""Every row of the operator table through its function, driven by the row's flags: against the
float64 reference, the adjoint identity, and what each row accepts and refuses."""

import inspect

import numpy as np
import pytest

import aclnn_upsample as au
from reference import assert_within_contract, forward_reference, reference
from rows import FUNCTIONS, ROWS, adjoint, call, row_id

def as_used(row, align, scales):
    """(align_corners, scales) as the row reads them: a parameter it lacks is not given."""
    return (align and row["takes_align_corners"],
            tuple(scales) if row["takes_scales"] else (0.0, 0.0))


def expected(row, source, output_size, input_size, align, scales):
    """The reference (r, m) of `row` for these arguments."""
    align, scales = as_used(row, align, scales)
    rule = dict(consistent_scales=row["scales_need_consistent_size"])
    if row["forward"]:
        return forward_reference(row["mode"], source, output_size, align, *scales, **rule)
    return reference(row["mode"], source, input_size, align, *scales, **rule)


def random_values(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# (input H, W), (output H, W), align_corners, (scales_h, scales_w)
CASES = [
    ((16, 16), (32, 32), False, (0.0, 0.0)),  # 2x up (nearest: o >> 1)
    ((16, 16), (32, 32), False, (2.1, 1.9)),  # scales off the sizes (nearest: still o >> 1)
    ((32, 32), (16, 16), False, (0.0, 0.0)),  # 2x down
    ((20, 30), (30, 45), False, (1.5, 1.5)),  # 1.5x
    ((17, 23), (5, 41), False, (0.0, 0.0)),  # mixed down/up, odd sizes
    ((17, 23), (5, 41), True, (0.0, 0.0)),
    ((9, 9), (9, 9), False, (3.0, 0.0)),  # unchanged sizes with a scale
    ((10, 10), (25, 25), False, (2.4, 2.6)),  # scales inconsistent with the sizes
    ((7, 5), (3, 12), False, (0.3, 2.5)),
    ((5, 7), (1, 1), True, (0.0, 0.0)),  # out == 1 with align_corners
    ((1, 1), (7, 3), False, (0.0, 0.0)),
]


@pytest.mark.parametrize("row", ROWS, ids=row_id)
@pytest.mark.parametrize("in_hw,out_hw,align,scales", CASES)
def test_float32_against_reference(row, in_hw, out_hw, align, scales):
    input_size = [2, 3, *in_hw]
    source = random_values((2, 3, *(in_hw if row["forward"] else out_hw)))
    result = call(row, source, out_hw, input_size, align, scales)
    assert result.shape == ((2, 3, *out_hw) if row["forward"] else tuple(input_size))
    r, m = expected(row, source, out_hw, input_size, align, scales)
    if row["forward"] and row["mode"].startswith("nearest"):
        # A copy of the element the reference picks, bit for bit.
        assert np.array_equal(result, r.astype(np.float32))
    assert_within_contract(result, r, m)


@pytest.mark.parametrize("row", ROWS, ids=row_id)
@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_16_bit_against_reference(row, dtype):
    torch = pytest.importorskip("torch")  # NumPy has no bfloat16; torch tensors carry both
    torch_dtype = torch.float16 if dtype == np.float16 else torch.bfloat16
    in_hw, out_hw = (13, 31), (24, 20)
    source = torch.randn(2, 3, *(in_hw if row["forward"] else out_hw),
                         generator=torch.Generator().manual_seed(3)).to(torch_dtype)
    result = call(row, source, out_hw, [2, 3, *in_hw])
    assert result.dtype == torch_dtype
    r, m = expected(row, source.float().numpy(), out_hw, [2, 3, *in_hw], False, (0.0, 0.0))
    assert_within_contract(result.float().numpy(), r, m,
                           "float16" if dtype == np.float16 else "bfloat16")


def test_signatures_follow_the_table():
    # A parameter the operator lacks is not offered (the nearest family has no align_corners,
    # Nearest2d V1 no scales), rather than offered and ignored.
    for row in ROWS:
        parameters = inspect.signature(FUNCTIONS[row["name"]][1]).parameters
        assert ("input_size" in parameters) == (not row["forward"]), row["name"]
        assert ("align_corners" in parameters) == row["takes_align_corners"], row["name"]
        assert ("scales_h" in parameters) == row["takes_scales"], row["name"]
        assert ("scales_w" in parameters) == row["takes_scales"], row["name"]


# (input H, W), (output H, W), align_corners, (scales_h, scales_w): scales exact in float32 (the
# V2 nearest operator takes float ones) and consistent with the sizes (the V2 bilinear rule).
ADJOINT_CASES = [
    ((5, 7), (9, 4), False, (0.0, 0.0)),
    ((6, 6), (6, 6), False, (1.5, 0.0)),  # an unchanged size with a scale
    ((8, 5), (3, 11), True, (0.0, 0.0)),
    ((4, 3), (10, 7), False, (2.5, 2.5)),
    ((6, 4), (3, 8), False, (0.5, 2.0)),
]


@pytest.mark.parametrize("row", [r for r in ROWS if r["forward"]], ids=row_id)
@pytest.mark.parametrize("in_hw,out_hw,align,scales", ADJOINT_CASES)
def test_forward_and_backward_rows_are_exactly_transposed(row, in_hw, out_hw, align, scales):
    # The dense matrices, one column per one-hot channel: the forward's (out x in) must be the
    # exact transpose of its adjoint's (in x out), bit for bit, so that each is the other's
    # gradient. A forward without scales (Nearest2d V1) meets its adjoint without them.
    backward = adjoint(row)
    align, scales = as_used(row, align, scales)
    n_in, n_out = in_hw[0] * in_hw[1], out_hw[0] * out_hw[1]
    x = np.eye(n_in, dtype=np.float32).reshape(1, n_in, *in_hw)
    g = np.eye(n_out, dtype=np.float32).reshape(1, n_out, *out_hw)
    forward_matrix = call(row, x, out_hw, None, align, scales).reshape(n_in, n_out)
    backward_matrix = call(backward, g, out_hw, [1, n_out, *in_hw], align, scales)
    assert np.array_equal(forward_matrix, backward_matrix.reshape(n_out, n_in).T)
    r, m = expected(row, x, out_hw, None, align, scales)
    assert_within_contract(forward_matrix, r.reshape(n_in, n_out), m.reshape(n_in, n_out))


def test_bilinear_v1_uses_every_scale_as_given():
    # PyTorch's rule (V1) against the device's (V2): 10 -> 25 with scale 2.4 is inconsistent
    # (floor(10 * 2.4) = 24), so V2 uses in/out and V1 uses 1/2.4.
    (v1,) = [r for r in ROWS if r["name"] == "aclnnUpsampleBilinear2dBackward"]
    assert not v1["scales_need_consistent_size"]
    grad = random_values((1, 2, 25, 25))
    result = au.upsample_bilinear2d_backward(grad, [25, 25], [1, 2, 10, 10], False, 2.4, 2.4)
    r, m = reference("bilinear", grad, [1, 2, 10, 10], False, 2.4, 2.4, consistent_scales=False)
    assert_within_contract(result, r, m)
    v2 = au.upsample_bilinear2d_backward_v2(grad, [25, 25], [1, 2, 10, 10], False, 2.4, 2.4)
    assert not np.allclose(result, v2, atol=1e-3)
    # Consistent or absent scales: the two agree.
    for scales in ((2.5, 2.5), (0.0, 0.0)):
        assert np.array_equal(
            au.upsample_bilinear2d_backward(grad, [25, 25], [1, 2, 10, 10], False, *scales),
            au.upsample_bilinear2d_backward_v2(grad, [25, 25], [1, 2, 10, 10], False, *scales))


def test_nearest_v1_is_v2_without_scales():
    x = random_values((2, 3, 7, 5))
    for size in ([3, 12], [14, 10], [7, 5]):
        assert np.array_equal(au.upsample_nearest2d(x, size), au.upsample_nearest2d_v2(x, size))
    # V2 with a scale that changes the ratio: V1 has no way to ask for it.
    assert not np.array_equal(au.upsample_nearest2d_v2(x, [3, 12], 0.3, 2.5),
                              au.upsample_nearest2d(x, [3, 12]))


def test_nearest_v2_rounds_its_scales_to_float32():
    # CANN declares V2's scales float: 1.1 arrives as float32(1.1), whose float32 ratio differs
    # from that of the float64 1.1 and moves an index (ATen's arithmetic, in the reference).
    x = np.arange(100, dtype=np.float32).reshape(1, 1, 1, 100)
    rounded = float(np.float32(1.1))
    pytorchs = forward_reference("nearest", x, [1, 110], False, 0.0, 1.1)[0]
    r, _ = forward_reference("nearest", x, [1, 110], False, 0.0, rounded)
    assert not np.array_equal(r, pytorchs)
    assert np.array_equal(au.upsample_nearest2d_v2(x, [1, 110], 0.0, 1.1), r.astype(np.float32))
    # The backward takes float64 scales, as PyTorch: its sums gather what PyTorch's picks.
    g = random_values((1, 1, 1, 110))
    r, m = reference("nearest", g, [1, 1, 1, 100], False, 0.0, 1.1)
    assert_within_contract(au.upsample_nearest2d_backward(g, [1, 110], [1, 1, 1, 100], 0.0, 1.1),
                           r, m)
    r_rounded = reference("nearest", g, [1, 1, 1, 100], False, 0.0, rounded)[0]
    assert not np.allclose(r, r_rounded)


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_empty_problems(row):
    # N or C of 0: an empty result where the row accepts it, else the library refuses.
    source = np.zeros((0, 3, 4, 4) if row["forward"] else (0, 3, 8, 6), np.float32)
    if row["accepts_empty"]:
        result = call(row, source, [8, 6], [0, 3, 4, 4])
        assert result.shape == ((0, 3, 8, 6) if row["forward"] else (0, 3, 4, 4))
    else:
        with pytest.raises(au.AclnnError) as raised:
            call(row, source, [8, 6], [0, 3, 4, 4])
        assert raised.value.status == au.ACLNN_ERR_PARAM_INVALID
        assert str(raised.value).startswith(row["name"] + ": ")


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_formats(row):
    source = random_values((2, 3, 7, 5) if row["forward"] else (2, 3, 6, 9))
    nchw = call(row, source, [6, 9], [2, 3, 7, 5])
    nhwc_source = np.ascontiguousarray(source.transpose(0, 2, 3, 1))
    if row["accepts_nhwc"]:
        # The same values in (N, H, W, C) order within the contract (the layouts run different
        # kernels, which may round differently; test_numpy.py's test_forward_formats), and the
        # nearest forward's copies bit for bit.
        result = call(row, nhwc_source, [6, 9], [2, 7, 5, 3], format="nhwc")
        r, m = expected(row, source, [6, 9], [2, 3, 7, 5], False, (0.0, 0.0))
        assert_within_contract(result.transpose(0, 3, 1, 2), r, m)
        if row["forward"] and row["mode"].startswith("nearest"):
            assert np.array_equal(result.transpose(0, 3, 1, 2), nchw)
    else:
        with pytest.raises(au.AclnnError, match="format"):
            call(row, nhwc_source, [6, 9], [2, 7, 5, 3], format="nhwc")
    if row["accepts_nd"]:  # read as NCHW
        assert np.array_equal(call(row, source, [6, 9], [2, 3, 7, 5], format="nd"), nchw)
    else:
        with pytest.raises(au.AclnnError, match="format"):
            call(row, source, [6, 9], [2, 3, 7, 5], format="nd")


@pytest.mark.parametrize("row", [r for r in ROWS if r["takes_scales"]], ids=row_id)
def test_negative_scales(row):
    source = random_values((1, 2, 4, 4) if row["forward"] else (1, 2, 6, 10))
    if row["rejects_negative_scales"]:
        with pytest.raises(au.AclnnError, match="scale"):
            call(row, source, [6, 10], [1, 2, 4, 4], scales=(-1.0, 2.5))
    else:  # "not given"
        assert np.array_equal(call(row, source, [6, 10], [1, 2, 4, 4], scales=(-1.0, 2.5)),
                              call(row, source, [6, 10], [1, 2, 4, 4], scales=(0.0, 2.5)))


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_upscale_limit(row):
    # 4 -> 204 is 51x: beyond a limit of 50, and taken where there is none.
    source = random_values((1, 1, 4, 4) if row["forward"] else (1, 1, 2, 204))
    if row["max_upscale"]:
        assert row["max_upscale"] == 50
        with pytest.raises(au.AclnnError):
            call(row, source, [2, 204], [1, 1, 4, 4])
        call(row, source[..., :200] if not row["forward"] else source, [2, 200], [1, 1, 4, 4])
    else:
        assert call(row, source, [2, 204], [1, 1, 4, 4]).shape == (
            (1, 1, 2, 204) if row["forward"] else (1, 1, 4, 4))


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_strided_views_in_place(row):
    in_hw, out_hw = (6, 7), (10, 10)
    base = random_values((2, 3, 20, 30))
    source = base[:, :, ::2, 1::3]  # (2, 3, 10, 10), no copy
    if row["forward"]:
        source = source[:, :, :in_hw[0], :in_hw[1]]
    expected_result = call(row, np.ascontiguousarray(source), out_hw, [2, 3, *in_hw])
    assert np.array_equal(call(row, source, out_hw, [2, 3, *in_hw]), expected_result)
    height, width = expected_result.shape[2:]
    storage = np.full((2, 3, 2 * height, 2 * width), 7.0, np.float32)
    view = storage[:, :, ::2, 1::2]
    assert call(row, source, out_hw, [2, 3, *in_hw], out=view) is view
    assert np.array_equal(view, expected_result)
    assert np.all(storage[:, :, 1::2] == 7.0) and np.all(storage[:, :, :, ::2] == 7.0)


def test_random_arguments_raise_or_succeed_never_crash():
    # Any row with any mix of shapes, sizes, dtypes, formats and scales: a result or an
    # exception, and out untouched on an exception.
    rng = np.random.default_rng(15)
    dtypes = [np.float32, np.float16, np.float64, np.int32]
    outcomes = {"ok": 0, "error": 0}
    for _ in range(300):
        row = ROWS[int(rng.integers(len(ROWS)))]
        ndim = int(rng.choice([4, 4, 4, 3, 0]))
        source = rng.standard_normal(tuple(int(v) for v in rng.integers(0, 7, ndim))).astype(
            rng.choice(dtypes))
        output_size = [int(v) for v in rng.integers(-1, 9, int(rng.choice([2, 2, 2, 1, 3])))]
        input_size = [int(v) for v in rng.integers(-2, 9, int(rng.choice([4, 4, 3])))]
        if ndim == 4 and rng.random() < 0.5:  # consistent sizes, so that some calls succeed
            output_size = [int(v) for v in rng.integers(1, 9, 2)]
            if not row["forward"]:
                output_size = list(source.shape[2:])
                input_size = [*source.shape[:2], *(int(v) for v in rng.integers(1, 9, 2))]
        kwargs = dict(format=str(rng.choice(["nchw", "nchw", "nhwc", "nd"])))
        shape = ([*source.shape[:2], *output_size] if row["forward"] and ndim == 4
                 else input_size)
        if rng.random() < 0.3 and len(shape) == 4 and all(0 <= v < 9 for v in shape):
            kwargs["out"] = np.full(shape, 4.0, source.dtype)
        before = kwargs["out"].copy() if "out" in kwargs else None
        scales = (float(rng.choice([0.0, -1.0, 0.5, 2.0, 1e-9, 1e9])),
                  float(rng.choice([0.0, 3.0, np.inf, np.nan])))
        try:
            call(row, source, output_size, input_size, bool(rng.random() < 0.5), scales,
                 **kwargs)
            outcomes["ok"] += 1
        except au.AclnnError as error:
            assert error.status in (au.ACLNN_ERR_PARAM_INVALID, au.ACLNN_ERR_PARAM_NULLPTR)
            assert str(error).startswith(row["name"] + ": ")
            if before is not None:
                assert np.array_equal(kwargs["out"], before)
            outcomes["error"] += 1
    assert outcomes["ok"] > 0 and outcomes["error"] > 0
