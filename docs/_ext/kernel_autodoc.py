"""Autodoc for ``@kernel`` and ``@device`` functions: the API pages show the kernels, not only the drivers.

A decorated kernel is a :class:`gpusim.language.kernels.Kernel` object, not a function, so autodoc's
function documenter passes it over and a module's page listed its drivers without the code the
tutorials are about.  This documenter takes every ``Kernel`` and ``DeviceFunction`` member: it documents
the plain function the decorator wraps (its signature and docstring), as a ``py:function`` (so
``:func:`` references reach it), and says which decorator it carries, the kernel's parameter types
and the races it declares.  It uses autodoc's class-based documenters
(``autodoc_use_legacy_class_based = True`` in ``conf.py``), the only ones Sphinx 9 lets an extension add.
"""

from __future__ import annotations

from typing import Any

from sphinx.ext.autodoc import FunctionDocumenter

from gpusim.language.kernels import DeviceFunction, Kernel


class KernelDocumenter(FunctionDocumenter):
    """Documents a ``@kernel`` or ``@device`` function as the function it wraps, with what it declares."""

    objtype = "kernelfunction"
    directivetype = "function"
    priority = FunctionDocumenter.priority + 10

    @classmethod
    def can_document_member(cls, member: Any, membername: str, isattr: bool, parent: Any) -> bool:
        return isinstance(member, (Kernel, DeviceFunction))

    def import_object(self, raiseerror: bool = False) -> bool:
        found = super().import_object(raiseerror)
        self.compiled = self.object if isinstance(self.object, (Kernel, DeviceFunction)) else None
        if self.compiled is not None:
            self.object = self.compiled.fn
        return found

    def add_content(self, more_content: Any) -> None:
        super().add_content(more_content)
        compiled, source = self.compiled, self.get_sourcename()
        if compiled is None:
            return
        self.add_line("", source)
        if isinstance(compiled, Kernel):
            signature = f" (``signature=\"{_signature(compiled)}\"``)" if compiled.signature else ""
            self.add_line(f"A ``@kernel``{signature}: launch it with :meth:`gpusim.Device.launch`.", source)
        else:
            self.add_line("A ``@device`` function: kernels call it; it runs on every backend.", source)
        for array, why in getattr(compiled, "intended_races", {}).items():
            self.add_line("", source)
            self.add_line(f"Declared race on ``{array}``: {why}", source)


def _signature(compiled: Kernel) -> str:
    """The kernel's parameter types as ``signature=`` spells them."""
    return ", ".join(str(param) for param in compiled.signature)


def setup(app):
    app.setup_extension("sphinx.ext.autodoc")
    app.add_autodocumenter(KernelDocumenter)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
