"""One table of bad arguments for every public function: each gets a clear error naming it."""

from __future__ import annotations

import numpy as np
import pytest
import sim_kernels as K

from gpusim import Device, kernel
from gpusim.backends.sim import PCT, Preemptions, decode_token
from gpusim.errors import InvalidArgument, InvalidArgumentType, ReplayMismatch
from gpusim.teaching.demo import find_lost_update
from gpusim.testing.strategies import schedules

dev = Device("sim", policy="sequential")
array = dev.zeros(4, np.int32)


def _kernel_with(signature):
    def k(a, n):
        a[0] = n

    return kernel(k, signature=signature)


CASES = [
    # (what, call, exception, fragment of the message)
    ("unknown backend", lambda: Device("gpu"), InvalidArgument, "backend='gpu'"),
    ("backend not a string", lambda: Device(3), InvalidArgumentType, "backend must be a string"),
    ("unknown policy", lambda: Device("sim", policy="fifo"), InvalidArgument, "policy='fifo'"),
    ("policy not a name", lambda: Device("sim", policy=3), InvalidArgumentType, "policy must be"),
    ("seed not an int", lambda: Device("sim", seed="x"), InvalidArgumentType, "seed must be a non-negative integer"),
    ("trace not a bool", lambda: Device("sim", trace="yes"), InvalidArgumentType, "trace must be"),
    ("zero step budget", lambda: Device("sim", max_steps=0), InvalidArgument, "max_steps=0"),
    ("unknown option", lambda: Device("sim", polcy="random"), TypeError, "polcy"),
    ("GPU backend with options", lambda: Device("numba", policy="random"), InvalidArgument, "takes no options"),
    ("not a token", lambda: Device("sim", schedule="abc"), InvalidArgument, "not a gpusim replay token"),
    ("damaged token", lambda: Device("sim", schedule="gs1-zzzz"), InvalidArgument, "damaged"),
    ("token not a string", lambda: decode_token(5), InvalidArgumentType, "replay token is a string"),
    ("negative length", lambda: dev.zeros(-1), InvalidArgument, "n=-1"),
    ("fractional length", lambda: dev.zeros(2.5), InvalidArgumentType, "2.5"),
    ("unsupported dtype", lambda: dev.zeros(3, np.int8), InvalidArgument, "dtype='int8'"),
    ("not a dtype", lambda: dev.zeros(3, "nope"), InvalidArgumentType, "'nope' is not a NumPy dtype"),
    ("non-numeric fill", lambda: dev.full(3, "a"), InvalidArgumentType, "'a'"),
    ("2-D array", lambda: dev.array(np.zeros((2, 2), np.int32)), InvalidArgument, "shape (2, 2)"),
    ("string array", lambda: dev.array(np.array(["a"])), InvalidArgument, "dtype='str32'"),
    ("to_host of a host array", lambda: dev.to_host(np.zeros(3)), InvalidArgumentType, "ndarray"),
    ("launch a plain function", lambda: dev.launch(print, 1, 1, ()), InvalidArgumentType, "@kernel"),
    ("zero grid", lambda: dev.launch(K.racy_count, 0, 1, (array, 1)), InvalidArgument, "grid=0"),
    ("fractional block", lambda: dev.launch(K.racy_count, 1, 1.5, (array, 1)), InvalidArgumentType, "1.5"),
    ("huge block", lambda: dev.launch(K.racy_count, 1, 2048, (array, 1)), InvalidArgument, "block=2048"),
    ("args not a tuple", lambda: dev.launch(K.racy_count, 1, 1, "ab"), InvalidArgumentType, "tuple"),
    ("too few args", lambda: dev.launch(K.racy_count, 1, 1, (array,)), InvalidArgument, "takes 2 arguments"),
    ("host array argument", lambda: dev.launch(K.racy_count, 1, 1, (np.zeros(4, np.int32), 1)),
     InvalidArgumentType, "copy it to the device first"),
    ("array of the wrong dtype", lambda: dev.launch(K.racy_count, 1, 1, (dev.zeros(4, np.int64), 1)),
     InvalidArgumentType, "array of int64, but the signature says int32[:]"),
    ("scalar where an array goes", lambda: dev.launch(K.racy_count, 1, 1, (3, 1)), InvalidArgumentType,
     "must be a device array of int32"),
    ("scalar too large for int32", lambda: dev.launch(K.racy_count, 1, 1, (array, 2**40)), InvalidArgument,
     "does not fit in int32"),
    ("fractional integer scalar", lambda: dev.launch(K.racy_count, 1, 1, (array, 1.5)), InvalidArgumentType,
     "must be an integer"),
    ("infinite float scalar", lambda: dev.launch(_kernel_with("float64[:], float64"), 1, 1,
                                                 (dev.zeros(1, np.float64), float("inf"))), InvalidArgument,
     "argument 'n'=inf is not finite"),
    ("NaN float scalar", lambda: dev.launch(_kernel_with("float64[:], float64"), 1, 1,
                                            (dev.zeros(1, np.float64), float("nan"))), InvalidArgument,
     "argument 'n'=nan is not finite"),
    ("scalar too large for float32", lambda: dev.launch(_kernel_with("float32[:], float32"), 1, 1,
                                                        (dev.zeros(1, np.float32), 1e300)), InvalidArgument,
     "argument 'n'=1e+300 does not fit in float32"),
    ("string scalar", lambda: dev.launch(K.racy_count, 1, 1, (array, "1")), InvalidArgumentType,
     "a device array or a number"),
    ("signature too short", lambda: _kernel_with("int32[:]"), InvalidArgument, "1 types for 2 parameters"),
    ("unknown signature type", lambda: _kernel_with("int32[:], int8"), InvalidArgument, "'int8'"),
    ("signature not a string", lambda: _kernel_with(["int32"]), InvalidArgumentType, "signature must be"),
    ("kernel of a non-function", lambda: kernel(42), InvalidArgumentType, "plain Python function"),
    ("PCT depth 0", lambda: PCT(depth=0), InvalidArgument, "depth=0"),
    ("PCT steps 0", lambda: PCT(steps=0), InvalidArgument, "steps=0"),
    ("bad preemption", lambda: Preemptions([(1,)]), InvalidArgument, "(step, choice)"),
    ("negative preemption", lambda: Preemptions([(1, -2)]), InvalidArgument, "(1, -2)"),
    ("schedules with negative bound", lambda: schedules(max_preemptions=-1), InvalidArgument, "max_preemptions=-1"),
    ("demo with one thread", lambda: find_lost_update(threads=1), InvalidArgument, "threads=1"),
    ("replay on another kernel", lambda: Device("sim", schedule=Device("sim").token).launch(K.racy_count, 1, 1,
     (array, 1)), ReplayMismatch, "holds 0 launch"),
]


@pytest.mark.parametrize("what, call, exception, fragment", CASES, ids=[case[0] for case in CASES])
def test_bad_arguments_get_a_clear_error(what, call, exception, fragment):
    with pytest.raises(exception) as caught:
        call()
    assert fragment in str(caught.value)


def test_a_launch_checks_its_arguments_against_the_kernels_signature_of_now():
    """The fast path's per-kernel plan (made on the first launch) follows a signature given afterwards."""
    k = _kernel_with("int32[:], int32")
    out = dev.zeros(1, np.int32)
    dev.launch(k, 1, 1, (out, 7))
    assert dev.to_host(out).tolist() == [7]
    k.signature = _kernel_with("int64[:], int32").signature
    with pytest.raises(InvalidArgumentType, match="array of int32, but the signature says int64"):
        dev.launch(k, 1, 1, (out, 7))
    wide = dev.zeros(1, np.int64)
    dev.launch(k, 1, 1, (wide, 2**31 - 1))
    assert dev.to_host(wide).tolist() == [2**31 - 1]
    with pytest.raises(InvalidArgument, match="does not fit in int32"):
        dev.launch(k, 1, 1, (wide, 2**31))
