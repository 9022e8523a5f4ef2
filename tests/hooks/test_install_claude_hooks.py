"""`manage.py install_claude_hooks` writes the plugin's hooks into Claude Code's settings,
idempotently, and `--uninstall` takes out exactly what it wrote."""
import io
import json
import stat

import pytest
from django.core.management import CommandError, call_command

from memories.models import ApiKey

SOMEONE_ELSES = {"PostToolUse": [{"matcher": "Edit|Write",
                                  "hooks": [{"type": "command", "command": "ruff format"}]}]}


def install(*args) -> str:
    out = io.StringIO()
    call_command("install_claude_hooks", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_CONFIG", str(tmp_path / "config" / "engram.json"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "shop"
    (folder / ".claude").mkdir(parents=True)
    return folder


def settings_of(folder) -> dict:
    return json.loads((folder / ".claude" / "settings.json").read_text())


def test_installing_adds_every_event_of_the_plugin_and_keeps_other_hooks(project):
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"model": "opus", "hooks": SOMEONE_ELSES}))
    said = install("--project", "--dir", str(project))
    written = settings_of(project)
    assert written["model"] == "opus"
    assert set(written["hooks"]) == {"SessionStart", "UserPromptSubmit", "PostToolUse",
                                     "PostToolUseFailure", "Stop",
                                     "PreCompact", "SessionEnd"}
    assert written["hooks"]["PostToolUse"][0] == SOMEONE_ELSES["PostToolUse"][0]
    ours = written["hooks"]["PostToolUse"][1]["hooks"][0]
    assert ours["command"].endswith("engram-hook") and ours["async"] is True
    assert "added Engram's hooks for SessionStart" in said


def test_installing_twice_changes_nothing_the_second_time(project):
    install("--dir", str(project))
    first = (project / ".claude" / "settings.json").read_text()
    said = install("--dir", str(project))
    assert (project / ".claude" / "settings.json").read_text() == first
    assert "already there" in said


def test_uninstall_removes_exactly_what_install_wrote(project):
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": SOMEONE_ELSES}))
    install("--dir", str(project))
    said = install("--dir", str(project), "--uninstall")
    assert settings_of(project) == {"hooks": SOMEONE_ELSES}
    assert "removed Engram's hooks" in said
    assert "not there" in install("--dir", str(project), "--uninstall")


def test_user_settings_go_to_the_home_folder(project, tmp_path):
    install("--user")
    assert "UserPromptSubmit" in json.loads(
        (tmp_path / "home" / ".claude" / "settings.json").read_text())["hooks"]


def test_a_settings_file_that_is_not_json_is_left_alone(project):
    path = project / ".claude" / "settings.json"
    path.write_text("{ not json")
    with pytest.raises(CommandError, match="nothing was changed"):
        install("--dir", str(project))
    assert path.read_text() == "{ not json"


def test_with_an_owner_the_key_goes_to_a_config_file_only_its_owner_can_read(
        project, alice, tmp_path):
    install("--dir", str(project), "--owner", "alice", "--url", "http://127.0.0.1:8123/")
    path = tmp_path / "config" / "engram.json"
    config = json.loads(path.read_text())
    assert config["url"] == "http://127.0.0.1:8123"
    assert ApiKey.objects.matching(config["api_key"]).owner == alice
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    install("--dir", str(project), "--owner", "alice")
    assert json.loads(path.read_text())["api_key"] == config["api_key"]  # no second key
    assert ApiKey.objects.filter(owner=alice).count() == 1


def test_an_unknown_key_or_user_is_refused(project, db):
    with pytest.raises(CommandError, match="unknown or revoked"):
        install("--dir", str(project), "--key", "engram_nope")
    with pytest.raises(CommandError, match="No user 'zoe'"):
        install("--dir", str(project), "--owner", "zoe")
    assert not (project / ".claude" / "settings.json").exists()


def test_an_unknown_user_is_told_where_users_are_made(project, db):
    with pytest.raises(CommandError) as refused:
        install("--dir", str(project), "--owner", "zoe")
    assert "manage.py createsuperuser" in str(refused.value)
    assert "/admin/" in str(refused.value)  # the dashboard has no screen for users
