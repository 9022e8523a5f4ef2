"""The `rules` extraction provider: sentence patterns instead of a model, fully offline.

It reads a chunk of "role: text" lines (see chunking.render_messages) sentence by sentence
and keeps the sentences a coding agent would want next session, whole and cleaned of
their role and of leading fillers ("So,", "Ok,", "FYI"):

- errors, merged with the cause and fix that follow within three sentences into ONE
  memory ("X fails with Y; the root cause is Z; pinning W fixed it": a fix is a fix cue,
  a change verb, or the speaker's own past-tense change, "We raised ..."), and a fix
  reported with no error sentence, an action as the subject of what it did ("Filtering
  by X made the duplicates disappear"), merged with the problem stated just before it:
  episodic / error. Error words naming a setting ("a 30 minute timeout", "error
  tracking"), or said not to have happened ("without a failure"), do not make an error,
  nor does a user's rule about errors ("Prefer raising specific exceptions"); a sentence
  pointing back at the error ("That's a known bug in ...") diagnoses it, and running out
  of a resource ("ran out of connections") is one;
- decisions ("let's go with", "we'll use", "we're keeping", "replacing X with Y",
  "switched from X to Y", "X will be Y", "X it is"), and an assistant's proposal the
  user takes in a word ("I suggest we ..." / "Agreed, do that."): semantic / decision;
- preferences ("I prefer / like / don't like / 'd rather", "please always / don't"):
  semantic / preference;
- instructions from the user: obligations ("must", "should stay", "needs to", "we
  never") and imperatives that read as standing rules rather than one-off tasks ("Never
  force-push", "Before merging, rebase on main"; not "run it"), and prohibitions ("No
  summaries at the end of a reply"): procedural / instruction. A user's one-off task
  ("Rename the variable tmp in sync.py") is not kept;
- workflows ("To deploy, we ...", "Run the suite with `make test`"): procedural / workflow;
- facts about the project and its environment, when they name something technical (a
  version, path, port, known technology or identifier) and either have a fact shape ("X
  runs on / uses / lives in / listens on / is stored in / defaults to / is pinned to",
  "is <done> under / by / as ...", "N by default", "at most N", "we're on ...") or are a
  user's own plain statement; a user's statement that sets one thing against another
  ("X, not Y", "rather than") or tells how the team works ("We do trunk-based
  development") needs nothing technical; a short or "It ..." answer to a technical
  question is kept with its question, and the assistant's answer to the user's question
  about this project ("where do the logs end up in prod?") alone: semantic / fact.

It drops questions, greetings, thanks, hedged sentences ("maybe", "might", "I wonder",
"not sure"), the assistant's narration and filler ("Sure, I can help", "Let me look",
"I'll add ..."), system prompts, tool output, fenced code, sentences of fewer than four
words and memories of fewer than three content words.

What it misses: statements with no cue it knows ("Reviews need two approvals"), an
assistant's explanations of the project in free wording ("Logs are JSON lines on
stdout"), decisions made by a bare choice ("B.", "No, REST only."), pronouns it cannot
resolve, and which of two statements wins when they conflict. It keeps sentences whole,
so a memory can carry a clause that did not matter, and a user's opinion that names a
technology ("Celery feels heavy") passes for a fact.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .dedup import details
from .extraction import ExtractedEntity, ExtractedMemory, Extraction, GateDecision
from .importance import base_importance

MIN_CONTENT_WORDS = 3
FIX_LOOKAHEAD = 3  # informative sentences after an error that may hold its cause or fix
USER_STATEMENT_WORDS = 6  # a user's plain technical statement this long is kept
PROBLEM_LOOKBEHIND = 2  # statements before a lone fix that may describe its problem
DUPLICATE_OVERLAP = 0.8  # share of content words two texts must share to say the same

_KIND_TYPE = {
    "error": "episodic",
    "decision": "semantic",
    "preference": "semantic",
    "fact": "semantic",
    "instruction": "procedural",
    "workflow": "procedural",
}

# A gap between two cues ("returned ... 404", "replace X with") is bounded: unbounded, it
# was read again from every occurrence of the first cue.
_I = re.IGNORECASE
_ROLE_PREFIX = re.compile(r"^(user|human|assistant|ai|system|tool)\s*:\s*", _I)
_ROLE_NAMES = {"human": "user", "ai": "assistant"}
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[\"'`(\[]?[A-Z0-9@/~])")
_LEADING_FILLER = re.compile(
    r"^(?:(?:ok|okay|alright|all right|right|well|yes|yeah|yep|no|nope|ah|oh|hmm|good|great|"
    r"cool|nice|perfect|exactly|sure|thanks|thank you|got it|understood|makes sense|"
    r"sounds good|quick note|note|heads up|also|anyway|done|honestly)\s*[,:;!.\-–—]+\s*"
    r"|(?:so|and|but|also|btw|fyi|then|plus)\b[,:]?\s+)+", _I)

_QUESTION = re.compile(r"\?\s*[\"')\]]*$")
_HEDGE = re.compile(
    r"\b(maybe|perhaps|might|may be|possibly|possible|probably|i wonder|wondering|not sure|"
    r"i think|i guess|i suppose|could try|we could|thinking out loud|at some point|"
    r"in theory|not now|someday)\b", _I)
_CHATTER = re.compile(
    r"\b(thanks|thank you|hello|hi there|good morning|how's it going|sounds good|no problem|"
    r"never mind|fair enough|lol|haha|glad to hear|let me know|happy to help|"
    r"great question|you're welcome)\b", _I)
_ASSISTANT_NARRATION = re.compile(
    r"^(sure|of course|certainly|absolutely|happy to|glad|i can|i'll|i will|i'm going to|"
    r"i am going to|i won't|let me|let's see|here's|here is|here are|i see|i've|i have|"
    r"now i|next i|running|looking|checking|done|noted|will do|understood|got it|"
    r"all green|that works|good)\b", _I)
_ASSISTANT_DECISION = re.compile(r"\b(stick with|go with|switch to|use|keep using)\b", _I)

_ERROR = re.compile(
    r"\b(errors?|(?<!no )exceptions?|traceback|fail(s|ed|ing|ure)?|crash(es|ed|ing)?|"
    r"broke|broken|blows? up|blew up|exit(s|ed|ing)? with|exit code|timed out|times? out|time ?outs?|oom|"
    r"out of memory|segfault\w*|refused|denied|cannot|can't|could not|couldn't|unable to|"
    r"not found|(does not|doesn't|no longer) (exist|work)|flaky|breaks|bug|regression|"
    r"dies|died|hang(s|ing)?|leaks?|blocked|rejected|r[au]n(s|ning)? out of|exhausted|"
    r"too many (clients|connections|requests|open files|processes))\b", _I)
_ERROR_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception|Exit)\b|\b(got|gives|returns?|returned|"
                         r"raises?|raised|throws?)\b[^.]{0,200}\b[45]\d\d\b")
# Error words naming a setting, not an event: "a 30 minute timeout", "timeout of 10 s",
# "error tracking", "exception handler". A sentence is an error report only for what
# is left once these are taken out.
_SETTING_NOUN = re.compile(
    r"\b\d+(\.\d+)?\s*-?\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?|"
    r"days?)[- ]?(time ?outs?|limits?)\b"
    r"|\b(time ?outs?|retries)\s*(of|is|are|=|:|to|at)\s*\d"
    r"|\b(time ?out|errors?|exceptions?|crash|failures?|bugs?)[- ](handling|handlers?|tracking|"
    r"trackers?|reporting|reports?|rates?|budgets?|pages?|messages?|codes?|logging|logs?|"
    r"monitoring|settings?|values?|classes|types?|hierarch\w+)\b", _I)
# Error words said not to have happened: "ran it 50 times without a failure", "no errors
# since". A sentence reporting that is no error report.
_DENIED_ERROR = re.compile(
    r"\b(without|no|zero|never (a|an|any)?|not (a|an|one|any)?)\s*(a |an |any |single |more )?"
    r"(errors?|exceptions?|failures?|fail(s|ed)?|crash(es)?|timeouts?|regressions?|bugs?)\b", _I)
_FIX = re.compile(
    r"\b(fix(es|ed)? (it|this|that|the)|the (real )?fix|fixed|solved|solves|resolved|"
    r"resolves|workaround|root cause|caused by|because|turn(s|ed)? out|"
    r"the (problem|issue|cause) (is|was)|means|instead|avoids?|"
    r"works now|now works|is gone|found (it|the (bug|cause|culprit|problem|issue))|"
    r"the culprit)\b",
    _I)
# Cues that a sentence reports a fix even when no error sentence came before it.
_STRONG_FIX = re.compile(
    r"\b(fixed|solved|resolved|root cause|workaround|the (real )?fix|"
    r"works now|now works|turn(s|ed)? out|found (it|the (bug|cause|culprit|problem|issue))|"
    r"the culprit)\b", _I)
# What an action did, said with the action as the subject ("Pinning X stopped the crashes",
# "Filtering by Y makes the duplicates disappear"): a fix whatever words follow the verb.
_ACTION_RESULT = re.compile(
    r"^(?!(?:during|according|including|regarding|nothing|something|everything|morning|"
    r"evening|string|spring)\b)[a-z]+ing\b[^.;?]{0,120}?\b(makes?|made|stops?|stopped|"
    r"fix(es|ed)?|solves?|solved|prevents?|prevented|removes?|removed|keeps?|kept|gets?|got|"
    r"lets?)\b", _I)
# A change the speaker made, told in the past tense ("We raised the limit", "I moved ..."):
# after an error, the likeliest report of its fix.
_CHANGE_MADE = re.compile(r"^(i|we)\s+(\w+ly\s+)?\w+ed\b", _I)
_FIX_ACTION = re.compile(
    r"\b(upgrad\w+|downgrad\w+|pin(ned|ning)?|install\w*|import|set(ting)?|add(ed|ing)?|"
    r"remov\w+|renam\w+|restart\w*|rais(e|ed|ing)|increas\w+|switch\w*|"
    r"point(ed|ing)?|recreat\w+|clear(ed|ing)?|delet\w+|revert\w*|bump\w*|mock\w*|"
    r"chang(e|ed|ing)|filter\w*)\b", _I)

_PREFERENCE = re.compile(
    r"\b(i (really |much |strongly )?(prefer|like|love|hate|dislike|don't like|do not like|"
    r"want you to|would rather|would like)|i'd (rather|prefer|like)|my preference|"
    r"please (always|never|don't|do not|avoid|stop|keep|use))\b", _I)
_DECISION = re.compile(
    r"\b(decided|decide to|decision is|let's (go with|use|stick with|keep|switch|move|not|"
    r"do|make|store|put)|we('ll| will) (use|go with|stick with|keep|switch|move|cache|store|"
    r"run|ship|drop|replace|support)|(we're|we are|i'm|i am) (going with|using|keeping|"
    r"switching|moving|replacing|dropping|standardi[sz]ing)|going forward we|chose|"
    r"opted (for|to)|settled on|switched to|replac(e|ed|ing) [\w\s,.-]{1,80} with|"
    r"(will|are going to) be|stick with|we keep|go with|^[\w\s.-]{1,30} it is|"
    r"(moved|migrated|switched|changed) [\w\s-]{0,40}?\bto)\b", _I)
# One thing set against another: "off the release tag, not main", "X rather than Y".
_CONTRAST = re.compile(r", not (?!sure|yet|now|really|quite)\w|\b(rather than|instead of)\b", _I)
# An assistant's proposal, and the user taking it in a word or two: the proposal is then a
# decision ("I suggest we keep uploads in S3" / "Agreed, do that").
_PROPOSAL = re.compile(
    r"^(i('d| would)? (suggest|recommend|propose)( that)?|my (suggestion|recommendation|"
    r"proposal) (is|would be)( to| that)?|we could|we should|how about|what about|"
    r"should we|shall we)\s+", _I)
_ACCEPTANCE = re.compile(
    r"^(((agreed|agree|yes|yep|yeah|ok|okay|sure|sounds good|sgtm|lgtm|perfect|great|"
    r"good (idea|call)|makes sense|fine|works for me|approved|please)[\s,.!]*+)*"
    r"((let's )?(do|go with|go for) (that|it|this)( then)?|go ahead|ship it|"
    r"yes,? please)?|agreed|good (idea|call)|approved|works for me|sounds good|sgtm|lgtm)"
    r"[\s,.!]*+$", _I)
_FIRST_PERSON = re.compile(r"^(i|i'm|i've|i'll|i'd|let's|let me|we'll|we should)\b", _I)
_PRONOUN_START = re.compile(r"^(it|this|that|there|these|those|they)\b", _I)
_POINTS_BACK = re.compile(r"^(it|this|that)\b", _I)  # not "There is also a ..."
_INSTRUCTION_START = re.compile(
    r"^(please\s+)?(always|never|don't|do not|make sure|be sure|remember to|avoid|only|keep|"
    r"use|write|store|mock|pin|prefer|stop|name|commit|document|ask|retry|log|put|call|run|"
    r"check|test|validate|return|raise|send|cache|limit|wrap|add|give|treat|leave|point out|"
    r"skip|list|show|tell|mention|explain|include|exclude|split|merge|squash|rebase|sort|"
    r"format|lint|type|annotate|prefix|suffix|tag|label|link|cite|quote|escape|sanitize|"
    r"encrypt|hash|compress|paginate|batch|stream|default|fall back|fail|warn|print|"
    r"comment|review|read|load|save|serve|deploy|release|publish|ship|build|install|"
    r"upgrade|update|bump|lock|require|reply|answer|respond|start|finish|end)\b", _I)
# An imperative may follow a leading adverbial: "Before merging, rebase on main".
_LEAD_IN = re.compile(
    r"^(for|in|on|with|when|whenever|if|before|after|once|during) [^:,]{1,60}[:,]\s*", _I)
# The verbs a one-off task opens with ("Rename the variable tmp in sync.py"): a user's
# imperative that is no standing rule is a task for now, not a fact to keep.
_TASK_START = re.compile(
    r"^(please\s+)?(rename|fix|refactor|move|change|create|implement|make|replace|extract|"
    r"inline|clean up|tidy|look (at|into)|investigate|debug|try|revert|delete|remove|"
    r"drop|convert|rewrite|open|close|bump|update|add|write|run|check|test)\b", _I)
# A question about this project rather than general knowledge: it names the project's
# own places ("in prod", "our", "the frontend") or a file, flag or identifier of it.
_ABOUT_PROJECT = re.compile(
    r"\b(we|our|us|prod|production|staging|this (repo|project|codebase|app|service))\b"
    r"|\bthe (frontend|backend|app|api|service|server|project|repo|codebase|build|pipeline|"
    r"ci|cluster|database|db|worker|workers|deploy|docs)\b|(?<!\w)--\w", _I)
# A question that weighs options asks for advice, and its answer is no fact yet.
# So does a question of how to do something, or whether it can be done ("how do I undo
# a commit?", "can we use async views?"): its answer is general knowledge.
_DELIBERATION = re.compile(
    r"\b(should|shall|could|would|better|worth)\b|\bor\b"
    r"|^(how (do|can|should|would) (i|we|you)|how to|can (i|we|you)|is it possible)\b", _I)
# A standing rule that names errors ("Never swallow exceptions", "Prefer raising ..."),
# not a report ("Never had a single failure", "Check why the deploy fails").
_RULE_ABOUT_ERRORS = re.compile(
    r"^(please\s+)?(always|never|don't|do not|prefer|avoid|only)\s+"
    r"(?!(had|has|was|were|been|saw|seen|got|gotten|did)\b)\w+", _I)
# A prohibition said as "No <things> ...": "No summaries at the end of a reply".
# "No data was lost", "No users complained" tell what happened: a verb follows the noun.
_PROHIBITION = re.compile(
    r"^no (?!(idea|problem|problems|worries|luck|way|clue|need|rush|change|changes|"
    r"difference|response|reply|answer|one|thanks|matter|longer|more|doubt|exceptions?)\b)"
    r"\w+(?![^.,;:]*\b(is|are|was|were|has|have|had|do|does|did|will|would|can|could|"
    r"should|may|might|must|seems?|gets?|got|ran|runs?|went|goes|came|comes|\w{2,}ed)\b)",
    _I)
# How the team works, said by the user in the present ("We do trunk-based development").
_TEAM_PRACTICE = re.compile(
    r"^we (always |usually |normally )?(do|follow|use|run|deploy|release|ship|work|keep|host|"
    r"build|practi[cs]e|squash|merge|rebase|review|tag|version|test|store|pin|vendor)\b", _I)
_PRONOUN_OBJECT = re.compile(r"^(please\s+)?\w+ (it|that|this|them|those)\b", _I)
_GENERALITY = re.compile(
    r"\b(always|never|every|each|all|any|whenever|unless|otherwise|instead|by default|"
    r"then|only|not|no)\b|`", _I)
_PRONOUN_ANSWER = re.compile(r"^(it|they|that one)\b", _I)
_OBLIGATION = re.compile(
    r"\b(must|mustn't|must not|should (always|never|not|stay|be|only|remain)|shouldn't|"
    r"have to|has to|needs? to|is required|are required|not allowed|from now on|"
    r"going forward|in this (codebase|repo|repository|project)|"
    r"we (always|never|avoid|don't|do not|only|prefer|require))\b"
    r"|(?<!\bi )\b(don't|do not|never|always)\b", _I)  # not "I don't want ..."
_WORKFLOW = re.compile(
    r"^to [\w\s/.-]{2,40}, |^(run|use|call|start|invoke)\b[^.]*`[^`]+`"
    r"|\bthe command (to|for) [^.]{1,80} is\b", _I)
_FACT = re.compile(
    r"\b(uses|is using|are using|runs on|run on|runs|is running|deployed (on|to)|is deployed|"
    r"hosted on|is hosted|lives? in|is located|(is|are) stored|(is|are) kept|listens? on|"
    r"(i'm|we're|i am|we are|is|are) (still )?on|(is|are) pinned|pinned to|(is|are) written in|"
    r"(is|are) built (with|on)|depends on|requires|(is|are) configured|(is|are) set to|"
    r"defaults? to|the default is|by default|at most|capped at|limited to|points? to|"
    r"(is|are) served|stays?|(is|are) only available|comes? from|"
    r"(is|are) (read|loaded|generated|handled|owned|filtered|served) (from|by|in)|"
    # the passive of how a thing is set up: "is versioned under", "are injected as"
    r"(is|are)\s+(\w+ly\s+)?\w+(ed|en)\s+(under|in|on|by|with|from|at|to|as|through|via|"
    r"behind)|"
    r"(is|are) now|(is|are) [^.,;]{1,30} now|we (use|run|deploy|host|build))\b", _I)

_TECHNOLOGY_NAMES = (
    "Postgres", "PostgreSQL", "pgvector", "SQLite", "MySQL", "MariaDB", "Redis", "MongoDB",
    "Elasticsearch", "Kafka", "RabbitMQ", "Django", "DRF", "Flask", "FastAPI", "Celery",
    "Huey", "htmx", "React", "Svelte", "Vue", "Angular", "TypeScript", "JavaScript", "Node",
    "Node.js", "npm", "pnpm", "yarn", "Python", "pytest", "unittest", "ruff", "flake8",
    "isort", "mypy", "pyright", "Docker", "Kubernetes", "nginx", "gunicorn", "uvicorn",
    "GitHub", "GitLab", "Bitbucket", "AWS", "S3", "GCP", "Azure", "Ubuntu", "Debian", "Alpine",
    "macOS", "Linux", "Windows", "ONNX", "MiniLM", "OpenAI", "Anthropic", "Ollama", "Claude",
    "HNSW", "Terraform", "Ansible", "Rust", "Java", "Kotlin", "Swift", "git", "Sentry",
    "Prometheus", "Grafana", "Jenkins", "CircleCI", "Vite", "webpack", "Tailwind", "Bootstrap",
    "Jinja", "GraphQL", "gRPC", "JWT", "OAuth", "CSRF", "CORS", "UTC", "Heroku", "Vercel",
    "Netlify", "Fly.io", "Supabase", "Firebase", "SQLAlchemy", "Alembic", "Pydantic", "NumPy",
    "pandas", "PyTorch",
)
_TECHNOLOGIES = {name.casefold(): name for name in _TECHNOLOGY_NAMES}
_TECHNOLOGY = re.compile(
    r"(?<![\w.-])(" + "|".join(re.escape(n) for n in sorted(_TECHNOLOGIES, key=len, reverse=True))
    + r"|github actions)(?![\w-])", _I)
# A path starts where a run of path characters starts, never inside one ("----..."
# would be read again from each character).
_PATH = re.compile(r"(?<![\w@.-])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+|(?<![\w/.-])[\w.-]+\.(?:py|js|"
                   r"ts|tsx|jsx|md|toml|yaml|yml|json|cfg|ini|txt|sh|sql|html|css|rs|go|env)\b")
_CODE_SPAN = re.compile(r"`([^`\n]{2,60})`")
_IDENTIFIER = re.compile(r"\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z][A-Z0-9]*_[A-Z0-9_]+"
                         r"|[a-z][a-z0-9]*_[a-z0-9_]+|[A-Z]{2,}[a-z]{2,}\w*)\b")
_VERSION_OR_PORT = re.compile(r"\b\d+(\.\d+)+\b|\bport \d+|\b\d{2,5}\b|\bv\d+\b", _I)
_DOTTED_OR_ASSIGNED = re.compile(r"\b[a-z_]{2,}\.[a-z_]{2,}\w*|\b\w+=\S+")
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-zA-Z0-9]{2,}\b(?!-)")
_TAG_WORDS = ("test", "migration", "deploy", "database", "queue", "cache", "api", "ci",
              "docker", "security", "performance", "dependency", "config", "commit")


@dataclass(frozen=True)
class _Sentence:
    role: str  # "user", "assistant", or "" when the text names no speaker
    text: str
    filler: bool = False  # filler alone ("Sounds good."): read only as an acceptance


def gate(text: str) -> GateDecision:
    """Worth extracting when the rules would keep at least one memory."""
    kinds = [m.kind for m in extract(text).memories]
    if not kinds:
        return GateDecision(worth_remembering=False,
                            reason="no decision, preference, instruction, error or fact found")
    found = ", ".join(sorted(set(kinds)))
    return GateDecision(worth_remembering=True, reason=f"{len(kinds)} candidate(s): {found}")


def extract(text: str, *, existing: Sequence[str] = ()) -> Extraction:
    """Memories the rules find in a chunk, less those that restate `existing` contents."""
    kept = [details(content) for content in existing]
    memories = []
    for kind, content in _classified(_sentences(text)):
        words = details(content)
        if len(words) < MIN_CONTENT_WORDS or any(_same(words, other) for other in kept):
            continue
        kept.append(words)
        memories.append(_memory(kind, content))
    return Extraction(memories=memories)


def _sentences(text: str) -> list[_Sentence]:
    found, role, in_code = [], "", False
    for line in text.splitlines():
        prefix = _ROLE_PREFIX.match(line)
        if prefix:
            role = _ROLE_NAMES.get(prefix.group(1).lower(), prefix.group(1).lower())
            line = line[prefix.end():]
            in_code = False
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or role in ("system", "tool"):
            continue
        for part in _SENTENCE_BREAK.split(line):
            if cleaned := _clean(part):
                found.append(_Sentence(role, cleaned))
            elif part.strip():  # filler alone ("Sounds good."): kept as an acceptance
                found.append(_Sentence(role, part.strip(), filler=True))
    return found


def _clean(sentence: str) -> str:
    sentence = _LEADING_FILLER.sub("", sentence.strip()).strip(" -–—*>#")
    return sentence[:1].upper() + sentence[1:] if sentence else ""


def _is_question(sentence: _Sentence) -> bool:
    return bool(_QUESTION.search(sentence.text))


def _is_noise(sentence: _Sentence) -> bool:
    text = sentence.text
    return (len(text.split()) < 4 or _is_question(sentence) or bool(_HEDGE.search(text))
            or bool(_CHATTER.search(text)))


def _is_error(text: str, role: str = "") -> bool:
    """An error report; a user's rule about errors ("Prefer raising specific exceptions
    over returning None", "Never retry on 4xx errors") is an instruction, not one."""
    if role == "user" and (_PREFERENCE.search(text) or _RULE_ABOUT_ERRORS.match(text)):
        return False
    text = _DENIED_ERROR.sub(" ", _SETTING_NOUN.sub(" ", text))
    return bool(_ERROR.search(text) or _ERROR_NAME.search(text))


def _classified(sentences: Sequence[_Sentence]) -> list[tuple[str, str]]:
    """(kind, content) for what is worth keeping. An error absorbs the cause and fix that
    follow it; a fix with no error before it absorbs the problem statement just before
    it; a short or "It ..." answer takes the question it answers as its subject."""
    found: dict[int, tuple[str, str]] = {}  # first sentence -> (kind, content)
    informative = [i for i, s in enumerate(sentences) if not _is_noise(s)]
    used: set[int] = set()
    for index, sentence in enumerate(sentences):
        if index in used:
            continue
        if _is_question(sentence):
            reply = _reply(sentences, index)
            if reply is None:
                continue
            if _answer(sentence, sentences[reply]):
                found[index] = ("fact", f"{sentence.text} {_join([sentences[reply].text])}")
                used.add(reply)
            elif _answers_about_project(sentence, sentences[reply]):
                found[reply] = ("fact", _join([sentences[reply].text]))
                used.add(reply)
            continue
        proposal = _accepted_proposal(sentences, index)
        if proposal is not None:
            found[proposal] = ("decision", _join([_proposed(sentences[proposal].text)]))
            continue
        if _is_noise(sentence):
            continue
        result = bool(_ACTION_RESULT.search(sentence.text))
        is_error = _is_error(sentence.text, sentence.role)
        has_fix = result or bool(_FIX.search(sentence.text))
        strong_fix = result or (has_fix and bool(_STRONG_FIX.search(sentence.text)))
        if (is_error and not has_fix) or strong_fix:
            start = index if is_error else _problem_start(sentences, informative, found, index)
            stop = _fix_end(sentences, informative, index)
            if stop > index + 1 or start < index or strong_fix or (
                    _ERROR_NAME.search(sentence.text) or sentence.role != "assistant"):
                parts = [i for i in informative if start <= i < stop]
                for part in parts:
                    found.pop(part, None)
                found[start] = ("error", _join(sentences[i].text for i in parts))
                used.update(parts)
            continue
        kind = _kind(sentence)
        if kind:
            found[index] = (kind, _join([sentence.text]))
    return [found[index] for index in sorted(found)]


def _accepted_proposal(sentences: Sequence[_Sentence], index: int) -> int | None:
    """The assistant's proposal that the user's sentence at `index` accepts in a word
    ("Agreed, do that."), if it opens the user's turn right after the assistant's and the
    proposal was the assistant's last word."""
    sentence = sentences[index]
    if sentence.role != "user" or index == 0 or sentences[index - 1].role != "assistant" \
            or not _ACCEPTANCE.match(sentence.text):
        return None
    # the assistant's last word before the acceptance, filler and chatter aside: a
    # proposal it went on to set against another ("We could use Redis. But ...") is not
    # what the user took
    last = next((i for i in range(index - 1, -1, -1)
                 if sentences[i].role != "assistant" or not _is_noise(sentences[i])
                 or _PROPOSAL.match(sentences[i].text)), None)
    if last is None or sentences[last].role != "assistant" \
            or not _PROPOSAL.match(sentences[last].text) or _is_question(sentences[last]):
        return None
    return last


def _proposed(text: str) -> str:
    """The proposal without its lead: "I suggest we store X" is "Store X"."""
    rest = _PROPOSAL.sub("", text, count=1)
    rest = re.sub(r"^(we|you|i)\s+(should\s+|could\s+)?", "", rest, flags=_I)
    return rest[:1].upper() + rest[1:]


def _problem_start(sentences: Sequence[_Sentence], informative: Sequence[int],
                   found: dict, fix: int) -> int:
    """The first of up to two statements right before a fix that describe its problem:
    sentences kept as mere facts or not kept at all, never a question or a decision."""
    start = fix
    for index in reversed([i for i in informative if i < fix][-PROBLEM_LOOKBEHIND:]):
        if found.get(index, ("fact",))[0] != "fact" or _is_question(sentences[index]):
            break
        start = index
    return start


def _reply(sentences: Sequence[_Sentence], question: int) -> int | None:
    """The sentence that answers the question at `question`: the next one, filler aside."""
    return next((i for i in range(question + 1, len(sentences))
                 if not sentences[i].filler), None)


def _answer(asked: _Sentence, reply: _Sentence) -> bool:
    """Whether `reply` answers a technical question but cannot stand alone ("Node 20.")."""
    if not _is_technical(asked.text) or reply.role == asked.role or _is_question(reply) \
            or _HEDGE.search(reply.text) or _CHATTER.search(reply.text):
        return False
    short = len(reply.text.split()) < 4 and _is_technical(reply.text)
    return short or bool(_PRONOUN_ANSWER.match(reply.text))


def _answers_about_project(asked: _Sentence, reply: _Sentence) -> bool:
    """Whether the assistant's next sentence answers the user's question about this
    project ("where do the logs end up in prod?" / "Logs go to stdout as JSON ..."):
    a statement that stands alone, of some length. A question of general
    knowledge ("what's the difference between X and Y?") or one weighing options
    ("should we ...", "X or Y?") gets no memory."""
    return (asked.role == "user" and reply.role == "assistant"
            and bool(_ABOUT_PROJECT.search(asked.text))
            and not _DELIBERATION.search(asked.text) and not _is_noise(reply)
            and not _PRONOUN_START.match(reply.text)
            and not _ASSISTANT_NARRATION.search(reply.text)
            and len(reply.text.split()) >= USER_STATEMENT_WORDS)


def _fix_end(sentences: Sequence[_Sentence], informative: Sequence[int], error: int) -> int:
    """One past the last sentence holding the cause or fix of the error at `error`."""
    end = error + 1
    for index in [i for i in informative if i > error][:FIX_LOOKAHEAD]:
        text = sentences[index].text
        error = _is_error(text)
        if _FIX.search(text) or _ACTION_RESULT.search(text) or (
                (_FIX_ACTION.search(text) or _CHANGE_MADE.search(text)) and not error) \
                or (error and _POINTS_BACK.match(text)):  # "That's a known bug in ..."
            end = index + 1
        elif error:
            break
    return end


def _kind(sentence: _Sentence) -> str | None:
    text, role = sentence.text, sentence.role
    if role == "assistant" and _ASSISTANT_NARRATION.search(text):
        return "decision" if text.lower().startswith(("i'll", "i will")) and \
            _ASSISTANT_DECISION.search(text) else None
    if _is_error(text, role):
        return "error"
    if _PREFERENCE.search(text) and role != "assistant":
        return "preference"
    if _DECISION.search(text) and not _PRONOUN_START.search(text):
        return "decision"
    if role != "assistant" and _is_rule(text):
        return "workflow" if _WORKFLOW.search(text) else "instruction"
    if _WORKFLOW.search(text):
        return "workflow"
    if _FACT.search(text) and _is_technical(text):
        return "fact"
    if role == "user" and _is_user_statement(text):
        return "fact"
    return None


def _is_user_statement(text: str) -> bool:
    """A user's own plain statement naming something specific, or setting one thing
    against another ("X, not Y"), is told to be kept; an assistant's is more often
    explanation, so those need one of the cues above."""
    return (len(text.split()) >= USER_STATEMENT_WORDS and not _FIRST_PERSON.match(text)
            and not _TASK_START.match(_LEAD_IN.sub("", text))
            and (any(p.search(text) for p in (_TECHNOLOGY, _PATH, _CODE_SPAN, _IDENTIFIER,
                                                _DOTTED_OR_ASSIGNED))
                 or bool(_CONTRAST.search(text)) or bool(_TEAM_PRACTICE.match(text))))


def _is_rule(text: str) -> bool:
    """An instruction meant to hold beyond this moment, not a one-off task ("run it")."""
    if _OBLIGATION.search(text) or _PROHIBITION.match(text):
        return True
    imperative = _INSTRUCTION_START.match(_LEAD_IN.sub("", text))
    return bool(imperative) and not _PRONOUN_OBJECT.match(imperative.string) and (
        bool(_GENERALITY.search(text)) or len(text.split()) >= 8)


def _is_technical(text: str) -> bool:
    return any(p.search(text) for p in (_TECHNOLOGY, _PATH, _CODE_SPAN, _IDENTIFIER,
                                        _VERSION_OR_PORT, _DOTTED_OR_ASSIGNED))


def _join(parts: Iterable[str]) -> str:
    """Sentences as one memory: "Error X; the cause Y; fixed by Z."."""
    parts = [p.rstrip(" .") for p in parts]
    joined = "; ".join([parts[0]] + [_lower_first(p) for p in parts[1:]])
    return joined if joined.endswith(("!", "`", ")", '"', "'")) else joined + "."


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first[1:].islower() else text


def _same(words: frozenset[str], other: frozenset[str]) -> bool:
    if not words or not other:
        return words == other
    return len(words & other) / min(len(words), len(other)) >= DUPLICATE_OVERLAP and \
        len(words & other) / max(len(words), len(other)) >= DUPLICATE_OVERLAP / 2


def _memory(kind: str, content: str) -> ExtractedMemory:
    return ExtractedMemory(
        content=content[:2_000],
        memory_type=_KIND_TYPE[kind],
        kind=kind,
        importance=base_importance(content, kind=kind),
        tags=_tags(kind, content),
        entities=named_entities(content),
    )


def _tags(kind: str, content: str) -> list[str]:
    lowered = content.casefold()
    tags = [kind]
    tags += [_TECHNOLOGIES.get(m.casefold(), m).casefold() for m in _TECHNOLOGY.findall(content)]
    tags += [word for word in _TAG_WORDS if re.search(rf"\b{word}(s|es|ed|ing)?\b", lowered)]
    return list(dict.fromkeys(tags))[:6]


def named_entities(content: str) -> list[ExtractedEntity]:
    found: dict[str, str] = {}
    for match in _TECHNOLOGY.findall(content):
        found.setdefault(_TECHNOLOGIES.get(match.casefold(), match), "technology")
    for match in _PATH.findall(content):
        found.setdefault(match.rstrip(".,;:"), "file")
    for match in _CODE_SPAN.findall(content) + _IDENTIFIER.findall(content):
        found.setdefault(match, "code")
    for match in _NAME.findall(content):
        found.setdefault(match, "name")
    return [ExtractedEntity(name=name[:200], type=kind) for name, kind in found.items()][:20]
