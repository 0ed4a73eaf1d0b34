"""Exceptions raised for the C ABI's error statuses; str() is the C message."""


class GeError(Exception):
    """A failed ge call. `status` is the C status name ("GE_INVALID_ARGUMENT", ...)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class InvalidArgumentError(GeError, ValueError):
    pass


class InvalidModelError(GeError):
    pass


class UnsupportedError(GeError):
    pass


class NotFoundError(GeError):
    pass


class IoError(GeError, OSError):
    pass


class InternalError(GeError):
    pass


class OutOfMemoryError(GeError, MemoryError):
    pass


# By ge_status value (include/ge_c/ge_c.h).
_BY_STATUS = {
    1: ("GE_INVALID_ARGUMENT", InvalidArgumentError),
    2: ("GE_INVALID_MODEL", InvalidModelError),
    3: ("GE_UNSUPPORTED", UnsupportedError),
    4: ("GE_NOT_FOUND", NotFoundError),
    5: ("GE_IO_ERROR", IoError),
    6: ("GE_INTERNAL", InternalError),
    7: ("GE_OUT_OF_MEMORY", OutOfMemoryError),
}


def error_for(status, message):
    """The exception for a non-zero status."""
    name, cls = _BY_STATUS.get(status, (f"GE_STATUS_{status}", GeError))
    return cls(name, message)
