"""mkdocs hook (``hooks:`` in mkdocs.yml): every image a page shows must be a file of the
site. A missing one is a warning, so ``mkdocs build --strict`` fails on it; mkdocs itself
says nothing of an image written as raw HTML, and only logs (at info level) an image whose
file is excluded from the site."""

from __future__ import annotations

import logging
import posixpath
import re

log = logging.getLogger("mkdocs.hooks.images")

_IMG = re.compile(r"<img\b[^>]*?\bsrc=(['\"])(.*?)\1", re.IGNORECASE | re.DOTALL)
_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)


def on_page_content(html, page, config, files):
    """Warns for each ``<img src>`` of the rendered page that no file of the site provides
    (sources are relative to the page's URL at this point)."""
    shipped = {
        f.dest_uri
        for f in files
        if not (getattr(f, "inclusion", None) is not None and f.inclusion.is_excluded())
    }
    base = posixpath.dirname(page.file.dest_uri)
    for _, src in _IMG.findall(html):
        if _EXTERNAL.match(src):
            continue
        path = src.split("#", 1)[0].split("?", 1)[0]
        if not path:
            continue
        target = (
            posixpath.normpath(posixpath.join(base, path))
            if not path.startswith("/")
            else path.lstrip("/")
        )
        if target not in shipped:
            log.warning("%s shows the image %r, which is not in the site", page.file.src_uri, src)
    return html
