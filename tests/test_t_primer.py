"""The page "T in ten examples" (docs/t-primer.rst): its kernels compile for both GPU backends, its table is complete.

tests/test_docs.py runs the page's code blocks and checks their output; here the kernels the page
defines are written to a module (the GPU compilers read a kernel's source file) and compiled
headless, and the table is checked to list every member of ``T``.
"""

from __future__ import annotations

import doctest
import importlib.metadata
import importlib.util
import re
import sys
from pathlib import Path

import pytest

from gpusim.language import MEMBERS
from gpusim.language.kernels import Kernel
from gpusim.runtime.compile import compile_all

PAGE = Path(__file__).resolve().parent.parent / "docs" / "t-primer.rst"


def _page_kernels(tmp_path: Path) -> list[Kernel]:
    """The kernels the page defines: its imports and ``@kernel`` examples, imported as a module."""
    examples = doctest.DocTestParser().get_examples(PAGE.read_text())
    definitions = [e.source for e in examples if e.source.startswith(("import ", "from ", "@kernel"))]
    path = tmp_path / "t_primer_page.py"
    path.write_text("".join(definitions))
    spec = importlib.util.spec_from_file_location("t_primer_page", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return [value for value in vars(module).values() if isinstance(value, Kernel)]


def test_the_page_defines_at_least_ten_kernels_all_signed(tmp_path):
    kernels = _page_kernels(tmp_path)
    assert len(kernels) >= 10
    assert all(k.signature is not None for k in kernels), [k.name for k in kernels if k.signature is None]


def _compiler_installed(backend: str) -> bool:
    if backend == "cupy":
        return importlib.util.find_spec("cupyx") is not None
    try:
        importlib.metadata.version("numba-cuda")  # numba's own numba.cuda imports without it
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.parametrize("backend", ["numba", "cupy"])
def test_every_kernel_of_the_page_compiles_headless(tmp_path, backend):
    if not _compiler_installed(backend):
        pytest.skip(f"the {backend} compiler is not installed here")
    results = compile_all(_page_kernels(tmp_path), backends=(backend,))
    failed = [f"{r.name}: {r.error}" for r in results if not r.ok]
    assert failed == [], "\n\n".join(failed)


def test_the_table_gives_every_member_of_T_once():
    rows = re.findall(r"^   \* - ``T\.(\w+)\(", PAGE.read_text(), flags=re.MULTILINE)
    assert sorted(rows) == sorted(MEMBERS)
