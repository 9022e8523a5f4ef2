import io
import logging
import stat

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from dashboard.passwords import must_change_password


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def home(settings, tmp_path):
    settings.ENGRAM_HOME = tmp_path
    return tmp_path


def test_on_a_terminal_it_prints_the_first_login_once(db, home):
    out = Terminal()
    call_command("ensure_admin", stdout=out)
    admin = get_user_model().objects.get(username="admin")
    password = out.getvalue().split("password '")[1].split("'")[0]
    assert admin.is_superuser and admin.check_password(password)
    assert must_change_password(admin)
    assert not (home / "admin-password.txt").exists()

    again = Terminal()
    call_command("ensure_admin", stdout=again)
    assert again.getvalue() == ""
    assert get_user_model().objects.filter(is_superuser=True).count() == 1


def test_without_a_terminal_the_password_goes_to_a_private_file(db, home, caplog):
    out = io.StringIO()
    with caplog.at_level(logging.INFO):
        call_command("ensure_admin", stdout=out)
    admin = get_user_model().objects.get(username="admin")
    path = home / "admin-password.txt"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    username, password = [line.split(": ", 1)[1] for line in path.read_text().splitlines()]
    assert username == "admin" and admin.check_password(password)
    assert must_change_password(admin)
    # Where it is, never what it is: not in the output and not in the log.
    assert password not in out.getvalue() and password not in caplog.text
    assert str(path) in caplog.text


def test_an_old_password_file_is_replaced_private(db, home):
    old = home / "admin-password.txt"
    old.write_text("stale")
    old.chmod(0o644)
    call_command("ensure_admin", stdout=io.StringIO())
    assert stat.S_IMODE(old.stat().st_mode) == 0o600 and "stale" not in old.read_text()
