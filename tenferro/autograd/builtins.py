"""``autograd.builtins``: autograd boxes its containers; tenferro's transforms take Python's
own tuples, lists and dicts as pytrees, so these are Python's."""

import builtins as _python

dict, isinstance, list, tuple, type = _python.dict, _python.isinstance, _python.list, _python.tuple, _python.type

__all__ = ["dict", "isinstance", "list", "tuple", "type"]
