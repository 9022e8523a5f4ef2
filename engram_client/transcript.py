"""Reading what is new in a Claude Code transcript (JSONL, one entry a line) from an offset.

Only whole lines are read: Claude Code may be writing the last one as we look, and the
offset is kept so each line is sent once.
"""
import json
import os
import stat

MAX_READ = 4 * 1024 * 1024  # a turn's worth; older backlog beyond it is skipped, not sent


def _texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [block["text"] for block in content
            if isinstance(block, dict) and block.get("type") == "text"
            and isinstance(block.get("text"), str)]


def _tool_uses(content) -> list[dict]:
    if not isinstance(content, list):
        return []
    return [{"tool_name": str(block.get("name", "")), "tool_input": block.get("input")}
            for block in content
            if isinstance(block, dict) and block.get("type") == "tool_use"]


def read_new(path: str, offset: int) -> tuple[list[dict], list[dict], int, int]:
    """(messages as {role, text}, tool uses as {tool_name, tool_input}, the new offset,
    the bytes skipped as older than MAX_READ behind the end, for the caller to log)."""
    if not path:
        return [], [], offset, 0
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return [], [], offset, 0  # a FIFO or a device: reading it could wait forever
        with open(path, "rb") as file:
            size = file.seek(0, 2)
            if offset > size:  # the file was replaced (a cleared session): start over
                offset = 0
            skipped = max(0, size - MAX_READ - offset)
            offset += skipped
            file.seek(offset)
            data = file.read(size - offset)
    except OSError:
        return [], [], offset, 0
    end = data.rfind(b"\n") + 1
    messages, tools = [], []
    for line in data[:end].splitlines():
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to read
            continue
        if not isinstance(entry, dict) or entry.get("isMeta") or entry.get("isSidechain"):
            continue
        message = entry.get("message")
        role = entry.get("type")
        if role not in ("user", "assistant") or not isinstance(message, dict):
            continue
        content = message.get("content")
        messages.extend({"role": role, "text": text} for text in _texts(content)
                        if text.strip())
        if role == "assistant":
            tools.extend(_tool_uses(content))
    return messages, tools, offset + end, skipped
