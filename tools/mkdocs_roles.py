"""mkdocs hook (``hooks:`` in mkdocs.yml): the docstrings' Sphinx cross-reference roles
(``:meth:`x```, ``:class:`~a.B```, ...), which mkdocstrings' numpy style does not read and
would show as raw text, rendered as the code they name (``x``, ``B``: a ``~`` keeps the
last component, as Sphinx does)."""

from __future__ import annotations

import re

# in the rendered HTML a role reads  :meth:<code>name</code>
_ROLE = re.compile(
    r":(?:py:)?(?:meth|attr|class|func|mod|data|exc|obj|const):<code>(~?)([^<]*)</code>"
)


def _code(m: re.Match) -> str:
    name = m.group(2)
    if m.group(1):
        name = name.rsplit(".", 1)[-1]
    return f"<code>{name}</code>"


def on_page_content(html, page, config, files):
    return _ROLE.sub(_code, html)
