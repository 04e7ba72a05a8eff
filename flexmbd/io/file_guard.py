"""Guarding a results file while a run writes it, and before anything replaces it.

Why a lock of our own.  HDF5 locks a file only *after* it has opened it, and opening
for writing (``"w"``) truncates it first: a second run aimed at a file that a live run
writes used to truncate that live file to 0 bytes before HDF5's lock check failed.  So
the writer takes an exclusive advisory lock (``flock``) on the path *before* HDF5
touches it, and opens it with HDF5's own locking off while holding that lock.  HDF5
uses ``flock`` too, so other HDF5 programs (h5py, HDFView) see the file as locked just
as before; readers of a live file fall back to reading without the lock (see
:func:`flexmbd.io.results_h5.load_result`).  The lock goes with the process: a killed
run leaves no stale lock behind.

Where ``fcntl`` does not exist (Windows) there is no lock of our own and HDF5's
locking is used as it is.
"""
from __future__ import annotations

import errno
import os

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None


class FileBusyError(OSError):
    """The file is locked by another process (a live run, or another HDF5 program)."""


class WriteLock:
    """An exclusive lock on ``path``, taken without truncating or changing the file.

    ``create``: create the file (empty) when it does not exist; ``self.created`` tells
    whether this lock did, so a caller that gives up can remove what it made.
    Raises :class:`FileBusyError` when another process holds a lock on the file, and
    the OSError of ``open`` (PermissionError, FileNotFoundError...) when it cannot be
    opened for writing.
    """

    def __init__(self, path: str | os.PathLike, create: bool = True):
        self.path = os.fspath(path)
        self.created = False
        self.fd: int | None = None
        if fcntl is None:  # pragma: no cover
            return
        flags = os.O_RDWR | (os.O_CREAT if create else 0)
        existed = os.path.exists(self.path)
        fd = os.open(self.path, flags, 0o666)
        self.created = create and not existed
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise FileBusyError(exc.errno, "locked by another process", self.path) from None
            raise
        self.fd = fd

    @property
    def held(self) -> bool:
        return self.fd is not None

    def release(self) -> None:
        """Unlock and close (idempotent)."""
        if self.fd is not None:
            fd, self.fd = self.fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def discard(self) -> None:
        """Release, and remove the file if this lock created it (nothing was written)."""
        created = self.created
        self.release()
        if created:
            try:
                os.remove(self.path)
            except OSError:
                pass

    def __enter__(self) -> WriteLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def os_reason(exc: BaseException) -> str:
    """An OSError as a short plain reason ("Permission denied", "No space left on
    device"), without HDF5's internal details (flags, o_flags, error stacks)."""
    if isinstance(exc, FileBusyError):
        return "locked by another process"
    code = getattr(exc, "errno", None)  # h5py raises RuntimeError too, without errno
    if code in (errno.EAGAIN, errno.EWOULDBLOCK):
        return "locked by another process"
    if code:
        return os.strerror(code)
    text = " ".join(str(exc).split())
    low = text.lower()
    for marker, plain in (("permission denied", os.strerror(errno.EACCES)),
                          ("errno = 27", os.strerror(errno.EFBIG)), ("errno = 28", os.strerror(errno.ENOSPC)),
                          ("no space left", os.strerror(errno.ENOSPC)),
                          ("file too large", os.strerror(errno.EFBIG)),
                          ("unable to lock", "locked by another process")):
        if marker in low:
            return plain
    return text.split(" (")[0] if "flags =" in text else text


__all__ = ["WriteLock", "FileBusyError", "os_reason"]
