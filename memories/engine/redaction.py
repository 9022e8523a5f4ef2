"""What captured text loses before anything reads or stores it.

Agents hand Engram raw session text, which carries whatever the session saw: keys pasted
into a shell, a `.env` file read by a tool, a connection string in a stack trace. `scrub`
runs before the gate and the extractor, so neither a model provider nor the memory store
ever receives them:

1. `<private>...</private>` sections are dropped whole (an unclosed tag drops everything
   after it: a forgotten closing tag must not leak the rest);
2. secrets are replaced by a typed placeholder, `[REDACTED:github_token]`, so a reader
   still sees that a token was there and of what kind;
3. oversized input is cut, with a note saying how much was left out.

`redact` does the first two without cutting, for text kept whole: a memory's content
and metadata (`redact_value`) on every write, and every text sent to a model.

`storable` makes text PostgreSQL can hold, wherever captured text is stored: its NUL
characters and lone surrogates become U+FFFD.

Every pattern runs in time linear in its input: repetitions that could rescan what an
earlier attempt read are bounded or may only start where a run of their characters
starts, so text such as "a." × 10,000 cannot stall a request.

The patterns aim at secrets with a recognisable shape (vendor prefixes, PEM armour, JWTs,
`user:password@` URLs) and at values assigned to keys named like secrets. Free-standing
random strings are left alone: git SHAs, UUIDs and hashes look just as random, and
guessing would mangle ordinary text.
"""

import fnmatch
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

# Secrets crossing the cut are still seen whole: scanning goes this far past max_chars.
_SCAN_MARGIN = 8_192

_PRIVATE_BLOCK = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
_STRAY_PRIVATE_CLOSE = re.compile(r"</private>", re.IGNORECASE)

# Values that stand for a secret without being one: env references, templates, masks,
# code that fetches the secret, and a placeholder this module already wrote.
_PLACEHOLDER_VALUE = re.compile(
    r"""\$\{?\w+\}?|\{\{.*\}\}|<[^<>]*>|%\(\w+\)s|\*+|x{3,}|\.{3}|…|\[REDACTED:\w+\]
    |password|passwd|pass|secret|token|changeit|redacted|none|null|nil|true|false
    |[A-Za-z_][\w.]*\(.*\)|[A-Za-z_][\w.]*\[.*\]
    |(?:os\.environ|process\.env|settings|config|env)\.\w+""",
    re.IGNORECASE | re.VERBOSE,
)

# Key names whose value is a secret; the secret word must end the key, so "max_tokens"
# or "token_type" are not taken for one. A key is a whole run of key characters: matching
# may start only where a run starts, so a run is read once, not once per word inside it
# (starting at every word edge made "a.a.a..." cost quadratic time).
_KEY_CHARS = r"A-Za-z0-9_.\-"
_SECRET_KEY = (rf"(?<![{_KEY_CHARS}])[{_KEY_CHARS}]*(?:password|passwd|pwd|passphrase|secret"
               r"|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|auth[_\-]?key"
               r"|credentials?)")
_SECRET_KEY_NAME = re.compile(_SECRET_KEY, re.IGNORECASE)


def _token(prefix: str, body: str) -> str:
    """A token that starts at a word edge and is not part of a longer token."""
    return rf"(?<![A-Za-z0-9_\-]){prefix}{body}(?![A-Za-z0-9_\-])"


class _Rule(NamedTuple):
    kind: str
    pattern: re.Pattern
    group: int  # the group redacted: 0 for the whole match
    # whether the matched value is a secret; by default a value assigned to a key is not
    # when it stands for one (an env reference, a mask, a placeholder)
    accept: Callable[[str], bool] | None = None


# Order matters: whole PEM blocks and vendor tokens go
# first, so that the generic assignment rules later find a placeholder and skip it.
_SECRET_PATTERNS = [
    _Rule("private_key", re.compile(
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.DOTALL), 0),
    _Rule("anthropic_key", re.compile(_token("sk-ant-", r"[A-Za-z0-9_\-]{20,}")), 0),
    _Rule("openai_key", re.compile(_token(r"sk-(?:proj-|svcacct-|admin-)?",
                                     r"(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9_\-]{20,}")), 0),
    _Rule("stripe_key", re.compile(_token(r"(?:sk|rk)_(?:live|test)_", r"[A-Za-z0-9]{16,}")), 0),
    _Rule("github_token", re.compile(_token(r"gh[pousr]_", r"[A-Za-z0-9]{30,}")), 0),
    _Rule("github_token", re.compile(_token("github_pat_", r"[A-Za-z0-9_]{22,}")), 0),
    _Rule("slack_token", re.compile(_token(r"xox[abposr]-", r"[A-Za-z0-9\-]{10,}")), 0),
    _Rule("slack_webhook", re.compile(
        r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"), 0),
    # Engram's own API keys: engram_ and 32 random bytes in base64url, which hold a capital
    # or a digit (a snake_case name of the same length does not)
    _Rule("engram_key", re.compile(
        _token("engram_", r"(?=[a-z_\-]{0,42}[A-Z0-9])[A-Za-z0-9_\-]{43}")), 0),
    _Rule("google_api_key", re.compile(_token("AIza", r"[0-9A-Za-z_\-]{35}")), 0),
    _Rule("aws_access_key", re.compile(
        r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])"), 0),
    _Rule("aws_secret_key", re.compile(
        r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"), 1),
    _Rule("jwt", re.compile(_token("eyJ", r"[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}"
                                     r"\.[A-Za-z0-9_\-]{8,}")), 0),
    _Rule("bearer_token", re.compile(
        r"(?i:\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer|token)\s+)"
        r"([A-Za-z0-9._~+/=\-]{8,})"), 1),
    _Rule("basic_auth", re.compile(
        r"(?i:\bauthorization[\"']?\s*[:=]\s*[\"']?basic\s+)([A-Za-z0-9+/=]{8,})"), 1),
    # scheme://user:password@host, kept but for the password
    # (a scheme has at most 40 characters: from every word edge of a long dotted run, an
    # unbounded one would scan to the run's end)
    _Rule("url_password", re.compile(
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{0,40}://[^\s:/@\"'<>\[\]]+:([^\s@/\"'<>]+)@[\w.\-\[\]]+"), 1),
    # "password": "v", api_key = 'v', password: "v" (JSON, YAML, code)
    _Rule("secret_assignment", re.compile(
        rf"(?i:[\"']?{_SECRET_KEY}[\"']?)\s*[:=]\s*([\"'])([^\"'\n]+)\1"), 2),
    # DB_PASSWORD=v anywhere (env files, a command's environment)
    _Rule("secret_assignment", re.compile(
        r"\b(?=[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_KEY|ACCESS_KEY"
        r"|PRIVATE_KEY|AUTH_KEY|CREDENTIALS?)\b)[A-Z0-9_]+=([^\s\"'`]+)"), 1),
    # password: v  at the start of a line (YAML, env files, .netrc-like notes)
    _Rule("secret_assignment", re.compile(
        rf"(?im)^[ \t]*(?:export[ \t]+|-[ \t]+)?{_SECRET_KEY}[ \t]*[:=][ \t]*"
        r"([^\s\"'`#]+)[ \t]*(?:#.*)?$"), 1),
    # token: v, secret=v anywhere, when v looks generated (long, letters and digits; checked
    # on the match, since a lookahead rescanning the rest of the text from every key made
    # "password=" × n cost quadratic time)
    _Rule("secret_assignment", re.compile(
        rf"(?i:{_SECRET_KEY})[ \t]*[:=][ \t]*([A-Za-z0-9_\-+/=.!@%^*()&]{{16,}})"), 1,
     lambda value: _has_letter_and_digit(value) and _stands_for_a_secret(value)),
    # --password v, --api-key=v
    _Rule("secret_assignment", re.compile(
        r"(?i)(?<![\w-])--(?:[a-z0-9]+-)*(?:password|passwd|secret|token|api-key|apikey)"
        r"(?:=|[ \t]+)([^\s\"'`]+)"), 1),
]


@dataclass(frozen=True)
class Scrubbed:
    text: str
    redactions: dict[str, int] = field(default_factory=dict)  # kind -> how many
    private_dropped: int = 0  # <private> sections removed
    truncated: bool = False


def scrub(text: str, *, max_chars: int) -> Scrubbed:
    """Drop private sections, redact secrets, cap the length (content, then a note)."""
    if max_chars < 1:
        raise ValueError(f"max_chars must be positive, got {max_chars}.")
    text, private_dropped = _drop_private(text)
    scanned = text[: max_chars + _SCAN_MARGIN]
    unscanned = len(text) - len(scanned)
    scanned, redactions = _redact_secrets(scanned)
    truncated = len(scanned) > max_chars or unscanned > 0
    if truncated:
        omitted = len(scanned) - max_chars + unscanned
        scanned = f"{scanned[:max_chars]}\n[truncated: {omitted:,} characters omitted]"
    return Scrubbed(scanned, redactions, private_dropped, truncated)


def redact(text: str) -> Scrubbed:
    """Drop private sections and redact secrets, cutting nothing: for text that is kept
    whole (a memory) or handed to a model."""
    text, private_dropped = _drop_private(text)
    text, redactions = _redact_secrets(text)
    return Scrubbed(text, redactions, private_dropped)


def redact_value(value: Any, *, key: str = "") -> tuple[Any, Counter]:
    """A JSON value (a text, or an object or list of them) with every text redacted, and a
    tally by kind ("private_section" for dropped sections). A text under a key named like
    a secret ("password", "api_key") is a secret whole: the key is its context."""
    if isinstance(value, dict):
        found: Counter[str] = Counter()
        kept = {}
        for name, item in value.items():
            kept[name], item_found = redact_value(item, key=str(name))
            found += item_found
        return kept, found
    if isinstance(value, list):
        pairs = [redact_value(item, key=key) for item in value]
        return [item for item, _ in pairs], sum((found for _, found in pairs), Counter())
    if not isinstance(value, str):
        return value, Counter()
    if key and _SECRET_KEY_NAME.fullmatch(key) and value.strip() \
            and _stands_for_a_secret(value):
        return "[REDACTED:secret_assignment]", Counter(secret_assignment=1)
    result = redact(value)
    return result.text, Counter(result.redactions) + Counter(private_section=result.private_dropped)


def storable(value: Any) -> Any:
    """`value` (a text, or a JSON object or list of them, keys included) with every NUL
    character and lone surrogate, which PostgreSQL refuses in text and JSON alike, made
    U+FFFD: an agent's tool output may hold anything, and JSON's escapes bring them back."""
    if isinstance(value, dict):
        return {storable(name): storable(item) for name, item in value.items()}
    if isinstance(value, list):
        return [storable(item) for item in value]
    if not isinstance(value, str):
        return value
    return value.replace("\x00", "\ufffd").encode("utf-8", "surrogatepass") \
        .decode("utf-8", "replace")


def as_json(value):
    """A tool's input or response as the hook sent it: JSON kept as text by capture (or
    already a dict); text that is not JSON (cut, or a plain message) stays text. Storable
    throughout: capture's text holds no NUL, but its JSON escapes (`\\u0000`) bring them
    back."""
    if isinstance(value, str):
        try:
            return storable(json.loads(value))
        except (ValueError, RecursionError):  # nested past what Python walks: text too
            pass
    return storable(value)


def _drop_private(text: str) -> tuple[str, int]:
    text, dropped = _PRIVATE_BLOCK.subn("", text)
    return _STRAY_PRIVATE_CLOSE.sub("", text), dropped


def _redact_secrets(text: str) -> tuple[str, dict[str, int]]:
    redactions: Counter[str] = Counter()
    for rule in _SECRET_PATTERNS:
        text = rule.pattern.sub(lambda m, r=rule: _redact(m, r, redactions), text)
    return text, dict(redactions)


def _stands_for_a_secret(value: str) -> bool:
    return not _PLACEHOLDER_VALUE.fullmatch(value.strip())


def _has_letter_and_digit(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isascii() and c.isalpha() for c in value)


def _redact(match: re.Match, rule: _Rule, redactions: Counter) -> str:
    value = match.group(rule.group)
    accept = rule.accept or (_stands_for_a_secret if rule.group else None)
    if accept is not None and not accept(value):
        return match.group(0)
    redactions[rule.kind] += 1
    start = match.start(rule.group) - match.start()
    end = match.end(rule.group) - match.start()
    whole = match.group(0)
    return f"{whole[:start]}[REDACTED:{rule.kind}]{whole[end:]}"


def matches_skip_list(value: str, patterns: Iterable[str]) -> bool:
    """True when a tool name or path matches a shell-style pattern of the skip list.

    A pattern matches the whole value or, for a path, its file name: "*.pem" and ".env"
    skip "/srv/app/.env" and "certs/server.pem" alike. Matching is case-sensitive.
    """
    name = value.replace("\\", "/").rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(value, pattern) or fnmatch.fnmatchcase(name, pattern)
               for pattern in patterns)
