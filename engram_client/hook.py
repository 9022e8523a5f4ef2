"""`engram-hook`: Claude Code's hooks, one command for every event.

It never blocks the agent. Whatever happens (Engram down or slow, an error answer,
malformed input on stdin, a bug here) it exits 0, printing nothing but the documented
output of a successful call; exit code 2 would block the prompt (claude-mem #729).
Observations Engram could not take wait in a spool and go with a later event; what is
read from the transcript goes into the spool before the read position moves.
"""
import json
import os
import signal
import sys
import threading
import time

from . import config as settings
from . import state as local
from . import transcript, usage
from .client import Client, Refused, Unreachable, memory_path
from .project import branch_for, project_for

MAX_TOOL_TEXT = 8_000  # a tool's input or response beyond this is cut before sending
MAX_PROMPT = 10_000  # the context endpoint's limit on a query
REMEMBERED_HASHES = 200  # messages already sent, so a lagging transcript sends nothing twice
SESSION_QUERY = ("What matters in this project: decisions, conventions, preferences, "
                 "instructions, known problems and recent work.")
PROMPT_EVENTS = ("SessionStart", "UserPromptSubmit")
SESSION_END_SECONDS = 1.0
# Claude Code stops an event's hook after its timeout (60 s at most in hooks.json); this
# guards a hook run by anything that does not, against a hang no timeout covers.
EVENT_SECONDS = 600.0
MAX_CONTEXT_CHARS = 10_000  # Claude Code cuts additionalContext beyond this
PREDICT_TOKENS = 600  # predicted context (files, errors, the task) on top of the memories
MAX_PREDICTED_KEYS = 300  # predicted items a session was given, not to give them again
MAX_ERROR_TEXT = 4_000
# What one /observe request may hold: ENGRAM_CAPTURE_MAX_ITEMS (500) messages and tool
# events, and a body under Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MiB, Engram keeps the
# default; over it Engram answers 413), with room left for the rest of the request.
OBSERVE_MAX_ITEMS = 500
OBSERVE_MAX_BYTES = 2_000_000
# A message beyond this is cut: even escaped at 6 bytes a character it fits one request.
MAX_MESSAGE_TEXT = 100_000
TURN_END = ("turn_ended", "turn_id")  # what tells /observe the turn ended


def _text(value: str) -> str:
    """A text field as Engram takes it: a NUL (binary output pasted into a prompt), which
    Engram refuses in text, reads as U+FFFD."""
    return value.replace("\x00", "\ufffd")


def _cut(value, limit=MAX_TOOL_TEXT):
    """A tool's input or response, kept as JSON where small, else as cut text."""
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(value)
    if len(text) <= limit:
        return value
    return text[:limit] + f"… [{len(text) - limit} more characters not sent]"


def _batches(items: list) -> list[list]:
    """The items in order, in batches one /observe request takes."""
    batches, size = [], 0
    for item in items:
        cost = len(json.dumps(item, ensure_ascii=False).encode("utf-8", "replace")) + 1
        if (not batches or len(batches[-1]) == OBSERVE_MAX_ITEMS
                or size + cost > OBSERVE_MAX_BYTES):
            batches.append([])
            size = 0
        batches[-1].append(item)
        size += cost
    return batches


def _fate(cause: Exception) -> str:
    """What becomes of a spooled observation Engram did not take (local.Spool.send)."""
    # a key that may not write this one's project: it is set aside, another may pass
    return local.ASIDE if isinstance(cause, Refused) and cause.status == 403 else local.STOP


def _halves(payload: dict) -> list[dict]:
    """An observation's items in two observations; none when it holds one item or none
    (or both kinds, which this hook never sends). The turn's end goes with the second:
    Engram would end the task before the reply in it arrived."""
    if not isinstance(payload, dict):
        return []
    kinds = [kind for kind in ("messages", "tool_events") if payload.get(kind)]
    items = payload[kinds[0]] if len(kinds) == 1 else None
    if not isinstance(items, list) or len(items) < 2:
        return []
    middle = len(items) // 2
    first = {name: value for name, value in payload.items() if name not in TURN_END}
    return [{**first, kinds[0]: items[:middle]}, {**payload, kinds[0]: items[middle:]}]


def _digest(message: dict) -> str:
    import hashlib  # only the events that send messages need it; prompts skip the import

    return hashlib.sha1(f"{message['role']}\0{message['text']}".encode(
        "utf-8", "replace")).hexdigest()[:16]


def is_engram_tool(tool_name: str) -> bool:
    """Engram's own MCP tools (`mcp__engram__…`, or a plugin's `mcp__plugin_engram_…`):
    observing them would store memories about reading memories."""
    return tool_name.startswith("mcp__") and "engram" in tool_name.split("__")[1].lower()


class Hook:
    def __init__(self, event: dict, conf: settings.Config, folder):
        self.event = event
        self.conf = conf
        self.folder = folder
        self.name = str(event.get("hook_event_name", ""))
        self.session_id = str(event.get("session_id", ""))[:150]
        self.cwd = str(event.get("cwd") or os.getcwd())
        self.project = project_for(self.cwd)
        timeout = conf.timeout if self.name in PROMPT_EVENTS else conf.background_timeout
        self.client = Client(conf.url, conf.api_key, timeout)
        self.spool = local.Spool(folder)

    # -- what each event does ------------------------------------------------------

    def run(self) -> dict | None:
        handler = {
            "SessionStart": self.session_start,
            "UserPromptSubmit": self.prompt_submitted,
            "PostToolUse": self.tool_used,
            "PostToolUseFailure": self.tool_failed,
            "Stop": self.stopped,
            "PreCompact": self.compacting,
            "SessionEnd": self.session_ended,
        }.get(self.name)
        return handler() if handler else None

    def session_start(self):
        local.prune_sessions(self.folder, time.time())
        with local.Session(self.folder, self.session_id) as session:
            # After /clear or a compaction the context the session saw is gone: a new
            # epoch lets Engram hand the same memories over again.
            if self.event.get("source") in ("clear", "compact"):
                session.data["epoch"] = session.data.get("epoch", 0) + 1
            key = self._context_key(session)
        prediction = self._predicting(branch=branch_for(self.cwd))
        output = self._context(SESSION_QUERY, self.conf.session_tokens, key, min_score=0.0)
        return self._with_prediction(output, prediction)

    def prompt_submitted(self):
        prompt = self.event.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return None
        with local.Session(self.folder, self.session_id) as session:
            key = self._context_key(session)
            session.data["turn"] = {"prompt": prompt[:MAX_PROMPT], "injected": [], "tools": []}
            failure = session.data.get("last_failure") or {}
        prediction = self._predicting(prompt=prompt[:MAX_PROMPT], branch=branch_for(self.cwd),
                                      error_text=failure.get("error", ""))
        output = self._context(prompt[:MAX_PROMPT], self.conf.prompt_tokens, key)
        return self._with_prediction(output, prediction)

    def tool_used(self):
        tool_name = str(self.event.get("tool_name", ""))
        if not tool_name or is_engram_tool(tool_name):
            return
        tool_input = self.event.get("tool_input")
        with local.Session(self.folder, self.session_id) as session:
            turn = session.data.setdefault("turn", {"injected": [], "tools": []})
            turn.setdefault("tools", []).append({"tool_name": tool_name,
                                                 "tool_input": _cut(tool_input)})
        response = self.event.get("tool_response")
        failed = isinstance(response, dict) and (response.get("is_error") is True
                                                 or response.get("success") is False)
        if not failed:
            with local.Session(self.folder, self.session_id) as session:
                if _command(tool_input) and (session.data.get("last_failure") or {}).get(
                        "command") == _command(tool_input):
                    session.data.pop("last_failure")  # the failing command passes now
        self._observe_tool_event({
            "tool_name": _text(tool_name[:200]), "input": _cut(tool_input),
            "response": _cut(response if response is not None else {}),
            "success": not failed, "file_paths": _file_paths(tool_input),
            **self._tool_use_id()})
        return

    def tool_failed(self):
        """PostToolUse fires only for tools that succeeded; a failed call (a command
        exiting non-zero, an edit that did not apply) comes as PostToolUseFailure with
        its error. The last failing command is kept for the next prompt's prediction."""
        tool_name = str(self.event.get("tool_name", ""))
        if not tool_name or is_engram_tool(tool_name) or self.event.get("is_interrupt"):
            return
        tool_input = self.event.get("tool_input")
        error = str(self.event.get("error") or "")[:MAX_ERROR_TEXT]
        with local.Session(self.folder, self.session_id) as session:
            turn = session.data.setdefault("turn", {"injected": [], "tools": []})
            turn.setdefault("tools", []).append({"tool_name": tool_name,
                                                 "tool_input": _cut(tool_input)})
            if _command(tool_input):
                session.data["last_failure"] = {"command": _command(tool_input),
                                                "error": f"$ {_command(tool_input)}\n{error}"}
        self._observe_tool_event({
            "tool_name": _text(tool_name[:200]), "input": _cut(tool_input),
            "response": {"error": error}, "success": False,
            "file_paths": _file_paths(tool_input), **self._tool_use_id()})

    def _tool_use_id(self) -> dict:
        """Claude Code's id of the call: Engram keeps one observation of a payload, so a
        second `git add .` of the session, answered alike, was dropped from the work log
        as a repeat of the first; a resent one is still one."""
        tool_use_id = self.event.get("tool_use_id")
        return {"tool_use_id": _text(tool_use_id[:200])} \
            if isinstance(tool_use_id, str) and tool_use_id else {}

    def stopped(self):
        reply = self.event.get("last_assistant_message")
        reply = reply if isinstance(reply, str) else ""
        with local.Session(self.folder, self.session_id) as session:
            messages, tools = self._new_in_transcript(session)
            if reply and not any(m["role"] == "assistant" and m["text"] == reply
                                 for m in messages):
                messages.append({"role": "assistant", "text": reply})  # the file lags
            turn = session.data.pop("turn", None) or {}
            if turn.get("prompt") and not any(m["role"] == "user" for m in messages):
                messages.insert(0, {"role": "user", "text": turn["prompt"]})
            messages = self._unsent(session, messages)
            # Said even when nothing is left to send: a reply said alike in an earlier
            # turn is not sent again, and without it the work log never ended the task
            # (the next turn's tool events joined it). The id makes each end its own
            # observation; a resend from the spool is the same one.
            kept = self._keep(messages, turn_ended=True, turn_id=os.urandom(8).hex())
        self._send(kept)
        reply = reply or "\n".join(m["text"] for m in messages if m["role"] == "assistant")
        self._mark_usage(turn, reply, [*turn.get("tools", []), *tools])

    def compacting(self):
        with local.Session(self.folder, self.session_id) as session:
            messages, _ = self._new_in_transcript(session)
            kept = self._keep(self._unsent(session, messages))
        if kept:
            self._send(kept)

    def session_ended(self):
        # Claude Code gives a plugin's SessionEnd hooks 1.5 s in all: one quick try, then
        # the spool (a later session sends it); the backlog waits for the next session.
        self.client.timeout = min(self.client.timeout, SESSION_END_SECONDS)
        with local.Session(self.folder, self.session_id) as session:
            messages, _ = self._new_in_transcript(session)
            kept = self._keep(self._unsent(session, messages))
            session.forget()
        if kept:
            self._send(kept, send_spooled=False)

    # -- helpers -------------------------------------------------------------------

    def _context_key(self, session) -> str:
        epoch = session.data.get("epoch", 0)
        return self.session_id if not epoch else f"{self.session_id}~{epoch}"

    def _context(self, query: str, max_tokens: int, key: str, min_score=None):
        body = {"query": query, "max_tokens": max_tokens, "session_id": key,
                "agent_id": self.conf.agent_id, "project": self.project, "with_general": True}
        if min_score is not None:
            body["min_score"] = min_score
        answer = self.client.post("memories/context", body)
        if not isinstance(answer, dict) or not answer.get("memories_used"):
            return None
        injected = [{"id": str(m.get("id")), "content": str(m.get("content", ""))}
                    for m in answer.get("memories", []) if isinstance(m, dict)]
        with local.Session(self.folder, self.session_id) as session:
            turn = session.data.setdefault("turn", {"injected": [], "tools": []})
            turn.setdefault("injected", []).extend(injected)
        return {"hookSpecificOutput": {"hookEventName": self.name,
                                       "additionalContext": str(answer["context"])[:MAX_CONTEXT_CHARS]}}

    def _predicting(self, **signals) -> threading.Thread:
        """Ask what Engram predicts the agent will need (the active task, fixes of the last
        error, memories about the files named, the workflow), in a thread: it is asked
        beside the memories' context, so the hook waits for the slower of the two, not
        their sum. Items this session was given before are not asked for again."""
        with local.Session(self.folder, self.session_id) as session:
            given = session.data.get("predicted", [])
        body = {"project": self.project, "session_id": self.session_id,
                "max_tokens": PREDICT_TOKENS, "exclude": given,
                **{name: value for name, value in signals.items() if value}}

        def ask():
            try:
                asking.answer = self.client.post("context/predict", body)
            except Exception as error:  # noqa: BLE001 - as in main(): a thread's traceback
                asking.error = error  # would reach stderr, the user's screen

        asking = threading.Thread(target=ask, daemon=True)
        asking.answer, asking.error = None, None
        asking.start()
        return asking

    def _with_prediction(self, output: dict | None, asking: threading.Thread) -> dict | None:
        """The memories' context with the prediction after it. A prediction that fails, or
        is not back within the client's timeout, leaves the memories' context as it was."""
        asking.join(self.client.timeout)
        if asking.error is not None:
            local.log(self.folder, f"prediction failed: {asking.error}")
            return output
        answer = asking.answer
        if not isinstance(answer, dict) or not answer.get("items"):
            return output
        keys = [str(item.get("key")) for item in answer["items"] if isinstance(item, dict)]
        with local.Session(self.folder, self.session_id) as session:
            session.data["predicted"] = [*session.data.get("predicted", []), *keys
                                         ][-MAX_PREDICTED_KEYS:]
        before = output["hookSpecificOutput"]["additionalContext"] + "\n\n" if output else ""
        return {"hookSpecificOutput": {
            "hookEventName": self.name,
            "additionalContext": (before + str(answer.get("context", "")))[:MAX_CONTEXT_CHARS]}}

    def _new_in_transcript(self, session):
        messages, tools, offset, skipped = transcript.read_new(
            str(self.event.get("transcript_path") or ""), int(session.data.get("offset", 0)))
        if skipped:
            local.log(self.folder, f"transcript: {skipped} bytes more than "
                                   f"{transcript.MAX_READ} behind its end skipped, not sent")
        session.data["offset"] = offset
        return messages, tools

    def _unsent(self, session, messages):
        sent = session.data.get("sent", [])
        fresh = [m for m in messages if _digest(m) not in sent]
        session.data["sent"] = [*sent, *map(_digest, fresh)][-REMEMBERED_HASHES:]
        return [{"role": m["role"], "text": _text(_cut(m["text"], MAX_MESSAGE_TEXT))}
                for m in fresh]

    def _payloads(self, kind: str, items: list, **turn_end) -> list[dict]:
        """`items` (kind: messages or tool_events) in as many observations as Engram's
        limits take; `turn_end` (TURN_END) on the last, alone when there are no items."""
        about = {"project": self.project, "agent_id": self.conf.agent_id,
                 "session_id": self.session_id}
        payloads = [{**about, kind: batch} for batch in _batches(items)]
        if turn_end:
            payloads = payloads or [dict(about)]
            payloads[-1].update(turn_end)
        return payloads

    def _observe_tool_event(self, event: dict):
        """Hand a tool event over; when Engram cannot take it now, it waits in the spool. It
        is sent first, not spooled first: it is read from no file, so a spool that cannot be
        written would lose it even while Engram is up."""
        [payload] = self._payloads("tool_events", [event])
        self._send_spooled()
        try:
            self._deliver(payload)
        except local.Undelivered as undelivered:
            if isinstance(undelivered.cause, Refused):
                local.log(self.folder, f"observation spooled: {undelivered.cause.message}")
            try:
                self.spool.keep(*undelivered.left)
            except OSError as error:
                local.log(self.folder, f"spool not written, a tool event is lost: {error}")

    def _keep(self, messages: list, **turn_end) -> list[str]:
        """Put messages read from the transcript (and the turn's end) in the spool, before
        the session (and the read position in it) is saved: when the spool cannot be
        written, the OSError leaves the session unsaved, and the same lines are read again
        at the next event."""
        try:
            return self.spool.keep(*self._payloads("messages", messages, **turn_end))
        except OSError as error:
            local.log(self.folder, f"spool not written, the transcript's new lines will be "
                                   f"read again at the next event: {error}")
            raise

    def _send(self, kept: list[str], send_spooled=True):
        """Send what waited in the spool before, then `kept` (this event's, unless that took
        them): a backlog longer than one event sends delays no new observation."""
        if send_spooled:
            self._send_spooled()
        self.spool.send(self._deliver, self._fate_of_new, kept)

    def _fate_of_new(self, cause: Exception) -> str:
        """As for any spooled entry; a refusal of this event's own that leaves it waiting is
        said in the log, since it names what to fix (the key, the address)."""
        then = _fate(cause)
        if isinstance(cause, Refused) and then == local.STOP:
            local.log(self.folder, f"observation spooled: {cause.message}")
        return then

    def _deliver(self, payload: dict) -> None:
        """Post one observation. A body Engram judges bad goes again in halves, down to the
        one item it refuses, which alone is dropped (said in the log): one bad item, or an
        Engram taking fewer items a request than OBSERVE_MAX_ITEMS, costs no other. Raises
        Undelivered with the parts not taken when Engram cannot take them now."""
        waiting = [payload]
        while waiting:
            part = waiting.pop(0)
            try:
                self.client.post("observe", part)
            except Refused as refused:
                if not refused.bad_payload:
                    raise local.Undelivered(refused, [part, *waiting]) from refused
                halves = _halves(part)
                if not halves:
                    local.log(self.folder, f"observation refused, dropped: {refused.message}")
                waiting[:0] = halves
            except Unreachable as unreachable:
                raise local.Undelivered(unreachable, [part, *waiting]) from unreachable

    def _send_spooled(self):
        self.spool.send(self._deliver, _fate)

    def _mark_usage(self, turn: dict, reply: str, tools: list):
        evidence = usage.Evidence(reply, tools)
        for memory in turn.get("injected", []):
            signal = "cited" if usage.reflected(memory["content"], evidence) else "ignored"
            try:
                self.client.post(memory_path(memory["id"], "feedback"),
                                 {"signal": signal, "agent_id": self.conf.agent_id,
                                  "session_id": self.session_id})
            except Refused as refused:
                local.log(self.folder, f"feedback refused: {refused.message}")
            except Unreachable:
                return  # feedback is a hint, not worth a spool


def _command(tool_input) -> str:
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    return command[:2000] if isinstance(command, str) else ""


def _file_paths(tool_input) -> list[str]:
    if not isinstance(tool_input, dict):
        return []
    paths = [tool_input.get(name) for name in ("file_path", "notebook_path", "path")]
    return [_text(path[:1000]) for path in paths if isinstance(path, str) and path][:100]


def _watchdog(seconds: float) -> None:
    """However a call hangs (a server that drips one byte a second), the agent goes on."""
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, lambda signum, frame: os._exit(0))
        signal.setitimer(signal.ITIMER_REAL, seconds)
        return
    import threading  # Windows has no interval timer signal

    timer = threading.Timer(seconds, lambda: os._exit(0))
    timer.daemon = True
    timer.start()


def main() -> int:
    folder = settings.state_dir()
    try:
        # Bytes not UTF-8 (a tool's binary output) cost a character each, not the event.
        event = json.loads(sys.stdin.buffer.read().decode("utf-8", "replace") or "null")
        if not isinstance(event, dict):
            return 0
        conf = settings.load()
        hook = Hook(event, conf, folder)
        _watchdog(conf.timeout + 1.0 if hook.name in PROMPT_EVENTS else EVENT_SECONDS)
        output = hook.run()
        if output:
            sys.stdout.write(json.dumps(output))
            sys.stdout.flush()
    except (Unreachable, Refused) as error:
        local.log(folder, f"{type(error).__name__}: {error}")
    except Exception as error:  # noqa: BLE001 - never block the agent
        local.log(folder, f"hook failed: {type(error).__name__}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
