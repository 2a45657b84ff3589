"""griffe extension (mkdocs.yml, the mkdocstrings handler's ``extensions``): a learner
face's ``name = core_attr(kind, "doc", ...)`` (``kernelstream.learners._declared``) is a
read-only property of type ``kind`` (``kind | None`` where ``optional=True``) documented
by ``doc``, in the API reference as a written ``@property`` would be. Static analysis
sees only a call; this gives the attribute the docstring, annotation and label the call
declares. ``tests/python/test_core_attrs.py`` checks it on every registered learner.
"""

from __future__ import annotations

import ast

import griffe


class CoreAttrs(griffe.Extension):
    def on_attribute_instance(self, *, node, attr, **kwargs) -> None:
        call = getattr(node, "value", None)
        if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "core_attr"):
            return
        if len(call.args) < 2 or not isinstance(call.args[1], ast.Constant):
            return
        kind = ast.unparse(call.args[0])
        if any(k.arg == "optional" and getattr(k.value, "value", False) for k in call.keywords):
            kind += " | None"
        attr.docstring = griffe.Docstring(call.args[1].value, parent=attr)
        attr.annotation = kind
        attr.labels = {"property", "readonly"}
        attr.value = None
