"""The module functions on NumPy and buffer-protocol arrays, against the float64 reference."""

import pathlib
import re
import shutil
import subprocess
import threading
import time

import numpy as np
import pytest

import aclnn_upsample as au
from reference import assert_within_contract, forward_reference, reference

OPS = {
    "bilinear": au.upsample_bilinear2d_backward_v2,
    "bicubic_aa": au.upsample_bicubic2d_aa_grad,
}
FORWARD = {
    "bilinear": au.upsample_bilinear2d,
    "bicubic_aa": au.upsample_bicubic2d_aa,
}
REPO = pathlib.Path(__file__).resolve().parents[2]

# (input H, W), (output H, W), align_corners, (scales_h, scales_w)
CASES = [
    ((3, 3), (6, 6), True, (2.0, 2.0)),  # CANN's bilinear example
    ((8, 4), (4, 2), True, (2.0, 2.0)),  # CANN's bicubic AA example
    ((16, 16), (32, 32), False, (0.0, 0.0)),  # 2x up
    ((16, 16), (32, 32), False, (2.0, 2.0)),  # 2x up, scales given and consistent
    ((32, 32), (16, 16), False, (0.0, 0.0)),  # 2x down
    ((224, 224), (256, 256), False, (0.0, 0.0)),  # 8/7
    ((20, 30), (30, 45), False, (1.5, 1.5)),  # 1.5x
    ((17, 23), (5, 41), False, (0.0, 0.0)),  # mixed down/up, odd sizes
    ((17, 23), (5, 41), True, (0.0, 0.0)),
    ((9, 9), (9, 9), False, (3.0, 0.0)),  # identity axes whatever the scale
    ((10, 10), (25, 25), False, (2.4, 2.6)),  # inconsistent scales: the V2 rule's in/out
    ((5, 7), (1, 1), True, (0.0, 0.0)),  # out == 1 with align_corners
    ((1, 1), (7, 3), False, (0.0, 0.0)),
]


def random_grad(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_version_and_target():
    text = (REPO / "CMakeLists.txt").read_text()
    assert au.__version__ == re.search(r"project\(aclnn_upsample VERSION ([0-9.]+)", text)[1]
    assert isinstance(au.simd_target(), str) and au.simd_target()


@pytest.mark.parametrize("op", OPS)
def test_cann_examples(op):
    if op == "bilinear":
        result = au.upsample_bilinear2d_backward_v2(np.ones((1, 1, 6, 6), np.float32), [6, 6],
                                                    [1, 1, 3, 3], True, 2.0, 2.0)
        expected = [[3.24, 4.32, 3.24], [4.32, 5.76, 4.32], [3.24, 4.32, 3.24]]
    else:
        grad = np.arange(8, dtype=np.float32).reshape(1, 1, 4, 2)
        result = au.upsample_bicubic2d_aa_grad(grad, [4, 2], [1, 1, 8, 4], True, 2.0, 2.0)
        expected = [[-0.037380, -0.021394, 0.076689, 0.210637],
                    [-0.019148, 0.026700, 0.200382, 0.428001],
                    [0.054657, 0.153699, 0.411533, 0.732542],
                    [0.137444, 0.293525, 0.637135, 1.051797],
                    [0.170893, 0.347117, 0.715870, 1.156116],
                    [0.237614, 0.463294, 0.912605, 1.443050],
                    [0.538375, 1.014847, 1.918604, 2.973265],
                    [1.005456, 1.876058, 3.500808, 5.389207]]
    assert isinstance(result, np.ndarray) and result.dtype == np.float32
    np.testing.assert_allclose(result[0, 0], expected, atol=5e-6)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("in_hw,out_hw,align,scales", CASES)
def test_float32_against_reference(op, in_hw, out_hw, align, scales):
    if op == "bicubic_aa" and in_hw[0] < out_hw[0] * 0.02:
        pytest.skip("beyond the AA operator's 50x")
    input_size = [2, 3, *in_hw]
    grad = random_grad((2, 3, *out_hw))
    result = OPS[op](grad, list(out_hw), input_size, align, *scales)
    assert result.shape == tuple(input_size) and result.flags.c_contiguous
    r, m = reference(op, grad, input_size, align, *scales)
    assert_within_contract(result, r, m)


@pytest.mark.parametrize("op", OPS)
def test_float16_against_reference(op):
    grad = random_grad((2, 3, 24, 20), np.float16)
    result = OPS[op](grad, [24, 20], [2, 3, 13, 31])
    assert result.dtype == np.float16
    r, m = reference(op, grad, [2, 3, 13, 31])
    assert_within_contract(result, r, m, "float16")


def test_nhwc_is_nchw_transposed():
    grad = random_grad((2, 3, 10, 14))
    expected = au.upsample_bilinear2d_backward_v2(grad, [10, 14], [2, 3, 7, 5])
    nhwc = np.ascontiguousarray(grad.transpose(0, 2, 3, 1))
    result = au.upsample_bilinear2d_backward_v2(nhwc, [10, 14], [2, 7, 5, 3], format="NHWC")
    assert result.shape == (2, 7, 5, 3)
    assert np.array_equal(result.transpose(0, 3, 1, 2), expected)


@pytest.mark.parametrize("op", OPS)
def test_strided_views_are_used_in_place(op):
    base = random_grad((2, 3, 20, 30))
    contiguous_grad = np.ascontiguousarray(base[:, :, ::2, 1::3])
    expected = OPS[op](contiguous_grad, [10, 10], [2, 3, 6, 7])
    views = {
        "sliced": base[:, :, ::2, 1::3],
        "channels_last": np.ascontiguousarray(contiguous_grad.transpose(0, 2, 3, 1)).transpose(
            0, 3, 1, 2),
    }
    for name, grad in views.items():
        assert np.array_equal(OPS[op](grad, [10, 10], [2, 3, 6, 7]), expected), name
    # A broadcast (zero-stride, read-only) gradient.
    row = random_grad((1, 1, 1, 10))
    grad = np.broadcast_to(row, (2, 3, 10, 10))
    assert np.array_equal(OPS[op](grad, [10, 10], [2, 3, 6, 7]),
                          OPS[op](np.ascontiguousarray(grad), [10, 10], [2, 3, 6, 7]))


@pytest.mark.parametrize("op", OPS)
def test_out_is_written_in_place_within_its_view(op):
    grad = random_grad((2, 3, 12, 12))
    expected = OPS[op](grad, [12, 12], [2, 3, 5, 9])
    storage = np.full((2, 3, 10, 20), 7.0, np.float32)
    out = storage[:, :, ::2, 1::2]  # (2, 3, 5, 10) view; write the first 9 columns
    view = out[..., :9]
    assert OPS[op](grad, [12, 12], [2, 3, 5, 9], out=view) is view
    assert np.array_equal(view, expected)
    untouched = np.ones(storage.shape, bool)
    untouched[:, :, ::2, 1:19:2] = False
    assert np.all(storage[untouched] == 7.0)


def test_buffer_protocol_input_gives_numpy():
    grad = random_grad((1, 2, 8, 8))
    result = au.upsample_bilinear2d_backward_v2(memoryview(grad), [8, 8], [1, 2, 4, 4])
    assert isinstance(result, np.ndarray)
    assert np.array_equal(result, au.upsample_bilinear2d_backward_v2(grad, [8, 8], [1, 2, 4, 4]))


def test_empty_batch_is_an_empty_result():
    result = au.upsample_bilinear2d_backward_v2(np.zeros((0, 3, 8, 8), np.float32), [8, 8],
                                                [0, 3, 4, 4])
    assert result.shape == (0, 3, 4, 4)


# Each: the call's arguments, the status, and a fragment of the library's message.
ERRORS = [
    (dict(grad=np.ones((1, 1, 4, 4), np.float64)), au.ACLNN_ERR_PARAM_INVALID, "dtype"),
    (dict(grad=np.ones((1, 1, 4, 4), np.int32)), au.ACLNN_ERR_PARAM_INVALID, "dtype"),
    (dict(grad=np.ones((4, 4), np.float32)), au.ACLNN_ERR_PARAM_INVALID, "gradOut"),
    (dict(output_size=[4, 4, 1]), au.ACLNN_ERR_PARAM_INVALID, "outputSize"),
    (dict(output_size=[]), au.ACLNN_ERR_PARAM_INVALID, "outputSize"),
    (dict(output_size=[5, 4]), au.ACLNN_ERR_PARAM_INVALID, "gradOut"),
    (dict(input_size=[1, 1, 0, 2]), au.ACLNN_ERR_PARAM_INVALID, "inputSize"),
    (dict(input_size=[1, 1, -3, 2]), au.ACLNN_ERR_PARAM_INVALID, "inputSize"),
    # Not allocatable: the library judges a stand-in result of that shape.
    (dict(input_size=[1, 1, 2]), au.ACLNN_ERR_PARAM_INVALID, "[1, 1, 2]"),
    (dict(input_size=[1, 1, 1 << 21, 2]), au.ACLNN_ERR_PARAM_INVALID, "inputSize"),
    (dict(input_size=[1 << 20, 1 << 20, 1 << 10, 2]), au.ACLNN_ERR_PARAM_INVALID, ""),
    (dict(grad=np.ones((1, 1, 4, 4), np.float32)[:, :, ::-1]), au.ACLNN_ERR_PARAM_INVALID,
     "stride"),
    (dict(format="nd"), au.ACLNN_ERR_PARAM_INVALID, "format"),
]


@pytest.mark.parametrize("args,status,fragment", ERRORS)
def test_errors_raise_aclnn_error_and_leave_out_alone(args, status, fragment):
    grad = args.get("grad", np.ones((1, 1, 4, 4), np.float32))
    call = dict(output_size=args.get("output_size", [4, 4]),
                input_size=args.get("input_size", [1, 1, 2, 2]), format=args.get("format", "nchw"))
    with pytest.raises(au.AclnnError) as raised:
        au.upsample_bilinear2d_backward_v2(grad, **call)
    assert raised.value.status == status
    assert isinstance(raised.value, ValueError)
    assert "aclnnUpsampleBilinear2dBackwardV2" in str(raised.value)
    assert fragment in str(raised.value)
    # The same call with an out= of the right shape: nothing written.
    shape = call["input_size"]
    if len(shape) == 4 and all(0 < v < 64 for v in shape):
        out = np.full(shape, 5.0, np.float32)
        with pytest.raises(au.AclnnError):
            au.upsample_bilinear2d_backward_v2(grad, **call, out=out)
        assert np.all(out == 5.0)


def test_bicubic_aa_errors():
    grad = np.ones((1, 1, 4, 4), np.float32)
    cases = [
        (dict(format="nhwc", input_size=[1, 2, 2, 1]), "format"),
        (dict(scales_h=-1.0), "scales"),
        (dict(input_size=[1, 1, 1, 1], output_size=[4, 4], scales_h=100.0), ""),  # > 50x
        (dict(grad=np.ones((1, 0, 4, 4), np.float32), input_size=[1, 0, 2, 2]), ""),
    ]
    for extra, fragment in cases:
        kwargs = dict(output_size=[4, 4], input_size=[1, 1, 2, 2])
        kwargs.update(extra)
        with pytest.raises(au.AclnnError) as raised:
            au.upsample_bicubic2d_aa_grad(kwargs.pop("grad", grad), **kwargs)
        assert raised.value.status == au.ACLNN_ERR_PARAM_INVALID, extra
        assert "aclnnUpsampleBicubic2dAAGrad" in str(raised.value)
        assert fragment in str(raised.value)


def test_out_errors():
    grad = np.ones((1, 1, 4, 4), np.float32)
    # out aliasing grad_out (same shape: an identity resize).
    with pytest.raises(au.AclnnError) as raised:
        au.upsample_bilinear2d_backward_v2(grad, [4, 4], [1, 1, 4, 4], out=grad)
    assert raised.value.status == au.ACLNN_ERR_PARAM_INVALID
    # Two elements of out at one address.
    out = np.broadcast_to(np.zeros((1, 1, 1, 2), np.float32), (1, 1, 2, 2))
    with pytest.raises(ValueError):  # read-only: refused before the library
        au.upsample_bilinear2d_backward_v2(grad, [4, 4], [1, 1, 2, 2], out=out)
    storage = np.zeros(2, np.float32)
    out = np.lib.stride_tricks.as_strided(storage, (1, 1, 2, 2), (0, 0, 0, 4))
    with pytest.raises(au.AclnnError) as raised:
        au.upsample_bilinear2d_backward_v2(grad, [4, 4], [1, 1, 2, 2], out=out)
    assert raised.value.status == au.ACLNN_ERR_PARAM_INVALID
    # Wrong dtype and shape of out.
    for bad in (np.zeros((1, 1, 2, 2), np.float16), np.zeros((1, 1, 2, 3), np.float32)):
        with pytest.raises(au.AclnnError):
            au.upsample_bilinear2d_backward_v2(grad, [4, 4], [1, 1, 2, 2], out=bad)
        assert not bad.any()


def test_arguments_python_cannot_pass_on():
    grad = np.ones((1, 1, 4, 4), np.float32)
    with pytest.raises(ValueError, match="format"):
        au.upsample_bilinear2d_backward_v2(grad, [4, 4], [1, 1, 2, 2], format="nchw8")
    with pytest.raises(TypeError, match="output_size"):
        au.upsample_bilinear2d_backward_v2(grad, [4.0, 4], [1, 1, 2, 2])
    with pytest.raises(TypeError):
        au.upsample_bilinear2d_backward_v2(grad, [4, 4], [1, 1, 2, 2], scales_h="2")
    misaligned = np.frombuffer(bytearray(4 * 16 + 1), np.float32, 16, offset=1).reshape(
        1, 1, 4, 4)
    with pytest.raises(au.AclnnError, match="aligned"):
        au.upsample_bilinear2d_backward_v2(misaligned, [4, 4], [1, 1, 2, 2])


def test_threads_are_deterministic():
    grad = random_grad((4, 8, 96, 128))
    results = []
    try:
        for threads in (1, 2, 3, 5):
            au.set_num_threads(threads)
            assert au.get_num_threads() == threads
            for op in OPS.values():
                results.append((op, op(grad, [96, 128], [4, 8, 50, 61])))
    finally:
        au.set_num_threads(0)
    assert au.get_num_threads() >= 1
    for op, result in results:
        first = next(r for o, r in results if o is op)
        assert np.array_equal(result, first)
    with pytest.raises(ValueError):
        au.set_num_threads(-1)


def test_concurrent_callers_get_the_same_bits():
    grad = random_grad((2, 4, 64, 64))
    expected = au.upsample_bicubic2d_aa_grad(grad, [64, 64], [2, 4, 40, 30])
    results = [None] * 6

    def work(i):
        results[i] = au.upsample_bicubic2d_aa_grad(grad, [64, 64], [2, 4, 40, 30])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(r, expected) for r in results)


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm")
def test_module_exports_no_library_symbols():
    # A real CANN in the same process exports the same names; the module must not.
    from aclnn_upsample import _core

    symbols = subprocess.run(["nm", "-D", "--defined-only", _core.__file__], check=True,
                             capture_output=True, text=True).stdout
    names = [line.split()[-1] for line in symbols.splitlines() if line.strip()]
    assert not [n for n in names if n.startswith(("acl", "_ZN14aclnn_upsample", "hwy"))]
    assert "PyInit__core" in names


def test_simd_pin_reaches_the_module(tmp_path):
    # The library's own switch (ACLNN_UPSAMPLE_SIMD) applies to the module's private copy too.
    import os
    import sys

    code = ("import numpy as np, aclnn_upsample as au; "
            "g = np.random.default_rng(1).standard_normal((2, 3, 9, 14)).astype(np.float32); "
            "np.save(__import__('sys').argv[1], au.upsample_bicubic2d_aa_grad(g, [9, 14], "
            "[2, 3, 5, 6])); print(au.simd_target())")
    env = dict(os.environ, ACLNN_UPSAMPLE_SIMD="portable")
    target = tmp_path / "portable_result.npy"
    name = subprocess.run([sys.executable, "-c", code, str(target)], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()
    assert name in ("SCALAR", "EMU128")
    grad = np.random.default_rng(1).standard_normal((2, 3, 9, 14)).astype(np.float32)
    r, m = reference("bicubic_aa", grad, [2, 3, 5, 6])
    assert_within_contract(np.load(target), r, m)


def test_random_arguments_raise_or_succeed_never_crash():
    # Any mix of shapes, sizes, dtypes, formats, scales and views: a result or an exception.
    rng = np.random.default_rng(12)
    dtypes = [np.float32, np.float16, np.float64, np.int32, np.uint8, np.bool_]
    outcomes = {"ok": 0, "error": 0}
    for _ in range(300):
        ndim = int(rng.choice([4, 4, 4, 3, 5, 0]))
        shape = tuple(int(v) for v in rng.integers(0, 7, ndim))
        grad = rng.standard_normal(shape).astype(rng.choice(dtypes))
        if ndim == 4 and rng.random() < 0.3:
            grad = grad.transpose(0, 2, 3, 1)
        if ndim == 4 and rng.random() < 0.2:
            grad = grad[:, :, ::-1]
        output_size = [int(v) for v in rng.integers(-1, 8, int(rng.choice([2, 2, 1, 3])))]
        input_size = [int(v) for v in rng.integers(-2, 9, int(rng.choice([4, 4, 3])))]
        kwargs = dict(align_corners=bool(rng.random() < 0.5),
                      scales_h=float(rng.choice([0.0, -1.0, 0.5, 2.0, 1e-9, 1e9])),
                      scales_w=float(rng.choice([0.0, 3.0, np.inf, np.nan])),
                      format=str(rng.choice(["nchw", "nhwc", "nd"])))
        if ndim == 4 and rng.random() < 0.5:  # consistent sizes, so that some calls succeed
            kwargs["format"] = "nchw"
            output_size = list(grad.shape[2:])
            input_size = [*grad.shape[:2], *(int(v) for v in rng.integers(1, 9, 2))]
        if rng.random() < 0.3 and all(0 <= v < 9 for v in input_size):
            kwargs["out"] = np.full(input_size, 4.0, grad.dtype)
        op = OPS[str(rng.choice(list(OPS)))]
        before = kwargs["out"].copy() if "out" in kwargs else None
        try:
            op(grad, output_size, input_size, **kwargs)
            outcomes["ok"] += 1
        except au.AclnnError as error:
            assert error.status in (au.ACLNN_ERR_PARAM_INVALID, au.ACLNN_ERR_PARAM_NULLPTR)
            assert str(error)
            if before is not None:
                assert np.array_equal(kwargs["out"], before)
            outcomes["error"] += 1
    assert outcomes["ok"] > 0 and outcomes["error"] > 0


def _gil_test_call(grad):
    au.upsample_bicubic2d_aa_grad(grad, [256, 256], [grad.shape[0], 32, 97, 83])


def _gradient_for_a_long_call():
    """A gradient whose call takes at least 30 ms alone (at the thread count set), three times the
    floor the test below needs to tell anything: a fixed 8 x 32 x 256 x 256 took 11-13 ms on the
    2-core VM, and under CI's load some attempts ran under the 10 ms floor. The batch doubles until
    the call is long enough, up to 64 (512 MiB). A call is timed by the faster of two: a first
    call alone can take several times a later one (an Intel Xeon VM sized 8 at 30 ms, then ran
    the three attempts under 10 ms)."""
    batch = 8
    while True:
        grad = np.ones((batch, 32, 256, 256), np.float32)
        fastest = float("inf")
        for _ in range(2):
            start = time.perf_counter()
            _gil_test_call(grad)
            fastest = min(fastest, time.perf_counter() - start)
        if fastest >= 0.03 or batch >= 64:
            return grad
        batch *= 2


def _longest_pause_during_a_call(grad):
    """How long this thread's loop stalled, at most, while another thread's call ran, and how long
    the same call takes alone."""
    start = time.perf_counter()
    _gil_test_call(grad)
    duration = time.perf_counter() - start
    worker = threading.Thread(target=_gil_test_call, args=(grad,))
    longest, last = 0.0, time.perf_counter()
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    return longest, duration


def test_gil_is_released_while_the_library_runs():
    # Python keeps running in this thread while another thread's call is in the library: the
    # longest pause between two of its steps stays far below the call's duration. A call that
    # held the GIL would stall this loop for the whole call on every attempt; a loaded machine
    # can deschedule this thread for a while on one attempt (seen once: 20 ms of a 35 ms call at
    # load 7), so the property must hold on one of a few attempts, not on the first.
    au.set_num_threads(1)
    try:
        grad = _gradient_for_a_long_call()
        attempts = [_longest_pause_during_a_call(grad) for _ in range(3)]
    finally:
        au.set_num_threads(0)
    assert all(duration > 0.01 for _, duration in attempts), "the call is too short to tell"
    assert any(longest < duration / 2 for longest, duration in attempts), attempts


def test_aclnn_error_pickles():
    import pickle

    error = pickle.loads(pickle.dumps(au.AclnnError(161002, "message")))
    assert isinstance(error, au.AclnnError) and error.status == 161002 and str(error) == "message"


# ---------------------------------------------------------------------------------------------
# The forward operators, and the table every function runs through


def test_every_table_row_is_a_function(library_calls):
    # A row added to the library's table without a function here fails this test.
    functions = [getattr(au, name) for name in au.__all__ if name.startswith("upsample_")]
    rows = au._core.operators()
    assert len(rows) == len(functions)
    for row in rows:
        (function,) = [f for f in functions if f.__doc__.startswith(f"``{row['name']}``")]
        library_calls.clear()
        if row["forward"]:
            result = function(np.ones((1, 2, 4, 6), np.float32), [2, 3])
            assert result.shape == (1, 2, 2, 3)
        else:
            result = function(np.ones((1, 2, 2, 3), np.float32), [2, 3], [1, 2, 4, 6])
            assert result.shape == (1, 2, 4, 6)
        assert library_calls == [row["name"]]
    # Every mode has both directions, each the other's adjoint.
    modes = {(row["mode"], row["forward"]) for row in rows}
    assert modes == {(mode, forward) for mode, _ in modes for forward in (True, False)}


@pytest.mark.parametrize("op", FORWARD)
def test_forward_cann_examples(op):
    # The backward's CANN examples read the other way: the forward of ones is ones (each row of
    # A sums to 1), and the adjoint of the example's sums.
    x = np.ones((1, 1, 3, 3) if op == "bilinear" else (1, 1, 8, 4), np.float32)
    size = [6, 6] if op == "bilinear" else [4, 2]
    result = FORWARD[op](x, size, True, 2.0, 2.0)
    assert isinstance(result, np.ndarray) and result.dtype == np.float32
    assert result.shape == (1, 1, *size)
    np.testing.assert_allclose(result, 1.0, rtol=0, atol=2e-7)


@pytest.mark.parametrize("op", FORWARD)
@pytest.mark.parametrize("in_hw,out_hw,align,scales", CASES)
def test_forward_float32_against_reference(op, in_hw, out_hw, align, scales):
    x = random_grad((2, 3, *in_hw), seed=1)
    result = FORWARD[op](x, list(out_hw), align, *scales)
    assert result.shape == (2, 3, *out_hw) and result.flags.c_contiguous
    r, m = forward_reference(op, x, out_hw, align, *scales)
    assert_within_contract(result, r, m)


@pytest.mark.parametrize("op", FORWARD)
def test_forward_float16_against_reference(op):
    x = random_grad((2, 3, 13, 31), np.float16)
    result = FORWARD[op](x, [24, 20])
    assert result.dtype == np.float16
    r, m = forward_reference(op, x, [24, 20])
    assert_within_contract(result, r, m, "float16")


def test_forward_formats():
    x = random_grad((2, 3, 7, 5))
    expected = au.upsample_bilinear2d(x, [10, 14])
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    result = au.upsample_bilinear2d(nhwc, [10, 14], format="nhwc")
    assert result.shape == (2, 10, 14, 3)
    # The same values in (N, H, W, C) order, each within the contract: not bitwise, since the
    # layouts run different kernels (three channels are deinterleaved, and with AVX2 that path
    # rounds 282 of these 840 elements differently from the NCHW one, by up to 2.4e-7).
    r, m = forward_reference("bilinear", x, [10, 14])
    assert_within_contract(result.transpose(0, 3, 1, 2), r, m)
    assert_within_contract(expected, r, m)
    # ND is read as NCHW by the AA operator.
    aa = au.upsample_bicubic2d_aa(x, [4, 9])
    assert np.array_equal(au.upsample_bicubic2d_aa(x, [4, 9], format="nd"), aa)


@pytest.mark.parametrize("op", FORWARD)
def test_forward_strided_views_and_out_in_place(op):
    base = random_grad((2, 3, 20, 30))
    x = base[:, :, ::2, 1::3]  # (2, 3, 10, 10)
    expected = FORWARD[op](np.ascontiguousarray(x), [6, 7])
    channels_last = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    broadcast = np.broadcast_to(x[:1, :1, :1], (2, 3, 10, 10))
    assert np.array_equal(FORWARD[op](x, [6, 7]), expected)
    assert np.array_equal(FORWARD[op](channels_last, [6, 7]), expected)
    assert np.array_equal(FORWARD[op](broadcast, [6, 7]),
                          FORWARD[op](np.ascontiguousarray(broadcast), [6, 7]))
    storage = np.full((2, 3, 12, 20), 7.0, np.float32)
    view = storage[:, :, ::2, 1::2][..., :7]  # (2, 3, 6, 7)
    assert FORWARD[op](x, [6, 7], out=view) is view
    assert np.array_equal(view, expected)
    untouched = np.ones(storage.shape, bool)
    untouched[:, :, ::2, 1:15:2] = False
    assert np.all(storage[untouched] == 7.0)


def test_forward_empty_problems():
    # Bilinear: N or C of 0 is an empty result; the AA operator refuses empty tensors.
    result = au.upsample_bilinear2d(np.zeros((0, 3, 4, 4), np.float32), [8, 6])
    assert result.shape == (0, 3, 8, 6)
    with pytest.raises(au.AclnnError) as raised:
        au.upsample_bicubic2d_aa(np.zeros((1, 0, 4, 4), np.float32), [8, 6])
    assert raised.value.status == au.ACLNN_ERR_PARAM_INVALID


# Each: the operator, the call's arguments, and a fragment of the library's message.
FORWARD_ERRORS = [
    ("bilinear", dict(x=np.ones((1, 1, 4, 4), np.float64)), "dtype"),
    ("bicubic_aa", dict(x=np.ones((1, 1, 4, 4), np.int32)), "dtype"),
    ("bilinear", dict(x=np.ones((4, 4), np.float32)), "self"),
    ("bicubic_aa", dict(x=np.ones((1, 4, 4), np.float32)), "x"),
    ("bilinear", dict(output_size=[4, 4, 1]), "outputSize"),
    ("bicubic_aa", dict(output_size=[]), "outputSize"),
    ("bilinear", dict(output_size=[0, 4]), "outputSize"),
    ("bicubic_aa", dict(output_size=[-2, 4]), "outputSize"),
    # Not allocatable: the library judges a stand-in result of that shape.
    ("bilinear", dict(output_size=[1 << 21, 2]), "outputSize"),
    ("bilinear", dict(x=np.ones((1 << 10, 1 << 10, 1, 1), np.float32),
                      output_size=[1 << 10, 1 << 10]), "footprint"),
    # Negative scales: refused by the forward (the V2 gradient reads them as "not given").
    ("bilinear", dict(scales_h=-1.0), "scales"),
    ("bicubic_aa", dict(scales_w=-2.0), "scales"),
    ("bilinear", dict(format="nd"), "format"),
    ("bicubic_aa", dict(format="nhwc"), "format"),
    ("bicubic_aa", dict(output_size=[2, 204]), "upscaling"),  # 51x, beyond 50
    ("bilinear", dict(x=np.ones((1, 1, 4, 4), np.float32)[:, :, ::-1]), "stride"),
]


@pytest.mark.parametrize("op,args,fragment", FORWARD_ERRORS)
def test_forward_errors_raise_and_leave_out_alone(op, args, fragment):
    x = args.pop("x", np.ones((1, 1, 4, 4), np.float32))
    call = dict(output_size=[2, 3])
    call.update(args)
    name = {"bilinear": "aclnnUpsampleBilinear2d", "bicubic_aa": "aclnnUpsampleBicubic2dAA"}[op]
    with pytest.raises(au.AclnnError) as raised:
        FORWARD[op](x, **call)
    assert raised.value.status == au.ACLNN_ERR_PARAM_INVALID
    assert str(raised.value).startswith(f"{name}: ")
    assert fragment in str(raised.value)
    if x.ndim == 4 and len(call["output_size"]) == 2 and all(
            0 < v < 64 for v in call["output_size"]) and x.size < 64:
        out = np.full((*x.shape[:2], *call["output_size"]), 5.0, np.float32)
        if call.get("format") == "nhwc":
            out = out.transpose(0, 2, 3, 1).copy()
        with pytest.raises(au.AclnnError):
            FORWARD[op](x, **call, out=out)
        assert np.all(out == 5.0)


def test_forward_out_errors():
    x = np.ones((1, 1, 4, 4), np.float32)
    # out aliasing x (same shape: an identity resize).
    with pytest.raises(au.AclnnError) as raised:
        au.upsample_bilinear2d(x, [4, 4], out=x)
    assert raised.value.status == au.ACLNN_ERR_PARAM_INVALID
    for bad in (np.zeros((1, 1, 2, 2), np.float16), np.zeros((1, 1, 2, 3), np.float32),
                np.zeros((1, 2, 2, 2), np.float32)):
        for op in FORWARD.values():
            with pytest.raises(au.AclnnError) as raised:
                op(x, [2, 2], out=bad)
            assert "out" in str(raised.value)
            assert not bad.any()


@pytest.mark.parametrize("op", FORWARD)
@pytest.mark.parametrize("in_hw,out_hw,align,scales", [
    ((5, 7), (9, 4), False, (0.0, 0.0)),
    ((6, 6), (6, 6), False, (1.5, 0.0)),  # the AA operator uses the scale of an unchanged axis
    ((8, 5), (3, 11), True, (0.0, 0.0)),
    ((10, 10), (25, 25), False, (2.4, 2.6)),  # bilinear: inconsistent scales, in/out
])
def test_forward_and_backward_are_exactly_transposed(op, in_hw, out_hw, align, scales):
    # The dense matrices, one column per one-hot channel: the forward's (out x in) must be the
    # exact transpose of the backward's (in x out), bit for bit, so that each is the other's
    # gradient.
    n_in, n_out = in_hw[0] * in_hw[1], out_hw[0] * out_hw[1]
    x = np.eye(n_in, dtype=np.float32).reshape(1, n_in, *in_hw)
    g = np.eye(n_out, dtype=np.float32).reshape(1, n_out, *out_hw)
    forward = FORWARD[op](x, list(out_hw), align, *scales).reshape(n_in, n_out)
    backward = OPS[op](g, list(out_hw), [1, n_out, *in_hw], align, *scales).reshape(n_out, n_in)
    assert np.array_equal(forward, backward.T)
    # And both are the reference's matrix.
    r, m = forward_reference(op, x, out_hw, align, *scales)
    assert_within_contract(forward, r.reshape(n_in, n_out), m.reshape(n_in, n_out))


def test_forward_threads_are_deterministic():
    x = random_grad((4, 8, 50, 61))
    results = {op: [] for op in FORWARD}
    try:
        for threads in (1, 2, 3):
            au.set_num_threads(threads)
            for op, function in FORWARD.items():
                results[op].append(function(x, [96, 128]))
    finally:
        au.set_num_threads(0)
    for op, values in results.items():
        assert all(np.array_equal(v, values[0]) for v in values), op


def test_forward_random_arguments_raise_or_succeed_never_crash():
    rng = np.random.default_rng(13)
    dtypes = [np.float32, np.float16, np.float64, np.int32]
    outcomes = {"ok": 0, "error": 0}
    for _ in range(200):
        ndim = int(rng.choice([4, 4, 4, 3, 0]))
        x = rng.standard_normal(tuple(int(v) for v in rng.integers(0, 7, ndim))).astype(
            rng.choice(dtypes))
        if ndim == 4 and rng.random() < 0.3:
            x = x.transpose(0, 2, 3, 1)
        output_size = [int(v) for v in rng.integers(-1, 9, int(rng.choice([2, 2, 2, 1, 3])))]
        kwargs = dict(align_corners=bool(rng.random() < 0.5),
                      scales_h=float(rng.choice([0.0, -1.0, 0.5, 2.0, 1e-9, 1e9])),
                      scales_w=float(rng.choice([0.0, 3.0, np.inf, np.nan])),
                      format=str(rng.choice(["nchw", "nchw", "nhwc", "nd"])))
        if ndim == 4 and rng.random() < 0.3 and all(0 <= v < 9 for v in output_size):
            kwargs["out"] = np.full(_out_shape(x.shape, output_size), 4.0, x.dtype)
        before = kwargs["out"].copy() if "out" in kwargs else None
        try:
            FORWARD[str(rng.choice(list(FORWARD)))](x, output_size, **kwargs)
            outcomes["ok"] += 1
        except au.AclnnError as error:
            assert error.status in (au.ACLNN_ERR_PARAM_INVALID, au.ACLNN_ERR_PARAM_NULLPTR)
            if before is not None:
                assert np.array_equal(kwargs["out"], before)
            outcomes["error"] += 1
    assert outcomes["ok"] > 0 and outcomes["error"] > 0


def _out_shape(shape, output_size):
    return (*shape[:2], *output_size) if len(output_size) == 2 else shape
