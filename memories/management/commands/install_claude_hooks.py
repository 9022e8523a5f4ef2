import json
import os
import shlex
import sys
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from engram_client.config import config_path
from memories.models import ApiKey
from memories.services.api_keys import create_api_key

PLUGIN_COMMAND = '"${CLAUDE_PLUGIN_ROOT}/bin/engram-hook"'


def hook_command() -> str:
    """The installed `engram-hook` beside this Python, else the checkout's script."""
    installed = Path(sys.executable).with_name("engram-hook")
    script = installed if installed.exists() else Path(settings.BASE_DIR) / "bin" / "engram-hook"
    return shlex.quote(str(script))


def plugin_hooks(command: str) -> dict:
    """The plugin's hooks/hooks.json, the one description of Engram's hooks, with its
    command pointed at `command`."""
    described = json.loads((Path(settings.BASE_DIR) / "hooks" / "hooks.json").read_text())
    return json.loads(json.dumps(described["hooks"]).replace(
        json.dumps(PLUGIN_COMMAND)[1:-1], json.dumps(command)[1:-1]))


def _ours(hook, command: str) -> bool:
    return isinstance(hook, dict) and hook.get("command") == command


def install_hooks(current: dict, wanted: dict, command: str) -> list[str]:
    """Add each event's group unless one of its hooks already runs `command`."""
    added = []
    for event, groups in wanted.items():
        existing = current.setdefault(event, [])
        if any(_ours(hook, command) for group in existing if isinstance(group, dict)
               for hook in group.get("hooks", [])):
            continue
        existing.extend(groups)
        added.append(event)
    return added


def uninstall_hooks(current: dict, command: str) -> list[str]:
    """Remove exactly the hooks that run `command`, and what that leaves empty."""
    removed = []
    for event in list(current):
        groups = current[event] if isinstance(current[event], list) else []
        kept_groups = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept_groups.append(group)
                continue
            kept = [hook for hook in group["hooks"] if not _ours(hook, command)]
            if len(kept) != len(group["hooks"]) and event not in removed:
                removed.append(event)
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            current[event] = kept_groups
        elif isinstance(current[event], list):
            del current[event]
    return removed


class Command(BaseCommand):
    help = ("Write Engram's Claude Code hooks into .claude/settings.json (--project, the "
            "default) or ~/.claude/settings.json (--user); --uninstall removes exactly them. "
            "With --owner or --key it also writes the hook's config file (URL and key).")

    def add_arguments(self, parser):
        where = parser.add_mutually_exclusive_group()
        where.add_argument("--project", action="store_true",
                           help="this project's .claude/settings.json (default)")
        where.add_argument("--user", action="store_true", help="~/.claude/settings.json")
        parser.add_argument("--dir", dest="folder", default=".",
                            help="the project folder for --project")
        parser.add_argument("--uninstall", action="store_true")
        who = parser.add_mutually_exclusive_group()
        who.add_argument("--owner", help="create an API key for this user for the hooks")
        who.add_argument("--key", help="an existing API key for the hooks")
        parser.add_argument("--url", default=os.environ.get("ENGRAM_URL",
                                                            "http://127.0.0.1:8000"))

    def handle(self, *args, user, folder, uninstall: bool, owner, key, url, **options):
        base = Path.home() if user else Path(folder).expanduser().resolve()
        path = base / ".claude" / "settings.json"
        try:
            stored = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        except (OSError, ValueError) as error:
            raise CommandError(f"{path} is not readable JSON ({error}); fix or move it first: "
                               f"nothing was changed.")
        if not isinstance(stored, dict) or not isinstance(stored.get("hooks", {}), dict):
            raise CommandError(f"{path} does not hold a settings object with a hooks object; "
                               f"nothing was changed.")
        # Settle the key before writing anything: a refused key leaves every file as it was.
        key = self._hook_key(owner, key) if (owner or key) and not uninstall else None
        command = hook_command()
        hooks = stored.setdefault("hooks", {})
        if uninstall:
            changed = uninstall_hooks(hooks, command)
            verb = "removed"
        else:
            changed = install_hooks(hooks, plugin_hooks(command), command)
            verb = "added"
        if not hooks:
            del stored["hooks"]
        if changed:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
            self.stdout.write(f"{verb} Engram's hooks for {', '.join(changed)} in {path}")
        else:
            self.stdout.write(f"nothing to change in {path}: Engram's hooks are "
                              f"{'not there' if uninstall else 'already there'}")
        if key:
            self._write_config(url, key)

    @staticmethod
    def _stored_config() -> dict:
        try:
            stored = json.loads(Path(config_path()).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return stored if isinstance(stored, dict) else {}

    def _hook_key(self, owner_name: str | None, key: str | None) -> str:
        stored = self._stored_config()
        if owner_name:
            owner = get_user_model().objects.filter(username=owner_name).first()
            if owner is None:
                # The dashboard has no screen for users; Django's admin site does.
                raise CommandError(f"No user {owner_name!r}: create it first (manage.py "
                                   f"createsuperuser, or Users in the admin at /admin/).")
            kept = ApiKey.objects.matching(str(stored.get("api_key", "")))
            if kept is not None and kept.owner_id == owner.pk:
                key = stored["api_key"]  # installing again must not mint another key
            else:
                _, key = create_api_key(owner=owner, name="claude-code hooks")
        elif ApiKey.objects.matching(key) is None:
            raise CommandError("That API key is unknown or revoked.")
        return key

    def _write_config(self, url: str, key: str):
        path = Path(config_path())
        stored = self._stored_config()
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump({**stored, "url": url.rstrip("/"), "api_key": key}, file, indent=2)
        os.chmod(path, 0o600)
        self.stdout.write(f"wrote the hooks' URL and key to {path} (readable by you only)")
