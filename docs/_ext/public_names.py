"""Cross-references written as Python reads them: a public alias or a name of the module resolves to its page.

A docstring says ``:class:`gpusim.Device``` (the name users import) or ``:func:`greedy``` (a name its
module imports); autodoc documents each object once, under the module that defines it
(``gpusim.runtime.device.Device``), so Sphinx's Python domain finds neither and nitpicky mode warns.
This handler resolves such a reference the way Python would: it imports the name (as a dotted path,
else from the module and class the docstring belongs to), takes the object's defining name
(``__module__`` and ``__qualname__``; a ``@kernel``'s wrapped function) and links there when that
object is documented; a bare name that names exactly one documented object of its kind links there
(as ``:func:`.name``` would).  Nothing else is resolved: a name Python cannot find, or an object the API
pages do not document, still warns.
"""

from __future__ import annotations

import importlib
from typing import Any

from docutils import nodes

_MISSING = object()


def _import(dotted: str) -> Any:
    """The object at ``dotted`` (a module, then attributes), or ``_MISSING``."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001 - any failure to import means "not this prefix"
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name, _MISSING)
            if obj is _MISSING:
                return _MISSING
        return obj
    return _MISSING


def _candidates(target: str, module: str | None, klass: str | None) -> list[str]:
    """Where Python would look for ``target`` written in a docstring of ``module`` (and ``klass``)."""
    target = target.lstrip("~.")
    found = [target]
    if module:
        if klass:
            found.append(f"{module}.{klass}.{target}")
        found.append(f"{module}.{target}")
    return found


def _defining_name(obj: Any) -> str | None:
    """``module.qualname`` of the object, where autodoc documents it."""
    obj = getattr(obj, "fn", obj) if type(obj).__name__ in ("Kernel", "DeviceFunction") else obj
    if isinstance(obj, type(importlib)):
        return obj.__name__
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else None


def _resolve(app, env, node: nodes.Element, contnode: nodes.Element):
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    for candidate in _candidates(node["reftarget"], node.get("py:module"), node.get("py:class")):
        obj = _import(candidate)
        if obj is _MISSING:
            continue
        for name in dict.fromkeys((_defining_name(obj), candidate)):
            if name is None or name == node["reftarget"]:
                continue
            for reftype in dict.fromkeys((node["reftype"], "obj")):
                found = domain.resolve_xref(env, node["refdoc"], app.builder, reftype, name, node, contnode)
                if found is not None:
                    return found
    return _unique_suffix(app, env, node, contnode, domain)


def _unique_suffix(app, env, node: nodes.Element, contnode: nodes.Element, domain):
    """A name (``greedy``, ``WeightedGraph.from_scipy``) that ends exactly one documented object's full name, of its
    kind, as ``.greedy`` would find it."""
    target = node["reftarget"].lstrip("~.")
    if target.startswith("gpusim."):
        return None
    kinds = domain.objtypes_for_role(node["reftype"]) or []
    found = [name for name, entry in domain.objects.items()
             if name.endswith(f".{target}") and entry.objtype in kinds]
    if len(found) != 1:
        return None
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], found[0], node, contnode)


def setup(app):
    app.connect("missing-reference", _resolve)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
