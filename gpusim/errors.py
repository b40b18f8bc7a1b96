"""Every exception gpusim raises, in one hierarchy.

``GpusimError`` is the base.  Bad input raises :class:`InvalidArgument`, which is also a
``ValueError`` (or :class:`InvalidArgumentType`, also a ``TypeError``), so callers may catch
either.  Bugs that the simulator finds in a *kernel* derive from :class:`KernelBug`: their
message is laid out per thread and ends with the replay token.  A failure that can only be a
mistake in gpusim itself raises :class:`GpusimInternalError`.
"""

from __future__ import annotations

__all__ = [
    "BackendUnavailable",
    "BarrierDivergence",
    "CollectiveDivergence",
    "DataRace",
    "Deadlock",
    "GpusimError",
    "GpusimInternalError",
    "InsufficientDeviceMemory",
    "InvalidArgument",
    "InvalidArgumentType",
    "InvariantViolation",
    "KernelBug",
    "KernelFault",
    "KernelSyntaxError",
    "Livelock",
    "OutOfBounds",
    "OutOfTime",
    "OutputNotWritten",
    "ReplayMismatch",
    "UninitialisedRead",
    "WorkerLost",
]


class GpusimError(Exception):
    """Base class of every exception raised by gpusim."""


class InvalidArgument(GpusimError, ValueError):
    """An argument has a bad value; the message names the argument and shows the value."""


class InvalidArgumentType(InvalidArgument, TypeError):
    """An argument has the wrong type; the message names the argument and shows its type."""


class InsufficientDeviceMemory(InvalidArgument):
    """The input does not fit in the GPU's free memory; raised before any copy, naming the bytes
    needed, the bytes free and what to run instead (``backend="cpu"``, a smaller algorithm)."""


class BackendUnavailable(GpusimError, RuntimeError):
    """A backend cannot run here: a package, driver or GPU is missing (the message says which)."""


class OutputNotWritten(GpusimError, OSError):
    """A result could not be written after the work was done (a full disk, a place that refuses files).

    The message names the path the user gave (or standard output) and the system's reason; nothing
    partial is left behind.  The command line exits 1: the run itself succeeded.

    >>> str(OutputNotWritten("x.png", "No space left on device"))
    "cannot write 'x.png': No space left on device"
    """

    def __init__(self, path: str, reason: str):
        self.path, self.reason = path, reason
        super().__init__(f"cannot write {path!r}: {reason}" if path != "<stdout>"
                         else f"cannot write the result to standard output: {reason}")

    def __str__(self) -> str:
        return str(self.args[0])


class WorkerLost(BackendUnavailable):
    """A process that held part of a computation over several devices (a Dask worker) went away mid-run: the
    message names it; no partial answer is returned."""


class KernelSyntaxError(InvalidArgument):
    """A kernel uses a construct outside the portable subset of the language ``T``.

    ``violations`` holds ``(filename, line, rule)`` triples, one per offending construct.
    """

    def __init__(self, message: str, violations: list[tuple[str, int, str]] | None = None):
        super().__init__(message)
        self.violations = list(violations or [])


class KernelFault(GpusimError, RuntimeError):
    """A kernel failed while running on a GPU (an illegal address, a trap); the message has the driver's words."""


class ReplayMismatch(InvalidArgument):
    """A replay token does not fit the launch it is replayed on (other kernel, grid or block)."""


class KernelBug(GpusimError):
    """A bug in a kernel, found by the simulator.

    Attributes
    ----------
    token:
        The replay token of the run that failed; ``gpusim.explore.replay`` or
        ``Device("sim", schedule=token)`` reproduces it exactly.
    trace:
        The events of the run up to the failure (empty when tracing was off).
    """

    def __init__(self, message: str, *, token: str | None = None, trace: list | None = None):
        self.summary = message
        self.token = token
        self.trace = list(trace or [])
        super().__init__(self._render())

    def _render(self) -> str:
        text = self.summary
        if self.token:
            text += f"\nreplay: Device('sim', schedule={self.token!r})"
        return text

    def with_token(self, token: str, trace: list | None = None) -> KernelBug:
        """Attach the replay token (and trace) once the simulator knows them."""
        self.token = token
        if trace is not None:
            self.trace = list(trace)
        self.args = (self._render(),)
        return self

    def __str__(self) -> str:
        return self._render()


class OutOfBounds(KernelBug, IndexError):
    """A kernel read or wrote outside an array (a negative index included)."""


class UninitialisedRead(KernelBug):
    """A kernel read a shared- or local-memory element that no thread had written."""


class BarrierDivergence(KernelBug):
    """Threads of one block did not all reach the same ``syncthreads``."""


class CollectiveDivergence(KernelBug):
    """Lanes of one warp did not all reach the same shuffle, vote or ``syncwarp``."""


class Deadlock(KernelBug):
    """Every live thread is blocked and none can ever proceed."""


class Livelock(KernelBug):
    """Threads ran past the step budget without progress (probably spinning on a flag)."""


class OutOfTime(GpusimError):
    """A simulated run passed its wall-clock deadline (``Device("sim", deadline=...)``): not a bug of the kernel,
    the caller's time limit; the run stops at the next launch or periodic check."""


class DataRace(KernelBug):
    """Two unordered accesses to one address, at least one a plain write (``Device("sim", races="raise")``).

    ``report`` is the :class:`~gpusim.backends.sim.races.RaceReport`: hazard kind, array, index and
    both accesses.
    """

    def __init__(self, message: str, *, report=None, token: str | None = None, trace: list | None = None):
        self.report = report
        super().__init__(message, token=token, trace=trace)


class InvariantViolation(KernelBug):
    """An algorithm's invariant (from its paper) failed between kernels: a race its repair missed."""


class GpusimInternalError(GpusimError, AssertionError):
    """An inconsistency that can only be a bug in gpusim itself; please report it."""

    def __init__(self, message: str):
        super().__init__(f"[gpusim internal bug] {message} -- this is a bug in gpusim, please report it")
