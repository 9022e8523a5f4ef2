"""hook.log, the hook's only voice, cannot fill a disk: past its size it becomes
hook.log.1, and the one before that goes."""

from engram_client import state


def test_a_log_past_its_size_is_moved_aside_and_a_new_one_begun(tmp_path, monkeypatch):
    monkeypatch.setattr(state, "LOG_MAX_BYTES", 200)
    for number in range(30):
        state.log(str(tmp_path), f"Engram answered 503 at event {number}")

    current, older = tmp_path / "hook.log", tmp_path / "hook.log.1"
    assert current.stat().st_size < 200 + 60 and older.stat().st_size < 200 + 60
    assert "event 29" in current.read_text()  # the newest line is kept
    assert sorted(path.name for path in tmp_path.iterdir()) == ["hook.log", "hook.log.1"]


def test_a_small_log_grows_in_place(tmp_path):
    for number in range(3):
        state.log(str(tmp_path), f"line {number}")
    assert (tmp_path / "hook.log").read_text().count("line") == 3
    assert not (tmp_path / "hook.log.1").exists()
