"""Shims over cupyx.jit internals: the members of ``T`` that ``cupyx.jit`` lacks or gets wrong.

``cupyx.jit`` resolves ``T.<member>`` at transpile time; a member that is an instance of
``cupyx.jit._internal_types.BuiltinFunc`` is asked to emit CUDA C++ for the call.  Each class
below is such a builtin, written against these cupyx internals:

- ``cupyx.jit._internal_types``: ``BuiltinFunc``, ``Data`` (code + C type), ``Constant``;
- ``cupyx.jit._cuda_types``: ``Scalar``, ``Ptr``, ``ArrayBase``, ``void``, ``int32``, ``uint32``;
- ``cupyx.jit._compile``: ``_astype_scalar``, ``_indexing``, ``Environment.decls/locals``,
  ``Environment.get_fresh_variable_name``, ``Environment.generated.add_code``;
- ``cupyx.jit.shared_memory.call_const`` (for ``shared_array``).

They were written and tested against **CuPy 14.2.0** (cupy-cuda12x here, cupy-cuda13x on the GPU
machine): :data:`TESTED_CUPY_VERSIONS`.  The CuPy backend warns once on any other version.

What each shim fixes (see DESIGN.md, "The kernel language T"):

- indices: cupyx's ``threadIdx.x`` etc. are ``uint32`` (``tid - 1`` wraps); ``T``'s are ``int32``;
- ``threadfence``, ``ballot``/``any``/``all``: absent from cupyx;
- shuffles: cupyx wants the mask as a constant argument and the delta as ``uint32``; ``T``'s
  shuffles use the full mask and take any integer lane argument;
- warp reductions: absent from cupyx; emitted as the butterfly of ``__shfl_xor_sync`` (a helper);
- atomics: cupyx refuses ``int64`` and float ``min``/``max``; here they are emitted through
  ``unsigned long long`` casts and compare-and-swap loops (helpers prefixed ``gpusim_``).
  ``atomic_load`` is ``atomicOr(&x, 0)``: a real atomic read that is never hoisted.  The
  values convert to the array's type as in numba (cupyx would refuse ``int64`` into ``uint32``);
- ``local_array``: absent from cupyx; declared as a plain C array of the function;
- ``shared_array(size, dtype)``: cupyx's ``shared_memory(dtype, size)`` with ``T``'s order and dtypes;
- casts: ``numpy.uint32(-1)`` raises in NumPy 2 while cupyx folds constant casts with it; ``T``'s
  casts wrap constants as C does, and double as dtypes.

Example
-------
>>> from gpusim.backends.cupy_shims import Cast
>>> i32 = Cast("i32", "int32")
>>> i32(2**31), i32.dtype
(-2147483648, dtype('int32'))
"""

from __future__ import annotations

import numpy as np
from cupyx.jit import _compile, _cuda_types
from cupyx.jit import shared_memory as _cupyx_shared_memory
from cupyx.jit._internal_types import BuiltinFunc, Constant, Data

__all__ = [
    "ATOMIC_DTYPES",
    "TESTED_CUPY_VERSIONS",
    "Atomic",
    "Cast",
    "Index",
    "LocalArray",
    "Reduce",
    "SharedArray",
    "Shuffle",
    "Statement",
    "Vote",
]

#: CuPy versions these shims were tested against (transpile and NVRTC here, launches on a GPU).
TESTED_CUPY_VERSIONS = ("14.2.0",)

_FULL_MASK = "0xffffffffu"
_SHUFFLE_DTYPES = ("int32", "int64", "float32", "float64")

#: The dtypes each atomic accepts on the GPU backends (numba supports the same set).
ATOMIC_DTYPES = {
    "cas": ("int32", "uint32", "int64", "uint64"),
    "add": ("int32", "uint32", "int64", "uint64", "float32", "float64"),
    "min": ("int32", "uint32", "int64", "uint64", "float32", "float64"),
    "max": ("int32", "uint32", "int64", "uint64", "float32", "float64"),
    "exch": ("int32", "uint32", "int64", "uint64"),
    "load": ("int32", "uint32", "int64", "uint64"),
}

_HELPERS = {
    "i64": """\
__device__ __forceinline__ long long gpusim_atomic_cas_i64(long long* p, long long e, long long n) {
  return (long long)atomicCAS((unsigned long long*)p, (unsigned long long)e, (unsigned long long)n);
}
__device__ __forceinline__ long long gpusim_atomic_add_i64(long long* p, long long v) {
  return (long long)atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
__device__ __forceinline__ long long gpusim_atomic_exch_i64(long long* p, long long v) {
  return (long long)atomicExch((unsigned long long*)p, (unsigned long long)v);
}
__device__ __forceinline__ long long gpusim_atomic_load_i64(long long* p) {
  return (long long)atomicOr((unsigned long long*)p, 0ull);
}""",
    "f32": """\
__device__ __forceinline__ float gpusim_atomic_min_f32(float* address, float val) {
  unsigned int* p = (unsigned int*)address;
  unsigned int old = atomicOr(p, 0u);
  while (val < __uint_as_float(old)) {
    unsigned int assumed = old;
    old = atomicCAS(p, assumed, __float_as_uint(val));
    if (old == assumed) break;
  }
  return __uint_as_float(old);
}
__device__ __forceinline__ float gpusim_atomic_max_f32(float* address, float val) {
  unsigned int* p = (unsigned int*)address;
  unsigned int old = atomicOr(p, 0u);
  while (val > __uint_as_float(old)) {
    unsigned int assumed = old;
    old = atomicCAS(p, assumed, __float_as_uint(val));
    if (old == assumed) break;
  }
  return __uint_as_float(old);
}""",
    "f64": """\
__device__ __forceinline__ double gpusim_atomic_min_f64(double* address, double val) {
  unsigned long long* p = (unsigned long long*)address;
  unsigned long long old = atomicOr(p, 0ull);
  while (val < __longlong_as_double((long long)old)) {
    unsigned long long assumed = old;
    old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(val));
    if (old == assumed) break;
  }
  return __longlong_as_double((long long)old);
}
__device__ __forceinline__ double gpusim_atomic_max_f64(double* address, double val) {
  unsigned long long* p = (unsigned long long*)address;
  unsigned long long old = atomicOr(p, 0ull);
  while (val > __longlong_as_double((long long)old)) {
    unsigned long long assumed = old;
    old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(val));
    if (old == assumed) break;
  }
  return __longlong_as_double((long long)old);
}""",
    "reduce": """\
template <typename V> __device__ __forceinline__ V gpusim_reduce_add(V v) {
  for (int offset = 16; offset > 0; offset /= 2) v = v + __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
template <typename V> __device__ __forceinline__ V gpusim_reduce_max(V v) {
  for (int offset = 16; offset > 0; offset /= 2) { V o = __shfl_xor_sync(0xffffffffu, v, offset); v = o > v ? o : v; }
  return v;
}
template <typename V> __device__ __forceinline__ V gpusim_reduce_min(V v) {
  for (int offset = 16; offset > 0; offset /= 2) { V o = __shfl_xor_sync(0xffffffffu, v, offset); v = o < v ? o : v; }
  return v;
}""",
}

_NATIVE = {"cas": "atomicCAS", "add": "atomicAdd", "min": "atomicMin", "max": "atomicMax", "exch": "atomicExch"}


def _scalar(expr, env) -> Data:
    data = Data.init(expr, env)
    if not isinstance(data.ctype, _cuda_types.Scalar):
        raise TypeError(f"expected a scalar, got {data.code} of type {data.ctype}")
    return data


class Index(BuiltinFunc):
    """An index function of ``T`` (``T.thread_id()`` ...): a C expression of type ``int32``."""

    def __init__(self, name: str, code: str):
        super().__init__()
        self.__name__ = name
        self._code = code

    def __call__(self):
        super().__call__()

    def call_const(self, env):
        return Data(f"((int)({self._code}))", _cuda_types.int32)


class Statement(BuiltinFunc):
    """A ``T`` member that is one C statement without a value, such as ``__threadfence()``."""

    def __init__(self, name: str, code: str):
        super().__init__()
        self.__name__ = name
        self._code = code

    def __call__(self):
        super().__call__()

    def call_const(self, env):
        return Data(self._code, _cuda_types.void)


class Shuffle(BuiltinFunc):
    """``T.shfl_*``: a warp shuffle over the full mask of an i32, i64, f32 or f64 value."""

    _INTRINSICS = {"down": "__shfl_down_sync", "up": "__shfl_up_sync", "xor": "__shfl_xor_sync",
                   "idx": "__shfl_sync"}

    def __init__(self, kind: str):
        super().__init__()
        self.__name__ = f"shfl_{kind}"
        self._intrinsic = self._INTRINSICS[kind]
        self._lane_type = "unsigned int" if kind in ("down", "up") else "int"

    def __call__(self, value, lane):
        super().__call__()

    def call(self, env, value, lane):
        value = _scalar(value, env)
        if value.ctype.dtype.name not in _SHUFFLE_DTYPES:
            raise TypeError(
                f"T.{self.__name__} shuffles {', '.join(_SHUFFLE_DTYPES)} values, got {value.ctype.dtype.name}"
            )
        lane = _scalar(lane, env)
        if lane.ctype.dtype.kind not in "iu":
            raise TypeError(f"the lane argument of T.{self.__name__} must be an integer, got {lane.ctype}")
        code = f"{self._intrinsic}({_FULL_MASK}, {value.code}, ({self._lane_type})({lane.code}))"
        return Data(code, value.ctype)


class Reduce(BuiltinFunc):
    """``T.reduce_add``, ``T.reduce_max``, ``T.reduce_min``: the butterfly of ``__shfl_xor_sync`` over offsets
    16 ... 1 (a helper of ours: CUDA's ``__reduce_*_sync`` take only 32-bit integers)."""

    def __init__(self, kind: str):
        super().__init__()
        self.__name__ = f"reduce_{kind}"

    def __call__(self, value):
        super().__call__()

    def call(self, env, value):
        value = _scalar(value, env)
        if value.ctype.dtype.name not in _SHUFFLE_DTYPES:
            raise TypeError(
                f"T.{self.__name__} reduces {', '.join(_SHUFFLE_DTYPES)} values, got {value.ctype.dtype.name}"
            )
        env.generated.add_code(_HELPERS["reduce"])
        return Data(f"gpusim_{self.__name__}({value.code})", value.ctype)


class Vote(BuiltinFunc):
    """``T.ballot`` (``uint32``), ``T.any`` and ``T.all`` (``int32``) over the full mask."""

    def __init__(self, kind: str):
        super().__init__()
        self.__name__ = kind
        self._intrinsic = {"ballot": "__ballot_sync", "any": "__any_sync", "all": "__all_sync"}[kind]
        self._ctype = _cuda_types.uint32 if kind == "ballot" else _cuda_types.int32

    def __call__(self, predicate):
        super().__call__()

    def call(self, env, predicate):
        predicate = _scalar(predicate, env)
        if predicate.ctype.dtype.kind not in "biu":
            raise TypeError(f"the predicate of T.{self.__name__} must be a bool or an integer, got {predicate.ctype}")
        return Data(f"{self._intrinsic}({_FULL_MASK}, (int)({predicate.code}))", self._ctype)


class Atomic(BuiltinFunc):
    """``T.atomic_<op>(array, index, ...)`` on global, shared or local arrays; returns the old value."""

    def __init__(self, op: str):
        super().__init__()
        self.__name__ = f"atomic_{op}"
        self._op = op
        self._nvalues = {"cas": 2, "load": 0}.get(op, 1)

    def __call__(self, array, index, *values):
        super().__call__()

    def call(self, env, array, index, *values):
        name = self.__name__
        if len(values) != self._nvalues:
            raise TypeError(f"T.{name} takes {2 + self._nvalues} arguments, got {2 + len(values)}")
        array = Data.init(array, env)
        if not isinstance(array.ctype, _cuda_types.ArrayBase):
            raise TypeError(f"the first argument of T.{name} must be an array, got {array.code}")
        target = _compile._indexing(array, index, env)
        ctype = target.ctype
        dtype = ctype.dtype.name
        allowed = ATOMIC_DTYPES[self._op]
        if dtype not in allowed:
            raise TypeError(f"T.{name} supports arrays of {', '.join(allowed)}, got an array of {dtype}")
        # the value converts to the array's type whatever it is, as in numba (and C)
        args = [Data.init(_compile._astype_scalar(_scalar(v, env), ctype, "unsafe", env), env).code for v in values]
        address = f"&({target.code})"
        op = self._op
        if op == "load":
            if dtype == "int64":
                env.generated.add_code(_HELPERS["i64"])
                code = f"gpusim_atomic_load_i64({address})"
            else:
                code = f"atomicOr({address}, ({ctype})0)"
        elif dtype == "int64" and op in ("cas", "add", "exch"):
            env.generated.add_code(_HELPERS["i64"])
            code = f"gpusim_atomic_{op}_i64({address}, {', '.join(args)})"
        elif dtype in ("float32", "float64") and op in ("min", "max"):
            suffix = "f32" if dtype == "float32" else "f64"
            env.generated.add_code(_HELPERS[suffix])
            code = f"gpusim_atomic_{op}_{suffix}({address}, {args[0]})"
        else:
            code = f"{_NATIVE[op]}({address}, {', '.join(args)})"
        return Data(code, ctype)


class Cast(BuiltinFunc):
    """``T.i32`` ... ``T.f64``: an explicit cast in kernels, a dtype for shared and local arrays.

    Integer casts wrap, as C and :mod:`gpusim.language` say, also for constants (which cupyx
    would fold with NumPy, where ``numpy.uint32(-1)`` raises).
    """

    def __init__(self, name: str, dtype: str):
        super().__init__()
        self.__name__ = name
        self.dtype = np.dtype(dtype)
        self.ctype = _cuda_types.Scalar(self.dtype)

    def __repr__(self) -> str:
        return f"T.{self.__name__}"

    def __call__(self, value):
        """Cast ``value`` on the host, as the kernel would (integers wrap)."""
        if self.dtype.kind in "iu":
            bits = 8 * self.dtype.itemsize
            wrapped = int(value) % (1 << bits)
            if self.dtype.kind == "i" and wrapped >= 1 << (bits - 1):
                wrapped -= 1 << bits
            return wrapped
        return float(self.dtype.type(value))

    def call(self, env, value):
        if isinstance(value, Constant) and isinstance(value.obj, (bool, int, float, np.generic)):
            return Constant(self.dtype.type(self(value.obj)))
        return _compile._astype_scalar(_scalar(value, env), self.ctype, "unsafe", env)


def _dtype_of(dtype) -> np.dtype:
    if isinstance(dtype, Constant):
        dtype = dtype.obj
    if isinstance(dtype, Cast):
        return dtype.dtype
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be T.i32, T.i64, T.u32, T.u64, T.f32 or T.f64, got {dtype!r}") from None


def _size_of(size, name: str) -> int:
    if not isinstance(size, Constant) or not isinstance(size.obj, (int, np.integer)) or size.obj < 1:
        raise TypeError(f"the size of T.{name} must be a positive integer constant, got {size!r}")
    return int(size.obj)


class SharedArray(BuiltinFunc):
    """``T.shared_array(size, dtype)``: a block-shared array declared in the enclosing function."""

    __name__ = "shared_array"

    def __call__(self, size, dtype):
        super().__call__()

    def call(self, env, size, dtype):
        return _cupyx_shared_memory.call_const(env, _dtype_of(dtype), _size_of(size, "shared_array"))


class _LocalMem(_cuda_types.ArrayBase):
    """The declaration of a per-thread C array ``T name[size]``."""

    def __init__(self, child_type: _cuda_types.TypeBase, size: int):
        self._size = size
        super().__init__(child_type, 1)

    def declvar(self, x: str, init) -> str:
        assert init is None
        return f"{self.child_type} {x}[{self._size}]"


class LocalArray(BuiltinFunc):
    """``T.local_array(size, dtype)``: a per-thread array, a plain C array of the function."""

    __name__ = "local_array"

    def __call__(self, size, dtype):
        super().__call__()

    def call(self, env, size, dtype):
        ctype = _cuda_types.Scalar(_dtype_of(dtype))
        name = env.get_fresh_variable_name(prefix="_lmem")
        env.decls[name] = env.locals[name] = Data(name, _LocalMem(ctype, _size_of(size, "local_array")))
        return Data(name, _cuda_types.Ptr(ctype))
