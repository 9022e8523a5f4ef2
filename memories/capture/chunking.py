"""Chunking: an observation's messages cut into ~500-token overlapping chunks (the engine
cuts, engine/chunking.py), and each failed tool call a chunk of its own."""

import json
import re

from ..engine.chunking import chunk_messages
from ..engine.context import count_tokens
from ..engine.redaction import as_json
from ..models import Observation, ObservationChunk

TOOL_TEXT_SHOWN = 1_500  # characters of a failed tool's input and error put in its chunk
_ERROR_LABEL = re.compile(r"^\s*error:\s*", re.IGNORECASE)  # the chunk's own label says it


def failed_tool_text(event: dict) -> str:
    """A failed tool call as a chunk: errors and their context are worth remembering;
    successful tool output is too noisy to extract from ("Extraction Pipeline")."""
    paths = ", ".join(event["file_paths"])
    return (f"tool {event['tool_name']} failed"
            + (f" on {paths}" if paths else "")
            + f"\ninput: {_readable(event['input'])[:TOOL_TEXT_SHOWN]}"
            + f"\nerror: {_ERROR_LABEL.sub('', _readable(event['response']))[:TOOL_TEXT_SHOWN]}")


def _readable(text: str) -> str:
    """A tool's input or answer as a person reads it, not as JSON: one message alone as
    itself ({"error": "..."} is the error), an object as a line per field it fills."""
    value = as_json(text)
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return text
    filled = {name: part for name, part in value.items()
              if part not in ("", None, False, [], {})}
    if len(filled) == 1 and isinstance(only := next(iter(filled.values())), str):
        return only
    return "\n".join(f"{name}: {part if isinstance(part, str) else json.dumps(part)}"
                     for name, part in filled.items())


def cut_into_chunks(observation: Observation) -> None:
    pieces = [chunk.text for chunk in chunk_messages(
        [(m["role"], m["text"]) for m in observation.messages])]
    pieces += [failed_tool_text(e) for e in observation.tool_events if not e["success"]]
    ObservationChunk.objects.bulk_create(
        [ObservationChunk(observation=observation, position=i, text=text,
                          tokens=count_tokens(text)) for i, text in enumerate(pieces)],
        ignore_conflicts=True)
