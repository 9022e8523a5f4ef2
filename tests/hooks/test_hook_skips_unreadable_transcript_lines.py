"""A transcript line the hook cannot read is skipped like a line that is not JSON: the
lines around it are read, and the read position moves past it, so one line never stops
the capture of the rest of the session."""
import json

from engram_client import transcript


def _line(role: str, content) -> str:
    return json.dumps({"type": role, "message": {"role": role, "content": content}})


def test_a_line_nested_too_deeply_to_decode_is_skipped_and_the_rest_read(tmp_path):
    deep = '{"a":' * 100_000 + '"x"' + "}" * 100_000
    tool_use = _line("assistant", [{"type": "tool_use", "name": "Write", "input": "@"}])
    path = tmp_path / "transcript.jsonl"
    path.write_text("\n".join([
        _line("user", "Deploys go out on Tuesdays"), tool_use.replace('"@"', deep),
        "not json", _line("assistant", "Noted.")]) + "\n")
    messages, _, offset, _ = transcript.read_new(str(path), 0)
    assert [m["text"] for m in messages] == ["Deploys go out on Tuesdays", "Noted."]
    assert offset == path.stat().st_size
