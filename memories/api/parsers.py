"""The API's JSON parser."""

from rest_framework import exceptions, parsers

from memories.services.jsonl import TOO_MANY_DIGITS, too_many_digits

# Deeper than this a body is refused as it is read. Python's reader follows nesting to
# about its recursion limit, but the services walk what it read recursively (the checks
# for what PostgreSQL cannot store, redaction), up to four frames a level: a body nested
# 300 deep, read whole, was a RecursionError there, a server error for the input's fault.
MAX_DEPTH = 128
TOO_DEEP = "The JSON is nested too deeply to read."


def _depth_over(value, limit: int) -> bool:
    """Whether `value` nests lists and objects more than `limit` deep (walked with a stack)."""
    stack = [(value, 1)]
    while stack:
        value, depth = stack.pop()
        items = value.values() if isinstance(value, dict) else value
        if depth > limit:
            return True
        stack += [(item, depth + 1) for item in items if isinstance(item, (dict, list))]
    return False


class JSONParser(parsers.JSONParser):
    """DRF's, with a body nested deeper than Python's JSON reader follows, or than
    MAX_DEPTH, refused as a 400. Only here: a RecursionError anywhere else is a fault of
    Engram's, not of the input. A number too long for Python's reader is a 400 that says
    so in the input's terms."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(TOO_DEEP) from None
        except exceptions.ParseError as exc:
            # DRF's message would quote Python's, which names a setting of the server
            if too_many_digits(exc.__context__):
                raise exceptions.ParseError(f"JSON parse error - {TOO_MANY_DIGITS}.") from None
            raise
        if isinstance(data, (dict, list)) and _depth_over(data, MAX_DEPTH):
            raise exceptions.ParseError(TOO_DEEP)
        return data
