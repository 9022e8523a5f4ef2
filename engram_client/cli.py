"""`engram`: the memory from a terminal, through the same REST API and client as the hook.

Exit codes scripts can rely on: 0 done, 1 Engram refused the request (bad input, not
found, not allowed: a reader's write, a key restricted to another project), 2 wrong usage,
3 Engram unreachable or failing (5xx, or an answer it never gives), 4 the key is missing
or wrong.
"""
import argparse
import json
import os
import re
import shutil
import sys

from . import config as settings
from .client import Client, Refused, Unreachable, Unreadable, memory_path, quote
from .project import project_for

OK, REFUSED, USAGE, UNREACHABLE, UNAUTHORISED = 0, 1, 2, 3, 4


class WrongUsage(Exception):
    """A command given without what it needs, found after parsing (argparse exits with
    USAGE for the rest)."""


# The shapes of the answers read here (see `client.conforms`): the client refuses any other
# as unreadable, so a command never fails half-way through printing one.
MEMORY = {"id": str, "kind": str, "content": str}
PROJECT = {"name": str, "creator": str, "members": [{"username": str, "role": str}]}
COUNTS = {str: {"count": int}}
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
LINES = "\n\t"  # the control characters a memory's text keeps when shown whole
MAX_PAGE = 200  # the most memories Engram lists at once (its pagination's max_page_size)
MAX_SEARCH = 100  # the most hits a search asks for (the search serializer's limit)


def _project(value: str | None) -> str | None:
    """`--project .` names the project of the current directory, as the hooks do."""
    return project_for(os.getcwd()) if value == "." else value


def _visible(text, keep: str = "") -> str:
    """`text` with its C0 and C1 control characters (but those in `keep`) shown as escapes,
    \\x1b: a memory may come from a web page or a tool's output, and its escape sequences,
    printed raw, would drive the terminal (clear it, recolour it, write the clipboard)."""
    return CONTROL.sub(lambda control: control[0] if control[0] in keep else
                       f"\\x{ord(control[0]):02x}", str(text))


def _one_line(text) -> str:
    return _visible(" ".join(str(text).split()))


def _say(message: str, out) -> None:
    """A message naming what Engram answered (a project, its members), on one line with
    its control characters escaped, as in the tables."""
    out.write(_one_line(message) + "\n")


def table(rows: list[list[str]], headers: list[str], out) -> None:
    """Columns sized to their content; the last column takes what the terminal has left."""
    if not rows:
        out.write("(none)\n")
        return
    width = shutil.get_terminal_size((120, 20)).columns
    lines = [[_one_line(cell) for cell in row] for row in [headers, *rows]]
    fixed = [max(len(line[i]) for line in lines) for i in range(len(headers) - 1)]
    last = max(20, width - sum(fixed) - 2 * len(fixed))
    for *cells, text in lines:
        cells = [cell.ljust(size) for cell, size in zip(cells, fixed)]
        text = text if len(text) <= last else text[:max(1, last - 1)] + "…"
        out.write("  ".join([*cells, text]).rstrip() + "\n")


def _memory_rows(memories: list[dict]) -> list[list[str]]:
    return [[m["id"], m.get("kind", ""), m.get("project") or "-", m.get("content", "")]
            for m in memories]


def search(client, args, out):
    filters = {"project": _project(args.project)} if args.project else {}
    answer = client.post("memories/search", {"query": args.query, "limit": args.limit,
                                             "filters": filters},
                         expect={"results": [{"memory": MEMORY,
                                              "score": {"final": (int, float)}}]})
    if args.json:
        return answer
    table([[hit["memory"]["id"], f"{hit['score']['final']:.2f}", hit["memory"]["kind"],
            hit["memory"]["content"]] for hit in answer["results"]],
          ["id", "score", "kind", "content"], out)


def remember(client, args, out):
    body = {"content": args.content, "kind": args.kind, "tags": args.tag or []}
    if args.project:
        body["project"] = _project(args.project)
    if args.importance is not None:
        body["importance"] = args.importance
    if args.scope:
        body["scope"] = args.scope
    if args.creator:
        body["project_creator"] = args.creator
    answer = client.post("memories", body, expect={"action": str, "memory": MEMORY})
    if args.json:
        return answer
    out.write(f"{answer['action']} {answer['memory']['id']}\n")


def list_memories(client, args, out):
    params = {"page_size": args.limit}
    if args.project:
        params["project"] = _project(args.project)
    if args.tag:
        params["tag"] = args.tag
    if args.status:
        params["status"] = args.status
    answer = client.get("memories", params, expect={"results": [MEMORY]})
    if args.json:
        return answer["results"]
    table(_memory_rows(answer["results"]), ["id", "kind", "project", "content"], out)


def show(client, args, out):
    memory = client.get(memory_path(args.id), expect=MEMORY)
    if args.json:
        return memory
    for name in ("id", "kind", "memory_type", "scope", "project", "author", "status",
                 "importance", "pinned", "tags", "created_at", "updated_at", "valid_from",
                 "expires_at"):
        value = memory.get(name)
        if value not in (None, "", []):
            value = ", ".join(map(str, value)) if isinstance(value, list) else value
            out.write(f"{name + ':':<12} {_visible(value)}\n")
    out.write(f"\n{_visible(memory['content'], keep=LINES)}\n")


def forget(client, args, out):
    memory = client.request("DELETE", memory_path(args.id), expect=MEMORY)
    if args.json:
        return memory
    out.write(f"forgot {memory['id']} (PATCH status=active restores it)\n")


def erase(client, args, out):
    """Erase for good, after a yes: at a terminal it asks, elsewhere --yes is required."""
    if not args.yes:
        stdin = sys.stdin
        if not stdin.isatty():
            raise WrongUsage("erasing cannot be undone: add --yes to confirm")
        out.write(f"Erase memory {args.id} and every copy of its text, for good? [y/N] ")
        out.flush()
        if stdin.readline().strip().lower() not in ("y", "yes"):
            out.write("nothing erased\n")
            return None
    receipt = client.post(memory_path(args.id, "erase"), {}, expect={
        "memory_id": str, "record": int, "removed": COUNTS, "scrubbed": COUNTS,
        "flagged": COUNTS})
    if args.json:
        return receipt
    out.write(f"erased {receipt['memory_id']} (record {receipt['record']})\n")
    for part in ("removed", "scrubbed", "flagged"):
        counts = ", ".join(f"{name} {entry['count']}"
                           for name, entry in receipt[part].items() if entry["count"])
        out.write(f"{part + ':':<10} {counts or 'nothing'}\n")
    return None


def context(client, args, out):
    body = {"query": args.query, "max_tokens": args.tokens, "format": args.format}
    if args.project:
        body["project"] = _project(args.project)
    answer = client.post("memories/context", body, expect={"context": (str, type(None))})
    if args.json:
        return answer
    out.write(_visible(answer["context"] or "(nothing relevant)", keep=LINES) + "\n")


def export(client, args, out):
    data = client.get("export", expect=bytes)
    if args.output:
        try:
            with open(args.output, "wb") as file:
                file.write(data)
        except OSError as error:
            raise Refused(0, f"Cannot write {args.output}: {error.strerror}.") from None
        lines = data.count(b"\n")
        out.write(f"exported {lines} lines to {args.output}\n")
    elif hasattr(out, "buffer"):
        out.buffer.write(data)
    else:
        out.write(data.decode("utf-8"))


def import_file(client, args, out):
    try:
        with open(args.file, "rb") as file:
            data = file.read()
    except OSError as error:
        raise Refused(0, f"Cannot read {args.file}: {error.strerror}.") from None
    params = {} if args.format == "auto" else {"format": args.format}
    if args.project:
        params["project"] = _project(args.project)
    answer = client.request("POST", "import", raw=data, params=params,
                            content_type="application/x-ndjson", expect=(
                                {"job_id": str, "url": str},
                                {"imported": {str: int}, "strengthened": int, "skipped": int,
                                 "errors": [{"line": int, "message": str}]}))
    if args.json:
        return answer
    if "job_id" in answer:
        out.write(f"importing as job {answer['job_id']}: the jobs screen, or "
                  f"GET {answer['url']}, shows its progress\n")
        return None
    imported = answer.get("imported", {})
    out.write(", ".join(f"{count} {name}" for name, count in imported.items())
              + f" imported; {answer.get('strengthened', 0)} strengthened; "
                f"{answer.get('already_stored', 0)} already stored; "
                + (f"{answer['undeleted']} brought back (deleted since the export); "
                   if answer.get("undeleted") else "")
                + (f"{answer['contradictions_already_stored']} contradictions already "
                   "recorded; " if answer.get("contradictions_already_stored") else "")
                + f"{answer.get('skipped', 0)} skipped\n")
    for error in answer.get("errors", []):
        out.write(f"  line {error['line']}: {_one_line(error['message'])}\n")


def _members(project: dict) -> str:
    return ", ".join(f"{m['username']} ({m['role']})" for m in project.get("members", []))


def _project_path(args, *rest: str) -> str:
    """projects/NAME/...: the name quoted whole, slashes too (`github.com/acme/shop`)."""
    return "/".join(["projects", quote(_project(args.name)), *map(quote, rest)])


def _creator(args) -> dict:
    return {"creator": args.creator} if args.creator else {}


def projects(client, args, out):
    answer = client.get("projects", expect=[PROJECT])
    if args.json:
        return answer
    table([[p["name"], p["creator"], p.get("role") or "-", _members(p)] for p in answer],
          ["name", "creator", "role", "members"], out)


def create_project(client, args, out):
    project = client.post("projects", {"name": _project(args.name)}, expect=PROJECT)
    if args.json:
        return project
    _say(f"created project {project['name']}; you are its owner", out)


def add_member(client, args, out):
    project = client.request("POST", _project_path(args, "members"), params=_creator(args),
                             body={"username": args.username, "role": args.role},
                             expect=PROJECT)
    if args.json:
        return project
    _say(f"{args.username} is now {args.role} of {project['name']}: {_members(project)}", out)


def remove_member(client, args, out):
    project = client.request("DELETE", _project_path(args, "members", args.username),
                             params=_creator(args), expect=PROJECT)
    if args.json:
        return project
    _say(f"{args.username} is no longer a member of {project['name']}; they no longer see "
         "its memories", out)


def _limit(most: int):
    """An argparse type: a whole number from 1 to `most`, Engram's own bound, else wrong
    usage. Outside it Engram either refuses the request (search) or quietly answers another
    number (list: its default page of 50, or its largest)."""
    def limit(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not 1 <= number <= most:
            raise argparse.ArgumentTypeError(f"must be from 1 to {most}, not {number}")
        return number
    return limit


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="engram", description=__doc__.splitlines()[0])
    main.add_argument("--json", action="store_true", help="print Engram's JSON answer")
    commands = main.add_subparsers(dest="command", required=True)

    def command(name, run, help_text, within=commands):
        sub = within.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                         help="print Engram's JSON answer")
        sub.set_defaults(run=run)
        return sub

    def project_option(sub):
        sub.add_argument("--project", help="a project name, or . for this directory's")

    def limit_option(sub, most: int, default: int):
        sub.add_argument("--limit", type=_limit(most), default=default, help=f"1 to {most}")

    def creator_option(sub):
        sub.add_argument("--creator", help="the project's creator (a username), when you "
                                           "are a member of two projects of that name")

    sub = command("search", search, "Search memories by meaning and keywords")
    sub.add_argument("query")
    limit_option(sub, MAX_SEARCH, default=10)
    project_option(sub)
    sub = command("remember", remember, "Remember something")
    sub.add_argument("content")
    sub.add_argument("--kind", default="fact")
    sub.add_argument("--tag", action="append")
    sub.add_argument("--importance", type=float)
    sub.add_argument("--scope", choices=["private", "project", "system"],
                     help="who reads it: you alone (private, the default), every member of "
                          "--project (project), every user (system, staff only)")
    creator_option(sub)
    project_option(sub)
    sub = command("list", list_memories, "List memories, newest first")
    limit_option(sub, MAX_PAGE, default=20)
    sub.add_argument("--tag", action="append")
    sub.add_argument("--status", action="append")
    project_option(sub)
    sub = command("show", show, "Show one memory")
    sub.add_argument("id")
    sub = command("forget", forget, "Forget (soft-delete) a memory")
    sub.add_argument("id")
    sub = command("erase", erase, "Erase a memory for good, with every copy of its text "
                                  "(versions, its source observation, judged pairs, usage)")
    sub.add_argument("id")
    sub.add_argument("--yes", action="store_true", help="confirm: erasing cannot be undone")
    sub = command("context", context, "The context an agent would be handed for a query")
    sub.add_argument("query")
    sub.add_argument("--tokens", type=int, default=500)
    sub.add_argument("--format", choices=["markdown", "xml", "json"], default="markdown")
    project_option(sub)
    sub = command("export", export, "Export every memory as JSONL")
    sub.add_argument("-o", "--output", help="a file (default: standard output)")
    sub = command("import", import_file, "Import a JSONL file (Engram's or the MCP memory "
                                         "server's graph)")
    sub.add_argument("file")
    sub.add_argument("--format", choices=["auto", "engram", "mcp-memory"], default="auto")
    project_option(sub)
    sub = command("projects", projects, "Your projects, your role in each and their "
                                        "members; create one, add or remove members")
    actions = sub.add_subparsers(dest="action")

    def action(name, run, help_text):
        return command(name, run, help_text, within=actions)

    action("list", projects, "Your projects (the default)")
    step = action("create", create_project, "Create a project; you are its owner")
    step.add_argument("name", help="its name, or . for this directory's (as the hooks "
                                   "name it)")
    step = action("add-member", add_member, "Add a member, or change a member's role "
                                            "(owners only)")
    step.add_argument("name", help="the project, or . for this directory's")
    step.add_argument("username")
    step.add_argument("role", choices=["owner", "editor", "reader"])
    creator_option(step)
    step = action("remove-member", remove_member, "Remove a member (owners), or leave "
                                                  "(your own username)")
    step.add_argument("name", help="the project, or . for this directory's")
    step.add_argument("username")
    creator_option(step)
    return main


def _json(answer, out) -> str:
    """The answer as JSON, in characters `out` can encode: escaped (\\u...) where it cannot
    encode them all, so a script reading it still gets every one."""
    text = json.dumps(answer, indent=2, ensure_ascii=False)
    try:
        text.encode(getattr(out, "encoding", None) or "utf-8")
    except UnicodeEncodeError:
        return json.dumps(answer, indent=2)
    return text


def main(argv=None, out=None) -> int:
    out = out or sys.stdout
    args = parser().parse_args(argv)
    conf = settings.load()
    if hasattr(out, "reconfigure"):
        out.reconfigure(errors="replace")  # what the terminal cannot show prints as "?"
    try:
        client = Client(conf.url, conf.api_key, timeout=max(conf.background_timeout, 30.0))
        answer = args.run(client, args, out)
        if args.json and answer is not None:
            try:
                text = _json(answer, out)
            except RecursionError:  # Python 3.12+ decodes JSON in C, under a limit of its
                # own, deeper than the indenting encoder (Python code) can walk
                raise Unreadable(f"Engram at {client.origin} answered JSON nested too "
                                 "deeply to print") from None
            out.write(text + "\n")
        out.flush()  # a reader gone (`engram list | head -1`) shows here, not at exit
        return OK
    except BrokenPipeError:
        # Python's advice on SIGPIPE: the flush at exit writes what is left to devnull,
        # not into a traceback; the reader had what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    except WrongUsage as error:
        sys.stderr.write(f"engram: {error}\n")
        return USAGE
    except Unreadable as error:
        sys.stderr.write(f"engram: {error}. Is ENGRAM_URL Engram's address?\n")
        return UNREACHABLE
    except Unreachable as error:
        sys.stderr.write(f"engram: {error}. Is it running? (make run, or set ENGRAM_URL)\n")
        return UNREACHABLE
    except Refused as refused:
        if refused.status == 401:
            sys.stderr.write(f"engram: the API key was refused ({refused.message}). Set "
                             f"ENGRAM_API_KEY or run manage.py install_claude_hooks.\n")
            return UNAUTHORISED
        sys.stderr.write(f"engram: {refused.message}\n")
        return UNREACHABLE if refused.status >= 500 else REFUSED


if __name__ == "__main__":
    sys.exit(main())
