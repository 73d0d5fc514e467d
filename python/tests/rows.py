"""The library's operator table as the tests iterate it: rows, their adjoints, and the arguments
each row's function (and custom op) takes."""

import aclnn_upsample as au

ROWS = au._core.operators()
FUNCTIONS = au._row_functions()  # row name -> (function name, function)

# F.interpolate's (mode, antialias) -> the table's mode
INTERPOLATE_MODES = {("nearest", False): "nearest", ("nearest-exact", False): "nearest_exact",
                     ("bicubic", False): "bicubic", ("bilinear", True): "bilinear_aa",
                     ("bicubic", True): "bicubic_aa", ("bilinear", False): "bilinear"}


def row_id(row):
    return row["name"]


def first_row(mode, forward):
    """The first row of a mode and direction: what PyTorch's op of those is routed to."""
    return next(r for r in ROWS if r["mode"] == mode and r["forward"] == forward)


def adjoint(row):
    """The first row of the same mode and the other direction (aclnn_upsample_adjoint_operator)."""
    return first_row(row["mode"], not row["forward"])


def args_of(row, source, output_size, input_size, align=False, scales=(0.0, 0.0)):
    """The positional arguments of `row`'s function and custom op: only those the row has."""
    args = [source, list(output_size)]
    if not row["forward"]:
        args.append(list(input_size))
    if row["takes_align_corners"]:
        args.append(align)
    if row["takes_scales"]:
        args += list(scales)
    return tuple(args)


def call(row, source, output_size, input_size, align=False, scales=(0.0, 0.0), **kwargs):
    """Runs `row` through its function, passing only the parameters the row has."""
    function = FUNCTIONS[row["name"]][1]
    return function(*args_of(row, source, output_size, input_size, align, scales), **kwargs)
