# SPDX-License-Identifier: MIT
"""Owned: the lifetime that the objects owning a library resource share
(Card, Pin, GPUBuffer, GPUStream, Stream)."""
from __future__ import annotations

from typing import Any, TypeVar

_T = TypeVar("_T", bound="Owned")


class Owned:
    """A resource of the library that a ``with`` block ends, and the garbage
    collector too, but only in the process that made it: a ``fork()``ed
    child's copy of the object is the parent's resource, which the child
    must not end.  A class defines _owned() and _end()."""

    def _owned(self) -> bool:
        """Whether there is a resource to end and this process made it."""
        raise NotImplementedError

    def _end(self) -> None:
        """End the resource (close, unpin, free, destroy)."""
        raise NotImplementedError

    def __enter__(self: _T) -> _T:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._end()

    def __del__(self) -> None:
        if self._owned():
            try:
                self._end()
            except Exception:
                pass
