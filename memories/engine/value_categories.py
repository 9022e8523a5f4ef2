"""Closed categories of values: the kinds of thing a statement about a software project
names one of (a data format, a database, a CI service, a region), and the words that
mark which of several things a statement is about (production or staging, frontend or
backend).

General knowledge of the field, not the wording of any labelled pair: each category has
many members, and a member stands for itself wherever it is named. Two statements that
name two members of one category in the same place say two values of one slot; two
members of two categories (a task queue and its broker) fill two slots.

Writing: members are separated by commas, names of one member by "/" ("yaml/yml");
a name may have several words ("github actions"). A name that is also an English word
("go", "rust", "swift") starts with "~" and counts only where it is written with a
capital. Names are compared as their parts (split at spaces, hyphens and underscores)
stemmed, so "snake_case", "snake case" and "snake-case" are one name.
"""

import functools
import re
from dataclasses import dataclass

from .dedup import _FUNCTION_WORDS, PREPOSITIONS

CATEGORIES = {
    "data format": "json, yaml/yml, toml, xml, csv, tsv, ini, hcl, protobuf/protocol "
                   "buffers/protobufs, avro, parquet, msgpack/messagepack, ndjson/jsonl/json "
                   "lines, cbor, bson, plain text/plaintext, markdown, html, logfmt",
    "date format": "iso 8601/iso-8601/iso8601/rfc 3339/rfc3339, unix timestamp/unix time/"
                   "unix epoch/epoch seconds/epoch milliseconds/~epoch",
    "naming case": "snake_case/snake case, camelcase/camel case/lower camel case, pascalcase/"
                   "pascal case/upper camel case, kebab-case/kebab case, screaming_snake_case/"
                   "screaming snake case, title case",
    "cloud": "aws/amazon web services, gcp/google cloud/google cloud platform, azure/microsoft "
             "azure, digitalocean, hetzner, linode, oracle cloud, ibm cloud, ovh/ovhcloud, "
             "scaleway, alibaba cloud",
    "hosting platform": "heroku, vercel, netlify, fly.io, ~render, ~railway, cloudflare pages, "
                        "github pages, app engine, elastic beanstalk, firebase hosting, ~amplify",
    "programming language": "python, ~go/golang, ~rust, java, kotlin, scala, typescript, "
                            "javascript, ~ruby, php, csharp, objective-c, ~swift, elixir, "
                            "erlang, haskell, clojure, ocaml, ~dart, ~lua, perl, julia, zig, "
                            "~crystal, groovy",
    "web framework": "django, flask, fastapi, ~rails/ruby on rails, ~express/express.js, "
                     "nestjs, koa, ~spring/spring boot, laravel, symfony, ~phoenix, ~gin, "
                     "actix, axum, asp.net, sinatra, starlette, ~tornado, aiohttp, litestar, "
                     "hono, fastify, ~hapi, micronaut, quarkus, ktor, ~fiber, ~echo, ~vapor, "
                     "adonisjs",
    "frontend framework": "react, vue/vue.js, angular, svelte, ~solid/solidjs, ~ember, preact, "
                          "htmx, ~backbone, qwik, alpine.js",
    "meta framework": "next.js/nextjs, nuxt, ~remix, gatsby, astro, sveltekit",
    "mobile framework": "react native/rn, flutter, ionic, xamarin, capacitor, cordova, kotlin "
                        "multiplatform/kmp, ~expo, nativescript, .net maui/maui",
    "ml framework": "pytorch/torch, tensorflow, jax, keras, mxnet, paddlepaddle",
    "experiment tracker": "mlflow, weights & biases/weights and biases/weights biases/wandb/"
                          "w&b, neptune, comet, clearml, aim",
    "database": "postgresql/postgres, mysql, mariadb, sqlite, sql server/mssql, oracle, "
                "cockroachdb, mongodb/mongo, dynamodb, cassandra/apache cassandra, couchdb, "
                "firestore, cosmos db/cosmosdb, neo4j, planetscale, ~spanner, tidb, "
                "yugabytedb, scylladb, timescaledb, couchbase, singlestore, surrealdb, "
                "aurora/amazon aurora, supabase, turso, ~neon",
    "cache": "redis, memcached, valkey, keydb, hazelcast, dragonfly",
    "data warehouse": "~snowflake, bigquery, redshift, clickhouse, databricks, duckdb, synapse, "
                      "apache druid/~druid, dremio, ~trino, starburst, apache pinot/~pinot",
    "message broker": "kafka/apache kafka, rabbitmq, sqs, ~nats, ~pulsar/apache pulsar, "
                      "kinesis, pub sub/pubsub, event hubs, activemq/apache activemq, redis, "
                      "eventbridge, nsq, zeromq",
    "task queue": "celery, sidekiq, rq, resque, bullmq/~bull, dramatiq, huey, delayed_job, "
                  "good_job/goodjob, faktory, hangfire, beanstalkd, solid queue, oban, asynq",
    "workflow engine": "airflow/apache airflow, dagster, ~prefect, luigi, argo workflows, "
                       "~temporal, step functions",
    "search engine": "elasticsearch, opensearch, meilisearch, algolia, typesense, "
                     "solr/apache solr, vespa, quickwit",
    "email service": "sendgrid, postmark, mailgun, ses/amazon ses, mandrill, sparkpost, "
                     "resend, mailjet, brevo/sendinblue",
    "ci service": "github actions, gitlab ci, circleci, jenkins, travis ci/travis, buildkite, "
                  "~drone, teamcity, ~bamboo, azure pipelines, bitbucket pipelines, bitrise, "
                  "~semaphore, woodpecker, codebuild, tekton, concourse, appveyor, codemagic, "
                  "xcode cloud",
    "deploy tool": "argo cd/argocd, ~flux/fluxcd, spinnaker, octopus deploy",
    "js package manager": "npm, ~yarn, pnpm, ~bun",
    "python package manager": "pip, ~poetry, pipenv, uv, pip-tools, conda, pdm, ~hatch, ~rye",
    "jvm build tool": "maven, gradle, sbt, ~ant",
    "ios package manager": "cocoapods, swift package manager/spm, carthage",
    "test framework": "~jest, vitest, ~mocha, jasmine, ~ava, pytest, unittest, ~nose/nose2, rspec, "
                      "minitest, junit, testng, ~spock, phpunit, xunit, nunit, xctest, "
                      "~espresso, testify, gomega, ~ginkgo, kotest",
    "browser test tool": "cypress, playwright, selenium, puppeteer, webdriverio, testcafe, "
                         "nightwatch",
    "bundler": "webpack, vite, esbuild, ~rollup, ~parcel, turbopack, rspack, snowpack, "
               "browserify",
    "infrastructure as code": "terraform, pulumi, cloudformation, cdk/aws cdk, opentofu, "
                              "crossplane, bicep",
    "configuration management": "ansible, ~chef, ~puppet, saltstack",
    "container platform": "kubernetes/k8s/eks/gke/aks, ecs, ~nomad, docker swarm, fargate, "
                          "~cloud run",
    "container registry": "ecr/amazon ecr, docker hub/dockerhub, ghcr/github container "
                          "registry, gcr, artifact registry, ~quay/quay.io, acr, ~harbor",
    "monitoring": "prometheus, datadog, new relic, cloudwatch, dynatrace, appdynamics, "
                  "honeycomb, lightstep, signoz, victoriametrics, influxdb, ~graphite, zabbix, "
                  "nagios",
    "log platform": "loki, splunk, papertrail, loggly, datadog, cloudwatch, sumo logic, "
                    "graylog, logtail, ~elk, new relic",
    "error tracker": "~sentry, rollbar, bugsnag, honeybadger, airbrake, raygun, glitchtip, "
                     "crashlytics/firebase crashlytics, instabug",
    "feature flag service": "launchdarkly, ~unleash, flagsmith, growthbook, configcat, "
                            "statsig, flipt, django-waffle/waffle, ~flipper, split.io",
    "identity provider": "auth0, okta, cognito, keycloak, ~clerk, firebase auth, azure ad/"
                         "entra id, onelogin, supertokens, fusionauth, workos, stytch",
    "payment provider": "~stripe, adyen, braintree, paypal, ~square, mollie, ~paddle, razorpay",
    "web server": "nginx, apache/httpd, ~caddy, traefik, haproxy, ~envoy, iis, alb, elb, nlb",
    "cdn": "cloudflare, fastly, cloudfront, akamai, bunnycdn, keycdn",
    "secret store": "~vault/hashicorp vault, secrets manager/aws secrets manager, 1password, "
                    "~doppler, sops, key vault/azure key vault, secret manager, bitwarden, "
                    "parameter store/ssm, infisical",
    "object storage": "s3/amazon s3, gcs/google cloud storage, blob storage/azure blob "
                      "storage, r2/cloudflare r2, minio, backblaze/b2, ~wasabi",
    "code host": "github, gitlab, bitbucket, gitea, azure devops, sourcehut, codeberg",
    "issue tracker": "jira, ~linear, github issues, youtrack, ~asana, trello, clickup, "
                     "~shortcut, pivotal tracker",
    "chat tool": "~slack, microsoft teams, ~discord, mattermost, zulip, rocket.chat, google "
                 "chat",
    "docs generator": "~sphinx, mkdocs, docusaurus, vuepress, ~hugo, jekyll, mintlify, "
                      "typedoc, jsdoc, javadoc, rustdoc, pdoc",
    "docs host": "read the docs/readthedocs, gitbook, ~confluence, ~notion",
    "orm": "sqlalchemy, django orm, prisma, typeorm, sequelize, activerecord/active record, "
           "hibernate, entity framework, gorm, ~drizzle, mikro-orm, peewee, ecto, ~doctrine, "
           "~diesel, jooq",
    "migration tool": "alembic, flyway, liquibase, ~goose, golang-migrate, sqitch, dbmate",
    "client storage": "httponly cookies/httponly cookie/cookies/cookie, localstorage/local "
                      "storage, sessionstorage/session storage, indexeddb",
    "visual testing": "percy, chromatic, applitools, backstopjs",
    "charting library": "d3/d3.js, chart.js/chartjs, highcharts, recharts, echarts, plotly, "
                        "vega, vega-lite, nivo, ~victory",
    # what fetches and caches a frontend's server state
    "data fetching": "tanstack query/react query/react-query, rtk query, ~swr",
    "state store": "~redux, zustand, mobx, ~recoil, jotai, pinia, vuex, xstate, ngrx, react "
                   "context, valtio",
    "styling": "tailwind/tailwindcss, ~bootstrap, css modules, styled-components, ~emotion, "
               "~sass/scss, vanilla-extract, bulma",
    "formatter": "~black, ~prettier, yapf, autopep8, gofmt, rustfmt, clang-format, dprint, "
                 "ruff format, ktfmt, swiftformat, google-java-format",
    "linter": "flake8, pylint, eslint, rubocop, golangci-lint, clippy, stylelint, tslint, "
              "oxlint, ruff, biome, ktlint, detekt, swiftlint, shellcheck, hadolint",
    "type checker": "mypy, pyright, pytype, ~pyre",
    "js runtime": "~node/node.js/nodejs, deno, ~bun",
    "python app server": "gunicorn, uvicorn, uwsgi, hypercorn, daphne, ~waitress, granian",
    "linux distribution": "~alpine, debian, ubuntu, distroless, centos, rhel, fedora, "
                          "amazon linux, rocky linux",
    "api style": "~rest/restful, graphql, grpc, ~soap, json-rpc, trpc, odata",
    "push channel": "websockets/websocket, server-sent events/sse, long polling, webrtc, mqtt",
    "auth scheme": "jwt/jwts/json web tokens, paseto, oauth/oauth2, saml, basic auth, mtls, "
                   "openid connect/oidc, session cookies",
    "hash algorithm": "argon2/argon2id, bcrypt, scrypt, pbkdf2, sha-256/sha256, sha-1/sha1, "
                      "md5",
    "id type": "uuid/uuids/uuidv4/uuid4/uuidv7, ulid, bigint/bigserial, ksuid, cuid, nanoid, "
               "auto-increment/autoincrement/auto-incrementing",
    "pagination": "cursor pagination/cursor-based pagination/cursor-based, offset "
                  "pagination/offset-based pagination/offset-based/limit-offset, keyset "
                  "pagination",
    "merge strategy": "squash/squash-merge/squash merge/squash-merged/squash merging, "
                      "rebase-merge/rebase merge/rebase merging/rebase-and-merge/rebase and "
                      "merge, merge commit/merge commits",
    # a branch's name counts only with a capital or beside "branch": "main" is a word too
    "git branch": "~main, ~master, ~develop, ~trunk, ~dev",
    "branching model": "trunk-based/trunk-based development/trunk based development, gitflow/"
                       "git flow, github flow",
    "release strategy": "blue-green, canary/canaries, rolling update/rolling deploy/"
                        "rolling deployment/rolling release",
    "quote style": "single quotes/single-quoted, double quotes/double-quoted, backticks",
    "time zone": "utc/gmt, cet/cest, est/edt, pst/pdt, ist, jst, local time",
    "tracing backend": "jaeger, zipkin, ~tempo, x-ray/aws x-ray, lightstep",
    "api gateway": "~kong, apigee, tyk, api gateway/aws api gateway, ~ambassador",
    "service mesh": "istio, linkerd, consul connect, ~cilium",
    "load testing tool": "k6, locust, jmeter, gatling, artillery, vegeta",
    "package registry": "artifactory, ~nexus, verdaccio, pypi, npmjs, github packages",
    "product analytics": "~segment, amplitude, mixpanel, google analytics, posthog, "
                         "plausible, ~heap, fathom",
    "cms": "contentful, ~sanity, strapi, wordpress, ~ghost, prismic, storyblok, directus",
    "paging service": "pagerduty, opsgenie, incident.io, victorops, splunk on-call",
    "sms provider": "twilio, vonage/nexmo, messagebird, plivo, sinch",
    "push service": "fcm/firebase cloud messaging, onesignal, apns, airship, pusher beams",
    "dependency bot": "dependabot, ~renovate",
    "security scanner": "snyk, trivy, grype, sonarqube, semgrep, codeql, clair",
    "coverage service": "codecov, coveralls, sonarcloud",
    "editor": "~vim/neovim, emacs, vs code/vscode/visual studio code, intellij, sublime "
              "text, ~zed, ~helix, ~nano",
    "shell": "bash, zsh, ~fish, powershell",
    "logging library": "structlog, loguru, winston, pino, log4j, logback, ~zap, zerolog, "
                       "serilog, bunyan",
    "http client": "axios, ~requests, httpx, okhttp, ~got, ky, superagent, urllib3, retrofit, "
                   "alamofire, urlsession",
    "date library": "moment/moment.js, date-fns, dayjs, luxon, pendulum",
    "validation library": "zod, yup, joi, pydantic, marshmallow, class-validator, valibot",
    "ui kit": "material ui/mui, chakra ui, ant design/antd, shadcn ui/shadcn, radix/radix "
              "ui, headless ui, mantine, vuetify",
    "graphql client": "apollo client/apollo, ~relay, urql",
    "compression": "gzip, brotli, zstd/zstandard, lz4, snappy, deflate",
    "image format": "png, jpeg/jpg, webp, avif, gif, svg, heic",
    "english variant": "british english/british spelling/uk english/en-gb, american "
                       "english/american spelling/us english/en-us, australian english/"
                       "en-au, canadian english/en-ca, indian english/en-in",
    "text encoding": "utf-8/utf8, latin-1/iso-8859-1, ascii, utf-16",
    "delivery guarantee": "at-least-once, at-most-once, exactly-once",
    "isolation level": "read committed, repeatable read, serializable, read uncommitted, "
                       "snapshot isolation",
    "versioning scheme": "semver/semantic versioning, calver/calendar versioning",
    "license": "mit license/mit, apache 2.0/apache-2.0/apache license, gpl/gplv3/gpl-3.0, "
               "agpl/agplv3, bsd/bsd-3-clause, mpl/mpl-2.0, proprietary",
    "serverless platform": "aws lambda/~lambda, cloud functions/google cloud functions, "
                           "azure functions, cloudflare workers, vercel functions",
    "container runtime": "docker, podman, containerd, cri-o",
    "version control": "git, mercurial, svn/subversion, perforce",
    "monorepo tool": "nx, turborepo, lerna, ~rush, bazel, pants, buck",
    # on a phone: where an app keeps its data, builds its screens, gets its dependencies
    "mobile persistence": "core data, swiftdata, ~realm, ~room, sqldelight, objectbox, ~isar, "
                          "watermelondb, grdb",
    "ui toolkit": "jetpack compose, swiftui, uikit, appkit, android views",
    "dependency injection": "hilt, ~dagger, koin, swinject, ~kodein, ~needle, resolver",
    "dashboard tool": "grafana, kibana, chronograf, ~perses",
    "bi tool": "metabase, ~superset/apache superset, looker, tableau, redash, power bi, ~mode",
    "log shipper": "fluentd, fluent bit/fluent-bit, ~vector, logstash, promtail, filebeat, "
                   "~alloy",
    "transpiler": "~babel, swc, tsc, sucrase",
    "log level": "~trace, ~debug, ~info, ~warn/~warning, ~error, ~fatal/~critical",
    "dataframe library": "pandas, polars, ~dask, pyspark, ~modin, ~vaex",
    "error handling crate": "anyhow, thiserror, eyre/color-eyre, ~snafu",
}

# Ends of one scale, each said in several words. A statement says which end with an
# adjective on the thing itself ("short commit messages"), where a named product would
# name another thing ("the MySQL host").
SCALES = {
    "deletion": "soft delete/soft-delete/soft-deleted/soft deletion/soft deleted, hard delete/"
                "hard-delete/hard-deleted/hard deletion/hard deleted/permanently deleted",
    "state": "stateless, stateful",
    "side": "client-side/client side/on the client/in the browser, server-side/server side/"
            "on the server",
    "length": "short/brief/concise/terse/succinct/one-line/single-line/minimal, long/detailed/"
              "verbose/thorough/lengthy/in-depth/multi-paragraph/extensive",
    "size": "small/tiny, large/big/huge",
    "strictness": "strict, lenient/loose/permissive/lax/relaxed",
    # an order said by its first item: "newest first" is by date, descending
    "sort order": "ascending/asc/oldest first/oldest-first/lowest first/smallest first, "
                  "descending/desc/newest first/newest-first/latest first/most recent first/"
                  "highest first/largest first",
    "rounding": "rounded up/round up/rounds up/rounding up, rounded down/round down/"
                "rounds down/rounding down/truncated",
    "letter case": "lowercase/lower case/lower-case, uppercase/upper case/upper-case/all caps",
    "locking": "optimistic locking/optimistic, pessimistic locking/pessimistic",
    "loading": "eager loading/eagerly/eager, lazy loading/lazily/lazy",
    "explicitness": "explicit/explicitly, implicit/implicitly/inferred",
    "color scheme": "light mode/light theme/light-theme/light-mode/light-themed, "
                    "dark mode/dark theme/dark-theme/dark-mode/dark-themed",
    "path kind": "absolute paths/absolute path, relative paths/relative path",
    "scaling": "horizontally/horizontal scaling, vertically/vertical scaling",
    "traffic direction": "inbound, outbound",
    "tenancy": "single-tenant/single tenant, multi-tenant/multi tenant/multitenant",
    "hosting": "self-hosted/self hosted/on-prem/on-premises/on-premise, fully managed/"
               "managed service/saas",
    "consent": "opt-in, opt-out",
    "consistency": "strongly consistent/strong consistency, eventually consistent/eventual "
                   "consistency",
    "access list": "allowlist/whitelist, denylist/blocklist/blacklist",
    "repository layout": "monorepo/single repository, polyrepo/multi-repo/separate "
                         "repositories",
    "architecture": "monolith/monolithic, microservices",
    "rendering": "server-side rendering/ssr/server-rendered, client-side rendering/csr/"
                 "client-rendered, static site generation/ssg",
    # how a function leaves: early, at each guard, or once at its end
    "function exits": "early returns/early return/return early/guard clauses/guard clause, "
                      "single return/single exit/single exit point/one return/single return "
                      "statement",
    "export style": "named exports/named export/named-exported, default exports/default "
                    "export/default-exported/exported as default",
    "commit message style": "conventional commits/conventional commit/conventional-commit, "
                            "free-form/freeform/plain imperative/plain subject/plain subjects",
    "execution": "in parallel/parallel/concurrently/parallelized, serially/serial/sequentially/"
                 "sequential/one at a time",
    "test style": "pytest functions/plain pytest/pytest-style/test functions/plain functions, "
                  "testcase classes/testcase subclasses/unittest.testcase/unittest-style/"
                  "test classes",
    "comma placement": "leading commas/comma-first/commas first, trailing commas/commas last",
    "commit tense": "imperative mood/imperative, past tense/past-tense",
    "query structure": "ctes/cte/common table expressions, subqueries/subquery/nested "
                       "subqueries/inline subqueries",
}

# Nouns that name what kind of thing a member is ("the backend language is Rust"): they
# say which slot a member fills, not what the statement is about. "*" for any category.
KIND_NOUNS = {
    "*": "tool tools tooling stack technology vendor",
    "data format": "format formats",
    "date format": "format formats",
    "image format": "format formats",
    "naming case": "case casing convention",
    "cloud": "cloud provider",
    "hosting platform": "host platform",
    "programming language": "language languages toolchain compiler interpreter",
    "web framework": "framework frameworks",
    "frontend framework": "framework frameworks",
    "meta framework": "framework frameworks",
    "mobile framework": "framework frameworks",
    "ml framework": "framework frameworks",
    "experiment tracker": "tracker tracking tracked experiment experiments",
    "database": "database databases db",
    "data warehouse": "warehouse",
    "message broker": "broker bus queue",
    "task queue": "queue",
    "workflow engine": "engine orchestrator scheduler",
    "search engine": "engine",
    "email service": "provider email emails mail",
    "js package manager": "manager",
    "python package manager": "manager",
    "test framework": "framework runner",
    "browser test tool": "framework",
    "bundler": "bundler",
    "container registry": "registry",
    "secret store": "store manager secret secrets",
    "linter": "linter linting lint",
    "formatter": "formatter formatting format formats formatted",
    "type checker": "checker",
    "js runtime": "runtime",
    "orm": "orm",
    "region": "region regions zone location",
    "linux distribution": "distribution distro",
    "time zone": "zone timezone",
    "log level": "level levels verbosity log logs logging log_level",
    "ci service": "server ci pipeline pipelines",
    "git branch": "branch branches",
    "error tracker": "tracker tracking tracked error errors exception exceptions crash "
                     "crashes",
    "identity provider": "provider",
    "payment provider": "provider processor",
    "sms provider": "provider",
    "cdn": "cdn",
    "editor": "editor",
    "license": "license",
}
# What names a version's product, whatever its category ("Go 1.22 is the toolchain").
VERSION_NOUNS = frozenset({"version", "versions", "release", "releases", "toolchain",
                           "compiler", "interpreter", "runtime", "series", "line", "lts",
                           "branch"})
# What runs a product, and so has its version ("our Kafka brokers are on 3.6", "the
# Postgres cluster runs 15"): the product's, not a subject of its own.
RUNNING_NOUNS = frozenset({"cluster", "clusters", "broker", "brokers", "node", "nodes",
                           "instance", "instances", "fleet", "install", "installation",
                           "image", "images", "container", "containers"})


def kind_nouns(category: str) -> frozenset[str]:
    """The words that name what kind of thing a member of `category` is."""
    if category in SCALES:
        return frozenset()
    return frozenset({*KIND_NOUNS["*"].split(), *KIND_NOUNS.get(category, "").split()})


# Words that say which of several things a statement is about, by kind: "production"
# and "staging" name two environments, so two statements naming one each speak of two.
QUALIFIERS = {
    "environment": "production/prod, staging, development/dev, qa, sandbox, preview, "
                   "uat, demo",
    "platform": "ios, android, web, mobile, desktop",
    "side": "frontend/front-end/front end, backend/back-end/back end",
    "plan": "free, pro, enterprise, premium, starter",
    "test level": "unit, integration, end-to-end/e2e, smoke, load, component, contract",
    "region": "~eu, ~us, ~uk, apac, emea, latam",
}

# A cloud region written as its provider writes it ("us-east-1", "europe-west4").
_REGION = re.compile(r"^(?:(?:us|eu|ap|sa|ca|me|af|il|mx|cn)-(?:gov-)?"
                     r"(?:north|south|east|west|central|northeast|southeast|northwest|"
                     r"southwest)-\d|(?:europe|us|asia|australia|northamerica|southamerica|me|"
                     r"africa)-(?:north|south|east|west|central|northeast|southeast|northwest|"
                     r"southwest)\d)$")
# A locale as a language tag writes it ("en-US", "de_DE", "pt-BR"): the region in capitals.
_LOCALE = re.compile(r"^[a-z]{2,3}[-_][A-Z]{2}$")
_GLUED_VERSION = re.compile(r"^([a-z]+)(?:\d+\.)+\d+$")
_SPLIT = re.compile(r"[\s_\-/]+")


def parts(word: str) -> list[str]:
    """A word as the parts names are compared by: "snake_case" is ["snake", "case"], a
    plural as its singular ("cookies"); other endings stay ("fastly" is no "fast")."""
    return [_singular(part) for part in _SPLIT.split(word.casefold()) if part]


def _singular(part: str) -> str:
    return part[:-1] if len(part) > 3 and part.endswith("s") and not part.endswith("ss") \
        else part


@dataclass(frozen=True)
class Name:
    category: str
    member: str  # the first name of the member: "yaml" for "yml" too
    capital: bool  # counts only written with a capital


class Names(dict):
    """Names of a table by their parts ({("github", "actions"): [Name, ...]}), with the
    parts that begin one: most words begin none, and _find skips them unlooked-up."""

    def __init__(self, table: dict[tuple[str, ...], list[Name]]):
        super().__init__(table)
        self.firsts = frozenset(key[0] for key in table)


def _table(source: dict[str, str]) -> Names:
    table: dict[tuple[str, ...], list[Name]] = {}
    for category, members in source.items():
        for member in members.split(","):
            names = [name.strip() for name in member.split("/") if name.strip()]
            first = names[0].lstrip("~")
            for name in names:
                named = table.setdefault(tuple(parts(name.lstrip("~"))), [])
                if Name(category, first, name.startswith("~")) not in named:
                    named.append(Name(category, first, name.startswith("~")))
    return Names(table)


_MEMBERS = _table({**CATEGORIES, **SCALES})
# Categories of ways of doing things and of values, not of products a team adopts: their
# members are said in words a model knows ("UTC", "JSON", "squash"), and a gloss shared by
# two statements that differ only in the value ("02:00 UTC" / "04:30 UTC") draws them
# together.
CONVENTIONS = frozenset({
    "data format", "date format", "naming case", "client storage", "api style",
    "push channel", "auth scheme", "hash algorithm", "id type", "pagination",
    "merge strategy", "git branch", "branching model", "release strategy", "quote style",
    "time zone", "compression", "image format", "english variant", "text encoding",
    "delivery guarantee", "isolation level", "versioning scheme", "license", "log level",
})
_KINDS = _table({category: members for category, members in CATEGORIES.items()
                 if category not in CONVENTIONS})
_QUALIFIERS = _table(QUALIFIERS)
_LONGEST = max(len(key) for key in (*_MEMBERS, *_QUALIFIERS))


@dataclass(frozen=True)
class Found:
    category: str
    member: str
    at: tuple[int, ...]  # the indices of the words that name it


def _find(words: list[str], table: Names, *, regions: bool = False) -> list[Found]:
    """The names of `table` in `words` (as written), longest first, none overlapping;
    with `regions`, cloud regions as their providers write them too."""
    pieces = [(i, part) for i, word in enumerate(words) for part in parts(word)]
    said = {part for _, part in pieces}
    found, taken = [], set()
    start = 0
    while start < len(pieces):
        if pieces[start][1] not in table.firsts:
            start += 1
            continue
        for size in range(min(_LONGEST, len(pieces) - start), 0, -1):
            chunk = pieces[start:start + size]
            names = table.get(tuple(part for _, part in chunk), [])
            if not names:
                continue
            at = tuple(sorted({i for i, _ in chunk}))
            # a name that counts only with a capital counts without one beside its kind
            # ("log level: debug")
            names = [name for name in names
                     if not name.capital or words[at[0]][:1].isupper()
                     or said & set(map(_singular, KIND_NOUNS.get(name.category, "").split()))]
            if names and not taken & set(at):
                found += [Found(name.category, name.member, at) for name in names]
                taken |= set(at)
                start += size
                break
        else:
            start += 1
    for i, word in enumerate(words):
        # a locale is one whatever else names it ("en-US" is American English too)
        if regions and _LOCALE.match(word):
            found.append(Found("locale", word.casefold().replace("_", "-"), (i,)))
        if regions and i not in taken and _REGION.match(word.casefold()):
            found.append(Found("region", word.casefold(), (i,)))
        elif i not in taken and (glued := _GLUED_VERSION.match(word.casefold())):
            # "python3.11" is Python
            found += [Found(name.category, name.member, (i,))
                      for name in table.get(tuple(parts(glued.group(1))), [])]
    return found


@functools.lru_cache(maxsize=4096)  # a judgement asks again of every clause it compares
def members(words: tuple[str, ...]) -> tuple[Found, ...]:
    """The members of CATEGORIES and SCALES that `words` name, each with where it stands."""
    return tuple(_find(list(words), _MEMBERS, regions=True))


@functools.lru_cache(maxsize=4096)
def qualifiers(words: tuple[str, ...]) -> tuple[Found, ...]:
    """The words of QUALIFIERS that `words` say."""
    return tuple(_find(list(words), _QUALIFIERS))


_WORD = re.compile(r"[\w#+&]+(?:[.\-][\w#+&]+)*")  # "node.js" and "kebab-case", not "Vite."
# Names of CATEGORIES that are also everyday words, as the embedding model's vocabulary
# holds them whole (all-MiniLM-L6-v2's WordPiece list): "moment", "react", "aim". Glossed
# only where written with a capital, as the names marked "~" are, and first in a sentence
# only before a word of content ("Stripe webhooks", not "Got it!").
EVERYDAY_NAMES = frozenset("""
    aim airship amplitude angular apache apollo artillery astro aurora azure bash buck
    canary carthage cassandra clair comet concourse cookie cypress daphne est eyre flutter
    hilt html huey ionic ist jasmine java jax jenkins julia ky loki luigi maui mit moment
    neptune oracle pants pendulum percy php pip plausible playwright proprietary python
    react rn rq scala sinatra squash testify torch travis utc uv vega winston xml
""".split())
_NOT_CONTENT = _FUNCTION_WORDS | PREPOSITIONS | {"like"}


def glossed(text: str) -> str:
    """`text` followed by the kinds of the products of CATEGORIES it names: "We build with
    Vite." becomes "We build with Vite. (bundler)". A developer asks later by the kind
    ("which bundler do we use", "the payment provider's callbacks"), a note names the
    product, and a small embedding model knows few products: embedded glossed, the note
    lies nearer such a question. The kinds go after the text, not beside each name: there
    they parted a name from its version ("Redis (cache) 7"), and three wordings of one
    fact grew less alike. A name that is also a word ("Got it!", "moments like these")
    needs a capital to be one."""
    spans = [word.span() for word in _WORD.finditer(text)]
    words = [text[start:end] for start, end in spans]
    kinds = dict.fromkeys(found.category for found in _find(words, _KINDS)
                          if len(found.at) > 1 or _a_name(text, spans, words, found.at[0]))
    return f"{text} ({', '.join(kinds)})" if kinds else text


def _a_name(text: str, spans: list, words: list[str], at: int) -> bool:
    """Whether the word at `at`, a name of CATEGORIES, names the thing rather than a
    word of everyday English."""
    key = tuple(parts(words[at]))
    if not ((len(key) == 1 and key[0] in EVERYDAY_NAMES)
            or any(name.capital for name in _KINDS.get(key, ()))):
        return True
    if not words[at][:1].isupper():
        return False
    if not _opens_a_sentence(text, spans[at][0]):
        return True
    if at + 1 == len(words) or text[spans[at][1]:spans[at + 1][0]] != " ":
        return False
    after = words[at + 1]
    return after.isalpha() and after.islower() and after not in _NOT_CONTENT


def _opens_a_sentence(text: str, start: int) -> bool:
    """Whether what stands at `start` is the first word of a sentence, a line or a text."""
    before = start
    while before and text[before - 1] in " \t\"'([\n":
        if text[before - 1] == "\n":
            return True
        before -= 1
    return not before or text[before - 1] in ".!?:;"
