"""Parse a language model's reply into a pydantic model, repairing only what is safe.

Models wrap JSON in fences or prose, leave trailing commas, answer with the bare list
when an object holding that list was asked for, or type curly quotes. Those slips are
repaired; nothing else is guessed. Anything still wrong raises ReplyParseError, whose
`problem` is written for the model: the retry prompt shows it verbatim.
"""

import json
import re
import typing
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from .redaction import storable

Model = TypeVar("Model", bound=BaseModel)


class StrictReply(BaseModel):
    """What a model's reply is parsed into: unknown fields ignored, text stripped, and a
    NUL refused. JSON spells a NUL as an escape and PostgreSQL stores none: a reply
    holding one is told back to the model like any other mistake, where it failed the
    write of everything beside it. (A lone surrogate is no string to pydantic already.)"""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    @model_validator(mode="after")
    def _storable(self):
        for name, value in self:
            if any(isinstance(text, str) and "\x00" in text
                   for text in (value if isinstance(value, list) else [value])):
                raise ValueError(f"{name} holds a NUL character, which cannot be stored")
        return self


MAX_REPORTED_ERRORS = 5
MAX_SHOWN_INPUT = 60

_FENCED = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n?(.*?)(?:```|\Z)", re.DOTALL)
_SMART_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"'})
_CLOSERS = {"{": "}", "[": "]"}


class ReplyParseError(ValueError):
    """The reply cannot be used; `problem` says why in a sentence the model can act on."""

    def __init__(self, problem: str):
        super().__init__(problem)
        self.problem = problem


def parse_reply(text: str, model_cls: type[Model]) -> Model:
    """The reply's JSON validated strictly against `model_cls` (no type coercion)."""
    data = _load_json(text or "")
    if isinstance(data, list):
        data = _wrap_bare_list(data, model_cls)
    if not isinstance(data, dict):
        raise ReplyParseError(f"expected a JSON object, got {type(data).__name__}")
    try:
        return model_cls.model_validate(data, strict=True)
    except ValidationError as exc:
        raise ReplyParseError(describe_validation_error(exc)) from None


def describe_validation_error(exc: ValidationError) -> str:
    """One line per wrong field, such as `memories[0].importance: Input should be ...`."""
    lines = []
    for error in exc.errors()[:MAX_REPORTED_ERRORS]:
        where = _field_path(error["loc"]) or "the object"
        line = f"{where}: {error['msg']}"
        if error["type"] != "missing":
            line += f" (got {_short_repr(error.get('input'))})"
        lines.append(line)
    if exc.error_count() > MAX_REPORTED_ERRORS:
        lines.append(f"... and {exc.error_count() - MAX_REPORTED_ERRORS} more")
    return "the JSON does not match the schema: " + "; ".join(lines)


def _load_json(text: str):
    if not text.strip():
        raise ReplyParseError("the reply was empty; answer with the JSON object only")
    fenced = _FENCED.search(text)
    # The fenced block first, then the whole reply: a fence inside a string value
    # (a memory about markdown) ends the block early.
    bodies = [fenced.group(1), text] if fenced else [text]
    first_error = None
    for body in bodies:
        # Curly quotes are straightened only when the reply fails without that: inside
        # valid JSON they are ordinary characters of a string and must be kept.
        for attempt in dict.fromkeys((body, body.translate(_SMART_QUOTES))):
            try:
                return _first_json_value(attempt)
            except ReplyParseError as exc:
                first_error = first_error or exc
    raise first_error


def _first_json_value(text: str):
    """The first balanced {...} or [...] in `text` that is JSON, trailing commas allowed."""
    first_error = None
    position = 0
    while (start := _next_opening(text, position)) is not None:
        end = _balanced_end(text, start)
        if end is None:
            # A later opening bracket lies inside this unfinished value; parsing it would
            # return a fragment of a truncated reply as if it were the whole answer.
            raise ReplyParseError(
                "the JSON is cut off before its closing "
                f"{_CLOSERS[text[start]]!r}; reply with the complete JSON"
            )
        candidate = text[start:end]
        for attempt in (candidate, _without_trailing_commas(candidate)):
            try:
                return json.loads(attempt)
            except json.JSONDecodeError as exc:
                first_error = first_error or exc
        position = end
    if first_error is not None:
        raise ReplyParseError(
            f"the reply is not valid JSON: {first_error.msg} "
            f"(line {first_error.lineno}, column {first_error.colno})"
        )
    raise ReplyParseError("the reply holds no JSON object; answer with the JSON object only")


def _next_opening(text: str, position: int) -> int | None:
    starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
    return min(starts) if starts else None


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket closing text[start]; brackets in strings don't count."""
    depth = 0
    for index, char, quoted in _characters(text, start):
        if quoted:
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _without_trailing_commas(text: str) -> str:
    return "".join(
        char for index, char, quoted in _characters(text)
        if quoted or char != "," or text[index + 1:].lstrip()[:1] not in ("}", "]")
    )


def _characters(text: str, start: int = 0):
    """(index, char, quoted) from `start`: quoted is true for a JSON string and its quotes."""
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            yield index, char, True
        else:
            in_string = char == '"'
            yield index, char, in_string


def _wrap_bare_list(items: list, model_cls: type[BaseModel]):
    """[...] stands for {"field": [...]} when the model has exactly one list field."""
    list_fields = [name for name, field in model_cls.model_fields.items()
                   if typing.get_origin(field.annotation) is list]
    if len(list_fields) != 1:
        return items
    return {list_fields[0]: items}


def _field_path(loc) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _short_repr(value) -> str:
    # A lone surrogate the reply spelled as an escape would make the retry prompt (and the
    # call's logged error) text no request and no database can carry.
    shown = storable(json.dumps(value, ensure_ascii=False, default=str))
    return shown if len(shown) <= MAX_SHOWN_INPUT else shown[:MAX_SHOWN_INPUT - 3] + "..."
