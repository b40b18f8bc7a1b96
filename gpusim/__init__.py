"""gpusim: teach and test GPU graph-matching algorithms.

Write a kernel once against the language ``T``; run it on the deterministic interleaving
simulator (``Device("sim")``), on Numba CUDA (``Device("numba")``) or on CuPy
(``Device("cupy")``).

>>> import numpy as np
>>> from gpusim import Device, T, kernel
>>> @kernel
... def count(counter, n):
...     i = T.gtid()
...     if i < n:
...         counter[0] = counter[0] + 1        # a racy read-modify-write
>>> dev = Device("sim", policy="random", seed=7)
>>> c = dev.zeros(1, np.int32)
>>> run = dev.launch(count, grid=2, block=32, args=(c, np.int32(64)))
>>> int(dev.to_host(c)[0]) < 64                # updates were lost
True
"""

from gpusim import errors
from gpusim.errors import GpusimError, InvalidArgument
from gpusim.language import interface as T
from gpusim.language.kernels import device, kernel
from gpusim.runtime.device import Device

__version__ = "0.1.0"

__all__ = ["Device", "GpusimError", "InvalidArgument", "T", "__version__", "device", "errors", "kernel"]
