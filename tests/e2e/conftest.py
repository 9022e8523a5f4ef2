"""End-to-end tests: a real headless Chromium (Debian's, never a downloaded build) driven
by Playwright against pytest-django's live server on the test database."""

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
# around it are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"The end-to-end tests need Debian's chromium at {CHROMIUM}: `make test` "
                    "installs it as root, or run `apt-get install chromium`.")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run"])
        yield browser
        browser.close()


def is_csp_violation(message) -> bool:
    return "Content Security Policy" in message.text


@pytest.fixture
def csp_violations():
    """What the browser refused under the Content-Security-Policy, from its console."""
    return []


@pytest.fixture
def page(browser, live_server, transactional_db, csp_violations):
    context = browser.new_context(base_url=live_server.url,
                                  viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.on("console", lambda message: is_csp_violation(message)
            and csp_violations.append(f"{page.url}: {message.text}"))
    yield page
    context.close()
    # Every browser test doubles as a check of the policy against what the page does.
    assert not csp_violations, "\n".join(csp_violations)


@pytest.fixture
def screenshot():
    """Saves full-page screenshots into ENGRAM_SCREENSHOTS (docs/screenshots for the
    README); without it, nothing is written."""
    target = os.environ.get("ENGRAM_SCREENSHOTS")

    def take(page, name: str) -> None:
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(target) / f"{name}.png"), full_page=True)

    return take


def sign_in_on(page, username: str, password: str, then: str = "/") -> None:
    """Sign in through the form on `page`, which the sign-in page sends on to `then`."""
    page.goto(then)
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**{then}")


@pytest.fixture
def sign_in(page):
    def as_(username: str, password: str, then: str = "/") -> None:
        sign_in_on(page, username, password, then)

    return as_


@pytest.fixture
def page_without_javascript(browser, live_server, transactional_db):
    """A page whose browser runs no script: the screens' href and POST fallbacks."""
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False,
                                  viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()
