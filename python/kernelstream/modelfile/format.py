"""The model file: ``kernelstream.save(learner, path)`` and ``kernelstream.load(path)``.

Layout (integers little-endian)::

    12 bytes   MAGIC = b"\\x89KSMODEL\\r\\n\\x1a\\n" (PNG's trick: a text-mode copy breaks it)
    u32        the container's format version (FORMAT_VERSION)
    u64        H, the length of the header
    H bytes    the header: JSON (UTF-8), readable; see below
    u64        B, the length of the blob section
    B bytes    the core states' bytes, one after the other (lengths in the header),
               and a Forecaster's series as float64 (:mod:`.forecasts`)
    32 bytes   SHA-256 of everything before

The header: ``{"format": "kernelstream-model", "format_version", "kernelstream_version"``
(the release that wrote it), ``"components"`` (each core class's state format version,
and those of the Python states: Conformal's, the adapters', the Forecaster's),
``"blobs"`` (their lengths), ``"learner"``: ``{"class", "params", "state"}``
(:mod:`.values`; a Forecaster's node is of the same form, :mod:`.forecasts`)}``. Every
core state also carries its own header and checksum (:mod:`.statebytes`).

Reading checks, before anything is built: the magic, the sizes against the file's
length (nothing is allocated by a size the file states), the digest, the JSON, the
components' versions against this release's; then it builds only classes of the
allow-list (:mod:`.values`), by the path that unpickling takes, with every check of the
states. Any failure is one :class:`~kernelstream.InputError`. No code is run on reading:
there is no pickle in a model file.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct

from ..errors import InputError, KernelstreamError
from . import forecasts
from .objects import ADAPTER_STATE_VERSION, adapter_classes, wrapped_classes
from .values import Reader, Writer, is_learner

MAGIC = b"\x89KSMODEL\r\n\x1a\n"
FORMAT_VERSION = 1
_DIGEST = 32
#: Longest header read (a Mixture of many experts stays far below).
MAX_HEADER = 64 << 20


def dumps(learner) -> bytes:
    """The model file's bytes of ``learner``."""
    from .._core import __version__

    if not is_learner(learner) and not forecasts.is_forecaster(learner):
        raise TypeError(
            "kernelstream.save saves kernelstream learners and Forecasters, not "
            f"{type(learner).__name__}"
        )
    writer = Writer()
    node = writer.learner(learner)
    header = {
        "format": "kernelstream-model",
        "format_version": FORMAT_VERSION,
        "kernelstream_version": __version__,
        "components": dict(sorted(writer.components.items())),
        "blobs": [len(b) for b in writer.blobs],
        "learner": node,
    }
    text = json.dumps(header, indent=1, allow_nan=False).encode()
    blobs = b"".join(writer.blobs)
    body = b"".join([MAGIC, struct.pack("<IQ", FORMAT_VERSION, len(text)), text,
                     struct.pack("<Q", len(blobs)), blobs])  # fmt: skip
    return body + hashlib.sha256(body).digest()


def save(learner, path) -> None:
    """Writes ``learner`` to the model file ``path``, atomically (a temporary file beside
    it, fsync, rename: a reader or a crash sees the old file or the new one whole).

    Parameters
    ----------
    learner : Learner, Conformal, adapter or Forecaster
        Any learner of the registry (Mixture and AutoKernel included), a
        :class:`~kernelstream.Conformal`, a scikit-learn or river adapter
        (``kernelstream.adapters``), or a :class:`~kernelstream.Forecaster` whose
        learner is one of those or None, trained or not (a Forecaster's pending
        forecasts, intervals and experts included: the loaded one goes on as the
        saved one would have).
    path : str or os.PathLike
        The file to write.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import kernelstream as ks
    >>> X = np.random.default_rng(0).uniform(-1, 1, (50, 2)); y = np.sin(X[:, 0])
    >>> m = ks.TaylorAWV(degree=3); m.learn_many(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.ksm")
    >>> ks.save(m, path)
    >>> back = ks.load(path)
    >>> back.n_seen, back.predict_one(X[0]) == m.predict_one(X[0])
    (50, True)
    """
    from .._files import atomic_write

    data = dumps(learner)
    with atomic_write(os.fspath(path), "wb") as fh:
        _write(fh, data)


def _write(fh, data: bytes) -> None:
    fh.write(data)


def load(path):
    """The learner (or Forecaster) saved by :func:`save` in ``path``.

    Runs no code from the file and builds only kernelstream classes. A file that is
    damaged, truncated, of an unknown format or version, or not a kernelstream model
    raises :class:`~kernelstream.InputError` (an unreadable one ``OSError``).

    Examples
    --------
    See :func:`save`.
    """
    path = os.fspath(path)
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        _check_size(path, size)
        data = fh.read(size + 1)
    try:
        return loads(data)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


def _check_size(path, size: int) -> None:
    from .._core import get_memory_limit

    if size > get_memory_limit():
        raise InputError(
            f"{path}: {size} bytes, above the memory limit ({get_memory_limit()} bytes): "
            "not read (kernelstream.set_memory_limit raises it)"
        )


def loads(data: bytes):
    """:func:`load` of the bytes of a model file."""
    header, blobs = _split(data)
    _check_components(header)
    forecasts.check_components(header.get("learner"), header["components"])
    try:
        return Reader(blobs).top(header.get("learner"))
    except RecursionError:
        raise InputError("damaged model file: values nested too deeply") from None
    except InputError:
        raise
    except KernelstreamError as exc:
        raise InputError(f"damaged model file: {exc}") from None


def _split(data: bytes) -> tuple[dict, list]:
    """The header and the blobs, every size checked against the data's length."""
    fixed = len(MAGIC) + 12
    if len(data) < fixed or not data.startswith(MAGIC):
        if data[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"):
            raise InputError("this is a pickle, not a kernelstream model file (kernelstream.save "
                             "writes model files; pickles are only for trusted data)")  # fmt: skip
        raise InputError("not a kernelstream model file (no model file header)")
    version, hlen = struct.unpack_from("<IQ", data, len(MAGIC))
    if version != FORMAT_VERSION:
        raise InputError(
            f"model file of container format {version}; this release reads format {FORMAT_VERSION}"
        )
    rest = len(data) - fixed - 8 - _DIGEST
    if hlen > min(rest, MAX_HEADER):
        raise InputError(
            f"truncated or damaged model file: a header of {hlen} bytes in {len(data)}"
        )
    (blen,) = struct.unpack_from("<Q", data, fixed + hlen)
    if blen != rest - hlen:
        raise InputError(
            f"truncated or damaged model file: {blen} bytes of states declared, "
            f"{rest - hlen} present"
        )
    body, digest = data[:-_DIGEST], data[-_DIGEST:]
    if hashlib.sha256(body).digest() != digest:
        raise InputError("damaged model file: its SHA-256 does not match its contents")
    try:
        header = json.loads(data[fixed : fixed + hlen].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InputError(f"damaged model file: its header is not JSON ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != "kernelstream-model":
        raise InputError("not a kernelstream model file (its header says another format)")
    lengths = header.get("blobs")
    if not isinstance(lengths, list) or not all(type(n) is int and n >= 0 for n in lengths) \
            or sum(lengths) != blen:  # fmt: skip
        raise InputError("damaged model file: the states' lengths do not add up")
    blobs, at = [], fixed + hlen + 8
    for n in lengths:
        blobs.append(data[at : at + n])
        at += n
    return header, blobs


def _check_components(header: dict) -> None:
    """Each core state's format version is this release's, else a message naming the
    component, both versions and the release that wrote the file."""
    from .._core import __version__, registry
    from ..learners import conformal

    ours = {e["core_class"]: e["state_version"] for e in registry()}
    ours["Conformal"] = conformal._STATE_VERSION
    ours.update(dict.fromkeys(adapter_classes(), ADAPTER_STATE_VERSION))
    wrapped = [*wrapped_classes().values(), *forecasts.rule_classes().values()]
    ours.update({c._core_class.__name__: int(c._core_class._state_version()) for c in wrapped})
    ours["Forecaster"] = forecasts.FORECASTER_STATE_VERSION
    wrote = header.get("kernelstream_version")
    comps = header.get("components")
    if not isinstance(comps, dict):
        raise InputError("damaged model file: no component versions")
    for name, v in comps.items():
        if name in ours and (type(v) is not int or v != ours[name]):
            raise InputError(
                f"model file written by kernelstream {wrote!s} holds a {name} state of format "
                f"version {v}; kernelstream {__version__} reads version {ours[name]}"
            )
