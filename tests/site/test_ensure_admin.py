from django.contrib.auth import get_user_model
from django.core.management import call_command


def test_it_creates_a_first_admin_once_and_prints_its_login(db, capsys):
    call_command("ensure_admin")
    first = capsys.readouterr().out
    admin = get_user_model().objects.get(username="admin")
    password = first.split("password '")[1].split("'")[0]
    assert admin.is_superuser and admin.check_password(password)

    call_command("ensure_admin")
    assert capsys.readouterr().out == ""
    assert get_user_model().objects.filter(is_superuser=True).count() == 1
