"""The project a hook writes to is named by the git remote, so clones share memory."""
import pytest

from engram_client.project import normalise_remote, project_for


@pytest.mark.parametrize("remote", [
    "git@github.com:Acme/Shop.git",
    "https://github.com/acme/shop",
    "https://dev:token@github.com/acme/shop.git/",
    "ssh://git@github.com:22/acme/shop.git",
])
def test_every_spelling_of_one_remote_names_one_project(remote):
    assert normalise_remote(remote) == "github.com/acme/shop"


def test_two_repositories_on_one_host_stay_apart():
    assert normalise_remote("git@github.com:acme/shop.git") != \
        normalise_remote("git@github.com:acme/shop-admin.git")


def _repository(folder, remote=None):
    (folder / ".git").mkdir(parents=True)
    config = "[core]\n\tbare = false\n"
    if remote:
        config += f'[remote "origin"]\n\turl = {remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
    (folder / ".git" / "config").write_text(config)
    return folder


def test_two_clones_of_one_repository_share_a_project(tmp_path):
    first = _repository(tmp_path / "work" / "shop", "git@github.com:acme/shop.git")
    second = _repository(tmp_path / "elsewhere" / "shop-copy", "https://github.com/acme/shop")
    (first / "src" / "deep").mkdir(parents=True)
    assert project_for(str(first / "src" / "deep")) == project_for(str(second)) \
        == "github.com/acme/shop"


def test_a_worktree_finds_its_main_repositorys_remote(tmp_path):
    main = _repository(tmp_path / "shop", "git@github.com:acme/shop.git")
    worktree_git = main / ".git" / "worktrees" / "feature"
    worktree_git.mkdir(parents=True)
    (worktree_git / "commondir").write_text("../..\n")
    worktree = tmp_path / "shop-feature"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {worktree_git}\n")
    assert project_for(str(worktree)) == "github.com/acme/shop"


def test_a_repository_without_a_remote_is_named_by_its_top_folder(tmp_path):
    top = _repository(tmp_path / "notes")
    (top / "drafts").mkdir()
    assert project_for(str(top / "drafts")) == "notes"


def test_outside_git_the_folder_names_the_project(tmp_path):
    folder = tmp_path / "scratch"
    folder.mkdir()
    assert project_for(str(folder)) == "scratch"
