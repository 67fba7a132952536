# SPDX-License-Identifier: MIT
"""HelloFPGAError: a failure of a libhellofpga call, or of an argument the
Python side checks before calling."""
from __future__ import annotations

import errno as _errno
from typing import NoReturn, Optional

from . import _capi


class HelloFPGAError(OSError):
    """A libhellofpga call failed.

    An :class:`OSError`, so ``except OSError`` catches it too, with:

    * ``errno``: the positive errno (``errno.EINVAL``); the C call returned
      its negative,
    * ``name``: the errno's name, ``'EINVAL'``,
    * ``text``: the library's detailed text of the failure
      (``HelloFPGA_GetLastError()``), or the Python side's own for an
      argument it refused before calling,
    * ``function``: the C function (``'HelloFPGA_Open'``) or Python method
      that failed,
    * ``strerror``: ``HelloFPGA_StrError()``'s short description.

    ``str(e)`` is ``"HelloFPGA_Open: ENODEV: <text>"``.
    """

    def __init__(self, err: int, text: str = "",
                 function: Optional[str] = None) -> None:
        err = abs(int(err))
        desc = _capi.strerror(-err)
        # the library's name (EOPNOTSUPP, where Python's errno says ENOTSUP)
        name = desc.split(":", 1)[0]
        if not name.startswith("E") or " " in name:
            name = _errno.errorcode.get(err, f"E{err}")
        super().__init__(err, desc)
        self.name: str = name
        self.text: str = text
        self.function: Optional[str] = function

    def __str__(self) -> str:
        where = f"{self.function}: " if self.function else ""
        text = self.text or self.strerror
        if self.function and text.startswith(self.function + ":"):
            text = text[len(self.function) + 1:].lstrip()   # said once
        return f"{where}{self.name}: {text}"

    def __reduce__(self):  # picklable, e.g. across multiprocessing
        return (type(self), (self.errno, self.text, self.function))


def check(ret: int, function: str, handle: Optional[int] = None,
          text: Optional[str] = None) -> int:
    """Raise HelloFPGAError for a negative @ret, with the last-error text of
    @handle (None: the thread's); return @ret otherwise."""
    if ret >= 0:
        return ret
    if text is None:
        text = _capi.last_error(handle)
    raise HelloFPGAError(ret, text, function)


def fail(err: int, text: str, function: Optional[str] = None) -> NoReturn:
    """Raise HelloFPGAError(@err) for an argument the Python side refuses."""
    raise HelloFPGAError(err, text, function)

