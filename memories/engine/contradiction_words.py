"""Small word lists the rules judge of contradictions reads statements with.

General English about software, not the wording of any labelled pair: each list says
what a kind of word does to a statement, and contradiction.py normalises them as it
normalises the words it reads.
"""

# A word that says the opposite of another without a negation word: read as "not" and
# the other ("disabled" is "not enabled"), so the negation rule compares them.
OPPOSITES = {
    "disabled": "enabled", "disable": "enable", "disables": "enables",
    "forbidden": "allowed", "disallowed": "allowed", "prohibited": "allowed",
    "blocked": "allowed", "banned": "allowed",
    "forbid": "allow", "forbids": "allows", "disallow": "allow", "disallows": "allows",
    "private": "public", "privately": "publicly",
    "asynchronous": "synchronous", "asynchronously": "synchronously", "async": "sync",
    "manual": "automatic", "manually": "automatically",
    "optional": "required", "optionally": "required",
    "immutable": "mutable", "hidden": "visible", "invisible": "visible",
    "unencrypted": "encrypted", "offline": "online",
    "exclude": "include", "excludes": "includes", "excluded": "included",
    "rejected": "accepted", "reject": "accept", "rejects": "accepts",
    "insecure": "secure", "unsupported": "supported", "unavailable": "available",
    "stateless": "stateful",
}
# Two words that say the same thing: read as the second. Short forms of the field too
# ("docs", "repo", "config").
SAME = {"mandatory": "required", "compulsory": "required", "permitted": "allowed",
        "docs": "documentation", "repo": "repository", "repos": "repositories",
        "config": "configuration", "configs": "configurations", "db": "database",
        "dbs": "databases", "env": "environment", "envs": "environments",
        "auth": "authentication", "deps": "dependencies", "infra": "infrastructure",
        "app": "application", "apps": "applications", "perf": "performance",
        "k8s": "kubernetes", "e2e": "end-to-end", "prod": "production",
        "authn": "authentication", "authz": "authorization", "impl": "implementation",
        "ttl": "lifetime", "idle": "inactive", "uptime": "availability",
        "dev": "development", "creds": "credentials", "cred": "credential",
        "vars": "variables", "var": "variable", "params": "parameters", "param": "parameter",
        "args": "arguments", "arg": "argument", "cfg": "configuration",
        "conf": "configuration", "pkg": "package", "pkgs": "packages", "lib": "library",
        "libs": "libraries", "dir": "directory", "dirs": "directories",
        "notif": "notification", "notifs": "notifications", "prefs": "preferences",
        "pref": "preference", "dep": "dependency", "mgmt": "management",
        "admins": "administrators", "eng": "engineering", "addr": "address",
        "tmp": "temporary",
        # the people of a field as a group: "the FE folks" are the frontend team
        "folks": "team"}
# Phrases read as another wording before the words are taken apart: a time zone other
# than UTC is "not UTC", a switch turned off is "disabled", what is kept out of a place
# is "not in" it, what keeps its session state is "stateful", "10,000" is a number and
# "half an hour" 30 minutes, to favour is to prefer.
PHRASES = ((r"\blocal time\b", "not UTC"),
           (r"\b(?:turned|switched|toggled)\s+on\b", "enabled"),
           (r"\b(?:turned|switched|toggled)\s+off\b", "disabled"),
           # a switch's state, then where or for whom it holds: "is on in production"
           ((r"\b(is|are)\s+on\b(?=\s+(?:by default|in|for|across|everywhere|on|at)\b"
             r"|\s*[.;,]|\s*$)"), r"\1 enabled"),
           ((r"\b(is|are)\s+off\b(?=\s+(?:by default|in|for|across|everywhere|on|at)\b"
             r"|\s*[.;,]|\s*$)"), r"\1 disabled"),
           # a setting written as configuration, in small letters and last: "strict: false",
           # "`strict` set to true", "storage_encrypted = false" (not "Mel: True, ...")
           (r"\s*(?:\bis\s+)?(?:\bset\s+to|=|:)\s*[`'\"]?\b(?-i:false)\b[`'\"]?(?=\s*[.;)]|\s*$)",
            " disabled"),
           (r"\s*(?:\bis\s+)?(?:\bset\s+to|=|:)\s*[`'\"]?\b(?-i:true)\b[`'\"]?(?=\s*[.;)]|\s*$)",
            " enabled"),
           # any other setting written so is set to its value: "default_pool_size = 50",
           # "LOG_LEVEL=warn"
           (r"(?<=\w)\s*=\s*(?=[\w\"'`])", " is "),
           (r"\b(kept|keep|keeps|stays?|stayed)\s+out\s+of\b", r"\1 not in"),
           # a flag is a feature flag: "feature" narrows it to nothing else
           (r"\bfeature[\s-]+(flags?)\b", r"\1"),
           (r"(?<=\d),(?=\d{3}\b)", ""),  # "10,000" is one number
           # an address is the same with or without the scheme browsers assume
           (r"\bhttps://(?=[\w-])", ""),
           # an arrow between two ends is a direction: "CRM -> billing" is from one to the other
           (r"(?<![\w-])([\w.@/]+)\s*(?:->|\u2192)\s*([\w.@/]+)", r"from \1 to \2"),
           # "before" said in other words: "ahead of a deploy", "prior to merging"
           (r"\b(?:ahead of|prior to)\b", "before"),
           # "the single `prod` namespace" leaves room for no other: "the only"
           (r"\b(the|our)\s+single\b(?!-)", r"\1 only"),
           (r"\bhalf an hour\b", "30 minutes"), (r"\bhalf a minute\b", "30 seconds"),
           (r"\bhalf a day\b", "12 hours"), (r"\ba quarter of an hour\b", "15 minutes"),
           # a state kept is "stateful", none kept "stateless"; a dependency had or not
           # is a verb ("has no dependency on" is "does not depend on")
           (r"\b(?:holds?|keeps?|stores?|maintains?|retains?)\s+no\s+(?:session\s+)?state\b",
            "is stateless"),
           # not "we keep frontend state in Zustand": where a kind of state is kept
           ((r"\b(?:holds?|keeps?|stores?|maintains?|retains?)\s+(?:(?:[\w-]+\s+){0,2}?"
             r"session\s+)?state\b"), "is stateful"),
           (r"\b(?:has|have)\s+no\s+dependenc(?:y|ies)\s+on\b", "does not depend on"),
           # code that imports from a module depends on it
           (r"\bimports?\s+from\b", "depends on"),
           # a limit on spending is a budget ("the AWS spending limit" / "AWS budget cap")
           (r"\bspend(?:ing)?\s+(?:limit|cap|ceiling)\b", "budget"),
           # working without a network is supporting offline use; support had or not is
           # the verb ("has no offline support" is "does not support offline")
           ((r"\b(?:works?|working|runs?|usable|(?:can\s+)?be\s+used)\s+(?:fully\s+)?(?:offline|"
             r"without\s+(?:an?\s+)?(?:network|internet)(?:\s+connection)?)\b"), "supports offline"),
           (r"\b(?:has|have)\s+no\s+([\w-]+)\s+support\b", r"does not support \1"),
           (r"\b(?:has|have)\s+an?\s+dependency\s+on\b", "depends on"),
           (r"\bwould\s+(?:much\s+|far\s+)?rather\b", "prefer to"),  # "would much rather"
           (r"\b(?:one and only|sole|single and only)\b", "only"),
           # ", not even in encrypted form" strengthens a negation said before it: no
           # second one
           (r",\s*(?:and\s+)?not\s+even\b", ", even"),
           # a limit said as a threshold: "attachments larger than 10 MB are rejected" are
           # capped at 10 MB
           ((r"\b(?:larger|bigger|greater|longer|more|higher|over)\s+(?:than\s+)?"
             r"(\d[\d.,]*\s*[a-zA-Z]*)\s+(?:are|is|get|gets)\s+(?:rejected|refused|blocked|"
             r"dropped|denied|truncated)\b"), r"capped at \1"),
           # a name given: "is called atlas-prod", "is titled", "goes by" are "is named"
           (r"\b(is|are|was|were)\s+(?:called|titled|labell?ed|known\s+as)\b", r"\1 named"),
           # a role said with a phrase: "billing-svc belongs to the Platform team", "the
           # modules are looked after by SRE", "sits with", "falls under"
           (r"\b(?:belongs?|belonged)\s+to\b", "is owned by"),
           (r"\b(?:sits?|rests?|lies)\s+with\b", "is owned by"),
           (r"\b(?:falls?|fell)\s+under\b", "is owned by"),
           (r"\b(is|are|was|were)\s+(?:looked\s+after|taken\s+care\s+of|cared\s+for)\s+by\b",
            r"\1 maintained by"),
           (r"\b(?:looks?|looked)\s+after\b", "maintains"),
           # approval said as a sign-off: "signed off by Marcus", "Lena signs off on every
           # tag"; who must sign a thing off approves it ("must be signed off by")
           (r"\b(?:must|has\s+to|have\s+to|needs?\s+to)\s+be\s+signed\s+off\s+by\b",
            "is approved by"),
           (r"\bsigns\s+off(?:\s+on)?\b", "approves"),
           (r"\bsign\s+off(?:\s+on)?\b", "approve"),
           (r"\bsigned\s+off(?:\s+on)?\b", "approved"),
           (r"\b(?:takes?|took)\s+care\s+of\b", "maintains"),
           # words of time that say "now" ("16 runners at the moment")
           ((r"\b(?:at the moment|at present|right now|for now|these days|as of today|"
             r"this (?:year|quarter|month|week|sprint|release))\b"), "currently"),
           ((r",?\s*\b(?:(?:the\s+)?same as (?:always|ever|usual|before)|as (?:always|usual|"
             r"ever|before))\b"), ""),
           (r"\b(kicks?|kicked)\s+off\b", "starts"),
           # asides: the event after which a statement holds ("six pods after the load
           # test"; "after a week" or "after the first month" is a duration, kept) and a
           # closing remark in brackets ("works offline (cached data, queued writes)")
           # ("after the fifth retry" is a count of tries, kept too)
           ((r",?\s+(?:after|following)\s+(?:the|our)\s+(?![^,;.()]*\b(?:seconds?|minutes?|"
             r"hours?|days?|weeks?|months?|years?|retry|retries|attempts?|tries|try)\b)"
             r"[^,;.()]+"), ""),
           (r"\s*\([^()]{1,80}\)(?=\s*[.!?]?\s*$)", ""),
           # a scope that narrows nothing: "on every plan, with no exceptions", "in all
           # environments", "across the board", "..., no exceptions" after a rule (said as
           # the statement itself, "there are no exceptions to X", it still denies);
           # "since the last upgrade" dates what holds now
           ((r",?\s*\b(?:with no exceptions?|without (?:any )?exceptions?|across the board|"
             r"no matter what)\b|\s*[,;:\u2014-]\s*no\s+exceptions?\b(?=\s*[.;)]|\s*$)"),
            ""),
           ((r"\s*\b(?:in|on|for|across)\s+(?:every|all|each)\s+(?:of\s+(?:the|our)\s+)?"
             r"(?:environments?|envs?|plans?|tiers?|regions?|stages?|setups?|cases?)\b"), ""),
           (r"\bsince\s+(?:the|our)\s+(?:last|latest|recent|most recent)\s+\w+\b",
            "currently"),
           (r"\bfavou?rs\b", "prefers"), (r"\bfavou?red\b", "preferred"),
           (r"\bfavou?r\b", "prefer"))

# Verbs that only tie a subject to its value ("jobs run on Sidekiq", "tracking goes to
# Sentry", "the backend is on Django"): they say which thing fills the slot, not which
# slot, so two statements of one subject may use different ones, or none.
LINKING_VERBS = frozenset({"use", "uses", "used", "using", "run", "runs", "running", "go",
                           "goes", "going", "went", "live", "lives", "living", "sit",
                           "sits", "rely", "relies", "relied", "power", "powers", "powered",
                           "operate", "operates", "operated", "get", "gets", "got",
                           "handle", "handles", "handled", "based", "do", "does",
                           "done", "target", "targets", "targeted",
                           # what a port or a lifetime is said with: "listens on port
                           # 8081", "is bound to 8080", "stays valid for an hour"
                           "listen", "listens", "listening", "bound", "bind", "binds",
                           "stay", "stays", "stayed", "remain", "remains", "remained",
                           # "works offline" is "is available offline"
                           "work", "works", "worked", "working", "function", "functions",
                           # what a count is said with: "is split into 24 partitions"
                           "split", "splits", "divided",
                           # "executed on Jenkins" is "runs on Jenkins"
                           "execute", "executes", "executed"})
# Verbs of one kind read as one: "defined with Pulumi" and "written in Terraform" fill
# one slot, "built with Sphinx" and "hosted on Read the Docs" two.
VERB_KINDS = {
    "make": "build builds built write writes written wrote define defines defined make "
            "makes made create creates created generate generates generated implement "
            "implements implemented rebuild rebuilds rebuilt regenerate regenerates "
            "regenerated recreate recreates recreated",
    "keep": "keep keeps kept store stores stored hold holds held retain retains retained "
            "retention persist persists persisted save saves saved",
    "send": "send sends sent ship ships shipped forward forwards forwarded route routes "
            "routed deliver delivers delivered",
    "host": "host hosts hosted serve serves served deploy deploys deployed expose exposes "
            "exposed reachable accessible",
    # what someone wants: "I like type hints" and "skip type hints" speak of one thing
    "like": "like likes liked love loves loved want wants wanted prefer prefers preferred "
            "enjoy enjoys enjoyed use uses used",
    # what a thing offers: "the endpoint supports CSV" / "CSV is not available from it"
    "offer": "support supports supported offer offers offered provide provides provided "
             "available",
    # how long a thing lasts: "tokens expire after 15 minutes", "the TTL is 600 seconds",
    # "a session lifetime of one hour", "valid for one hour"
    "expire": "expire expires expired expiry expiration expiring lifetime lifetimes "
              "valid validity timeout timeouts evict evicts evicted eviction",
    "start": "start starts started begin begins began begun commence commences "
             "commenced",
    # what must be: "requires 2FA" / "2FA is not enforced"
    "require": "require requires required enforce enforces enforced mandate mandates "
               "mandated",
    # what ends a thing's keeping: "deleted after 90 days", "purged after a year"
    "delete": "delete deletes deleted deleting purge purges purged purging erase erases "
              "erased erasing",
    "answer": "return returns returned respond responds responded response responses "
              "reply replies replied",
}
# Words that say a number bounds something ("capped at 25 MB", "at least 12",
# "rate limited to 600", "pinned to 5") or is a setting: not what is measured.
BOUND_WORDS = frozenset({"limit", "limits", "limited", "cap", "caps", "capped", "max",
                         "maximum", "min", "minimum", "least", "most", "up", "set",
                         "configured", "configure", "enforce", "enforces", "enforced",
                         "pin", "pins", "pinned", "need", "needs", "needed", "require",
                         "requires", "required", "enough", "exceed", "exceeds"})
# Words of a count of tries that say what is tried and how the tries end ("failed
# webhooks are retried 5 times" / "webhook delivery gives up after 3 attempts"): part of
# the measure, not of what it is of.
TRYING = frozenset({"fail", "fails", "failed", "failing", "failure", "failures", "give",
                    "gives", "giving", "gave", "drop", "drops", "dropped", "discard",
                    "discards", "discarded", "delivery", "deliveries"})
# Verbs that, beside an amount, say it bounds what is let in ("accepts files of up to 100
# MB", "allows 100 requests a minute"): no part of what a measure is of.
ADMITTING = frozenset({"accept", "accepts", "accepted", "take", "takes", "support",
                       "supports"})
# Words of time that do not change which fact a statement is about.
TIME_WORDS = frozenset({"now", "currently", "today", "nowadays", "anymore", "longer",
                        "still", "presently"})
# An adjective of size and the dimension it measures: "12 characters long" is a length.
DIMENSIONS = {"long": "length", "wide": "width", "big": "size", "large": "size",
              "old": "age", "high": "height", "tall": "height", "deep": "depth",
              "heavy": "weight"}
# Words that say a thing is an earlier one than what holds now ("the old policy").
EARLIER = frozenset({"old", "older", "former", "previous", "prior", "original", "earlier",
                     "legacy"})
# Words that leave no room for another value ("deploys are only triggered by tags").
EXCLUSIVE = frozenset({"only", "exclusively", "solely"})
# Words that join a clause to another: no part of either's subject ("... when we deploy").
CONJUNCTIONS = frozenset({"when", "whenever", "while", "if", "unless", "because", "once",
                          "until", "since", "where", "so", "and", "or"})
# Pronouns the function words leave out: no part of what a statement is about.
PRONOUNS = frozenset({"ourselves", "itself", "themselves", "myself", "yourself",
                      "yourselves", "himself", "herself", "one", "ones", "someone"})
# Words of quantity that do not change what a statement is about ("all secrets").
QUANTIFIERS = frozenset({"all", "every", "each", "any", "both"})
# Words that add to what is known rather than restate it ("CI also tests against 3.12").
ADDITIVE = frozenset({"also", "too", "additionally", "additional", "another", "extra", "further"})

# Prepositions by the role they give their object: a value after "to" (where a thing
# goes) fills another slot than a value after "with" (what does the work).
PREPOSITION_ROLES = {
    "to": "goal", "into": "goal", "onto": "goal", "toward": "goal", "towards": "goal",
    "from": "source",
    "with": "means", "on": "means", "in": "means", "via": "means", "through": "means",
    "using": "means", "by": "means", "at": "means", "as": "means", "over": "means",
    "for": "purpose",
}
# Pronouns and auxiliaries after which a word is a verb, not a modifier of the next noun
# ("we process background jobs": "process" is no kind of job; "to keep answers short").
BEFORE_A_VERB = frozenset({"i", "we", "you", "they", "he", "she", "it", "will", "would",
                           "can", "could", "should", "must", "may", "might", "do", "does",
                           "did", "not", "never", "to"})

# Verbs whose doer holds a role over what they act on: one holder at a time ("Kenji runs
# the rotation"), unlike "prefers" or "uses", which many may do.
ROLE_VERBS = frozenset({"own", "owns", "owned", "maintain", "maintains", "maintained",
                        "review", "reviews", "reviewed", "lead", "leads", "led", "approve",
                        "approves", "approved", "manage", "manages", "managed", "run",
                        "runs", "ran", "write", "writes", "wrote", "written", "triage",
                        "triages", "triaged", "coordinate", "coordinates", "coordinated",
                        "administer", "administers", "administered"})
# Verbs of one role: who runs a thing manages it ("the rotation is managed by Priya" /
# "Tom runs the rotation"), and who maintains it owns it ("maintained by the mobile team" /
# "the data team owns it", "Maya owns billing" / "Tomás maintains billing"; a person may
# still maintain what a team owns).
ROLE_KINDS = {"run": "run runs ran manage manages managed coordinate coordinates "
                     "coordinated administer administers administered",
              "own": "own owns owned maintain maintains maintained"}
# How a role is said after "is": "Kofi is on call for payments".
ROLE_STATES = ("on call", "on-call", "in charge", "responsible")
# Nouns of a role and the verb that gives it: "Lena is the reviewer for migrations" says
# that Lena reviews them.
ROLE_NOUNS = {"owner": "own", "owners": "own", "maintainer": "maintain",
              "maintainers": "maintain", "reviewer": "review", "reviewers": "review",
              "lead": "lead", "leader": "lead", "approver": "approve", "approvers": "approve",
              "manager": "manage", "admin": "administer", "administrator": "administer",
              "on-call": "on-call", "on call": "on-call"}
# Words that rank holders of one role: the primary on-call and the secondary are two
# roles, each with a holder of its own.
ROLE_RANKS = frozenset({"primary", "secondary", "tertiary", "backup", "deputy", "co-owner",
                        "co-lead", "co-maintainer", "interim", "shadow"})

# Nouns that name a running piece of software by what it is: "the search API", "the search
# service", "search-svc" and "the search server" are one thing.
RUNNING_THINGS = frozenset({"service", "services", "microservice", "microservices", "server",
                            "servers", "api", "apis", "daemon", "daemons"})
# Verbs that take a thing away: wanting one removed is not wanting it.
REMOVING = frozenset({"remove", "removed", "removing", "drop", "dropped", "dropping",
                      "delete", "deleted", "deleting", "replace", "replaced", "replacing",
                      "retire", "retired", "retiring", "deprecate", "deprecated", "phase",
                      "phased", "rip", "ripped", "migrate", "migrated", "eliminate",
                      "eliminated", "ban", "banned", "gone", "gotten"})
# Prepositions dedup's list leaves out: no part of what a statement is about ("during a
# deploy", "alongside the code").
MORE_PREPOSITIONS = frozenset({"during", "throughout", "alongside", "despite", "upon",
                               "beyond", "inside", "outside", "except", "unlike", "among",
                               "amongst", "beside", "besides", "underneath", "atop"})

# Verbs as a plural subject says them ("services use", "strings use", "tests run"): after
# an "-s" word they show it was a noun, the subject, not a verb of the word before.
PLURAL_VERBS = frozenset({
    "use", "run", "log", "build", "call", "read", "write", "send", "store", "keep",
    "deploy", "ship", "return", "expose", "depend", "import", "handle", "publish", "emit",
    "rely", "share", "follow", "require", "support", "target", "talk", "live", "go",
    "connect", "listen", "compile", "render", "cache", "retry", "validate", "stream",
})
