"""The API's JSON parser."""

from rest_framework import exceptions, parsers


class JSONParser(parsers.JSONParser):
    """DRF's, with a body nested deeper than Python's JSON reader follows refused as a 400.
    Only here: a RecursionError anywhere else is a fault of Engram's, not of the input."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("The JSON is nested too deeply to read.") from None
